// The foundation: the block log, the indexer checkpoint and the append-only event log.
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('blocks')
    .addColumn('height', 'bigint', (c) => c.primaryKey())
    .addColumn('hash', 'text', (c) => c.notNull().unique())
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('timestamp_ms', 'bigint', (c) => c.notNull())
    // Heights between the previous indexed block and this one that the chain skipped (0 when consecutive).
    .addColumn('gap_before', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('checkpoints')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('height', 'bigint', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('block_height', 'bigint', (c) => c.notNull())
    .addColumn('receipt_id', 'text', (c) => c.notNull())
    .addColumn('index', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('timestamp_ms', 'bigint', (c) => c.notNull())
    .addColumn('tx_hash', 'text')
    // json, not jsonb: the log is written far more than it is searched, and json stores the text as it is.
    .addColumn('payload', 'json', (c) => c.notNull())
    .addPrimaryKeyConstraint('events_pkey', ['block_height', 'receipt_id', 'index'])
    .execute();
}
