// Bulk-load mode, as EVM indexers do their historical sync: while the indexer is far behind the head, the indexes of
// the large history tables that nothing in the write path reads are dropped, and built once when it gets within a
// distance of the head (or at the end of a bounded run). A b-tree grows by random inserts one batch at a time but is
// built by one sort; the 2,000 real blocks of bench:backfill write 357,520 events, 211,280 transfers and 209,040
// balance history rows, and these indexes were most of PostgreSQL's work on them (bench/README.md).
//
// Crash safety: the drop and the record of how to build each index again (`deferred_indexes`) are one transaction;
// each build and the deletion of its record are another. Whenever a crash hits, that table names exactly the
// missing indexes, and the next run builds them (or goes on without them while still far behind). The log's keys
// are among them: the blocks table keeps its own key, so a block (and with it its events and transfers) is still
// written once; replay and the api work without them, slower.
import { inTransaction, quoteIdent as ident, type Db } from '../db/connect.ts';

/**
 * Dropped in bulk-load mode: the indexes of the append-only history tables, which the writer never reads (only the
 * api and replay do). Not the indexes the writer reads while it writes (prices, trades' timestamps, pools,
 * balances, undecoded), nor the small partial indexes of the log that the router reads after every batch.
 */
export const BULK_LOAD_INDEXES: readonly string[] = [
  'events_pkey',
  'transfers_pkey',
  'transfers_token_height',
  'transfers_sender_height',
  'transfers_receiver_height',
  'balance_history_pkey',
  'trade_hops_token_in',
  'trade_hops_token_out',
  'trade_hops_pool',
];

/** Indexes dropped for a bulk load and not built yet. */
export async function deferredIndexes(db: Db): Promise<string[]> {
  const { rows } = await db.pool.query<{ name: string }>('select name from deferred_indexes order by name');
  return rows.map((r) => r.name);
}

/**
 * Drops the bulk-load indexes that exist, recording how to build each again, in one transaction; returns their names.
 * The statements come from the catalog, so the migrations stay the one place that defines them.
 */
export async function dropIndexes(db: Db): Promise<string[]> {
  return inTransaction(db, async ({ client }) => {
    const { rows } = await client.query<{ name: string; table_name: string; constraint_def: string | null; index_def: string }>(
      `select i.relname as name, t.relname as table_name, pg_get_constraintdef(c.oid) as constraint_def, pg_get_indexdef(i.oid) as index_def
         from pg_class i
         join pg_index x on x.indexrelid = i.oid
         join pg_class t on t.oid = x.indrelid
         left join pg_constraint c on c.conindid = i.oid and c.contype = 'p'
        where i.relname = any($1) and i.relnamespace = 'public'::regnamespace
        order by i.relname`,
      [BULK_LOAD_INDEXES],
    );
    for (const r of rows) {
      // A primary key is a constraint: dropped and added back as one, so the table's key is the same afterwards.
      const [drop, build] =
        r.constraint_def === null
          ? // On a partitioned table the catalog's definition says ON ONLY (the parent alone); built again it must
            // reach every partition.
            [`drop index ${ident(r.name)}`, r.index_def.replace(' ON ONLY ', ' ON ')]
          : [`alter table ${ident(r.table_name)} drop constraint ${ident(r.name)}`, `alter table ${ident(r.table_name)} add constraint ${ident(r.name)} ${r.constraint_def}`];
      await client.query('insert into deferred_indexes (name, table_name, definition) values ($1, $2, $3)', [r.name, r.table_name, build]);
      await client.query(drop);
    }
    return rows.map((r) => r.name);
  });
}

/**
 * Builds every deferred index, each in its own transaction with the deletion of its record, two at a time (a
 * build sorts on one core; PostgreSQL may add parallel workers to large ones).
 */
export async function buildIndexes(db: Db): Promise<string[]> {
  const { rows } = await db.pool.query<{ name: string; definition: string }>('select name, definition from deferred_indexes order by name');
  const queue = [...rows];
  const built: string[] = [];
  const builder = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const { name, definition } = next;
      await inTransaction(db, async ({ client }) => {
        await client.query(definition);
        await client.query('delete from deferred_indexes where name = $1', [name]);
      });
      built.push(name);
    }
  };
  await Promise.all([builder(), builder()]);
  return built;
}
