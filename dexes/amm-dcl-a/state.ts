// AmmDclA pool state (Ref DCL, `dclv2.ref-labs.near`) and the changes liquidity and limit orders make to it.
// Pure. The contract's storage layout is not public, so this state is kept from the contract's events (started from
// its views at a bootstrap, bootstrap.ts): the pool book below is the previous state the decoder needs; see README.md.

import type { PoolStateCommon } from '../events.ts';
import { getAmountX, getAmountY, getSqrtPrice, LEFT_MOST_POINT, POW96, RIGHT_MOST_POINT } from './range-math.ts';

/** Fee tiers of the contract, millionths of the input (near-facts.md; ref-sdk `DCL_POOL_FEE_LIST`). */
export const DCL_FEE_TIERS: readonly number[] = [100, 400, 2000, 10_000];

/** A liquidity endpoint: what crossing it from left to right adds to the current liquidity (iZiSwap `Point`). */
export interface DclPointLiquidity {
  point: number;
  /** Liquidity of every range that ends here; the point is an endpoint while this is above 0. A lower bound when
   * `sumAtLeast` is set. */
  liquiditySum: bigint;
  /** Liquidity added when the price crosses the point moving right (removed moving left). */
  liquidityDelta: bigint;
  /** Only a lower bound of the sum is known: the point was read from the contract's views at a bootstrap, which give
   * its net delta, not its sum (bootstrap.ts). */
  sumAtLeast?: true;
}

/** The limit orders resting at a point, in the token each sells. */
export interface DclPointOrder {
  point: number;
  sellingX: bigint;
  sellingY: bigint;
}

/** How the last swap the decoder re-simulated compared with what the contract logged. */
export interface DclSwapCheck {
  receiptId: string;
  /** `exact_in` (event `swap`): amountOut is compared; `exact_out` (`swap_desire`): amountIn is. */
  mode: 'exact_in' | 'exact_out';
  logged: bigint;
  /** null when the simulation threw (the contract would have panicked) or ran out of liquidity. */
  simulated: bigint | null;
  matched: boolean;
}

export interface DclPoolState extends PoolStateCommon {
  kind: 'dcl';
  /** `token_x|token_y|fee`. */
  poolId: string;
  /** [token_x, token_y], sorted (the pool id's order). */
  tokens: [string, string];
  /**
   * [x, y]: what the ranges' liquidity and the limit orders hold at the current price (amounts rounded down).
   * Not the contract's balance: fees owed to providers and the protocol are not in it.
   */
  amounts: [bigint, bigint];
  /** Fee in millionths of the input (100, 400, 2000 or 10000). */
  totalFee: number;
  pointDelta: number;
  currentPoint: number;
  /** sqrt(1.0001^currentPoint) in Q96, as the contract's swaps leave it. */
  sqrtPrice96: bigint;
  /** Liquidity at the current point, and the part of it that is token X. */
  liquidity: bigint;
  liquidityX: bigint;
  /** Endpoints, sorted by point. */
  points: DclPointLiquidity[];
  /** Points with resting orders, sorted by point; empty orders are dropped. */
  orders: DclPointOrder[];
  /** The last re-simulated swap of this pool; null before any. */
  lastSwapCheck: DclSwapCheck | null;
  /** Swaps (and order-placing swaps) since the state was seeded whose simulation did not match the log. */
  unmatchedSwaps: number;
  /** Changes the decoder could not apply exactly since seeding (e.g. a merge of unknown positions): when above
   * 0 the state is an approximation and should be re-imported. */
  unappliedChanges: number;
}

export interface NewDclPool {
  poolId: string;
  tokenX: string;
  tokenY: string;
  fee: number;
  pointDelta: number;
  currentPoint: number;
}

/** A pool without liquidity at `currentPoint` (what the contract's `create_pool` makes). */
export function newDclPoolState(p: NewDclPool): DclPoolState {
  return {
    kind: 'dcl',
    poolId: p.poolId,
    tokens: [p.tokenX, p.tokenY],
    amounts: [0n, 0n],
    totalFee: p.fee,
    pointDelta: p.pointDelta,
    currentPoint: p.currentPoint,
    sqrtPrice96: getSqrtPrice(p.currentPoint),
    liquidity: 0n,
    liquidityX: 0n,
    points: [],
    orders: [],
    lastSwapCheck: null,
    unmatchedSwaps: 0,
    unappliedChanges: 0,
  };
}

/** The tokens and fee of a pool id `token_x|token_y|fee`, or null when it is not one. */
export function parseDclPoolId(poolId: string): { tokenX: string; tokenY: string; fee: number } | null {
  const parts = poolId.split('|');
  if (parts.length !== 3) return null;
  const [tokenX, tokenY, feeText] = parts as [string, string, string];
  if (tokenX === '' || tokenY === '' || !/^\d{1,7}$/.test(feeText)) return null;
  return { tokenX, tokenY, fee: Number(feeText) };
}

// ---- liquidity and orders ----

function checkRange(left: number, right: number): void {
  if (!Number.isInteger(left) || !Number.isInteger(right) || left >= right || left < LEFT_MOST_POINT || right > RIGHT_MOST_POINT) {
    throw new RangeError(`AmmDclA: bad liquidity range [${left}, ${right})`);
  }
}

function withEndpoint(points: DclPointLiquidity[], point: number, sumChange: bigint, deltaChange: bigint): DclPointLiquidity[] {
  const next = points.slice();
  const i = next.findIndex((p) => p.point >= point);
  const at = i === -1 ? next.length : i;
  const old = next[at]?.point === point ? next[at] : undefined;
  let liquiditySum = (old?.liquiditySum ?? 0n) + sumChange;
  const liquidityDelta = (old?.liquidityDelta ?? 0n) + deltaChange;
  let replacement: DclPointLiquidity[];
  if (old?.sumAtLeast) {
    // Only a floor of the sum is known: the sum is at least the net delta's size, and the point is taken as gone
    // when both reach 0 (wrong only where ranges of exactly equal liquidity still start and end here).
    const size = liquidityDelta < 0n ? -liquidityDelta : liquidityDelta;
    if (liquiditySum < size) liquiditySum = size;
    replacement = liquiditySum > 0n ? [{ point, liquiditySum, liquidityDelta, sumAtLeast: true }] : [];
  } else {
    if (liquiditySum < 0n) throw new RangeError(`AmmDclA: liquidity at point ${point} would go negative`);
    replacement = liquiditySum === 0n ? [] : [{ point, liquiditySum, liquidityDelta }];
  }
  next.splice(at, old === undefined ? 0 : 1, ...replacement);
  return next;
}

/**
 * Liquidity `amount` added over [left, right) (iZiSwap `mint`, liquidity.sol): both endpoints change, and when
 * the range covers the current point the current liquidity grows; the deposit at that point is all Y, so
 * liquidityX does not change.
 */
export function addLiquidity(state: DclPoolState, left: number, right: number, amount: bigint): DclPoolState {
  checkRange(left, right);
  if (amount <= 0n) return state;
  let points = withEndpoint(state.points, left, amount, amount);
  points = withEndpoint(points, right, amount, -amount);
  const covers = left <= state.currentPoint && state.currentPoint < right;
  return withReserves({ ...state, points, liquidity: covers ? state.liquidity + amount : state.liquidity });
}

/**
 * Liquidity `amount` removed from [left, right) (iZiSwap `burn`): at the current point the Y part is withdrawn
 * first, the rest from liquidityX.
 */
export function removeLiquidity(state: DclPoolState, left: number, right: number, amount: bigint): DclPoolState {
  checkRange(left, right);
  if (amount <= 0n) return state;
  let points = withEndpoint(state.points, left, -amount, -amount);
  points = withEndpoint(points, right, -amount, amount);
  let { liquidity, liquidityX } = state;
  if (left <= state.currentPoint && state.currentPoint < right) {
    if (amount > liquidity) throw new RangeError(`AmmDclA: removing ${amount} from liquidity ${liquidity}`);
    const liquidityY = liquidity - liquidityX;
    const withdrawnY = liquidityY < amount ? liquidityY : amount;
    liquidityX -= amount - withdrawnY;
    liquidity -= amount;
  }
  return withReserves({ ...state, points, liquidity, liquidityX });
}

/** Orders at `point` changed by `changeX` / `changeY` (placed: positive; cancelled: negative, clamped at 0). */
export function changeOrders(state: DclPoolState, point: number, changeX: bigint, changeY: bigint): DclPoolState {
  const orders = withOrder(state.orders, point, (o) => ({
    point,
    sellingX: clampAtZero(o.sellingX + changeX),
    sellingY: clampAtZero(o.sellingY + changeY),
  }));
  return withReserves({ ...state, orders });
}

const clampAtZero = (v: bigint): bigint => (v < 0n ? 0n : v);

/** The orders with the one at `point` replaced by `update(old)`; empty orders are dropped. */
export function withOrder(orders: readonly DclPointOrder[], point: number, update: (old: DclPointOrder) => DclPointOrder): DclPointOrder[] {
  const next = orders.slice();
  const i = next.findIndex((o) => o.point >= point);
  const at = i === -1 ? next.length : i;
  const old = next[at]?.point === point ? next[at] : undefined;
  const updated = update(old ?? { point, sellingX: 0n, sellingY: 0n });
  const replacement = updated.sellingX === 0n && updated.sellingY === 0n ? [] : [updated];
  next.splice(at, old === undefined ? 0 : 1, ...replacement);
  return next;
}

// ---- reserves ----

/** The state with `amounts` recomputed from its ranges and orders. */
export function withReserves(state: DclPoolState): DclPoolState {
  return { ...state, amounts: poolReserves(state) };
}

/**
 * [x, y] held by the pool's liquidity and orders at the current price, rounded down: every range right of the
 * current point is all X, left of it all Y, and the current point holds liquidityX as X and the rest as Y.
 */
export function poolReserves(state: DclPoolState): [bigint, bigint] {
  let x = 0n;
  let y = 0n;
  for (const o of state.orders) {
    x += o.sellingX;
    y += o.sellingY;
  }
  const cp = state.currentPoint;
  let liquidity = 0n;
  let left = LEFT_MOST_POINT;
  for (const p of [...state.points, { point: RIGHT_MOST_POINT, liquiditySum: 0n, liquidityDelta: 0n }]) {
    const right = p.point;
    if (liquidity > 0n && right > left) {
      // Segment [left, right) of constant liquidity.
      if (right <= cp) {
        y += getAmountY(liquidity, getSqrtPrice(left), getSqrtPrice(right), false);
      } else if (left > cp) {
        x += getAmountX(liquidity, left, right, getSqrtPrice(right), false);
      } else {
        if (left < cp) y += getAmountY(liquidity, getSqrtPrice(left), getSqrtPrice(cp), false);
        if (cp + 1 < right) x += getAmountX(liquidity, cp + 1, right, getSqrtPrice(right), false);
      }
    }
    liquidity += p.liquidityDelta;
    left = right;
  }
  // The current point itself, with the state's own liquidity split (iZiSwap liquidity.sol _computeWithdrawXY).
  if (state.liquidity > 0n) {
    x += (state.liquidityX * POW96) / state.sqrtPrice96;
    y += ((state.liquidity - state.liquidityX) * state.sqrtPrice96) / POW96;
  }
  return [x, y];
}

// ---- the pool book ----

/** A liquidity position (`lpt_id`), enough to undo it when a later merge names it. */
export interface DclPosition {
  poolId: string;
  left: number;
  right: number;
  liquidity: bigint;
}

/**
 * The previous state the decoder needs, updated in place as blocks are decoded: pool states by pool id, and the
 * positions seen in liquidity events by `lpt_id`. The indexer seeds `pools` from its `pools` table (AmmDclA rows,
 * `dclPoolStateFromJson(row.state)`) before decoding the block after its checkpoint; a pool that is not in the
 * book gets its swap and liquidity events but no state until it is imported. `positions` may start empty: a
 * merge that names a position the book does not know marks its pool inexact (`unappliedChanges`).
 */
export interface DclPoolBook {
  pools: Map<string, DclPoolState>;
  positions: Map<string, DclPosition>;
}

export function newDclPoolBook(states: Iterable<DclPoolState> = []): DclPoolBook {
  const pools = new Map<string, DclPoolState>();
  for (const s of states) pools.set(s.poolId, s);
  return { pools, positions: new Map() };
}

// ---- JSON (the `pools.state` column keeps amounts as decimal strings) ----

/** A DclPoolState back from its JSON form (bigints written as decimal strings). Throws on anything else. */
export function dclPoolStateFromJson(json: unknown): DclPoolState {
  const o = asObject(json, 'state');
  if (o.kind !== 'dcl') throw new TypeError(`AmmDclA state: kind ${String(o.kind)} is not dcl`);
  const tokens = asArray(o.tokens, 'tokens').map((t) => asString(t, 'tokens[]'));
  const amounts = asArray(o.amounts, 'amounts').map((a) => asBig(a, 'amounts[]'));
  if (tokens.length !== 2 || amounts.length !== 2) throw new TypeError('AmmDclA state: tokens and amounts must have 2 items');
  const check = o.lastSwapCheck === null || o.lastSwapCheck === undefined ? null : asObject(o.lastSwapCheck, 'lastSwapCheck');
  return {
    kind: 'dcl',
    poolId: asString(o.poolId, 'poolId'),
    tokens: [tokens[0] as string, tokens[1] as string],
    amounts: [amounts[0] as bigint, amounts[1] as bigint],
    totalFee: asInt(o.totalFee, 'totalFee'),
    pointDelta: asInt(o.pointDelta, 'pointDelta'),
    currentPoint: asInt(o.currentPoint, 'currentPoint'),
    sqrtPrice96: asBig(o.sqrtPrice96, 'sqrtPrice96'),
    liquidity: asBig(o.liquidity, 'liquidity'),
    liquidityX: asBig(o.liquidityX, 'liquidityX'),
    points: asArray(o.points, 'points').map((p) => {
      const q = asObject(p, 'points[]');
      const point: DclPointLiquidity = { point: asInt(q.point, 'point'), liquiditySum: asBig(q.liquiditySum, 'liquiditySum'), liquidityDelta: asBig(q.liquidityDelta, 'liquidityDelta', true) };
      if (q.sumAtLeast === true) point.sumAtLeast = true;
      return point;
    }),
    orders: asArray(o.orders, 'orders').map((p) => {
      const q = asObject(p, 'orders[]');
      return { point: asInt(q.point, 'point'), sellingX: asBig(q.sellingX, 'sellingX'), sellingY: asBig(q.sellingY, 'sellingY') };
    }),
    lastSwapCheck:
      check === null
        ? null
        : {
            receiptId: asString(check.receiptId, 'receiptId'),
            mode: check.mode === 'exact_out' ? 'exact_out' : 'exact_in',
            logged: asBig(check.logged, 'logged'),
            simulated: check.simulated === null ? null : asBig(check.simulated, 'simulated'),
            matched: check.matched === true,
          },
    unmatchedSwaps: asInt(o.unmatchedSwaps ?? 0, 'unmatchedSwaps'),
    unappliedChanges: asInt(o.unappliedChanges ?? 0, 'unappliedChanges'),
  };
}

function asObject(v: unknown, what: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new TypeError(`AmmDclA state: ${what} is not an object`);
  return v as Record<string, unknown>;
}

function asArray(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new TypeError(`AmmDclA state: ${what} is not an array`);
  return v;
}

function asString(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new TypeError(`AmmDclA state: ${what} is not a string`);
  return v;
}

function asInt(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new TypeError(`AmmDclA state: ${what} is not an integer`);
  return v;
}

function asBig(v: unknown, what: string, signed = false): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'string' && (signed ? /^-?\d{1,80}$/ : /^\d{1,80}$/).test(v)) return BigInt(v);
  throw new TypeError(`AmmDclA state: ${what} is not an integer string`);
}
