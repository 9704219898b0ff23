// AmmA (Ref Finance `v2.ref-finance.near`, crate ref-exchange) contract storage: the borsh
// layouts of the pool values and the rated-token rates, exactly as
// docs/ref-storage-layout.md §2 and §4 give them. The Pool enum variants and their
// struct layouts have never changed since each was introduced (variants were only appended),
// so one decoder per variant covers every contract version. SimplePool is verified byte for
// byte on real blocks; the Stable/Rated/Degen layout and the `custom_rate_key` map come from the
// contract source and one third-party decoder (no fixture holds such a value).
//
// Everything throws AmmAStateError on a layout mismatch (unknown enum tag, short value,
// leftover bytes): a value that does not decode exactly means the contract changed, and a
// guessed pool state would be worse than a stopped indexer.

import { BorshError, BorshReader, BorshWriter, toHex } from '../../near/borsh.ts';

export class AmmAStateError extends Error {
  override name = 'AmmAStateError';
}

/** Storage key prefix of the pools `Vector` (StorageKey::Pools = variant 0). */
export const POOL_KEY_PREFIX = 0x00;
/** Raw storage key of the rated-token rates map (since 1.5.1). */
export const RATE_KEY = 'custom_rate_key';

/** Cumulative swap volume of one token in one pool. Frozen in the pool value since 1.9.11 (2025-03): the live
 * figures are under `sv ‖ u32le(pool_id)`. */
export interface SwapVolume {
  input: bigint;
  output: bigint;
}

interface PoolStateCommon {
  poolId: number;
  tokens: string[];
  /** Reserves in each token's raw units (for stable-like pools: derived from `cAmounts`, see below). */
  amounts: bigint[];
  volumes: SwapVolume[];
  /** Fee in basis points of the input amount (divisor 10 000). */
  totalFee: number;
  /** Storage prefix of the pool's LP-share LookupMap as stored (`02 ‖ u32le(pool_id)`), lower-case hex. */
  sharesPrefixHex: string;
  sharesTotalSupply: bigint;
}

/** Pool enum variant 0: constant product, always 2 tokens. */
export interface SimplePoolState extends PoolStateCommon {
  kind: 'simple';
  /** Obsolete since contract 1.4.0; old pools still carry their values (e.g. pool 1395: 4 and 1). */
  exchangeFee: number;
  referralFee: number;
}

/**
 * Pool enum variants 1 (StableSwapPool), 2 (RatedSwapPool), 3 (DegenSwapPool): one byte layout.
 * The contract keeps `cAmounts`, reserves scaled to a common precision (`targetDecimals`: 18 for
 * stable, 24 for rated and degen); `amounts` is the raw-unit view the contract's views return:
 * `c / 10^(target-d)` (truncating) when d <= target, else `c * 10^(d-target)`.
 */
export interface StableLikePoolState extends PoolStateCommon {
  kind: 'stable' | 'rated' | 'degen';
  decimals: number[];
  targetDecimals: 18 | 24;
  cAmounts: bigint[];
  initAmpFactor: bigint;
  targetAmpFactor: bigint;
  /** Nanoseconds (block timestamp). The amp moves linearly from init to target between these
   * times, rounded down; it is the target when now >= stop or stop = 0. */
  initAmpTime: bigint;
  stopAmpTime: bigint;
}

export type AmmAPoolState = SimplePoolState | StableLikePoolState;
export type AmmAPoolKind = AmmAPoolState['kind'];

const KIND_BY_TAG: readonly AmmAPoolKind[] = ['simple', 'stable', 'rated', 'degen'];

/** The pool id of a pool storage key (`00 ‖ u64le(id)`, 9 bytes), or null for any other key. */
export function poolIdOfKey(key: Uint8Array): number | null {
  if (key.length !== 9 || key[0] !== POOL_KEY_PREFIX) return null;
  const id = new DataView(key.buffer, key.byteOffset, key.byteLength).getBigUint64(1, true);
  if (id > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  return Number(id);
}

/** Decodes the borsh `Pool` enum value stored under `00 ‖ u64le(poolId)`. */
export function decodePool(poolId: number, value: Uint8Array): AmmAPoolState {
  const r = new BorshReader(value);
  try {
    const tag = r.u8();
    const kind = KIND_BY_TAG[tag];
    if (kind === undefined) throw new AmmAStateError(`unknown Pool variant ${tag}`);
    const pool = kind === 'simple' ? readSimple(r, poolId) : readStableLike(r, poolId, kind);
    r.done(`pool ${poolId} (${kind})`);
    checkLengths(pool);
    return pool;
  } catch (err) {
    throw wrap(err, `AmmA pool ${poolId} (${value.length} bytes)`);
  }
}

/** The storage key of a pool: `00 ‖ u64le(poolId)`. */
export function poolKey(poolId: number): Uint8Array {
  return new BorshWriter().u8(POOL_KEY_PREFIX).u64(BigInt(poolId)).bytes();
}

/** The inverse of decodePool: the borsh value the contract stores (the devnet simulator writes it). */
export function encodePool(pool: AmmAPoolState): Uint8Array {
  const w = new BorshWriter().u8(KIND_BY_TAG.indexOf(pool.kind));
  w.vec(pool.tokens, (x, t) => x.string(t));
  if (pool.kind === 'simple') {
    w.vec(pool.amounts, (x, a) => x.u128(a));
    w.vec(pool.volumes, (x, v) => x.u128(v.input).u128(v.output));
    w.u32(pool.totalFee).u32(pool.exchangeFee).u32(pool.referralFee);
    w.bytesVec(Buffer.from(pool.sharesPrefixHex, 'hex')).u128(pool.sharesTotalSupply);
    return w.bytes();
  }
  w.vec(pool.decimals, (x, d) => x.u8(d));
  w.vec(pool.cAmounts, (x, a) => x.u128(a));
  w.vec(pool.volumes, (x, v) => x.u128(v.input).u128(v.output));
  w.u32(pool.totalFee).bytesVec(Buffer.from(pool.sharesPrefixHex, 'hex')).u128(pool.sharesTotalSupply);
  w.u128(pool.initAmpFactor).u128(pool.targetAmpFactor).u64(pool.initAmpTime).u64(pool.stopAmpTime);
  return w.bytes();
}

function readSimple(r: BorshReader, poolId: number): SimplePoolState {
  const tokens = r.vec(readString);
  const amounts = r.vec(readU128);
  const volumes = r.vec(readVolume);
  const totalFee = r.u32();
  const exchangeFee = r.u32();
  const referralFee = r.u32();
  const sharesPrefixHex = toHex(r.bytesVec());
  const sharesTotalSupply = r.u128();
  return {
    poolId,
    kind: 'simple',
    tokens,
    amounts,
    volumes,
    totalFee,
    exchangeFee,
    referralFee,
    sharesPrefixHex,
    sharesTotalSupply,
  };
}

function readStableLike(r: BorshReader, poolId: number, kind: 'stable' | 'rated' | 'degen'): StableLikePoolState {
  const tokens = r.vec(readString);
  const decimals = r.vec((x) => x.u8());
  const cAmounts = r.vec(readU128);
  const volumes = r.vec(readVolume);
  const totalFee = r.u32();
  const sharesPrefixHex = toHex(r.bytesVec());
  const sharesTotalSupply = r.u128();
  const initAmpFactor = r.u128();
  const targetAmpFactor = r.u128();
  const initAmpTime = r.u64();
  const stopAmpTime = r.u64();
  const targetDecimals = kind === 'stable' ? 18 : 24;
  if (decimals.length !== cAmounts.length) {
    throw new AmmAStateError(`${decimals.length} decimals for ${cAmounts.length} amounts`);
  }
  const amounts = cAmounts.map((c, i) => cAmountToAmount(c, decimals[i] ?? 0, targetDecimals));
  return {
    poolId,
    kind,
    tokens,
    amounts,
    volumes,
    totalFee,
    sharesPrefixHex,
    sharesTotalSupply,
    decimals,
    targetDecimals,
    cAmounts,
    initAmpFactor,
    targetAmpFactor,
    initAmpTime,
    stopAmpTime,
  };
}

/** Comparable (c-unit) amount to raw token units, as the contract converts it. */
export function cAmountToAmount(cAmount: bigint, decimals: number, targetDecimals: number): bigint {
  return decimals <= targetDecimals
    ? cAmount / 10n ** BigInt(targetDecimals - decimals)
    : cAmount * 10n ** BigInt(decimals - targetDecimals);
}

/** Raw token units to the comparable precision. */
export function amountToCAmount(amount: bigint, decimals: number, targetDecimals: number): bigint {
  return decimals <= targetDecimals
    ? amount * 10n ** BigInt(targetDecimals - decimals)
    : amount / 10n ** BigInt(decimals - targetDecimals);
}

function checkLengths(pool: AmmAPoolState): void {
  const n = pool.tokens.length;
  if (pool.amounts.length !== n || pool.volumes.length !== n) {
    throw new AmmAStateError(
      `${n} tokens but ${pool.amounts.length} amounts and ${pool.volumes.length} volumes`,
    );
  }
  if (pool.kind === 'simple' && n !== 2) throw new AmmAStateError(`simple pool with ${n} tokens`);
}

// ---- custom_rate_key: HashMap<String, Rate> (rated pools) ----

export type RateKind = 'stnear' | 'linear' | 'nearx' | 'sfrax';
const RATE_KIND_BY_TAG: readonly RateKind[] = ['stnear', 'linear', 'nearx', 'sfrax'];

export type SfraxExtraInfo =
  | {
      kind: 'price_oracle';
      oracleId: string;
      baseContractId: string;
      maximumRecencyDurationSec: number;
      maximumStalenessDurationSec: number;
    }
  | {
      kind: 'pyth_oracle';
      oracleId: string;
      basePriceIdentifierHex: string;
      ratePriceIdentifierHex: string;
      pythPriceValidDurationSec: number;
    };

export interface TokenRate {
  kind: RateKind;
  /** Token price in the rate's base, 10^24 = 1.0. Tokens without an entry use 10^24. */
  storedRates: bigint;
  /** Nanoseconds. */
  ratesUpdatedAt: bigint;
  contractId: string;
  /** Only for `sfrax`. */
  extraInfo: SfraxExtraInfo | null;
}

export const DEFAULT_RATE = 10n ** 24n;

/** Decodes the value under raw key `custom_rate_key` (source-derived layout, not fixture-verified). */
export function decodeRates(value: Uint8Array): Map<string, TokenRate> {
  const r = new BorshReader(value);
  try {
    const entries = r.vec((x) => [readString(x), readRate(x)] as const);
    r.done(RATE_KEY);
    return new Map(entries);
  } catch (err) {
    throw wrap(err, `AmmA ${RATE_KEY} (${value.length} bytes)`);
  }
}

function readRate(r: BorshReader): TokenRate {
  const tag = r.u8();
  const kind = RATE_KIND_BY_TAG[tag];
  if (kind === undefined) throw new AmmAStateError(`unknown Rate variant ${tag}`);
  const storedRates = r.u128();
  const ratesUpdatedAt = r.u64();
  const contractId = r.string();
  const extraInfo = kind === 'sfrax' ? readSfraxExtraInfo(r) : null;
  return { kind, storedRates, ratesUpdatedAt, contractId, extraInfo };
}

function readSfraxExtraInfo(r: BorshReader): SfraxExtraInfo {
  const tag = r.u8();
  if (tag === 0) {
    return {
      kind: 'price_oracle',
      oracleId: r.string(),
      baseContractId: r.string(),
      maximumRecencyDurationSec: r.u32(),
      maximumStalenessDurationSec: r.u32(),
    };
  }
  if (tag === 1) {
    return {
      kind: 'pyth_oracle',
      oracleId: r.string(),
      basePriceIdentifierHex: toHex(r.fixedBytes(32)),
      ratePriceIdentifierHex: toHex(r.fixedBytes(32)),
      pythPriceValidDurationSec: r.u32(),
    };
  }
  throw new AmmAStateError(`unknown SfraxExtraInfo variant ${tag}`);
}

// ---- helpers ----

function readString(r: BorshReader): string {
  return r.string();
}

function readU128(r: BorshReader): bigint {
  return r.u128();
}

function readVolume(r: BorshReader): SwapVolume {
  return { input: r.u128(), output: r.u128() };
}

function wrap(err: unknown, what: string): AmmAStateError {
  if (err instanceof AmmAStateError || err instanceof BorshError) {
    return new AmmAStateError(`${what}: ${err.message}`);
  }
  return new AmmAStateError(`${what}: ${String(err)}`);
}
