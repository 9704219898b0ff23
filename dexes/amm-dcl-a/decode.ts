// Block -> AmmDclA events (Ref DCL, `dclv2.ref-labs.near`). Pure: no I/O.
//
// Everything comes from the contract's `dcl.ref` events (events.ts) in SUCCESSFUL receipts it executed (a failed
// receipt keeps its logs in the block, but its state was rolled back):
// - one SwapEvent per `swap` / `swap_desire` item;
// - LiquidityEvents for positions added, appended to, removed and merged;
// - with a pool book (state.ts `DclPoolBook`), one PoolStateEvent (`source: 'event'`) per pool the block changed:
//   its state after the block. The storage layout of the contract is not public, so the state is kept from the
//   events: liquidity events change the ranges, orders the resting orders, and a swap moves the price by
//   re-simulating it from the previous state with math.ts; the state records whether the simulation matched the
//   logged amount to the unit (`lastSwapCheck`, `unmatchedSwaps`).
//
// The book is the one input that is not in the block: the decoder reads and updates it in place, so blocks must
// be decoded in height order with the same book (see README.md for seeding it). `extractDclLogs`,
// `dexEventsOf` and `applyDclLogs` are the three steps, for a caller that wants the pure part on its own.

import type { Block } from '../../near/block.ts';
import { isSuccess } from '../../near/decode.ts';
import type { EventBase } from '../../near/events.ts';
import type { DexContracts } from '../contracts.ts';
import type { LiquidityEvent, SwapEvent } from '../events.ts';
import { parseJsonObject } from '../../near/nep297.ts';
import { AMM_DCL_A_DEX_ID, DCL_POINT_DELTA, parseCreatePool, parseDclLogLine, type AmmDclAPoolStateEvent, type DclLog } from './events.ts';
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

export type AmmDclAEvent = SwapEvent | LiquidityEvent | AmmDclAPoolStateEvent;

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

/** The `dcl.ref` items of the contract's successful receipts, in block order. */
export function extractDclLogs(block: Block, contractId: string): LocatedDclLog[] {
  const out: LocatedDclLog[] = [];
  for (const shard of block.shards) {
    for (const outcome of shard.receiptOutcomes) {
      if (outcome.executorId !== contractId || !isSuccess(outcome)) continue;
      const located = { blockHeight: block.height, timestampMs: block.timestampMs, receiptId: outcome.receiptId, txHash: outcome.txHash };
      if (outcome.receipt.kind === 'Action') {
        for (const action of outcome.receipt.actions) {
          if (action.kind !== 'FunctionCall' || action.methodName !== 'create_pool') continue;
          const log = parseCreatePool(parseJsonObject(Buffer.from(action.argsBase64, 'base64').toString('utf8')));
          if (log !== null) out.push({ log, ...located });
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

/** The shared-vocabulary events of the logs: swaps and liquidity changes (orders have no event of their own). */
export function dexEventsOf(logs: readonly LocatedDclLog[], contractId: string, numbering = new ReceiptNumbering()): Array<SwapEvent | LiquidityEvent> {
  const out: Array<SwapEvent | LiquidityEvent> = [];
  const common = { dex: AMM_DCL_A_DEX_ID, contractId } as const;
  const liquidity = (l: LocatedDclLog, poolId: string, ownerId: string, action: 'add' | 'remove', amounts: bigint[], shares: bigint): void => {
    const ids = parseDclPoolId(poolId);
    if (ids === null) return;
    out.push({ ...numbering.base(l), kind: 'liquidity', ...common, poolId, provider: ownerId, action, tokens: [ids.tokenX, ids.tokenY], amounts, shares });
  };
  for (const l of logs) {
    const e = l.log;
    switch (e.event) {
      case 'swap':
      case 'swap_desire':
        out.push({
          ...numbering.base(l),
          kind: 'swap',
          ...common,
          poolId: e.poolId,
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
        liquidity(l, e.poolId, e.ownerId, 'remove', [e.refundTokenX, e.refundTokenY], e.removedAmount);
        break;
      case 'liquidity_merge':
        // The merged positions leave the pool, then their tokens go into the target position (?).
        liquidity(l, e.poolId, e.ownerId, 'remove', [e.removeTokenX, e.removeTokenY], 0n);
        liquidity(l, e.poolId, e.ownerId, 'add', [e.mergeTokenX, e.mergeTokenY], e.addedAmount);
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
 * nothing (their positions are still recorded).
 */
export function applyDclLogs(
  book: DclPoolBook,
  logs: readonly LocatedDclLog[],
  contractId: string,
  numbering = new ReceiptNumbering(),
): AmmDclAPoolStateEvent[] {
  const lastChange = new Map<string, LocatedDclLog>();
  for (const l of logs) {
    const poolId = l.log.poolId;
    if (applyOne(book, l)) {
      lastChange.delete(poolId);
      lastChange.set(poolId, l);
    }
  }
  const out: AmmDclAPoolStateEvent[] = [];
  for (const [poolId, l] of lastChange) {
    const state = book.pools.get(poolId);
    if (state === undefined) continue;
    out.push({ ...numbering.base(l), kind: 'pool_state', dex: AMM_DCL_A_DEX_ID, contractId, poolId, state, source: 'event' });
  }
  return out;
}

/** One log applied to the book; true when a pool state of the book changed. */
function applyOne(book: DclPoolBook, l: LocatedDclLog): boolean {
  const e = l.log;
  // Positions are recorded whether or not the pool is known: a later merge may need them.
  if (e.event === 'liquidity_added' || e.event === 'liquidity_append' || e.event === 'liquidity_removed') {
    if (e.curAmount === 0n) book.positions.delete(e.lptId);
    else book.positions.set(e.lptId, { poolId: e.poolId, left: e.leftPoint, right: e.rightPoint, liquidity: e.curAmount });
  }
  const before = book.pools.get(e.poolId);
  if (e.event === 'pool_created') {
    if (before !== undefined) return false;
    const pointDelta = DCL_POINT_DELTA[e.fee]!;
    book.pools.set(e.poolId, newDclPoolState({ poolId: e.poolId, tokenX: e.tokenX, tokenY: e.tokenY, fee: e.fee, pointDelta, currentPoint: e.currentPoint }));
    return true;
  }
  if (before === undefined) {
    if (e.event === 'liquidity_merge') {
      for (const id of e.mergeLptIds) book.positions.delete(id);
      book.positions.set(e.lptId, { poolId: e.poolId, left: e.leftPoint, right: e.rightPoint, liquidity: e.curAmount });
    }
    return false;
  }
  book.pools.set(e.poolId, nextState(book, before, l));
  return true;
}

function nextState(book: DclPoolBook, state: DclPoolState, l: LocatedDclLog): DclPoolState {
  const e = l.log;
  const unapplied = (): DclPoolState => ({ ...state, unappliedChanges: state.unappliedChanges + 1 });
  try {
    switch (e.event) {
      case 'swap':
      case 'swap_desire': {
        const exactOut = e.event === 'swap_desire';
        if (!state.tokens.includes(e.tokenIn) || !state.tokens.includes(e.tokenOut) || e.tokenIn === e.tokenOut) return unapplied();
        const run = (): DclSwapResult => (exactOut ? swapExactOut(state, e.tokenOut, e.amountOut) : swapExactIn(state, e.tokenIn, e.amountIn));
        return simulated(state, l.receiptId, exactOut ? 'exact_out' : 'exact_in', exactOut ? e.amountIn : e.amountOut, run);
      }
      case 'liquidity_added':
      case 'liquidity_append':
        return addLiquidity(state, e.leftPoint, e.rightPoint, e.addedAmount);
      case 'liquidity_removed':
        return removeLiquidity(state, e.leftPoint, e.rightPoint, e.removedAmount);
      case 'liquidity_merge': {
        let next = state;
        let missing = 0;
        for (const id of e.mergeLptIds) {
          const p = book.positions.get(id);
          book.positions.delete(id);
          if (p === undefined || p.poolId !== e.poolId) missing++;
          else next = removeLiquidity(next, p.left, p.right, p.liquidity);
        }
        next = addLiquidity(next, e.leftPoint, e.rightPoint, e.addedAmount);
        book.positions.set(e.lptId, { poolId: e.poolId, left: e.leftPoint, right: e.rightPoint, liquidity: e.curAmount });
        return missing === 0 ? next : { ...next, unappliedChanges: next.unappliedChanges + missing };
      }
      case 'order_added': {
        const sellsX = e.sellToken === state.tokens[0];
        if (!sellsX && e.sellToken !== state.tokens[1]) return unapplied();
        let next = state;
        const swapped = e.originalDepositAmount - e.originalAmount;
        if (e.swapEarnAmount > 0n && swapped > 0n) {
          // Placed across the current price: the deposit first swaps up to the order's point (?).
          const run = (): DclSwapResult => swapExactIn(state, e.sellToken, swapped, { limitPoint: e.point });
          next = simulated(state, l.receiptId, 'exact_in', e.swapEarnAmount, run);
        }
        return changeOrders(next, e.point, sellsX ? e.originalAmount : 0n, sellsX ? 0n : e.originalAmount);
      }
      case 'order_cancelled': {
        const sellsX = e.sellToken === state.tokens[0];
        if (!sellsX && e.sellToken !== state.tokens[1]) return unapplied();
        return changeOrders(state, e.point, sellsX ? -e.actualCancelAmount : 0n, sellsX ? 0n : -e.actualCancelAmount);
      }
      case 'pool_created':
        return state; // applyOne creates pools; a second create_pool of a pool changes nothing
    }
  } catch (err) {
    // A change the book cannot take (e.g. removing more liquidity than it holds): the book has drifted.
    if (err instanceof RangeError || err instanceof DclMathError) return unapplied();
    throw err;
  }
}

/** The state after a re-simulated swap, with the check against the logged amount recorded. */
function simulated(
  state: DclPoolState,
  receiptId: string,
  mode: DclSwapCheck['mode'],
  logged: bigint,
  run: () => DclSwapResult,
): DclPoolState {
  let result: DclSwapResult | null = null;
  try {
    result = run();
  } catch (err) {
    if (!(err instanceof DclMathError)) throw err;
  }
  const simulatedAmount = result === null || !result.complete ? null : mode === 'exact_out' ? result.amountIn : result.amountOut;
  const matched = simulatedAmount === logged;
  const lastSwapCheck: DclSwapCheck = { receiptId, mode, logged, simulated: simulatedAmount, matched };
  const base = result?.state ?? state;
  return { ...base, lastSwapCheck, unmatchedSwaps: state.unmatchedSwaps + (matched ? 0 : 1) };
}
