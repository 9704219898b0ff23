// Launch (Aidols) quotes over a curve's state, bigint only. The curve formula is not published; the working
// assumption (near-facts.md "Launch", and what an aidols-codebase clone was checked to within a unit) is x·y=k
// over [token_hold T, wnear_hold W] with floor rounding, and the spec's fee: fee(v) = max(minFee, floor(v·f/10^6))
// of the trade's wNEAR volume v (f = 1%, minFee = 0.01 NEAR), always on the wNEAR side:
// - buy (wNEAR in a):   net = a − fee(a), out = floor(T·net / (W + net));        holds T − out, W + net
// - sell (token in a):  gross = floor(W·a / (T + a)), out = gross − fee(gross);  holds T + a, W − gross
// A trade whose wNEAR volume does not exceed its fee is refused, and so is every trade on a curve whose record says
// it is not tradable (graduated): Intear's aggregator refuses those too (INTEARnear/dex-aggregator
// src/providers/aidols.rs, `!is_tradable` -> no route). Referral fees come out of the protocol fee (spec) and do not
// change the amounts.
import type { LaunchPoolState } from './events.ts';

export const FULL_FEE_FRACTION = 1_000_000n;

export interface LaunchQuote {
  amountIn: bigint;
  amountOut: bigint;
  /** The wNEAR fee of the trade. */
  fee: bigint;
  /** [token_hold, wnear_hold] after the trade. */
  amountsAfter: bigint[];
}

/** Exact input. null when the tokens are not [aidol token, wNEAR] of this curve (either way), the amount is not
 * positive, a hold is empty, or the wNEAR volume does not cover the fee. */
export function launchQuoteExactIn(pool: LaunchPoolState, tokenIn: string, tokenOut: string, amountIn: bigint): LaunchQuote | null {
  const curve = curveOf(pool, tokenIn, tokenOut);
  if (curve === null || amountIn <= 0n) return null;
  const { tokenHold, wnearHold } = curve;
  if (curve.buy) {
    const fee = feeOn(pool, amountIn);
    if (amountIn <= fee) return null;
    const net = amountIn - fee;
    const amountOut = (tokenHold * net) / (wnearHold + net);
    return { amountIn, amountOut, fee, amountsAfter: [tokenHold - amountOut, wnearHold + net] };
  }
  const gross = (wnearHold * amountIn) / (tokenHold + amountIn);
  const fee = feeOn(pool, gross);
  if (gross <= fee) return null;
  return { amountIn, amountOut: gross - fee, fee, amountsAfter: [tokenHold + amountIn, wnearHold - gross] };
}

/**
 * Exact output: the LEAST input whose exact-in trade gives at least `amountOut`, and that trade. Both steps are
 * monotone (v − fee(v) = min(v − minFee, v − floor(v·f/10^6)) never decreases), so each least value is exact:
 * - buy b tokens:   net >= ceil(W·b / (T − b)); a = least v with v − fee(v) >= net
 * - sell for b:     gross = least v with v − fee(v) >= b; a = ceil(T·gross / (W − gross))
 * null when the curve cannot give that much (b >= T, or gross >= W) or the inputs are refused.
 */
export function launchQuoteExactOut(pool: LaunchPoolState, tokenIn: string, tokenOut: string, amountOut: bigint): LaunchQuote | null {
  const curve = curveOf(pool, tokenIn, tokenOut);
  if (curve === null || amountOut <= 0n) return null;
  const { tokenHold, wnearHold } = curve;
  let amountIn: bigint;
  if (curve.buy) {
    if (amountOut >= tokenHold) return null;
    amountIn = leastVolumeKeeping(pool, ceilDiv(wnearHold * amountOut, tokenHold - amountOut));
  } else {
    const gross = leastVolumeKeeping(pool, amountOut);
    if (gross >= wnearHold) return null;
    amountIn = ceilDiv(tokenHold * gross, wnearHold - gross);
  }
  return launchQuoteExactIn(pool, tokenIn, tokenOut, amountIn);
}

/** max(minFee, floor(volume·f / 10^6)). */
function feeOn(pool: LaunchPoolState, volume: bigint): bigint {
  const percent = (volume * BigInt(pool.totalFee)) / FULL_FEE_FRACTION;
  return percent > pool.minFee ? percent : pool.minFee;
}

/**
 * The least volume v with v − fee(v) >= kept: v >= kept + minFee, and v − floor(v·f/10^6) >= kept, whose least v
 * lies just above (kept − 1)·10^6/(10^6 − f) (v − floor(v·f/10^6) < v·(10^6 − f)/10^6 + 1): a step or two up.
 */
function leastVolumeKeeping(pool: LaunchPoolState, kept: bigint): bigint {
  const f = BigInt(pool.totalFee);
  let v = kept > 1n ? ((kept - 1n) * FULL_FEE_FRACTION) / (FULL_FEE_FRACTION - f) : 0n;
  while (v - (v * f) / FULL_FEE_FRACTION < kept) v += 1n;
  const floorRegime = kept + pool.minFee;
  return v > floorRegime ? v : floorRegime;
}

function curveOf(pool: LaunchPoolState, tokenIn: string, tokenOut: string) {
  const [token, wnear] = pool.tokens;
  const [tokenHold, wnearHold] = pool.amounts;
  if (token === undefined || wnear === undefined || tokenHold === undefined || wnearHold === undefined) {
    throw new RangeError('Launch pool state: expected [token, wNEAR] and their holds');
  }
  if (!(pool.totalFee >= 0 && pool.totalFee < 1_000_000) || pool.minFee < 0n) throw new RangeError('Launch pool state: bad fee');
  const buy = tokenIn === wnear && tokenOut === token;
  if (!buy && !(tokenIn === token && tokenOut === wnear)) return null;
  // null: unknown (a state from a trade event alone), quoted as the trade itself was taken.
  if (pool.isTradable === false || tokenHold <= 0n || wnearHold <= 0n) return null;
  return { buy, tokenHold, wnearHold };
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
