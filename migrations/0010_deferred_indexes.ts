// Bulk-load mode (indexer/bulk-load.ts): the indexes dropped while the indexer backfills far behind the head, each
// with the statement that builds it again. A row is added in the transaction that drops its index and deleted in the
// one that builds it, so after a crash at any moment this table names exactly the indexes that are missing.
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table deferred_indexes (
      name text primary key,
      table_name text not null,
      definition text not null
    )`.execute(db);
}
