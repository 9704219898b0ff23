// AmmA pools live from a NEAR JSON-RPC node, every page at one block: `get_number_of_pools` at `finality: final`
// (or at `block_id: H`), then `get_pools {from_index, limit}` page by page at the block that first answer came from,
// then that block's header for its timestamp.
//
// Protocol (docs.near.org/api/rpc/contracts, /api/rpc/block-chunk; nearcore jsonrpc): `query` with
// `request_type: "call_function"`, `account_id`, `method_name`, `args_base64` and either `finality` or `block_id`,
// answered by `{result: {result: [bytes], logs, block_height, block_hash}}`; `block` with `block_id` answered by
// `{result: {header: {height, hash, timestamp_nanosec, ...}, ...}}`. Errors as indexer/near-rpc.ts describes them:
// `{error: {name, cause: {name, info}}}`, INTERNAL_ERROR and HTTP 408/429/5xx are worth another try.
//
// indexer/near-rpc.ts `viewFunction` asks at `finality` only and drops the answer's block height, which an import
// needs for every page; this module carries its own small transport until that client can ask at a block.
import { z } from 'zod';
import { retrying } from '../sources/retry.ts';
import { parseGetPools, type ImportedPoolState } from './parse.ts';

/** Pools per `get_pools` call: a modest page, as a view call runs under a gas limit. */
export const PAGE_SIZE = 200;
const TIMEOUT_MS = 30_000;
const RETRIES = 3;
const BACKOFF = { initialMs: 500, maxMs: 5_000 };

/** A failed JSON-RPC call; `transient` when asking again later may work. */
export class PoolsRpcError extends Error {
  override name = 'PoolsRpcError';
  constructor(
    message: string,
    readonly transient = false,
  ) {
    super(message);
  }
}

export interface FetchPoolsOptions {
  rpcUrl: string;
  contractId: string;
  /** Ask at this block; default: the latest final block. */
  height?: number | undefined;
  pageSize?: number;
  signal?: AbortSignal;
  /** After each page: pools fetched so far, of how many. */
  onPage?: (fetched: number, total: number, height: number) => void;
}

export interface FetchedPools {
  height: number;
  blockHash: string;
  timestampMs: number;
  total: number;
  pools: ImportedPoolState[];
  skipped: Record<string, number>;
}

export async function fetchPools(options: FetchPoolsOptions): Promise<FetchedPools> {
  const { rpcUrl, contractId, pageSize = PAGE_SIZE, signal } = options;
  const call = (method: string, args: unknown, block: BlockRef) => callFunction(rpcUrl, contractId, method, args, block, signal);
  const first = await call('get_number_of_pools', {}, options.height === undefined ? { finality: 'final' } : { block_id: options.height });
  const count = first.value;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
    throw new PoolsRpcError(`${contractId}.get_number_of_pools returned ${JSON.stringify(count)}, not a count`);
  }
  const height = first.blockHeight;
  if (options.height !== undefined && height !== options.height) {
    throw new PoolsRpcError(`asked for block ${options.height}, the node answered at block ${height}`);
  }
  const pools: ImportedPoolState[] = [];
  const skipped: Record<string, number> = {};
  for (let from = 0; from < count; from += pageSize) {
    const page = await call('get_pools', { from_index: from, limit: pageSize }, { block_id: height });
    const expected = Math.min(pageSize, count - from);
    if (!Array.isArray(page.value) || page.value.length !== expected) {
      const got = Array.isArray(page.value) ? `${page.value.length} pools` : JSON.stringify(page.value)?.slice(0, 80);
      throw new PoolsRpcError(`get_pools from ${from}: expected ${expected} pools at block ${height}, got ${got}`);
    }
    const parsed = parseGetPools(page.value, from);
    pools.push(...parsed.pools);
    for (const [kind, n] of Object.entries(parsed.skipped)) skipped[kind] = (skipped[kind] ?? 0) + n;
    options.onPage?.(from + expected, count, height);
  }
  const timestampMs = await blockTimestampMs(rpcUrl, height, signal);
  return { height, blockHash: first.blockHash, timestampMs, total: count, pools, skipped };
}

type BlockRef = { finality: 'final' } | { block_id: number };

const CallResult = z.object({
  result: z.array(z.number().int().min(0).max(255)).optional(),
  error: z.string().optional(),
  block_height: z.number().int().nonnegative(),
  block_hash: z.string(),
});

/** A view call at a block: its JSON return value and the block it was answered at. */
async function callFunction(rpcUrl: string, contractId: string, method: string, args: unknown, block: BlockRef, signal?: AbortSignal) {
  const what = `${contractId}.${method}`;
  const params = { request_type: 'call_function', ...block, account_id: contractId, method_name: method, args_base64: Buffer.from(JSON.stringify(args)).toString('base64') };
  const parsed = CallResult.safeParse(await jsonRpc(rpcUrl, 'query', params, what, signal));
  if (!parsed.success) throw new PoolsRpcError(`${what}: not a call_function answer`);
  const { result: bytes, error, block_height: blockHeight, block_hash: blockHash } = parsed.data;
  // nearcore still reports a contract failure in the result, with HTTP 200, for backward compatibility.
  if (error !== undefined) throw new PoolsRpcError(`${what}: CONTRACT_EXECUTION_ERROR (${error})`);
  if (bytes === undefined) throw new PoolsRpcError(`${what}: no result`);
  try {
    return { value: JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown, blockHeight, blockHash };
  } catch {
    throw new PoolsRpcError(`${what}: the contract returned ${bytes.length} bytes that are not JSON`);
  }
}

const BlockResult = z.object({ header: z.object({ height: z.number(), timestamp_nanosec: z.string().regex(/^\d+$/) }) });

async function blockTimestampMs(rpcUrl: string, height: number, signal?: AbortSignal): Promise<number> {
  const parsed = BlockResult.safeParse(await jsonRpc(rpcUrl, 'block', { block_id: height }, `block ${height}`, signal));
  if (!parsed.success || parsed.data.header.height !== height) throw new PoolsRpcError(`block ${height}: not a block answer`);
  return Number(BigInt(parsed.data.header.timestamp_nanosec) / 1_000_000n);
}

const Envelope = z.object({
  result: z.unknown().optional(),
  error: z.object({ name: z.string().optional(), cause: z.object({ name: z.string(), info: z.unknown().optional() }).optional(), data: z.unknown().optional() }).optional(),
});

/** One JSON-RPC call with retries on transient failures; returns `result`. */
async function jsonRpc(rpcUrl: string, method: string, params: unknown, what: string, signal?: AbortSignal): Promise<unknown> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 'dexlake', method, params });
  let retries = 0;
  return retrying(() => postOnce(rpcUrl, body, what, signal), {
    signal: signal ?? new AbortController().signal,
    backoff: BACKOFF,
    retryable: (error) => error instanceof PoolsRpcError && error.transient && ++retries <= RETRIES,
  });
}

async function postOnce(rpcUrl: string, body: string, what: string, outer?: AbortSignal): Promise<unknown> {
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  let status: number;
  let text: string;
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: outer ? AbortSignal.any([timeout, outer]) : timeout,
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    if (outer?.aborted) throw outer.reason;
    // undici's "fetch failed" hides the useful part (ECONNREFUSED...) in `cause`.
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    const reason = timeout.aborted ? `no answer in ${TIMEOUT_MS} ms` : `${error instanceof Error ? error.message : String(error)}${cause}`;
    throw new PoolsRpcError(`${what}: ${reason}`, true);
  }
  const transient = status === 408 || status === 429 || status >= 500;
  let envelope: z.infer<typeof Envelope> | undefined;
  try {
    envelope = Envelope.parse(JSON.parse(text));
  } catch {
    throw new PoolsRpcError(`${what}: HTTP ${status}, not a JSON-RPC answer: ${text.slice(0, 200)}`, transient);
  }
  if (envelope.error) {
    const e = envelope.error;
    const detail = e.cause?.info !== undefined ? JSON.stringify(e.cause.info) : typeof e.data === 'string' ? e.data : '';
    throw new PoolsRpcError(`${what}: ${e.cause?.name ?? e.name ?? 'RPC_ERROR'}${detail ? ` (${detail})` : ''}`, transient || e.name === 'INTERNAL_ERROR');
  }
  if (status < 200 || status > 299) throw new PoolsRpcError(`${what}: HTTP ${status}`, transient);
  return envelope.result;
}
