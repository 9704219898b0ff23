// pools.get: the pools of every DEX (the `pools` table) with their market figures, read at the snapshot's head:
// `liquidity_usd` (the USD value of the reserves a pool holds, at `token_market` prices), `volume_usd_24h` (the
// USD value of its hops in the 24 h up to the head, `trade_hops.volume_usd`: conversions are not volume) and `price` (its
// DEX's own marginal rate, dexes/<id>/: the hop from tokens[0] to tokens[1]). Filtered by token, DEX, pool id and
// minimum liquidity, sorted by liquidity or volume, paged by limit and offset as tokens.get is. Also how
// trades.query, candles.get and trades.subscribe name a pool (`resolvePool`).
import { z } from 'zod';
import type { Kysely } from 'kysely';
import { sql } from '../../../db/kysely.ts';
import type { Database } from '../../../db/schema.ts';
import { MAINNET_CONTRACTS } from '../../../dexes/contracts.ts';
import { NOT_RESERVE_KINDS } from '../../../dexes/events.ts';
import { dexOf } from '../../../dexes/index.ts';
import { findKnownToken, KNOWN_MAINNET_TOKENS } from '../../../near/known-tokens.ts';
import { reviveState } from '../../routing/graph.ts';
import { formatScaled, presentDecimal, USD_SCALE } from '../decimal.ts';
import { badRequest } from '../errors.ts';
import { dexParam, poolIdParam, tokenIdParam } from '../ids.ts';
import { LIMITS } from '../limits.ts';
import { defineMethod } from '../method.ts';
import { sortFromQuery } from '../query.ts';
import { timeWindow, tokenExists } from './history.ts';
import { precisionSchema } from './tokens.ts';

const DAY_MS = 86_400_000;

// A number in JSON, text over GET; kept as text (exact, and one cache key for both), as tokens.get's bounds.
const usdBound = z.union([z.number().min(0), z.string().max(100).regex(/^\d+(\.\d+)?$/, 'a decimal number')]).transform(String);

export const POOL_SORT_FIELDS = ['liquidity_usd', 'volume_usd_24h', 'created_height'] as const;

export const poolsGetParams = z.strictObject({
  token: tokenIdParam.optional().describe('pools holding this token (`near` and `wrap.near` are one token here, as in liquidity_usd)'),
  dex: dexParam.optional(),
  pool_id: poolIdParam.optional().describe('this pool id (with dex: that one pool)'),
  min_liquidity_usd: usdBound.optional().describe('smallest liquidity_usd kept (pools without one are dropped)'),
  sort: z
    .strictObject({ by: z.enum(POOL_SORT_FIELDS), desc: z.boolean().default(false) })
    .optional()
    .describe('over HTTP `sort=field` (ascending) or `sort=-field` (descending); default -liquidity_usd; `-created_height` lists the newest pools first; pools without a value come last'),
  limit: z.int().min(1).max(LIMITS.max_limit).default(100),
  offset: z.int().min(0).default(0),
  precision: precisionSchema.optional(),
});

const poolRecord = z.object({
  dex: z.string(),
  pool_id: z.string(),
  kind: z.string().describe("the DEX's pool kind: simple, stable, rated, degen, xyk, dcl, curve, stake..."),
  tokens: z.array(z.string()),
  reserves: z.array(z.string()).describe('per token, smallest units; for rate pools (stake) the two sides of the rate'),
  fee: z.string().describe('fee of a swap as a fraction of its input, decimal (0.003 = 0.3%)'),
  price: z
    .string()
    .nullable()
    .describe("whole tokens[1] per whole tokens[0] at the pool's marginal rate before fees, exact to 10^-18 (floored); null where its DEX quotes no swap from tokens[0] now or a decimals is unknown"),
  liquidity_usd: z.string().nullable().describe('USD value of the reserves it holds at current prices; tokens without a price count nothing; null when none has one, or for rate pools'),
  volume_usd_24h: z.string().describe('USD value of the trades through it in the 24 h up to the latest block (a multi-hop trade counts its value in each pool)'),
  updated_height: z.int().describe('block of its latest state'),
  created_height: z.int().nullable().describe('block of its first state (its creation); null when the index began from a bootstrap or an import that found it existing'),
  stale: z.boolean().describe('its latest write did not decode: the state shown is the one before'),
});
export type PoolRecord = z.output<typeof poolRecord>;

/** `near` and `wrap.near` are one token in a pool listing (AmmA holds wNEAR, AmmC native NEAR), as in the token
 * table's liquidity. */
function sameToken(token: string): string[] {
  return token === 'near' || token === 'wrap.near' ? ['near', 'wrap.near'] : [token];
}

/** Decimals of tokens: their metadata, else the bundled list of well-known tokens. */
async function decimalsOf(db: Kysely<Database>, tokens: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const token of tokens) {
    const known = findKnownToken(token === 'near' ? 'wrap.near' : token);
    if (known) out.set(token, known.decimals);
  }
  const { rows } = await sql<{ token: string; decimals: number }>`
    select token, decimals from tokens where token = any(${[...new Set(tokens)]}::text[]) and decimals is not null`.execute(db);
  for (const r of rows) out.set(r.token, r.decimals);
  return out;
}

/**
 * The pool's price from its DEX's own hop tokens[0] -> tokens[1] (the router's math, at the head's time; without the
 * DEX ledgers, so AmmA's rated pools have none), as whole tokens[1] per whole tokens[0].
 */
export function poolPrice(row: { dex: string; pool_id: string; state: unknown; updated_height: number }, decimals: ReadonlyMap<string, number>, nowMs: number): string | null {
  const dex = dexOf(row.dex);
  if (!dex?.routing?.hops) return null;
  let state;
  try {
    state = dex.reviveState === undefined ? reviveState(row.state) : dex.reviveState(row.state);
  } catch {
    return null; // a state its DEX cannot read has no price
  }
  const [t0, t1] = state.tokens;
  const d0 = t0 === undefined ? undefined : decimals.get(t0);
  const d1 = t1 === undefined ? undefined : decimals.get(t1);
  if (d0 === undefined || d1 === undefined) return null;
  // Hops read no contract id; the mainnet table stands for any network.
  const hops = dex.routing.hops({ dex: row.dex, poolId: row.pool_id, state, updatedHeight: row.updated_height }, { contracts: MAINNET_CONTRACTS, registrations: null, nowNs: BigInt(nowMs) * 1_000_000n });
  const spot = hops.find((hop) => hop.tokenIn === t0 && hop.tokenOut === t1)?.spot;
  if (!spot || spot.denominator <= 0n) return null;
  return formatScaled((spot.numerator * 10n ** BigInt(d0) * USD_SCALE) / (spot.denominator * 10n ** BigInt(d1)));
}

/** A pool's fee as a decimal fraction, in its DEX's unit. */
function feeFraction(dex: string, totalFee: number): string {
  const denominator = BigInt(dexOf(dex)?.feeDenominator ?? 10_000);
  return formatScaled((BigInt(totalFee) * USD_SCALE) / denominator);
}

/** A usd_bound (decimal text) as an integer of 10^-18 USD units, for comparing with the scaled figures below. */
const scaledBound = (text: string) => sql`(${text}::numeric * 1000000000000000000)`;

const KNOWN_IDS = KNOWN_MAINNET_TOKENS.map((t) => t.contractId);
const KNOWN_DECIMALS = KNOWN_MAINNET_TOKENS.map((t) => t.decimals);

export const poolsGet = defineMethod({
  name: 'pools.get',
  path: '/pools',
  summary: 'Pools of every DEX with reserves, fee, price, USD liquidity, 24 h volume and creation height: filter by token, DEX and liquidity; sort by liquidity, volume or creation (newest first); paged.',
  params: poolsGetParams,
  result: z.object({
    height: z.int(),
    timestamp_millis: z.int(),
    total: z.int().describe('pools matching the filters, before limit and offset'),
    rows: z.array(poolRecord),
  }),
  overrides: { sort: sortFromQuery },
  async run(snapshot, params) {
    const { db, head } = snapshot;
    const filters = [sql`true`];
    if (params.token) filters.push(sql`p.tokens && ${sameToken(params.token)}::text[]`);
    if (params.dex) filters.push(sql`p.dex = ${params.dex}`);
    if (params.pool_id) filters.push(sql`p.pool_id = ${params.pool_id}`);
    const having = params.min_liquidity_usd === undefined ? sql`true` : sql`l.liquidity >= ${scaledBound(params.min_liquidity_usd)}`;
    const sort = params.sort ?? { by: 'liquidity_usd' as const, desc: true };
    // Constant fragments only: the sort's column and direction are chosen here, never spliced from the request.
    const column = sort.by === 'liquidity_usd' ? sql`f.liquidity` : sort.by === 'volume_usd_24h' ? sql`f.volume` : sql`f.created_height`;
    const order = sql`${column} ${sort.desc ? sql`desc` : sql`asc`} nulls last, f.dex, f.pool_id`;
    // The 24 h window as heights too, so the hops are read from their partitions by (dex, pool_id, height).
    const since = head.timestamp_millis - DAY_MS;
    const { aboveHeight } = await timeWindow(db, { after_millis: since });
    const hopWindow = sql`h.timestamp_ms > ${since} and h.block_height <= ${head.height} and h.block_height > ${aboveHeight ?? -1}`;
    // Every pool matching the filters, with its figures; paged below (and counted when a page is past the end).
    const matching = sql`
      with known(token, decimals) as (select * from unnest(${KNOWN_IDS}::text[], ${KNOWN_DECIMALS}::int[])),
      p as (select * from pools p where ${sql.join(filters, sql` and `)}),
      -- Per pool, each token's reserve at its price, floored to 10^-18 USD (as the token table's liquidity is); an AmmC
      -- launch pool's first reserve without its phantom liquidity, which its curve counts but it does not hold.
      l as (
        select p.dex, p.pool_id, sum(div(
            greatest(u.amount - case when u.i = 1 then coalesce((p.state->>'phantomLiquidity')::numeric, 0) else 0 end, 0)
              * (m.price_usd * 1000000000000000000),
            power(10::numeric, coalesce(t.decimals, k.decimals)))) as liquidity
        from p
        cross join lateral unnest(p.tokens, p.amounts) with ordinality as u(token, amount, i)
        join token_market m on m.token = u.token and m.price_usd is not null
        left join tokens t on t.token = u.token
        left join known k on k.token = (case when u.token = 'near' then 'wrap.near' else u.token end)
        where not (p.kind = any(${[...NOT_RESERVE_KINDS]}::text[])) and coalesce(t.decimals, k.decimals) is not null
        group by p.dex, p.pool_id
      ),
      v as (
        select h.dex, h.pool_id, sum(h.volume_usd) as volume
        from trade_hops h
        where (h.dex, h.pool_id) in (select dex, pool_id from p) and ${hopWindow} and h.volume_usd is not null
        group by h.dex, h.pool_id
      )
      select p.dex, p.pool_id, p.kind, p.tokens, p.amounts::text[] as amounts, p.total_fee, p.state, p.updated_height, p.stale,
        p.created_height, l.liquidity, v.volume
      from p
      left join l on l.dex = p.dex and l.pool_id = p.pool_id
      left join v on v.dex = p.dex and v.pool_id = p.pool_id
      where ${having}`;
    const { rows } = await sql<{
      dex: string;
      pool_id: string;
      kind: string;
      tokens: string[];
      amounts: string[];
      total_fee: number;
      state: unknown;
      updated_height: string;
      stale: boolean;
      created_height: string | null;
      liquidity: string | null;
      volume: string | null;
      total: number;
    }>`
      select f.dex, f.pool_id, f.kind, f.tokens, f.amounts, f.total_fee, f.state, f.updated_height, f.stale, f.created_height, f.liquidity::text as liquidity,
        f.volume::text as volume, count(*) over ()::int as total
      from (${matching}) f
      order by ${order} limit ${params.limit} offset ${params.offset}`.execute(db);
    let total = rows[0]?.total ?? 0;
    if (!rows.length && params.offset > 0) total = (await sql<{ total: number }>`select count(*)::int as total from (${matching}) f`.execute(db)).rows[0]!.total;
    const decimals = await decimalsOf(db, rows.flatMap((r) => r.tokens));
    const result = {
      height: head.height,
      timestamp_millis: head.timestamp_millis,
      total,
      rows: rows.map((r): PoolRecord => ({
        dex: r.dex,
        pool_id: r.pool_id,
        kind: r.kind,
        tokens: r.tokens,
        reserves: r.amounts,
        fee: feeFraction(r.dex, r.total_fee),
        price: presentDecimal(poolPrice({ ...r, updated_height: Number(r.updated_height) }, decimals, head.timestamp_millis), params.precision),
        liquidity_usd: r.liquidity === null ? null : presentDecimal(formatScaled(BigInt(r.liquidity)), params.precision),
        volume_usd_24h: presentDecimal(r.volume ?? '0', params.precision)!,
        updated_height: Number(r.updated_height),
        created_height: r.created_height === null ? null : Number(r.created_height),
        stale: r.stale,
      })),
    };
    const known = params.token === undefined || (await tokenExists(snapshot, params.token));
    return { result, cache: known ? 'live' : 'none', rows: rows.length };
  },
});

/** A pool as a filter names it: its DEX (given, or the one DEX having that id; null when none has) and its id. */
export interface PoolRef {
  dex: string | null;
  pool_id: string;
  /** Its tokens, when the pool is known. */
  tokens: string[] | null;
}

/**
 * The pool a `pool_id` (and `dex`) names. Without dex the id must be one DEX's: ids such as `0` are several DEXes'
 * (bad_request names them). An unknown pool is not an error: it names nothing yet.
 */
export async function resolvePool(db: Kysely<Database>, poolId: string, dex: string | undefined): Promise<PoolRef> {
  const { rows } = await sql<{ dex: string; tokens: string[] }>`
    select dex, tokens from pools where pool_id = ${poolId} ${dex === undefined ? sql`` : sql`and dex = ${dex}`} order by dex`.execute(db);
  if (rows.length > 1) throw badRequest(`pool_id "${poolId}" is a pool of ${rows.map((r) => r.dex).join(', ')}: give dex too`);
  return { dex: dex ?? rows[0]?.dex ?? null, pool_id: poolId, tokens: rows[0]?.tokens ?? null };
}
