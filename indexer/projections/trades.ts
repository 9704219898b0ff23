// The `trades` projection: one row per user swap, from the DEXes' swap events. A user's swap is the swap events
// (pool hops) of one (dex, receipt, trader), in index order (one receipt can settle several accounts' trades: a
// NEAR Intents fill is the user's and the solver's): the token and amount in of the first hop, the token and
// amount out of the last. Stakes, unstakes, wraps and unwraps are swaps of their DEX ids, so they are trades too.
// Failed receipts give no swap events (the decoders see to it), so they give no trades.
import type { Tx } from '../../db/connect.ts';
import { copyRows } from '../../db/copy.ts';
import type { CopyValue } from '../../db/copy-text.ts';
import type { DomainEvent } from '../event-rows.ts';
import { formatUsd } from './prices.ts';

export interface Trade {
  blockHeight: number;
  timestampMs: number;
  receiptId: string;
  txHash: string | null;
  dex: string;
  /** The event index of the first hop: orders the trades of a block. */
  index: number;
  trader: string | null;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  amountOut: bigint;
  /** One per hop, in order; null where the decoder could not tell the pool. */
  poolIds: (string | null)[];
  /** The receipts of its hops (see SwapEvent.receipts), each once, in order. */
  receiptIds: string[];
}

/** The trades of events sorted by compareEvents, in the order of their first hops. Pure. */
export function groupTrades(events: readonly DomainEvent[]): Trade[] {
  const trades = new Map<string, Trade>();
  for (const e of events) {
    if (e.kind !== 'swap') continue;
    const key = `${e.blockHeight}\u0000${e.receiptId}\u0000${e.dex}\u0000${e.trader ?? ''}`;
    const poolId = e.poolId === null ? null : String(e.poolId);
    const trade = trades.get(key);
    if (trade) {
      trade.tokenOut = e.tokenOut;
      trade.amountOut = e.amountOut;
      trade.poolIds.push(poolId);
      for (const r of e.receipts ?? []) if (!trade.receiptIds.includes(r)) trade.receiptIds.push(r);
    } else {
      trades.set(key, {
        blockHeight: e.blockHeight,
        timestampMs: e.timestampMs,
        receiptId: e.receiptId,
        txHash: e.txHash,
        dex: e.dex,
        index: e.index,
        trader: e.trader,
        tokenIn: e.tokenIn,
        tokenOut: e.tokenOut,
        amountIn: e.amountIn,
        amountOut: e.amountOut,
        poolIds: [poolId],
        receiptIds: [...new Set(e.receipts ?? [e.receiptId])],
      });
    }
  }
  return [...trades.values()];
}

const COLUMNS = ['block_height', 'receipt_id', 'dex', 'index', 'timestamp_ms', 'tx_hash', 'trader', 'token_in', 'token_out', 'amount_in', 'amount_out', 'hops', 'pool_ids', 'value_usd', 'receipt_ids'];

/** A text[] literal that can hold NULL elements (db/copy.ts quotes every element, so it cannot). */
function textArray(values: readonly (string | null)[]): string {
  return `{${values.map((v) => (v === null ? 'NULL' : `"${v.replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`;
}

/** A trade as a `trades` row; `valueUsd` in USD_SCALE units, null when neither token has a price. */
export function tradeRow(trade: Trade, valueUsd: bigint | null): CopyValue[] {
  return [
    trade.blockHeight,
    trade.receiptId,
    trade.dex,
    trade.index,
    trade.timestampMs,
    trade.txHash,
    trade.trader,
    trade.tokenIn,
    trade.tokenOut,
    trade.amountIn,
    trade.amountOut,
    trade.poolIds.length,
    textArray(trade.poolIds),
    valueUsd === null ? null : formatUsd(valueUsd),
    textArray(trade.receiptIds),
  ];
}

export async function writeTrades(tx: Tx, rows: readonly CopyValue[][]): Promise<void> {
  await copyRows(tx.client, 'trades', COLUMNS, rows);
}
