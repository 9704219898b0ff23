// Indexes for reads that grow with the history (bench:scale): a time bound becomes a height bound through the
// blocks' timestamps, so it reaches only the partitions and index ranges of its heights; and an account's liquidity
// changes, which /activity read by scanning every `liquidity` event of the log.
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index blocks_timestamp on blocks (timestamp_ms, height)`.execute(db);
  await sql`create index events_liquidity_provider on events ((payload->>'provider'), block_height) where kind = 'liquidity'`.execute(db);
}
