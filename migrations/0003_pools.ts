// Pool state per DEX: the current state of every pool and its state after each block that changed it. The
// columns every DEX shares (tokens, reserves, fee) are columns; the rest of a pool's state is the DEX's own JSON.
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  // total_fee: basis points of 10,000; amounts: reserves in smallest units, in the order of tokens.
  await sql`
    create table pools (
      dex text not null,
      pool_id text not null,
      kind text not null,
      tokens text[] not null,
      amounts numeric(40,0)[] not null,
      total_fee integer not null,
      state json not null,
      updated_height bigint not null,
      primary key (dex, pool_id)
    )`.execute(db);
  await sql`create index pools_tokens on pools using gin (tokens)`.execute(db);
  await sql`
    create table pool_history (
      dex text not null,
      pool_id text not null,
      block_height bigint not null,
      kind text not null,
      tokens text[] not null,
      amounts numeric(40,0)[] not null,
      total_fee integer not null,
      state json not null,
      primary key (dex, pool_id, block_height)
    )`.execute(db);
}
