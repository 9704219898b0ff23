// The devnet Launch model's own curve arithmetic (Aidols, `aidols.near`), bigint only. It imports nothing of
// dexes/launch/, so the tests comparing the indexer's Launch pools (dexes/launch/math.ts) with this model compare
// two implementations.
//
// NO CONTRACT SOURCE: aidols.near's source is not public (a code search for aidols / `token_swap` / `wnear_hold` /
// `is_tradable` found nothing; dexes/launch/README.md lists the wider searches of the code, issues and pages corpora
// and `find_string`). This file is written from the public evidence dexes/launch/README.md grades, and every rule
// below says which:
// - the curve is the pair of holds [token_hold T, wnear_hold W] of the curve record and of the `token_swap` event,
//   both "after the trade" (T: INTEARnear/trade-indexer @ fd88302 `src/tests.rs` `detects_aidols_buy`,
//   `detects_aidols_state_changes`); price = W / T (C: INTEARnear/price-indexer @ 17f4814 `src/pool_data.rs`);
// - the pricing is constant product over those holds, T·W kept (floor rounding, the pool keeps the remainder): the
//   working assumption of docs/near-facts.md "Launch" (a clone of the aidols code was checked to it within a unit);
// - the fee: max(0.01 NEAR, 1% of the trade's volume), in wNEAR (docs/service-spec.md, "Launch"); the volume is the
//   wNEAR side of the trade (a buy's wNEAR paid, a sell's wNEAR taken from the curve), as the event's only fee field,
//   `wnear_commission`, is wNEAR; the fee never enters the curve;
// - a trade whose wNEAR volume does not exceed the fee is refused (nothing would be left to trade or to pay).
// The referrer's share (1% of the fee) comes out of the fee (spec) and changes no amount here.

const YOCTO_PER_NEAR = 10n ** 24n;
/** The fee's percentage part: 1% of the volume (docs/service-spec.md "Launch": "1% of trade volume"). */
export const AIDOLS_FEE_PERCENT = 1n;
/** The fee's floor: 0.01 NEAR in yocto wNEAR (docs/service-spec.md "Launch": "max(0.01 native unit, ...)"). */
export const AIDOLS_MIN_FEE = YOCTO_PER_NEAR / 100n;

/** One trade on a curve: what the trader gets, the wNEAR fee, and the holds the record and event show after it. */
export interface AidolsTrade {
  amountOut: bigint;
  fee: bigint;
  tokenHold: bigint;
  wnearHold: bigint;
}

/** The protocol fee on a wNEAR volume (spec): the larger of 0.01 NEAR and 1% (floored) of the volume. */
export function aidolsFee(volume: bigint): bigint {
  const percent = (volume * AIDOLS_FEE_PERCENT) / 100n;
  return percent < AIDOLS_MIN_FEE ? AIDOLS_MIN_FEE : percent;
}

/**
 * A buy of `wnearIn` (fee included) on the holds [T, W]: the fee is taken off the wNEAR first, the rest goes into
 * the curve, and the tokens out are what keeps T·W: T − ceil(T·W / (W + net)) = floor(T·net / (W + net)).
 * null when the fee takes the whole input.
 */
export function aidolsBuy(tokenHold: bigint, wnearHold: bigint, wnearIn: bigint): AidolsTrade | null {
  const fee = aidolsFee(wnearIn);
  if (wnearIn <= fee) return null;
  const intoCurve = wnearIn - fee;
  const wnearAfter = wnearHold + intoCurve;
  const tokensKept = ceilDiv(tokenHold * wnearHold, wnearAfter);
  const amountOut = tokenHold - tokensKept;
  return { amountOut, fee, tokenHold: tokenHold - amountOut, wnearHold: wnearAfter };
}

/**
 * A sell of `tokensIn` on the holds [T, W]: the curve gives up the wNEAR that keeps T·W,
 * W − ceil(T·W / (T + a)) = floor(W·a / (T + a)), and the fee is taken from that wNEAR before it is paid out.
 * null when the fee takes the whole wNEAR.
 */
export function aidolsSell(tokenHold: bigint, wnearHold: bigint, tokensIn: bigint): AidolsTrade | null {
  const tokenAfter = tokenHold + tokensIn;
  const wnearKept = ceilDiv(tokenHold * wnearHold, tokenAfter);
  const fromCurve = wnearHold - wnearKept;
  const fee = aidolsFee(fromCurve);
  if (fromCurve <= fee) return null;
  return { amountOut: fromCurve - fee, fee, tokenHold: tokenAfter, wnearHold: wnearKept };
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
