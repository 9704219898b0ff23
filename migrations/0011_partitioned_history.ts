// The history tables become partitioned by block height (PostgreSQL's declarative partitioning): one partition per
// `width_blocks` heights, the same bounds in every table, created as the indexer reaches them (indexer/partitions.ts).
// A partition is a unit of maintenance: it is vacuumed, indexed and, one day, dropped on its own, and replay empties
// whole ones with TRUNCATE. The api's queries are unchanged; the planner prunes partitions by height where a query
// bounds it and reads the others in height order.
//
// An existing database moves over in this migration's transaction, without losing a row: each table is renamed, its
// indexes are dropped (freeing their names), the partitioned table is made like it, every row is copied, and the
// indexes are built again from their own definitions in the catalog. Indexes that bulk-load mode had dropped stay
// recorded in deferred_indexes and are built by the indexer as before.
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';

/** The partitioned tables, all keyed by `block_height`. Not candles (keyed by time, a row per token and bucket:
 * small), nor prices (read by token and time). */
const HISTORY = ['events', 'transfers', 'balance_history', 'trade_hops', 'trades', 'pool_history'] as const;

/** About 10 to 14 days of mainnet blocks: 30 partitions a year. */
const WIDTH_BLOCKS = 1_000_000;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table history_partitioning (
      id boolean primary key default true check (id),
      -- heights per partition; partition k holds [k * width_blocks, (k + 1) * width_blocks). Set before the first
      -- block is written: partitions of another width would overlap the ones made.
      width_blocks bigint not null check (width_blocks > 0)
    )`.execute(db);
  await sql`insert into history_partitioning (width_blocks) values (${WIDTH_BLOCKS})`.execute(db);

  // The partitions the rows need, and the next one: the same set for every table.
  const heights = sql.join(HISTORY.map((t) => sql`select distinct block_height / ${WIDTH_BLOCKS} as k from ${sql.table(t)}`), sql` union `);
  const { rows: used } = await sql<{ k: string }>`select k from (${heights}) u order by k`.execute(db);
  const ks = used.map((r) => BigInt(r.k));
  if (ks.length) ks.push(ks.at(-1)! + 1n);

  for (const table of HISTORY) {
    const { rows: indexes } = await sql<{ name: string; constraint_def: string | null; index_def: string }>`
      select i.relname as name, pg_get_constraintdef(c.oid) as constraint_def, pg_get_indexdef(i.oid) as index_def
        from pg_index x
        join pg_class i on i.oid = x.indexrelid
        left join pg_constraint c on c.conindid = i.oid and c.contype = 'p'
       where x.indrelid = ${`public.${table}`}::regclass
       order by i.relname`.execute(db);
    const old = `${table}_unpartitioned`;
    await sql`alter table ${sql.table(table)} rename to ${sql.table(old)}`.execute(db);
    for (const index of indexes) {
      if (index.constraint_def === null) await sql`drop index ${sql.table(index.name)}`.execute(db);
      else await sql`alter table ${sql.table(old)} drop constraint ${sql.ref(index.name)}`.execute(db);
    }
    await sql`create table ${sql.table(table)} (like ${sql.table(old)} including defaults) partition by range (block_height)`.execute(db);
    for (const k of ks) {
      const from = k * BigInt(WIDTH_BLOCKS);
      await sql`create table ${sql.table(`${table}_p${from}`)} partition of ${sql.table(table)} for values from (${sql.lit(from.toString())}) to (${sql.lit((from + BigInt(WIDTH_BLOCKS)).toString())})`.execute(db);
    }
    await sql`insert into ${sql.table(table)} select * from ${sql.table(old)}`.execute(db);
    await sql`drop table ${sql.table(old)}`.execute(db);
    // Built after the copy: one sort per partition instead of a b-tree grown row by row.
    for (const index of indexes) {
      if (index.constraint_def === null) await sql.raw(index.index_def).execute(db);
      else await sql`alter table ${sql.table(table)} add constraint ${sql.ref(index.name)} ${sql.raw(index.constraint_def)}`.execute(db);
    }
  }
}
