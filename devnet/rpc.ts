// A NEAR JSON-RPC server in nearcore's own shapes (docs.near.org/api/rpc; nearcore chain/jsonrpc), answering from a
// `RpcChain`: the realnet (realnet/rpc.ts), or a test's table of real contract answers. The methods
// `dexlake bootstrap` and the indexer use: `status`, `block` (by height, hash or `finality`), and `query` with
// `call_function` (a view's JSON in `result` bytes; a contract failure the old way, `result.error` with HTTP 200)
// and `view_state` (`values` of base64 keys and values; a contract over the node's limit refused with
// TOO_LARGE_CONTRACT_STATE). Errors as nearcore sends them: HANDLER_ERROR with a `cause` (UNKNOWN_BLOCK,
// UNKNOWN_ACCOUNT...), REQUEST_VALIDATION_ERROR for a request it cannot read.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { blockView } from '../near/lake-json.ts';
import { DEFAULT_PARAMS, PROTOCOL_VERSION } from '../near/vm/params.ts';

export interface RpcBlock {
  height: number;
  hash: string;
  prevHash: string;
  timestampNs: bigint;
}

/** A view's answer: its JSON value, or the contract's failure as the VM reports it (`MethodResolveError(...)`). */
export type RpcViewAnswer = { value: unknown } | { vmError: string };

export interface RpcChain {
  chainId: string;
  /** The latest final block. */
  final(): RpcBlock;
  /** A block by height, or null when the node does not keep it (never produced, or garbage-collected). */
  block(height: number): RpcBlock | null;
  /** A view call at a kept block; null when the account does not exist there. */
  view(height: number, contractId: string, method: string, args: unknown): RpcViewAnswer | null | Promise<RpcViewAnswer | null>;
  /** The storage under a prefix at a kept block, in key order; null when the account does not exist; 'too_large'
   * when its state is over the node's limit. */
  storage(
    height: number,
    contractId: string,
    prefixBase64: string,
  ): Array<{ key: string; value: string }> | null | 'too_large' | Promise<Array<{ key: string; value: string }> | null | 'too_large'>;
}

export interface NearRpcServer {
  url: string;
  close(): Promise<void>;
}

type Answer = { result: unknown } | { error: Record<string, unknown>; status?: number };

const handlerError = (cause: string, info: Record<string, unknown>): Answer => ({
  error: { name: 'HANDLER_ERROR', cause: { name: cause, info }, code: -32000, message: 'Server error', data: cause },
});
const invalid = (what: string): Answer => ({
  error: { name: 'REQUEST_VALIDATION_ERROR', cause: { name: 'PARSE_ERROR', info: { error_message: what } }, code: -32700, message: 'Parse error' },
  status: 400,
});

/** A request's block reference: `finality`, `block_id` as a height or a hash. */
function blockOf(chain: RpcChain, params: Record<string, unknown>): RpcBlock | Answer {
  if (typeof params.finality === 'string') return chain.final();
  const id = params.block_id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return chain.block(id) ?? handlerError('UNKNOWN_BLOCK', { block_reference: { block_id: id } });
  if (typeof id === 'string') {
    for (let h = chain.final().height; h >= 0; h--) {
      const block = chain.block(h);
      if (block === null) break;
      if (block.hash === id) return block;
    }
    return handlerError('UNKNOWN_BLOCK', { block_reference: { block_id: id } });
  }
  return invalid('a block reference (finality or block_id) is required');
}

const isBlock = (v: RpcBlock | Answer): v is RpcBlock => 'height' in v;

export async function answer(chain: RpcChain, method: string, params: unknown): Promise<Answer> {
  const p = (params ?? {}) as Record<string, unknown>;
  if (method === 'status') {
    const final = chain.final();
    return {
      result: {
        chain_id: chain.chainId,
        sync_info: { latest_block_height: final.height, latest_block_hash: final.hash, latest_block_time: new Date(Number(final.timestampNs / 1_000_000n)).toISOString(), syncing: false },
      },
    };
  }
  if (method === 'block') {
    const block = blockOf(chain, p);
    if (!isBlock(block)) return block;
    return { result: blockView({ height: block.height, hash: block.hash, prevHash: block.prevHash, timestampNs: block.timestampNs, author: 'devnet.poolv1.near', chunkHashes: [] }) };
  }
  if (method === 'EXPERIMENTAL_protocol_config') {
    // The limits the devnet's contracts run under (near/vm's protocol parameters), as nearcore's view nests them.
    const { limits } = DEFAULT_PARAMS;
    return {
      result: {
        chain_id: chain.chainId,
        protocol_version: PROTOCOL_VERSION,
        runtime_config: {
          wasm_config: {
            limit_config: {
              max_total_prepaid_gas: Number(limits.maxTotalPrepaidGas),
              max_gas_burnt: Number(limits.maxGasBurnt),
              max_number_logs: Number(limits.maxNumberLogs),
              max_total_log_length: Number(limits.maxTotalLogLength),
            },
          },
        },
      },
    };
  }
  if (method !== 'query') return { error: { name: 'HANDLER_ERROR', cause: { name: 'METHOD_NOT_FOUND', info: { method_name: method } }, code: -32601, message: 'Method not found' } };
  const block = blockOf(chain, p);
  if (!isBlock(block)) return block;
  const account = p.account_id;
  if (typeof account !== 'string') return invalid('account_id is required');
  const at = { block_height: block.height, block_hash: block.hash };
  if (p.request_type === 'call_function') {
    if (typeof p.method_name !== 'string' || typeof p.args_base64 !== 'string') return invalid('method_name and args_base64 are required');
    let args: unknown = {};
    const text = Buffer.from(p.args_base64, 'base64').toString('utf8');
    if (text !== '') {
      try {
        args = JSON.parse(text);
      } catch {
        return { result: { error: 'wasm execution failed with error: HostError(GuestPanic { panic_msg: "Failed to deserialize input from JSON." })', logs: [], ...at } };
      }
    }
    const viewed = await chain.view(block.height, account, p.method_name, args);
    if (viewed === null) return handlerError('UNKNOWN_ACCOUNT', { requested_account_id: account, ...at });
    if ('vmError' in viewed) return { result: { error: `wasm execution failed with error: ${viewed.vmError}`, logs: [], ...at } };
    const bytes = viewed.value === undefined ? [] : [...Buffer.from(JSON.stringify(viewed.value), 'utf8')];
    return { result: { result: bytes, logs: [], ...at } };
  }
  if (p.request_type === 'view_state') {
    const prefix = typeof p.prefix_base64 === 'string' ? p.prefix_base64 : '';
    const values = await chain.storage(block.height, account, prefix);
    if (values === null) return handlerError('UNKNOWN_ACCOUNT', { requested_account_id: account, ...at });
    if (values === 'too_large') return handlerError('TOO_LARGE_CONTRACT_STATE', { contract_account_id: account, ...at });
    return { result: { values, proof: [], ...at } };
  }
  return invalid(`request_type ${JSON.stringify(p.request_type)} is not served here`);
}

/** Serves `chain` over HTTP POST (JSON-RPC 2.0) on host:port (0: any free port). */
export async function startNearRpc(chain: RpcChain, options: { host?: string; port?: number } = {}): Promise<NearRpcServer> {
  const server: Server = createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    let request: { id?: unknown; method?: unknown; params?: unknown };
    try {
      request = JSON.parse(text) as typeof request;
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, ...invalid('the body is not JSON') }));
      return;
    }
    let out: Answer;
    try {
      out = typeof request.method === 'string' ? await answer(chain, request.method, request.params) : invalid('method is required');
    } catch (error) {
      out = { error: { name: 'INTERNAL_ERROR', cause: { name: 'INTERNAL_ERROR', info: { error_message: (error as Error).message } }, code: -32000 }, status: 500 };
    }
    const status = 'status' in out && out.status !== undefined ? out.status : 200;
    const { status: _status, ...body } = out as Answer & { status?: number };
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: request.id ?? null, ...body }));
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://${options.host ?? '127.0.0.1'}:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
