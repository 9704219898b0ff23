// One pg pool and its Kysely wrapper per process. Every pool gets an error handler: an idle client that loses
// its server (a restart, a dropped database) must not crash the process.
import pg from 'pg';
import { Kysely, PostgresDialect } from './kysely.ts';
import type { Database } from './schema.ts';

const INT8_OID = 20;
const NUMERIC_ARRAY_OID = 1231;
const TEXT_ARRAY_OID = 1009;
// int8 (heights, counts) fits a JS number; numeric[] arrives as decimal strings like numeric does (pg's default
// parses it with parseFloat, which would round every reserve past 2^53).
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID
      ? Number
      : pg.types.getTypeParser(oid === NUMERIC_ARRAY_OID ? TEXT_ARRAY_OID : oid, format)) as typeof pg.types.getTypeParser,
};

export interface Db {
  kysely: Kysely<Database>;
  pool: pg.Pool;
  close(): Promise<void>;
  /** On a read-replica database (api/replicas.ts): reads from now on see at least what the primary has committed by
   * now (`height`: the notification's, for reporting). Absent on a plain connection, whose reads always do. */
  syncReads?(height?: number): void;
}

export interface ConnectOptions {
  max?: number;
  /** Fail a connection attempt after this long instead of waiting for the OS (a down server must answer fast). */
  connectTimeoutMs?: number;
  onError?: (err: Error) => void;
  applicationName?: string;
}

export function connect(url: string, options: ConnectOptions = {}): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    application_name: options.applicationName ?? 'dexlake',
    // A server that vanished without closing the socket (a cut network, a frozen host) is noticed by TCP keepalive
    // within about a minute instead of the OS default two hours; the pool then drops the connection.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    types,
  });
  pool.on('error', options.onError ?? (() => {}));
  // A client in use (checked out, between two statements of a transaction) that loses its server emits 'error'
  // where the pool no longer listens; unheard, that would crash the process. The next statement fails instead.
  pool.on('connect', (client) => client.on('error', () => {}));
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  let closed: Promise<void> | undefined;
  return { kysely, pool, close: () => (closed ??= kysely.destroy()) };
}

/** The URL of another database on the same server (used to create and drop databases). */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
}

export const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Creates the database named in `url` when it does not exist yet, via the server's `postgres` database. */
export async function ensureDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const admin = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await admin.query(`create database ${quoteIdent(name)}`);
  } finally {
    await admin.end();
  }
}

/** A transaction on one pooled client: Kysely for queries, and the raw client for COPY. */
export interface Tx {
  kysely: Kysely<Database>;
  client: pg.PoolClient;
}

/** Runs `fn` in a transaction: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const client = await db.pool.connect();
  let result: T;
  try {
    await client.query('begin');
    // Kysely over this one client: its "pool" hands out the same connection and never releases it.
    const single = { connect: async () => ({ query: client.query.bind(client), release() {} }), end: async () => {} };
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: single as unknown as pg.Pool }) });
    result = await fn({ kysely, client });
    await client.query('commit');
  } catch (err) {
    // A client whose rollback fails is broken: destroy it rather than return it to the pool.
    const broken = await client.query('rollback').then(() => false, () => true);
    client.release(broken);
    throw err;
  }
  client.release();
  return result;
}
