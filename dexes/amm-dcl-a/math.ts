// AmmDclA swaps over a pool state (Ref DCL, iZiSwap's discretized concentrated liquidity), exact in and exact
// out, bigint only. The per-range math is range-math.ts; this is the pool loop around it:
// izumiFinance/iZiSwap-core contracts/swapX2Y.sol, swapY2X.sol (swapX2Y, swapX2YDesireY, swapY2X,
// swapY2XDesireX), as Ref's binary runs them per INTEARnear/dex-aggregator rhea-dcl-math/src/pool.rs (C); the
// fee rule, orders first and the swap boundaries are also in a public copy of the contract's pool.rs / swap.rs (S;
// README.md "The math"):
// - the fee is taken from the input: each step trades amountNoFee = floor(amount * (10^6 - fee) / 10^6), and
//   its fee is `amount - cost` when the step used all of it, else ceil(cost * fee / (10^6 - fee)); exact out
//   pays ceil(cost * fee / (10^6 - fee)) on top of each step's cost;
// - a point's limit orders fill before the point's range liquidity, in both directions;
// - the search for the next endpoint or order does not stop at bitmap word boundaries (iZiSwap's does);
// - exact-in swaps stop at points -799999 / 799999, exact-out swaps at -800000 / 800000.
// A swap that runs out of liquidity is `complete: false` (the contract's quote returns 0 then).

import {
  DclMathError,
  getSqrtPrice,
  LEFT_MOST_POINT,
  mulDivCeil,
  mulDivFloor,
  RIGHT_MOST_POINT,
  x2yAtPrice,
  x2yAtPriceDesire,
  x2yRange,
  x2yRangeDesire,
  y2xAtPrice,
  y2xAtPriceDesire,
  y2xRange,
  y2xRangeDesire,
  type RangeResult,
  type RangeState,
} from './range-math.ts';
import { poolReserves, type DclPointOrder, type DclPoolState } from './state.ts';

export { DclMathError, getSqrtPrice, getLogSqrtPriceFloor, LEFT_MOST_POINT, RIGHT_MOST_POINT } from './range-math.ts';

const FEE_DENOMINATOR = 1_000_000n;
const EXACT_IN_LOW_POINT = -799_999;
const EXACT_IN_HIGH_POINT = 799_999;

export interface DclSwapResult {
  /** False when the pool ran out of liquidity before the amount was filled. */
  complete: boolean;
  /** Input paid, fee included. */
  amountIn: bigint;
  amountOut: bigint;
  /** Fee paid, in the input token. */
  fee: bigint;
  /** The pool after the swap (amounts recomputed). */
  state: DclPoolState;
}

export interface SwapOptions {
  /**
   * Stop the price at this point instead of the range end: the lowest point an X->Y swap may reach, or the point
   * a Y->X swap stops before. Used for the swap part of an order placed across the current price.
   */
  limitPoint?: number;
}

/** Sells `amountIn` of `tokenIn`. Throws DclMathError where the contract would panic. */
export function swapExactIn(state: DclPoolState, tokenIn: string, amountIn: bigint, options?: SwapOptions): DclSwapResult {
  checkAmount(amountIn);
  const sim = new Simulation(state);
  if (tokenIn === state.tokens[0]) {
    const low = Math.max(options?.limitPoint ?? EXACT_IN_LOW_POINT, EXACT_IN_LOW_POINT);
    sim.swapX2Y(amountIn, low);
  } else if (tokenIn === state.tokens[1]) {
    const high = Math.min(options?.limitPoint ?? EXACT_IN_HIGH_POINT, EXACT_IN_HIGH_POINT);
    sim.swapY2X(amountIn, high);
  } else {
    throw new RangeError(`AmmDclA ${state.poolId}: ${tokenIn} is not in the pool`);
  }
  return sim.result();
}

/** Buys `amountOut` of `tokenOut`; `amountIn` of the result is what it costs. Throws DclMathError like the contract. */
export function swapExactOut(state: DclPoolState, tokenOut: string, amountOut: bigint): DclSwapResult {
  checkAmount(amountOut);
  const sim = new Simulation(state);
  if (tokenOut === state.tokens[1]) sim.swapX2YDesireY(amountOut);
  else if (tokenOut === state.tokens[0]) sim.swapY2XDesireX(amountOut);
  else throw new RangeError(`AmmDclA ${state.poolId}: ${tokenOut} is not in the pool`);
  return sim.result();
}

/** What `amountIn` of `tokenIn` buys, or null when the pool cannot fill it (or the contract would panic). */
export function quoteExactIn(state: DclPoolState, tokenIn: string, amountIn: bigint): bigint | null {
  try {
    const r = swapExactIn(state, tokenIn, amountIn);
    return r.complete && r.amountOut > 0n ? r.amountOut : null;
  } catch (err) {
    if (err instanceof DclMathError) return null;
    throw err;
  }
}

/** The input that buys `amountOut` of `tokenOut`, or null when the pool cannot fill it. */
export function quoteExactOut(state: DclPoolState, tokenOut: string, amountOut: bigint): bigint | null {
  try {
    const r = swapExactOut(state, tokenOut, amountOut);
    return r.complete ? r.amountIn : null;
  } catch (err) {
    if (err instanceof DclMathError) return null;
    throw err;
  }
}

function checkAmount(amount: bigint): void {
  if (amount <= 0n) throw new RangeError('AmmDclA: swap amount must be positive');
}

const ENDPOINT = 1;
const ORDER = 2;

/** Sorted points and lookups built once per state (states are immutable; swaps build new ones). */
interface Prepared {
  deltas: Map<number, bigint>;
  orders: Map<number, DclPointOrder>;
  /** Endpoints and order points, sorted. */
  marked: number[];
}

const preparedCache = new WeakMap<DclPoolState, Prepared>();

function prepare(state: DclPoolState): Prepared {
  let p = preparedCache.get(state);
  if (p === undefined) {
    const deltas = new Map(state.points.map((x) => [x.point, x.liquidityDelta]));
    const orders = new Map(state.orders.map((o) => [o.point, o]));
    const marked = [...new Set([...deltas.keys(), ...orders.keys()])].sort((a, b) => a - b);
    p = { deltas, orders, marked };
    preparedCache.set(state, p);
  }
  return p;
}

/** Index of the first element of sorted `a` greater than `x`. */
function upperBound(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((a[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One swap in progress: the moving price and the orders it fills, over the unchanged ranges of the state. */
class Simulation {
  private readonly fee: bigint;
  private readonly prepared: Prepared;
  private readonly filled = new Map<number, DclPointOrder>();
  private range: RangeState;
  private paid = 0n;
  private acquired = 0n;
  private feePaid = 0n;
  private complete = true;

  constructor(private readonly start: DclPoolState) {
    this.fee = BigInt(start.totalFee);
    if (this.fee < 0n || this.fee >= FEE_DENOMINATOR) throw new RangeError(`AmmDclA ${start.poolId}: fee ${start.totalFee}`);
    this.prepared = prepare(start);
    this.range = { point: start.currentPoint, sqrtPrice: start.sqrtPrice96, liquidity: start.liquidity, liquidityX: start.liquidityX };
  }

  result(): DclSwapResult {
    const orders = this.filled.size === 0 ? this.start.orders : this.ordersAfter();
    const state: DclPoolState = {
      ...this.start,
      currentPoint: this.range.point,
      sqrtPrice96: this.range.sqrtPrice,
      liquidity: this.range.liquidity,
      liquidityX: this.range.liquidityX,
      orders,
    };
    state.amounts = poolReserves(state);
    return { complete: this.complete, amountIn: this.paid, amountOut: this.acquired, fee: this.feePaid, state };
  }

  private ordersAfter(): DclPointOrder[] {
    const byPoint = new Map(this.start.orders.map((o) => [o.point, o]));
    for (const [point, o] of this.filled) byPoint.set(point, o);
    return [...byPoint.values()].filter((o) => o.sellingX > 0n || o.sellingY > 0n).sort((a, b) => a.point - b.point);
  }

  private order(point: number): DclPointOrder | undefined {
    return this.filled.get(point) ?? this.prepared.orders.get(point);
  }

  /** point_info.rs: endpoint and live-order flags of a point. */
  private flags(point: number): number {
    let flags = this.prepared.deltas.has(point) ? ENDPOINT : 0;
    const o = this.order(point);
    if (o !== undefined && (o.sellingX > 0n || o.sellingY > 0n)) flags |= ORDER;
    return flags;
  }

  /** The nearest flagged point at or left of `point`, or null when it would be below `low`. */
  private nearestLeft(point: number, low: number): number | null {
    const marked = this.prepared.marked;
    for (let i = upperBound(marked, point) - 1; i >= 0; i--) {
      const p = marked[i] as number;
      if (p < low) return null;
      if (this.flags(p) !== 0) return p;
    }
    return null;
  }

  /** The nearest flagged point right of `point`, or the right end. */
  private nearestRight(point: number): number {
    const marked = this.prepared.marked;
    for (let i = upperBound(marked, point); i < marked.length; i++) {
      const p = marked[i] as number;
      if (this.flags(p) !== 0) return p;
    }
    return RIGHT_MOST_POINT;
  }

  private moveTo(point: number): void {
    this.range = { ...this.range, point, sqrtPrice: getSqrtPrice(point), liquidityX: 0n };
  }

  private apply(r: RangeResult): void {
    this.range = { ...this.range, point: r.finalPoint, sqrtPrice: r.sqrtFinalPrice, liquidityX: r.liquidityX };
  }

  private addLiquidityDelta(delta: bigint): void {
    const liquidity = this.range.liquidity + delta;
    if (liquidity < 0n || liquidity >= 1n << 128n) throw new DclMathError('E203: liquidity overflow');
    this.range = { ...this.range, liquidity };
  }

  private crossLeftwards(): void {
    this.addLiquidityDelta(-(this.prepared.deltas.get(this.range.point) ?? 0n));
    this.moveTo(this.range.point - 1);
  }

  private crossRightwards(point: number): void {
    this.addLiquidityDelta(this.prepared.deltas.get(point) ?? 0n);
  }

  private amountNoFee(amount: bigint): bigint {
    return mulDivFloor(amount, FEE_DENOMINATOR - this.fee, FEE_DENOMINATOR);
  }

  private exactInFee(amount: bigint, cost: bigint, amountNoFee: bigint): bigint {
    return cost >= amountNoFee ? amount - cost : this.exactOutFee(cost);
  }

  private exactOutFee(cost: bigint): bigint {
    return mulDivCeil(cost, this.fee, FEE_DENOMINATOR - this.fee);
  }

  private pay(cost: bigint, fee: bigint): void {
    this.paid += cost + fee;
    this.feePaid += fee;
  }

  private setOrder(point: number, sellingX: bigint, sellingY: bigint): void {
    this.filled.set(point, { point, sellingX, sellingY });
  }

  // ---- exact in ----

  /** pool.rs:193: swaps down to `left` (inclusive). Returns [finished, paid incl. fee, acquired]. */
  private x2yRangeStep(left: number, amount: bigint): [boolean, bigint, bigint] {
    const amountNoFee = this.amountNoFee(amount);
    if (amountNoFee === 0n) return [true, 0n, 0n];
    if (this.range.liquidity === 0n) {
      if (this.range.point !== left) this.moveTo(left);
      return [false, 0n, 0n];
    }
    const r = x2yRange(this.range, left, amountNoFee);
    const fee = this.exactInFee(amount, r.cost, amountNoFee);
    this.pay(r.cost, fee);
    this.acquired += r.acquire;
    this.apply(r);
    return [r.finished, r.cost + fee, r.acquire];
  }

  /** swapX2Y: sells X while the price moves down to `low`. */
  swapX2Y(amount: bigint, low: number): void {
    while (low <= this.range.point) {
      const flags = this.flags(this.range.point);
      if ((flags & ORDER) !== 0) {
        const amountNoFee = this.amountNoFee(amount);
        if (amountNoFee === 0n) return;
        const point = this.range.point;
        const o = this.order(point) as DclPointOrder;
        const [cost, acquire] = x2yAtPrice(amountNoFee, this.range.sqrtPrice, o.sellingY);
        const finished = acquire < o.sellingY || cost >= amountNoFee;
        const fee = this.exactInFee(amount, cost, amountNoFee);
        this.pay(cost, fee);
        this.acquired += acquire;
        this.setOrder(point, o.sellingX, o.sellingY - acquire);
        if (finished) return;
        amount -= cost + fee;
      }
      let searchStart: number;
      if ((flags & ENDPOINT) !== 0) {
        const [finished, paid] = this.x2yRangeStep(this.range.point, amount);
        if (finished) return;
        this.crossLeftwards();
        if (this.range.point < low) return this.ranOut();
        amount -= paid;
        if (this.flags(this.range.point) !== 0) continue;
        searchStart = this.range.point;
      } else {
        searchStart = this.range.point - 1;
      }
      const next = this.nearestLeft(searchStart, low);
      // The range step stops right above an order point: the order fills before that point's liquidity.
      const stopsAboveOrder = next !== null && (this.flags(next) & ORDER) !== 0;
      const left = next === null ? low : stopsAboveOrder ? next + 1 : next;
      const [finished, paid] = this.x2yRangeStep(left, amount);
      if (finished) return;
      if (this.range.point <= low) return this.ranOut();
      amount -= paid;
      if (stopsAboveOrder) this.moveTo(this.range.point - 1);
    }
    this.ranOut();
  }

  /** swapY2X: sells Y while the price moves up to `high` (exclusive). */
  swapY2X(amount: bigint, high: number): void {
    let flags = this.flags(this.range.point);
    while (this.range.point < high) {
      if ((flags & ORDER) !== 0) {
        const amountNoFee = this.amountNoFee(amount);
        if (amountNoFee === 0n) return;
        const point = this.range.point;
        const o = this.order(point) as DclPointOrder;
        const [cost, acquire] = y2xAtPrice(amountNoFee, this.range.sqrtPrice, o.sellingX);
        const finished = acquire < o.sellingX || cost >= amountNoFee;
        const fee = this.exactInFee(amount, cost, amountNoFee);
        this.pay(cost, fee);
        this.acquired += acquire;
        this.setOrder(point, o.sellingX - acquire, o.sellingY);
        if (finished) return;
        amount -= cost + fee;
      }
      const found = this.nearestRight(this.range.point);
      const [nextPoint, nextFlags] = found > high ? [high, 0] : [found, this.flags(found)];
      if (this.range.liquidity === 0n) {
        this.range = { ...this.range, point: nextPoint, sqrtPrice: getSqrtPrice(nextPoint) };
        if ((nextFlags & ENDPOINT) !== 0) {
          this.crossRightwards(nextPoint);
          this.range = { ...this.range, liquidityX: this.range.liquidity };
        }
        flags = nextFlags;
        continue;
      }
      const amountNoFee = this.amountNoFee(amount);
      if (amountNoFee === 0n) return;
      const r = y2xRange(this.range, nextPoint, amountNoFee);
      const fee = this.exactInFee(amount, r.cost, amountNoFee);
      this.pay(r.cost, fee);
      this.acquired += r.acquire;
      amount -= r.cost + fee;
      this.apply(r);
      if (this.range.point === nextPoint) {
        if ((nextFlags & ENDPOINT) !== 0) this.crossRightwards(nextPoint);
        this.range = { ...this.range, liquidityX: this.range.liquidity };
        flags = nextFlags;
      } else {
        flags = 0;
      }
      if (r.finished) return;
    }
    this.ranOut();
  }

  // ---- exact out ----

  /** pool.rs:558: buys up to `desire` down to `left` (inclusive). Returns [finished, acquired]. */
  private x2yDesireRangeStep(left: number, desire: bigint): [boolean, bigint] {
    if (desire === 0n) return [true, 0n];
    if (this.range.liquidity === 0n) {
      if (this.range.point !== left) this.moveTo(left);
      return [false, 0n];
    }
    const r = x2yRangeDesire(this.range, left, desire);
    this.pay(r.cost, this.exactOutFee(r.cost));
    this.acquired += r.acquire;
    this.apply(r);
    return [r.finished, r.acquire];
  }

  /** swapX2YDesireY: buys `desire` of Y while the price moves down. */
  swapX2YDesireY(desire: bigint): void {
    const low = LEFT_MOST_POINT;
    while (low <= this.range.point) {
      const flags = this.flags(this.range.point);
      if ((flags & ORDER) !== 0) {
        const point = this.range.point;
        const o = this.order(point) as DclPointOrder;
        const [cost, acquire] = x2yAtPriceDesire(desire, this.range.sqrtPrice, o.sellingY);
        this.pay(cost, this.exactOutFee(cost));
        this.acquired += acquire;
        this.setOrder(point, o.sellingX, o.sellingY - acquire);
        if (acquire >= desire) return;
        desire -= acquire;
      }
      let searchStart: number;
      if ((flags & ENDPOINT) !== 0) {
        const [finished, acquire] = this.x2yDesireRangeStep(this.range.point, desire);
        desire -= acquire < desire ? acquire : desire;
        if (finished) return;
        this.crossLeftwards();
        if (this.range.point < low) return this.ranOut();
        if (this.flags(this.range.point) !== 0) continue;
        searchStart = this.range.point;
      } else {
        searchStart = this.range.point - 1;
      }
      const next = this.nearestLeft(searchStart, low);
      const stopsAboveOrder = next !== null && (this.flags(next) & ORDER) !== 0;
      const left = next === null ? low : stopsAboveOrder ? next + 1 : next;
      const [finished, acquire] = this.x2yDesireRangeStep(left, desire);
      desire -= acquire < desire ? acquire : desire;
      if (finished) return;
      if (this.range.point <= low) return this.ranOut();
      if (stopsAboveOrder) this.moveTo(this.range.point - 1);
    }
    this.ranOut();
  }

  /** swapY2XDesireX: buys `desire` of X while the price moves up. */
  swapY2XDesireX(desire: bigint): void {
    const high = RIGHT_MOST_POINT;
    let flags = this.flags(this.range.point);
    while (this.range.point < high) {
      if ((flags & ORDER) !== 0) {
        const point = this.range.point;
        const o = this.order(point) as DclPointOrder;
        const [cost, acquire] = y2xAtPriceDesire(desire, this.range.sqrtPrice, o.sellingX);
        this.pay(cost, this.exactOutFee(cost));
        this.acquired += acquire;
        this.setOrder(point, o.sellingX - acquire, o.sellingY);
        if (acquire >= desire) return;
        desire -= acquire;
      }
      const found = this.nearestRight(this.range.point);
      const [nextPoint, nextFlags] = found > high ? [high, 0] : [found, this.flags(found)];
      if (this.range.liquidity === 0n) {
        this.range = { ...this.range, point: nextPoint, sqrtPrice: getSqrtPrice(nextPoint) };
        if ((nextFlags & ENDPOINT) !== 0) {
          this.crossRightwards(nextPoint);
          this.range = { ...this.range, liquidityX: this.range.liquidity };
        }
        flags = nextFlags;
        continue;
      }
      if (desire === 0n) return;
      const r = y2xRangeDesire(this.range, nextPoint, desire);
      this.pay(r.cost, this.exactOutFee(r.cost));
      this.acquired += r.acquire;
      desire -= r.acquire < desire ? r.acquire : desire;
      this.apply(r);
      if (this.range.point === nextPoint) {
        if ((nextFlags & ENDPOINT) !== 0) this.crossRightwards(nextPoint);
        this.range = { ...this.range, liquidityX: this.range.liquidity };
        flags = nextFlags;
      } else {
        flags = 0;
      }
      if (r.finished) return;
    }
    this.ranOut();
  }

  private ranOut(): void {
    this.complete = false;
  }
}
