// The partitions of the history tables (migrations/0011): partition k of every table holds the heights
// [k·width, (k+1)·width) and is named `<table>_p<k·width>`. Writers make the partitions their rows need, and the one
// after the highest, before they write: the next blocks then find theirs ready, and no row ever lacks a partition.
import pg from 'pg';
import { quoteIdent as ident } from '../db/connect.ts';

/** Partitioned by block height; `events` last, so that its partition existing means every table's does. */
export const PARTITIONED = ['transfers', 'balance_history', 'trade_hops', 'trades', 'pool_history', 'events'] as const;

export interface Partition {
  from: number;
  /** Exclusive. */
  to: number;
}

/** Partition names say where they start: `transfers_p184000000` holds transfers from height 184,000,000. */
export function partitionName(table: (typeof PARTITIONED)[number], from: number): string {
  return `${table}_p${from}`;
}

/** The partitions' width, and the lower bounds of the partitions `events` has. */
async function layout(client: pg.ClientBase | pg.Pool): Promise<{ width: number; made: Set<number> }> {
  const { rows } = await client.query<{ width: string; starts: string[] }>(
    `select (select width_blocks from history_partitioning)::text as width,
            array(select substr(c.relname, length('events_p') + 1) from pg_inherits i join pg_class c on c.oid = i.inhrelid
                   where i.inhparent = 'public.events'::regclass) as starts`,
  );
  return { width: Number(rows[0]!.width), made: new Set(rows[0]!.starts.map(Number)) };
}

/**
 * How long making the partition ahead may wait for each table's lock. A CREATE waits behind a long reader, and
 * every reader after it queues behind the CREATE: the one ahead gives up instead and is tried again next batch
 * (the rows that need a partition wait as long as it takes, which is rare once the one ahead exists).
 */
const AHEAD_LOCK_TIMEOUT_MS = 100;

/**
 * Makes the partitions that rows at the given heights need, plus the one after the highest, in every partitioned
 * table; returns the lower bounds of those it made. Spans are inclusive height ranges. On a pool, each CREATE is a
 * statement of its own: it locks one table for a moment (a reader of two tables never waits on a writer holding
 * the other), and after a crash in the middle the next call makes what is missing, `events` last. In a transaction
 * (pass its client, never the pool while it is open) the partitions come and go with it.
 */
export async function ensurePartitions(client: pg.ClientBase | pg.Pool, spans: Iterable<{ from: number; to: number }>): Promise<number[]> {
  const { width, made } = await layout(client);
  const needed = new Set<number>();
  let highest = -1;
  for (const { from, to } of spans) {
    for (let k = Math.floor(from / width); k <= Math.floor(to / width); k++) needed.add(k * width);
    highest = Math.max(highest, Math.floor(to / width));
  }
  const created: number[] = [];
  for (const start of [...needed].filter((s) => !made.has(s)).sort((a, b) => a - b)) {
    await createPartition(client, start, width);
    created.push(start);
  }
  const ahead = (highest + 1) * width;
  if (highest >= 0 && !made.has(ahead) && (await createAhead(client, ahead, width))) created.push(ahead);
  return created;
}

async function createPartition(client: pg.ClientBase | pg.Pool, start: number, width: number): Promise<void> {
  for (const table of PARTITIONED) {
    const create = `create table if not exists ${ident(partitionName(table, start))} partition of ${ident(table)} for values from (${start}) to (${start + width})`;
    await client.query(create);
  }
}

/** The partition ahead: false when a table's lock was not had within AHEAD_LOCK_TIMEOUT_MS (on a pool only). */
async function createAhead(client: pg.ClientBase | pg.Pool, start: number, width: number): Promise<boolean> {
  if (!(client instanceof pg.Pool)) {
    await createPartition(client, start, width);
    return true;
  }
  const session = await client.connect();
  try {
    await session.query("select set_config('lock_timeout', $1, false)", [`${AHEAD_LOCK_TIMEOUT_MS}ms`]);
    await createPartition(session, start, width);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return false; // lock_not_available
    throw error;
  } finally {
    // Not back to the pool with the timeout set.
    session.release(true);
  }
}

/** The partitions of the history tables, lowest first (the same bounds in every table). */
export async function partitions(client: pg.ClientBase | pg.Pool): Promise<Partition[]> {
  const { width, made } = await layout(client);
  return [...made].sort((a, b) => a - b).map((from) => ({ from, to: from + width }));
}
