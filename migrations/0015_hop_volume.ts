// Volume per hop (docs/methodology.md): each hop's USD value, null for a conversion (wrap, inner-balance deposit or
// withdrawal, stake) or a hop without a price, so a pool's volume and a token's are sums of the same rows. Stored
// volumes, candles and market rows were made per trade, counting conversions; a database that holds events is marked
// for the indexer to rebuild its projections from the log at its next start (indexer/replay.ts), in one
// transaction, as `dexlake rebuild` would.
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table trade_hops add column volume_usd numeric`.execute(db);
  // The hops leaving the 24 h window are read by timestamp (indexer/projections/prices.ts writeMarket).
  await sql`create index trade_hops_volume_time on trade_hops (timestamp_ms) where volume_usd is not null`.execute(db);
  await sql`create table projection_rebuilds (reason text primary key)`.execute(db);
  await sql`
    insert into projection_rebuilds (reason)
    select 'volume and candles per hop, conversions left out (migration 0015)' where exists (select 1 from events)`.execute(db);
}
