// tokens.get and tokens.search: the token table result (spec B): `columns` (`account_id` first, then the
// requested fields in order), `rows`, `total` (tokens matching, before limit/offset), `missing` (requested ids
// the index does not know). A token is known when it has a `tokens` row (seen in transfers or metadata) or a
// `token_market` row (it is in a pool).
import { z } from 'zod';
import { tokenIdParam } from '../ids.ts';
import type { Kysely, RawBuilder } from 'kysely';
import { sql } from '../../../db/kysely.ts';
import type { Database } from '../../../db/schema.ts';
import { presentDecimal } from '../decimal.ts';
import { defineMethod, type Head } from '../method.ts';
import { LIMITS } from '../limits.ts';
import { sortFromQuery } from '../query.ts';
import {
  DECIMAL_FIELDS,
  DEFAULT_FIELDS,
  KNOWN_SYMBOLS_UPPER,
  NOT_FAKE_MIN_LIQUIDITY_USD,
  NUMERIC_FIELDS,
  REPUTABLE_IDS,
  REPUTATIONS,
  TOKEN_FIELD_NAMES,
  TOKEN_FIELDS,
  type TokenField,
} from '../token-fields.ts';

// At most 100 characters: PostgreSQL's numeric refuses more than 16383 digits after the point.
const decimalText = z.string().max(100).regex(/^-?\d+(\.\d+)?$/, 'a decimal number');
// A number in JSON, text over GET; kept as text (exact, and one cache key for both).
const bound = z.union([z.number(), decimalText]).transform(String);
const bounds = z.strictObject(Object.fromEntries(NUMERIC_FIELDS.map((f) => [f, bound.optional()])) as Record<TokenField, z.ZodOptional<typeof bound>>);

export const whereSchema = z
  .strictObject({
    min_reputation: z.enum(REPUTATIONS).optional().describe('lowest reputation kept'),
    min: bounds.optional().describe('per numeric field, the smallest value kept (tokens without a value are dropped)'),
    max: bounds.optional().describe('per numeric field, the largest value kept (tokens without a value are dropped)'),
  })
  .describe('filters; over HTTP their keys go without the `where.` prefix');

export const fieldsSchema = z.array(z.enum(TOKEN_FIELD_NAMES)).max(TOKEN_FIELD_NAMES.length).describe('columns after account_id, in order');
export const sortSchema = z
  .strictObject({ by: z.enum(['account_id', ...TOKEN_FIELD_NAMES]), desc: z.boolean().default(false) })
  .describe('over HTTP `sort=field` (ascending) or `sort=-field` (descending); tokens without a value come last');
export const precisionSchema = z.int().min(1).max(40).describe('significant digits of decimal USD fields (default: exact)');

export const tokensGetParams = z.strictObject({
  ids: z.array(tokenIdParam).max(LIMITS.max_ids).optional().describe('only these tokens (`near` for native NEAR)'),
  fields: fieldsSchema.optional(),
  where: whereSchema.optional(),
  sort: sortSchema.optional().describe('default: liquidity_usd descending'),
  limit: z.int().min(1).max(LIMITS.max_limit).default(100),
  offset: z.int().min(0).default(0),
  precision: precisionSchema.optional(),
});
export type TokensGetParams = z.output<typeof tokensGetParams>;

export const tokenTableResult = z.object({
  height: z.int(),
  timestamp_millis: z.int(),
  columns: z.array(z.string()).describe('account_id, then the requested fields'),
  rows: z.array(z.array(z.union([z.string(), z.number(), z.null()]))),
  total: z.int().describe('tokens matching ids and where, before limit and offset'),
  missing: z.array(z.string()).describe('requested ids the index does not know'),
});
export type TokenTableResult = z.output<typeof tokenTableResult>;
export type TokenRow = Record<'account_id' | TokenField, string | number | null>;

// Every token the index knows (or only those of `ids`, read by key), with every field. Reputation as a rank 0..3
// (Spam..Reputable) for where and sort.
function universe(ids?: readonly string[]): RawBuilder<unknown> {
  const source = ids
    ? sql`unnest(${ids}::text[]) as q(token) left join tokens t on t.token = q.token left join token_market m on m.token = q.token
          left join token_activity a on a.token = q.token
          where t.token is not null or m.token is not null`
    : sql`tokens t full join token_market m on m.token = t.token left join token_activity a on a.token = coalesce(t.token, m.token)`;
  return sql`(
    select u.*,
      case
        when u.account_id = any(${REPUTABLE_IDS}::text[]) then 3
        when upper(u.symbol) = any(${KNOWN_SYMBOLS_UPPER}::text[]) then 0
        when u.symbol is not null and coalesce(u.liquidity_usd, 0) >= ${NOT_FAKE_MIN_LIQUIDITY_USD} then 2
        else 1
      end as reputation_rank
    from (
      select coalesce(t.token, m.token) as account_id, t.symbol, t.name, t.decimals,
        case when t.icon is null then null else encode(sha256(convert_to(t.icon, 'UTF8')), 'hex') end as icon_hash,
        m.price_usd, m.liquidity_usd, m.price_change_24h, m.price_change_5m, m.price_change_1h, m.price_change_6h, m.volume_usd_24h,
        coalesce(a.buys_24h, 0) as buys_24h, coalesce(a.sells_24h, 0) as sells_24h, coalesce(a.traders_24h, 0) as traders_24h,
        -- Supply at price, floored to 10^-18 USD as every USD figure is.
        div(t.total_supply * m.price_usd * 1000000000000000000, power(10::numeric, t.decimals)) * 0.000000000000000001 as fdv_usd,
        null::numeric as market_cap_usd,
        t.total_supply, coalesce(t.holders, 0) as holders, t.created_height, m.price_height
      from ${source}
    ) u
  ) tok`;
}

const column = (field: 'account_id' | TokenField) => (field === 'reputation' ? sql.ref('tok.reputation_rank') : sql.ref(`tok.${field}`));

export function whereClause(where: TokensGetParams['where'], ids: readonly string[] | undefined): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [sql`true`];
  if (ids) parts.push(sql`tok.account_id = any(${ids}::text[])`);
  if (where?.min_reputation) parts.push(sql`tok.reputation_rank >= ${REPUTATIONS.indexOf(where.min_reputation)}`);
  for (const [op, values] of [['>=', where?.min], ['<=', where?.max]] as const) {
    for (const [field, value] of Object.entries(values ?? {})) {
      if (value === undefined) continue;
      parts.push(sql`${column(field as TokenField)} ${sql.raw(op)} ${String(value)}::numeric`);
    }
  }
  return sql.join(parts, sql` and `);
}

function orderClause(sort: TokensGetParams['sort']): RawBuilder<unknown> {
  const by = sort ?? { by: 'liquidity_usd' as const, desc: true };
  return sql`${column(by.by)} ${sql.raw(by.desc ? 'desc' : 'asc')} nulls last, tok.account_id asc`;
}

/** A row's value of a field as JSON gives it: decimals trimmed (and rounded to `precision`), reputation by name. */
export function presentField(row: Record<string, unknown>, field: 'account_id' | TokenField, precision: number | undefined): string | number | null {
  if (field === 'reputation') return REPUTATIONS[Number(row.reputation_rank)] ?? null;
  const value = row[field];
  if (value === null || value === undefined) return null;
  if (field !== 'account_id' && DECIMAL_FIELDS.has(field)) return presentDecimal(String(value), precision);
  if (field !== 'account_id' && TOKEN_FIELDS[field].kind === 'integer') return Number(value);
  return String(value);
}

export interface TableQuery {
  ids?: readonly string[];
  fields: readonly TokenField[];
  where?: TokensGetParams['where'];
  sort?: TokensGetParams['sort'];
  limit: number;
  offset: number;
  precision?: number;
}

/** The token table for a query at the snapshot's head. */
export async function readTokenTable(db: Kysely<Database>, head: Head, query: TableQuery): Promise<TokenTableResult> {
  const ids = query.ids ? [...new Set(query.ids)] : undefined;
  const filter = whereClause(query.where, ids);
  const { rows } = await sql<Record<string, unknown>>`
    select tok.* from ${universe(ids)} where ${filter} order by ${orderClause(query.sort)} limit ${query.limit} offset ${query.offset}`.execute(db);
  const { rows: counted } = await sql<{ total: number }>`select count(*)::int as total from ${universe(ids)} where ${filter}`.execute(db);
  let missing: string[] = [];
  if (ids?.length) {
    const { rows: known } = await sql<{ account_id: string }>`select tok.account_id from ${universe(ids)}`.execute(db);
    const knownIds = new Set(known.map((r) => r.account_id));
    missing = ids.filter((id) => !knownIds.has(id));
  }
  const columns = ['account_id', ...query.fields] as const;
  return {
    height: head.height,
    timestamp_millis: head.timestamp_millis,
    columns: [...columns],
    rows: rows.map((row) => columns.map((field) => presentField(row, field, query.precision))),
    total: counted[0]?.total ?? 0,
    missing,
  };
}

export const tokensGet = defineMethod({
  name: 'tokens.get',
  path: '/tokens',
  summary: 'Token records as a table: filter, sort and page them, choose the columns.',
  params: tokensGetParams,
  result: tokenTableResult,
  overrides: { sort: sortFromQuery },
  async run({ db, head }, params) {
    const result = await readTokenTable(db, head, { ...params, fields: params.fields ?? DEFAULT_FIELDS });
    return { result, cache: result.missing.length ? 'none' : 'live', rows: result.rows.length };
  },
});

export const tokensSearchParams = z.strictObject({
  q: z.string().min(1).max(100).describe('matched against account id, symbol and name: exact, then prefix, then substring (case-insensitive)'),
  fields: fieldsSchema.optional(),
  where: whereSchema.optional(),
  limit: z.int().min(1).max(100).default(20),
  precision: precisionSchema.optional(),
});

const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export const tokensSearch = defineMethod({
  name: 'tokens.search',
  path: '/tokens/search',
  summary: 'Tokens whose account id, symbol or name match `q`: exact matches first, then prefixes, then substrings; deeper liquidity first within each.',
  params: tokensSearchParams,
  result: tokenTableResult,
  async run({ db, head }, params) {
    const fields = params.fields ?? DEFAULT_FIELDS;
    const q = params.q.toLowerCase();
    const prefix = `${likeEscape(q)}%`;
    const substring = `%${likeEscape(q)}%`;
    const tier = sql`case
      when lower(tok.account_id) = ${q} or lower(tok.symbol) = ${q} or lower(tok.name) = ${q} then 0
      when lower(tok.account_id) like ${prefix} or lower(tok.symbol) like ${prefix} or lower(tok.name) like ${prefix} then 1
      else 2 end`;
    const filter = sql`${whereClause(params.where, undefined)} and (lower(tok.account_id) like ${substring} or lower(tok.symbol) like ${substring} or lower(tok.name) like ${substring})`;
    const { rows } = await sql<Record<string, unknown>>`
      select tok.* from ${universe()} where ${filter}
      order by ${tier}, tok.liquidity_usd desc nulls last, tok.account_id limit ${params.limit}`.execute(db);
    const { rows: counted } = await sql<{ total: number }>`select count(*)::int as total from ${universe()} where ${filter}`.execute(db);
    const columns = ['account_id', ...fields] as const;
    const result: TokenTableResult = {
      height: head.height,
      timestamp_millis: head.timestamp_millis,
      columns: [...columns],
      rows: rows.map((row) => columns.map((field) => presentField(row, field, params.precision))),
      total: counted[0]?.total ?? 0,
      missing: [],
    };
    return { result, cache: 'live', rows: rows.length };
  },
});
