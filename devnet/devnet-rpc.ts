// The devnet answering NEAR JSON-RPC for its own chain (`RpcChain`, served by rpc.ts): blocks by height, views of
// its contracts from their models (`DevnetDex.view`, the tokens' `ft_metadata`), and raw storage (`view_state`) from
// the chain's storage, at any height it has produced. A model holds only its state now, so answering at an earlier
// height replays the chain from genesis to it (the same seed gives the same chain): a bootstrap asks many views
// at one height, which then costs one replay.
import { createHash } from 'node:crypto';
import { base58Encode } from '../near/base58.ts';
import type { DexContracts } from '../dexes/contracts.ts';
import { Devnet, DEVNET_BLOCK_MS, DEVNET_GENESIS_HEIGHT, DEVNET_GENESIS_MS } from './devnet.ts';
import { initMetadata } from './tokens.ts';
import type { RpcBlock, RpcChain, RpcViewAnswer } from './rpc.ts';

/** nearcore's default `trie_viewer_state_size_limit`: a contract whose state is larger is not served by view_state. */
export const VIEW_STATE_LIMIT_BYTES = 50_000;

export interface DevnetRpcOptions {
  seed: string;
  contracts?: DexContracts;
  /** The devnet's genesis, ms (default DEVNET_GENESIS_MS). */
  genesisMs?: number;
  /** The latest height the devnet has produced (the indexed head while it runs, or a fixed N). */
  final(): number;
  /** Contracts with more state than this are not served by view_state (default VIEW_STATE_LIMIT_BYTES; 0: none is,
   * as a bootstrap meets mainnet's large contracts). */
  viewStateLimitBytes?: number;
}

export class DevnetRpcChain implements RpcChain {
  readonly chainId = 'devnet';
  private devnet: Devnet;
  /** Blocks produced so far by `devnet` (its state is the state after the last). */
  private produced = 0;
  /** Each produced block's hash, by height (kept across replays: the same seed gives the same hashes). */
  private readonly hashes: string[] = [];

  constructor(private readonly options: DevnetRpcOptions) {
    this.devnet = this.fresh();
  }

  private fresh(): Devnet {
    const { seed, contracts, genesisMs } = this.options;
    return new Devnet({ seed, ...(contracts ? { contracts } : {}), ...(genesisMs !== undefined ? { genesisMs } : {}) });
  }

  /** The devnet with its state after block `height`. */
  private at(height: number): Devnet {
    const count = height - DEVNET_GENESIS_HEIGHT + 1;
    if (count < this.produced) {
      this.devnet = this.fresh();
      this.produced = 0;
    }
    while (this.produced < count) {
      const message = this.devnet.next() as { block: { header: { hash: string } } };
      this.hashes[DEVNET_GENESIS_HEIGHT + this.produced] = message.block.header.hash;
      this.produced++;
    }
    return this.devnet;
  }

  final(): RpcBlock {
    return this.block(this.options.final())!;
  }

  block(height: number): RpcBlock | null {
    if (!Number.isSafeInteger(height) || height < DEVNET_GENESIS_HEIGHT || height > this.options.final()) return null;
    if (this.hashes[height] === undefined) this.at(height);
    const hash = this.hashes[height]!;
    // Genesis's parent is the chain's own placeholder (chain.ts), derived the same way.
    const prevHash = height === DEVNET_GENESIS_HEIGHT ? genesisParent(this.options.seed) : this.hashOf(height - 1);
    return { height, hash, prevHash, timestampNs: BigInt((this.options.genesisMs ?? DEVNET_GENESIS_MS) + (height - DEVNET_GENESIS_HEIGHT) * DEVNET_BLOCK_MS) * 1_000_000n };
  }

  private hashOf(height: number): string {
    if (this.hashes[height] === undefined) this.at(height);
    return this.hashes[height]!;
  }

  view(height: number, contractId: string, method: string, args: unknown): RpcViewAnswer | null {
    const devnet = this.at(height);
    const { world } = devnet;
    const record = args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
    for (const dex of devnet.dexes) {
      const answer = dex.view?.(world, contractId, method, record);
      if (answer !== undefined) return answer;
    }
    if (world.tokens.has(contractId)) {
      const spec = world.tokens.spec(contractId);
      // A legacy token (wNEAR here) was deployed without metadata: it has no ft_metadata on the devnet.
      if (method === 'ft_metadata' && !spec.legacy) {
        return { value: initMetadata(spec) };
      }
      if (method === 'ft_balance_of' && typeof record.account_id === 'string') return { value: world.tokens.balance(contractId, record.account_id).toString() };
    }
    if (world.chain.storage.has(contractId) || world.tokens.has(contractId)) return { vmError: 'MethodResolveError(MethodNotFound)' };
    return null;
  }

  storage(height: number, contractId: string, prefixBase64: string): Array<{ key: string; value: string }> | null | 'too_large' {
    const { chain } = this.at(height).world;
    const account = chain.storage.get(contractId);
    if (account === undefined) return null;
    let size = 0;
    for (const [key, value] of account) size += (key.length * 3) / 4 + (value.length * 3) / 4;
    if (size > (this.options.viewStateLimitBytes ?? VIEW_STATE_LIMIT_BYTES)) return 'too_large';
    const prefix = Buffer.from(prefixBase64, 'base64');
    const entries = [...account]
      .map(([key, value]) => ({ raw: Buffer.from(key, 'base64'), key, value }))
      .filter((e) => e.raw.subarray(0, prefix.length).equals(prefix))
      .sort((a, b) => Buffer.compare(a.raw, b.raw));
    return entries.map(({ key, value }) => ({ key, value }));
  }
}

function genesisParent(seed: string): string {
  return base58Encode(createHash('sha256').update(`${seed}|${DEVNET_GENESIS_HEIGHT}|genesis-parent`).digest());
}
