// A fresh database per test file, on the server the global setup found, dropped when the file ends. Databases that
// many files start from (the migrated schema, a seed's chain indexed to a height) are made once per server as
// templates and copied (`create database ... template`), which takes a fraction of making them again.
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

/** Creates an empty database for this file (a copy of `template` when given); call at the top level of a test file
 * or in beforeAll. */
export async function createTestDatabase(template?: string): Promise<TestDatabase> {
  const name = `dexlake_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${quoteIdent(name)}${template === undefined ? '' : ` template ${quoteIdent(template)}`}`));
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    await admin((c) => c.query(`drop database if exists ${quoteIdent(name)} with (force)`));
  };
  afterAll(drop);
  return { url: withDatabase(inject('postgresUrl'), name), name, drop };
}

/**
 * The template database `key` names on this server, made by `make` the first time any test file asks for it: under
 * an advisory lock, so that files running at once make it once; under a temporary name until it is whole, so that a
 * file that failed halfway leaves nothing to copy. Templates stay on the server (a DATABASE_URL server keeps them
 * between runs: `key` must name everything that makes one).
 */
export async function templateDatabase(key: string, make: (url: string) => Promise<void>, from?: string): Promise<string> {
  const name = `dexlake_tpl_${createHash('sha256').update(key).digest('hex').slice(0, 20)}`;
  const exists = (c: pg.Client) => c.query(`select 1 from pg_database where datname = $1 and datistemplate`, [name]).then((r) => r.rowCount === 1);
  return admin(async (c) => {
    if (await exists(c)) return name;
    await c.query(`select pg_advisory_lock(hashtext($1))`, [name]);
    try {
      if (await exists(c)) return name;
      const building = `${name}_${randomBytes(4).toString('hex')}`;
      await c.query(`create database ${quoteIdent(building)}${from === undefined ? '' : ` template ${quoteIdent(from)}`}`);
      try {
        await make(withDatabase(inject('postgresUrl'), building));
      } catch (e) {
        await c.query(`drop database if exists ${quoteIdent(building)} with (force)`);
        throw e;
      }
      await c.query(`alter database ${quoteIdent(building)} rename to ${quoteIdent(name)}`);
      await c.query(`alter database ${quoteIdent(name)} is_template true`);
      return name;
    } finally {
      await c.query(`select pg_advisory_unlock(hashtext($1))`, [name]);
    }
  });
}

/** The repository's root folder. */
export const ROOT = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** sha256 (hex) of files of the repository, each by its path below ROOT and its bytes: a key for what they make. */
export function hashFiles(files: readonly string[]): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${path.relative(ROOT, file)}\0`).update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

/** The .ts files below `dirs` (folders of the repository), in path order. */
export const tsFilesIn = (...dirs: string[]): string[] =>
  dirs.flatMap((dir) => (readdirSync(path.join(ROOT, dir), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).sort().map((f) => path.join(ROOT, dir, f)));

let migrations: string | undefined;
/** The key of the migrated schema: the migrations' files. */
const migrationsKey = (): string => (migrations ??= hashFiles(tsFilesIn('migrations')));

/** The migrated schema's template. */
const migratedTemplate = () =>
  templateDatabase(`migrated ${migrationsKey()}`, async (url) => {
    const db = connect(url);
    try {
      await migrateToLatest(db.kysely);
    } finally {
      await db.close();
    }
  });

/**
 * A database copied from a template (default: the migrated schema; `template.make` fills one from a migrated
 * database, once per server and `template.key`) and a connection to it, both closed when the file ends.
 */
export async function createMigratedDb(template?: { key: string; make: (db: Db) => Promise<void> }): Promise<Db & { url: string; database: TestDatabase }> {
  const name =
    template === undefined
      ? await migratedTemplate()
      : await templateDatabase(
          `${migrationsKey()} ${template.key}`,
          async (url) => {
            const db = connect(url);
            try {
              await template.make(db);
            } finally {
              await db.close();
            }
          },
          await migratedTemplate(),
        );
  const database = await createTestDatabase(name);
  const db = connect(database.url);
  afterAll(() => db.close());
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

/** Resolves once `listener` has every notification committed before the call: PostgreSQL delivers them in commit
 * order, so one the listener sends itself now arrives after them. */
export async function allNotified(listener: pg.Client): Promise<void> {
  const channel = 'dexlake_test_sentinel';
  const arrived = new Promise<void>((resolve) => {
    const on = (n: pg.Notification) => {
      if (n.channel !== channel) return;
      listener.off('notification', on);
      resolve();
    };
    listener.on('notification', on);
  });
  await listener.query(`listen ${channel}`);
  await listener.query(`notify ${channel}`);
  await arrived;
}
