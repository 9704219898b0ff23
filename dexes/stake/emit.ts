// Decoding bits the four stake decoders share: numbering events per receipt, reading NEP-297 logs and the
// contract's STATE write. Pure: no I/O; contract-controlled text never makes these throw.
import type { Block, ReceiptOutcome, StateChange } from '../../near/block.ts';
import { isSuccess } from '../../near/decode.ts';
import { asRecord, parseEventLog, parseJsonObject, type Nep297Event } from '../../near/nep297.ts';
import type { EventBase } from '../../near/events.ts';
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
  readonly events: (DexEvent | E)[] = [];
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
