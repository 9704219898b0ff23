// Decoding bits the four stake decoders share: numbering events per receipt, reading NEP-297 logs and the
// contract's STATE write, telling a contract's known log lines from the ones we cannot read. Pure: no I/O;
// contract-controlled text never makes these throw.
import type { Block, ReceiptOutcome, StateChange } from '../../near/block.ts';
import { BorshError } from '../../near/borsh.ts';
import { isSuccess } from '../../near/decode.ts';
import { EVENT_JSON_PREFIX, asRecord, parseEventLog, parseJsonObject, type Nep297Event } from '../../near/nep297.ts';
import type { EventBase, UndecodedEvent } from '../../near/events.ts';
import { isValidAccountId } from '../../near/token-id.ts';
import { parseU128 } from '../../near/units.ts';
import type { DexEvent, DexId, PoolStateEvent, PoolStateSource, SwapEvent } from '../events.ts';
import type { StakeRateState } from './rate.ts';

/** The swap fields a stake decoder fills in; the rest (dex, contract, pool, base) the sink adds. */
export interface StakeSwap {
  trader: string | null;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  amountOut: bigint;
  totalFee?: bigint | null;
  adminFee?: bigint | null;
}

/**
 * Collects one stake DEX's events of a block, numbered per receipt from 0 in the order they are added. The pool of
 * a stake DEX is its staking contract: poolId = contractId.
 */
export class StakeEventSink<E = never> {
  readonly events: (DexEvent | UndecodedEvent | E)[] = [];
  private readonly nextIndex = new Map<string, number>();

  constructor(
    private readonly block: Block,
    readonly dex: DexId,
    readonly contractId: string,
  ) {}

  /** The next event's key fields in `receiptId` (a DEX's own events take theirs here too). */
  base(receiptId: string, txHash: string | null): EventBase {
    const index = this.nextIndex.get(receiptId) ?? 0;
    this.nextIndex.set(receiptId, index + 1);
    return { blockHeight: this.block.height, timestampMs: this.block.timestampMs, receiptId, txHash, index };
  }

  swap(outcome: ReceiptOutcome, s: StakeSwap): void {
    const ev: SwapEvent = {
      ...this.base(outcome.receiptId, outcome.txHash),
      kind: 'swap',
      dex: this.dex,
      contractId: this.contractId,
      poolId: this.contractId,
      trader: s.trader,
      tokenIn: s.tokenIn,
      tokenOut: s.tokenOut,
      amountIn: s.amountIn,
      amountOut: s.amountOut,
      totalFee: s.totalFee ?? null,
      adminFee: s.adminFee ?? null,
    };
    this.events.push(ev);
  }

  poolState(receiptId: string, txHash: string | null, state: StakeRateState, source: PoolStateSource): void {
    const ev: PoolStateEvent<StakeRateState> = {
      ...this.base(receiptId, txHash),
      kind: 'pool_state',
      dex: this.dex,
      contractId: this.contractId,
      poolId: this.contractId,
      state,
      source,
    };
    this.events.push(ev);
  }

  /** A log line of the contract that we cannot read: kept and counted, the pool's state is not touched. */
  undecodedLog(outcome: ReceiptOutcome, log: string, reason: string): void {
    this.undecoded(outcome.receiptId, outcome.txHash, { input: 'log', poolId: null, reason, raw: log });
  }

  /**
   * A `STATE` value that does not read as the layout we know. `stale`: the rate itself is unreadable, so the pool
   * is stale until a readable write arrives; false when only fields behind the rate are (the rate stands).
   */
  undecodedState(block: Block, write: StateChange, reason: string, stale = true): void {
    const { receiptId, txHash } = causeOf(block, write);
    const raw = `${write.change.keyBase64 ?? ''}=${write.change.valueBase64 ?? ''}`;
    this.undecoded(receiptId, txHash, { input: 'state', poolId: stale ? this.contractId : null, reason, raw });
  }

  private undecoded(receiptId: string, txHash: string | null, u: Pick<UndecodedEvent, 'input' | 'poolId' | 'reason' | 'raw'>): void {
    const ev: UndecodedEvent = { ...this.base(receiptId, txHash), kind: 'undecoded', dex: this.dex, contractId: this.contractId, ...u };
    this.events.push(ev);
  }
}

/** A storage value whose bytes read but not as the layout we know (an account id that is none, bounds out of range). */
export class StateLayoutError extends Error {
  override name = 'StateLayoutError';
}

/** Why a storage value could not be read, when `err` is one of the readers' own errors; anything else is a bug. */
export function unreadableStateReason(err: unknown): string {
  if (err instanceof BorshError || err instanceof StateLayoutError) return err.message;
  throw err;
}

/**
 * The log lines a contract writes that its decoder does not turn into events, known from its source, so that any
 * other line can be reported as undecoded. Events of the contract's own NEP-297 standard are its decoder's business
 * (it knows their names); here are the other standards it logs (`nep141`: the core decoder reads them; plugins'
 * admin events) and its plain-text lines, as the source's format strings (`log!("Staking of {} at @{} {}")`,
 * `{{`/`}}` for literal braces, any `{..}` placeholder standing for any text). A malformed `EVENT_JSON:` line is
 * left to the core NEP-297 decoder.
 */
export class KnownLogs {
  private readonly otherStandards: ReadonlySet<string>;
  private readonly text: readonly RegExp[];

  constructor(otherStandards: readonly string[], textFormats: readonly string[]) {
    this.otherStandards = new Set(otherStandards);
    this.text = textFormats.map(formatPattern);
  }

  has(log: string): boolean {
    if (log.startsWith(EVENT_JSON_PREFIX)) {
      const ev = parseEventLog(log);
      return ev === null || this.otherStandards.has(ev.standard);
    }
    return this.text.some((re) => re.test(log));
  }
}

/** A Rust format string as a whole-line pattern: `{{` and `}}` are braces, `{}` / `{:?}` any text. */
function formatPattern(format: string): RegExp {
  let re = '';
  for (let i = 0; i < format.length; i++) {
    const c = format[i] as string;
    if ((c === '{' || c === '}') && format[i + 1] === c) {
      re += `\\${c}`;
      i++;
    } else if (c === '{') {
      i = format.indexOf('}', i);
      if (i < 0) throw new Error(`unclosed placeholder in format ${JSON.stringify(format)}`);
      re += '[\\s\\S]*';
    } else {
      re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`);
}

/** The successful receipts the contract executed, in block order (a failed receipt keeps its logs: skip it). */
export function* successfulOutcomesOf(block: Block, contractId: string): Generator<ReceiptOutcome> {
  for (const shard of block.shards) {
    for (const outcome of shard.receiptOutcomes) {
      if (outcome.executorId === contractId && isSuccess(outcome)) yield outcome;
    }
  }
}

/** A NEP-297 event whose `data` is an array, or null. */
export function parseEventJson(log: string): (Nep297Event & { data: unknown[] }) | null {
  const ev = parseEventLog(log);
  return ev !== null && Array.isArray(ev.data) ? (ev as Nep297Event & { data: unknown[] }) : null;
}

export function accountField(o: Record<string, unknown>, key: string): string | null {
  const v = o[key];
  return typeof v === 'string' && isValidAccountId(v) ? v : null;
}

/** A u128 decimal-string field (the JSON form of amounts), or null. */
export function amountField(o: Record<string, unknown>, key: string): bigint | null {
  return parseU128(o[key]);
}

/** `ft_mint` items of the receipt's NEP-141 events: [owner, amount] in log order. */
export function ftMintsOf(outcome: ReceiptOutcome): Array<{ owner: string; amount: bigint }> {
  const mints: Array<{ owner: string; amount: bigint }> = [];
  for (const log of outcome.logs) {
    const ev = parseEventJson(log);
    if (ev === null || ev.standard !== 'nep141' || ev.event !== 'ft_mint') continue;
    for (const item of ev.data) {
      const o = asRecord(item);
      const owner = o === null ? null : accountField(o, 'owner_id');
      const amount = o === null ? null : amountField(o, 'amount');
      if (owner !== null && amount !== null) mints.push({ owner, amount });
    }
  }
  return mints;
}

/** The FunctionCall actions of an Action receipt, with their args parsed as a JSON object (null when not one). */
export function functionCallsOf(outcome: ReceiptOutcome): Array<{ method: string; args: Record<string, unknown> | null }> {
  if (outcome.receipt.kind !== 'Action') return [];
  const calls: Array<{ method: string; args: Record<string, unknown> | null }> = [];
  for (const action of outcome.receipt.actions) {
    if (action.kind !== 'FunctionCall') continue;
    calls.push({ method: action.methodName, args: parseJsonObject(Buffer.from(action.argsBase64, 'base64').toString('utf8')) });
  }
  return calls;
}

const STATE_KEY_B64 = Buffer.from('STATE', 'utf8').toString('base64');

/**
 * The contract's last write of its near-sdk root key `STATE` in the block (Lake lists repeated writes of a key in
 * execution order, so the last one is the state after the block), or undefined.
 */
export function lastStateWrite(block: Block, contractId: string): StateChange | undefined {
  let last: StateChange | undefined;
  for (const shard of block.shards) {
    for (const sc of shard.stateChanges) {
      if (sc.type === 'data_update' && sc.change.accountId === contractId && sc.change.keyBase64 === STATE_KEY_B64) last = sc;
    }
  }
  return last;
}

/** The receipt (and its transaction, when the block tells it) that caused a state change. */
export function causeOf(block: Block, sc: StateChange): { receiptId: string; txHash: string | null } {
  const receiptId = sc.cause?.receiptHash ?? `(${sc.cause?.type ?? 'unknown cause'})`;
  let txHash = sc.cause?.txHash ?? null;
  if (txHash === null) {
    for (const shard of block.shards) {
      for (const o of shard.receiptOutcomes) if (o.receiptId === receiptId) txHash = o.txHash;
    }
  }
  return { receiptId, txHash };
}
