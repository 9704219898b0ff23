// trades.query and transfers.query: history pages, newest or oldest first, with a cursor.
// Every row has an `id` (`<block_height>:<receipt_id>:<index>`, the key of the event it comes from: a trade's first
// hop, a transfer) in the order of the history; `cursor` is the id of the last row of the previous page and the
// next page starts after it. `next_cursor` is the last row's id when the page is full, else null (the end for
// now). `latest_id` is the id of the newest row matching the filters, whatever the page: a client comparing it
// with what it has knows whether anything new arrived.
import { z } from 'zod';
import { accountIdParam, dexParam, poolIdParam, tokenIdParam } from '../ids.ts';
import type { RawBuilder } from 'kysely';
import { sql } from '../../../db/kysely.ts';
import { badRequest } from '../errors.ts';
import { presentDecimal } from '../decimal.ts';
import { defineMethod, type CacheRule, type Head, type Snapshot } from '../method.ts';
import { LIMITS } from '../limits.ts';
import { resolvePool } from './pools.ts';

// At most 100 digits: amounts are numeric(40,0), and a longer text would only make PostgreSQL work.
const integerText = z.string().max(100).regex(/^\d+$/, 'an integer amount in the smallest unit');
const millis = z.int().min(0);

const historyCommon = {
  after_millis: millis.optional().describe('only rows after this time (exclusive)'),
  before_millis: millis.optional().describe('only rows before this time (exclusive)'),
  order: z.enum(['newest', 'oldest']).default('newest'),
  cursor: z.string().max(200).optional().describe('next_cursor of the previous page'),
  limit: z.int().min(1).max(LIMITS.max_limit).default(100),
};

/** A page of rows: each has its `id`, then the fields asked for (all optional in the schema, since `fields` picks). */
const historyResult = (fields: z.ZodObject) =>
  z.object({
    height: z.int(),
    timestamp_millis: z.int(),
    latest_id: z.string().nullable().describe('id of the newest row matching the filters (null: none)'),
    next_cursor: z.string().nullable().describe('pass as cursor for the next page; null when this page is not full'),
    rows: z.array(z.object({ id: z.string() }).extend(fields.partial().shape)),
  });

/** The fields a history row leaves out unless asked: the receipt-level ones, which explorers and auditors ask for
 * and a trade list does not need. */
const RECEIPT_LEVEL: ReadonlySet<string> = new Set(['receipt_id', 'hops', 'receipt_ids']);
const withoutReceiptLevel = <F extends string>(fields: readonly F[]) => fields.filter((f) => !RECEIPT_LEVEL.has(f));

/** The `fields` parameter of a history: the row's fields after `id`, in the order asked; `defaults` when absent. */
function fieldsParam(fields: z.ZodObject, defaults: readonly string[]) {
  const all = fields.keyof();
  return z
    .array(all)
    .min(1)
    .max(all.options.length)
    .optional()
    .describe(`fields of each row after id, in order (default ${defaults.join(',')}); one of ${all.options.join(', ')}`);
}

/** The row with `id` and the `wanted` fields of `full`, in that order. */
function pick(id: string, full: Record<string, unknown>, wanted: readonly string[]): Record<string, unknown> {
  const row: Record<string, unknown> = { id };
  for (const field of wanted) row[field] = full[field];
  return row;
}

/** A history row's id and cursor: the key of the event it comes from, `block:receipt:index`. */
const rowId = (r: Record<string, any>) => `${r.block_height}:${r.receipt_id}:${r.index}`;

/** How far back a newest-first page first looks: about a day of mainnet blocks, a few devnet copies in bench:scale. */
const RECENT_BLOCKS = 100_000;

/** Largest value of a PostgreSQL `integer` (the event index column). */
const MAX_INT4 = 2_147_483_647;

function parseCursor(cursor: string): { height: number; receipt: string; index: number } {
  const match = /^(\d+):([^:]+):(\d+)$/.exec(cursor);
  const height = Number(match?.[1]);
  const index = Number(match?.[3]);
  // Numbers past the columns' ranges name no row (and would fail the query's casts).
  if (!match || !Number.isSafeInteger(height) || index > MAX_INT4) throw badRequest(`cursor "${cursor}" is not a row id of this history`);
  return { height, receipt: match[2]!, index };
}

/** A time window's conditions, and the heights its blocks lie strictly between (when the window has that side). */
export interface TimeWindow {
  conditions: RawBuilder<unknown>[];
  aboveHeight?: number;
  belowHeight?: number;
}

/**
 * A time window as the height range of its blocks too (block timestamps grow with height), read first so that the
 * page's query has constant heights: the planner then prunes partitions and reads the filter's own index from the
 * window's end, where a bound on time alone reads every row of that time by the timestamp index, whatever the token.
 */
export async function timeWindow(db: Snapshot['db'], params: { after_millis?: number; before_millis?: number }): Promise<TimeWindow> {
  const window: TimeWindow = { conditions: [] };
  if (params.after_millis !== undefined) {
    const { rows } = await sql<{ height: string }>`
      select height from blocks where timestamp_ms <= ${params.after_millis} order by timestamp_ms desc, height desc limit 1`.execute(db);
    window.conditions.push(sql`timestamp_ms > ${params.after_millis}`);
    if (rows[0]) window.aboveHeight = Number(rows[0].height);
  }
  if (params.before_millis !== undefined) {
    const { rows } = await sql<{ height: string }>`
      select height from blocks where timestamp_ms >= ${params.before_millis} order by timestamp_ms, height limit 1`.execute(db);
    window.conditions.push(sql`timestamp_ms < ${params.before_millis}`);
    if (rows[0]) window.belowHeight = Number(rows[0].height);
  }
  if (window.aboveHeight !== undefined) window.conditions.push(sql`block_height > ${window.aboveHeight}`);
  if (window.belowHeight !== undefined) window.conditions.push(sql`block_height < ${window.belowHeight}`);
  return window;
}

/**
 * One page of a history table keyed by (block_height, receipt_id, index), newest or oldest first after `cursor`,
 * and the id of the newest row matching the filters (`latest_id`). `arms` are disjoint conditions whose union is
 * asked for (an account as sender, or as receiver and not sender): each is read in key order by its own index and
 * cut at the limit before they are merged, where one `or` would read every row of both.
 */
async function historyPage(
  snapshot: Snapshot,
  table: 'trades' | 'transfers',
  arms: readonly RawBuilder<unknown>[],
  filter: RawBuilder<unknown>,
  window: TimeWindow,
  params: { order: string; cursor?: string; limit: number },
): Promise<{ rows: Record<string, any>[]; latest_id: string | null; next_cursor: string | null }> {
  const newest = params.order === 'newest';
  // The heights the window leaves: (low, high], where rows can be.
  const low = window.aboveHeight ?? -1;
  const high = Math.min(snapshot.head.height, (window.belowHeight ?? Infinity) - 1);
  const select = (columns: RawBuilder<unknown>, where: RawBuilder<unknown>, dir: RawBuilder<unknown>, limit: number) =>
    sql.join(
      arms.map((arm) => sql`(select ${columns} from ${sql.table(table)} where ${arm} and ${where} order by block_height ${dir}, receipt_id ${dir}, index ${dir} limit ${limit})`),
      sql` union all `,
    );
  const read = async (columns: RawBuilder<unknown>, where: RawBuilder<unknown>, desc: boolean, limit: number) => {
    const dir = sql.raw(desc ? 'desc' : 'asc');
    return (await sql<Record<string, any>>`
      select * from (${select(columns, where, dir, limit)}) page order by block_height ${dir}, receipt_id ${dir}, index ${dir} limit ${limit}`.execute(snapshot.db)).rows;
  };
  // A page reads the RECENT_BLOCKS at its near edge first (below the head, the window's end or the cursor; above the
  // window's start or the cursor, oldest first) with a constant bound that the planner prunes to their one or two
  // partitions; only when they do not fill it does it read on, planning every partition further on.
  const readFrom = async (columns: RawBuilder<unknown>, where: RawBuilder<unknown>, desc: boolean, edge: number | undefined, limit: number) => {
    if (edge === undefined) return read(columns, where, desc, limit);
    const split = desc ? edge - RECENT_BLOCKS : edge + RECENT_BLOCKS;
    const [near, far] = desc ? [sql`block_height > ${split}`, sql`block_height <= ${split}`] : [sql`block_height < ${split}`, sql`block_height >= ${split}`];
    const rows = await read(columns, sql`${where} and ${near}`, desc, limit);
    if (rows.length < limit) rows.push(...(await read(columns, sql`${where} and ${far}`, desc, limit - rows.length)));
    return rows;
  };
  let page = filter;
  let edge = newest ? high : window.aboveHeight;
  if (params.cursor) {
    const key = parseCursor(params.cursor);
    // The plain height bound lets the planner prune partitions; the row comparison settles the rest.
    page = sql`${filter} and block_height ${sql.raw(newest ? '<=' : '>=')} ${key.height} and (block_height, receipt_id, index) ${sql.raw(newest ? '<' : '>')} (${key.height}::bigint, ${key.receipt}::text, ${key.index}::int)`;
    edge = newest ? Math.min(high, key.height) : Math.max(low, key.height);
  }
  const rows = low >= high ? [] : await readFrom(sql`*`, page, newest, edge, params.limit);
  // The first page, newest first, starts with the newest row: no second query.
  const latest = newest && !params.cursor ? rows.slice(0, 1) : low >= high ? [] : await readFrom(sql`block_height, receipt_id, index`, filter, true, high, 1);
  return { rows, latest_id: latest[0] ? rowId(latest[0]) : null, next_cursor: rows.length === params.limit ? rowId(rows.at(-1)!) : null };
}

/**
 * The caching rule of a history page (spec): purely historical, so kept a day, when it is a newest-first page
 * after a cursor, when `before_millis` is already behind the latest block, or when it is a full oldest-first page.
 */
export function historyCache(params: { cursor?: string; order: string; before_millis?: number }, head: Head, nextCursor: string | null): CacheRule {
  if (params.order === 'newest' && params.cursor !== undefined) return 'historical';
  if (params.before_millis !== undefined && params.before_millis <= head.timestamp_millis) return 'historical';
  if (params.order === 'oldest' && nextCursor !== null) return 'historical';
  return 'live';
}

/** Whether the index knows the token (a `tokens` or a `token_market` row): unknown ones are never cached. */
export async function tokenExists(snapshot: Snapshot, token: string): Promise<boolean> {
  const { rows } = await sql`
    select 1 from tokens where token = ${token} union all select 1 from token_market where token = ${token} limit 1`.execute(snapshot.db);
  return rows.length > 0;
}

const tradeFields = z.object({
  block_height: z.int(),
  timestamp_millis: z.int(),
  tx_hash: z.string().nullable(),
  receipt_id: z.string(),
  dex: z.string(),
  trader: z.string().nullable(),
  token_in: z.string(),
  token_out: z.string(),
  amount_in: z.string().describe('smallest units'),
  amount_out: z.string().describe('smallest units'),
  hops: z.int(),
  pool_ids: z.array(z.string().nullable()),
  receipt_ids: z.array(z.string()).describe('the receipt that created the swap (when indexed in the same block), the swap, and the receipts it created (payouts, callbacks)'),
  value_usd: z.string().nullable(),
  side: z.enum(['buy', 'sell']).describe('only with token: buy when the token was received (a round trip through the token counts as either; it is labelled as the side asked for, else buy)'),
});
export const TRADE_FIELDS = tradeFields.keyof().options;
// side only with token (added there).
const TRADE_DEFAULT_FIELDS = withoutReceiptLevel(TRADE_FIELDS).filter((f) => f !== 'side');

/** A `trades` row as trades.query (and trades.subscribe) give it: its id, then `fields`; `side` relative to `token`. */
export function tradeRow(r: Record<string, any>, fields: readonly string[], token?: string, side?: 'buy' | 'sell'): Record<string, unknown> {
  return pick(rowId(r), {
    block_height: Number(r.block_height),
    timestamp_millis: Number(r.timestamp_ms),
    tx_hash: r.tx_hash,
    receipt_id: r.receipt_id,
    dex: r.dex,
    trader: r.trader,
    token_in: r.token_in,
    token_out: r.token_out,
    amount_in: String(r.amount_in),
    amount_out: String(r.amount_out),
    hops: r.hops,
    pool_ids: r.pool_ids,
    receipt_ids: r.receipt_ids,
    value_usd: presentDecimal(r.value_usd, undefined),
    side: side ?? (r.token_out === token ? 'buy' : 'sell'),
  }, fields);
}

/** The fields a trade row has by default: every one but the receipt-level ones, and `side` only with a token. */
export const tradeDefaultFields = (token: string | undefined): readonly string[] => (token ? [...TRADE_DEFAULT_FIELDS, 'side'] : TRADE_DEFAULT_FIELDS);

export const tradesQueryParams = z.strictObject({
  token: tokenIdParam.optional().describe('trades with this token on either side'),
  pool_id: poolIdParam.optional().describe("trades through this pool (any hop); with dex when the id is several DEXes' (AmmA's 0 and AmmC's 0)"),
  dex: dexParam.optional(),
  trader: accountIdParam.optional(),
  side: z.enum(['buy', 'sell']).optional().describe('relative to token (needs token): buy = token received'),
  min_usd: z.number().min(0).optional().describe('smallest USD value kept (trades without a USD value are dropped)'),
  fields: fieldsParam(tradeFields, TRADE_DEFAULT_FIELDS),
  ...historyCommon,
});

export const tradesQuery = defineMethod({
  name: 'trades.query',
  path: '/trades',
  summary: 'Swaps (one row per user swap, all hops), filtered, newest or oldest first.',
  params: tradesQueryParams,
  result: historyResult(tradeFields),
  async run(snapshot, params) {
    if (params.side && !params.token) throw badRequest('side needs token');
    if (params.fields?.includes('side') && !params.token) throw badRequest('field side needs token');
    // side is relative to token, so it comes with it unless fields says otherwise.
    const fields = params.fields ?? tradeDefaultFields(params.token);
    const { token } = params;
    const arms =
      token === undefined
        ? [sql`true`]
        : params.side === 'buy'
          ? [sql`token_out = ${token}`]
          : params.side === 'sell'
            ? [sql`token_in = ${token}`]
            : [sql`token_in = ${token}`, sql`token_out = ${token} and token_in <> ${token}`];
    const filters: RawBuilder<unknown>[] = [sql`true`];
    // A trade's pool ids are its DEX's own: the pool is its id within its DEX.
    const pool = params.pool_id === undefined ? undefined : await resolvePool(snapshot.db, params.pool_id, params.dex);
    if (pool) filters.push(sql`${pool.pool_id} = any(pool_ids)`);
    const dex = pool?.dex ?? params.dex;
    if (dex) filters.push(sql`dex = ${dex}`);
    if (params.trader) filters.push(sql`trader = ${params.trader}`);
    if (params.min_usd !== undefined) filters.push(sql`value_usd >= ${String(params.min_usd)}::numeric`);
    const window = await timeWindow(snapshot.db, params);
    filters.push(...window.conditions);
    // A trade is keyed like the event of its first hop: (block, receipt, index).
    const { rows, latest_id, next_cursor } = await historyPage(snapshot, 'trades', arms, sql.join(filters, sql` and `), window, params);
    const result = {
      height: snapshot.head.height,
      timestamp_millis: snapshot.head.timestamp_millis,
      latest_id,
      next_cursor,
      rows: rows.map((r) => tradeRow(r, fields, params.token, params.side)),
    };
    const exists = (params.token === undefined || (await tokenExists(snapshot, params.token))) && (pool === undefined || pool.tokens !== null);
    return { result, cache: exists ? historyCache(params, snapshot.head, result.next_cursor) : 'none', rows: rows.length };
  },
});

const transferFields = z.object({
  block_height: z.int(),
  timestamp_millis: z.int(),
  tx_hash: z.string().nullable(),
  receipt_id: z.string(),
  token: z.string(),
  from: z.string().nullable().describe('null for a mint'),
  to: z.string().nullable().describe('null for a burn'),
  amount: z.string().describe('smallest units'),
  memo: z.string().nullable(),
});
export const TRANSFER_FIELDS = transferFields.keyof().options;
const TRANSFER_DEFAULT_FIELDS = withoutReceiptLevel(TRANSFER_FIELDS);

export const transfersQueryParams = z.strictObject({
  token: tokenIdParam.optional().describe('`near` for native NEAR'),
  account: accountIdParam.optional().describe('transfers from or to this account'),
  from: accountIdParam.optional().describe('sender'),
  to: accountIdParam.optional().describe('receiver'),
  min_amount: integerText.optional().describe('smallest amount kept, smallest units'),
  fields: fieldsParam(transferFields, TRANSFER_DEFAULT_FIELDS),
  ...historyCommon,
});

export const transfersQuery = defineMethod({
  name: 'transfers.query',
  path: '/transfers',
  summary: 'Token transfers, mints and burns (and native NEAR transfers), filtered, newest or oldest first.',
  params: transfersQueryParams,
  result: historyResult(transferFields),
  async run(snapshot, params) {
    const { account } = params;
    const arms = account === undefined ? [sql`true`] : [sql`sender = ${account}`, sql`receiver = ${account} and sender is distinct from ${account}`];
    const filters: RawBuilder<unknown>[] = [sql`true`];
    if (params.token) filters.push(sql`token = ${params.token}`);
    if (params.from) filters.push(sql`sender = ${params.from}`);
    if (params.to) filters.push(sql`receiver = ${params.to}`);
    if (params.min_amount !== undefined) filters.push(sql`amount >= ${params.min_amount}::numeric`);
    const window = await timeWindow(snapshot.db, params);
    filters.push(...window.conditions);
    // A transfer is keyed like its event: (block, receipt, index).
    const { rows, latest_id, next_cursor } = await historyPage(snapshot, 'transfers', arms, sql.join(filters, sql` and `), window, params);
    const result = {
      height: snapshot.head.height,
      timestamp_millis: snapshot.head.timestamp_millis,
      latest_id,
      next_cursor,
      rows: rows.map((r) => pick(rowId(r), {
        block_height: Number(r.block_height),
        timestamp_millis: Number(r.timestamp_ms),
        tx_hash: r.tx_hash,
        receipt_id: r.receipt_id,
        token: r.token,
        from: r.sender,
        to: r.receiver,
        amount: String(r.amount),
        memo: r.memo,
      }, params.fields ?? TRANSFER_DEFAULT_FIELDS)),
    };
    const exists = params.token === undefined || (await tokenExists(snapshot, params.token));
    return { result, cache: exists ? historyCache(params, snapshot.head, result.next_cursor) : 'none', rows: rows.length };
  },
});

