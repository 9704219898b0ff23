// Block -> Launch events (Aidols bonding curve `aidols.near`; tokens `*.aidols.near`, quoted in wNEAR). Pure.
//
// Two sources, kept apart as for AmmA:
// - trades: the NEP-297 event `token_swap` of SUCCESSFUL receipts executed by the contract (a failed receipt keeps
//   its logs, nothing else), whose `data` is a list of items {user_id, input_token, input_amount, output_token,
//   output_amount, referral_id, token_hold, wnear_hold, wnear_commission} (T). Matched by event name and fields:
//   the `standard` string is not known (Intear's parser never checks it). One `swap` per item, pool = the aidol token.
// - curve state: the contract's storage writes of the curve record, key `0x00 ‖ borsh(String token_id)`, value
//   borsh `{token_hold: u128, wnear_hold: u128, is_deployed: bool, is_tradable: bool}` (T). Lake lists a key's
//   writes in execution order: the last one is the state after the block (source 'storage').
// Storage is the truth where present: a curve traded in a block with no write of its record (a block source without
// state changes) takes the holds of its last `token_swap` item instead (source 'event', flags unknown).
//
// Nothing from the chain makes this throw. The contract's source is not public, so no other log line is known to
// be harmless: any line of a successful receipt that is not a readable `token_swap` (another event, plain text, an
// item we cannot read: the line is taken whole or not at all) is an `undecoded` event. So is a curve record that
// does not decode exactly or is deleted; that one names the curve, stale until a readable write arrives.
// Sources and grades: README.md.
import { causeOf, type Block, type StateChange } from '../../near/block.ts';
import { BorshReader } from '../../near/borsh.ts';
import { isSuccess } from '../../near/decode.ts';
import type { EventBase, UndecodedEvent } from '../../near/events.ts';
import { asRecord, parseEventLog } from '../../near/nep297.ts';
import { isValidAccountId } from '../../near/token-id.ts';
import { parseU128 } from '../../near/units.ts';
import type { DexContracts } from '../contracts.ts';
import type { DexEvent, SwapEvent } from '../events.ts';
import { LAUNCH_DEX_ID, LAUNCH_FEE_MILLIONTHS, LAUNCH_MIN_FEE, type LaunchPoolState, type LaunchPoolStateEvent } from './events.ts';

export type LaunchEvent = DexEvent | UndecodedEvent;

interface Trade {
  token: string;
  swap: Pick<SwapEvent, 'trader' | 'tokenIn' | 'tokenOut' | 'amountIn' | 'amountOut' | 'totalFee'>;
  holds: [bigint, bigint];
}

/** An event before its index is known, and the curve it states (event-derived pool_state only). */
interface Pending {
  event: LaunchEvent;
  statesCurve: string | null;
}

export function decodeLaunch(block: Block, contracts: DexContracts): LaunchEvent[] {
  const contractId = contracts.Launch;
  const nextIndex = new Map<string, number>();
  const base = (receiptId: string, txHash: string | null): EventBase => {
    const index = nextIndex.get(receiptId) ?? 0;
    nextIndex.set(receiptId, index + 1);
    return { blockHeight: block.height, timestampMs: block.timestampMs, receiptId, txHash, index };
  };

  // The last write of each curve record in the block.
  const lastWrite = new Map<string, StateChange>();
  for (const shard of block.shards) {
    for (const sc of shard.stateChanges) {
      if ((sc.type !== 'data_update' && sc.type !== 'data_deletion') || sc.change.accountId !== contractId) continue;
      const token = curveOfKey(sc.change.keyBase64);
      if (token === null) continue;
      lastWrite.delete(token);
      lastWrite.set(token, sc);
    }
  }

  // 1. Log lines, in block order; a curve's event-derived state only when its record was not written.
  const pending: Pending[] = [];
  for (const shard of block.shards) {
    for (const outcome of shard.receiptOutcomes) {
      if (outcome.executorId !== contractId || !isSuccess(outcome)) continue;
      const at = { blockHeight: block.height, timestampMs: block.timestampMs, receiptId: outcome.receiptId, txHash: outcome.txHash, index: 0 };
      for (const log of outcome.logs) {
        const read = tradesOf(log, contracts.Wrap);
        if (typeof read === 'string') {
          pending.push({ event: undecoded(at, contractId, 'log', null, read, log), statesCurve: null });
          continue;
        }
        for (const trade of read) {
          const curve = { dex: LAUNCH_DEX_ID, contractId, poolId: trade.token } as const;
          pending.push({ event: { ...at, kind: 'swap', ...curve, ...trade.swap, adminFee: null }, statesCurve: null });
          if (lastWrite.has(trade.token)) continue;
          const state = curveState(trade.token, contracts.Wrap, trade.holds, null, null);
          const event: LaunchPoolStateEvent = { ...at, kind: 'pool_state', ...curve, state, source: 'event' };
          pending.push({ event, statesCurve: trade.token });
        }
      }
    }
  }
  const lastStateAt = new Map<string, number>();
  pending.forEach((p, i) => {
    if (p.statesCurve !== null) lastStateAt.set(p.statesCurve, i);
  });
  const events: LaunchEvent[] = [];
  pending.forEach((p, i) => {
    if (p.statesCurve !== null && lastStateAt.get(p.statesCurve) !== i) return;
    events.push({ ...p.event, index: base(p.event.receiptId, p.event.txHash).index });
  });

  // 2. The curve records written, after the receipt's log-derived events.
  for (const [token, sc] of lastWrite) {
    const { receiptId, txHash } = causeOf(block, sc);
    const at = base(receiptId, txHash);
    const raw = `${sc.change.keyBase64 ?? ''}=${sc.change.valueBase64 ?? ''}`;
    if (sc.type === 'data_deletion') {
      events.push(undecoded(at, contractId, 'state', token, 'curve record deleted', raw));
      continue;
    }
    let state: LaunchPoolState;
    try {
      state = decodeCurveRecord(token, contracts.Wrap, sc.change.valueBase64 ?? '');
    } catch (err) {
      events.push(undecoded(at, contractId, 'state', token, err instanceof Error ? err.message : String(err), raw));
      continue;
    }
    const event: LaunchPoolStateEvent = { ...at, kind: 'pool_state', dex: LAUNCH_DEX_ID, contractId, poolId: token, state, source: 'storage' };
    events.push(event);
  }
  return events;
}

/** The token of a curve record's key `0x00 ‖ u32le(len) ‖ utf8(token_id)`; null for any other key. */
export function curveOfKey(keyBase64: string | undefined): string | null {
  // Byte 0x00 makes the first base64 character "A": most keys of the contract stop here.
  if (keyBase64 === undefined || keyBase64.charCodeAt(0) !== 0x41) return null;
  const key = BorshReader.fromBase64(keyBase64);
  try {
    if (key.u8() !== 0x00) return null;
    const token = key.string();
    key.done();
    return isValidAccountId(token) ? token : null;
  } catch {
    return null;
  }
}

/** The curve record `{token_hold: u128, wnear_hold: u128, is_deployed: bool, is_tradable: bool}`, exactly; throws a
 * BorshError naming what does not decode (a short value, a bool that is not 0 or 1, leftover bytes). */
export function decodeCurveRecord(token: string, wrap: string, valueBase64: string): LaunchPoolState {
  const r = BorshReader.fromBase64(valueBase64);
  const holds: [bigint, bigint] = [r.u128(), r.u128()];
  const isDeployed = r.bool();
  const isTradable = r.bool();
  r.done('curve record');
  return curveState(token, wrap, holds, isDeployed, isTradable);
}

function curveState(token: string, wrap: string, holds: [bigint, bigint], isDeployed: boolean | null, isTradable: boolean | null): LaunchPoolState {
  return { kind: 'curve', tokens: [token, wrap], amounts: [...holds], totalFee: LAUNCH_FEE_MILLIONTHS, minFee: LAUNCH_MIN_FEE, isDeployed, isTradable };
}

/** The trades of a `token_swap` line, all or none; otherwise why the line cannot be read. */
function tradesOf(log: string, wrap: string): Trade[] | string {
  const parsed = parseEventLog(log);
  if (parsed === null) return 'not a NEP-297 event';
  if (parsed.event !== 'token_swap') return `unknown event ${parsed.event} (standard ${parsed.standard})`;
  if (!Array.isArray(parsed.data)) return 'token_swap data is not a list';
  const trades: Trade[] = [];
  for (const [i, item] of parsed.data.entries()) {
    const trade = tradeOf(asRecord(item), wrap);
    if (typeof trade === 'string') return `token_swap item ${i}: ${trade}`;
    trades.push(trade);
  }
  return trades;
}

const AMOUNT_FIELDS = ['input_amount', 'output_amount', 'token_hold', 'wnear_hold', 'wnear_commission'] as const;

function tradeOf(item: Record<string, unknown> | null, wrap: string): Trade | string {
  if (item === null) return 'not an object';
  const unreadable = AMOUNT_FIELDS.find((f) => parseU128(item[f]) === null);
  if (unreadable !== undefined) return `${unreadable} is not a u128`;
  const [amountIn, amountOut, tokenHold, wnearHold, commission] = AMOUNT_FIELDS.map((f) => parseU128(item[f]) as bigint) as [bigint, bigint, bigint, bigint, bigint];
  const { user_id: user, input_token: tokenIn, output_token: tokenOut, referral_id: referral } = item;
  if (typeof user !== 'string' || !isValidAccountId(user)) return 'user_id is not an account id';
  if (referral !== undefined && referral !== null && typeof referral !== 'string') return 'referral_id is not an account id or null';
  if (typeof tokenIn !== 'string' || typeof tokenOut !== 'string') return 'a token is not a string';
  // One side is wNEAR, the other the aidol token whose curve this is.
  const token = tokenIn === wrap ? tokenOut : tokenOut === wrap ? tokenIn : null;
  if (token === null || token === wrap || !isValidAccountId(token)) return `not a trade of ${wrap} against one token: ${tokenIn} -> ${tokenOut}`;
  return {
    token,
    swap: { trader: user, tokenIn, tokenOut, amountIn, amountOut, totalFee: commission },
    holds: [tokenHold, wnearHold],
  };
}

function undecoded(at: EventBase, contractId: string, input: 'log' | 'state', poolId: string | null, reason: string, raw: string): UndecodedEvent {
  return { ...at, kind: 'undecoded', dex: LAUNCH_DEX_ID, input, contractId, poolId, reason, raw };
}
