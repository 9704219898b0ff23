// The NEP-297 events of Ref DCL (`dclv2.ref-labs.near`, standard `dcl.ref`, version 1.0.0) that change pool state,
// parsed from log lines. Names and fields follow the contract's own `Event` enum (serde `tag = "event"`,
// `content = "data"`, snake_case; `emit()` logs one item per line: `"data": [ {...} ]`), seen in a public copy of
// its `events.rs`; amounts are U128 decimal strings, points are i32 numbers. Other events of the standard
// (`lostfound`, `claim_charged_fee`, storage and `hot_zap` events) change no pool and are ignored.
// Pure; never throws on contract-controlled text: a line that does not parse exactly gives nothing.

import type { PoolStateEvent } from '../events.ts';
import { parseEventLog } from '../../near/nep297.ts';
import { parseU128 } from '../../near/units.ts';
import type { DclPoolState } from './state.ts';

export const AMM_DCL_A_DEX_ID = 'AmmDclA';
export const DCL_EVENT_STANDARD = 'dcl.ref';

/** A pool state event of AmmDclA (source `event`: kept from the contract's events, see README.md). */
export type AmmDclAPoolStateEvent = PoolStateEvent<DclPoolState>;

/** `swap` (exact input) or `swap_desire` (exact output, `SwapByOutput`): one pool hop. */
export interface DclSwapLog {
  event: 'swap' | 'swap_desire';
  swapper: string;
  tokenIn: string;
  tokenOut: string;
  /** Paid, fee included (?). */
  amountIn: bigint;
  amountOut: bigint;
  poolId: string;
  /** Fee in the input token. */
  totalFee: bigint;
  /** The protocol's part of totalFee. */
  protocolFee: bigint;
}

interface DclLiquidityBase {
  lptId: string;
  ownerId: string;
  poolId: string;
  leftPoint: number;
  rightPoint: number;
  /** The position's liquidity after the event. */
  curAmount: bigint;
}

/** A new position (`liquidity_added`) or more liquidity in one (`liquidity_append`). */
export interface DclLiquidityAddLog extends DclLiquidityBase {
  event: 'liquidity_added' | 'liquidity_append';
  addedAmount: bigint;
  paidTokenX: bigint;
  paidTokenY: bigint;
}

export interface DclLiquidityRemoveLog extends DclLiquidityBase {
  event: 'liquidity_removed';
  removedAmount: bigint;
  refundTokenX: bigint;
  refundTokenY: bigint;
}

/** Positions `mergeLptIds` removed and their tokens added to position `lptId` (range left..right). */
export interface DclLiquidityMergeLog extends DclLiquidityBase {
  event: 'liquidity_merge';
  /** The contract logs them as one string; split on commas (?). */
  mergeLptIds: string[];
  addedAmount: bigint;
  removeTokenX: bigint;
  removeTokenY: bigint;
  mergeTokenX: bigint;
  mergeTokenY: bigint;
}

/** A limit order placed at `point`: `originalAmount` of `sellToken` rests there; when the deposit was placed
 * across the current price, `originalDepositAmount - originalAmount` was swapped first for `swapEarnAmount` (?). */
export interface DclOrderAddLog {
  event: 'order_added';
  orderId: string;
  ownerId: string;
  poolId: string;
  point: number;
  sellToken: string;
  buyToken: string;
  originalAmount: bigint;
  originalDepositAmount: bigint;
  swapEarnAmount: bigint;
}

/** `actualCancelAmount` of the order's unsold `sellToken` taken out of `point`. */
export interface DclOrderCancelLog {
  event: 'order_cancelled';
  orderId: string;
  ownerId: string;
  poolId: string;
  point: number;
  sellToken: string;
  buyToken: string;
  actualCancelAmount: bigint;
}

/**
 * A successful `create_pool {token_a, token_b, fee, init_point}` call (not an event: the contract logs none for it).
 * The pool id sorts the tokens; `init_point` is taken as the point of that sorted pool (?).
 */
export interface DclPoolCreatedLog {
  event: 'pool_created';
  poolId: string;
  tokenX: string;
  tokenY: string;
  fee: number;
  currentPoint: number;
}

/** Point spacing per fee tier (iZiSwap's table, which Ref DCL keeps). */
export const DCL_POINT_DELTA: Readonly<Record<number, number>> = { 100: 1, 400: 8, 2000: 40, 10_000: 200 };

/** The `create_pool` call of an action, or null when the args are not a pool of a known fee tier. */
export function parseCreatePool(args: Record<string, unknown> | null): DclPoolCreatedLog | null {
  if (args === null) return null;
  const { token_a: a, token_b: b, fee, init_point: point } = args;
  if (typeof a !== 'string' || typeof b !== 'string' || a === b || typeof fee !== 'number' || DCL_POINT_DELTA[fee] === undefined) return null;
  if (typeof point !== 'number' || !Number.isInteger(point) || Math.abs(point) > 800_000) return null;
  const [tokenX, tokenY] = a < b ? [a, b] : [b, a];
  return { event: 'pool_created', poolId: `${tokenX}|${tokenY}|${fee}`, tokenX, tokenY, fee, currentPoint: point };
}

export type DclLog =
  | DclPoolCreatedLog
  | DclSwapLog
  | DclLiquidityAddLog
  | DclLiquidityRemoveLog
  | DclLiquidityMergeLog
  | DclOrderAddLog
  | DclOrderCancelLog;


/** The pool-changing `dcl.ref` items of one log line, in order; [] for anything else or anything malformed. */
export function parseDclLogLine(line: string): DclLog[] {
  const parsed = parseEventLog(line, DCL_EVENT_STANDARD);
  if (parsed === null || parsed.standard !== DCL_EVENT_STANDARD || !Array.isArray(parsed.data)) return [];
  const name = parsed.event;
  const items: DclLog[] = [];
  // All items or none: a half-valid event is a changed contract, not a partial swap.
  for (const item of parsed.data) {
    if (!isObject(item)) return [];
    const log = parseItem(name, item);
    if (log === undefined) return [];
    if (log !== null) items.push(log);
  }
  return items;
}

/** null: an event this decoder does not need; undefined: malformed. */
function parseItem(name: unknown, o: Record<string, unknown>): DclLog | null | undefined {
  switch (name) {
    case 'swap':
    case 'swap_desire': {
      const [amountIn, amountOut, totalFee, protocolFee] = amounts(o, 'amount_in', 'amount_out', 'total_fee', 'protocol_fee');
      const [swapper, tokenIn, tokenOut, poolId] = strings(o, 'swapper', 'token_in', 'token_out', 'pool_id');
      if (amountIn === undefined || amountOut === undefined || totalFee === undefined || protocolFee === undefined) return undefined;
      if (swapper === undefined || tokenIn === undefined || tokenOut === undefined || poolId === undefined) return undefined;
      return { event: name, swapper, tokenIn, tokenOut, amountIn, amountOut, poolId, totalFee, protocolFee };
    }
    case 'liquidity_added':
    case 'liquidity_append': {
      const base = liquidityBase(o);
      const [addedAmount, paidTokenX, paidTokenY] = amounts(o, 'added_amount', 'paid_token_x', 'paid_token_y');
      if (base === undefined || addedAmount === undefined || paidTokenX === undefined || paidTokenY === undefined) return undefined;
      return { event: name, ...base, addedAmount, paidTokenX, paidTokenY };
    }
    case 'liquidity_removed': {
      const base = liquidityBase(o);
      const [removedAmount, refundTokenX, refundTokenY] = amounts(o, 'removed_amount', 'refund_token_x', 'refund_token_y');
      if (base === undefined || removedAmount === undefined || refundTokenX === undefined || refundTokenY === undefined) return undefined;
      return { event: name, ...base, removedAmount, refundTokenX, refundTokenY };
    }
    case 'liquidity_merge': {
      const base = liquidityBase(o);
      const [addedAmount, removeTokenX, removeTokenY, mergeTokenX, mergeTokenY] = amounts(
        o,
        'added_amount',
        'remove_token_x',
        'remove_token_y',
        'merge_token_x',
        'merge_token_y',
      );
      const [ids] = strings(o, 'merge_lpt_ids');
      if (base === undefined || ids === undefined || addedAmount === undefined) return undefined;
      if (removeTokenX === undefined || removeTokenY === undefined || mergeTokenX === undefined || mergeTokenY === undefined) return undefined;
      const mergeLptIds = ids.split(',').map((s) => s.trim()).filter((s) => s !== '');
      return { event: name, ...base, mergeLptIds, addedAmount, removeTokenX, removeTokenY, mergeTokenX, mergeTokenY };
    }
    case 'order_added': {
      const [orderId, ownerId, poolId, sellToken, buyToken] = strings(o, 'order_id', 'owner_id', 'pool_id', 'sell_token', 'buy_token');
      const [originalAmount, originalDepositAmount, swapEarnAmount] = amounts(o, 'original_amount', 'original_deposit_amount', 'swap_earn_amount');
      const point = i32(o.point);
      if (orderId === undefined || ownerId === undefined || poolId === undefined || sellToken === undefined || buyToken === undefined) return undefined;
      if (originalAmount === undefined || originalDepositAmount === undefined || swapEarnAmount === undefined || point === undefined) return undefined;
      return { event: name, orderId, ownerId, poolId, point, sellToken, buyToken, originalAmount, originalDepositAmount, swapEarnAmount };
    }
    case 'order_cancelled': {
      const [orderId, ownerId, poolId, sellToken, buyToken] = strings(o, 'order_id', 'owner_id', 'pool_id', 'sell_token', 'buy_token');
      const [actualCancelAmount] = amounts(o, 'actual_cancel_amount');
      const point = i32(o.point);
      if (orderId === undefined || ownerId === undefined || poolId === undefined || sellToken === undefined || buyToken === undefined) return undefined;
      if (actualCancelAmount === undefined || point === undefined) return undefined;
      return { event: name, orderId, ownerId, poolId, point, sellToken, buyToken, actualCancelAmount };
    }
    default:
      // order_completed (the order was filled by swaps the decoder already simulated), lostfound, fees, storage.
      return null;
  }
}

function liquidityBase(o: Record<string, unknown>): DclLiquidityBase | undefined {
  const [lptId, ownerId, poolId] = strings(o, 'lpt_id', 'owner_id', 'pool_id');
  const [curAmount] = amounts(o, 'cur_amount');
  const leftPoint = i32(o.left_point);
  const rightPoint = i32(o.right_point);
  if (lptId === undefined || ownerId === undefined || poolId === undefined || curAmount === undefined) return undefined;
  if (leftPoint === undefined || rightPoint === undefined || leftPoint >= rightPoint) return undefined;
  return { lptId, ownerId, poolId, leftPoint, rightPoint, curAmount };
}

function amounts(o: Record<string, unknown>, ...keys: string[]): Array<bigint | undefined> {
  return keys.map((k) => parseU128(o[k]) ?? undefined);
}

function strings(o: Record<string, unknown>, ...keys: string[]): Array<string | undefined> {
  return keys.map((k) => {
    const v = o[k];
    return typeof v === 'string' && v !== '' ? v : undefined;
  });
}

function i32(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31 ? v : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
