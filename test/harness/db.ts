// A fresh database per test file, on the server the global setup found, dropped when the file ends.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { connect, quoteIdent, withDatabase, type Db } from '../../db/connect.ts';
import { migrateToLatest } from '../../db/migrate.ts';

export interface TestDatabase {
  url: string;
  name: string;
  /** Drops the database now (ending its sessions); afterAll does it too. */
  drop(): Promise<void>;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(inject('postgresUrl'), 'postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database for this file; call at the top level of a test file or in beforeAll. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `dexlake_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${quoteIdent(name)}`));
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    await admin((c) => c.query(`drop database if exists ${quoteIdent(name)} with (force)`));
  };
  afterAll(drop);
  return { url: withDatabase(inject('postgresUrl'), name), name, drop };
}

/** A migrated database and a connection to it, both closed when the file ends. */
export async function createMigratedDb(): Promise<Db & { url: string; database: TestDatabase }> {
  const database = await createTestDatabase();
  const db = connect(database.url);
  afterAll(() => db.close());
  await migrateToLatest(db.kysely);
  return { ...db, url: database.url, database };
}

/** Every table of the schema but the migrator's own and the partitions, each with the checksum of all its rows. */
export async function tableChecksums(db: Db): Promise<Record<string, string>> {
  const tables = await db.pool.query<{ table_name: string }>(
    // A partitioned table's rows are its partitions': the parent's sum covers them, whatever partitions exist.
    `select relname as table_name from pg_class where relnamespace = 'public'::regnamespace and relkind in ('r', 'p')
        and not relispartition and relname not like 'kysely_%' order by 1`,
  );
  const sums: Record<string, string> = {};
  for (const { table_name } of tables.rows) {
    const columns = table_name === 'checkpoints' ? 'x.name, x.height, x.hash' : 'x.*';
    const { rows } = await db.pool.query<{ n: string; sum: string | null }>(
      `select count(*)::text as n, md5(string_agg(row(${columns})::text, '|' order by row(${columns})::text)) as sum from ${quoteIdent(table_name)} x`,
    );
    sums[table_name] = `${rows[0]!.n}:${rows[0]!.sum ?? ''}`;
  }
  return sums;
}
