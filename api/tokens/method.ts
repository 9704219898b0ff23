// The shape every token-data method has: zod params (also the source of `schema` and of GET parsing), a run from
// validated params to a result over one database snapshot, and the caching rule the answer falls under.
import { z } from 'zod';
import type { Kysely } from 'kysely';
import { sql } from '../../db/kysely.ts';
import type { Db } from '../../db/connect.ts';
import type { Database } from '../../db/schema.ts';
import type { QueryOverrides } from './query.ts';

/** The latest indexed block: every result says which height it was computed at. */
export interface Head {
  height: number;
  timestamp_millis: number;
}

export interface Snapshot {
  db: Kysely<Database>;
  head: Head;
}

/**
 * How long an answer may be kept (spec, Transport rules): `live` 1 s; `historical` 86400 s (it cannot change any
 * more); `none` when a token asked about does not exist (it may appear at the next block).
 */
export type CacheRule = 'live' | 'historical' | 'none';

export interface Outcome<R> {
  result: R;
  cache: CacheRule;
  /** Rows returned, for the credit cost. */
  rows: number;
}

export interface Method<P = any, R = any> {
  name: string;
  /** HTTP path; undefined for socket-only methods. */
  path: string | undefined;
  summary: string;
  params: z.ZodType<P>;
  result: z.ZodType<R>;
  /** Special GET forms of some keys (`sort=-f`, `at=token:ms`). */
  overrides?: QueryOverrides;
  run(snapshot: Snapshot, params: P): Promise<Outcome<R>>;
}

export const defineMethod = <P, R>(method: Method<P, R>): Method<P, R> => method;

/** Runs `fn` over one consistent read-only snapshot, with the head read in it. */
export async function withSnapshot<T>(db: Db, fn: (snapshot: Snapshot) => Promise<T>): Promise<T> {
  return db.kysely
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (trx) => fn({ db: trx, head: await readHead(trx) }));
}

export async function readHead(db: Kysely<Database>): Promise<Head> {
  const { rows } = await sql<{ height: number; timestamp_ms: number }>`
    select height, timestamp_ms from blocks order by height desc limit 1`.execute(db);
  const latest = rows[0];
  return { height: latest?.height ?? 0, timestamp_millis: latest?.timestamp_ms ?? 0 };
}

/**
 * The height history starts at when it does not start at the chain's first indexed block: the height of a
 * `dexlake bootstrap` (the database's first block, whose events are the state read there, receipts `bootstrap:<dex>`
 * and `bootstrap:metadata`). Balances, holders, positions, activity and candles are known only from there on.
 * Null when the first block is an indexed one (history complete from where the chain was indexed).
 */
export async function historyFromHeight(db: Kysely<Database>): Promise<number | null> {
  const { rows } = await sql<{ height: string | number }>`
    select f.height from (select height from blocks order by height asc limit 1) f
    where exists (select 1 from events e where e.block_height = f.height and e.receipt_id >= 'bootstrap:' and e.receipt_id < 'bootstrap;')`.execute(db);
  return rows[0] === undefined ? null : Number(rows[0].height);
}

export const historyFromHeightField = z
  .int()
  .nullable()
  .describe('the block history starts at when the database was bootstrapped there (`dexlake bootstrap`): balances, holders, positions, activity and candles are known only from it on; null when history is complete');
