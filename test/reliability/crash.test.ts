// Crash consistency: the real `dexlake index` over the realnet's first 500 blocks (its contracts' own wasm and the
// hosted models), SIGKILLed at seeded random moments while it writes, then with its PostgreSQL killed and restarted
// under it, and `replay` of a range in the middle run twice. Each time, every table must end exactly as one clean,
// uninterrupted run leaves it (a checksum per table). 500 blocks, not more: each restart regenerates the chain from
// its seed up to the checkpoint (~80 blocks/s); the setup, the Ref pools and the models' first trades come early.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../db/connect.ts';
import { startEmbeddedPostgres } from '../../db/embedded.ts';
import { Rng } from '../../devnet/rng.ts';
import { DEFAULT_LIMITS } from '../../indexer/pipeline.ts';
import { runDexlake, type Running } from '../harness/cli.ts';
import { createTestDatabase, tableChecksums } from '../harness/db.ts';

const BLOCKS = 500;
/** An even number: half of them at a seeded height, half mid-batch. */
const KILLS = 8;
/** The most blocks the indexer writes in one batch: a run from a checkpoint commits at most every BATCH blocks. */
const BATCH = DEFAULT_LIMITS.maxBlocks;
const SEED = 'crash-consistency';
const INDEX = ['index', '--source', 'realnet', '--devnet-speed', '0', '--to', String(BLOCKS), '--relay-port', 'off', '--devnet-rpc-port', 'off', '--log-level', 'warn'];

async function checksumsOf(url: string): Promise<Record<string, string>> {
  const db = connect(url, { max: 1 });
  try {
    return await tableChecksums(db);
  } finally {
    await db.close();
  }
}

/** The indexer's checkpoint height (0 before the first batch, or while the database does not answer). */
async function checkpoint(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ height: number }>(`select height::int from checkpoints where name = 'indexer'`).catch(() => ({ rows: [] }));
  return rows[0]?.height ?? 0;
}

async function finish(running: Running): Promise<void> {
  const { code } = await running.exited;
  if (code !== 0) throw new Error(`dexlake index exited with ${code}:\n${running.output()}`);
}

function printChecksums(title: string, clean: Record<string, string>, other: Record<string, string>): void {
  const lines = Object.keys(clean).map((table) => `  ${table.padEnd(24)} ${clean[table]!.padEnd(44)} ${other[table] ?? '(missing)'}${clean[table] === other[table] ? '' : '  DIFFERS'}`);
  console.log(`${title}\n  ${'table'.padEnd(24)} ${'clean run: rows:md5'.padEnd(44)} this run\n${lines.join('\n')}`);
}

/** Heights 1..BLOCKS each exactly once in `blocks`. */
async function contiguousHeights(url: string): Promise<{ n: number; min: number; max: number; distinct: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(`select count(*)::int as n, min(height)::int as min, max(height)::int as max, count(distinct height)::int as distinct from blocks`);
    return rows[0];
  } finally {
    await client.end();
  }
}

describe('crash consistency of the indexer', () => {
  let clean: Record<string, string>;
  let cleanUrl: string;

  beforeAll(async () => {
    cleanUrl = (await createTestDatabase()).url;
    await finish(runDexlake(INDEX, { DATABASE_URL: cleanUrl }));
    clean = await checksumsOf(cleanUrl);
    expect(await contiguousHeights(cleanUrl)).toEqual({ n: BLOCKS, min: 1, max: BLOCKS, distinct: BLOCKS });
  }, 300_000);

  it(`SIGKILLed at ${KILLS} seeded random moments while writing, then resumed: every table equals the clean run`, { timeout: 600_000 }, async () => {
    const { url } = await createTestDatabase();
    const watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
    // Each restart writes in batches of BATCH blocks from its checkpoint. Every other kill comes 0-100 ms after the
    // checkpoint passes a seeded height (one in each batch but the last, so each such run resumed and committed),
    // between batches or while the next is read; the others at the first moment the restarted run has a write
    // transaction open (a transaction id assigned: it has written in it): mid-batch, losing that batch.
    const rng = new Rng(SEED);
    const passes = KILLS / 2;
    const targets = Array.from({ length: passes }, (_, i) => Math.floor(((i + (1 + rng.int(999)) / 1000) * (BLOCKS - BATCH)) / passes));
    const writing = async () =>
      (
        await watcher.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_xid is not null`,
        )
      ).rows[0]!.n > 0;
    const kills: { at: number; midBatch: boolean }[] = [];
    try {
      for (let i = 0; i < KILLS; i++) {
        const running = runDexlake(INDEX, { DATABASE_URL: url });
        const alive = () => running.child.exitCode === null;
        if (i % 2) {
          while (alive() && !(await writing())) await sleep(1);
        } else {
          while (alive() && (await checkpoint(watcher)) < targets[i / 2]!) await sleep(5);
          await sleep(rng.int(100));
        }
        if (!alive()) throw new Error(`the indexer exited before kill ${i + 1}:\n${running.output()}`);
        const midBatch = await writing();
        running.child.kill('SIGKILL');
        await running.exited;
        kills.push({ at: await checkpoint(watcher), midBatch });
      }
      await finish(runDexlake(INDEX, { DATABASE_URL: url }));
    } finally {
      await watcher.end();
    }
    console.log(
      `${kills.length} SIGKILLs, checkpoint after each: ${kills.map((k) => k.at).join(', ')}; ` +
        `${kills.filter((k) => k.midBatch).length} of them mid-batch (a write transaction open)`,
    );
    expect(kills).toHaveLength(KILLS);
    expect(kills.every((k) => k.at < BLOCKS)).toBe(true); // each one cut the run short
    expect(kills.filter((k) => k.midBatch).length).toBeGreaterThanOrEqual(KILLS / 4); // half aim there; a commit may just beat one
    // Spread over the range, not all at one checkpoint: batches of BATCH blocks leave room for four checkpoints below
    // BLOCKS, and where they fall depends on the machine (the first run's first batch was 144 blocks in one CI run).
    expect(new Set(kills.map((k) => k.at)).size).toBeGreaterThanOrEqual(3);
    const after = await checksumsOf(url);
    printChecksums('checksums after the SIGKILLs', clean, after);
    expect(after).toEqual(clean);
  });

  it('its PostgreSQL SIGKILLed and restarted under it: the indexer waits, reconnects and continues without a gap', { timeout: 600_000 }, async () => {
    // Not a 0700 mkdtemp folder: as root the server runs as `postgres`, which could not enter it.
    const parent = path.join(tmpdir(), `dexlake-crash-${randomBytes(6).toString('hex')}`);
    const dir = path.join(parent, 'pg');
    let server = await startEmbeddedPostgres({ dir, port: 0, database: 'crash' });
    const port = server.port;
    try {
      const running = runDexlake(INDEX, { DATABASE_URL: server.url });
      const watcher = new pg.Client({ connectionString: server.url });
      await watcher.connect();
      watcher.on('error', () => {}); // it dies with the server
      while ((await checkpoint(watcher)) < BLOCKS / 4) {
        if (running.child.exitCode !== null) throw new Error(`indexer exited early:\n${running.output()}`);
        await sleep(10);
      }
      const killedAt = await checkpoint(watcher);
      // The whole process group (postmaster and backends), as a crash or an OOM kill would.
      process.kill(-server.pid, 'SIGKILL');
      await sleep(2_000);
      expect(running.child.exitCode, running.output()).toBeNull(); // still waiting, not dead
      server = await startEmbeddedPostgres({ dir, port, database: 'crash' });
      await finish(running);
      console.log(`PostgreSQL killed at checkpoint ${killedAt} and restarted 2 s later; the indexer finished at ${BLOCKS}`);
      expect(running.output()).toContain('database unavailable');
      expect(await contiguousHeights(server.url)).toEqual({ n: BLOCKS, min: 1, max: BLOCKS, distinct: BLOCKS });
      const after = await checksumsOf(server.url);
      printChecksums('checksums after the PostgreSQL restart', clean, after);
      expect(after).toEqual(clean);
    } finally {
      await server.stop();
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('replay of a random range in the middle, run twice: every table equals the clean run', { timeout: 300_000 }, async () => {
    const rng = new Rng(`${SEED}-replay`);
    const from = 100 + rng.int(200);
    const to = from + 25 + rng.int(100);
    for (const run of [1, 2]) {
      const replay = runDexlake(['replay', '--source', 'realnet', '--from', String(from), '--to', String(to), '--log-level', 'warn'], { DATABASE_URL: cleanUrl });
      const { code } = await replay.exited;
      expect(code, replay.output()).toBe(0);
      const after = await checksumsOf(cleanUrl);
      printChecksums(`checksums after replay ${from}-${to} (run ${run})`, clean, after);
      expect(after).toEqual(clean);
    }
  });
});
