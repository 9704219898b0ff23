// Parallel backfill (indexer/backfill.ts): the height ranges of a split run with each one's checkpoint, and the
// folding DEXes' inputs of the blocks range workers wrote, kept until the merge folds them in height order. Both are
// empty outside a backfill.
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table backfill_ranges (
      from_height bigint primary key,
      to_height bigint not null,
      -- The range's checkpoint: its last written block (null: none yet).
      height bigint,
      hash text,
      done boolean not null default false,
      check (from_height <= to_height)
    )`.execute(db);
  // v8-serialized DecodedBlock.foldInputs (structured-clonable, with bigints), one row per block that has any.
  await sql`create table backfill_fold_inputs (block_height bigint primary key, inputs bytea not null)`.execute(db);
}
