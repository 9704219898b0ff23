// Trades name the receipts they involve, and are keyed like the events they come from: one receipt can settle the
// trades of several accounts (a NEAR Intents fill is the user's and the solver's), so (block, receipt, dex) was not
// a trade's key; the index of its first hop is.
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The creator of the swap's receipt (when its block holds it), the swap's receipt, and the receipts it created.
  await sql`alter table trades add column receipt_ids text[] not null default '{}'`.execute(db);
  await sql`alter table trades drop constraint trades_pkey, add primary key (block_height, receipt_id, index)`.execute(db);
}
