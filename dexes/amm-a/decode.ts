// Block -> AmmA events (Ref Finance `v2.ref-finance.near`). Pure: no I/O.
//
// Two sources, kept apart as docs/design.md asks ("logs give trades; state changes give
// reserves"):
// - pool state: the contract's storage writes of the block (`data_update` of `00 ‖ u64le(id)`),
//   decoded with state.ts. Lake lists repeated writes of one key in execution order, so the LAST
//   one is the state after the block (ref-storage-layout.md §11). A failed receipt commits no
//   state, so nothing needs filtering here. Also the rated-token rates (`custom_rate_key`), which
//   change without any pool write.
// - swaps and liquidity: the log lines (logs.ts) of SUCCESSFUL receipts executed by the contract (a failed receipt
//   keeps its logs in the block, but its state was rolled back: no event), matched to the receipt's call.
//
// Nothing from the chain makes this throw: a pool value or rates map that does not decode exactly (an unknown
// tag, a short value, leftover bytes: another contract version) becomes an `undecoded` event, which marks the
// pool stale until a readable write arrives; so does a log line that is none of the contract's known formats.

import { causeOf, type Block, type ReceiptOutcome, type StateChange } from '../../near/block.ts';
import { BorshReader } from '../../near/borsh.ts';
import { isSuccess } from '../../near/decode.ts';
import type { EventBase, UndecodedEvent } from '../../near/events.ts';
import { asRecord, parseJsonObject } from '../../near/nep297.ts';
import { parseU128 } from '../../near/units.ts';
import {
  AMM_A_DEX_ID,
  type AmmAEvent,
  type AmmALiquidityEvent,
  type AmmAPoolDeletedEvent,
  type AmmAPoolStateEvent,
  type AmmARatesEvent,
  type AmmASwapEvent,
} from './events.ts';
import { parseAmmALog, type AmmALogLine } from './logs.ts';
import { AmmAStateError, RATE_KEY, decodePool, decodeRates, poolIdOfKey, type AmmAPoolState } from './state.ts';

export const AMM_A_MAINNET_CONTRACT = 'v2.ref-finance.near';

export interface DecodeAmmAOptions {
  /** The exchange contract; default `v2.ref-finance.near`. */
  contractId?: string;
}

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

  // Storage writes: the last change of each key wins. Decoded first (a stable pool's liquidity line names no token:
  // they come from its pool's write), emitted after the log-derived events, in the order of those last changes.
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
  const pools = new Map<number, AmmAPoolState | Error>();
  for (const [poolId, sc] of lastPoolChange) {
    if (sc.type !== 'data_update') continue;
    try {
      pools.set(poolId, decodePool(poolId, valueBytes(sc)));
    } catch (err) {
      pools.set(poolId, err instanceof Error ? err : new Error(String(err)));
    }
  }

  // 1. Swaps and liquidity, in block order (shards, then outcomes, then log lines).
  for (const shard of block.shards) {
    for (const outcome of shard.receiptOutcomes) {
      if (outcome.executorId !== contractId || !isSuccess(outcome)) continue;
      decodeLogs(block, outcome, contractId, pools, indexFor, events);
    }
  }

  // 2. Pool states and rates.
  const base = (sc: StateChange): EventBase => {
    const { receiptId, txHash } = causeOf(block, sc);
    return { blockHeight: block.height, timestampMs: block.timestampMs, receiptId, txHash, index: indexFor(receiptId) };
  };

  for (const [poolId, sc] of lastPoolChange) {
    const state = pools.get(poolId);
    if (state === undefined) {
      const ev: AmmAPoolDeletedEvent = { ...base(sc), kind: 'pool_deleted', dex: AMM_A_DEX_ID, contractId, poolId };
      events.push(ev);
    } else if (state instanceof Error) {
      events.push(undecodedState(base(sc), contractId, String(poolId), sc, state));
    } else {
      const ev: AmmAPoolStateEvent = { ...base(sc), kind: 'pool_state', dex: AMM_A_DEX_ID, contractId, poolId, state };
      events.push(ev);
    }
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

// ---- log lines ----

/**
 * The events of one successful receipt's log lines, in log order: a swap per `Swapped`/`Swap_by_output` line (pool
 * from the call's actions when every line matches its action), a liquidity event per liquidity line (pool, and for
 * stable-like pools the amounts the line does not carry, from the call), nothing for the known lines we ignore, an
 * undecoded event for anything else.
 */
function decodeLogs(
  block: Block,
  outcome: ReceiptOutcome,
  contractId: string,
  pools: ReadonlyMap<number, AmmAPoolState | Error>,
  indexFor: (receiptId: string) => number,
  out: AmmAEvent[],
): void {
  const lines = outcome.logs.map(parseAmmALog);
  if (lines.every((l) => l.kind === 'ignored')) return;
  const call = callOf(outcome);
  const swapLines = lines.filter((l): l is Extract<AmmALogLine, { kind: 'swap' }> => l.kind === 'swap');
  const swapPools = matchSwaps(swapLines, call.swaps);
  let swapIndex = 0;
  let liquidityIndex = 0;
  const base = (): EventBase => ({
    blockHeight: block.height,
    timestampMs: block.timestampMs,
    receiptId: outcome.receiptId,
    txHash: outcome.txHash,
    index: indexFor(outcome.receiptId),
  });
  const undecoded = (poolId: string | null, reason: string, raw: string): UndecodedEvent => ({
    ...base(),
    kind: 'undecoded',
    dex: AMM_A_DEX_ID,
    input: 'log',
    contractId,
    poolId,
    reason,
    raw,
  });

  lines.forEach((line, i) => {
    const raw = outcome.logs[i]!;
    if (line.kind === 'ignored') return;
    if (line.kind === 'unreadable') {
      out.push(undecoded(call.namedPool, line.reason, raw));
      return;
    }
    if (line.kind === 'swap') {
      const { kind: _kind, byOutput: _byOutput, ...hop } = line;
      const ev: AmmASwapEvent = { ...base(), kind: 'swap', dex: AMM_A_DEX_ID, contractId, poolId: swapPools[swapIndex++] ?? null, trader: call.trader, ...hop };
      out.push(ev);
      return;
    }
    const op = call.liquidity[liquidityIndex++];
    if (op === undefined) {
      out.push(undecoded(call.namedPool, 'no liquidity call of the receipt for this line', raw));
      return;
    }
    const change = liquidityChange(line, op, pools);
    if (typeof change === 'string') {
      out.push(undecoded(String(op.poolId), change, raw));
      return;
    }
    const ev: AmmALiquidityEvent = { ...base(), kind: 'liquidity', dex: AMM_A_DEX_ID, contractId, poolId: op.poolId, ...change };
    out.push(ev);
  });
}

type LiquidityLine = Extract<AmmALogLine, { kind: 'simple_add' | 'simple_remove' | 'stable_add' | 'stable_remove' | 'stable_remove_by_tokens' }>;
type LiquidityChange = Pick<AmmALiquidityEvent, 'provider' | 'action' | 'tokens' | 'amounts' | 'shares'>;

/** The calls each liquidity line answers to (`hot_zap`: an `add_liquidity_infos` item of a HotZap msg). */
const LINE_CALLS: Readonly<Record<LiquidityLine['kind'], readonly LiquidityMethod[]>> = {
  simple_add: ['add_liquidity', 'hot_zap'],
  simple_remove: ['remove_liquidity'],
  stable_add: ['add_stable_liquidity', 'hot_zap'],
  stable_remove: ['remove_liquidity'],
  stable_remove_by_tokens: ['remove_liquidity_by_tokens'],
};

/** What a liquidity line moved, or why it cannot be read. */
function liquidityChange(line: LiquidityLine, op: LiquidityOp, pools: ReadonlyMap<number, AmmAPoolState | Error>): LiquidityChange | string {
  if (!LINE_CALLS[line.kind].includes(op.method)) return `a ${line.kind} line for a ${op.method} call`;
  const action = line.kind === 'simple_add' || line.kind === 'stable_add' ? 'add' : 'remove';
  if ('moves' in line) {
    return { provider: op.provider, action, tokens: line.moves.map((m) => m.token), amounts: line.moves.map((m) => m.amount), shares: line.shares };
  }
  // The line names no token: they are the pool's, in pool order, from its write in this block (every liquidity
  // call writes its pool).
  const pool = pools.get(op.poolId);
  if (pool === undefined || pool instanceof Error) return `tokens of pool ${op.poolId} unknown: no readable write of it in the block`;
  const amounts = line.kind === 'stable_remove' ? line.amounts : op.amounts;
  if (amounts === null) return `no amounts in the ${op.method} call`;
  if (amounts.length !== pool.tokens.length) return `${amounts.length} amounts for the ${pool.tokens.length} tokens of pool ${op.poolId}`;
  return { provider: line.provider, action, tokens: [...pool.tokens], amounts, shares: line.shares };
}

// ---- the receipt's call ----

type LiquidityMethod = 'add_liquidity' | 'add_stable_liquidity' | 'remove_liquidity' | 'remove_liquidity_by_tokens' | 'hot_zap';

/** A liquidity call of the receipt: the pool, who provides, and the `amounts` argument when it has one. */
interface LiquidityOp {
  method: LiquidityMethod;
  poolId: number;
  provider: string;
  amounts: bigint[] | null;
}

/** One action of the contract's `Action` enum (action.rs): `SwapAction` or `SwapByOutputAction`. */
interface SwapStep {
  poolId: number;
  tokenIn: string;
  tokenOut: string;
  byOutput: boolean;
  /** The given amount: `amount_in` of a swap (for an instant swap's first action without one, the transferred
   * amount), `amount_out` of a swap by output. */
  amount: bigint | null;
  /** No amount given, and not its call's first action: it takes the previous action's result (the previous line's
   * amount out for a swap, its amount in for a swap by output; lib.rs internal_execute_actions). */
  chained: boolean;
}

interface Call {
  swaps: SwapStep[];
  liquidity: LiquidityOp[];
  /** `ft_on_transfer`'s `sender_id`, else the receipt's predecessor; null when the call has no swap actions. */
  trader: string | null;
  /** The pool the call names when it names exactly one (an undecoded line belongs to it), else null. */
  namedPool: string | null;
}

const LIQUIDITY_METHODS = new Set<string>(['add_liquidity', 'add_stable_liquidity', 'remove_liquidity', 'remove_liquidity_by_tokens']);
/** How each method's `actions` deserialize: `swap` takes `Vec<SwapAction>`, `swap_by_output` `Vec<SwapByOutputAction>`,
 * the others the untagged `Vec<Action>` (a `SwapAction` when it has `min_amount_out`, else a `SwapByOutputAction`). */
const SWAP_METHODS: Readonly<Record<string, 'swap' | 'by_output' | 'either'>> = {
  swap: 'swap',
  swap_by_output: 'by_output',
  execute_actions: 'either',
  execute_actions_in_va: 'either',
};

/**
 * The swap actions and liquidity calls of a receipt, in execution order: `ft_on_transfer` (msg `{"actions": [...]}`,
 * the instant swap of `ft_transfer_call`, or HotZap's `{"hot_zap_actions": [...], "add_liquidity_infos": [...]}`),
 * `swap`, `swap_by_output`, `execute_actions`, `execute_actions_in_va` (args `actions`, on deposited funds), and the
 * liquidity methods (`pool_id`, `amounts`).
 */
function callOf(outcome: ReceiptOutcome): Call {
  const call: Call = { swaps: [], liquidity: [], trader: null, namedPool: null };
  if (outcome.receipt.kind !== 'Action') return call;
  const named = new Set<number>();
  for (const action of outcome.receipt.actions) {
    if (action.kind !== 'FunctionCall') continue;
    const args = parseJsonObject(Buffer.from(action.argsBase64, 'base64').toString('utf8'));
    if (args === null) continue;
    const method = action.methodName;
    const argPool = poolIdOf(args.pool_id);
    if (argPool !== null) named.add(argPool);
    if (LIQUIDITY_METHODS.has(method) && argPool !== null) {
      call.liquidity.push({ method: method as LiquidityMethod, poolId: argPool, provider: outcome.predecessorId, amounts: amountsOf(args.amounts) });
      continue;
    }
    let list: unknown;
    let as: 'swap' | 'by_output' | 'either' = 'either';
    let trader = outcome.predecessorId;
    let transferred: bigint | null = null;
    if (method === 'ft_on_transfer') {
      const msg = typeof args.msg === 'string' ? parseJsonObject(args.msg) : null;
      if (msg === null || typeof args.sender_id !== 'string') continue;
      trader = args.sender_id;
      transferred = parseU128(args.amount);
      // TokenReceiverMessage is untagged: Execute when `actions` is there, else HotZap.
      list = 'actions' in msg ? msg.actions : msg.hot_zap_actions;
      if (!('actions' in msg) && Array.isArray(msg.add_liquidity_infos)) {
        for (const info of msg.add_liquidity_infos) {
          const o = asRecord(info);
          const poolId = poolIdOf(o?.pool_id);
          if (poolId === null) continue;
          named.add(poolId);
          call.liquidity.push({ method: 'hot_zap', poolId, provider: trader, amounts: amountsOf(o?.amounts) });
        }
      }
    } else if (method in SWAP_METHODS) {
      list = args.actions;
      as = SWAP_METHODS[method]!;
    }
    if (!Array.isArray(list)) continue;
    call.trader = trader;
    list.forEach((item, i) => {
      const step = swapStep(item, as, i === 0, transferred);
      if (step === null) return;
      named.add(step.poolId);
      call.swaps.push(step);
    });
  }
  if (named.size === 1) call.namedPool = String([...named][0]);
  return call;
}

function swapStep(item: unknown, as: 'swap' | 'by_output' | 'either', first: boolean, transferred: bigint | null): SwapStep | null {
  const o = asRecord(item);
  const poolId = poolIdOf(o?.pool_id);
  if (o === null || poolId === null || typeof o.token_in !== 'string' || typeof o.token_out !== 'string') return null;
  const byOutput = as === 'by_output' || (as === 'either' && parseU128(o.min_amount_out) === null);
  const given = byOutput ? o.amount_out : o.amount_in;
  let amount: bigint | null = null;
  if (given !== undefined && given !== null) {
    amount = parseU128(given);
    if (amount === null) return null;
  }
  const chained = amount === null && !first;
  // An instant swap's first action without amount_in swaps the transferred amount (token_receiver.rs).
  if (amount === null && first && !byOutput) amount = transferred;
  return { poolId, tokenIn: o.token_in, tokenOut: o.token_out, byOutput, amount, chained };
}

/**
 * The pool of each swap line: its action's, when the receipt's actions and lines pair up one to one (the contract
 * logs one line per action, in action order) and every pair agrees (kind, tokens, the given or chained amount);
 * else null for every line.
 */
function matchSwaps(lines: ReadonlyArray<Extract<AmmALogLine, { kind: 'swap' }>>, steps: readonly SwapStep[]): Array<number | null> {
  const matched =
    lines.length === steps.length &&
    lines.every((line, i) => {
      const step = steps[i]!;
      const previous = lines[i - 1];
      if (step.byOutput !== line.byOutput || step.tokenIn !== line.tokenIn || step.tokenOut !== line.tokenOut) return false;
      const amount = line.byOutput ? line.amountOut : line.amountIn;
      if (step.amount !== null) return amount === step.amount;
      if (!step.chained) return true;
      return previous !== undefined && amount === (line.byOutput ? previous.amountIn : previous.amountOut);
    });
  return lines.map((_, i) => (matched ? steps[i]!.poolId : null));
}

function poolIdOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** A `Vec<U128>` argument, or null when it is not one. */
function amountsOf(value: unknown): bigint[] | null {
  if (!Array.isArray(value)) return null;
  const amounts = value.map(parseU128);
  return amounts.some((a) => a === null) ? null : (amounts as bigint[]);
}
