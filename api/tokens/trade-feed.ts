// trades.subscribe: a live feed of the trades of a token or a pool on /ws. After each notification the socket hub
// reads the trades of the blocks it has not pushed yet once (`readTradesAfter`), and each feed takes the ones that
// match its filter (`matches`), oldest first, as trades.query rows. Feeds with equal params that stood at the same
// height share one serialized push. Pure but for the read.
import { z } from 'zod';
import type { Kysely } from 'kysely';
import { sql } from '../../db/kysely.ts';
import type { Database } from '../../db/schema.ts';
import { dexParam, poolIdParam, tokenIdParam } from './ids.ts';
import { tradeDefaultFields, tradeRow } from './methods/history.ts';

export const tradesSubscribeParams = z.strictObject({
  token: tokenIdParam.optional().describe('trades with this token on either side'),
  pool_id: poolIdParam.optional().describe("trades through this pool (any hop); with dex when the id is several DEXes'"),
  dex: dexParam.optional().describe('trades of this DEX (with pool_id: the pool\'s)'),
  min_usd: z.number().min(0).optional().describe('smallest USD value pushed (trades without a USD value are dropped)'),
});
export type TradesSubscribeParams = z.output<typeof tradesSubscribeParams>;

export interface TradeFilter {
  token?: string;
  dex?: string;
  poolId?: string;
  /** The smallest USD value, as exact decimal text (PostgreSQL's reading of the number given). */
  minUsd?: string;
}

/** A trade as read for the feeds: the `trades` row, value_usd as text. */
export type TradeRow = Record<string, any> & { block_height: string; dex: string; token_in: string; token_out: string; pool_ids: (string | null)[]; value_usd: string | null };

/** Whether decimal text `a` >= `b` (both non-negative, plain digits with an optional fraction), exactly. */
export function decimalAtLeast(a: string, b: string): boolean {
  const [ai = '0', af = ''] = a.split('.');
  const [bi = '0', bf = ''] = b.split('.');
  const digits = Math.max(af.length, bf.length);
  return BigInt(ai + af.padEnd(digits, '0')) >= BigInt(bi + bf.padEnd(digits, '0'));
}

export function matches(filter: TradeFilter, trade: TradeRow): boolean {
  if (filter.token !== undefined && trade.token_in !== filter.token && trade.token_out !== filter.token) return false;
  if (filter.dex !== undefined && trade.dex !== filter.dex) return false;
  if (filter.poolId !== undefined && !trade.pool_ids.includes(filter.poolId)) return false;
  if (filter.minUsd !== undefined && (trade.value_usd === null || !decimalAtLeast(trade.value_usd, filter.minUsd))) return false;
  return true;
}

/** The rows a feed pushes, as trades.query gives them by default (`side` relative to the token). */
export const feedRows = (filter: TradeFilter, trades: readonly TradeRow[]) => trades.map((t) => tradeRow(t, tradeDefaultFields(filter.token), filter.token));

/** The trades of the blocks after `from` up to `to`, oldest first. */
export async function readTradesAfter(db: Kysely<Database>, from: number, to: number): Promise<TradeRow[]> {
  const { rows } = await sql<TradeRow>`
    select block_height, receipt_id, index, timestamp_ms, tx_hash, dex, trader, token_in, token_out, amount_in::text, amount_out::text,
      hops, pool_ids, receipt_ids, value_usd::text
    from trades where block_height > ${from} and block_height <= ${to}
    order by block_height, receipt_id, index`.execute(db);
  return rows;
}

/** A number as PostgreSQL reads it (`1e-7` is 0.0000001): the exact decimal min_usd is compared with, as trades.query does. */
export async function exactDecimal(db: Kysely<Database>, value: number): Promise<string> {
  const { rows } = await sql<{ text: string }>`select ${String(value)}::numeric::text as text`.execute(db);
  return rows[0]!.text;
}
