// AmmA's rated-token rates (`custom_rate_key`) live only in the event log, as `rates` events: the router reads the
// latest one after every batch, so it gets a small partial index of its own instead of a scan of the log.
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index events_rates on events (block_height desc, receipt_id desc, index desc) where kind = 'rates'`.execute(db);
}
