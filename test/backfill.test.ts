// Parallel backfill (indexer/backfill.ts): a height range split into 1, 2 and 3 ranges, each ingested on its own,
// then merged, leaves every table as one sequential run does, over the mainnet fixture blocks (sparse, with every
// DEX's events) and a realnet range (dense, AmmDclA's folded pool states); also when a range worker stops or fails
// mid-range and runs again, and when the merge stops mid-way.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll } from 'vitest';
import { runDexlake } from './harness/cli.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { ingestRange, mergeBackfill, planBackfill, readRanges, splitRange, type HeightRange } from '../indexer/backfill.ts';
import { ingest } from '../indexer/pipeline.ts';
import { filesSource } from '../indexer/sources/files.ts';
import type { BlockSource } from '../indexer/sources/source.ts';
import type { Db } from '../db/connect.ts';
import { createMigratedDb, tableChecksums } from './harness/db.ts';
import { FIXTURES_DIR } from './harness/fixtures.ts';
import { realnet } from './harness/realnet.ts';

const MAINNET = path.join(FIXTURES_DIR, 'mainnet');
const FIRST = 34834052;
const LAST = 151768255;
const never = new AbortController().signal;

/** Every range of the split at once, as separate workers would, then the merge. */
async function backfill(db: Db, source: () => BlockSource, ranges: HeightRange[], maxBlocks = 100): Promise<void> {
  await planBackfill(db, ranges);
  await Promise.all(ranges.map((range) => ingestRange({ db, source: source(), range, signal: never, maxBlocks, workers: 1 })));
  const merged = await mergeBackfill({ db, chunkBlocks: 7 });
  expect(merged.merged).toBe(true);
}

describe('splitRange', () => {
  it('cuts [from, to] into consecutive ranges as equal as heights allow', () => {
    expect(splitRange(1, 10, 3)).toEqual([{ from: 1, to: 4 }, { from: 5, to: 7 }, { from: 8, to: 10 }]);
    expect(splitRange(5, 5, 1)).toEqual([{ from: 5, to: 5 }]);
    expect(() => splitRange(1, 2, 3)).toThrow(/at most one part a height/);
  });
});

describe('backfill of the mainnet fixture blocks in parallel ranges', () => {
  let clean: Record<string, string>;
  beforeAll(async () => {
    const db = await createMigratedDb();
    await ingest({ db, source: filesSource(MAINNET), signal: never, workers: 1 });
    clean = await tableChecksums(db);
  });

  for (const n of [1, 2, 3]) {
    it(`${n} range${n > 1 ? 's' : ''}, merged: every table as one sequential run`, async () => {
      const db = await createMigratedDb();
      await backfill(db, () => filesSource(MAINNET), splitRange(FIRST, LAST, n), 4);
      expect(await tableChecksums(db)).toEqual(clean);
    });
  }

  it('a range worker stopped mid-range, another failing mid-batch, and the merge stopped: each run again, the same tables', async () => {
    const db = await createMigratedDb();
    const ranges = splitRange(FIRST, LAST, 3);
    await planBackfill(db, ranges);
    // Range 2 stops after its first committed batch of 2 blocks.
    const stop = new AbortController();
    await ingestRange({ db, source: filesSource(MAINNET), range: ranges[1]!, signal: stop.signal, maxBlocks: 2, workers: 1, onBatch: () => stop.abort() });
    const stopped = (await readRanges(db))[1]!;
    expect(stopped.done).toBe(false);
    expect(stopped.height).not.toBeNull();
    // Range 3 fails inside a batch's transaction (the database refuses one of its blocks): nothing of it is kept.
    await db.pool.query(`
      create function fail_range() returns trigger language plpgsql as $$
      begin if new.height >= ${ranges[2]!.from} then raise exception 'injected failure'; end if; return new; end $$;
      create trigger fail_range before insert on blocks for each row execute function fail_range();`);
    await expect(ingestRange({ db, source: filesSource(MAINNET), range: ranges[2]!, signal: never, workers: 1 })).rejects.toThrow(/injected failure/);
    await db.pool.query(`drop trigger fail_range on blocks; drop function fail_range()`);
    expect((await readRanges(db))[2]).toMatchObject({ height: null, done: false });
    // Nothing merges while a range is not done.
    const waiting = await mergeBackfill({ db });
    expect(waiting.merged ? [] : waiting.waiting.map((r) => r.from)).toEqual(ranges.map((r) => r.from));

    await Promise.all(ranges.map((range) => ingestRange({ db, source: filesSource(MAINNET), range, signal: never, maxBlocks: 2, workers: 1 })));
    // The merge stops after its first chunk, then goes on from it.
    const pause = new AbortController();
    expect((await mergeBackfill({ db, chunkBlocks: 5, signal: pause.signal, onChunk: () => pause.abort() })).merged).toBe(false);
    expect(await mergeBackfill({ db, chunkBlocks: 5 })).toMatchObject({ merged: true, height: LAST });
    expect(await tableChecksums(db)).toEqual(clean);
  });

  it('refuses a split that starts at or below the checkpoint, and a second split while one is under way', async () => {
    const db = await createMigratedDb();
    await ingest({ db, source: filesSource(MAINNET), to: 42598892, signal: never, workers: 1 });
    await expect(planBackfill(db, splitRange(42598892, LAST, 2))).rejects.toThrow(/at or below the indexer's checkpoint 42598892/);
    await planBackfill(db, splitRange(42598893, LAST, 2));
    await expect(planBackfill(db, splitRange(42598893, LAST, 3))).rejects.toThrow(/another split is under way/);
    // A backfill after a sequential start: the first range's first block counts its gap from the checkpoint.
    await Promise.all(splitRange(42598893, LAST, 2).map((range) => ingestRange({ db, source: filesSource(MAINNET), range, signal: never, workers: 1 })));
    expect((await mergeBackfill({ db })).merged).toBe(true);
    expect(await tableChecksums(db)).toEqual(clean);
  });
});

describe('backfill of a realnet range in parallel ranges', () => {
  const BLOCKS = 160;
  let clean: Record<string, string>;
  beforeAll(async () => {
    const db = await createMigratedDb();
    await ingest({ db, source: realnet('batches'), to: BLOCKS, signal: never, workers: 1 });
    clean = await tableChecksums(db);
    const { rows } = await db.pool.query<{ n: number }>(`select count(*)::int as n from events where kind = 'pool_state' and payload->>'dex' = 'AmmDclA'`);
    // The folded DEX's states are part of what the merge must make.
    expect(rows[0]!.n).toBeGreaterThan(0);
  }, 120_000);

  for (const n of [1, 2, 3]) {
    it(`${n} range${n > 1 ? 's' : ''}, merged: every table as one sequential run`, async () => {
      const db = await createMigratedDb();
      await backfill(db, () => realnet('batches'), splitRange(1, BLOCKS, n), 25);
      expect(await tableChecksums(db)).toEqual(clean);
    });
  }
});

describe('dexlake index --workers and --range, as processes', () => {
  const BLOCKS = 250;
  let dir: string;
  let clean: Record<string, string>;
  beforeAll(async () => {
    // The realnet's blocks as files, so that each process reads the same ones (sparse: no continuity check).
    dir = mkdtempSync(path.join(os.tmpdir(), 'dexlake-backfill-'));
    for await (const raw of realnet('batches').raw({ to: BLOCKS }, never)) {
      if (raw.kind === 'message') writeFileSync(path.join(dir, `${raw.height}.json`), raw.body);
    }
    const db = await createMigratedDb();
    await ingest({ db, source: filesSource(dir), signal: never, workers: 1 });
    clean = await tableChecksums(db);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** `dexlake index` with only the settings given here. */
  const run = (url: string, args: string[]) =>
    runDexlake(['index', '--source', `files:${dir}`, ...args], { DATABASE_URL: url, LOG_LEVEL: 'debug', DEXLAKE_SOURCE: undefined, DEXLAKE_FROM: undefined, DEXLAKE_TO: undefined, DEXLAKE_WORKERS: undefined, DEXLAKE_RANGE: undefined });

  it('a range worker killed (SIGKILL) inside a batch, then --workers 2 over the same split: the tables of one sequential run', async () => {
    const db = await createMigratedDb();
    const range2 = splitRange(1, BLOCKS, 2)[1]!;
    // The range's second batch (100 blocks a batch) waits inside its transaction on a lock this test holds, so the
    // kill lands after one committed batch and inside the next, whatever the machine's speed.
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    await holder.query('select pg_advisory_lock(4141)');
    await db.pool.query(`
      create function hold_batch() returns trigger language plpgsql as $$
      begin if new.height > ${range2.from + 99} then perform pg_advisory_xact_lock(4141); end if; return new; end $$;
      create trigger hold_batch before insert on blocks for each row execute function hold_batch();`);
    const worker = run(db.url, ['--from', '1', '--to', String(BLOCKS), '--range', '2/2']);
    await new Promise<void>((resolve, reject) => {
      const look = () => {
        if (worker.output().includes('backfill: batch committed')) resolve();
      };
      worker.child.stdout!.on('data', look);
      void worker.exited.then(() => reject(new Error(`the worker exited before a batch:\n${worker.output()}`)));
    });
    worker.child.kill('SIGKILL');
    expect((await worker.exited).signal).toBe('SIGKILL');
    await db.pool.query(`drop trigger hold_batch on blocks; drop function hold_batch()`);
    // The killed worker's session still waits on the lock; ended, it rolls its batch back.
    await db.pool.query(`select pg_terminate_backend(pid) from pg_locks where locktype = 'advisory' and objid = 4141 and not granted`);
    await holder.end();
    expect((await readRanges(db))[1]).toMatchObject({ height: range2.from + 99, done: false });

    const all = run(db.url, ['--from', '1', '--to', String(BLOCKS), '--workers', '2']);
    const { code } = await all.exited;
    expect(code, all.output()).toBe(0);
    expect(all.output()).toContain('backfill: merged into the tables');
    expect(await tableChecksums(db)).toEqual(clean);
    // Following the chain afterwards starts after the merged range.
    expect(await readRanges(db)).toEqual([]);
  }, 120_000);

  it('refuses --workers without --to, and --workers with --range (exit 2)', async () => {
    const db = await createMigratedDb();
    for (const args of [['--from', '1', '--workers', '2'], ['--from', '1', '--to', '9', '--workers', '2', '--range', '1/2'], ['--from', '1', '--to', '9', '--range', '3/2']]) {
      const { code } = await run(db.url, args).exited;
      expect(code, args.join(' ')).toBe(2);
    }
  });
});
