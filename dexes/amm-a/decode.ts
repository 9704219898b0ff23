// Block -> AmmA events (Ref Finance `v2.ref-finance.near`). Pure: no I/O.
//
// Two sources, kept apart as ../shared/docs/design.md asks ("logs give trades; state changes give
// reserves"):
// - pool state: the contract's storage writes of the block (`data_update` of `00 ‖ u64le(id)`),
//   decoded with state.ts. Lake lists repeated writes of one key in execution order, so the LAST
//   one is the state after the block (ref-storage-layout.md §11). A failed receipt commits no
//   state, so nothing needs filtering here. Also the rated-token rates (`custom_rate_key`), which
//   change without any pool write.
// - swaps: `Swapped ...` log lines of SUCCESSFUL receipts executed by the contract (a failed
//   receipt keeps its logs in the block, but its state was rolled back: no event).
//
// Nothing from the chain makes this throw: a pool value or rates map that does not decode exactly (an unknown
// tag, a short value, leftover bytes: another contract version) becomes an `undecoded` event, which marks the
// pool stale until a readable write arrives.

import type { Block, ReceiptOutcome, StateChange } from '../../near/block.ts';
import { BorshReader } from '../../near/borsh.ts';
import { isSuccess } from '../../near/decode.ts';
import type { EventBase, UndecodedEvent } from '../../near/events.ts';
import { parseJsonObject } from '../../near/nep297.ts';
import {
  AMM_A_DEX_ID,
  type AmmAEvent,
  type AmmALiquidityEvent,
  type AmmAPoolDeletedEvent,
  type AmmAPoolStateEvent,
  type AmmARatesEvent,
  type AmmASwapEvent,
} from './events.ts';
import { AmmAStateError, RATE_KEY, decodePool, decodeRates, poolIdOfKey } from './state.ts';

export const AMM_A_MAINNET_CONTRACT = 'v2.ref-finance.near';

export interface DecodeAmmAOptions {
  /** The exchange contract; default `v2.ref-finance.near`. */
  contractId?: string;
}

// `log!("Swapped {} {} for {} {}", amount_in, token_in, amount_out, token_out)`; stable, rated
// and degen pools append `, total fee {}, admin fee {}` (contract >= 1.4.1).
const SWAPPED = /^Swapped (\d+) ([^\s,]+) for (\d+) ([^\s,]+)(?:, total fee (\d+), admin fee (\d+))?$/;

const RATE_KEY_B64 = Buffer.from(RATE_KEY, 'utf8').toString('base64');

export function decodeAmmA(block: Block, options?: DecodeAmmAOptions): AmmAEvent[] {
  const contractId = options?.contractId ?? AMM_A_MAINNET_CONTRACT;
  const events: AmmAEvent[] = [];
  const nextIndex = new Map<string, number>();
  const indexFor = (receiptId: string): number => {
    const i = nextIndex.get(receiptId) ?? 0;
    nextIndex.set(receiptId, i + 1);
    return i;
  };

  // 1. Swaps, in block order (shards, then outcomes, then log lines).
  const txByReceipt = new Map<string, string | null>();
  for (const shard of block.shards) {
    for (const outcome of shard.receiptOutcomes) {
      txByReceipt.set(outcome.receiptId, outcome.txHash);
      if (outcome.executorId !== contractId || !isSuccess(outcome)) continue;
      decodeSwaps(block, outcome, contractId, indexFor, events);
      decodeLiquidity(block, outcome, contractId, indexFor, events);
    }
  }

  // 2. Storage writes: the last change of each key wins; emitted in the order of those last changes.
  const lastPoolChange = new Map<number, StateChange>();
  let lastRates: StateChange | undefined;
  for (const shard of block.shards) {
    for (const sc of shard.stateChanges) {
      if (sc.type !== 'data_update' && sc.type !== 'data_deletion') continue;
      const keyB64 = sc.change.keyBase64;
      if (sc.change.accountId !== contractId || keyB64 === undefined) continue;
      if (keyB64 === RATE_KEY_B64) {
        lastRates = sc;
        continue;
      }
      // A pool key is 9 bytes = 12 base64 characters; byte 0x00 makes the first one "A".
      if (keyB64.length !== 12 || keyB64.charCodeAt(0) !== 0x41) continue;
      const poolId = poolIdOfKey(Buffer.from(keyB64, 'base64'));
      if (poolId === null) continue;
      lastPoolChange.delete(poolId);
      lastPoolChange.set(poolId, sc);
    }
  }

  const base = (sc: StateChange): EventBase => {
    const receiptId = sc.cause?.receiptHash ?? `(${sc.cause?.type ?? 'unknown cause'})`;
    return {
      blockHeight: block.height,
      timestampMs: block.timestampMs,
      receiptId,
      txHash: sc.cause?.txHash ?? txByReceipt.get(receiptId) ?? null,
      index: indexFor(receiptId),
    };
  };

  for (const [poolId, sc] of lastPoolChange) {
    if (sc.type === 'data_deletion') {
      const ev: AmmAPoolDeletedEvent = { ...base(sc), kind: 'pool_deleted', dex: AMM_A_DEX_ID, contractId, poolId };
      events.push(ev);
      continue;
    }
    let state;
    try {
      state = decodePool(poolId, valueBytes(sc));
    } catch (err) {
      events.push(undecodedState(base(sc), contractId, String(poolId), sc, err));
      continue;
    }
    const ev: AmmAPoolStateEvent = { ...base(sc), kind: 'pool_state', dex: AMM_A_DEX_ID, contractId, poolId, state };
    events.push(ev);
  }

  if (lastRates !== undefined && lastRates.type === 'data_update') {
    let rates;
    try {
      rates = decodeRates(valueBytes(lastRates));
    } catch (err) {
      events.push(undecodedState(base(lastRates), contractId, null, lastRates, err));
      return events;
    }
    const ev: AmmARatesEvent = {
      ...base(lastRates),
      kind: 'rates',
      dex: AMM_A_DEX_ID,
      contractId,
      rates: [...rates].map(([tokenId, rate]) => ({ tokenId, ...rate })),
    };
    events.push(ev);
  }
  return events;
}

function valueBytes(sc: StateChange): Uint8Array {
  const b64 = sc.change.valueBase64;
  if (b64 === undefined) throw new AmmAStateError('data_update without a value');
  return BorshReader.fromBase64(b64).bytes;
}

function undecodedState(base: EventBase, contractId: string, poolId: string | null, sc: StateChange, err: unknown): UndecodedEvent {
  return {
    ...base,
    kind: 'undecoded',
    dex: AMM_A_DEX_ID,
    input: 'state',
    contractId,
    poolId,
    reason: err instanceof Error ? err.message : String(err),
    raw: `${sc.change.keyBase64 ?? ''}=${sc.change.valueBase64 ?? ''}`,
  };
}

// ---- liquidity ----

// `log!("Liquidity added {:?}, minted {} shares", ["<amount> <token>", ...], shares)` and
// `log!("{} shares of liquidity removed: receive back {:?}", shares, ["<amount> <token>", ...])` (Debug of a Vec<String>).
const LIQUIDITY_ADDED = /^Liquidity added \[(.*)\], minted (\d+) shares$/;
const LIQUIDITY_REMOVED = /^(\d+) shares of liquidity removed: receive back \[(.*)\]$/;
const LIQUIDITY_METHODS = new Set(['add_liquidity', 'add_stable_liquidity', 'remove_liquidity', 'remove_liquidity_by_tokens']);

/** One LiquidityEvent per liquidity log line of a receipt whose call names the pool (`pool_id`). */
function decodeLiquidity(block: Block, outcome: ReceiptOutcome, contractId: string, indexFor: (receiptId: string) => number, out: AmmAEvent[]): void {
  if (!outcome.logs.some((l) => l.includes('iquidity'))) return;
  let poolId: number | null = null;
  if (outcome.receipt.kind === 'Action') {
    for (const action of outcome.receipt.actions) {
      if (action.kind !== 'FunctionCall' || !LIQUIDITY_METHODS.has(action.methodName)) continue;
      const id = parseJsonObject(Buffer.from(action.argsBase64, 'base64').toString('utf8'))?.pool_id;
      if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) poolId = id;
    }
  }
  if (poolId === null) return;
  for (const log of outcome.logs) {
    const added = LIQUIDITY_ADDED.exec(log);
    const removed = added === null ? LIQUIDITY_REMOVED.exec(log) : null;
    const list = added?.[1] ?? removed?.[2];
    const shares = added?.[2] ?? removed?.[1];
    if (list === undefined || shares === undefined) continue;
    const moves = amountsOfList(list);
    if (moves === null) continue;
    const ev: AmmALiquidityEvent = {
      blockHeight: block.height,
      timestampMs: block.timestampMs,
      receiptId: outcome.receiptId,
      txHash: outcome.txHash,
      index: indexFor(outcome.receiptId),
      kind: 'liquidity',
      dex: AMM_A_DEX_ID,
      contractId,
      poolId,
      provider: outcome.predecessorId,
      action: added !== null ? 'add' : 'remove',
      tokens: moves.map((m) => m.token),
      amounts: moves.map((m) => m.amount),
      shares: BigInt(shares),
    };
    out.push(ev);
  }
}

/** `"123 a.near", "456 b.near"` -> amounts and tokens; null when any item is not `<digits> <token>`. */
function amountsOfList(list: string): Array<{ amount: bigint; token: string }> | null {
  const items = list.split(', ');
  const out: Array<{ amount: bigint; token: string }> = [];
  for (const item of items) {
    const m = /^"(\d+) ([^\s"]+)"$/.exec(item);
    if (m === null) return null;
    out.push({ amount: BigInt(m[1] as string), token: m[2] as string });
  }
  return out;
}

// ---- swaps ----

/** One swap action of the receipt's call arguments, as the contract's `SwapAction` JSON has it. */
interface SwapAction {
  poolId: number;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint | null;
}

interface ParsedSwapped {
  amountIn: bigint;
  tokenIn: string;
  amountOut: bigint;
  tokenOut: string;
  totalFee: bigint | null;
  adminFee: bigint | null;
}

function decodeSwaps(
  block: Block,
  outcome: ReceiptOutcome,
  contractId: string,
  indexFor: (receiptId: string) => number,
  out: AmmAEvent[],
): void {
  const lines: ParsedSwapped[] = [];
  for (const log of outcome.logs) {
    const m = SWAPPED.exec(log);
    if (m === null) continue;
    lines.push({
      amountIn: BigInt(m[1] as string),
      tokenIn: m[2] as string,
      amountOut: BigInt(m[3] as string),
      tokenOut: m[4] as string,
      totalFee: m[5] === undefined ? null : BigInt(m[5]),
      adminFee: m[6] === undefined ? null : BigInt(m[6]),
    });
  }
  if (lines.length === 0) return;

  const { actions, trader } = swapActionsOf(outcome);
  const matched =
    actions.length === lines.length &&
    lines.every((line, i) => {
      const a = actions[i];
      return (
        a !== undefined &&
        a.tokenIn === line.tokenIn &&
        a.tokenOut === line.tokenOut &&
        (a.amountIn === null || a.amountIn === line.amountIn)
      );
    });

  lines.forEach((line, i) => {
    const ev: AmmASwapEvent = {
      blockHeight: block.height,
      timestampMs: block.timestampMs,
      receiptId: outcome.receiptId,
      txHash: outcome.txHash,
      index: indexFor(outcome.receiptId),
      kind: 'swap',
      dex: AMM_A_DEX_ID,
      contractId,
      poolId: matched ? (actions[i]?.poolId ?? null) : null,
      trader,
      ...line,
    };
    out.push(ev);
  });
}

/**
 * The swap actions of a receipt, in execution order: `ft_on_transfer` (msg `{"actions": [...]}`,
 * the instant swap of `ft_transfer_call`), `swap` and `execute_actions` (args `{"actions": [...]}`,
 * on deposited funds). Only `SwapAction`s count (`pool_id`, `token_in`, `token_out`, optional
 * `amount_in`); by-output actions (`amount_out`) do not log `Swapped`.
 */
function swapActionsOf(outcome: ReceiptOutcome): { actions: SwapAction[]; trader: string | null } {
  const actions: SwapAction[] = [];
  let trader: string | null = null;
  if (outcome.receipt.kind !== 'Action') return { actions, trader };
  for (const action of outcome.receipt.actions) {
    if (action.kind !== 'FunctionCall') continue;
    const args = parseJsonObject(Buffer.from(action.argsBase64, 'base64').toString('utf8'));
    if (args === null) continue;
    let list: unknown;
    if (action.methodName === 'ft_on_transfer') {
      const msg = typeof args.msg === 'string' ? parseJsonObject(args.msg) : null;
      list = msg?.actions;
      if (Array.isArray(list) && typeof args.sender_id === 'string') trader = args.sender_id;
    } else if (action.methodName === 'swap' || action.methodName === 'execute_actions') {
      list = args.actions;
      if (Array.isArray(list)) trader = outcome.predecessorId;
    }
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const a = toSwapAction(item);
      if (a !== null) actions.push(a);
    }
  }
  return { actions, trader };
}

function toSwapAction(item: unknown): SwapAction | null {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return null;
  const o = item as Record<string, unknown>;
  if ('amount_out' in o) return null;
  const { pool_id: poolId, token_in: tokenIn, token_out: tokenOut, amount_in: amountIn } = o;
  if (typeof poolId !== 'number' || !Number.isSafeInteger(poolId) || poolId < 0) return null;
  if (typeof tokenIn !== 'string' || typeof tokenOut !== 'string') return null;
  let amount: bigint | null = null;
  if (amountIn !== undefined && amountIn !== null) {
    if (typeof amountIn !== 'string' || !/^\d+$/.test(amountIn)) return null;
    amount = BigInt(amountIn);
  }
  return { poolId, tokenIn, tokenOut, amountIn: amount };
}
