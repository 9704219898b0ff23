// One row per pool hop of a swap (a user's swap across several pools is several hops; the per-swap view comes
// with the DEX-indexing issue).
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table trade_hops (
      block_height bigint not null,
      receipt_id text not null,
      index integer not null,
      timestamp_ms bigint not null,
      tx_hash text,
      dex text not null,
      -- null when the decoder could not tell the pool exactly
      pool_id text,
      trader text,
      token_in text not null,
      token_out text not null,
      amount_in numeric(40,0) not null,
      amount_out numeric(40,0) not null,
      primary key (block_height, receipt_id, index)
    )`.execute(db);
  await sql`create index trade_hops_token_in on trade_hops (token_in, block_height)`.execute(db);
  await sql`create index trade_hops_token_out on trade_hops (token_out, block_height)`.execute(db);
  await sql`create index trade_hops_pool on trade_hops (dex, pool_id, block_height)`.execute(db);
}
