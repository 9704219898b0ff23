// candles.get and prices.at: a token's USD (or NEAR) candles with gaps filled, and the price in force at times.
import { z } from 'zod';
import { dexParam, poolIdParam, tokenIdParam } from '../ids.ts';
import type { RawBuilder } from 'kysely';
import { sql } from '../../../db/kysely.ts';
import { findKnownToken } from '../../../near/known-tokens.ts';
import { badRequest } from '../errors.ts';
import { formatScaled, parseScaled, presentDecimal, USD_SCALE } from '../decimal.ts';
import { defineMethod, historyFromHeight, historyFromHeightField, type Snapshot } from '../method.ts';
import { LIMITS } from '../limits.ts';
import { pricesAtFromQuery } from '../query.ts';
import { timeWindow, tokenExists } from './history.ts';
import { resolvePool, type PoolRef } from './pools.ts';
import { precisionSchema } from './tokens.ts';

const MINUTE = 60_000;
const DAY = 1_440 * MINUTE;
/** Bucket lengths; buckets are aligned to UTC from the epoch, weeks to Monday 00:00 UTC (the indexer's rule). */
export const RESOLUTION_MS = { '1m': MINUTE, '5m': 5 * MINUTE, '15m': 15 * MINUTE, '1h': 60 * MINUTE, '4h': 240 * MINUTE, '1d': DAY, '1w': 7 * DAY } as const;
export type Resolution = keyof typeof RESOLUTION_MS;
const FIRST_MONDAY = 4 * DAY; // 1970-01-05, the epoch being a Thursday
/** Candles in one answer: a week of minutes fits. */
export const MAX_CANDLES = 20_000;
/** Native NEAR is priced as wrapped NEAR. */
const NEAR_PRICE_TOKEN = 'wrap.near';

export function bucketStart(millis: number, resolution: Resolution): number {
  const length = RESOLUTION_MS[resolution];
  const origin = resolution === '1w' ? FIRST_MONDAY : 0;
  return Math.floor((millis - origin) / length) * length + origin;
}

export const candlesGetParams = z.strictObject({
  token: tokenIdParam,
  pool_id: poolIdParam.optional().describe("only the hops through this pool (one of its tokens), each at its own rate; with dex when the id is several DEXes'"),
  dex: dexParam.optional().describe("the pool's DEX (with pool_id)"),
  resolution: z.enum(Object.keys(RESOLUTION_MS) as [Resolution, ...Resolution[]]),
  from_millis: z.int().min(0).optional().describe('first bucket: the one containing this time'),
  to_millis: z.int().min(0).optional().describe('last bucket: the one containing this time (default: the latest block)'),
  count_back: z.int().min(1).max(MAX_CANDLES).optional().describe('without from_millis: this many buckets up to to_millis (default 300)'),
  quote: z.enum(['usd', 'near']).default('usd').describe('near: USD figures divided by the NEAR price in force at each bucket end'),
  fill: z.boolean().default(true).describe('fill empty buckets: open = high = low = close = previous close, volume 0'),
  precision: precisionSchema.optional(),
});

const candle = z.object({
  time_millis: z.int().describe('bucket start'),
  open: z.string(),
  high: z.string(),
  low: z.string(),
  close: z.string(),
  volume_quote: z.string().describe('traded value in the quote currency'),
  volume: z.string().describe("traded amount in the token's smallest units"),
  trades: z.int(),
});
type Candle = z.output<typeof candle>;

interface CandleRow {
  bucket_start_ms: number;
  open_usd: string;
  high_usd: string;
  low_usd: string;
  close_usd: string;
  volume_usd: string;
  volume: string;
  trades: number;
  near_usd: string | null;
}

/**
 * Fills the buckets from `first` to `last` (each `step` long) from the candles found: an empty bucket after a
 * candle repeats the previous close with zero volume; buckets before the first known close stay out. Pure.
 */
export function fillCandles(found: readonly Candle[], first: number, last: number, step: number, previousClose: string | null): Candle[] {
  const byTime = new Map(found.map((c) => [c.time_millis, c]));
  const out: Candle[] = [];
  let close = previousClose;
  for (let t = first; t <= last; t += step) {
    const hit = byTime.get(t);
    if (hit) {
      out.push(hit);
      close = hit.close;
    } else if (close !== null) {
      out.push({ time_millis: t, open: close, high: close, low: close, close, volume_quote: '0', volume: '0', trades: 0 });
    }
  }
  return out;
}

export const candlesGet = defineMethod({
  name: 'candles.get',
  path: '/candles',
  summary: "A token's OHLC candles from its trades, in USD or NEAR, gaps filled unless fill=false.",
  params: candlesGetParams,
  result: z.object({ height: z.int(), timestamp_millis: z.int(), history_from_height: historyFromHeightField, token: z.string(), resolution: z.string(), quote: z.string(), candles: z.array(candle) }),
  async run(snapshot, params) {
    const step = RESOLUTION_MS[params.resolution];
    const last = bucketStart(params.to_millis ?? snapshot.head.timestamp_millis, params.resolution);
    const first = params.from_millis !== undefined ? bucketStart(params.from_millis, params.resolution) : last - ((params.count_back ?? 300) - 1) * step;
    if (first > last) throw badRequest('from_millis is after to_millis');
    if ((last - first) / step + 1 > MAX_CANDLES) throw badRequest(`more than ${MAX_CANDLES} candles asked`);
    // NEAR quote: the NEAR price in force at each bucket's end.
    const nearPrice = (bucket: RawBuilder<unknown>) =>
      params.quote === 'near'
        ? sql`(select p.price_usd from prices p where p.token = ${NEAR_PRICE_TOKEN} and p.timestamp_ms < ${bucket} + ${step} order by p.timestamp_ms desc, p.block_height desc limit 1)`
        : sql`null`;
    if (params.dex !== undefined && params.pool_id === undefined) throw badRequest('dex needs pool_id');
    const pool = params.pool_id === undefined ? undefined : await resolvePool(snapshot.db, params.pool_id, params.dex);
    if (pool?.tokens && !pool.tokens.includes(params.token)) throw badRequest(`token ${params.token} is not in pool ${pool.dex} ${pool.pool_id} (${pool.tokens.join(', ')})`);
    // A token's candles are the indexer's (`candles`); a pool's are made here from its hops.
    const { rows, before } = pool
      ? await poolCandleRows(snapshot, pool, params.token, params.resolution, { first, last }, nearPrice)
      : {
          rows: (await sql<CandleRow>`
            select c.*, ${nearPrice(sql.ref('c.bucket_start_ms'))} as near_usd from candles c
            where c.token = ${params.token} and c.resolution = ${params.resolution} and c.bucket_start_ms between ${first} and ${last}
            order by c.bucket_start_ms`.execute(snapshot.db)).rows,
          before: (await sql<CandleRow>`
            select c.*, ${nearPrice(sql.ref('c.bucket_start_ms'))} as near_usd from candles c
            where c.token = ${params.token} and c.resolution = ${params.resolution} and c.bucket_start_ms < ${first}
            order by c.bucket_start_ms desc limit 1`.execute(snapshot.db)).rows,
        };
    const present = (usd: string, nearUsd: string | null): string | null => {
      if (params.quote === 'usd') return presentDecimal(usd, params.precision);
      if (nearUsd === null || parseScaled(nearUsd) === 0n) return null;
      return presentDecimal(formatScaled((parseScaled(usd) * USD_SCALE) / parseScaled(nearUsd)), params.precision);
    };
    const toCandle = (r: CandleRow): Candle | undefined => {
      const [open, high, low, close, volume] = [r.open_usd, r.high_usd, r.low_usd, r.close_usd, r.volume_usd].map((v) => present(v, r.near_usd));
      if (open == null || high == null || low == null || close == null || volume == null) return undefined; // no NEAR price then
      return { time_millis: Number(r.bucket_start_ms), open, high, low, close, volume_quote: volume, volume: String(r.volume), trades: r.trades };
    };
    const found = rows.map(toCandle).filter((c): c is Candle => c !== undefined);
    const previous = before[0] ? (toCandle(before[0])?.close ?? null) : null;
    const candles = params.fill ? fillCandles(found, first, last, step, previous) : found;
    const closed = params.to_millis !== undefined && last + step <= snapshot.head.timestamp_millis;
    const exists = (await tokenExists(snapshot, params.token)) && (pool === undefined || pool.tokens !== null);
    const result = { height: snapshot.head.height, timestamp_millis: snapshot.head.timestamp_millis, history_from_height: await historyFromHeight(snapshot.db), token: params.token, resolution: params.resolution, quote: params.quote, candles };
    return { result, cache: !exists ? 'none' : closed ? 'historical' : 'live', rows: candles.length };
  },
});

/**
 * A pool's candles of one of its tokens, `candles` rows made from its hops: a tick per volume hop through the pool,
 * at the hop's own rate (its USD value over the token's amount in the hop, floored to 10^-18 USD as the indexer's
 * implied prices are), volumes the hop's USD value and amount (docs/methodology.md). `rows`: the
 * buckets from `first` to `last`; `before`: the last tick before `first` as a candle, for the fill.
 */
async function poolCandleRows(
  snapshot: Snapshot,
  pool: PoolRef,
  token: string,
  resolution: Resolution,
  range: { first: number; last: number },
  nearPrice: (bucket: RawBuilder<unknown>) => RawBuilder<unknown>,
): Promise<{ rows: CandleRow[]; before: CandleRow[] }> {
  const { rows: meta } = await sql<{ decimals: number | null }>`select decimals from tokens where token = ${token}`.execute(snapshot.db);
  const decimals = meta[0]?.decimals ?? findKnownToken(token === 'near' ? 'wrap.near' : token)?.decimals;
  if (decimals == null) return { rows: [], before: [] }; // no price without decimals
  const step = RESOLUTION_MS[resolution];
  const origin = resolution === '1w' ? FIRST_MONDAY : 0;
  const end = range.last + step;
  // The range's heights too, so only the partitions of its hops are read.
  const window = await timeWindow(snapshot.db, { after_millis: range.first - 1, before_millis: end });
  const ticks = (when: RawBuilder<unknown>) => sql`
    select h.block_height, h.receipt_id, h.index, ((h.timestamp_ms - ${origin}) / ${step}) * ${step} + ${origin} as bucket_start_ms, x.amount, h.volume_usd as value_usd,
      div(h.volume_usd * power(10::numeric, ${18 + decimals}), x.amount) * 0.000000000000000001 as price
    from trade_hops h
    cross join lateral (select case when h.token_in = ${token} then h.amount_in else h.amount_out end as amount) x
    where h.pool_id = ${pool.pool_id} ${pool.dex === null ? sql`` : sql`and h.dex = ${pool.dex}`} and (h.token_in = ${token} or h.token_out = ${token})
      and h.volume_usd is not null and x.amount > 0 and ${when}`;
  const inRange = sql`h.timestamp_ms >= ${range.first} and h.timestamp_ms < ${end} and h.block_height > ${window.aboveHeight ?? -1} and h.block_height < ${window.belowHeight ?? snapshot.head.height + 1}`;
  const { rows } = await sql<CandleRow>`
    select c.*, ${nearPrice(sql.ref('c.bucket_start_ms'))} as near_usd from (
      select t.bucket_start_ms,
        (array_agg(t.price order by t.block_height, t.receipt_id, t.index))[1] as open_usd, max(t.price) as high_usd, min(t.price) as low_usd,
        (array_agg(t.price order by t.block_height desc, t.receipt_id desc, t.index desc))[1] as close_usd,
        sum(t.value_usd) as volume_usd, sum(t.amount) as volume, count(*)::int as trades
      from (${ticks(inRange)}) t group by t.bucket_start_ms
    ) c order by c.bucket_start_ms`.execute(snapshot.db);
  const { rows: before } = await sql<CandleRow>`
    select c.*, ${nearPrice(sql.ref('c.bucket_start_ms'))} as near_usd from (
      select t.bucket_start_ms, t.price as open_usd, t.price as high_usd, t.price as low_usd, t.price as close_usd, 0::numeric as volume_usd, 0::numeric as volume, 1 as trades
      from (${ticks(sql`h.timestamp_ms < ${range.first} and h.block_height <= ${window.aboveHeight ?? snapshot.head.height}`)}) t
      order by t.block_height desc, t.receipt_id desc, t.index desc limit 1
    ) c`.execute(snapshot.db);
  return { rows, before };
}

export const pricesAtParams = z.strictObject({
  at: z
    .array(z.strictObject({ token: tokenIdParam, timestamp_millis: z.int().min(0) }))
    .min(1)
    .max(LIMITS.max_ids)
    .describe('over HTTP `at=<token>:<timestamp_millis>,...`'),
  precision: precisionSchema.optional(),
});

export const pricesAt = defineMethod({
  name: 'prices.at',
  path: '/prices/at',
  summary: 'The USD price in force at each (token, time): the last price set at or before it, null when none.',
  params: pricesAtParams,
  overrides: { at: pricesAtFromQuery },
  result: z.object({
    height: z.int(),
    timestamp_millis: z.int(),
    prices: z.array(
      z.object({ token: z.string(), timestamp_millis: z.int(), price_usd: z.string().nullable(), block_height: z.int().nullable().describe('block that set the price') }),
    ),
  }),
  async run(snapshot, params) {
    const tokens = params.at.map((a) => a.token);
    const times = params.at.map((a) => a.timestamp_millis);
    const { rows } = await sql<{ n: number; price_usd: string | null; block_height: number | null }>`
      select q.n, p.price_usd, p.block_height
      from unnest(${tokens}::text[], ${times}::bigint[]) with ordinality as q(token, at_ms, n)
      left join lateral (
        select price_usd, block_height from prices where prices.token = q.token and prices.timestamp_ms <= q.at_ms
        order by timestamp_ms desc, block_height desc limit 1
      ) p on true
      order by q.n`.execute(snapshot.db);
    const prices = params.at.map((a, i) => {
      const row = rows[i];
      return {
        token: a.token,
        timestamp_millis: a.timestamp_millis,
        price_usd: presentDecimal(row?.price_usd ?? null, params.precision),
        block_height: row?.block_height == null ? null : Number(row.block_height),
      };
    });
    const { rows: known } = await sql<{ token: string }>`
      select token from tokens where token = any(${tokens}::text[]) union select token from token_market where token = any(${tokens}::text[])`.execute(snapshot.db);
    const allKnown = new Set(known.map((k) => k.token)).size === new Set(tokens).size;
    const passed = times.every((t) => t < snapshot.head.timestamp_millis);
    return {
      result: { height: snapshot.head.height, timestamp_millis: snapshot.head.timestamp_millis, prices },
      cache: !allKnown ? 'none' : passed ? 'historical' : 'live',
      rows: prices.length,
    };
  },
});
