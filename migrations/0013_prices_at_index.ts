// The price in force at a time is the last row of the token at or before it, ordered by (timestamp_ms, block_height):
// /prices/at and the NEAR-quoted candles read it that way. With an index on (token, timestamp_ms) alone the planner
// could not read that order from any index, and at 100x the history of bench:scale it walked a busy token's key
// backwards from its newest price (p99 x19). The index now holds the whole order.
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index prices_token_time`.execute(db);
  await sql`create index prices_token_time on prices (token, timestamp_ms, block_height)`.execute(db);
}
