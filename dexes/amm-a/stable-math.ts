// AmmA StableSwap quotes (stable and rated pools), exact in, bigint only, step for step as the contract computes
// them (ref-finance/ref-contracts, ref-exchange `rated_swap/math.rs` + `rated_swap/mod.rs`, `degen_swap/math.rs`,
// `stable_swap/mod.rs`; ref-storage-layout.md §4.2):
//
// - Reserves are kept as `cAmounts`, comparable units (18 decimals for stable pools, 24 for rated ones). A rated
//   pool also multiplies every c-amount by its token's rate (`c·rate/10^24`, truncating) before the curve, and
//   divides the output back (`c·10^24/rate`, truncating). A token without a rate entry has rate 10^24.
// - The invariant D: Newton iteration from D = Σx, `Ann = A·n^n`, `D_P = D·Π(D/(x_i·n))` truncated factor by factor,
//   `D' = (Ann·S + n·D_P)·D / ((Ann−1)·D + (n+1)·D_P)`, until |D'−D| <= 1, at most 256 rounds.
// - The new output reserve y: Newton from y = D on `y² + (b−D)·y = c`, `c = D^(n+1)/(Π'·Ann·n^n)` truncated term by
//   term, `b = S' + D/Ann`, until |y'−y| <= 1, at most 256 rounds.
// - `dy = y_old − y_new − 1` (saturating at 0), fee `dy·f/10000`, out = dy − fee; the admin part of the fee is
//   minted as LP shares, so it does not change the output.
// - The amp factor moves linearly from its init to its target value between init and stop time (ns), rounded
//   toward the init value; it is the target from the stop time on (or when stop = 0).
//
// Which contract version (S): ref-finance/ref-contracts @ 1800d26 (v1.9.17), ref-exchange/src/stable_swap/math.rs
// compute_d, compute_y and swap_to, the same as rated_swap/math.rs and degen_swap/math.rs there: `Ann = A·n^n`, D_P
// divided by `x·n`, `dy − 1`. The history has `Ann = A·n^n` and `x·n` from the first stable pool (a621eda, 2021-12)
// and the `− 1` from 2f0f651 (v1.4.5, 2022-05, "Fix off-by-one issue in stable-swap"). The rated form is confirmed
// to the unit by the contract's own test vector (test/dexes/amm-a-stable.test.ts). Arithmetic is exact here where the
// contract would overflow U256/U384, which only happens far beyond any real pool.
//
// Pure: the caller gives the time (the block timestamp) and the rates (`custom_rate_key`).
import { FEE_DIVISOR } from './math.ts';
import { amountToCAmount, cAmountToAmount, DEFAULT_RATE, type StableLikePoolState, type TokenRate } from './state.ts';

/** 10^24 = rate 1.0 (`PRECISION` of rated_swap). */
export const RATE_PRECISION = 10n ** 24n;
/** Newton rounds of the contract's compute_d and compute_y. */
export const MAX_NEWTON_ROUNDS = 256;
/** A rate older than this (ns) makes the contract refuse rated swaps (`ERR120_RATES_EXPIRED`; EXPIRE_TS of
 * stnear_rate.rs, linear_rate.rs, nearx_rate.rs, sfrax_rate.rs: 24 hours; S). */
export const RATE_EXPIRY_NS = 24n * 3600n * 1_000_000_000n;
/**
 * The least c-amount the output reserve may keep after a swap (`ERR69_MIN_RESERVE`): the pool's precision / 1000, so
 * 10^15 for stable pools (18 decimals) and 10^21 for rated ones (24) (S: ref-finance/ref-contracts @ 7be270b, v1.9.9
 * 2024-12, "Reorg stable/rated/degen pool MIN_RESERVE to inner_precision / 1000", stable_swap/mod.rs and
 * rated_swap/mod.rs; rated was `1 * PRECISION` = 10^24 before). Checked without the admin part of the fee, which
 * the contract takes out before the check: a swap within that admin fee of the limit may be quoted and then refused.
 */
export const MIN_RESERVE: Readonly<Record<'stable' | 'rated', bigint>> = { stable: 10n ** 18n / 1000n, rated: 10n ** 24n / 1000n };

const abs = (v: bigint) => (v < 0n ? -v : v);

/**
 * The amp factor at `nowNs` (compute_amp_factor): the target from `stopTime` on, else init + (target − init)·
 * (now − initTime)/(stop − initTime) rounded toward init. null where the contract fails (now before initTime while
 * the ramp runs).
 */
export function ampFactorAt(initAmp: bigint, targetAmp: bigint, initTime: bigint, stopTime: bigint, nowNs: bigint): bigint | null {
  if (nowNs >= stopTime) return targetAmp;
  const range = stopTime - initTime;
  const elapsed = nowNs - initTime;
  if (range <= 0n || elapsed < 0n) return null;
  return targetAmp >= initAmp ? initAmp + ((targetAmp - initAmp) * elapsed) / range : initAmp - ((initAmp - targetAmp) * elapsed) / range;
}

/** The amp factor a pool swaps at: at `nowNs`, or at the ramp's end (the target) when no time is known. */
export function poolAmpFactor(pool: StableLikePoolState, nowNs: bigint | null): bigint | null {
  if (nowNs === null) return pool.targetAmpFactor;
  return ampFactorAt(pool.initAmpFactor, pool.targetAmpFactor, pool.initAmpTime, pool.stopAmpTime, nowNs);
}

/** The invariant D of (rated) c-amounts (compute_d); 0 for an empty pool, null where the contract fails (a zero
 * reserve beside others, amp < 1). */
export function computeD(cAmounts: readonly bigint[], amp: bigint): bigint | null {
  const n = BigInt(cAmounts.length);
  const sum = cAmounts.reduce((s, x) => s + x, 0n);
  if (sum === 0n) return 0n;
  const ann = amp * n ** n;
  if (ann < 1n) return null;
  const leverage = sum * ann;
  let d = sum;
  for (let round = 0; round < MAX_NEWTON_ROUNDS; round++) {
    let dProd = d;
    for (const x of cAmounts) {
      if (x === 0n) return null; // division by zero
      dProd = (dProd * d) / (x * n);
    }
    const previous = d;
    const denominator = previous * (ann - 1n) + dProd * (n + 1n);
    if (denominator === 0n) return null;
    d = (previous * (dProd * n + leverage)) / denominator;
    if (abs(d - previous) <= 1n) break;
  }
  return d;
}

/**
 * The output reserve y after the input reserve becomes `newX` (compute_y), over (rated) c-amounts with invariant
 * `d` (computeD of the same amounts). null where the contract fails.
 */
export function computeY(newX: bigint, cAmounts: readonly bigint[], indexX: number, indexY: number, amp: bigint, d: bigint): bigint | null {
  const n = BigInt(cAmounts.length);
  const nn = n ** n;
  const ann = amp * nn;
  if (newX <= 0n || ann < 1n) return null;
  let sumOthers = newX;
  let c = (d * d) / newX;
  for (const [i, x] of cAmounts.entries()) {
    if (i === indexX || i === indexY) continue;
    if (x === 0n) return null;
    sumOthers += x;
    c = (c * d) / x;
  }
  c = (c * d) / (ann * nn);
  const b = d / ann + sumOthers; // D is subtracted in the step
  let y = d;
  for (let round = 0; round < MAX_NEWTON_ROUNDS; round++) {
    const previous = y;
    const denominator = 2n * y + b - d;
    if (denominator <= 0n) return null; // underflow or division by zero in the contract
    y = (y * y + c) / denominator;
    if (abs(y - previous) <= 1n) break;
  }
  return y;
}

export interface StableSwapResult {
  /** y_old − y_new − 1, before the fee. */
  dy: bigint;
  fee: bigint;
  /** dy − fee: what the trader receives. */
  amountOut: bigint;
}

/**
 * One exact-in swap on (rated) c-amounts (swap_to): `cIn` more of token `indexIn`, the output of `indexOut`.
 * `d` may be given when already known (it depends on the reserves and amp only). null where the contract fails.
 */
export function stableSwapOut(
  cAmounts: readonly bigint[],
  indexIn: number,
  indexOut: number,
  cIn: bigint,
  amp: bigint,
  totalFee: number,
  d: bigint | null = computeD(cAmounts, amp),
): StableSwapResult | null {
  const xIn = cAmounts[indexIn];
  const yOut = cAmounts[indexOut];
  if (d === null || xIn === undefined || yOut === undefined) return null;
  const y = computeY(xIn + cIn, cAmounts, indexIn, indexOut, amp, d);
  if (y === null || y > yOut) return null;
  const dy = yOut - y > 0n ? yOut - y - 1n : 0n;
  const fee = (dy * BigInt(totalFee)) / FEE_DIVISOR;
  return { dy, fee, amountOut: dy - fee };
}

/** A token's rate in a rated pool: its `custom_rate_key` entry, else 10^24. */
export function rateOf(rates: ReadonlyMap<string, TokenRate> | undefined, tokenId: string): bigint {
  return rates?.get(tokenId)?.storedRates ?? DEFAULT_RATE;
}

/** Whether the contract refuses the rated pool's swaps at `nowNs` because one of its tokens' rates is older than 24 h. */
export function ratesExpired(tokens: readonly string[], rates: ReadonlyMap<string, TokenRate> | undefined, nowNs: bigint): boolean {
  return tokens.some((t) => {
    const rate = rates?.get(t);
    return rate !== undefined && nowNs > rate.ratesUpdatedAt + RATE_EXPIRY_NS;
  });
}

/** What every quote of one pool at one moment shares: the amp, the curve's reserves (rated for a rated pool), D. */
export interface PreparedStablePool {
  pool: StableLikePoolState;
  targetDecimals: 18 | 24;
  amp: bigint;
  /** Per token: its rate (10^24 for stable pools). */
  rates: bigint[];
  /** cAmounts as the curve sees them: times rate/10^24 (truncating) in a rated pool. */
  curveAmounts: bigint[];
  d: bigint;
}

/**
 * The pool ready to quote at `nowNs` (null: at the ramp's end) with these rates, or null when the contract refuses
 * every swap of it then (amp undefined at that time, an expired rate, a zero rate or reserve, no invariant).
 * Throws RangeError on a pool this module does not quote: degen (prices from oracles), mismatched lengths, a fee
 * outside 0..10000.
 */
export function prepareStablePool(
  pool: StableLikePoolState,
  nowNs: bigint | null,
  rates?: ReadonlyMap<string, TokenRate>,
): PreparedStablePool | null {
  if (pool.kind !== 'stable' && pool.kind !== 'rated') throw new RangeError(`AmmA ${pool.kind} pool: not quoted (oracle prices)`);
  const n = pool.tokens.length;
  if (n < 2 || pool.cAmounts.length !== n || pool.decimals.length !== n) {
    throw new RangeError(`AmmA ${pool.kind} pool ${pool.poolId}: ${n} tokens, ${pool.cAmounts.length} c-amounts, ${pool.decimals.length} decimals`);
  }
  if (!Number.isInteger(pool.totalFee) || pool.totalFee < 0 || pool.totalFee > 10_000) {
    throw new RangeError(`AmmA ${pool.kind} pool ${pool.poolId}: total_fee ${pool.totalFee} is not in 0..10000 bps`);
  }
  const rated = pool.kind === 'rated';
  if (rated && nowNs !== null && ratesExpired(pool.tokens, rates, nowNs)) return null;
  const amp = poolAmpFactor(pool, nowNs);
  if (amp === null) return null;
  const tokenRates = pool.tokens.map((t) => (rated ? rateOf(rates, t) : RATE_PRECISION));
  if (tokenRates.some((r) => r <= 0n) || pool.cAmounts.some((c) => c <= 0n)) return null;
  const curveAmounts = pool.cAmounts.map((c, i) => (rated ? (c * tokenRates[i]!) / RATE_PRECISION : c));
  const d = computeD(curveAmounts, amp);
  if (d === null || d === 0n) return null;
  return { pool, targetDecimals: rated ? 24 : 18, amp, rates: tokenRates, curveAmounts, d };
}

/** The raw output of `amountIn` raw units through a prepared pool, or null when the contract refuses the swap. */
export function preparedAmountOut(prepared: PreparedStablePool, indexIn: number, indexOut: number, amountIn: bigint): bigint | null {
  if (amountIn < 0n) throw new RangeError('AmmA stable pool: negative amount');
  if (amountIn === 0n) return 0n;
  const { pool, targetDecimals, rates, curveAmounts, amp, d } = prepared;
  const rateIn = rates[indexIn]!;
  const rateOut = rates[indexOut]!;
  const cIn = amountToCAmount(amountIn, pool.decimals[indexIn]!, targetDecimals);
  const curveIn = pool.kind === 'rated' ? (cIn * rateIn) / RATE_PRECISION : cIn;
  const swap = stableSwapOut(curveAmounts, indexIn, indexOut, curveIn, amp, pool.totalFee, d);
  if (swap === null) return null;
  const rated = pool.kind === 'rated';
  const cOut = rated ? (swap.amountOut * RATE_PRECISION) / rateOut : swap.amountOut;
  const reserveLeft = rated ? ((curveAmounts[indexOut]! - swap.amountOut) * RATE_PRECISION) / rateOut : curveAmounts[indexOut]! - swap.amountOut;
  if (reserveLeft < MIN_RESERVE[pool.kind as 'stable' | 'rated']) return null;
  return cAmountToAmount(cOut, pool.decimals[indexOut]!, targetDecimals);
}

/**
 * Exact-in quotes of one stable or rated pool direction at `nowNs` (the block timestamp, ns; null: the amp at the
 * ramp's end), like simpleAmountOutQuoter: D and the rated reserves are computed once, each call only solves y.
 * The returned function gives the raw output of a raw input, 0n for 0n, and null when the contract would refuse
 * the swap (then, or for every amount when the pool refuses all swaps at that time). Rated pools take the rates of
 * `custom_rate_key` (`rates`; a token without an entry: 10^24). Throws RangeError on bad indexes and on the pools
 * prepareStablePool rejects.
 */
export function stableAmountOutQuoter(
  pool: StableLikePoolState,
  tokenInIndex: number,
  tokenOutIndex: number,
  nowNs: bigint | null,
  rates?: ReadonlyMap<string, TokenRate>,
): (amountIn: bigint) => bigint | null {
  const prepared = prepareStablePool(pool, nowNs, rates);
  return quoterOf(prepared, pool, tokenInIndex, tokenOutIndex);
}

/** stableAmountOutQuoter over an already prepared pool (null: the pool refuses every swap). */
export function quoterOf(prepared: PreparedStablePool | null, pool: StableLikePoolState, tokenInIndex: number, tokenOutIndex: number): (amountIn: bigint) => bigint | null {
  const n = pool.tokens.length;
  const valid = (i: number) => Number.isInteger(i) && i >= 0 && i < n;
  if (!valid(tokenInIndex) || !valid(tokenOutIndex) || tokenInIndex === tokenOutIndex) {
    throw new RangeError(`AmmA stable pool: token indexes ${tokenInIndex} -> ${tokenOutIndex} of ${n}`);
  }
  if (prepared === null) {
    return (amountIn) => {
      if (amountIn < 0n) throw new RangeError('AmmA stable pool: negative amount');
      return null;
    };
  }
  return (amountIn) => preparedAmountOut(prepared, tokenInIndex, tokenOutIndex, amountIn);
}

/**
 * The marginal rate before fees, raw output units per raw input unit, from the invariant's derivative (analytic,
 * not a small-trade quote): with K = D^(n+1)/(n^n·Πx), dy/dx = (Ann + K/x_in)/(Ann + K/x_out) on the curve's
 * reserves, i.e. ((Ann·x_in·n^n·Πx + D^(n+1))·x_out) / ((Ann·x_out·n^n·Πx + D^(n+1))·x_in), then scaled from curve
 * units to raw ones by each side's decimals and rate. Exact fraction (large integers).
 */
export function preparedSpotPrice(prepared: PreparedStablePool, indexIn: number, indexOut: number): { numerator: bigint; denominator: bigint } {
  const { pool, targetDecimals, rates, curveAmounts, amp, d } = prepared;
  const n = BigInt(curveAmounts.length);
  const nn = n ** n;
  const ann = amp * nn;
  const product = curveAmounts.reduce((p, x) => p * x, 1n);
  const dPow = d ** (n + 1n);
  const xIn = curveAmounts[indexIn]!;
  const xOut = curveAmounts[indexOut]!;
  // Curve units per raw unit of token i: 10^(T−d_i)·rate_i/10^24 (for d_i > T: rate_i/(10^(d_i−T)·10^24)).
  const curvePerRaw = (i: number) => {
    const decimals = pool.decimals[i]!;
    const up = decimals <= targetDecimals ? 10n ** BigInt(targetDecimals - decimals) : 1n;
    const down = decimals <= targetDecimals ? 1n : 10n ** BigInt(decimals - targetDecimals);
    return { numerator: up * rates[i]!, denominator: down * RATE_PRECISION };
  };
  const scaleIn = curvePerRaw(indexIn);
  const scaleOut = curvePerRaw(indexOut);
  return {
    numerator: (ann * xIn * nn * product + dPow) * xOut * scaleIn.numerator * scaleOut.denominator,
    denominator: (ann * xOut * nn * product + dPow) * xIn * scaleIn.denominator * scaleOut.numerator,
  };
}
