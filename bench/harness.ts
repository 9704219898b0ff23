// What the ingest benchmarks share: a PostgreSQL for the run (embedded unless DATABASE_URL) with fresh databases
// on it and the CPU of its process tree, the CPU of this process, and the real-fixture chain they all ingest.
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, ensureDatabase, quoteIdent, withDatabase, type Db } from '../db/connect.ts';
import { procStat, startEmbeddedPostgres } from '../db/embedded.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { readText } from '../indexer/sources/raw.ts';

const FIXTURES = fileURLToPath(new URL('../test/fixtures/blocks/mainnet/', import.meta.url));

export interface BenchPostgres {
  /** A scratch folder for the run (the embedded server's data lives in it), removed by `stop`. */
  work: string;
  /** A fresh, migrated database on the bench's server. */
  freshDb(): Promise<Db>;
  /** A copy of `db` (CREATE DATABASE ... TEMPLATE, which needs `db` closed meanwhile): `db` opened again, and the copy. */
  cloneDb(db: Db): Promise<[Db, Db]>;
  /** CPU seconds of the embedded PostgreSQL so far: the postmaster and its children, live and ended (Linux /proc;
   * undefined elsewhere, and behind DATABASE_URL). */
  cpuS(): number | undefined;
  stop(): Promise<void>;
}

export async function startBenchPostgres(name: string, settings: Record<string, string> = {}): Promise<BenchPostgres> {
  const work = path.join(tmpdir(), `dexlake-bench-${name}-${randomBytes(6).toString('hex')}`);
  let url = process.env.DATABASE_URL;
  let stopPg = async () => {};
  let postmaster: number | undefined;
  if (!url) {
    const pg = await startEmbeddedPostgres({ dir: path.join(work, 'pg'), port: 0, settings });
    url = pg.url;
    stopPg = pg.stop;
    postmaster = pg.pid;
  }
  const serverUrl = url;
  return {
    work,
    async freshDb() {
      const dbUrl = withDatabase(serverUrl, `dexlake_bench_${randomBytes(4).toString('hex')}`);
      await ensureDatabase(dbUrl);
      const db = connect(dbUrl);
      await migrateToLatest(db.kysely);
      return db;
    },
    async cloneDb(db) {
      const url = db.pool.options.connectionString!;
      const cloneUrl = withDatabase(serverUrl, `dexlake_bench_${randomBytes(4).toString('hex')}`);
      await db.close();
      const admin = connect(withDatabase(serverUrl, 'postgres'));
      const source = new URL(url).pathname.slice(1);
      try {
        // A closed connection's backend exits a moment after its socket closes, and a template must have none.
        for (let waited = 0; (await admin.pool.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1', [source])).rows[0]!.n > 0; waited += 50) {
          if (waited > 10_000) throw new Error(`database ${source} still has sessions 10 s after it was closed`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await admin.pool.query(`create database ${quoteIdent(new URL(cloneUrl).pathname.slice(1))} template ${quoteIdent(source)}`);
      } finally {
        await admin.close();
      }
      return [connect(url), connect(cloneUrl)];
    },
    cpuS() {
      const own = postmaster === undefined ? undefined : procStat(postmaster);
      if (own === undefined) return undefined;
      const cpuTicks = (f: number[]) => f[11]! + f[12]! + f[13]! + f[14]!;
      let ticks = cpuTicks(own);
      for (const p of readdirSync('/proc')) {
        const f = /^\d+$/.test(p) ? procStat(Number(p)) : undefined;
        if (f !== undefined && f[1] === postmaster) ticks += cpuTicks(f);
      }
      return ticks / 100; // USER_HZ, 100 on every Linux
    },
    async stop() {
      await stopPg();
      await rm(work, { recursive: true, force: true });
    },
  };
}

/** CPU seconds of this process, every thread included (decode workers that have ended too). */
export function ownCpuS(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/**
 * The mainnet fixture blocks re-labelled to consecutive heights from `first` and repeated to `blocks` blocks, one
 * combined `.json` file per height in `dir`: height H gets hash `bench-H` and prev_hash `bench-(H-1)`, in whichever
 * casing the file uses. Returns the bytes written.
 */
export async function writeFixtureChain(dir: string, first: number, blocks: number): Promise<number> {
  await mkdir(dir, { recursive: true });
  const originals = readdirSync(FIXTURES)
    .filter((f) => /\.json(\.gz)?$/.test(f))
    .sort()
    .map((f) => JSON.parse(readText(path.join(FIXTURES, f))) as { block: { header: Record<string, unknown> } });
  let bytes = 0;
  for (let i = 0; i < blocks; i++) {
    const message = originals[i % originals.length]!;
    const header = message.block.header;
    const height = first + i;
    header.height = height;
    header.hash = `bench-${height}`;
    header['prev_hash' in header ? 'prev_hash' : 'prevHash'] = `bench-${height - 1}`;
    const text = JSON.stringify(message);
    bytes += Buffer.byteLength(text);
    await writeFile(path.join(dir, `${height}.json`), text);
  }
  return bytes;
}
