// AmmA pool snapshot files -> pool states (`Dex.bootstrap.snapshot`, `dexlake pools import FILE`), for a start in
// mid-chain from saved data; reading a node at one block is bootstrap.ts. Pure: no I/O.
//
// Accepted shapes (detected from the JSON itself):
// - `get_pools`: the JSON result of `v2.ref-finance.near` `get_pools {from_index, limit}`, an array of
//   `{pool_kind, token_account_ids, amounts, total_fee, shares_total_supply, amp}` (ref-exchange views.rs
//   `PoolInfo`); pool ids are positions counted from `from_index` (0 for a file).
// - `get_pools answer`: a saved JSON-RPC answer of that call, `{result: {result: [bytes], block_height, block_hash}}`;
//   it carries its block height.
// - `ref-indexer`: Ref's own indexer API, `{pools: [...]}` or a bare array of pools with `pool_id`
//   (test/fixtures/pools/README.md). Its simple pools give their reserves as `asset_amount`/`fiat_amount` of
//   `asset_info_id`/`fiat_info_id` (or as `amounts`), in smallest units.
//
// Only what is exact becomes an event. A simple pool is fully given by its tokens, reserves and fee (the simple-pool
// math needs nothing else). Stable, rated and degen pools also need the token decimals, the amp schedule and (rated,
// degen) the rates, which neither shape carries: `get_pools`'s `amp` is the current value of a ramp, not the ramp.
// DCL entries of the Ref indexer are AmmDclA summaries without ticks. All of those are skipped and counted.
// A malformed entry of a pool kind we do import (a non-integer amount, three tokens...) stops the import instead:
// the file is not what it claims to be.
import { parseU128 } from '../../near/units.ts';
import { PoolsImportError, type BootstrapPools } from '../dex.ts';
import type { SimplePoolState } from './state.ts';

/** The part of the AmmA simple-pool state (state.ts) that a snapshot gives exactly. */
export type ImportedPoolState = Pick<SimplePoolState, 'poolId' | 'kind' | 'tokens' | 'amounts' | 'totalFee' | 'sharesTotalSupply'>;

export type PoolsShape = 'get_pools' | 'get_pools answer' | 'ref-indexer';

export interface ParsedPools extends BootstrapPools<ImportedPoolState> {
  shape: PoolsShape;
}

const SHAPES = 'the get_pools result of v2.ref-finance.near (an array, or its saved JSON-RPC answer) or Ref indexer pools ({"pools": [...]})';

/** A parsed JSON file in one of the accepted shapes -> its importable pools and what was skipped. */
export function parsePoolsJson(json: unknown): ParsedPools {
  const answer = rpcAnswer(json);
  if (answer) return { ...parseGetPools(answer.value, 0), shape: 'get_pools answer', height: answer.height };
  const list = Array.isArray(json) ? json : isRecord(json) && Array.isArray(json.pools) ? json.pools : null;
  if (list === null) throw new PoolsImportError(`unknown shape: expected ${SHAPES}`);
  if (list.length === 0) throw new PoolsImportError('the file lists no pools');
  if (list.every((p) => isRecord(p) && 'pool_id' in p)) return { ...parseRefIndexerPools(list), shape: 'ref-indexer', height: null };
  if (list.every((p) => isRecord(p) && !('pool_id' in p) && 'pool_kind' in p)) return { ...parseGetPools(list, 0), shape: 'get_pools', height: null };
  throw new PoolsImportError(`unknown shape: expected ${SHAPES}`);
}

type Pools = Omit<ParsedPools, 'shape' | 'height'>;

/** A `get_pools {from_index, limit}` result: pool i of the array is pool `fromIndex + i`. */
export function parseGetPools(result: unknown, fromIndex: number): Pools {
  if (!Array.isArray(result)) throw new PoolsImportError(`get_pools returned ${kindOf(result)}, not an array`);
  const out = collector();
  result.forEach((entry, i) => {
    const poolId = fromIndex + i;
    if (!isRecord(entry) || typeof entry.pool_kind !== 'string') throw new PoolsImportError(`pool ${poolId}: no pool_kind`);
    if (entry.pool_kind !== 'SIMPLE_POOL') return out.skip(entry.pool_kind);
    out.add(simplePool(poolId, entry.token_account_ids, entry.amounts, entry.total_fee, entry.shares_total_supply));
  });
  return out.result();
}

/** Ref indexer pools: `pool_id` is the pool id; simple pools carry their reserves per token. */
export function parseRefIndexerPools(list: readonly unknown[]): Pools {
  const out = collector();
  list.forEach((entry, i) => {
    if (!isRecord(entry) || typeof entry.pool_kind !== 'string') throw new PoolsImportError(`pools[${i}]: no pool_kind`);
    if (entry.pool_kind !== 'SIMPLE_POOL') return out.skip(entry.pool_kind);
    const poolId = entry.pool_id;
    if (typeof poolId !== 'number' || !Number.isSafeInteger(poolId) || poolId < 0) {
      throw new PoolsImportError(`pools[${i}]: pool_id ${JSON.stringify(poolId)} is not a pool number`);
    }
    const amounts = entry.amounts != null ? entry.amounts : reservesByToken(poolId, entry);
    out.add(simplePool(poolId, entry.token_account_ids, amounts, entry.total_fee, entry.shares_total_supply));
  });
  return out.result();
}

/** The indexer's `asset_amount`/`fiat_amount` put in the order of `token_account_ids`, matched by token id. */
function reservesByToken(poolId: number, entry: Record<string, unknown>): unknown[] {
  const tokens = entry.token_account_ids;
  const { asset_info_id: asset, fiat_info_id: fiat } = entry;
  if (!Array.isArray(tokens) || asset === fiat || !tokens.includes(asset) || !tokens.includes(fiat)) {
    throw new PoolsImportError(`pool ${poolId}: asset_info_id and fiat_info_id are not its two tokens`);
  }
  return tokens.map((t) => (t === asset ? entry.asset_amount : entry.fiat_amount));
}

/** A simple pool's fields as `PoolInfo` gives them, checked; PoolsImportError naming the pool otherwise. */
export function simplePool(poolId: number, tokens: unknown, amounts: unknown, totalFee: unknown, shares: unknown): ImportedPoolState {
  const bad = (what: string) => new PoolsImportError(`pool ${poolId} (SIMPLE_POOL): ${what}`);
  if (!Array.isArray(tokens) || tokens.length !== 2 || !tokens.every((t) => typeof t === 'string' && t !== '')) {
    throw bad(`token_account_ids ${JSON.stringify(tokens)} are not two account ids`);
  }
  if (tokens[0] === tokens[1]) throw bad(`both tokens are ${tokens[0]}`);
  if (!Array.isArray(amounts) || amounts.length !== 2) throw bad(`amounts ${JSON.stringify(amounts)} are not two amounts`);
  const reserves = amounts.map((a) => parseU128(a));
  if (reserves.some((r) => r === null)) throw bad(`amounts ${JSON.stringify(amounts)} are not u128 decimal strings`);
  // Basis points of 10 000: the contract refuses anything above.
  if (typeof totalFee !== 'number' || !Number.isInteger(totalFee) || totalFee < 0 || totalFee > 10_000) {
    throw bad(`total_fee ${JSON.stringify(totalFee)} is not in 0..10000`);
  }
  const sharesTotalSupply = parseU128(shares);
  if (sharesTotalSupply === null) throw bad(`shares_total_supply ${JSON.stringify(shares)} is not a u128 decimal string`);
  return { poolId, kind: 'simple', tokens: [...tokens] as string[], amounts: reserves as bigint[], totalFee, sharesTotalSupply };
}

function collector() {
  const pools: ImportedPoolState[] = [];
  const skipped: Record<string, number> = {};
  const seen = new Set<number>();
  let total = 0;
  return {
    add(pool: ImportedPoolState) {
      total++;
      if (seen.has(pool.poolId)) throw new PoolsImportError(`pool ${pool.poolId} is listed twice`);
      seen.add(pool.poolId);
      pools.push(pool);
    },
    skip(kind: string) {
      total++;
      skipped[kind] = (skipped[kind] ?? 0) + 1;
    },
    result: (): Pools => ({ total, pools, skipped }),
  };
}

/** A saved JSON-RPC `query` answer: its return value (JSON in bytes) and block height; null for anything else. */
function rpcAnswer(json: unknown): { value: unknown; height: number } | null {
  if (!isRecord(json) || !isRecord(json.result) || !Array.isArray(json.result.result)) return null;
  const { result: bytes, block_height: height } = json.result;
  if (typeof height !== 'number' || !Number.isSafeInteger(height) || height < 0) {
    throw new PoolsImportError('a JSON-RPC answer without a block_height');
  }
  if (!bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) throw new PoolsImportError('a JSON-RPC answer whose result is not bytes');
  try {
    return { value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes as number[]))), height };
  } catch {
    throw new PoolsImportError('a JSON-RPC answer whose result bytes are not UTF-8 JSON');
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}
