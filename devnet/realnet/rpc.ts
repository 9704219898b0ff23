// The realnet answering NEAR JSON-RPC (`RpcChain`, served by devnet/rpc.ts): blocks by height, `call_function` by
// running the contract's own view method in near/vm on the state after that block, and `view_state` from the
// contract's own storage. The market holds only its state now, so answering at an earlier height replays it from
// genesis (the same seed gives the same chain): a bootstrap asks many views at one height, which costs one replay.
import type { RawJson } from '../../near/lake-json.ts';
import type { RpcBlock, RpcChain, RpcViewAnswer } from '../rpc.ts';
import type { RealnetMarket } from './market.ts';

/** nearcore's default `trie_viewer_state_size_limit`: a contract whose state is larger is not served by view_state. */
export const VIEW_STATE_LIMIT_BYTES = 50_000;

export interface RealnetRpcOptions {
  /** A fresh market from its genesis (the same seed and contracts each time). */
  market(): RealnetMarket;
  /** The latest height produced (the indexed head while the indexer runs it, or a fixed N). */
  final(): number;
  /** Contracts with more state than this are not served by view_state (default nearcore's 50 kB; 0: none is). */
  viewStateLimitBytes?: number;
}

interface Header {
  height: number;
  hash: string;
  prev_hash: string;
  timestamp_nanosec: string;
}

const decoder = new TextDecoder();

export class RealnetRpcChain implements RpcChain {
  readonly chainId = 'realnet';
  /** Contracts with more state than this are not served by view_state. */
  viewStateLimitBytes: number;
  private market: RealnetMarket;
  /** Every block produced so far, by height (kept across replays: the same seed gives the same blocks). */
  private readonly headers: Header[] = [];

  constructor(private readonly options: RealnetRpcOptions) {
    this.market = options.market();
    this.viewStateLimitBytes = options.viewStateLimitBytes ?? VIEW_STATE_LIMIT_BYTES;
  }

  /** The market with its state after block `height`. */
  private at(height: number): RealnetMarket {
    if (this.market.chain.height - 1 > height) this.market = this.options.market();
    while (this.market.chain.height <= height) {
      const { block } = this.market.next() as { block: { header: Header } };
      this.headers[block.header.height] = block.header;
    }
    return this.market;
  }

  final(): RpcBlock {
    return this.block(this.options.final())!;
  }

  block(height: number): RpcBlock | null {
    if (!Number.isSafeInteger(height) || height < 1 || height > this.options.final()) return null;
    if (this.headers[height] === undefined) this.at(height);
    const h = this.headers[height]!;
    return { height, hash: h.hash, prevHash: h.prev_hash, timestampNs: BigInt(h.timestamp_nanosec) };
  }

  view(height: number, contractId: string, method: string, args: unknown): RpcViewAnswer | null {
    const market = this.at(height);
    const { chain } = market;
    if (!chain.hasAccount(contractId)) return null;
    if (chain.isHosted(contractId)) {
      // A modelled contract answers as its model does (the market holds its state after `height`).
      const record = args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
      return market.models?.view(contractId, method, record) ?? { vmError: 'MethodResolveError(MethodNotFound)' };
    }
    if (!chain.hasContract(contractId)) return { vmError: `CompilationError(CodeDoesNotExist { account_id: AccountId(${JSON.stringify(contractId)}) })` };
    const header = this.headers[height]!;
    const out = chain.contract(contractId).view(method, (args ?? {}) as object, { blockHeight: height, blockTimestampNs: BigInt(header.timestamp_nanosec) });
    if (!out.ok) return { vmError: /^MethodResolveError/.test(out.error ?? '') ? out.error! : `FunctionCallError(ExecutionError(${JSON.stringify(out.error)}))` };
    return { value: JSON.parse(decoder.decode(out.returnValue ?? new Uint8Array())) as RawJson };
  }

  storage(height: number, contractId: string, prefixBase64: string): Array<{ key: string; value: string }> | null | 'too_large' {
    const { chain } = this.at(height);
    if (!chain.hasAccount(contractId)) return null;
    const storage = chain.storageOf(contractId);
    if (storage === null) return [];
    let size = 0;
    for (const [key, value] of storage) size += key.length + value.length;
    if (size > this.viewStateLimitBytes) return 'too_large';
    const prefix = Buffer.from(prefixBase64, 'base64').toString('latin1');
    return [...storage.keys()]
      .filter((k) => k.startsWith(prefix))
      .sort()
      .map((k) => ({ key: Buffer.from(k, 'latin1').toString('base64'), value: Buffer.from(storage.get(k)!).toString('base64') }));
  }
}
