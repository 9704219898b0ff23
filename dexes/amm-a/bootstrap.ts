// AmmA's bootstrap (`Dex.bootstrap`): its state at one block, every pool kind, for a start in mid-chain. Pure but for
// the calls `at` makes.
//
// Two paths, chosen by what the node serves:
// - storage (`view_state`, where the node serves the contract's state: the devnet; not mainnet's Ref, far over the
//   limit): the pool values under `00 ‖ u64le(id)` and the rated-token rates under `custom_rate_key`, decoded by
//   state.ts exactly as the indexer decodes their writes. The result is the indexer's own state.
// - views (every node): `get_pools` pages, the stable/rated/degen detail views per pool, `list_pool_volumes` pages
//   (`get_pool_volumes` per pool on releases before 1.8.0, which lack it),
//   `list_rated_tokens`. What no view gives is said per field in the README; a pool whose quotes may differ from the
//   contract's (the amp schedule of stable-like pools: views give the current factor only) carries `approximate`.
// `get_number_of_pools` first, in both: it checks the storage read is whole and pages the views.
import { parseU128 } from '../../near/units.ts';
import { MethodMissing, PoolsImportError, type BootstrapEvent, type BootstrapState, type ChainAt, type DexBootstrap } from '../dex.ts';
import { AMM_A_DEX_ID } from './events.ts';
import { parsePoolsJson, simplePool } from './snapshot.ts';
import {
  AmmAStateError,
  RATE_KEY,
  cAmountToAmount,
  decodePool,
  decodeRates,
  poolIdOfKey,
  type AmmAPoolState,
  type RateKind,
  type SfraxExtraInfo,
  type SimplePoolState,
  type StableLikePoolState,
  type SwapVolume,
  type TokenRate,
} from './state.ts';

/** Pools per `get_pools` and `list_pool_volumes` call: a modest page, as a view call runs under a gas limit. */
export const PAGE_SIZE = 200;
/** Above this many pools the storage read is split by the pool id's low byte (prefix `00 ‖ b`, 256 reads), so no
 * answer carries thousands of values (mainnet has over 6 000 pools). */
export const POOLS_PER_STORAGE_READ = 1_000;

/** Why a pool kind is left out: the snapshot files' kinds (snapshot.ts), and what a storage read cannot decode. */
const SKIP_REASONS: Record<string, string> = {
  STABLE_SWAP: 'no token decimals or amp schedule',
  RATED_SWAP: 'no token decimals, amp schedule or rates',
  DEGEN_SWAP: 'no token decimals, amp schedule or rates',
  DCL: 'AmmDclA summaries without ticks',
  UNDECODABLE: 'a pool value that does not decode exactly (another contract version): no guessed state, as the indexer',
  RATES: 'custom_rate_key does not decode exactly (another contract version): rated pools are not routed until a readable write',
};

export const ammABootstrap: DexBootstrap = {
  snapshot: parsePoolsJson,
  read: readAmmA,
  skipReasons: SKIP_REASONS,
};

type Skipped = Record<string, number>;

/** AmmA's pools and rates at `at.height`: from storage where the node serves it, else from the views. */
export async function readAmmA(at: ChainAt): Promise<BootstrapState> {
  const contractId = at.contracts.AmmA;
  const count = await at.view(contractId, 'get_number_of_pools');
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
    throw new PoolsImportError(`${contractId}.get_number_of_pools returned ${JSON.stringify(count)}, not a count`);
  }
  return (await readStorage(at, contractId, count)) ?? (await readViews(at, contractId, count));
}

// ---- storage ----

const POOL_PREFIXES_B64 = { all: [Buffer.from([0]).toString('base64')], byLowByte: Array.from({ length: 256 }, (_, b) => Buffer.from([0, b]).toString('base64')) };
const RATE_KEY_B64 = Buffer.from(RATE_KEY, 'utf8').toString('base64');

/** The pools and rates from raw storage; null when the node does not serve the contract's state. */
async function readStorage(at: ChainAt, contractId: string, count: number): Promise<BootstrapState | null> {
  const prefixes = count <= POOLS_PER_STORAGE_READ ? POOL_PREFIXES_B64.all : POOL_PREFIXES_B64.byLowByte;
  const values = new Map<number, string>();
  for (const prefix of prefixes) {
    const entries = await at.storage(contractId, prefix);
    if (entries === null) return null;
    for (const { keyBase64, valueBase64 } of entries) {
      const poolId = poolIdOfKey(Buffer.from(keyBase64, 'base64'));
      if (poolId !== null) values.set(poolId, valueBase64);
    }
  }
  // The pools are a Vector: ids 0..count-1, every one stored, never deleted.
  const missing = Array.from({ length: count }, (_, id) => id).filter((id) => !values.has(id));
  const extra = [...values.keys()].filter((id) => id >= count);
  if (missing.length || extra.length) {
    const list = (ids: number[]) => `${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', ...' : ''}`;
    throw new PoolsImportError(
      `${contractId} storage at block ${at.height} does not hold pools 0..${count - 1} (get_number_of_pools): ${missing.length ? `missing ${list(missing)}` : ''}${missing.length && extra.length ? '; ' : ''}${extra.length ? `extra ${list(extra)}` : ''}`,
    );
  }
  const events: BootstrapEvent[] = [];
  const skipped: Skipped = {};
  for (let poolId = 0; poolId < count; poolId++) {
    let state: AmmAPoolState;
    try {
      state = decodePool(poolId, Buffer.from(values.get(poolId)!, 'base64'));
    } catch (error) {
      if (!(error instanceof AmmAStateError)) throw error;
      skipped.UNDECODABLE = (skipped.UNDECODABLE ?? 0) + 1;
      continue;
    }
    events.push({ kind: 'pool_state', dex: AMM_A_DEX_ID, contractId, poolId, state, source: 'storage' });
  }
  const rateEntries = await at.storage(contractId, RATE_KEY_B64);
  if (rateEntries === null) return null;
  const stored = rateEntries.find((e) => e.keyBase64 === RATE_KEY_B64);
  if (stored !== undefined) {
    try {
      const rates = decodeRates(Buffer.from(stored.valueBase64, 'base64'));
      events.push(ratesEvent(contractId, [...rates]));
    } catch (error) {
      if (!(error instanceof AmmAStateError)) throw error;
      skipped.RATES = 1;
    }
  }
  return { events, skipped };
}

function ratesEvent(contractId: string, rates: Array<[string, TokenRate]>): BootstrapEvent {
  return { kind: 'rates', dex: AMM_A_DEX_ID, contractId, rates: rates.map(([tokenId, rate]) => ({ tokenId, ...rate })) };
}

// ---- views ----

/** Pool kinds of `PoolInfo.pool_kind` (pool.rs `Pool::kind`) that have a detail view. */
const STABLE_LIKE: Record<string, { kind: 'stable' | 'rated' | 'degen'; view: string; targetDecimals: 18 | 24 }> = {
  STABLE_SWAP: { kind: 'stable', view: 'get_stable_pool', targetDecimals: 18 },
  RATED_SWAP: { kind: 'rated', view: 'get_rated_pool', targetDecimals: 24 },
  DEGEN_SWAP: { kind: 'degen', view: 'get_degen_pool', targetDecimals: 24 },
};

export const APPROXIMATE_AMP = 'amp schedule: the views give the current amp factor only, taken as constant';

async function readViews(at: ChainAt, contractId: string, count: number): Promise<BootstrapState> {
  const events: BootstrapEvent[] = [];
  const skipped: Skipped = {};
  const view = async (method: string, args: Record<string, unknown>): Promise<{ value: unknown; fail: (what: string) => PoolsImportError }> => {
    const value = await at.view(contractId, method, args);
    const call = `${contractId}.${method} ${JSON.stringify(args)} at block ${at.height}`;
    return { value, fail: (what) => new PoolsImportError(`${call}: ${what}`) };
  };
  // `list_pool_volumes` came with 1.8.0 (R: the release wasm, devnet/realnet); before it, `get_pool_volumes` per pool.
  let paged = true;
  const poolVolumes = async (from: number, expected: number): Promise<{ value: unknown; fail: (what: string) => PoolsImportError }> => {
    if (paged) {
      try {
        return await view('list_pool_volumes', { from_index: from, limit: PAGE_SIZE });
      } catch (error) {
        if (!(error instanceof MethodMissing)) throw error;
        paged = false;
      }
    }
    const each: Array<Awaited<ReturnType<typeof view>>> = [];
    for (let i = 0; i < expected; i++) each.push(await view('get_pool_volumes', { pool_id: from + i }));
    return { value: each.map((v) => v.value), fail: (what) => each[0]!.fail(`get_pool_volumes of pools ${from}..${from + expected - 1}: ${what}`) };
  };
  for (let from = 0; from < count; from += PAGE_SIZE) {
    const expected = Math.min(PAGE_SIZE, count - from);
    const page = await view('get_pools', { from_index: from, limit: PAGE_SIZE });
    if (!Array.isArray(page.value) || page.value.length !== expected) throw page.fail(`expected ${expected} pools, got ${describe(page.value)}`);
    const volumes = await poolVolumes(from, expected);
    if (!Array.isArray(volumes.value) || volumes.value.length !== expected) throw volumes.fail(`expected the volumes of ${expected} pools, got ${describe(volumes.value)}`);
    for (const [i, entry] of page.value.entries()) {
      const poolId = from + i;
      if (!isRecord(entry) || typeof entry.pool_kind !== 'string') throw page.fail(`pool ${poolId}: no pool_kind`);
      const spec = Object.hasOwn(STABLE_LIKE, entry.pool_kind) ? STABLE_LIKE[entry.pool_kind]! : null;
      if (entry.pool_kind !== 'SIMPLE_POOL' && spec === null) {
        skipped[entry.pool_kind] = (skipped[entry.pool_kind] ?? 0) + 1;
        continue;
      }
      const tokens = entry.token_account_ids;
      const poolVolumes = volumesOf(volumes.value[i], Array.isArray(tokens) ? tokens.length : -1);
      if (poolVolumes === null) throw volumes.fail(`pool ${poolId}: ${JSON.stringify(volumes.value[i])?.slice(0, 120)} is not one {input, output} of decimal strings per token`);
      let state: AmmAPoolState;
      if (spec === null) {
        let given;
        try {
          given = simplePool(poolId, tokens, entry.amounts, entry.total_fee, entry.shares_total_supply);
        } catch (error) {
          if (error instanceof PoolsImportError) throw page.fail(error.message);
          throw error;
        }
        state = simpleState(given, poolVolumes);
      } else {
        const detail = await view(spec.view, { pool_id: poolId });
        const problem = stableLikeProblem(detail.value, tokens);
        if (problem !== null) throw detail.fail(`pool ${poolId}: ${problem}`);
        state = stableLikeState(poolId, spec.kind, spec.targetDecimals, detail.value as StableLikeInfo, poolVolumes);
        const wrong = state.amounts.findIndex((a, k) => a !== BigInt((detail.value as StableLikeInfo).amounts[k]!));
        if (wrong >= 0) throw detail.fail(`pool ${poolId}: amounts[${wrong}] is not c_amounts[${wrong}] at ${state.decimals[wrong]} decimals`);
      }
      events.push({ kind: 'pool_state', dex: AMM_A_DEX_ID, contractId, poolId, state, source: 'rpc' });
    }
  }
  const rated = await view('list_rated_tokens', {});
  const rates = ratedTokens(rated.value);
  if (typeof rates === 'string') throw rated.fail(rates);
  // No map at all and an empty one answer alike; the indexer then holds no rates either.
  if (rates.length) events.push(ratesEvent(contractId, rates));
  return { events, skipped };
}

/** A simple pool as the indexer holds it: what `get_pools` gives, the volumes, the shares prefix the contract
 * derives from the id, and 0 for the fee copies obsolete since 1.4.0 (no view gives them). */
function simpleState(given: ReturnType<typeof simplePool>, volumes: SwapVolume[]): SimplePoolState {
  const { poolId, tokens, amounts, totalFee, sharesTotalSupply } = given;
  return { poolId, kind: 'simple', tokens, amounts, volumes, totalFee, exchangeFee: 0, referralFee: 0, sharesPrefixHex: sharesPrefixHex(poolId), sharesTotalSupply };
}

interface StableLikeInfo {
  token_account_ids: string[];
  decimals: number[];
  amounts: string[];
  c_amounts: string[];
  total_fee: number;
  shares_total_supply: string;
  amp: number;
}

/** Why a `StablePoolInfo`/`RatedPoolInfo`/`DegenPoolInfo` answer is not one for the page's tokens, or null. */
function stableLikeProblem(value: unknown, pageTokens: unknown): string | null {
  if (!isRecord(value)) return `${describe(value)} is not a pool info`;
  const { token_account_ids: tokens, decimals, amounts, c_amounts: cAmounts, total_fee: fee, shares_total_supply: shares, amp } = value;
  if (!Array.isArray(tokens) || tokens.length < 2 || !tokens.every((t) => typeof t === 'string' && t !== '')) return `token_account_ids ${JSON.stringify(tokens)} are not account ids`;
  if (JSON.stringify(tokens) !== JSON.stringify(pageTokens)) return `token_account_ids ${JSON.stringify(tokens)} are not get_pools' ${JSON.stringify(pageTokens)}`;
  const n = tokens.length;
  if (!Array.isArray(decimals) || decimals.length !== n || !decimals.every((d) => Number.isInteger(d) && d >= 0 && d <= 255)) return `decimals ${JSON.stringify(decimals)} are not ${n} u8`;
  for (const [name, list] of [['amounts', amounts], ['c_amounts', cAmounts]] as const) {
    if (!Array.isArray(list) || list.length !== n || !list.every((a) => parseU128(a) !== null)) return `${name} ${JSON.stringify(list)} are not ${n} u128 decimal strings`;
  }
  if (typeof fee !== 'number' || !Number.isInteger(fee) || fee < 0 || fee > 10_000) return `total_fee ${JSON.stringify(fee)} is not in 0..10000`;
  if (parseU128(shares) === null) return `shares_total_supply ${JSON.stringify(shares)} is not a u128 decimal string`;
  if (typeof amp !== 'number' || !Number.isSafeInteger(amp) || amp < 0) return `amp ${JSON.stringify(amp)} is not a u64`;
  return null;
}

/** A stable, rated or degen pool from its detail view, in state.ts's field order: the amp schedule as the current
 * factor held constant (the views give no ramp), hence `approximate`. */
function stableLikeState(poolId: number, kind: 'stable' | 'rated' | 'degen', targetDecimals: 18 | 24, info: StableLikeInfo, volumes: SwapVolume[]): StableLikePoolState & { approximate: string } {
  const cAmounts = info.c_amounts.map((c) => BigInt(c));
  const amp = BigInt(info.amp);
  return {
    poolId,
    kind,
    tokens: [...info.token_account_ids],
    amounts: cAmounts.map((c, i) => cAmountToAmount(c, info.decimals[i]!, targetDecimals)),
    volumes,
    totalFee: info.total_fee,
    sharesPrefixHex: sharesPrefixHex(poolId),
    sharesTotalSupply: BigInt(info.shares_total_supply),
    decimals: [...info.decimals],
    targetDecimals,
    cAmounts,
    initAmpFactor: amp,
    targetAmpFactor: amp,
    initAmpTime: 0n,
    stopAmpTime: 0n,
    approximate: APPROXIMATE_AMP,
  };
}

/** `StorageKey::Shares { pool_id: u32 }` (lib.rs): variant 2, then the id. */
function sharesPrefixHex(poolId: number): string {
  const bytes = Buffer.alloc(5);
  bytes[0] = 2;
  bytes.writeUInt32LE(poolId, 1);
  return bytes.toString('hex');
}

const U256_MAX = (1n << 256n) - 1n;

/** One pool's `Vec<SwapVolumeU256View>` (decimal strings, u256 since 1.9.11; `U128` before, the same JSON). */
function volumesOf(value: unknown, n: number): SwapVolume[] | null {
  if (!Array.isArray(value) || value.length !== n) return null;
  const u256 = (v: unknown): bigint | null => (typeof v === 'string' && /^\d{1,78}$/.test(v) && BigInt(v) <= U256_MAX ? BigInt(v) : null);
  const out: SwapVolume[] = [];
  for (const v of value) {
    if (!isRecord(v)) return null;
    const input = u256(v.input);
    const output = u256(v.output);
    if (input === null || output === null) return null;
    out.push({ input, output });
  }
  return out;
}

const RATE_KINDS: Record<string, RateKind> = { STNEAR: 'stnear', LINEAR: 'linear', NEARX: 'nearx', SFRAX: 'sfrax' };

/** `list_rated_tokens`' map (token -> `RatedTokenInfo`) as the rates the contract stores, in borsh's key order; or
 * why it is not one. `Rate::new` stores the token id as the rate's contract id. */
function ratedTokens(value: unknown): Array<[string, TokenRate]> | string {
  if (!isRecord(value)) return `${describe(value)} is not a map of rated tokens`;
  const rates: Array<[string, TokenRate]> = [];
  for (const [tokenId, info] of Object.entries(value)) {
    const bad = (what: string) => `${tokenId}: ${what}`;
    if (!isRecord(info)) return bad('not a RatedTokenInfo');
    const kind = typeof info.rate_type === 'string' ? RATE_KINDS[info.rate_type] : undefined;
    if (kind === undefined) return bad(`rate_type ${JSON.stringify(info.rate_type)} is none of ${Object.keys(RATE_KINDS).join(', ')}`);
    const storedRates = parseU128(info.rate_price);
    if (storedRates === null) return bad(`rate_price ${JSON.stringify(info.rate_price)} is not a u128 decimal string`);
    const ratesUpdatedAt = typeof info.last_update_ts === 'string' && /^\d{1,20}$/.test(info.last_update_ts) ? BigInt(info.last_update_ts) : null;
    if (ratesUpdatedAt === null || ratesUpdatedAt >= 1n << 64n) return bad(`last_update_ts ${JSON.stringify(info.last_update_ts)} is not a u64 decimal string`);
    let extraInfo: SfraxExtraInfo | null = null;
    if (kind === 'sfrax') {
      extraInfo = typeof info.extra_info === 'string' ? sfraxExtraInfo(info.extra_info) : null;
      if (extraInfo === null) return bad(`extra_info ${JSON.stringify(info.extra_info)} is not a SfraxExtraInfo`);
    } else if (info.extra_info !== null && info.extra_info !== undefined) {
      return bad(`extra_info ${JSON.stringify(info.extra_info)} on a ${info.rate_type} rate`);
    }
    rates.push([tokenId, { kind, storedRates, ratesUpdatedAt, contractId: tokenId, extraInfo }]);
  }
  // Borsh writes a HashMap sorted by key (bytes): the decoder's order.
  return rates.sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** sfrax_rate.rs `SfraxExtraInfo` as serde writes it: `{"PriceOracle": {...}}` or `{"PythOracle": {...}}`. */
function sfraxExtraInfo(text: string): SfraxExtraInfo | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(json)) return null;
  const u32 = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffff_ffff;
  const id = (v: unknown): v is string => typeof v === 'string' && v !== '';
  const hex32 = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
  const price = json.PriceOracle;
  if (isRecord(price) && Object.keys(json).length === 1) {
    const { oracle_id: oracleId, base_contract_id: base, maximum_recency_duration_sec: recency, maximum_staleness_duration_sec: staleness } = price;
    if (!id(oracleId) || !id(base) || !u32(recency) || !u32(staleness)) return null;
    return { kind: 'price_oracle', oracleId, baseContractId: base, maximumRecencyDurationSec: recency, maximumStalenessDurationSec: staleness };
  }
  const pyth = json.PythOracle;
  if (isRecord(pyth) && Object.keys(json).length === 1) {
    const { oracle_id: oracleId, base_price_identifier: base, rate_price_identifier: rate, pyth_price_valid_duration_sec: valid } = pyth;
    if (!id(oracleId) || !hex32(base) || !hex32(rate) || !u32(valid)) return null;
    return { kind: 'pyth_oracle', oracleId, basePriceIdentifierHex: base, ratePriceIdentifierHex: rate, pythPriceValidDurationSec: valid };
  }
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  return Array.isArray(value) ? `${value.length} entries` : (JSON.stringify(value)?.slice(0, 80) ?? String(value));
}
