// AmmC quotes: the xyk DEX's `swap` (INTEARnear/dex, dexes/xyk/src/lib.rs) over the state of its last
// `pool_updated`, bigint only. Per fee receiver i (state order) the contract takes floor(a·f_i/10^6) of the input
// a; a' = a − Σ those; out = floor(a'·Y / (X + a')). The reserves become X + a' + (the `pool` receivers' part),
// Y − out. In a launch pool, a sell (output = the quote asset, tokens[0]) then swaps the account and community
// fees through the pool into the quote asset, one by one (floor(fee·Y1/(X1+fee)) each), and the swap is refused
// when the quote reserve ends below the phantom liquidity. Referral fees are not counted (spec: quotes never
// deduct them).
import type { AmmCPoolState } from './events.ts';

/** Fees are millionths of the input. */
export const FULL_FEE_FRACTION = 1_000_000n;

export interface AmmCQuote {
  amountIn: bigint;
  amountOut: bigint;
  /** One per `pool.feeReceivers` entry, in input-token units. */
  feeAmounts: bigint[];
  /** The pool's reserves after the swap, in `pool.tokens` order. */
  amountsAfter: bigint[];
}

interface Sides {
  in: 0 | 1;
  out: 0 | 1;
  reserveIn: bigint;
  reserveOut: bigint;
}

/**
 * Exact input, as the contract computes it. null when the contract refuses: not the pool's pair, an empty
 * reserve, `amountIn` not positive, or a launch-pool sell that would leave less quote liquidity than the phantom.
 * `amountOut` may be 0 (the contract accepts that).
 */
export function ammCQuoteExactIn(pool: AmmCPoolState, tokenIn: string, tokenOut: string, amountIn: bigint): AmmCQuote | null {
  const sides = sidesOf(pool, tokenIn, tokenOut);
  if (sides === null || amountIn <= 0n) return null;
  const feeAmounts = feesOn(pool, amountIn);
  const afterFees = amountIn - sum(feeAmounts);
  const amountOut = (afterFees * sides.reserveOut) / (sides.reserveIn + afterFees);
  return settle(pool, sides, amountIn, feeAmounts, amountOut);
}

/**
 * Exact output: the LEAST input whose exact-in swap gives at least `amountOut`, and that swap (its `amountOut`
 * is therefore >= the one asked). The pool never loses: it is an exact-in swap. null when refused (as exact in,
 * or `amountOut` not below the output reserve).
 *
 * a' must reach m = ceil(X·b / (Y − b)) (floor(a'·Y/(X+a')) >= b  <=>  a'·(Y − b) >= X·b). a − fees(a) is not
 * monotone in a (two floors can step at once), so the least a is searched upward from a bound below which no a
 * qualifies: fees(a) > a·F/10^6 − n (n receivers), so a − fees(a) >= m needs a > (m − n)·10^6 / (10^6 − F).
 * The contract's own exact-out amount (below) qualifies, so the search ends by it.
 */
export function ammCQuoteExactOut(pool: AmmCPoolState, tokenIn: string, tokenOut: string, amountOut: bigint): AmmCQuote | null {
  const sides = sidesOf(pool, tokenIn, tokenOut);
  if (sides === null || amountOut <= 0n || amountOut >= sides.reserveOut) return null;
  const { reserveIn: x, reserveOut: y } = sides;
  const needed = ceilDiv(x * amountOut, y - amountOut);
  const feeDenominator = FULL_FEE_FRACTION - totalFeeFraction(pool);
  const receivers = BigInt(pool.feeReceivers.length);
  let amountIn = needed > receivers ? ((needed - receivers) * FULL_FEE_FRACTION) / feeDenominator + 1n : 1n;
  while (amountIn - sum(feesOn(pool, amountIn)) < needed) amountIn += 1n;
  return ammCQuoteExactIn(pool, tokenIn, tokenOut, amountIn);
}

/**
 * What the contract charges for an `ExactOut` swap request of `amountOut`, and the state it leaves:
 * in0 = floor(X·b / (Y − b)) + 1, in = ceil(in0·10^6 / (10^6 − F)), fees taken from `in`, exactly `b` out.
 * It rounds up twice, so it can exceed ammCQuoteExactOut's least input by a unit or two; an instruction that
 * sends `{"ExactOut": b}` must budget this amount. null when refused.
 */
export function ammCContractExactOut(pool: AmmCPoolState, tokenIn: string, tokenOut: string, amountOut: bigint): AmmCQuote | null {
  const sides = sidesOf(pool, tokenIn, tokenOut);
  if (sides === null || amountOut <= 0n || amountOut >= sides.reserveOut) return null;
  const withoutFees = (sides.reserveIn * amountOut) / (sides.reserveOut - amountOut) + 1n;
  const feeDenominator = FULL_FEE_FRACTION - totalFeeFraction(pool);
  const amountIn = ceilDiv(withoutFees * FULL_FEE_FRACTION, feeDenominator);
  return settle(pool, sides, amountIn, feesOn(pool, amountIn), amountOut);
}

/** The reserves after the swap, the launch-pool fee conversion and floor; null when the contract refuses. */
function settle(pool: AmmCPoolState, sides: Sides, amountIn: bigint, feeAmounts: bigint[], amountOut: bigint): AmmCQuote | null {
  const poolFee = sum(feeAmounts.filter((_, i) => pool.feeReceivers[i]?.kind === 'pool'));
  let reserveIn = sides.reserveIn + (amountIn - sum(feeAmounts)) + poolFee;
  let reserveOut = sides.reserveOut - amountOut;

  const isLaunch = pool.poolType === 'launch';
  // A launch-pool sell: account and community fees are paid in the quote asset, bought from the pool.
  const convertsFees = isLaunch && sides.out === 0;
  const feeAsset = convertsFees ? pool.tokens[0] : pool.tokens[sides.in];
  for (const [i, receiver] of pool.feeReceivers.entries()) {
    // The contract collects community fees in NEAR only.
    if (receiver.kind === 'community' && feeAsset !== 'near') return null;
    if (!convertsFees || receiver.kind === 'pool') continue;
    const fee = feeAmounts[i] ?? 0n;
    const bought = (fee * reserveOut) / (reserveIn + fee);
    reserveIn += fee;
    reserveOut -= bought;
  }

  const amountsAfter = sides.in === 0 ? [reserveIn, reserveOut] : [reserveOut, reserveIn];
  if (isLaunch && (amountsAfter[0] as bigint) < (pool.phantomLiquidity ?? 0n)) return null;
  return { amountIn, amountOut, feeAmounts, amountsAfter };
}

function feesOn(pool: AmmCPoolState, amountIn: bigint): bigint[] {
  return pool.feeReceivers.map((r) => (amountIn * BigInt(r.fee)) / FULL_FEE_FRACTION);
}

function sidesOf(pool: AmmCPoolState, tokenIn: string, tokenOut: string): Sides | null {
  const [token0, token1] = pool.tokens;
  const [amount0, amount1] = pool.amounts;
  if (pool.tokens.length !== 2 || amount0 === undefined || amount1 === undefined || pool.amounts.length !== 2) {
    throw new RangeError('AmmC pool state: expected two tokens and two amounts');
  }
  const fraction = totalFeeFraction(pool);
  if (fraction < 0n || fraction >= FULL_FEE_FRACTION) throw new RangeError(`AmmC pool state: fees add up to ${fraction} millionths`);
  let sides: Sides;
  if (tokenIn === token0 && tokenOut === token1) sides = { in: 0, out: 1, reserveIn: amount0, reserveOut: amount1 };
  else if (tokenIn === token1 && tokenOut === token0) sides = { in: 1, out: 0, reserveIn: amount1, reserveOut: amount0 };
  else return null;
  // "Pool is empty"
  return amount0 > 0n && amount1 > 0n ? sides : null;
}

/** Σ of the receivers' fractions (what the contract divides by; `totalFee` repeats it). */
function totalFeeFraction(pool: AmmCPoolState): bigint {
  return pool.feeReceivers.reduce((total, r) => total + BigInt(r.fee), 0n);
}

function sum(values: bigint[]): bigint {
  return values.reduce((a, b) => a + b, 0n);
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
