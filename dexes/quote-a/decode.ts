// Block -> QuoteA events (NEAR Intents, the verifier `intents.near`): the settled trades of its `token_diff`
// events. Pure; see README.md for the event JSON and its source.
//
// `EVENT_JSON:{"standard":"dip4","version":"0.3.0","event":"token_diff","data":[{"intent_hash":H,"account_id":A,
//   "diff":{"<token id>":"<signed amount>",...},"referral"?:R,"fees_collected"?:{"<token id>":"<amount>"}}]}`
// One swap per data item whose diff has exactly two tokens, one negative (paid: tokenIn, |delta|) and one positive
// (received: tokenOut); the fee is `fees_collected` of the paid token (already inside |delta|). Solvers settle the
// other side with their own token_diff, so each fill shows up as two swaps, one per account. Other shapes (one
// token, several paid or received) are not trades of one pair and are skipped. Pool: none (request for quote).
//
// Undecoded (kept and counted, see near/events.ts): a `dip4` event whose name the verifier's source never had, a
// `token_diff` line we cannot read, and a line that is no NEP-297 event at all (the verifier's source logs only
// events). Other standards' events (NEP-245 `mt_*`, near-plugins' admin events) are not QuoteA's; a malformed
// `EVENT_JSON:` line is left to the core NEP-297 decoder.
import type { Block } from '../../near/block.ts';
import { isSuccess } from '../../near/decode.ts';
import { EVENT_JSON_PREFIX, asRecord as asObject, parseEventLog, type Nep297Event } from '../../near/nep297.ts';
import type { EventBase, UndecodedEvent } from '../../near/events.ts';
import { isValidAccountId } from '../../near/token-id.ts';
import { parseU128 } from '../../near/units.ts';
import type { DexContracts } from '../contracts.ts';
import type { DexEvent, SwapEvent } from '../events.ts';

const NEP141_PREFIX = 'nep141:';
const SIGNED_INT = /^-?\d{1,40}$/;

/**
 * Every event name of the `dip4` standard in near/intents (`DefuseEvent`, snake_case), over its whole history to
 * 32a7836f (2026-08: event versions 0.1.0 to 0.4.3). Only `token_diff` is read.
 */
const DIP4_EVENTS: ReadonlySet<string> = new Set([
  'token_diff',
  'transfer',
  'intents_executed',
  'ft_withdraw',
  'nft_withdraw',
  'mt_withdraw',
  'native_withdraw',
  'storage_deposit',
  'imt_mint',
  'imt_burn',
  'public_key_added',
  'public_key_removed',
  'fee_changed',
  'fee_collector_changed',
  'account_locked',
  'account_unlocked',
  'set_auth_by_predecessor_id',
  'salt_rotation',
]);

/** The event name of a dip4 line as near-sdk writes it (`standard`, `version`, `event` first), without parsing it. */
const DIP4_HEAD = /^EVENT_JSON:\{"standard":"dip4","version":"[^"]*","event":"([a-z0-9_]+)"/;

/**
 * An Intents token id in the event vocabulary: `nep141:<contract>` -> `<contract>` (NEAR itself trades as
 * `nep141:wrap.near`, i.e. wNEAR: the verifier has no native-NEAR id); `nep245:<contract>:<id>` and
 * `nep171:<contract>:<id>` stay as they are (no NEP-141 contract stands for them).
 */
export function intentsTokenId(id: string): string {
  return id.startsWith(NEP141_PREFIX) ? id.slice(NEP141_PREFIX.length) : id;
}

export function decodeQuoteA(block: Block, contracts: DexContracts): Array<DexEvent | UndecodedEvent> {
  const events: Array<DexEvent | UndecodedEvent> = [];
  const contractId = contracts.QuoteA;
  for (const shard of block.shards) {
    for (const outcome of shard.receiptOutcomes) {
      if (outcome.executorId !== contractId || !isSuccess(outcome)) continue;
      let index = 0;
      const base = (): EventBase => ({ blockHeight: block.height, timestampMs: block.timestampMs, receiptId: outcome.receiptId, txHash: outcome.txHash, index: index++ });
      const undecoded = (log: string, reason: string): void => {
        events.push({ ...base(), kind: 'undecoded', dex: 'QuoteA', input: 'log', contractId, poolId: null, reason, raw: log });
      };
      for (const log of outcome.logs) {
        if (!log.startsWith(EVENT_JSON_PREFIX)) {
          undecoded(log, 'not a NEP-297 event: the verifier logs nothing else');
          continue;
        }
        // Most verifier lines are NEP-245 moves, transfers, withdrawals and nonces: name them before parsing.
        const name = DIP4_HEAD.exec(log)?.[1];
        if (name !== undefined && name !== 'token_diff' && DIP4_EVENTS.has(name)) continue;
        if (name === undefined && !log.includes('"dip4"')) continue;
        const ev = parseEventLog(log);
        if (ev === null || ev.standard !== 'dip4') continue;
        if (!DIP4_EVENTS.has(ev.event)) {
          undecoded(log, `unknown dip4 event ${ev.event}`);
        } else if (ev.event === 'token_diff') {
          const trades = tokenDiffTrades(ev);
          if (typeof trades === 'string') undecoded(log, trades);
          else for (const t of trades) events.push({ ...base(), kind: 'swap', dex: 'QuoteA', contractId, poolId: null, ...t, adminFee: null });
        }
      }
    }
  }
  return events;
}

type Trade = Pick<SwapEvent, 'trader' | 'tokenIn' | 'tokenOut' | 'amountIn' | 'amountOut' | 'totalFee'>;

/** The one-pair trades of a `token_diff` event, or why it does not read (then none of its items is taken). */
function tokenDiffTrades(ev: Nep297Event): Trade[] | string {
  if (!Array.isArray(ev.data)) return 'token_diff data is not an array';
  const trades: Trade[] = [];
  for (const [i, item] of ev.data.entries()) {
    const o = asObject(item);
    const diff = o === null ? null : asObject(o.diff);
    if (o === null || diff === null || typeof o.account_id !== 'string' || !isValidAccountId(o.account_id)) {
      return `token_diff item ${i} has no account_id and diff`;
    }
    const entries = Object.entries(diff);
    const deltas = entries.map(([id, v]) => (typeof v === 'string' && SIGNED_INT.test(v) ? { id, delta: BigInt(v) } : null));
    if (deltas.some((d) => d === null)) return `token_diff item ${i}: a delta is not a signed integer`;
    const fees = o.fees_collected === undefined ? null : asObject(o.fees_collected);
    if (o.fees_collected !== undefined && fees === null) return `token_diff item ${i}: fees_collected is not an object`;
    // Diffs of one token, or of several paid or received ones, are not trades of one pair.
    const paid = deltas.filter((d) => d !== null && d.delta < 0n);
    const received = deltas.filter((d) => d !== null && d.delta > 0n);
    if (entries.length !== 2 || paid.length !== 1 || received.length !== 1) continue;
    const [p, r] = [paid[0]!, received[0]!];
    trades.push({
      trader: o.account_id,
      tokenIn: intentsTokenId(p.id),
      tokenOut: intentsTokenId(r.id),
      amountIn: -p.delta,
      amountOut: r.delta,
      totalFee: fees === null ? null : parseU128(fees[p.id]),
    });
  }
  return trades;
}
