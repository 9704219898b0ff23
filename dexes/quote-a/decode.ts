// Block -> QuoteA events (NEAR Intents, the verifier `intents.near`): the settled trades of its `token_diff`
// events. Pure; see README.md for the event JSON and its source.
//
// `EVENT_JSON:{"standard":"dip4","version":"0.3.0","event":"token_diff","data":[{"intent_hash":H,"account_id":A,
//   "diff":{"<token id>":"<signed amount>",...},"referral"?:R,"fees_collected"?:{"<token id>":"<amount>"}}]}`
// One swap per data item whose diff has exactly two tokens, one negative (paid: tokenIn, |delta|) and one positive
// (received: tokenOut); the fee is `fees_collected` of the paid token (already inside |delta|). Solvers settle the
// other side with their own token_diff, so each fill shows up as two swaps, one per account. Other shapes (one
// token, several paid or received) are not trades of one pair and are skipped. Pool: none (request for quote).
import type { Block, ReceiptOutcome } from '../../near/block.ts';
import { isSuccess } from '../../near/decode.ts';
import { asRecord as asObject, parseEventLog } from '../../near/nep297.ts';
import type { EventBase } from '../../near/events.ts';
import { isValidAccountId } from '../../near/token-id.ts';
import { parseU128 } from '../../near/units.ts';
import type { DexContracts } from '../contracts.ts';
import type { DexEvent, SwapEvent } from '../events.ts';

const NEP141_PREFIX = 'nep141:';
const SIGNED_INT = /^-?\d{1,40}$/;

/**
 * An Intents token id in the event vocabulary: `nep141:<contract>` -> `<contract>` (NEAR itself trades as
 * `nep141:wrap.near`, i.e. wNEAR: the verifier has no native-NEAR id); `nep245:<contract>:<id>` and
 * `nep171:<contract>:<id>` stay as they are (no NEP-141 contract stands for them).
 */
export function intentsTokenId(id: string): string {
  return id.startsWith(NEP141_PREFIX) ? id.slice(NEP141_PREFIX.length) : id;
}

export function decodeQuoteA(block: Block, contracts: DexContracts): DexEvent[] {
  const events: DexEvent[] = [];
  for (const shard of block.shards) {
    for (const outcome of shard.receiptOutcomes) {
      if (outcome.executorId !== contracts.QuoteA || !isSuccess(outcome)) continue;
      let index = 0;
      for (const log of outcome.logs) {
        for (const trade of tokenDiffTrades(log)) {
          events.push(swapEvent(block, outcome, contracts.QuoteA, index++, trade));
        }
      }
    }
  }
  return events;
}

type Trade = Pick<SwapEvent, 'trader' | 'tokenIn' | 'tokenOut' | 'amountIn' | 'amountOut' | 'totalFee'>;

function swapEvent(block: Block, outcome: ReceiptOutcome, contractId: string, index: number, t: Trade): SwapEvent {
  const base: EventBase = { blockHeight: block.height, timestampMs: block.timestampMs, receiptId: outcome.receiptId, txHash: outcome.txHash, index };
  return { ...base, kind: 'swap', dex: 'QuoteA', contractId, poolId: null, ...t, adminFee: null };
}

function tokenDiffTrades(log: string): Trade[] {
  // Cheap filter before JSON.parse: most verifier logs are transfers, withdrawals and nonces.
  const ev = parseEventLog(log, '"token_diff"');
  if (ev === null || ev.standard !== 'dip4' || ev.event !== 'token_diff' || !Array.isArray(ev.data)) return [];
  const trades: Trade[] = [];
  for (const item of ev.data) {
    const o = asObject(item);
    const diff = o === null ? null : asObject(o.diff);
    if (o === null || diff === null || typeof o.account_id !== 'string' || !isValidAccountId(o.account_id)) continue;
    const entries = Object.entries(diff);
    if (entries.length !== 2) continue;
    const deltas = entries.map(([id, v]) => (typeof v === 'string' && SIGNED_INT.test(v) ? { id, delta: BigInt(v) } : null));
    const paid = deltas.find((d) => d !== null && d.delta < 0n);
    const received = deltas.find((d) => d !== null && d.delta > 0n);
    if (paid === undefined || paid === null || received === undefined || received === null) continue;
    const fees = asObject(o.fees_collected);
    trades.push({
      trader: o.account_id,
      tokenIn: intentsTokenId(paid.id),
      tokenOut: intentsTokenId(received.id),
      amountIn: -paid.delta,
      amountOut: received.delta,
      totalFee: fees === null ? null : parseU128(fees[paid.id]),
    });
  }
  return trades;
}
