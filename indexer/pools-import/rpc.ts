// A DEX's pools live from a NEAR JSON-RPC node, every page at one block (`Dex.bootstrap.rpc`): its count view at
// `finality: final` (or at `block_id: H`), then its page view page by page at the block that first answer came from,
// then that block's header for its timestamp (transport and errors: indexer/near-rpc.ts). AmmA's: `get_number_of_pools`,
// then `get_pools {from_index, limit}`.
import type { BootstrapPools, DexBootstrap } from '../../dexes/dex.ts';
import { blockHeader, viewFunctionAt } from '../near-rpc.ts';

/** Pools per `get_pools` call: a modest page, as a view call runs under a gas limit. */
export const PAGE_SIZE = 200;
const TIMEOUT_MS = 30_000;

/** An answer that is not what an import needs (the transport's failures are RpcError). */
export class PoolsRpcError extends Error {
  override name = 'PoolsRpcError';
}

export interface FetchPoolsOptions {
  rpcUrl: string;
  contractId: string;
  bootstrap: DexBootstrap;
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
  pools: BootstrapPools['pools'];
  skipped: Record<string, number>;
}

export async function fetchPools(options: FetchPoolsOptions): Promise<FetchedPools> {
  const { rpcUrl, contractId, bootstrap, pageSize = PAGE_SIZE, signal } = options;
  const call = (view: { method: string; args: unknown }, blockId: number | undefined) =>
    viewFunctionAt(rpcUrl, contractId, view.method, view.args, { blockId, signal, timeoutMs: TIMEOUT_MS });
  const first = await call(bootstrap.rpc.count, options.height);
  const count = first.value;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
    throw new PoolsRpcError(`${contractId}.${bootstrap.rpc.count.method} returned ${JSON.stringify(count)}, not a count`);
  }
  const height = first.blockHeight;
  if (options.height !== undefined && height !== options.height) {
    throw new PoolsRpcError(`asked for block ${options.height}, the node answered at block ${height}`);
  }
  const pools: BootstrapPools['pools'] = [];
  const skipped: Record<string, number> = {};
  for (let from = 0; from < count; from += pageSize) {
    const view = bootstrap.rpc.page(from, pageSize);
    const page = await call(view, height);
    const expected = Math.min(pageSize, count - from);
    if (!Array.isArray(page.value) || page.value.length !== expected) {
      const got = Array.isArray(page.value) ? `${page.value.length} pools` : JSON.stringify(page.value)?.slice(0, 80);
      throw new PoolsRpcError(`${view.method} from ${from}: expected ${expected} pools at block ${height}, got ${got}`);
    }
    const parsed = bootstrap.rpc.parsePage(page.value, from);
    pools.push(...parsed.pools);
    for (const [kind, n] of Object.entries(parsed.skipped)) skipped[kind] = (skipped[kind] ?? 0) + n;
    options.onPage?.(from + expected, count, height);
  }
  const header = await blockHeader(rpcUrl, height, { signal, timeoutMs: TIMEOUT_MS });
  if (header.height !== height) throw new PoolsRpcError(`block ${height}: the node answered block ${header.height}`);
  const timestampMs = header.timestampMs;
  return { height, blockHash: first.blockHash, timestampMs, total: count, pools, skipped };
}
