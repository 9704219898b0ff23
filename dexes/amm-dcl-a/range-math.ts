// The integer math of one concentrated-liquidity range, iZiSwap's model (Ref's DCL is a Rust port of it), bigint
// only. Sources, ported function by function:
// - izumiFinance/iZiSwap-core contracts/libraries/{MulDivMath,LogPowMath,AmountMath,SwapMathX2Y,SwapMathY2X,
//   SwapMathX2YDesire,SwapMathY2XDesire}.sol (the Solidity original);
// - INTEARnear/dex-aggregator rhea-dcl-math/src/math.rs (a port that follows the deployed dclv2.ref-labs.near
//   binary where it differs from iZiSwap: C, a live aggregator's code; not re-checked against the public copy of
//   the contract's source, README.md "The math").
// The differences from iZiSwap kept here: the maximum input of an X->Y range comes from getAmountX, which rounds
// sqrt(price(right - 1)) down, while the location search rounds it up; an out-of-range location throws
// (the contract panics) instead of being clamped; the exact-output ranges narrow the whole-range maximum to u128.
//
// "Throws DclMathError" stands for "the contract panics": its quote view fails and a swap would revert.

export const LEFT_MOST_POINT = -800_000;
export const RIGHT_MOST_POINT = 800_000;

export const POW96 = 1n << 96n;
const U128_MAX = (1n << 128n) - 1n;
const U256_MAX = (1n << 256n) - 1n;

/** The contract would panic (overflow, illegal point, division by zero...). */
export class DclMathError extends Error {
  override name = 'DclMathError';
}

function fitsU256(value: bigint): bigint {
  if (value > U256_MAX) throw new DclMathError('U256 overflow');
  return value;
}

/** The contract's U256 -> u128 narrowing, which panics on overflow. */
export function asU128(value: bigint): bigint {
  if (value > U128_MAX) throw new DclMathError('u128 overflow');
  return value;
}

export function checkedAdd(a: bigint, b: bigint): bigint {
  return asU128(a + b);
}

export function checkedSub(a: bigint, b: bigint): bigint {
  if (b > a) throw new DclMathError('attempt to subtract with overflow');
  return a - b;
}

function add(a: bigint, b: bigint): bigint {
  return fitsU256(a + b);
}

function sub(a: bigint, b: bigint): bigint {
  if (b > a) throw new DclMathError('U256 underflow');
  return a - b;
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/** `MulDivMath.mulDivFloor`: floor(a * b / c), which must fit 256 bits. */
export function mulDivFloor(a: bigint, b: bigint, c: bigint): bigint {
  if (c === 0n) throw new DclMathError('division by zero');
  return fitsU256((a * b) / c);
}

/** `MulDivMath.mulDivCeil`: ceil(a * b / c), which must fit 256 bits. */
export function mulDivCeil(a: bigint, b: bigint, c: bigint): bigint {
  if (c === 0n) throw new DclMathError('division by zero');
  const product = a * b;
  const quotient = product / c;
  return fitsU256(product % c === 0n ? quotient : quotient + 1n);
}

function mulDiv(a: bigint, b: bigint, c: bigint, roundUp: boolean): bigint {
  return roundUp ? mulDivCeil(a, b, c) : mulDivFloor(a, b, c);
}

// sqrt(1.0001^(2^i)) in Q128 for i = 1..19 (bit 0 is the starting value): LogPowMath.getSqrtPrice's table.
const SQRT_PRICE_FACTORS: readonly bigint[] = [
  0xfff97272373d413259a46990580e213an,
  0xfff2e50f5f656932ef12357cf3c7fdccn,
  0xffe5caca7e10e4e61c3624eaa0941cd0n,
  0xffcb9843d60f6159c9db58835c926644n,
  0xff973b41fa98c081472e6896dfb254c0n,
  0xff2ea16466c96a3843ec78b326b52861n,
  0xfe5dee046a99a2a811c461f1969c3053n,
  0xfcbe86c7900a88aedcffc83b479aa3a4n,
  0xf987a7253ac413176f2b074cf7815e54n,
  0xf3392b0822b70005940c7a398e4b70f3n,
  0xe7159475a2c29b7443b29c7fa6e889d9n,
  0xd097f3bdfd2022b8845ad8f792aa5825n,
  0xa9f746462d870fdf8a65dc1f90e061e5n,
  0x70d869a156d2a1b890bb3df62baf32f7n,
  0x31be135f97d08fd981231505542fcfa6n,
  0x9aa508b5b7a84e1c677de54f3e99bc9n,
  0x5d6af8dedb81196699c329225ee604n,
  0x2216e584f5fa1ea926041bedfe98n,
  0x48a170391f7dc42444e8fa2n,
];

/**
 * `LogPowMath.getSqrtPrice`: sqrt(1.0001^point) in Q96, from a table of sqrt(1.0001^-(2^i)) in Q128 multiplied
 * for each set bit of |point|, inverted for positive points, rounded up on the way to Q96. Integers only.
 */
export function getSqrtPrice(point: number): bigint {
  if (!Number.isInteger(point) || point < LEFT_MOST_POINT || point > RIGHT_MOST_POINT) {
    throw new DclMathError(`E202: illegal point ${point}`);
  }
  const absPoint = Math.abs(point);
  let value = (absPoint & 1) !== 0 ? 0xfffcb933bd6fad37aa2d162d1a594001n : 1n << 128n;
  SQRT_PRICE_FACTORS.forEach((factor, i) => {
    if ((absPoint & (2 << i)) !== 0) value = (value * factor) >> 128n;
  });
  if (point > 0) value = U256_MAX / value;
  return (value >> 32n) + ((value & 0xffffffffn) === 0n ? 0n : 1n);
}

/** sqrt(1.0001) in Q96, as the contract computes it. */
export const SQRT_RATE_96 = getSqrtPrice(1);
const SQRT_RATE_MINUS_ONE = SQRT_RATE_96 - POW96;
const MIN_SQRT_PRICE = getSqrtPrice(LEFT_MOST_POINT);
const MAX_SQRT_PRICE = getSqrtPrice(RIGHT_MOST_POINT);

/**
 * `LogPowMath.getLogSqrtPriceFloor`: the greatest point whose sqrt price is <= `sqrtPrice96`. The original
 * estimates log2 and then checks the candidate with getSqrtPrice; a binary search over getSqrtPrice returns the
 * same point by that definition (rhea-dcl-math does the same).
 */
export function getLogSqrtPriceFloor(sqrtPrice96: bigint): number {
  if (sqrtPrice96 < MIN_SQRT_PRICE || sqrtPrice96 >= MAX_SQRT_PRICE) {
    throw new DclMathError('E201: invalid sqrt price');
  }
  // Invariant: getSqrtPrice(low) <= sqrtPrice96 < getSqrtPrice(high).
  let low = LEFT_MOST_POINT;
  let high = RIGHT_MOST_POINT;
  while (high - low > 1) {
    const middle = low + Math.floor((high - low) / 2);
    if (getSqrtPrice(middle) <= sqrtPrice96) low = middle;
    else high = middle;
  }
  return low;
}

/** sqrtPrice * sqrt(1.0001), as the contract steps one point to the right. */
export function nextSqrtPrice(sqrtPrice96: bigint): bigint {
  return add(sqrtPrice96, mulDivFloor(sqrtPrice96, SQRT_RATE_MINUS_ONE, POW96));
}

/**
 * `AmountMath.getAmountY`: token Y that `liquidity` holds over the points [left, right) when they are all Y:
 * L * sum of sqrt(p_i) = L * (sqrtR - sqrtL) / (sqrt(1.0001) - 1).
 */
export function getAmountY(liquidity: bigint, sqrtPriceL: bigint, sqrtPriceR: bigint, roundUp: boolean): bigint {
  return mulDiv(liquidity, sub(sqrtPriceR, sqrtPriceL), SQRT_RATE_MINUS_ONE, roundUp);
}

/**
 * `AmountMath.getAmountX`: token X that `liquidity` holds over [left, right) when they are all X:
 * L * sum of 1/sqrt(p_i) = L * (sqrt(1.0001^(right-left)) - 1) / (sqrtR - sqrtR/sqrt(1.0001)); the latter
 * rounded down. Throws for ranges wider than 800000 points.
 */
export function getAmountX(liquidity: bigint, leftPoint: number, rightPoint: number, sqrtPriceR: bigint, roundUp: boolean): bigint {
  const sqrtPricePrPl = getSqrtPrice(rightPoint - leftPoint);
  const sqrtPricePrM1 = mulDivFloor(sqrtPriceR, POW96, SQRT_RATE_96);
  return mulDiv(liquidity, sub(sqrtPricePrPl, POW96), sub(sqrtPriceR, sqrtPricePrM1), roundUp);
}

/** Where a swap on one range starts: the current point, its sqrt price, liquidity and the X part of it. */
export interface RangeState {
  point: number;
  sqrtPrice: bigint;
  liquidity: bigint;
  liquidityX: bigint;
}

/** Result of swapping over one range: what was paid and got, and where the price ends. */
export interface RangeResult {
  finished: boolean;
  cost: bigint;
  acquire: bigint;
  finalPoint: number;
  sqrtFinalPrice: bigint;
  liquidityX: bigint;
}

interface RangeComplete {
  complete: boolean;
  cost: bigint;
  acquire: bigint;
  locPoint: number;
  sqrtLoc: bigint;
}

const complete = (cost: bigint, acquire: bigint): RangeComplete => ({ complete: true, cost, acquire, locPoint: 0, sqrtLoc: 0n });
const partial = (cost: bigint, acquire: bigint, locPoint: number, sqrtLoc: bigint): RangeComplete => ({
  complete: false,
  cost,
  acquire,
  locPoint,
  sqrtLoc,
});

// ---- X -> Y, exact input (the price moves left) ----

/** `SwapMathX2Y.x2YAtPrice`: pays X into a limit order selling `currY` at `sqrtPrice`. Returns [costX, acquireY]. */
export function x2yAtPrice(amountX: bigint, sqrtPrice: bigint, currY: bigint): [bigint, bigint] {
  const l = mulDivFloor(amountX, sqrtPrice, POW96);
  // Narrowed before the min with the order size (rhea-dcl-math): a huge amount panics even for a small order.
  const acquireY = min(asU128(mulDivFloor(l, sqrtPrice, POW96)), currY);
  const lCost = mulDivCeil(acquireY, POW96, sqrtPrice);
  return [asU128(mulDivCeil(lCost, POW96, sqrtPrice)), acquireY];
}

/** `SwapMathX2Y.x2YAtPriceLiquidity`: trades at one point's AMM liquidity. Returns [costX, acquireY, newLiquidityX]. */
function x2yAtPriceLiquidity(amountX: bigint, sqrtPrice: bigint, liquidity: bigint, liquidityX: bigint): [bigint, bigint, bigint] {
  const liquidityY = checkedSub(liquidity, liquidityX);
  const transform = min(mulDivFloor(amountX, sqrtPrice, POW96), liquidityY);
  const costX = asU128(mulDivCeil(transform, POW96, sqrtPrice));
  const acquireY = mulDivFloor(transform, sqrtPrice, POW96);
  return [costX, acquireY, checkedAdd(liquidityX, asU128(transform))];
}

/** `SwapMathX2Y.x2YRangeComplete` as Ref's binary does it: from `right` (exclusive) down to `left`. */
function x2yRangeComplete(
  liquidity: bigint,
  sqrtPriceL: bigint,
  leftPoint: number,
  sqrtPriceR: bigint,
  rightPoint: number,
  amountX: bigint,
): RangeComplete {
  const maxX = asU128(getAmountX(liquidity, leftPoint, rightPoint, sqrtPriceR, true));
  if (maxX <= amountX) return complete(maxX, getAmountY(liquidity, sqrtPriceL, sqrtPriceR, false));
  const sqrtPricePrM1 = mulDivCeil(sqrtPriceR, POW96, SQRT_RATE_96);
  const sqrtValue = add(mulDivFloor(amountX, sub(sqrtPriceR, sqrtPricePrM1), liquidity), POW96);
  let locPoint = rightPoint - getLogSqrtPriceFloor(sqrtValue);
  if (locPoint > rightPoint) throw new DclMathError('E208: loc_pt > right_point');
  if (locPoint <= leftPoint) throw new DclMathError('E209: loc_pt <= left_point');
  if (locPoint === rightPoint) return partial(0n, 0n, locPoint - 1, getSqrtPrice(locPoint - 1));
  const costX = asU128(min(getAmountX(liquidity, locPoint, rightPoint, sqrtPriceR, true), amountX));
  locPoint -= 1;
  const sqrtLoc = getSqrtPrice(locPoint);
  const acquireY = getAmountY(liquidity, nextSqrtPrice(sqrtLoc), sqrtPriceR, false);
  return partial(costX, acquireY, locPoint, sqrtLoc);
}

/** `SwapMathX2Y.x2YRange`: pays up to `amountX` (fee already taken off) moving down to `leftPoint` (inclusive). */
export function x2yRange(state: RangeState, leftPoint: number, amountX: bigint): RangeResult {
  let point = state.point;
  let sqrtPrice = state.sqrtPrice;
  let costX = 0n;
  let acquireY = 0n;
  let liquidityX = 0n;
  const currentHasY = state.liquidityX < state.liquidity;
  if (currentHasY && (state.liquidityX > 0n || leftPoint === point)) {
    const [cost, acquire, newLiquidityX] = x2yAtPriceLiquidity(amountX, sqrtPrice, state.liquidity, state.liquidityX);
    [costX, acquireY, liquidityX] = [cost, acquire, newLiquidityX];
    if (newLiquidityX < state.liquidity || cost >= amountX) {
      return { finished: true, cost: costX, acquire: acquireY, finalPoint: point, sqrtFinalPrice: sqrtPrice, liquidityX };
    }
    amountX -= cost;
  } else if (currentHasY) {
    // All liquidity at the current point is Y: the point joins the range.
    point += 1;
    sqrtPrice = nextSqrtPrice(sqrtPrice);
  } else {
    liquidityX = state.liquidityX;
  }
  if (leftPoint < point) {
    const sqrtPriceL = getSqrtPrice(leftPoint);
    const range = x2yRangeComplete(state.liquidity, sqrtPriceL, leftPoint, sqrtPrice, point, amountX);
    costX = checkedAdd(costX, range.cost);
    amountX = checkedSub(amountX, range.cost);
    acquireY = add(acquireY, range.acquire);
    if (range.complete) {
      return {
        finished: amountX === 0n,
        cost: costX,
        acquire: acquireY,
        finalPoint: leftPoint,
        sqrtFinalPrice: sqrtPriceL,
        liquidityX: state.liquidity,
      };
    }
    const [cost, acquire, newLiquidityX] = x2yAtPriceLiquidity(amountX, range.sqrtLoc, state.liquidity, 0n);
    return {
      finished: true,
      cost: checkedAdd(costX, cost),
      acquire: add(acquireY, acquire),
      finalPoint: range.locPoint,
      sqrtFinalPrice: range.sqrtLoc,
      liquidityX: newLiquidityX,
    };
  }
  return { finished: false, cost: costX, acquire: acquireY, finalPoint: point, sqrtFinalPrice: sqrtPrice, liquidityX };
}

// ---- Y -> X, exact input (the price moves right) ----

/** `SwapMathY2X.y2XAtPrice`: pays Y into a limit order selling `currX` at `sqrtPrice`. Returns [costY, acquireX]. */
export function y2xAtPrice(amountY: bigint, sqrtPrice: bigint, currX: bigint): [bigint, bigint] {
  const l = mulDivFloor(amountY, POW96, sqrtPrice);
  const acquireX = asU128(min(mulDivFloor(l, POW96, sqrtPrice), currX));
  const lCost = mulDivCeil(acquireX, sqrtPrice, POW96);
  return [asU128(mulDivCeil(lCost, sqrtPrice, POW96)), acquireX];
}

/** `SwapMathY2X.y2XAtPriceLiquidity`. Returns [costY, acquireX, newLiquidityX]. */
function y2xAtPriceLiquidity(amountY: bigint, sqrtPrice: bigint, liquidityX: bigint): [bigint, bigint, bigint] {
  const transform = min(mulDivFloor(amountY, POW96, sqrtPrice), liquidityX);
  const costY = asU128(mulDivCeil(transform, sqrtPrice, POW96));
  const acquireX = mulDivFloor(transform, POW96, sqrtPrice);
  return [costY, acquireX, checkedSub(liquidityX, asU128(transform))];
}

/** `SwapMathY2X.y2XRangeComplete`: from `left` up to `right` (exclusive); an out-of-range location throws. */
function y2xRangeComplete(
  liquidity: bigint,
  sqrtPriceL: bigint,
  leftPoint: number,
  sqrtPriceR: bigint,
  rightPoint: number,
  amountY: bigint,
): RangeComplete {
  const maxY = getAmountY(liquidity, sqrtPriceL, sqrtPriceR, true);
  if (maxY <= amountY) return complete(asU128(maxY), getAmountX(liquidity, leftPoint, rightPoint, sqrtPriceR, false));
  const sqrtLocValue = add(mulDivFloor(amountY, SQRT_RATE_MINUS_ONE, liquidity), sqrtPriceL);
  const locPoint = getLogSqrtPriceFloor(sqrtLocValue);
  if (locPoint < leftPoint) throw new DclMathError('E210: loc_pt < left_point');
  if (locPoint >= rightPoint) throw new DclMathError('E211: loc_pt >= right_point');
  const sqrtLoc = getSqrtPrice(locPoint);
  if (locPoint === leftPoint) return partial(0n, 0n, locPoint, sqrtLoc);
  const costY = asU128(min(getAmountY(liquidity, sqrtPriceL, sqrtLoc, true), amountY));
  const acquireX = getAmountX(liquidity, leftPoint, locPoint, sqrtLoc, false);
  return partial(costY, acquireX, locPoint, sqrtLoc);
}

/** `SwapMathY2X.y2XRange`: pays up to `amountY` (fee already taken off) moving up to `rightPoint` (exclusive). */
export function y2xRange(state: RangeState, rightPoint: number, amountY: bigint): RangeResult {
  let point = state.point;
  let sqrtPrice = state.sqrtPrice;
  let costY = 0n;
  let acquireX = 0n;
  if (state.liquidityX < state.liquidity) {
    const [cost, acquire, newLiquidityX] = y2xAtPriceLiquidity(amountY, sqrtPrice, state.liquidityX);
    [costY, acquireX] = [cost, acquire];
    if (newLiquidityX > 0n || cost >= amountY) {
      return { finished: true, cost: costY, acquire: acquireX, finalPoint: point, sqrtFinalPrice: sqrtPrice, liquidityX: newLiquidityX };
    }
    amountY -= cost;
    point += 1;
    if (point === rightPoint) {
      // The exact table price at the range's end, not the stepped one (less accumulated error).
      return { finished: false, cost: costY, acquire: acquireX, finalPoint: point, sqrtFinalPrice: getSqrtPrice(rightPoint), liquidityX: 0n };
    }
    sqrtPrice = nextSqrtPrice(sqrtPrice);
  }
  const sqrtPriceR = getSqrtPrice(rightPoint);
  const range = y2xRangeComplete(state.liquidity, sqrtPrice, point, sqrtPriceR, rightPoint, amountY);
  costY = checkedAdd(costY, range.cost);
  amountY = checkedSub(amountY, range.cost);
  acquireX = add(acquireX, range.acquire);
  if (range.complete) {
    return { finished: amountY === 0n, cost: costY, acquire: acquireX, finalPoint: rightPoint, sqrtFinalPrice: sqrtPriceR, liquidityX: 0n };
  }
  const [cost, acquire, newLiquidityX] = y2xAtPriceLiquidity(amountY, range.sqrtLoc, state.liquidity);
  return {
    finished: true,
    cost: checkedAdd(costY, cost),
    acquire: add(acquireX, acquire),
    finalPoint: range.locPoint,
    sqrtFinalPrice: range.sqrtLoc,
    liquidityX: newLiquidityX,
  };
}

// ---- X -> Y, exact output ("desire Y") ----

/** `SwapMathX2YDesire.x2YAtPrice`: buys up to `desireY` from a limit order. Returns [costX, acquireY]. */
export function x2yAtPriceDesire(desireY: bigint, sqrtPrice: bigint, currY: bigint): [bigint, bigint] {
  const acquireY = min(desireY, currY);
  const l = mulDivCeil(acquireY, POW96, sqrtPrice);
  return [asU128(mulDivCeil(l, POW96, sqrtPrice)), acquireY];
}

/** `SwapMathX2YDesire.x2YAtPriceLiquidity`. Returns [costX, acquireY, newLiquidityX]. */
function x2yAtPriceLiquidityDesire(desireY: bigint, sqrtPrice: bigint, liquidity: bigint, liquidityX: bigint): [bigint, bigint, bigint] {
  const liquidityY = checkedSub(liquidity, liquidityX);
  const transform = min(mulDivCeil(desireY, POW96, sqrtPrice), liquidityY);
  const costX = mulDivCeil(transform, POW96, sqrtPrice);
  const acquireY = asU128(mulDivFloor(transform, sqrtPrice, POW96));
  return [costX, acquireY, checkedAdd(liquidityX, asU128(transform))];
}

/** `SwapMathX2YDesire.x2YRangeComplete`, narrowing the whole-range maximum to u128 as Ref's binary does. */
function x2yRangeCompleteDesire(
  liquidity: bigint,
  sqrtPriceL: bigint,
  leftPoint: number,
  sqrtPriceR: bigint,
  rightPoint: number,
  desireY: bigint,
): RangeComplete {
  const maxY = asU128(getAmountY(liquidity, sqrtPriceL, sqrtPriceR, false));
  if (maxY <= desireY) return complete(getAmountX(liquidity, leftPoint, rightPoint, sqrtPriceR, true), maxY);
  const cl = sub(sqrtPriceR, mulDivFloor(desireY, SQRT_RATE_MINUS_ONE, liquidity));
  let locPoint = Math.max(Math.min(getLogSqrtPriceFloor(cl) + 1, rightPoint), leftPoint + 1);
  if (locPoint === rightPoint) return partial(0n, 0n, locPoint - 1, getSqrtPrice(locPoint - 1));
  const sqrtPricePrMloc = getSqrtPrice(rightPoint - locPoint);
  const sqrtPricePrM1 = mulDivCeil(sqrtPriceR, POW96, SQRT_RATE_96);
  const costX = mulDivCeil(liquidity, sub(sqrtPricePrMloc, POW96), sub(sqrtPriceR, sqrtPricePrM1));
  locPoint -= 1;
  const sqrtLoc = getSqrtPrice(locPoint);
  const acquireY = min(asU128(getAmountY(liquidity, nextSqrtPrice(sqrtLoc), sqrtPriceR, false)), desireY);
  return partial(costX, acquireY, locPoint, sqrtLoc);
}

/** `SwapMathX2YDesire.x2YRange`: buys up to `desireY` moving down to `leftPoint` (inclusive). */
export function x2yRangeDesire(state: RangeState, leftPoint: number, desireY: bigint): RangeResult {
  let point = state.point;
  let sqrtPrice = state.sqrtPrice;
  let costX = 0n;
  let acquireY = 0n;
  let liquidityX = 0n;
  const currentHasY = state.liquidityX < state.liquidity;
  if (currentHasY && (state.liquidityX > 0n || leftPoint === point)) {
    const [cost, acquire, newLiquidityX] = x2yAtPriceLiquidityDesire(desireY, sqrtPrice, state.liquidity, state.liquidityX);
    [costX, acquireY, liquidityX] = [cost, acquire, newLiquidityX];
    if (newLiquidityX < state.liquidity || acquire >= desireY) {
      return { finished: true, cost: costX, acquire: acquireY, finalPoint: point, sqrtFinalPrice: sqrtPrice, liquidityX };
    }
    desireY -= acquire;
  } else if (currentHasY) {
    point += 1;
    sqrtPrice = nextSqrtPrice(sqrtPrice);
  } else {
    liquidityX = state.liquidityX;
  }
  if (leftPoint < point) {
    const sqrtPriceL = getSqrtPrice(leftPoint);
    const range = x2yRangeCompleteDesire(state.liquidity, sqrtPriceL, leftPoint, sqrtPrice, point, desireY);
    costX = add(costX, range.cost);
    desireY = checkedSub(desireY, range.acquire);
    acquireY = checkedAdd(acquireY, range.acquire);
    if (range.complete) {
      return {
        finished: desireY === 0n,
        cost: costX,
        acquire: acquireY,
        finalPoint: leftPoint,
        sqrtFinalPrice: sqrtPriceL,
        liquidityX: state.liquidity,
      };
    }
    const [cost, acquire, newLiquidityX] = x2yAtPriceLiquidityDesire(desireY, range.sqrtLoc, state.liquidity, 0n);
    return {
      finished: true,
      cost: add(costX, cost),
      acquire: checkedAdd(acquireY, acquire),
      finalPoint: range.locPoint,
      sqrtFinalPrice: range.sqrtLoc,
      liquidityX: newLiquidityX,
    };
  }
  return { finished: false, cost: costX, acquire: acquireY, finalPoint: point, sqrtFinalPrice: sqrtPrice, liquidityX };
}

// ---- Y -> X, exact output ("desire X") ----

/** `SwapMathY2XDesire.y2XAtPrice`: buys up to `desireX` from a limit order. Returns [costY, acquireX]. */
export function y2xAtPriceDesire(desireX: bigint, sqrtPrice: bigint, currX: bigint): [bigint, bigint] {
  const acquireX = min(desireX, currX);
  const l = mulDivCeil(acquireX, sqrtPrice, POW96);
  return [asU128(mulDivCeil(l, sqrtPrice, POW96)), acquireX];
}

/** `SwapMathY2XDesire.y2XAtPriceLiquidity`. Returns [costY, acquireX, newLiquidityX]. */
function y2xAtPriceLiquidityDesire(desireX: bigint, sqrtPrice: bigint, liquidityX: bigint): [bigint, bigint, bigint] {
  const transform = min(mulDivCeil(desireX, sqrtPrice, POW96), liquidityX);
  const costY = mulDivCeil(transform, sqrtPrice, POW96);
  const acquireX = asU128(mulDivFloor(transform, POW96, sqrtPrice));
  return [costY, acquireX, checkedSub(liquidityX, asU128(transform))];
}

/** `SwapMathY2XDesire.y2XRangeComplete`, narrowing the whole-range maximum to u128 as Ref's binary does. */
function y2xRangeCompleteDesire(
  liquidity: bigint,
  sqrtPriceL: bigint,
  leftPoint: number,
  sqrtPriceR: bigint,
  rightPoint: number,
  desireX: bigint,
): RangeComplete {
  const maxX = asU128(getAmountX(liquidity, leftPoint, rightPoint, sqrtPriceR, false));
  if (maxX <= desireX) return complete(getAmountY(liquidity, sqrtPriceL, sqrtPriceR, true), maxX);
  const sqrtPricePrPl = getSqrtPrice(rightPoint - leftPoint);
  const sqrtPricePrM1 = mulDivFloor(sqrtPriceR, POW96, SQRT_RATE_96);
  const div = sub(sqrtPricePrPl, mulDivFloor(desireX, sub(sqrtPriceR, sqrtPricePrM1), liquidity));
  const locPoint = Math.min(Math.max(getLogSqrtPriceFloor(mulDivFloor(sqrtPriceR, POW96, div)), leftPoint), rightPoint - 1);
  const sqrtLoc = getSqrtPrice(locPoint);
  if (locPoint === leftPoint) return partial(0n, 0n, locPoint, sqrtLoc);
  const acquireX = min(asU128(getAmountX(liquidity, leftPoint, locPoint, sqrtLoc, false)), desireX);
  const costY = getAmountY(liquidity, sqrtPriceL, sqrtLoc, true);
  return partial(costY, acquireX, locPoint, sqrtLoc);
}

/** `SwapMathY2XDesire.y2XRange`: buys up to `desireX` moving up to `rightPoint` (exclusive). */
export function y2xRangeDesire(state: RangeState, rightPoint: number, desireX: bigint): RangeResult {
  let point = state.point;
  let sqrtPrice = state.sqrtPrice;
  let costY = 0n;
  let acquireX = 0n;
  if (state.liquidityX < state.liquidity) {
    const [cost, acquire, newLiquidityX] = y2xAtPriceLiquidityDesire(desireX, sqrtPrice, state.liquidityX);
    [costY, acquireX] = [cost, acquire];
    if (newLiquidityX > 0n || acquire >= desireX) {
      return { finished: true, cost: costY, acquire: acquireX, finalPoint: point, sqrtFinalPrice: sqrtPrice, liquidityX: newLiquidityX };
    }
    desireX -= acquire;
    point += 1;
    if (point === rightPoint) {
      return { finished: false, cost: costY, acquire: acquireX, finalPoint: point, sqrtFinalPrice: getSqrtPrice(rightPoint), liquidityX: 0n };
    }
    sqrtPrice = nextSqrtPrice(sqrtPrice);
  }
  const sqrtPriceR = getSqrtPrice(rightPoint);
  const range = y2xRangeCompleteDesire(state.liquidity, sqrtPrice, point, sqrtPriceR, rightPoint, desireX);
  costY = add(costY, range.cost);
  acquireX = checkedAdd(acquireX, range.acquire);
  desireX = checkedSub(desireX, range.acquire);
  if (range.complete) {
    return { finished: desireX === 0n, cost: costY, acquire: acquireX, finalPoint: rightPoint, sqrtFinalPrice: sqrtPriceR, liquidityX: 0n };
  }
  const [cost, acquire, newLiquidityX] = y2xAtPriceLiquidityDesire(desireX, range.sqrtLoc, state.liquidity);
  return {
    finished: true,
    cost: add(costY, cost),
    acquire: checkedAdd(acquireX, acquire),
    finalPoint: range.locPoint,
    sqrtFinalPrice: range.sqrtLoc,
    liquidityX: newLiquidityX,
  };
}
