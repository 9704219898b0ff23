// The `dexlake` command as an operator uses it (issue 32, point 5): its commands reach the database of a running
// `dexlake start` (the embedded PostgreSQL it started in the data dir) instead of failing on its files, a range that
// ends before it starts is refused before anything starts, `index --help` names what --host binds, a clean stop
// logs no FATAL line and no warning, and each process logs in one format.
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../db/embedded.ts';
import { processesMentioning, runDexlake, waitForOk } from './harness/cli.ts';
import { createTestDatabase } from './harness/db.ts';

// Directly in the temp dir: as root the server runs as `postgres`, which cannot enter a 0700 mkdtemp folder.
const dataDir = path.join(tmpdir(), `dexlake-cli-${randomBytes(6).toString('hex')}`);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
afterEach(() => {
  for (const { pid } of processesMentioning(dataDir)) process.kill(pid, 'SIGKILL');
});

// Only what the test passes counts; no port of the devnet's servers, which other runs may hold.
const ENV = { DEXLAKE_DATA_DIR: dataDir, DEXLAKE_PG_PORT: '0', DEXLAKE_RELAY_PORT: 'off', DEXLAKE_DEVNET_RPC_PORT: 'off', LOG_LEVEL: 'info', DEXLAKE_SOURCE: undefined, DEXLAKE_FROM: undefined, DEXLAKE_TO: undefined };

/** Runs `dexlake ARGS` to its end. */
async function dexlake(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number | null; output: string }> {
  const running = runDexlake(args, { ...ENV, ...env });
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 90_000);
  const { code } = await running.exited;
  clearTimeout(timer);
  return { code, output: running.output() };
}

const lines = (output: string) => output.split('\n').filter((l) => l.trim() !== '');
/** `dexlake start`'s one format: `12:00:01.123 INFO  [api] message key=value`. */
const START_LINE = /^\d\d:\d\d:\d\d\.\d{3} (TRACE|DEBUG|INFO |WARN |ERROR|FATAL) \[[a-z]+\] /;

describe('dexlake commands and a running dexlake start', () => {
  it('a standalone command that logs JSON logs its embedded PostgreSQL in JSON too', { timeout: 120_000 }, async () => {
    // The first run of the data dir: initdb, the server's start, two devnet blocks, the stop.
    const { code, output } = await dexlake(['index', '--to', '2', '--devnet-speed', '0', '--devnet-genesis', 'recent']);
    expect(code, output).toBe(0);
    const notJson = lines(output).filter((line) => {
      try {
        const entry = JSON.parse(line) as { level?: unknown; msg?: unknown };
        return typeof entry.level !== 'number' || typeof entry.msg !== 'string';
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    expect(output).toMatch(/"msg":"initialising a new PostgreSQL cluster in /);
    expect(output).toMatch(/"msg":"embedded PostgreSQL ready on 127\.0\.0\.1:\d+ /);
  });

  it('undecoded, migrate, replay and pools import use its PostgreSQL; Ctrl-C then stops with no FATAL line and no warning', { timeout: 240_000 }, async () => {
    const port = await freePort();
    const start = runDexlake(['start'], { ...ENV, PORT: String(port) });
    await waitForOk(`http://127.0.0.1:${port}/health`, start);

    const undecoded = await dexlake(['undecoded', '--json']);
    expect(undecoded.code, undecoded.output).toBe(0);
    expect(undecoded.output).toMatch(/^using the embedded PostgreSQL of the running dexlake \(pid \d+\) on 127\.0\.0\.1:\d+ /m);
    const migrate = await dexlake(['migrate']);
    expect(migrate.code, migrate.output).toBe(0);
    expect(migrate.output).toMatch(/^schema up to date$/m);
    const replay = await dexlake(['replay', '--from', '1', '--to', '2']);
    expect(replay.code, replay.output).toBe(0);
    expect(replay.output).toMatch(/"msg":"replayed"/);
    const snapshot = path.join(dataDir, 'pools.json');
    writeFileSync(snapshot, JSON.stringify([{ pool_id: 9999, pool_kind: 'SIMPLE_POOL', token_account_ids: ['a.near', 'b.near'], total_fee: 30, shares_total_supply: '1', amounts: ['3', '4'] }]));
    const imported = await dexlake(['pools', 'import', snapshot, '--height', '1']);
    expect(imported.code, imported.output).toBe(0);
    // Each left the server running: the api still reads it.
    expect(await waitForOk(`http://127.0.0.1:${port}/health`, start)).toMatchObject({ db: 'ok' });

    // Ctrl-C in a terminal: SIGINT to dexlake and its children alike (PostgreSQL runs in a process group of its own).
    for (const { pid, cmd } of processesMentioning(dataDir)) if (cmd.includes('bin/dexlake.js')) process.kill(pid, 'SIGINT');
    expect(await start.exited).toEqual({ code: 0, signal: null });
    const output = start.output();
    expect(lines(output).filter((line) => !START_LINE.test(line))).toEqual([]);
    const stop = output.slice(output.indexOf('SIGINT: stopping'));
    expect(stop).toMatch(/embedded PostgreSQL stopped/);
    expect(lines(stop).filter((line) => /FATAL|ERROR|WARN|warning/i.test(line))).toEqual([]);
    expect(processesMentioning(dataDir)).toEqual([]);
  });
});

describe('dexlake command line', () => {
  it('replay --from 20 --to 10 exits 2 before starting anything', async () => {
    const unused = path.join(tmpdir(), `dexlake-unused-${randomBytes(6).toString('hex')}`);
    for (const command of ['replay', 'index']) {
      const { code, output } = await dexlake([command, '--from', '20', '--to', '10'], { DEXLAKE_DATA_DIR: unused });
      expect(code, command).toBe(2);
      expect(output, command).toBe('dexlake: --from 20 is after --to 10: expected from <= to\n');
      // No PostgreSQL was started: the data dir was never made.
      expect(existsSync(unused), command).toBe(false);
    }
  });

  it('a files: source that does not exist, and undecoded, replay or rebuild with no database, exit 2 with one line and make nothing', async () => {
    const unused = path.join(tmpdir(), `dexlake-unused-${randomBytes(6).toString('hex')}`);
    const missing = path.join(tmpdir(), `dexlake-missing-${randomBytes(6).toString('hex')}`);
    for (const command of [['index'], ['replay', '--from', '1', '--to', '2'], ['start']]) {
      const { code, output } = await dexlake([...command, '--source', `files:${missing}`], { DEXLAKE_DATA_DIR: unused });
      expect(code, command[0]).toBe(2);
      expect(output, command[0]).toBe(`dexlake: DEXLAKE_SOURCE (--source) files:${missing}: ${missing} does not exist\n`);
      expect(existsSync(unused), command[0]).toBe(false);
    }
    // They read what earlier runs wrote: a new, empty database would only report nothing.
    for (const command of [['undecoded'], ['rebuild'], ['replay', '--from', '1', '--to', '2']]) {
      const { code, output } = await dexlake(command, { DEXLAKE_DATA_DIR: unused });
      expect(code, command[0]).toBe(2);
      expect(output, command[0]).toBe(`dexlake: ${command[0]}: no database in ${unused}/pg (DEXLAKE_DATA_DIR ${unused}); \`dexlake start\` or \`dexlake index\` makes one\n`);
      expect(existsSync(unused), command[0]).toBe(false);
    }
  });

  it('undecoded, replay or rebuild on a DATABASE_URL with no dexlake schema exit 2 and leave it empty', { timeout: 60_000 }, async () => {
    const { url } = await createTestDatabase();
    for (const command of [['undecoded'], ['rebuild'], ['replay', '--from', '1', '--to', '2']]) {
      const { code, output } = await dexlake(command, { DATABASE_URL: url, LOG_LEVEL: 'warn' });
      expect(code, command[0]).toBe(2);
      expect(output, command[0]).toBe(`dexlake: ${command[0]}: the database holds no dexlake data (no schema); \`dexlake start\` or \`dexlake index\` makes it\n`);
    }
    const client = new pg.Client(url);
    await client.connect();
    try {
      expect((await client.query(`select count(*)::int as n from information_schema.tables where table_schema = 'public'`)).rows).toEqual([{ n: 0 }]);
    } finally {
      await client.end();
    }
  });

  it("index --help says what --host binds: the indexer's status port, the solver relay and the devnet JSON-RPC", async () => {
    const help = (await dexlake(['index', '--help'])).output.replace(/\s+/g, ' ');
    expect(help).toMatch(/--host <value> Address the indexer's own servers listen on: its status port \(--indexer-port\) and, with the realnet source, the solver relay \(--relay-port\) and NEAR JSON-RPC \(--devnet-rpc-port\)/);
    expect((await dexlake(['serve', '--help'])).output.replace(/\s+/g, ' ')).toMatch(/--host <value> Address the API listens on \(env HOST/);
  });
});
