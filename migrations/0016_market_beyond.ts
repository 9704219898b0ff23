// What a DexScreener or GeckoTerminal user looks for beyond price and volume (issue 40.7, docs/methodology.md):
// price changes over 5 m, 1 h and 6 h beside the 24 h one (token_market), buys, sells and unique traders over 24 h
// (token_activity) and each pool's creation height (pools.created_height); and an index of symbols. The figures are
// projections of the log: a database that holds events is marked for the indexer to rebuild them at its next start
// (indexer/replay.ts).
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  // As price_change_24h: price now / price in force at (clock - window) - 1; null without an earlier price.
  await sql`alter table token_market add column price_change_5m numeric, add column price_change_1h numeric, add column price_change_6h numeric`.execute(db);
  // Apart from token_market: a token traded only through unpriced pools has activity but no market row.
  await sql`
    create table token_activity (
      token text primary key,
      -- trades of the 24 h up to the market clock whose token_out (buys) or token_in (sells) is the token
      buys_24h integer not null,
      sells_24h integer not null,
      -- distinct traders of those trades
      traders_24h integer not null
    )`.execute(db);
  // The block of the pool's first state; null when that state was read by a bootstrap or an import (it existed before).
  await sql`alter table pools add column created_height bigint`.execute(db);
  // Symbols name tokens where ids go (api/tokens/symbols.ts): looked up case-insensitively.
  await sql`create index tokens_symbol on tokens (lower(symbol))`.execute(db);
  await sql`
    insert into projection_rebuilds (reason)
    select 'price changes over 5 m, 1 h and 6 h, 24 h buys, sells and traders, pool creation heights (migration 0016)'
    where exists (select 1 from events)
    on conflict do nothing`.execute(db);
}
