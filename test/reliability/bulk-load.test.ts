// Crash consistency of bulk-load mode: the real `dexlake index` over the realnet's first 500 blocks (its contracts'
// own wasm and the hosted models) with the history indexes dropped until 150 blocks from the end, SIGKILLed while it
// drops them, at seeded moments while it writes without them, and while it builds them back; restarted each time.
// After every kill `deferred_indexes` names exactly the indexes missing from the catalog, and at the end every table
// and every index equals a clean run's. 500 blocks, not more: each restart regenerates the chain from its seed up to
// the checkpoint (~80 blocks/s).
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../db/connect.ts';
import { migrateToLatest } from '../../db/migrate.ts';
import { ensurePartitions } from '../../indexer/partitions.ts';
import { Rng } from '../../devnet/rng.ts';
import { BULK_LOAD_INDEXES } from '../../indexer/bulk-load.ts';
import { DEFAULT_LIMITS } from '../../indexer/pipeline.ts';
import { runDexlake, type Running } from '../harness/cli.ts';
import { createTestDatabase, tableChecksums } from '../harness/db.ts';

const BLOCKS = 500;
const DISTANCE = 150;
/** Kills while it writes without the indexes: an even number, half at a seeded height, half mid-batch. */
const KILLS = 4;
/** The most blocks the indexer writes in one batch: a run from a checkpoint commits at most every BATCH blocks. */
const BATCH = DEFAULT_LIMITS.maxBlocks;
const SEED = 'bulk-load-crash';
const index = (distance: number) => [
  'index', '--source', 'realnet', '--devnet-speed', '0', '--to', String(BLOCKS), '--bulk-load-distance', String(distance),
  '--relay-port', 'off', '--devnet-rpc-port', 'off', '--log-level', 'warn',
];

async function checksumsOf(url: string): Promise<Record<string, string>> {
  const db = connect(url, { max: 1 });
  try {
    return await tableChecksums(db);
  } finally {
    await db.close();
  }
}

/** Every index with its definition and every constraint with its own. */
async function schemaIndexes(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ line: string }>(
    `select indexname || ': ' || indexdef as line from pg_indexes where schemaname = 'public'
     union all select conname || ': ' || pg_get_constraintdef(oid) from pg_constraint where connamespace = 'public'::regnamespace
     order by 1`,
  );
  return rows.map((r) => r.line);
}

/** The bulk-load indexes the catalog lacks, and those deferred_indexes names: after any crash, the same. */
async function missingAndDeferred(client: pg.Client): Promise<{ missing: string[]; deferred: string[] }> {
  const present = (await client.query<{ relname: string }>(`select relname from pg_class where relname = any($1)`, [BULK_LOAD_INDEXES])).rows.map((r) => r.relname);
  const deferred = (await client.query<{ name: string }>('select name from deferred_indexes order by name')).rows.map((r) => r.name);
  return { missing: BULK_LOAD_INDEXES.filter((n) => !present.includes(n)).sort(), deferred };
}

async function checkpoint(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ height: number }>(`select height::int from checkpoints where name = 'indexer'`);
  return rows[0]?.height ?? 0;
}

/** Sessions of the indexer (any but the watcher's and the test's lock holder's) waiting on a lock for `pattern`. */
async function waitingOn(client: pg.Client, pattern: string): Promise<boolean> {
  const { rows } = await client.query<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike $1`,
    [pattern],
  );
  return rows[0]!.n > 0;
}

/** The indexer's sessions, all but the test's own (a killed indexer's backends finish their statement, then see it gone). */
async function othersGone(client: pg.Client, ours: readonly number[]): Promise<void> {
  for (;;) {
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and pid <> all($1::int[])`,
      [ours],
    );
    if (rows[0]!.n === 0) return;
    await sleep(20);
  }
}

async function finish(running: Running): Promise<void> {
  const { code } = await running.exited;
  if (code !== 0) throw new Error(`dexlake index exited with ${code}:\n${running.output()}`);
}

async function kill(running: Running): Promise<void> {
  if (running.child.exitCode !== null) throw new Error(`the indexer exited before its kill:\n${running.output()}`);
  running.child.kill('SIGKILL');
  await running.exited;
}

describe('crash consistency of bulk-load mode', () => {
  let clean: Record<string, string>;
  let cleanIndexes: string[];

  beforeAll(async () => {
    const { url } = await createTestDatabase();
    await finish(runDexlake(index(0), { DATABASE_URL: url }));
    clean = await checksumsOf(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    cleanIndexes = await schemaIndexes(client);
    await client.end();
  }, 300_000);

  it(`SIGKILLed while dropping, ${KILLS} times while writing without the indexes, and while building them: the clean run's tables and indexes`, { timeout: 900_000 }, async () => {
    const { url } = await createTestDatabase();
    // Migrated here (the indexer would at its start) so that the test can hold a table's lock before it runs.
    const migrator = connect(url, { max: 1 });
    await migrateToLatest(migrator.kysely);
    // The partitions too, so that the first batch's only wait on the held lock below is the drop's.
    await ensurePartitions(migrator.pool, [{ from: 1, to: BLOCKS }]);
    await migrator.close();
    const watcher = new pg.Client({ connectionString: url });
    const holder = new pg.Client({ connectionString: url });
    await watcher.connect();
    await holder.connect();
    const holderPid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const log: string[] = [];
    const invariant = async (moment: string) => {
      await othersGone(watcher, [holderPid]);
      const state = await missingAndDeferred(watcher);
      log.push(`${moment}: checkpoint ${await checkpoint(watcher)}, missing ${state.missing.length} (${state.missing.join(' ') || 'none'})`);
      expect(state.deferred, moment).toEqual(state.missing);
      return state;
    };
    try {
      // 1. While it drops them: a reader of `transfers` holds its lock, so the drop's transaction waits there.
      await holder.query('begin');
      await holder.query('select 1 from transfers limit 1');
      let running = runDexlake(index(DISTANCE), { DATABASE_URL: url });
      while (!(await waitingOn(watcher, '%drop%'))) {
        if (running.child.exitCode !== null) throw new Error(`exited:\n${running.output()}`);
        await sleep(5);
      }
      await kill(running);
      await holder.query('rollback');
      expect((await invariant('killed mid-drop')).missing).toEqual([]); // the drop's transaction rolled back whole

      // 2. Seeded moments while it writes without them (the drop follows the first batch a run commits far from the
      // end). Every other kill comes 0-100 ms after the checkpoint passes a seeded height, one in each batch from the
      // first after the mid-drop kill to the last far from the end, once the drop has committed; the others at the
      // first moment the restarted run has a write transaction open (a transaction id assigned): mid-batch.
      const rng = new Rng(SEED);
      const passes = KILLS / 2;
      const span = BLOCKS - DISTANCE - BATCH - BATCH / 2;
      const targets = Array.from({ length: passes }, (_, i) => BATCH + Math.floor(((i + (1 + rng.int(999)) / 1000) * span) / passes));
      const writing = async () =>
        (
          await watcher.query<{ n: number }>(
            `select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_xid is not null`,
          )
        ).rows[0]!.n > 0;
      const dropped = async () => (await missingAndDeferred(watcher)).deferred.length === BULK_LOAD_INDEXES.length;
      for (let i = 0; i < KILLS; i++) {
        running = runDexlake(index(DISTANCE), { DATABASE_URL: url });
        const alive = () => running.child.exitCode === null;
        if (i % 2) {
          while (alive() && !(await writing())) await sleep(1);
        } else {
          while (alive() && ((await checkpoint(watcher)) < targets[i / 2]! || !(await dropped()))) await sleep(5);
          await sleep(rng.int(100));
        }
        await kill(running);
        const { missing } = await invariant(`killed in bulk-load mode (${i % 2 ? 'mid-batch' : `target ${targets[i / 2]}`})`);
        expect(missing).toEqual([...BULK_LOAD_INDEXES].sort());
      }

      // 3. While it builds them: a session holding `transfers` in row exclusive mode (as a writer would) makes the
      // transfers indexes wait, after the others are built.
      await holder.query('begin');
      await holder.query('lock table transfers in row exclusive mode');
      running = runDexlake(index(DISTANCE), { DATABASE_URL: url });
      while (!((await waitingOn(watcher, '%transfers%')) && (await missingAndDeferred(watcher)).deferred.length < BULK_LOAD_INDEXES.length)) {
        if (running.child.exitCode !== null) throw new Error(`exited:\n${running.output()}`);
        await sleep(5);
      }
      await kill(running);
      await holder.query('rollback');
      const midBuild = await invariant('killed mid-build');
      expect(midBuild.missing.length).toBeGreaterThan(0);
      expect(midBuild.missing.length).toBeLessThan(BULK_LOAD_INDEXES.length);

      // 4. The restart builds the rest and finishes.
      await finish(runDexlake(index(DISTANCE), { DATABASE_URL: url }));
      await invariant('finished');
      expect(await schemaIndexes(watcher)).toEqual(cleanIndexes);
    } finally {
      console.log(log.join('\n'));
      await watcher.end();
      await holder.end();
    }
    const after = await checksumsOf(url);
    const lines = Object.keys(clean).map((t) => `  ${t.padEnd(24)} ${clean[t]!.padEnd(44)} ${after[t] ?? '(missing)'}${clean[t] === after[t] ? '' : '  DIFFERS'}`);
    console.log(`checksums after the SIGKILLs in bulk-load mode\n  ${'table'.padEnd(24)} ${'clean run: rows:md5'.padEnd(44)} this run\n${lines.join('\n')}`);
    expect(after).toEqual(clean);
  });
});
