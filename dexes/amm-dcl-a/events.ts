// The log lines of Ref DCL (`dclv2.ref-labs.near`, NEP-297 standard `dcl.ref`, version 1.0.0), parsed into typed
// items. Pure; never throws on contract-controlled text. Evidence and grades: README.md "Formats and evidence".
// - Names and fields: the contract's `Event` enum (serde `tag = "event"`, `content = "data"`, snake_case; `emit()`
//   logs one item per line, `"data": [item]`) in a public copy of its source (S); Ref's own indexer
//   (dom-jiang/indexer-helper `backends/near_transaction_task.py`, C) reads the same names, the two `emergency_*`
//   events, and older shapes: `swap` items naming a path (`pool_ids`) and no fees, `liquidity_merge` without
//   `remove_token_*`/`merge_token_*`, `swap_desire` read from `swapper, token_in, token_out, amount_in, amount_out`.
// - Every item is read on its own: an item we cannot read, an event name we do not know, a `dcl.ref` line that is
//   not a well-formed event and any line that is not an `EVENT_JSON:` line becomes an `undecoded` item (the line
//   kept whole). `EVENT_JSON:` lines of other standards are out of scope and give nothing (the source shows no
//   other log line; which other standards the deployed contract logs, if any, is not known).
// - Known events that change no pool (`order_completed`, `lostfound`, `claim_charged_fee`, the user storage
//   events, `hot_zap`) give nothing.
import type { PoolStateEvent } from '../events.ts';
import { EVENT_JSON_PREFIX, parseEventLog } from '../../near/nep297.ts';
import { parseU128 } from '../../near/units.ts';
import { parseDclPoolId, type DclPoolState } from './state.ts';

export const AMM_DCL_A_DEX_ID = 'AmmDclA';
export const DCL_EVENT_STANDARD = 'dcl.ref';

/** A pool state event of AmmDclA (source `event`: kept from the contract's events, see README.md). */
export type AmmDclAPoolStateEvent = PoolStateEvent<DclPoolState>;

/**
 * `swap` (exact input) or `swap_desire` (exact output, `SwapByOutput`). Current items name one pool hop and its
 * fees (8 fields, T); older `swap` items name a path (`pool_ids`) and no fees, and `swap_desire` is read from its
 * five trade fields alone (C).
 */
export interface DclSwapLog {
  event: 'swap' | 'swap_desire';
  swapper: string;
  tokenIn: string;
  tokenOut: string;
  /** Paid, fee included (S: the contract logs the swap's `actual_cost`). */
  amountIn: bigint;
  amountOut: bigint;
  /** The pools the item names: `[pool_id]`, an older item's path `pool_ids`, or none. */
  poolIds: string[];
  /** Fee in the input token; null when the item has none (older items). */
  totalFee: bigint | null;
  /** The protocol's part of totalFee; null when the item has none. */
  protocolFee: bigint | null;
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

/** Liquidity taken out of a position by its owner (`liquidity_removed`) or by the contract's emergency removal
 * (`emergency_liquidity_removed`, the same fields, C). */
export interface DclLiquidityRemoveLog extends DclLiquidityBase {
  event: 'liquidity_removed' | 'emergency_liquidity_removed';
  removedAmount: bigint;
  /** Given back, the position's claimed fees included (S). */
  refundTokenX: bigint;
  refundTokenY: bigint;
}

/** Positions `mergeLptIds` (same owner, pool and range) removed and their tokens added to position `lptId` (S). */
export interface DclLiquidityMergeLog extends DclLiquidityBase {
  event: 'liquidity_merge';
  /** The contract joins them with commas (S). */
  mergeLptIds: string[];
  addedAmount: bigint;
  /** [x, y] the merged positions gave up (`remove_token_*`); null in older items (C). */
  removed: [bigint, bigint] | null;
  /** [x, y] the target position took of them (`merge_token_*`); null in older items (C). */
  merged: [bigint, bigint] | null;
}

/** A limit order placed at `point`: `originalAmount` of `sellToken` rests there. An order placed across the
 * current price first swaps `originalDepositAmount - originalAmount` for `swapEarnAmount`, and that swap is logged
 * as its own `swap` event just before (S). */
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

/** Unsold `sellToken` of an order taken out of `point`: by its owner (`order_cancelled`, `actual_cancel_amount`)
 * or by the contract's emergency cancel (`emergency_order_cancel`, `cancel_amount_this_time`, C). */
export interface DclOrderCancelLog {
  event: 'order_cancelled' | 'emergency_order_cancel';
  orderId: string;
  ownerId: string;
  poolId: string;
  point: number;
  sellToken: string;
  buyToken: string;
  cancelledAmount: bigint;
}

/** A line or item of the contract that we cannot read (see the header), or a successful `create_pool` call whose
 * arguments we cannot read (a pool we cannot model). */
export interface DclUndecodedLog {
  event: 'undecoded';
  input: 'log' | 'args';
  /** The pool the item names (`pool_id`), else null. */
  poolId: string | null;
  reason: string;
  /** The whole log line, or the call's arguments. */
  raw: string;
}

/**
 * A successful `create_pool {token_a, token_b, fee, init_point}` call (not an event: the contract logs none for it).
 * The pool id sorts the tokens; `init_point` is the point of that sorted pool (S: `create_pool`, `PoolId::gen_from`).
 */
export interface DclPoolCreatedLog {
  event: 'pool_created';
  poolId: string;
  tokenX: string;
  tokenY: string;
  fee: number;
  currentPoint: number;
}

/** Point spacing per fee tier (iZiSwap's table; the contract's `fee_tier` map at `new`, S). */
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
  | DclOrderCancelLog
  | DclUndecodedLog;

/** Events of the standard that change no pool (S: the `Event` enum; C: Ref's indexer). */
const IGNORED_EVENTS: ReadonlySet<string> = new Set([
  'order_completed', // the order's fills were swaps, already applied
  'lostfound',
  'claim_charged_fee',
  'append_user_storage',
  'init_user_storage',
  'withdraw_user_storage',
  'unregister_user_storage',
  'hot_zap', // its swaps and liquidity go through the functions that log them (S, as far as predict_hotzap shows)
]);

/** The items of one log line of the contract, in order (see the header); [] for other standards' events. */
export function parseDclLogLine(line: string): DclLog[] {
  const undecoded = (reason: string, poolId: string | null = null): DclUndecodedLog => ({ event: 'undecoded', input: 'log', poolId, reason, raw: line });
  if (!line.startsWith(EVENT_JSON_PREFIX)) return [undecoded('not an EVENT_JSON line')];
  const parsed = parseEventLog(line);
  if (parsed === null) return [undecoded('malformed EVENT_JSON')];
  if (parsed.standard !== DCL_EVENT_STANDARD) return [];
  const name = parsed.event;
  if (!Array.isArray(parsed.data)) return [undecoded(`${name}: data is not an array`)];
  if (parsed.data.length === 0) return [undecoded(`${name}: no item`)]; // emit() always writes one
  const items: DclLog[] = [];
  parsed.data.forEach((item: unknown, i) => {
    if (!isObject(item)) {
      items.push(undecoded(`${name} item ${i} is not an object`));
      return;
    }
    if (IGNORED_EVENTS.has(name)) return;
    const log = parseItem(name, new Fields(item));
    if (typeof log === 'string') items.push(undecoded(`${name} item ${i}: ${log}`, typeof item.pool_id === 'string' ? item.pool_id : null));
    else items.push(log);
  });
  return items;
}

/** The item, or why it cannot be read. */
function parseItem(name: string, f: Fields): DclLog | string {
  switch (name) {
    case 'swap':
    case 'swap_desire': {
      const swap = {
        event: name,
        swapper: f.str('swapper'),
        tokenIn: f.str('token_in'),
        tokenOut: f.str('token_out'),
        amountIn: f.u128('amount_in'),
        amountOut: f.u128('amount_out'),
        poolIds: f.has('pool_id') ? [f.poolId('pool_id')] : f.has('pool_ids') ? f.poolIdList('pool_ids') : [],
        totalFee: f.optionalU128('total_fee'),
        protocolFee: f.optionalU128('protocol_fee'),
      } as const;
      return f.problem() ?? swap;
    }
    case 'liquidity_added':
    case 'liquidity_append': {
      const add = { event: name, ...liquidityBase(f), addedAmount: f.u128('added_amount'), paidTokenX: f.u128('paid_token_x'), paidTokenY: f.u128('paid_token_y') } as const;
      return f.problem() ?? add;
    }
    case 'liquidity_removed':
    case 'emergency_liquidity_removed': {
      const remove = { event: name, ...liquidityBase(f), removedAmount: f.u128('removed_amount'), refundTokenX: f.u128('refund_token_x'), refundTokenY: f.u128('refund_token_y') } as const;
      return f.problem() ?? remove;
    }
    case 'liquidity_merge': {
      const merge = {
        event: name,
        ...liquidityBase(f),
        mergeLptIds: f.str('merge_lpt_ids').split(',').filter((s) => s !== ''),
        addedAmount: f.u128('added_amount'),
        removed: f.optionalPair('remove_token_x', 'remove_token_y'),
        merged: f.optionalPair('merge_token_x', 'merge_token_y'),
      } as const;
      return f.problem() ?? merge;
    }
    case 'order_added': {
      const order = {
        event: name,
        ...orderBase(f),
        originalAmount: f.u128('original_amount'),
        originalDepositAmount: f.u128('original_deposit_amount'),
        swapEarnAmount: f.u128('swap_earn_amount'),
      } as const;
      return f.problem() ?? order;
    }
    case 'order_cancelled':
    case 'emergency_order_cancel': {
      const cancel = { event: name, ...orderBase(f), cancelledAmount: f.u128(name === 'order_cancelled' ? 'actual_cancel_amount' : 'cancel_amount_this_time') } as const;
      return f.problem() ?? cancel;
    }
    default:
      return 'unknown event';
  }
}

function liquidityBase(f: Fields): DclLiquidityBase {
  const base = { lptId: f.str('lpt_id'), ownerId: f.str('owner_id'), poolId: f.poolId('pool_id'), leftPoint: f.i32('left_point'), rightPoint: f.i32('right_point'), curAmount: f.u128('cur_amount') };
  if (base.leftPoint >= base.rightPoint) f.fail('left_point', 'left_point is not below right_point');
  return base;
}

function orderBase(f: Fields) {
  return { orderId: f.str('order_id'), ownerId: f.str('owner_id'), poolId: f.poolId('pool_id'), point: f.i32('point'), sellToken: f.str('sell_token'), buyToken: f.str('buy_token') };
}

/** Reads an item's fields; each field that is missing or not of its type is noted, and `problem()` says which. */
class Fields {
  private readonly bad: string[] = [];
  constructor(private readonly o: Record<string, unknown>) {}

  has(key: string): boolean {
    return this.o[key] !== undefined && this.o[key] !== null;
  }

  fail(key: string, why = `${key} missing or malformed`): void {
    if (!this.bad.includes(why)) this.bad.push(why);
  }

  problem(): string | null {
    return this.bad.length === 0 ? null : this.bad.join('; ');
  }

  str(key: string): string {
    const v = this.o[key];
    if (typeof v === 'string' && v !== '') return v;
    this.fail(key);
    return '';
  }

  /** A pool id `token_x|token_y|fee`. */
  poolId(key: string): string {
    const v = this.str(key);
    if (v !== '' && parseDclPoolId(v) === null) this.fail(key, `${key} is not token_x|token_y|fee`);
    return v;
  }

  poolIdList(key: string): string[] {
    const v = this.o[key];
    if (Array.isArray(v) && v.length > 0 && v.every((id) => typeof id === 'string' && parseDclPoolId(id) !== null)) return v as string[];
    this.fail(key);
    return [];
  }

  u128(key: string): bigint {
    const v = parseU128(this.o[key]);
    if (v !== null) return v;
    this.fail(key);
    return 0n;
  }

  /** Absent: null (an older shape); present: must be a U128. */
  optionalU128(key: string): bigint | null {
    return this.has(key) ? this.u128(key) : null;
  }

  /** Both fields, or null when the item has neither. */
  optionalPair(keyX: string, keyY: string): [bigint, bigint] | null {
    if (!this.has(keyX) && !this.has(keyY)) return null;
    return [this.u128(keyX), this.u128(keyY)];
  }

  i32(key: string): number {
    const v = this.o[key];
    if (typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31) return v;
    this.fail(key);
    return 0;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
