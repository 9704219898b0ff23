// balances.get and holders.get: one account's balances (now or at a height) with USD values, and a token's
// holders by amount with their share of the supply.
import { z } from 'zod';
import { accountIdParam, tokenIdParam } from '../ids.ts';
import type { RawBuilder } from 'kysely';
import { sql } from '../../../db/kysely.ts';
import { badRequest } from '../errors.ts';
import { formatScaled, parseScaled, presentDecimal, share, usdValue } from '../decimal.ts';
import { defineMethod, historyFromHeight, historyFromHeightField } from '../method.ts';
import { LIMITS } from '../limits.ts';
import { tokenExists } from './history.ts';
import { precisionSchema } from './tokens.ts';


export const balancesGetParams = z.strictObject({
  account_id: accountIdParam,
  tokens: z.array(tokenIdParam).max(LIMITS.max_ids).optional().describe('only these tokens'),
  at_height: z.int().min(0).optional().describe('balances after this block (default: the latest)'),
  at_millis: z.int().min(0).optional().describe('balances after the last block at or before this time'),
  precision: precisionSchema.optional(),
});

const balanceRow = z.object({
  token: z.string(),
  symbol: z.string().nullable(),
  decimals: z.int().nullable(),
  amount: z.string().describe('smallest units'),
  price_usd: z.string().nullable().describe('at the height'),
  value_usd: z.string().nullable(),
});

export const balancesGet = defineMethod({
  name: 'balances.get',
  path: '/balances',
  summary: "An account's non-zero balances, now or at a past block, with USD values at that block's prices.",
  params: balancesGetParams,
  result: z.object({ height: z.int(), timestamp_millis: z.int(), history_from_height: historyFromHeightField, account_id: z.string(), at_height: z.int(), total_value_usd: z.string(), rows: z.array(balanceRow) }),
  async run(snapshot, params) {
    const { db, head } = snapshot;
    if (params.at_height !== undefined && params.at_millis !== undefined) throw badRequest('give at_height or at_millis, not both');
    if (params.at_height !== undefined && params.at_height > head.height) throw badRequest(`at_height ${params.at_height} is after the latest block ${head.height}`);
    let at = params.at_height ?? head.height;
    if (params.at_millis !== undefined) {
      const { rows } = await sql<{ height: number | null }>`select height from blocks where timestamp_ms <= ${params.at_millis} order by timestamp_ms desc, height desc limit 1`.execute(db);
      at = rows[0]?.height == null ? -1 : Number(rows[0].height);
    }
    const only = (token: RawBuilder<unknown>) => (params.tokens ? sql`and ${token} = any(${params.tokens}::text[])` : sql``);
    const current = at === head.height;
    const { rows } = current
      ? await sql<{ token: string; balance: string; symbol: string | null; decimals: number | null; price_usd: string | null }>`
          select b.token, b.balance, t.symbol, t.decimals, m.price_usd
          from balances b left join tokens t on t.token = b.token left join token_market m on m.token = b.token
          where b.account = ${params.account_id} and b.balance <> 0 ${only(sql`b.token`)} order by b.token`.execute(db)
      : // Per token the account held by then (balances keeps a row for each, with its first height): the current
        // balance when it has not changed since the height, else its last balance at or below the height, one probe
        // down the key per partition until found (where one distinct over the account's whole history would read and
        // sort all of it). Without those two, a token not held yet, or not moved since, would probe every partition.
        await sql<{ token: string; balance: string; symbol: string | null; decimals: number | null; price_usd: string | null }>`
          select b.token, b.balance, t.symbol, t.decimals,
            (select p.price_usd from prices p where p.token = b.token and p.block_height <= ${at} order by p.block_height desc limit 1) as price_usd
          from balances c
          cross join lateral (
            select c.token, c.balance where c.updated_height <= ${at}
            union all
            (select h.token, h.balance from balance_history h
              where c.updated_height > ${at} and h.token = c.token and h.account = c.account and h.block_height <= ${at}
              order by h.block_height desc limit 1)
          ) b
          left join tokens t on t.token = b.token
          where c.account = ${params.account_id} and c.first_height <= ${at} ${only(sql`c.token`)} and b.balance <> 0 order by b.token`.execute(db);
    let total = 0n;
    const out = rows.map((r) => {
      const value = r.price_usd !== null && r.decimals !== null ? usdValue(BigInt(r.balance), r.decimals, r.price_usd) : null;
      if (value !== null) total += parseScaled(value);
      return {
        token: r.token,
        symbol: r.symbol,
        decimals: r.decimals,
        amount: String(r.balance),
        price_usd: presentDecimal(r.price_usd, params.precision),
        value_usd: value === null ? null : presentDecimal(value, params.precision),
      };
    });
    let allKnown = true;
    if (params.tokens?.length) {
      const { rows: known } = await sql<{ token: string }>`
        select token from tokens where token = any(${params.tokens}::text[]) union select token from token_market where token = any(${params.tokens}::text[])`.execute(db);
      allKnown = known.length === new Set(params.tokens).size;
    }
    return {
      result: { height: head.height, timestamp_millis: head.timestamp_millis, history_from_height: await historyFromHeight(db), account_id: params.account_id, at_height: at, total_value_usd: presentDecimal(formatScaled(total), params.precision)!, rows: out },
      cache: allKnown ? 'live' : 'none',
      rows: out.length,
    };
  },
});

export const holdersGetParams = z.strictObject({
  token: tokenIdParam,
  limit: z.int().min(1).max(LIMITS.max_limit).default(100),
  cursor: z.string().max(200).optional().describe('next_cursor of the previous page'),
});

export const holdersGet = defineMethod({
  name: 'holders.get',
  path: '/holders',
  summary: "A token's holders, largest first, with the holder count and each holder's share of the supply.",
  params: holdersGetParams,
  result: z.object({
    height: z.int(),
    timestamp_millis: z.int(),
    history_from_height: historyFromHeightField,
    token: z.string(),
    holders: z.int().describe('accounts with a positive balance (from history_from_height on, when not null)'),
    total_supply: z.string().nullable(),
    next_cursor: z.string().nullable(),
    rows: z.array(z.object({ account_id: z.string(), amount: z.string(), share: z.string().nullable().describe('amount / total_supply (0.25 = a quarter); null where the balances are partial: the supply is unknown (the token was created before the log began, e.g. before a bootstrap at history_from_height)') })),
  }),
  async run(snapshot, params) {
    const { db, head } = snapshot;
    let after = sql``;
    if (params.cursor) {
      const match = /^(\d+):(.+)$/.exec(params.cursor);
      if (!match) throw badRequest(`cursor "${params.cursor}" is not a holders cursor`);
      after = sql`and (balance < ${match[1]}::numeric or (balance = ${match[1]}::numeric and account > ${match[2]}))`;
    }
    const { rows } = await sql<{ account: string; balance: string }>`
      select account, balance from balances where token = ${params.token} and balance > 0 ${after}
      order by balance desc, account asc limit ${params.limit}`.execute(db);
    const { rows: meta } = await sql<{ total_supply: string | null; holders: number; created_height: string | null }>`
      select total_supply, coalesce(t.holders, 0) as holders, t.created_height
      from (select ${params.token}::text as token) q left join tokens t on t.token = q.token`.execute(db);
    const from = await historyFromHeight(db);
    // Shares only where the balances are complete: the supply is known only for a token whose creation is in the
    // log (so are its every mint and transfer); after a bootstrap at H that means a token created after H, never
    // one that existed at H (its balances before H are unknown).
    const created = meta[0]?.created_height == null ? null : Number(meta[0].created_height);
    const complete = from === null || (created !== null && created > from);
    const supply = meta[0]?.total_supply ?? null;
    const last = rows.at(-1);
    const result = {
      height: head.height,
      timestamp_millis: head.timestamp_millis,
      history_from_height: from,
      token: params.token,
      holders: meta[0]?.holders ?? 0,
      total_supply: supply,
      next_cursor: rows.length === params.limit && last ? `${last.balance}:${last.account}` : null,
      rows: rows.map((r) => ({ account_id: r.account, amount: String(r.balance), share: supply === null || !complete ? null : share(BigInt(r.balance), BigInt(supply)) })),
    };
    return { result, cache: (await tokenExists(snapshot, params.token)) ? 'live' : 'none', rows: rows.length };
  },
});
