// The devnet AmmDclA model's own arithmetic: Ref DCL's (`dclv2.ref-labs.near`, iZiSwap-style) sqrt prices, range
// amounts, exact-in swaps and liquidity changes, written for the model in TypeScript (bigint) from a public copy of
// the contract's Rust source (S: contract source; the search tools hold its files but name no repository, so each
// function below names the file and function it follows; they are found again with `find_string` on
// "pub fn get_most_left_point", "fn internal_x_swap_y", "fn compute_deposit_x_y", "fn get_nearest_left_valued_slot",
// "fn get_point_type_value", "internal_x_swap_y(pool_fee, protocol_fee_rate"). It imports nothing from
// dexes/amm-dcl-a/: the indexer re-simulates the same swaps with that folder's port, so the tests that compare the
// indexer's pool book with this model compare two implementations.
//
// Files of the source followed: the math file (`pow_96`, `sqrt_rate_96`, `U256::mul_fraction_floor/ceil`,
// `get_sqrt_price`, `get_log_sqrt_price_floor`, `get_amount_x`, `get_amount_y`, `get_most_left_point`,
// `get_most_right_point`); `swap_math.rs` (`Pool::range_x_swap_y`, `Pool::range_y_swap_x`,
// `x_swap_y_at_price_liquidity`, `y_swap_x_at_price_liquidity`, `x_swap_y_range_complete`,
// `y_swap_x_range_complete`, `x_swap_y_at_price`, `y_swap_x_at_price`); `pool.rs` (`internal_x_swap_y`,
// `internal_y_swap_x`, `process_liquidity_y/x`, `process_limit_order_y/x`, `pass_endpoint`, `Pool::new`,
// `compute_deposit_x_y`, `compute_withdraw_x_y`, `update_pool`, `liquidity_add_delta`); the point-info file
// (`PointInfo::update_endpoint`, `get_point_type_value`); the slot-bitmap file (`get_nearest_left_valued_slot`,
// `get_nearest_right_valued_slot`); `swap.rs` (`internal_swap`: exact in stops at -799999 / 799999).
// One line departs from that copy, for the deployed contract's fix (C): the Y of a partly emptied X->Y range
// (`xForYOverRange`, which says why).
//
// Not modelled: fee scales (fees owed to positions), volumes and the running `total_x`/`total_y`; swaps by output
// and by stop point; VIP fee discounts. Where the contract panics (a u128 or U256 that overflows or goes below 0, an
// illegal point, E201 / E208-E211) these functions throw `DclContractPanic`.

/** Points range over [-800000, 800000] (S: `LEFT_MOST_POINT`, `RIGHT_MOST_POINT`). */
export const LEFT_MOST_POINT = -800_000;
export const RIGHT_MOST_POINT = 800_000;
const POW96 = 1n << 96n;
const U128_MAX = (1n << 128n) - 1n;
const U256_MAX = (1n << 256n) - 1n;
/** Fees are millionths of the input (S: `10u128.pow(6) - pool_fee`). */
const FEE_DENOM = 1_000_000n;
/** The protocol's rate is in basis points of the fee (S: `BP_DENOM`). */
const BP_DENOM = 10_000n;

/** What the contract would panic with. */
export class DclContractPanic extends Error {}

// ---- the pool record ----

/** A liquidity endpoint: the liquidity of the ranges that end at `point`, and what crossing it rightwards adds. */
export interface DclEndpoint {
  point: number;
  liquiditySum: bigint;
  liquidityDelta: bigint;
}

/** What the limit orders resting at `point` sell. */
export interface DclOrderAt {
  point: number;
  sellingX: bigint;
  sellingY: bigint;
}

/**
 * A pool as the model keeps it: the record the indexer's pool book keeps for the same pool (`pools.state` of an
 * AmmDclA row), field for field and in its key order, because the tests compare the two with `toEqual` and
 * `JSON.stringify`. The type is written out here so that the model imports nothing of dexes/amm-dcl-a; the type
 * check of the tests (which hand one to the other) keeps the two shapes assignable both ways. The contract's own
 * pool (S: `pool.rs` `Pool`) holds the same figures: `current_point`, `sqrt_price_96`, `liquidity`, `liquidity_x`,
 * and per point its `liquidity_sum`, `liquidity_delta` and orders.
 */
export interface DclPoolRecord {
  kind: 'dcl';
  poolId: string;
  /** [token_x, token_y], sorted as the pool id sorts them. */
  tokens: [string, string];
  /** [x, y] the ranges' liquidity and the orders hold at the current price, each term rounded down (`reserves`). */
  amounts: [bigint, bigint];
  /** Fee, millionths of the input. */
  totalFee: number;
  pointDelta: number;
  currentPoint: number;
  sqrtPrice96: bigint;
  liquidity: bigint;
  liquidityX: bigint;
  /** Endpoints with liquidity, sorted by point. */
  points: DclEndpoint[];
  /** Points with live orders, sorted by point. */
  orders: DclOrderAt[];
  /** The indexer's record of its last re-simulated swap; the model keeps none (null). */
  lastSwapCheck: { receiptId: string; mode: 'exact_in' | 'exact_out'; logged: bigint; simulated: bigint | null; matched: boolean } | null;
  /** The indexer's counters of swaps and changes it could not re-simulate; the model's are 0. */
  unmatchedSwaps: number;
  unappliedChanges: number;
}

/** A pool just created at `initPoint` (S: `pool.rs` `Pool::new`: no liquidity, the sqrt price of the point). */
export function newPoolRecord(poolId: string, tokens: [string, string], fee: number, pointDelta: number, initPoint: number): DclPoolRecord {
  return {
    kind: 'dcl',
    poolId,
    tokens,
    amounts: [0n, 0n],
    totalFee: fee,
    pointDelta,
    currentPoint: initPoint,
    sqrtPrice96: sqrtPriceAt(initPoint),
    liquidity: 0n,
    liquidityX: 0n,
    points: [],
    orders: [],
    lastSwapCheck: null,
    unmatchedSwaps: 0,
    unappliedChanges: 0,
  };
}

// ---- integers as the contract's ----

function u128(v: bigint): bigint {
  if (v < 0n) throw new DclContractPanic('attempt to subtract with overflow');
  if (v > U128_MAX) throw new DclContractPanic('Integer overflow when casting to u128');
  return v;
}

function u256(v: bigint): bigint {
  if (v < 0n) throw new DclContractPanic('arithmetic operation overflow');
  if (v > U256_MAX) throw new DclContractPanic('arithmetic operation overflow');
  return v;
}

/** S: math file `U256::mul_fraction_floor`: floor(a * num / den) (in U512, the result back in U256). */
function mulFloor(a: bigint, num: bigint, den: bigint): bigint {
  if (den === 0n) throw new DclContractPanic('division by zero');
  return u256((u256(a) * u256(num)) / den);
}

/** S: math file `U256::mul_fraction_ceil`. */
function mulCeil(a: bigint, num: bigint, den: bigint): bigint {
  if (den === 0n) throw new DclContractPanic('division by zero');
  const product = u256(a) * u256(num);
  return u256(product / den + (product % den === 0n ? 0n : 1n));
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

// ---- prices ----

/** The Q128 factors of S: math file `get_sqrt_price` (iZiSwap LogPowMath), by bit of |point|, from bit 1. */
const SQRT_FACTORS: ReadonlyArray<readonly [number, bigint]> = [
  [0x2, 0xfff97272373d413259a46990580e213an],
  [0x4, 0xfff2e50f5f656932ef12357cf3c7fdccn],
  [0x8, 0xffe5caca7e10e4e61c3624eaa0941cd0n],
  [0x10, 0xffcb9843d60f6159c9db58835c926644n],
  [0x20, 0xff973b41fa98c081472e6896dfb254c0n],
  [0x40, 0xff2ea16466c96a3843ec78b326b52861n],
  [0x80, 0xfe5dee046a99a2a811c461f1969c3053n],
  [0x100, 0xfcbe86c7900a88aedcffc83b479aa3a4n],
  [0x200, 0xf987a7253ac413176f2b074cf7815e54n],
  [0x400, 0xf3392b0822b70005940c7a398e4b70f3n],
  [0x800, 0xe7159475a2c29b7443b29c7fa6e889d9n],
  [0x1000, 0xd097f3bdfd2022b8845ad8f792aa5825n],
  [0x2000, 0xa9f746462d870fdf8a65dc1f90e061e5n],
  [0x4000, 0x70d869a156d2a1b890bb3df62baf32f7n],
  [0x8000, 0x31be135f97d08fd981231505542fcfa6n],
  [0x10000, 0x9aa508b5b7a84e1c677de54f3e99bc9n],
  [0x20000, 0x5d6af8dedb81196699c329225ee604n],
  [0x40000, 0x2216e584f5fa1ea926041bedfe98n],
  [0x80000, 0x48a170391f7dc42444e8fa2n],
];

const sqrtPriceCache = new Map<number, bigint>();

/**
 * sqrt(1.0001^point) in Q96 (S: math file `get_sqrt_price`): the product of the Q128 factors of |point|'s bits,
 * inverted as U256::MAX / value for a positive point, then shifted to Q96 rounding up. E202 beyond ±800000.
 */
export function sqrtPriceAt(point: number): bigint {
  const cached = sqrtPriceCache.get(point);
  if (cached !== undefined) return cached;
  const abs = Math.abs(point);
  if (!Number.isInteger(point) || abs > RIGHT_MOST_POINT) throw new DclContractPanic('E202: illegal point');
  let value = abs & 1 ? 0xfffcb933bd6fad37aa2d162d1a594001n : 1n << 128n;
  for (const [bit, factor] of SQRT_FACTORS) if (abs & bit) value = (value * factor) >> 128n;
  if (point > 0) value = U256_MAX / value;
  const price = (value >> 32n) + (value % (1n << 32n) === 0n ? 0n : 1n);
  sqrtPriceCache.set(point, price);
  return price;
}

/** S: math file `sqrt_rate_96()`: the sqrt price of point 1. */
const SQRT_RATE = sqrtPriceAt(1);
/** S: math file `MIN_PRICE`, `MAX_PRICE`. */
const MIN_PRICE = 337263108622n;
const MAX_PRICE = 18611883644907511909590774894315720731532604461n;

/**
 * The greatest point whose sqrt price is at most `sqrtPrice96` (S: math file `get_log_sqrt_price_floor`, iZiSwap
 * LogPowMath): log2 of the Q128 value by bits, then 13 squarings for its fraction, scaled to log base sqrt(1.0001)
 * with two error bounds; of the two candidate points the upper one when its price is not above the value.
 */
export function logSqrtPriceFloor(sqrtPrice96: bigint): number {
  if (sqrtPrice96 < MIN_PRICE || sqrtPrice96 >= MAX_PRICE) throw new DclContractPanic('E201: invalid sqrt price');
  const sqrtPrice128 = sqrtPrice96 << 32n;
  let x = sqrtPrice128;
  let m = 0n;
  for (const [bound, shift] of [
    [(1n << 128n) - 1n, 7n],
    [(1n << 64n) - 1n, 6n],
    [(1n << 32n) - 1n, 5n],
    [0xffffn, 4n],
    [0xffn, 3n],
    [0xfn, 2n],
    [0x3n, 1n],
  ] as const) {
    const y = x > bound ? 1n << shift : 0n;
    m |= y;
    x >>= y;
  }
  if (x > 1n) m |= 1n;
  x = m >= 128n ? sqrtPrice128 >> (m - 127n) : sqrtPrice128 << (127n - m);
  let l2 = (m - 128n) << 64n;
  for (let shift = 63n; shift >= 51n; shift--) {
    x = (x * x) >> 127n;
    const y = x >> 128n;
    l2 |= y << shift;
    x >>= y;
  }
  x = (x * x) >> 127n;
  l2 |= (x >> 128n) << 50n;
  const ls10001 = l2 * 255738958999603826347141n;
  const logFloor = Number((ls10001 - 3402992956809132418596140100660247210n) >> 128n);
  const logUpper = Number((ls10001 + 291339464771989622907027621153398088495n) >> 128n);
  if (logFloor === logUpper) return logFloor;
  return sqrtPriceAt(logUpper) <= sqrtPrice96 ? logUpper : logFloor;
}

// ---- amounts over a range of points ----

/** Y that `liquidity` holds over the points from sqrt price `sqrtL` up to (not including) `sqrtR`: the geometric
 * sum L·(sqrtR - sqrtL)/(sqrt(1.0001) - 1) (S: math file `get_amount_y`). */
export function amountY(liquidity: bigint, sqrtL: bigint, sqrtR: bigint, roundUp: boolean): bigint {
  const num = u256(sqrtR - sqrtL);
  const den = SQRT_RATE - POW96;
  return roundUp ? mulCeil(liquidity, num, den) : mulFloor(liquidity, num, den);
}

/** X that `liquidity` holds over points [left, right): L·(sqrt(1.0001)^(r-l) - 1)/(sqrtR - sqrtR/sqrt(1.0001))
 * (S: math file `get_amount_x`; the sqrt price of right - 1 is sqrtR/sqrt(1.0001) rounded down). */
export function amountX(liquidity: bigint, left: number, right: number, sqrtR: bigint, roundUp: boolean): bigint {
  const num = u256(sqrtPriceAt(right - left) - POW96);
  const den = u256(sqrtR - mulFloor(sqrtR, POW96, SQRT_RATE));
  return roundUp ? mulCeil(liquidity, num, den) : mulFloor(liquidity, num, den);
}

/** S: math file `get_most_left_point`: the leftmost point whose range up to `right` `amount` X can empty. */
function mostLeftPoint(liquidity: bigint, amount: bigint, right: number, sqrtR: bigint): number {
  const sqrtRMinus1 = mulCeil(sqrtR, POW96, SQRT_RATE);
  return right - logSqrtPriceFloor(mulFloor(amount, u256(sqrtR - sqrtRMinus1), liquidity) + POW96);
}

/** S: math file `get_most_right_point`: the rightmost point up to which `amount` Y can fill from `sqrtL`. */
function mostRightPoint(liquidity: bigint, amount: bigint, sqrtL: bigint): number {
  return logSqrtPriceFloor(mulFloor(amount, SQRT_RATE - POW96, liquidity) + sqrtL);
}

// ---- trades at one price (S: swap_math.rs) ----

/** S: `x_swap_y_at_price_liquidity`: X in turns the point's Y part of the liquidity into X. [costX, gotY, liquidityX]. */
function xForYAtPriceLiquidity(amount: bigint, sqrtPrice: bigint, liquidity: bigint, liquidityX: bigint): [bigint, bigint, bigint] {
  const liquidityY = u128(liquidity - liquidityX);
  const transformed = min(mulFloor(amount, sqrtPrice, POW96), liquidityY);
  return [u128(mulCeil(transformed, POW96, sqrtPrice)), mulFloor(transformed, sqrtPrice, POW96), u128(liquidityX + transformed)];
}

/** S: `y_swap_x_at_price_liquidity`: Y in turns the point's X part back into Y. [costY, gotX, liquidityX]. */
function yForXAtPriceLiquidity(amount: bigint, sqrtPrice: bigint, liquidityX: bigint): [bigint, bigint, bigint] {
  const transformed = min(mulFloor(amount, POW96, sqrtPrice), liquidityX);
  return [u128(mulCeil(transformed, sqrtPrice, POW96)), mulFloor(transformed, POW96, sqrtPrice), u128(liquidityX - transformed)];
}

/** S: `x_swap_y_at_price`: X in against an order selling `sellingY` at the point. [costX, gotY]. */
function xForYAtPrice(amount: bigint, sqrtPrice: bigint, sellingY: bigint): [bigint, bigint] {
  const l = mulFloor(amount, sqrtPrice, POW96);
  const gotY = min(u128(mulFloor(l, sqrtPrice, POW96)), sellingY);
  const back = mulCeil(gotY, POW96, sqrtPrice);
  return [u128(mulCeil(back, POW96, sqrtPrice)), gotY];
}

/** S: `y_swap_x_at_price`: Y in against an order selling `sellingX` at the point. [costY, gotX]. */
function yForXAtPrice(amount: bigint, sqrtPrice: bigint, sellingX: bigint): [bigint, bigint] {
  const l = mulFloor(amount, POW96, sqrtPrice);
  const gotX = min(mulFloor(l, POW96, sqrtPrice), sellingX);
  const back = mulCeil(gotX, sqrtPrice, POW96);
  return [u128(mulCeil(back, sqrtPrice, POW96)), u128(gotX)];
}

// ---- trades over a range of constant liquidity (S: swap_math.rs) ----

interface RangeFill {
  /** The range was emptied (else `locPoint` is where the trade stopped, to be finished at one price). */
  whole: boolean;
  cost: bigint;
  got: bigint;
  locPoint: number;
  sqrtLoc: bigint;
}

/** S: `x_swap_y_range_complete`: X in over [left, right), from right to left. */
function xForYOverRange(liquidity: bigint, sqrtL: bigint, left: number, sqrtR: bigint, right: number, amount: bigint): RangeFill {
  const maxX = u128(amountX(liquidity, left, right, sqrtR, true));
  if (maxX <= amount) return { whole: true, cost: maxX, got: amountY(liquidity, sqrtL, sqrtR, false), locPoint: 0, sqrtLoc: 0n };
  let loc = mostLeftPoint(liquidity, amount, right, sqrtR);
  if (loc > right) throw new DclContractPanic('E208: internal error1');
  if (loc <= left) throw new DclContractPanic('E209: internal error2');
  if (loc === right) return { whole: false, cost: 0n, got: 0n, locPoint: loc - 1, sqrtLoc: sqrtPriceAt(loc - 1) };
  const cost = u128(min(amountX(liquidity, loc, right, sqrtR, true), amount));
  loc -= 1; // the point left of the emptied ones, to be traded at its own price
  const sqrtLoc = sqrtPriceAt(loc);
  // The Y of the emptied points [loc + 1, right) is summed from sqrt(loc)·sqrt(1.0001) rounded down, not from
  // sqrt(loc + 1): the public copy of the source has `get_amount_y(liquidity, get_sqrt_price(result.loc_pt), ..)`
  // here (S), but the deployed contract was changed to iZiSwap's `sqrtLocA1_96` (C: INTEARnear/dex-aggregator
  // rhea-dcl-math `math.rs` `x2y_range_complete`, a port "built to replicate" the binary; a public write-up of the
  // bug quotes Ref's line commented out above iZiSwap's): with sqrt(loc + 1) a swap could take more Y than the
  // range's deposit held (the underflow that bug caused). The same form is in the source's
  // `x_swap_y_range_complete_desire` (S).
  const sqrtLocPlus1 = sqrtLoc + mulFloor(sqrtLoc, SQRT_RATE - POW96, POW96);
  return { whole: false, cost, got: amountY(liquidity, sqrtLocPlus1, sqrtR, false), locPoint: loc, sqrtLoc };
}

/** S: `y_swap_x_range_complete`: Y in over [left, right), from left to right. */
function yForXOverRange(liquidity: bigint, sqrtL: bigint, left: number, sqrtR: bigint, right: number, amount: bigint): RangeFill {
  const maxY = amountY(liquidity, sqrtL, sqrtR, true);
  if (maxY <= amount) return { whole: true, cost: u128(maxY), got: amountX(liquidity, left, right, sqrtR, false), locPoint: 0, sqrtLoc: 0n };
  const loc = mostRightPoint(liquidity, amount, sqrtL);
  if (loc < left) throw new DclContractPanic('E210: internal error3');
  if (loc >= right) throw new DclContractPanic('E211: internal error4');
  const sqrtLoc = sqrtPriceAt(loc);
  if (loc === left) return { whole: false, cost: 0n, got: 0n, locPoint: loc, sqrtLoc };
  const cost = u128(min(amountY(liquidity, sqrtL, sqrtLoc, true), amount));
  return { whole: false, cost, got: amountX(liquidity, left, loc, sqrtLoc, false), locPoint: loc, sqrtLoc };
}

// ---- a pool during a swap ----

interface StepResult {
  finished: boolean;
  /** Input consumed, fee included. */
  paid: bigint;
  got: bigint;
  fee: bigint;
  protocolFee: bigint;
}

const NOTHING_DONE: StepResult = { finished: true, paid: 0n, got: 0n, fee: 0n, protocolFee: 0n };

/** The figures of S: `pool.rs` `Pool` a swap reads and moves, with `point_info` and `slot_bitmap` as maps. */
class SwapPool {
  currentPoint: number;
  sqrtPrice: bigint;
  liquidity: bigint;
  liquidityX: bigint;
  readonly pointDelta: number;
  readonly fee: bigint;
  /** Endpoint liquidity deltas (only endpoints whose sum is above 0 are kept). */
  readonly deltas: Map<number, bigint>;
  readonly orders: Map<number, { sellingX: bigint; sellingY: bigint }>;
  /** Every endpoint and order point, sorted: a slot of the bitmap is set while its point is live (`isLive`). */
  private readonly candidates: number[];

  constructor(
    record: DclPoolRecord,
    private readonly protocolFeeRate: bigint,
  ) {
    this.currentPoint = record.currentPoint;
    this.sqrtPrice = record.sqrtPrice96;
    this.liquidity = record.liquidity;
    this.liquidityX = record.liquidityX;
    this.pointDelta = record.pointDelta;
    this.fee = BigInt(record.totalFee);
    this.deltas = new Map(record.points.filter((p) => p.liquiditySum > 0n).map((p) => [p.point, p.liquidityDelta]));
    this.orders = new Map(record.orders.map((o) => [o.point, { sellingX: o.sellingX, sellingY: o.sellingY }]));
    this.candidates = [...new Set([...this.deltas.keys(), ...this.orders.keys()])].sort((a, b) => a - b);
  }

  private hasOrder(point: number): boolean {
    const o = this.orders.get(point);
    return o !== undefined && (o.sellingX !== 0n || o.sellingY !== 0n);
  }

  private isLive(point: number): boolean {
    return this.deltas.has(point) || this.hasOrder(point);
  }

  /** S: point-info file `get_point_type_value`: 1 for an endpoint with liquidity, 2 for a live order. */
  private pointType(point: number): number {
    if (point % this.pointDelta !== 0) return 0;
    return (this.deltas.has(point) ? 1 : 0) | (this.hasOrder(point) ? 2 : 0);
  }

  /** S: slot-bitmap file `get_nearest_left_valued_slot`: the live point of the greatest slot at or left of
   * `point`'s (slots round towards -infinity), or null when it is left of `stopSlot`. */
  private nearestLeft(point: number, stopSlot: number): number | null {
    const slot = Math.floor(point / this.pointDelta);
    for (let i = this.candidates.length - 1; i >= 0; i--) {
      const p = this.candidates[i]!;
      if (p / this.pointDelta > slot || !this.isLive(p)) continue;
      return p / this.pointDelta >= stopSlot ? p : null;
    }
    return null;
  }

  /** S: slot-bitmap file `get_nearest_right_valued_slot`: the live point of the least slot right of `point`'s, or
   * null when it is right of `stopSlot`. */
  private nearestRight(point: number, stopSlot: number): number | null {
    const slot = Math.floor(point / this.pointDelta);
    for (const p of this.candidates) {
      if (p / this.pointDelta <= slot || !this.isLive(p)) continue;
      return p / this.pointDelta <= stopSlot ? p : null;
    }
    return null;
  }

  /** S: `pool.rs` `pass_endpoint` and `liquidity_add_delta`. */
  private passEndpoint(point: number, toTheLeft: boolean): void {
    const delta = this.deltas.get(point) ?? 0n;
    this.liquidity = u128(this.liquidity + (toTheLeft ? -delta : delta));
  }

  private moveTo(point: number): void {
    this.currentPoint = point;
    this.sqrtPrice = sqrtPriceAt(point);
  }

  /** floor(amount·(10^6 - fee)/10^6): what a step may trade, the fee kept aside (S: `process_*`). */
  private net(amount: bigint): bigint {
    return u128(mulFloor(amount, FEE_DENOM - this.fee, FEE_DENOM));
  }

  /** The fee of a step that cost `cost` of `net` (S: `process_*`): the rest of the input when it used all of it,
   * else ceil(cost·fee/(10^6 - fee)). */
  private stepFee(amount: bigint, net: bigint, cost: bigint): bigint {
    return cost >= net ? u128(amount - cost) : u128(mulCeil(cost, this.fee, FEE_DENOM - this.fee));
  }

  /** S: the protocol's part of a step's fee, `fee_amount * protocol_fee_rate / BP_DENOM`, all of it for an order
   * fill in a pool without liquidity. */
  private protocolPart(fee: bigint, order: boolean): bigint {
    return order && this.liquidity === 0n ? fee : (fee * this.protocolFeeRate) / BP_DENOM;
  }

  // -- X in, the price moving left --

  /** S: `pool.rs` `process_limit_order_y`. */
  private fillOrderSellingY(amount: bigint): StepResult {
    const order = this.orders.get(this.currentPoint)!;
    const net = this.net(amount);
    if (net === 0n) return NOTHING_DONE;
    const [cost, got] = xForYAtPrice(net, this.sqrtPrice, order.sellingY);
    const finished = got < order.sellingY || cost >= net;
    const fee = this.stepFee(amount, net, cost);
    order.sellingY = u128(order.sellingY - got);
    return { finished, paid: cost + fee, got, fee, protocolFee: this.protocolPart(fee, true) };
  }

  /** S: `swap_math.rs` `Pool::range_x_swap_y`: X in over [left, current point]. */
  private rangeXForY(left: number, amount: bigint): { finished: boolean; cost: bigint; got: bigint; finalPoint: number; finalSqrt: bigint; liquidityX: bigint } {
    let rest = amount;
    let cost = 0n;
    let got = 0n;
    let liquidityX = 0n;
    const hasY = this.liquidityX < this.liquidity;
    if (hasY && (this.liquidityX > 0n || left === this.currentPoint)) {
      // The current point first, at its own price.
      const [c, g, lx] = xForYAtPriceLiquidity(rest, this.sqrtPrice, this.liquidity, this.liquidityX);
      cost = c;
      got = g;
      liquidityX = lx;
      if (lx < this.liquidity || c >= rest) return { finished: true, cost, got, finalPoint: this.currentPoint, finalSqrt: this.sqrtPrice, liquidityX };
      rest -= c;
    } else if (hasY) {
      // All Y at the current point: it joins the range on its left.
      this.currentPoint += 1;
      this.sqrtPrice += mulFloor(this.sqrtPrice, SQRT_RATE - POW96, POW96);
    } else {
      liquidityX = this.liquidityX;
    }
    if (left >= this.currentPoint) return { finished: false, cost, got, finalPoint: this.currentPoint, finalSqrt: this.sqrtPrice, liquidityX };
    const sqrtL = sqrtPriceAt(left);
    const range = xForYOverRange(this.liquidity, sqrtL, left, this.sqrtPrice, this.currentPoint, rest);
    cost += range.cost;
    rest = u128(rest - range.cost);
    got += range.got;
    if (range.whole) return { finished: rest === 0n, cost, got, finalPoint: left, finalSqrt: sqrtL, liquidityX: this.liquidity };
    const [c, g, lx] = xForYAtPriceLiquidity(rest, range.sqrtLoc, this.liquidity, 0n);
    return { finished: true, cost: cost + c, got: got + g, finalPoint: range.locPoint, finalSqrt: range.sqrtLoc, liquidityX: lx };
  }

  /** S: `pool.rs` `process_liquidity_y`: the liquidity over [left, current point], X in. */
  private fillLiquidityY(amount: bigint, left: number): StepResult {
    const net = this.net(amount);
    if (net === 0n) return NOTHING_DONE;
    if (this.liquidity === 0n) {
      if (this.currentPoint !== left) {
        this.moveTo(left);
        this.liquidityX = 0n;
      }
      return { finished: false, paid: 0n, got: 0n, fee: 0n, protocolFee: 0n };
    }
    const r = this.rangeXForY(left, net);
    const fee = this.stepFee(amount, net, r.cost);
    const protocolFee = this.protocolPart(fee, false);
    this.currentPoint = r.finalPoint;
    this.sqrtPrice = r.finalSqrt;
    this.liquidityX = r.liquidityX;
    return { finished: r.finished, paid: r.cost + fee, got: u128(r.got), fee, protocolFee };
  }

  /** S: `pool.rs` `internal_x_swap_y`: sells `amount` X, the price falling no lower than `lowBoundary`. */
  xForY(amount: bigint, lowBoundary: number): SwapTotals {
    const boundary = Math.max(lowBoundary, LEFT_MOST_POINT);
    const stopSlot = Math.trunc(boundary / this.pointDelta); // Rust's division
    const t = new SwapTotals(amount);
    while (boundary <= this.currentPoint && !t.finished) {
      const type = this.pointType(this.currentPoint);
      // Step 1: the orders at the current point.
      if (type & 2) {
        t.add(this.fillOrderSellingY(t.rest));
        if (t.finished) break;
      }
      // Step 2: an endpoint at the current point.
      let searchStart: number;
      if (type & 1) {
        t.add(this.fillLiquidityY(t.rest, this.currentPoint));
        if (!t.finished) {
          this.passEndpoint(this.currentPoint, true);
          this.moveTo(this.currentPoint - 1);
          this.liquidityX = 0n;
        }
        if (t.finished || this.currentPoint < boundary) break;
        if (this.pointType(this.currentPoint) & 3) continue;
        searchStart = this.currentPoint;
      } else {
        searchStart = this.currentPoint - 1;
      }
      // Step 3: the range down to the next endpoint or order (one point above an order, to keep it for step 1).
      let orderOnLeft = false;
      const found = this.nearestLeft(searchStart, stopSlot);
      let next = boundary;
      if (found !== null && found >= boundary) {
        if (this.pointType(found) & 2) {
          orderOnLeft = true;
          next = found + 1;
        } else {
          next = found;
        }
      }
      t.add(this.fillLiquidityY(t.rest, next));
      if (t.finished || this.currentPoint <= boundary) break;
      if (orderOnLeft) {
        this.moveTo(this.currentPoint - 1);
        this.liquidityX = 0n;
      }
    }
    return t;
  }

  // -- Y in, the price moving right --

  /** S: `pool.rs` `process_limit_order_x`. */
  private fillOrderSellingX(amount: bigint): StepResult {
    const order = this.orders.get(this.currentPoint)!;
    const net = this.net(amount);
    if (net === 0n) return NOTHING_DONE;
    const [cost, got] = yForXAtPrice(net, this.sqrtPrice, order.sellingX);
    const finished = got < order.sellingX || cost >= net;
    const fee = this.stepFee(amount, net, cost);
    order.sellingX = u128(order.sellingX - got);
    return { finished, paid: cost + fee, got, fee, protocolFee: this.protocolPart(fee, true) };
  }

  /** S: `swap_math.rs` `Pool::range_y_swap_x`: Y in over [current point, right). */
  private rangeYForX(right: number, amount: bigint): { finished: boolean; cost: bigint; got: bigint; finalPoint: number; finalSqrt: bigint; liquidityX: bigint } {
    let rest = amount;
    let cost = 0n;
    let got = 0n;
    let liquidityX = 0n;
    if (this.liquidityX < this.liquidity) {
      // The current point first: its X part, at its own price.
      [cost, got, liquidityX] = yForXAtPriceLiquidity(rest, this.sqrtPrice, this.liquidityX);
      if (liquidityX > 0n || cost >= rest) return { finished: true, cost, got, finalPoint: this.currentPoint, finalSqrt: this.sqrtPrice, liquidityX };
      rest -= cost;
      this.currentPoint += 1;
      if (this.currentPoint === right) return { finished: false, cost, got, finalPoint: right, finalSqrt: sqrtPriceAt(right), liquidityX };
      this.sqrtPrice += mulFloor(this.sqrtPrice, SQRT_RATE - POW96, POW96);
    }
    const sqrtR = sqrtPriceAt(right);
    const range = yForXOverRange(this.liquidity, this.sqrtPrice, this.currentPoint, sqrtR, right, rest);
    cost += range.cost;
    rest = u128(rest - range.cost);
    got += range.got;
    if (range.whole) return { finished: rest === 0n, cost, got, finalPoint: right, finalSqrt: sqrtR, liquidityX };
    const [c, g, lx] = yForXAtPriceLiquidity(rest, range.sqrtLoc, this.liquidity);
    return { finished: true, cost: cost + c, got: got + g, finalPoint: range.locPoint, finalSqrt: range.sqrtLoc, liquidityX: lx };
  }

  /** S: `pool.rs` `process_liquidity_x`: the liquidity over [current point, next), Y in. */
  private fillLiquidityX(amount: bigint, next: number): StepResult {
    const net = this.net(amount);
    if (net === 0n) return NOTHING_DONE;
    const r = this.rangeYForX(next, net);
    const fee = this.stepFee(amount, net, r.cost);
    const protocolFee = this.protocolPart(fee, false);
    this.currentPoint = r.finalPoint;
    this.sqrtPrice = r.finalSqrt;
    this.liquidityX = r.liquidityX;
    return { finished: r.finished, paid: r.cost + fee, got: u128(r.got), fee, protocolFee };
  }

  /** S: `pool.rs` `internal_y_swap_x`: sells `amount` Y, the price rising to `highBoundary` at most. */
  yForX(amount: bigint, highBoundary: number): SwapTotals {
    const boundary = Math.min(highBoundary, RIGHT_MOST_POINT);
    const stopSlot = Math.trunc(boundary / this.pointDelta);
    const t = new SwapTotals(amount);
    let type = this.pointType(this.currentPoint);
    while (this.currentPoint < boundary && !t.finished) {
      if (type & 2) {
        t.add(this.fillOrderSellingX(t.rest));
        if (t.finished) break;
      }
      const found = this.nearestRight(this.currentPoint, stopSlot);
      const [next, nextType] = found === null || found > boundary ? [boundary, 0] : [found, this.pointType(found)];
      if (this.liquidity === 0n) {
        // Nothing to trade up to the next point: jump there.
        this.moveTo(next);
        if (nextType & 1) {
          this.passEndpoint(next, false);
          this.liquidityX = this.liquidity;
        }
        type = nextType;
      } else {
        const step = this.fillLiquidityX(t.rest, next);
        if (this.currentPoint === next) {
          if (nextType & 1) this.passEndpoint(next, false);
          this.liquidityX = this.liquidity;
          type = nextType;
        } else {
          type = 0;
        }
        t.add(step);
      }
    }
    return t;
  }

  /** The orders after the swap, live ones only, sorted. */
  liveOrders(): DclOrderAt[] {
    return [...this.orders]
      .filter(([, o]) => o.sellingX !== 0n || o.sellingY !== 0n)
      .sort(([a], [b]) => a - b)
      .map(([point, o]) => ({ point, sellingX: o.sellingX, sellingY: o.sellingY }));
  }
}

/** The running sums of a swap (S: the tuple `internal_*_swap_*` accumulates). */
class SwapTotals {
  finished = false;
  paid = 0n;
  got = 0n;
  fee = 0n;
  protocolFee = 0n;
  constructor(public rest: bigint) {}

  add(step: StepResult): void {
    this.finished = step.finished;
    this.rest = u128(this.rest - step.paid);
    this.paid += step.paid;
    this.got += step.got;
    this.fee += step.fee;
    this.protocolFee += step.protocolFee;
  }
}

export interface DclSwap {
  /** The contract's `is_finished`: false when the pool ran out of liquidity (`internal_swap` then panics). */
  finished: boolean;
  /** Input consumed, fee included (the `amount_in` the `swap` event logs). */
  amountIn: bigint;
  amountOut: bigint;
  /** The fee the swap's steps charged, and the protocol's part of it (summed per step, as the contract does). */
  fee: bigint;
  protocolFee: bigint;
  pool: DclPoolRecord;
}

/** Exact-in points the price may reach (S: `swap.rs` `internal_swap`). */
const EXACT_IN_LOW = -799_999;
const EXACT_IN_HIGH = 799_999;

/**
 * `amountIn` of `tokenIn` sold to the pool as S: `swap.rs` `internal_swap` does for one hop: `internal_x_swap_y`
 * down to -799999 for X, `internal_y_swap_x` up to 799999 for Y. `protocolFeeRate` is in basis points of the fee.
 * Throws DclContractPanic where the contract panics.
 */
export function swapIn(pool: DclPoolRecord, tokenIn: string, amountIn: bigint, protocolFeeRate: bigint): DclSwap {
  const sim = new SwapPool(pool, protocolFeeRate);
  let totals: SwapTotals;
  if (tokenIn === pool.tokens[0]) totals = sim.xForY(u128(amountIn), EXACT_IN_LOW);
  else if (tokenIn === pool.tokens[1]) totals = sim.yForX(u128(amountIn), EXACT_IN_HIGH);
  else throw new DclContractPanic('E404: invalid pool ids');
  const after = withAmounts({
    ...pool,
    currentPoint: sim.currentPoint,
    sqrtPrice96: sim.sqrtPrice,
    liquidity: sim.liquidity,
    liquidityX: sim.liquidityX,
    orders: sim.liveOrders(),
  });
  return { finished: totals.finished, amountIn: totals.paid, amountOut: totals.got, fee: totals.fee, protocolFee: totals.protocolFee, pool: after };
}

// ---- liquidity (S: pool.rs) ----

function checkRange(pool: DclPoolRecord, left: number, right: number): void {
  if (left % pool.pointDelta !== 0 || right % pool.pointDelta !== 0) throw new DclContractPanic('E200: invalid endpoint');
  if (left >= right || left < LEFT_MOST_POINT || right > RIGHT_MOST_POINT) throw new DclContractPanic('E202: illegal point');
}

/** `u128::MAX / point_num` (S: `Pool::new` `max_liquidity_per_point`). */
function maxLiquidityPerPoint(pointDelta: number): bigint {
  return U128_MAX / BigInt(Math.trunc((RIGHT_MOST_POINT - LEFT_MOST_POINT) / pointDelta) + 1);
}

/** S: point-info file `update_endpoint` for the left (`isLeft`) or right end of a range changed by `change`; an
 * endpoint whose sum reaches 0 is gone (`update_pool` erases it). */
function withEndpoint(pool: DclPoolRecord, point: number, isLeft: boolean, change: bigint): DclEndpoint[] {
  const points = pool.points.slice();
  const at = points.findIndex((p) => p.point >= point);
  const i = at === -1 ? points.length : at;
  const old = points[i]?.point === point ? points[i] : undefined;
  const liquiditySum = u128((old?.liquiditySum ?? 0n) + change);
  if (liquiditySum > maxLiquidityPerPoint(pool.pointDelta)) throw new DclContractPanic('E203: liquidity overflow');
  const liquidityDelta = (old?.liquidityDelta ?? 0n) + (isLeft ? change : -change);
  points.splice(i, old === undefined ? 0 : 1, ...(liquiditySum === 0n ? [] : [{ point, liquiditySum, liquidityDelta }]));
  return points;
}

/** S: `compute_deposit_x_y`: what `liquidity` over [left, right) costs, [x, y], rounded up; at the current point
 * only Y (L·sqrt price). */
export function depositFor(pool: DclPoolRecord, left: number, right: number, liquidity: bigint): [bigint, bigint] {
  const cp = pool.currentPoint;
  const sqrtR = sqrtPriceAt(right);
  let y = 0n;
  let x = 0n;
  if (left < cp) y = amountY(liquidity, sqrtPriceAt(left), right < cp ? sqrtR : pool.sqrtPrice96, true);
  if (right > cp) x = u128(amountX(liquidity, left > cp ? left : cp + 1, right, sqrtR, true));
  if (left <= cp && right > cp) y += mulCeil(liquidity, pool.sqrtPrice96, POW96);
  return [x, u128(y)];
}

/** S: `compute_withdraw_x_y`: what removing `liquidity` over [left, right) gives back, rounded down; at the
 * current point its Y part goes first, then X. */
export function withdrawalFor(pool: DclPoolRecord, left: number, right: number, liquidity: bigint): [bigint, bigint] {
  const cp = pool.currentPoint;
  const sqrtR = sqrtPriceAt(right);
  let y = 0n;
  let x = 0n;
  if (left < cp) y = amountY(liquidity, sqrtPriceAt(left), right < cp ? sqrtR : pool.sqrtPrice96, false);
  if (right > cp) x = amountX(liquidity, left > cp ? left : cp + 1, right, sqrtR, false);
  if (left <= cp && right > cp) {
    const fromY = min(u128(pool.liquidity - pool.liquidityX), liquidity);
    y += mulFloor(fromY, pool.sqrtPrice96, POW96);
    x += mulFloor(liquidity - fromY, POW96, pool.sqrtPrice96);
  }
  return [u128(x), u128(y)];
}

/** `liquidity` added over [left, right) (S: `internal_add_liquidity` without its `compute_liquidity`: the caller
 * picks the liquidity): both endpoints updated, the current point's liquidity grown when the range holds it
 * (its liquidity_x unchanged: the deposit there is Y). Returns the pool and what the deposit costs. */
export function mint(pool: DclPoolRecord, left: number, right: number, liquidity: bigint): { pool: DclPoolRecord; paid: [bigint, bigint] } {
  checkRange(pool, left, right);
  if (liquidity <= 0n) throw new DclContractPanic('E214: invalid liquidity');
  const paid = depositFor(pool, left, right, liquidity);
  const points = withEndpoint({ ...pool, points: withEndpoint(pool, left, true, liquidity) }, right, false, liquidity);
  const holds = left <= pool.currentPoint && pool.currentPoint < right;
  return { pool: withAmounts({ ...pool, liquidity: holds ? u128(pool.liquidity + liquidity) : pool.liquidity, points }), paid };
}

/** `liquidity` removed from [left, right) (S: `internal_remove_liquidity`): both endpoints updated; at the current
 * point the liquidity falls and liquidity_x by the part not taken from Y. Returns the pool and the refund. */
export function burn(pool: DclPoolRecord, left: number, right: number, liquidity: bigint): { pool: DclPoolRecord; refund: [bigint, bigint] } {
  checkRange(pool, left, right);
  const refund = withdrawalFor(pool, left, right, liquidity);
  const points = withEndpoint({ ...pool, points: withEndpoint(pool, left, true, -liquidity) }, right, false, -liquidity);
  let { liquidity: current, liquidityX } = pool;
  if (left <= pool.currentPoint && pool.currentPoint < right) {
    const fromY = min(u128(current - liquidityX), liquidity);
    current = u128(current - liquidity);
    liquidityX = u128(liquidityX - (liquidity - fromY));
  }
  return { pool: withAmounts({ ...pool, liquidity: current, liquidityX, points }), refund };
}

// ---- reserves ----

/** The record with `amounts` recomputed (`reserves`). */
function withAmounts(pool: DclPoolRecord): DclPoolRecord {
  return { ...pool, amounts: reserves(pool) };
}

/**
 * [x, y] the pool's liquidity and orders hold at the current price: the definition of the `pools` table's amounts
 * for AmmDclA (not a figure of the contract, whose `total_x`/`total_y` are running sums). Each stretch of constant
 * liquidity between two endpoints counts, rounded down, as Y left of the current point and X right of it (the
 * contract's `get_amount_y` / `get_amount_x`); the current point itself holds liquidity_x as X (L·2^96/sqrt price)
 * and the rest as Y (L·sqrt price/2^96), as `compute_withdraw_x_y` would pay them; orders count what they sell.
 */
export function reserves(pool: DclPoolRecord): [bigint, bigint] {
  let x = 0n;
  let y = 0n;
  for (const o of pool.orders) {
    x += o.sellingX;
    y += o.sellingY;
  }
  const cp = pool.currentPoint;
  let level = 0n;
  let from = LEFT_MOST_POINT;
  for (const end of [...pool.points.map((p) => [p.point, p.liquidityDelta] as const), [RIGHT_MOST_POINT, 0n] as const]) {
    const [to, delta] = end;
    if (level > 0n && to > from) {
      // [from, to): the points below the current one are all Y, those above all X.
      if (from < cp) y += amountY(level, sqrtPriceAt(from), sqrtPriceAt(Math.min(to, cp)), false);
      if (to > cp + 1) x += amountX(level, Math.max(from, cp + 1), to, sqrtPriceAt(to), false);
    }
    level += delta;
    from = to;
  }
  if (pool.liquidity > 0n) {
    x += (pool.liquidityX * POW96) / pool.sqrtPrice96;
    y += ((pool.liquidity - pool.liquidityX) * pool.sqrtPrice96) / POW96;
  }
  return [x, y];
}
