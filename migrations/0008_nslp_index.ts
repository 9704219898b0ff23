// Meta Pool's liquid-unstake pool (NSLP) is followed in the event log only, as StakeA `nslp` events: the router
// folds the latest figure and the moves after it whenever the StakeA pool changes, so they get a small partial index
// of their own, like AmmA's rates (0007).
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index events_nslp on events (block_height desc, receipt_id desc, index desc) where kind = 'nslp'`.execute(db);
}
