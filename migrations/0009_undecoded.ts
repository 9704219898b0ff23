// What the decoders could not read (`undecoded` events): the newest 1,000 per DEX with their raw text, the totals
// per DEX and kind, and the pools whose latest storage write or state line did not decode (`pools.stale`: not
// routed until a readable write arrives). All three are projections of the event log, like every other table.
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table undecoded (
      block_height bigint not null,
      receipt_id text not null,
      index integer not null,
      timestamp_ms bigint not null,
      tx_hash text,
      dex text not null,
      kind text not null,
      contract_id text not null,
      pool_id text,
      reason text not null,
      raw text not null,
      primary key (block_height, receipt_id, index)
    )`.execute(db);
  await sql`create index undecoded_dex on undecoded (dex, block_height desc, receipt_id desc, index desc)`.execute(db);
  await sql`
    create table undecoded_totals (
      dex text not null,
      kind text not null,
      count bigint not null,
      primary key (dex, kind)
    )`.execute(db);
  await sql`alter table pools add column stale boolean not null default false`.execute(db);
}
