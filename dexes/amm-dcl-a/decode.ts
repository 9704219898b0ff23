// Block -> AmmDclA events (Ref DCL, `dclv2.ref-labs.near`). Pure: no I/O; never throws on chain input.
//
// Everything comes from the log lines (events.ts) of SUCCESSFUL receipts the contract executed (a failed receipt
// keeps its logs in the block, but its state was rolled back) and from its `create_pool` calls:
// - one SwapEvent per `swap` / `swap_desire` item;
// - LiquidityEvents for positions added, appended to, removed (by their owner or the contract's emergency
//   removal) and merged;
// - one UndecodedEvent per line or item that could not be read (its pool, when it names one, is then stale);
// - with a pool book (state.ts `DclPoolBook`), one PoolStateEvent (`source: 'event'`) per pool the block changed:
//   its state after the block. The storage layout of the contract is not public, so the state is kept from the
//   events: liquidity events change the ranges, orders (placed, cancelled, emergency-cancelled) the resting
//   orders, and a swap moves the price by re-simulating it from the previous state with math.ts; the state records
//   whether the simulation matched the logged amount to the unit (`lastSwapCheck`, `unmatchedSwaps`) and how many
//   changes it could not apply exactly (`unappliedChanges`).
//
// The book is the one input that is not in the block: the decoder reads and updates it in place, so blocks must
// be decoded in height order with the same book (see README.md for seeding it). `extractDclLogs`,
// `dexEventsOf` and `applyDclLogs` are the three steps, for a caller that wants the pure part on its own.

import type { Block } from '../../near/block.ts';
import { isSuccess } from '../../near/decode.ts';
import type { EventBase, UndecodedEvent } from '../../near/events.ts';
import type { DexContracts } from '../contracts.ts';
import type { LiquidityEvent, SwapEvent } from '../events.ts';
import { parseJsonObject } from '../../near/nep297.ts';
import {
  AMM_DCL_A_DEX_ID,
  DCL_POINT_DELTA,
  parseCreatePool,
  parseDclLogLine,
  type AmmDclAPoolStateEvent,
  type DclLog,
  type DclOrderAddLog,
  type DclSwapLog,
} from './events.ts';
import { DclMathError, swapExactIn, swapExactOut, type DclSwapResult } from './math.ts';
import {
  addLiquidity,
  changeOrders,
  newDclPoolState,
  parseDclPoolId,
  removeLiquidity,
  type DclPoolBook,
  type DclPoolState,
  type DclSwapCheck,
} from './state.ts';

export type AmmDclAEvent = SwapEvent | LiquidityEvent | UndecodedEvent | AmmDclAPoolStateEvent;

/** A parsed `dcl.ref` item with the receipt it came from. */
export interface LocatedDclLog {
  log: DclLog;
  blockHeight: number;
  timestampMs: number;
  receiptId: string;
  txHash: string | null;
}

/**
 * Swaps and liquidity changes of the block; with `book`, also the state of every pool of the book the block
 * changed, and `book` updated to the state after the block.
 */
export function decodeAmmDclA(block: Block, contracts: DexContracts, book?: DclPoolBook): AmmDclAEvent[] {
  const logs = extractDclLogs(block, contracts.AmmDclA);
  const numbering = new ReceiptNumbering();
  const events: AmmDclAEvent[] = dexEventsOf(logs, contracts.AmmDclA, numbering);
  if (book !== undefined) events.push(...applyDclLogs(book, logs, contracts.AmmDclA, numbering));
  return events;
}

const CREATE_POOL_UNREAD = 'create_pool args are not {token_a, token_b, fee: a fee tier, init_point}';

/** The items of the contract's successful receipts (its `create_pool` calls, then its log lines), in block order. */
export function extractDclLogs(block: Block, contractId: string): LocatedDclLog[] {
  const out: LocatedDclLog[] = [];
  for (const shard of block.shards) {
    for (const outcome of shard.receiptOutcomes) {
      if (outcome.executorId !== contractId || !isSuccess(outcome)) continue;
      const located = { blockHeight: block.height, timestampMs: block.timestampMs, receiptId: outcome.receiptId, txHash: outcome.txHash };
      if (outcome.receipt.kind === 'Action') {
        for (const action of outcome.receipt.actions) {
          if (action.kind !== 'FunctionCall' || action.methodName !== 'create_pool') continue;
          const args = Buffer.from(action.argsBase64, 'base64').toString('utf8');
          const log: DclLog = parseCreatePool(parseJsonObject(args)) ?? { event: 'undecoded', input: 'args', poolId: null, reason: CREATE_POOL_UNREAD, raw: args };
          out.push({ log, ...located });
        }
      }
      for (const line of outcome.logs) {
        for (const log of parseDclLogLine(line)) {
          out.push({ log, ...located });
        }
      }
    }
  }
  return out;
}

/** Event indexes per receipt, counting from 0 (or from `next`, the first free index of a receipt) in the order
 * events are made. */
export class ReceiptNumbering {
  constructor(private readonly next = new Map<string, number>()) {}
  base(l: Omit<LocatedDclLog, 'log'>): EventBase {
    const index = this.next.get(l.receiptId) ?? 0;
    this.next.set(l.receiptId, index + 1);
    return { blockHeight: l.blockHeight, timestampMs: l.timestampMs, receiptId: l.receiptId, txHash: l.txHash, index };
  }
}

/**
 * The shared-vocabulary events of the logs: swaps, liquidity changes (orders have no event of their own) and what
 * could not be read. A swap of nothing for nothing (a `SwapByStopPoint` whose price is past the stop logs one, S)
 * is no trade and gives no event.
 */
export function dexEventsOf(logs: readonly LocatedDclLog[], contractId: string, numbering = new ReceiptNumbering()): Array<SwapEvent | LiquidityEvent | UndecodedEvent> {
  const out: Array<SwapEvent | LiquidityEvent | UndecodedEvent> = [];
  const common = { dex: AMM_DCL_A_DEX_ID, contractId } as const;
  const liquidity = (l: LocatedDclLog, poolId: string, ownerId: string, action: 'add' | 'remove', amounts: readonly bigint[], shares: bigint): void => {
    const ids = parseDclPoolId(poolId)!; // the parser checked it
    out.push({ ...numbering.base(l), kind: 'liquidity', ...common, poolId, provider: ownerId, action, tokens: [ids.tokenX, ids.tokenY], amounts: [...amounts], shares });
  };
  for (const l of logs) {
    const e = l.log;
    switch (e.event) {
      case 'swap':
      case 'swap_desire':
        if (e.amountIn === 0n && e.amountOut === 0n) break;
        out.push({
          ...numbering.base(l),
          kind: 'swap',
          ...common,
          // An older item naming a path of several pools is the whole trade: its pool cannot be told.
          poolId: e.poolIds.length === 1 ? e.poolIds[0]! : null,
          trader: e.swapper,
          tokenIn: e.tokenIn,
          tokenOut: e.tokenOut,
          amountIn: e.amountIn,
          amountOut: e.amountOut,
          totalFee: e.totalFee,
          adminFee: e.protocolFee,
        });
        break;
      case 'liquidity_added':
      case 'liquidity_append':
        liquidity(l, e.poolId, e.ownerId, 'add', [e.paidTokenX, e.paidTokenY], e.addedAmount);
        break;
      case 'liquidity_removed':
      case 'emergency_liquidity_removed':
        liquidity(l, e.poolId, e.ownerId, 'remove', [e.refundTokenX, e.refundTokenY], e.removedAmount);
        break;
      case 'liquidity_merge':
        // The merged positions leave the pool, then part of their tokens goes into the target position (S). An older
        // item does not say how much (C: Ref's own API skips such merges in its liquidity history).
        if (e.removed !== null) liquidity(l, e.poolId, e.ownerId, 'remove', e.removed, 0n);
        if (e.merged !== null) liquidity(l, e.poolId, e.ownerId, 'add', e.merged, e.addedAmount);
        break;
      case 'undecoded':
        out.push({ ...numbering.base(l), kind: 'undecoded', ...common, input: e.input, poolId: e.poolId, reason: e.reason, raw: e.raw });
        break;
      default:
        break;
    }
  }
  return out;
}

/**
 * Applies the logs to `book` in order and returns the state after the block of each pool they changed, in the
 * order of their last change, numbered after the receipt's other events. Logs of pools not in the book change
 * nothing (their positions are still recorded). Never throws on the logs: a change the book cannot take exactly
 * is counted in the pool's `unappliedChanges` (a swap it cannot re-simulate in `unmatchedSwaps`).
 */
export function applyDclLogs(
  book: DclPoolBook,
  logs: readonly LocatedDclLog[],
  contractId: string,
  numbering = new ReceiptNumbering(),
): AmmDclAPoolStateEvent[] {
  const lastChange = new Map<string, LocatedDclLog>();
  logs.forEach((l, i) => {
    for (const poolId of applyOne(book, l, logs, i)) {
      lastChange.delete(poolId);
      lastChange.set(poolId, l);
    }
  });
  const out: AmmDclAPoolStateEvent[] = [];
  for (const [poolId, l] of lastChange) {
    const state = book.pools.get(poolId);
    if (state === undefined) continue;
    out.push({ ...numbering.base(l), kind: 'pool_state', dex: AMM_DCL_A_DEX_ID, contractId, poolId, state, source: 'event' });
  }
  return out;
}

/** Log `i` applied to the book; the ids of the pools of the book it changed. */
function applyOne(book: DclPoolBook, l: LocatedDclLog, logs: readonly LocatedDclLog[], i: number): string[] {
  const e = l.log;
  switch (e.event) {
    case 'pool_created': {
      if (book.pools.has(e.poolId)) return []; // a second create_pool of a pool changes nothing
      const pointDelta = DCL_POINT_DELTA[e.fee]!;
      book.pools.set(e.poolId, newDclPoolState({ poolId: e.poolId, tokenX: e.tokenX, tokenY: e.tokenY, fee: e.fee, pointDelta, currentPoint: e.currentPoint }));
      return [e.poolId];
    }
    case 'undecoded':
      // What the input did to its pool is unknown.
      return e.poolId === null ? [] : markUnapplied(book, [e.poolId]);
    case 'swap':
    case 'swap_desire': {
      if (e.poolIds.length !== 1) {
        // An older item: a path whose hops' amounts are not logged, or no pool at all (then any pool of the pair).
        const pair = [...book.pools.values()].filter((s) => s.tokens.includes(e.tokenIn) && s.tokens.includes(e.tokenOut)).map((s) => s.poolId);
        return markUnapplied(book, e.poolIds.length > 1 ? e.poolIds : pair);
      }
      if (e.amountIn === 0n && e.amountOut === 0n) return []; // nothing moved (see dexEventsOf)
      return update(book, e.poolIds[0]!, (state) => swapped(state, l, e, orderPlacedBy(logs, i, e)));
    }
    case 'liquidity_added':
    case 'liquidity_append':
    case 'liquidity_removed':
    case 'emergency_liquidity_removed': {
      // Positions are recorded whether or not the pool is known: a later merge may need them.
      if (e.curAmount === 0n) book.positions.delete(e.lptId);
      else book.positions.set(e.lptId, { poolId: e.poolId, left: e.leftPoint, right: e.rightPoint, liquidity: e.curAmount });
      return update(book, e.poolId, (state) =>
        'addedAmount' in e ? addLiquidity(state, e.leftPoint, e.rightPoint, e.addedAmount) : removeLiquidity(state, e.leftPoint, e.rightPoint, e.removedAmount),
      );
    }
    case 'liquidity_merge': {
      const merged = e.mergeLptIds.map((id) => book.positions.get(id));
      for (const id of e.mergeLptIds) book.positions.delete(id);
      book.positions.set(e.lptId, { poolId: e.poolId, left: e.leftPoint, right: e.rightPoint, liquidity: e.curAmount });
      return update(book, e.poolId, (state) => {
        let next = state;
        let missing = 0;
        for (const p of merged) {
          if (p === undefined || p.poolId !== e.poolId) missing++;
          else next = removeLiquidity(next, p.left, p.right, p.liquidity);
        }
        next = addLiquidity(next, e.leftPoint, e.rightPoint, e.addedAmount);
        return missing === 0 ? next : { ...next, unappliedChanges: next.unappliedChanges + missing };
      });
    }
    case 'order_added':
    case 'order_cancelled':
    case 'emergency_order_cancel':
      return update(book, e.poolId, (state) => {
        const side = state.tokens.indexOf(e.sellToken);
        if (side === -1) throw new RangeError(`AmmDclA ${state.poolId}: ${e.sellToken} is not in the pool`);
        // Placed: what rests at the point (a swap across the price was its own `swap` event); cancelled: the unsold
        // amount leaving it.
        const change = e.event === 'order_added' ? e.originalAmount : -e.cancelledAmount;
        return changeOrders(state, e.point, side === 0 ? change : 0n, side === 0 ? 0n : change);
      });
  }
}

/** The pool's state replaced by `next(state)`; a change the book cannot take (e.g. removing more liquidity than it
 * holds: the book has drifted) counts as unapplied. [] when the pool is not in the book. */
function update(book: DclPoolBook, poolId: string, next: (state: DclPoolState) => DclPoolState): string[] {
  const state = book.pools.get(poolId);
  if (state === undefined) return [];
  try {
    book.pools.set(poolId, next(state));
  } catch (err) {
    if (!(err instanceof RangeError || err instanceof DclMathError)) throw err;
    book.pools.set(poolId, { ...state, unappliedChanges: state.unappliedChanges + 1 });
  }
  return [poolId];
}

function markUnapplied(book: DclPoolBook, poolIds: readonly string[]): string[] {
  return poolIds.flatMap((poolId) => update(book, poolId, (state) => ({ ...state, unappliedChanges: state.unappliedChanges + 1 })));
}

/** A swap re-simulated on `state`: exact in (`swap`) or exact out (`swap_desire`), or up to the point of the order it
 * is the first part of. */
function swapped(state: DclPoolState, l: LocatedDclLog, e: DclSwapLog, order: DclOrderAddLog | null): DclPoolState {
  if (!state.tokens.includes(e.tokenIn) || !state.tokens.includes(e.tokenOut) || e.tokenIn === e.tokenOut) {
    throw new RangeError(`AmmDclA ${state.poolId}: swap of ${e.tokenIn} for ${e.tokenOut}`);
  }
  if (e.event === 'swap_desire') return simulated(state, l.receiptId, 'exact_out', e.amountIn, () => swapExactOut(state, e.tokenOut, e.amountOut));
  if (order === null) return simulated(state, l.receiptId, 'exact_in', e.amountOut, () => swapExactIn(state, e.tokenIn, e.amountIn));
  // The contract swaps the whole deposit, X down to the order's point, Y up to and including it (S: `point + 1`),
  // and stops there: the rest is the order.
  const limitPoint = e.tokenIn === state.tokens[0] ? order.point : order.point + 1;
  return simulated(state, l.receiptId, 'exact_in', e.amountOut, () => swapExactIn(state, e.tokenIn, order.originalDepositAmount, { limitPoint }), false);
}

/** The order that swap `i` starts (`LimitOrderWithSwap`, S: the contract logs the swap, then `order_added` with the
 * swap's output as `swap_earn_amount`), or null. */
function orderPlacedBy(logs: readonly LocatedDclLog[], i: number, swap: DclSwapLog): DclOrderAddLog | null {
  const l = logs[i]!;
  for (let j = i + 1; j < logs.length && logs[j]!.receiptId === l.receiptId; j++) {
    const next = logs[j]!.log;
    if (next.event !== 'order_added') continue;
    const same = next.poolId === swap.poolIds[0] && next.sellToken === swap.tokenIn && next.swapEarnAmount === swap.amountOut;
    return same ? next : null;
  }
  return null;
}

/** The state after a re-simulated swap, with the check against the logged amount recorded (`mustComplete`: a swap
 * that stops before its amount is filled did not happen as logged). */
function simulated(
  state: DclPoolState,
  receiptId: string,
  mode: DclSwapCheck['mode'],
  logged: bigint,
  run: () => DclSwapResult,
  mustComplete = true,
): DclPoolState {
  let result: DclSwapResult | null = null;
  try {
    result = run();
  } catch (err) {
    if (!(err instanceof DclMathError)) throw err;
  }
  const simulatedAmount = result === null || (mustComplete && !result.complete) ? null : mode === 'exact_out' ? result.amountIn : result.amountOut;
  const matched = simulatedAmount === logged;
  const lastSwapCheck: DclSwapCheck = { receiptId, mode, logged, simulated: simulatedAmount, matched };
  const base = result?.state ?? state;
  return { ...base, lastSwapCheck, unmatchedSwaps: state.unmatchedSwaps + (matched ? 0 : 1) };
}
