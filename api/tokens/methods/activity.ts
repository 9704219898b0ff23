// activity.query and positions.get: one account's merged timeline (trades, transfers, stakes, wraps, liquidity
// changes), and its positions with average cost and PnL from its trades.
import { z } from 'zod';
import { accountIdParam } from '../ids.ts';
import type { RawBuilder } from 'kysely';
import { sql } from '../../../db/kysely.ts';
import { DEXES } from '../../../dexes/index.ts';
import { badRequest } from '../errors.ts';
import { formatScaled, parseScaled, presentDecimal } from '../decimal.ts';
import { defineMethod, historyFromHeight, historyFromHeightField } from '../method.ts';
import { LIMITS } from '../limits.ts';
import { averageCost, positionsFromTrades, unrealized } from '../positions.ts';
import { historyCache, timeWindow } from './history.ts';
import { precisionSchema } from './tokens.ts';


export const ACTIVITY_KINDS = ['trade', 'transfer', 'stake', 'wrap', 'liquidity'] as const;
type Kind = (typeof ACTIVITY_KINDS)[number];

/** The fields of each kind's rows (besides id, kind, block_height, timestamp_millis, tx_hash). */
export const ACTIVITY_FIELDS = {
  trade: ['dex', 'token_in', 'token_out', 'amount_in', 'amount_out', 'hops', 'pool_ids', 'value_usd'],
  stake: ['dex', 'token_in', 'token_out', 'amount_in', 'amount_out', 'value_usd'],
  wrap: ['dex', 'token_in', 'token_out', 'amount_in', 'amount_out', 'value_usd'],
  transfer: ['token', 'from', 'to', 'amount', 'memo'],
  liquidity: ['dex', 'pool_id', 'action', 'tokens', 'amounts', 'shares'],
} as const satisfies Record<Kind, readonly string[]>;

const fieldList = <K extends Kind>(kind: K) =>
  z.array(z.enum(ACTIVITY_FIELDS[kind] as unknown as [string, ...string[]])).optional().describe(`fields of ${kind} rows (default all); over HTTP fields.${kind}=a,b`);

export const activityQueryParams = z.strictObject({
  account_id: accountIdParam,
  kinds: z.array(z.enum(ACTIVITY_KINDS)).min(1).optional().describe('default: every kind'),
  fields: z
    .strictObject({ trade: fieldList('trade'), transfer: fieldList('transfer'), stake: fieldList('stake'), wrap: fieldList('wrap'), liquidity: fieldList('liquidity') })
    .optional(),
  after_millis: z.int().min(0).optional(),
  before_millis: z.int().min(0).optional(),
  order: z.enum(['newest', 'oldest']).default('newest'),
  cursor: z.string().max(300).optional().describe('next_cursor of the previous page'),
  limit: z.int().min(1).max(LIMITS.max_limit).default(100),
});

interface ActivityRow {
  kind: Kind;
  block_height: number;
  receipt_id: string;
  sub: string;
  timestamp_ms: number;
  tx_hash: string | null;
  data: Record<string, unknown>;
}

// A DEX's trades are trades, wraps or stakes, as its registry entry says (`Dex.activity`).
const idsOf = (activity: 'wrap' | 'stake') => DEXES.filter((d) => d.activity === activity).map((d) => d.id);
const TRADE_KIND = sql`case when dex = any(${idsOf('wrap')}) then 'wrap' when dex = any(${idsOf('stake')}) then 'stake' else 'trade' end`;

export const activityQuery = defineMethod({
  name: 'activity.query',
  path: '/activity',
  summary: "One account's timeline: trades, transfers, stakes, wraps and liquidity changes, newest or oldest first.",
  params: activityQueryParams,
  result: z.object({
    height: z.int(),
    timestamp_millis: z.int(),
    history_from_height: historyFromHeightField,
    latest_id: z.string().nullable(),
    next_cursor: z.string().nullable(),
    rows: z.array(z.object({ id: z.string(), kind: z.enum(ACTIVITY_KINDS), block_height: z.int(), timestamp_millis: z.int(), tx_hash: z.string().nullable() }).loose()),
  }),
  async run(snapshot, params) {
    const kinds = params.kinds ?? [...ACTIVITY_KINDS];
    const account = params.account_id;
    const transfer = sql`jsonb_build_object('token', token, 'from', sender, 'to', receiver, 'amount', amount::text, 'memo', memo)`;
    // The timeline's arms, disjoint: each is read in the timeline's order by its own index and cut at the limit
    // before they are merged, so a page reads about `limit` rows of each, not the account's whole history.
    const arms: { kind: RawBuilder<unknown>; sub: RawBuilder<unknown>; data: RawBuilder<unknown>; from: string; where: RawBuilder<unknown> }[] = [
      {
        kind: TRADE_KIND,
        sub: sql`dex`,
        data: sql`jsonb_build_object('dex', dex, 'token_in', token_in, 'token_out', token_out, 'amount_in', amount_in::text,
          'amount_out', amount_out::text, 'hops', hops, 'pool_ids', to_jsonb(pool_ids), 'value_usd', value_usd::text)`,
        from: 'trades',
        where: sql`trader = ${account}`,
      },
      { kind: sql`'transfer'::text`, sub: sql`index::text`, data: transfer, from: 'transfers', where: sql`sender = ${account}` },
      { kind: sql`'transfer'::text`, sub: sql`index::text`, data: transfer, from: 'transfers', where: sql`receiver = ${account} and sender is distinct from ${account}` },
      {
        kind: sql`'liquidity'::text`,
        sub: sql`index::text`,
        data: sql`jsonb_build_object('dex', payload->'dex', 'pool_id', payload->'poolId', 'action', payload->'action', 'tokens', payload->'tokens',
          'amounts', payload->'amounts', 'shares', payload->'shares')`,
        from: 'events',
        where: sql`kind = 'liquidity' and payload->>'provider' = ${account}`,
      },
    ];
    const window = await timeWindow(snapshot.db, params);
    const newest = params.order === 'newest';
    let cursor: { height: number; receipt: string; kind: string; sub: string } | undefined;
    if (params.cursor) {
      const match = /^([a-z]+):(\d+):([^:]+):([^:]+)$/.exec(params.cursor);
      // A height past the safe integers names no row (and would fail the bigint cast).
      if (!match || !Number.isSafeInteger(Number(match[2]))) throw badRequest(`cursor "${params.cursor}" is not an activity id`);
      cursor = { height: Number(match[2]), receipt: match[3]!, kind: match[1]!, sub: match[4]! };
    }
    const timeline = (order: 'desc' | 'asc', after: typeof cursor, limit: number) => {
      const desc = order === 'desc';
      const dir = sql.raw(desc ? 'desc' : 'asc');
      const branches = arms.map((arm) => {
        const conds = [arm.where, sql`${arm.kind} = any(${kinds}::text[])`, ...window.conditions];
        if (after) {
          // The height bound alone reaches the index and the partitions; the row comparison settles the rest.
          conds.push(sql`block_height ${sql.raw(desc ? '<=' : '>=')} ${after.height}`);
          conds.push(sql`(block_height, receipt_id, ${arm.kind}, ${arm.sub}) ${sql.raw(desc ? '<' : '>')} (${after.height}::bigint, ${after.receipt}::text, ${after.kind}::text, ${after.sub}::text)`);
        }
        return sql`(select ${arm.kind} as kind, block_height, receipt_id, ${arm.sub} as sub, timestamp_ms, tx_hash, ${arm.data} as data
          from ${sql.table(arm.from)} where ${sql.join(conds, sql` and `)}
          order by block_height ${dir}, receipt_id ${dir}, 1 ${dir}, 4 ${dir} limit ${limit})`;
      });
      return sql<ActivityRow>`select a.* from (${sql.join(branches, sql` union all `)}) a
        order by a.block_height ${dir}, a.receipt_id ${dir}, a.kind ${dir}, a.sub ${dir} limit ${limit}`;
    };
    const { rows } = await timeline(newest ? 'desc' : 'asc', cursor, params.limit).execute(snapshot.db);
    // The first page, newest first, starts with the newest row.
    const latest = newest && !cursor ? rows.slice(0, 1) : (await timeline('desc', undefined, 1).execute(snapshot.db)).rows;
    const id = (r: ActivityRow) => `${r.kind}:${r.block_height}:${r.receipt_id}:${r.sub}`;
    const result = {
      height: snapshot.head.height,
      timestamp_millis: snapshot.head.timestamp_millis,
      history_from_height: await historyFromHeight(snapshot.db),
      latest_id: latest[0] ? id(latest[0]) : null,
      next_cursor: rows.length === params.limit ? id(rows.at(-1)!) : null,
      rows: rows.map((r) => {
        const wanted: readonly string[] = params.fields?.[r.kind] ?? ACTIVITY_FIELDS[r.kind];
        const fields = Object.fromEntries(
          wanted.map((f) => [f, f === 'value_usd' ? presentDecimal((r.data[f] as string | null) ?? null, undefined) : (r.data[f] ?? null)]),
        );
        return { id: id(r), kind: r.kind, block_height: Number(r.block_height), timestamp_millis: Number(r.timestamp_ms), tx_hash: r.tx_hash, ...fields };
      }),
    };
    return { result, cache: historyCache(params, snapshot.head, result.next_cursor), rows: rows.length };
  },
});

const positionRow = z.object({
  token: z.string(),
  symbol: z.string().nullable(),
  decimals: z.int().nullable(),
  amount: z.string().describe('current balance, smallest units'),
  price_usd: z.string().nullable(),
  value_usd: z.string().nullable().describe('amount at price_usd'),
  bought: z.string().describe('total received through trades, smallest units'),
  sold: z.string().describe('total given through trades, smallest units'),
  average_cost_usd: z.string().nullable().describe('USD per whole token of the amount bought through priced trades and not sold since'),
  realized_pnl_usd: z.string(),
  unrealized_pnl_usd: z.string().nullable(),
});

export const positionsGet = defineMethod({
  name: 'positions.get',
  path: '/positions',
  summary: "An account's positions: per token held or traded, the amount, value, average cost and realized and unrealized PnL in USD from its trades (average-cost method).",
  params: z.strictObject({ account_id: accountIdParam, precision: precisionSchema.optional() }),
  result: z.object({ height: z.int(), timestamp_millis: z.int(), history_from_height: historyFromHeightField, account_id: z.string(), rows: z.array(positionRow) }),
  async run(snapshot, params) {
    const { db, head } = snapshot;
    const { rows: trades } = await sql<{ token_in: string; token_out: string; amount_in: string; amount_out: string; value_usd: string | null }>`
      select token_in, token_out, amount_in::text, amount_out::text, value_usd::text from trades
      where trader = ${params.account_id} order by block_height, receipt_id, dex`.execute(db);
    const positions = positionsFromTrades(
      trades.map((t) => ({ token_in: t.token_in, token_out: t.token_out, amount_in: BigInt(t.amount_in), amount_out: BigInt(t.amount_out), value_usd: t.value_usd === null ? null : parseScaled(t.value_usd) })),
    );
    const { rows: held } = await sql<{ token: string; balance: string }>`
      select token, balance::text from balances where account = ${params.account_id} and balance <> 0`.execute(db);
    const tokens = [...new Set([...held.map((h) => h.token), ...positions.keys()])].sort();
    const { rows: meta } = await sql<{ token: string; symbol: string | null; decimals: number | null; price_usd: string | null }>`
      select q.token, t.symbol, t.decimals, m.price_usd::text from unnest(${tokens}::text[]) as q(token)
      left join tokens t on t.token = q.token left join token_market m on m.token = q.token`.execute(db);
    const metaOf = new Map(meta.map((m) => [m.token, m]));
    const balanceOf = new Map(held.map((h) => [h.token, BigInt(h.balance)]));
    const show = (value: bigint | null) => (value === null ? null : presentDecimal(formatScaled(value), params.precision));
    const rows = tokens.map((token) => {
      const m = metaOf.get(token);
      const p = positions.get(token) ?? { tracked: 0n, cost: 0n, realized: 0n, bought: 0n, sold: 0n };
      const amount = balanceOf.get(token) ?? 0n;
      const decimals = m?.decimals ?? null;
      const price = m?.price_usd ? parseScaled(m.price_usd) : null;
      return {
        token,
        symbol: m?.symbol ?? null,
        decimals,
        amount: amount.toString(),
        price_usd: show(price),
        value_usd: decimals !== null && price !== null ? show((amount * price) / 10n ** BigInt(decimals)) : null,
        bought: p.bought.toString(),
        sold: p.sold.toString(),
        average_cost_usd: decimals !== null ? show(averageCost(p, decimals)) : null,
        realized_pnl_usd: show(p.realized)!,
        unrealized_pnl_usd: decimals !== null && price !== null ? show(unrealized(p, decimals, price)) : null,
      };
    });
    return { result: { height: head.height, timestamp_millis: head.timestamp_millis, history_from_height: await historyFromHeight(db), account_id: params.account_id, rows }, cache: 'live', rows: rows.length };
  },
});
