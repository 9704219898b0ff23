// `dexlake start` for real: embedded PostgreSQL, the two children, clean shutdown, restart on the same data,
// a dying child, and the orphans of a killed run.
import { randomBytes } from 'node:crypto';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../db/embedded.ts';
import { migrations } from '../migrations/index.ts';
import { BIN, processesMentioning, runDexlake, waitForOk, waitUntil, type Running } from './harness/cli.ts';

const dataDir = path.join(tmpdir(), `dexlake-start-${randomBytes(6).toString('hex')}`);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
// A test that failed midway must not leave its processes to the next one (each test asserts none are left).
afterEach(() => {
  for (const { pid } of processesMentioning(dataDir)) process.kill(pid, 'SIGKILL');
});

async function startDexlake(env: Record<string, string> = {}): Promise<{ running: Running; port: number; databaseUrl: string }> {
  const port = await freePort();
  // Free ports for the realnet's relay and RPC: 3001 and 3002 may be another dexlake's, which would stop this one.
  const running = runDexlake(['start'], { DEXLAKE_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info', DEXLAKE_RELAY_PORT: '0', DEXLAKE_DEVNET_RPC_PORT: '0', ...env });
  const health = await waitForOk(`http://127.0.0.1:${port}/health`, running);
  expect(health).toMatchObject({ db: 'ok' });
  const pgPort = Number(/embedded PostgreSQL ready on 127\.0\.0\.1:(\d+)/.exec(running.output())?.[1]);
  const password = (await import('node:fs')).readFileSync(path.join(dataDir, 'dexlake-password'), 'utf8');
  return { running, port, databaseUrl: `postgres://postgres:${password}@127.0.0.1:${pgPort}/dexlake` };
}

async function waitUntilAsync(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
  return true;
}

async function query(url: string, sql: string, params: unknown[] = []) {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** The devnet's genesis as each stored block implies it (its timestamp less one second per block before it). */
async function genesesOf(url: string): Promise<number[]> {
  const rows = await query(url, 'select distinct timestamp_ms - (height - 1) * 1000 as genesis from blocks');
  return rows.map((r) => Number(r.genesis));
}

/** What the first start stored, for the restart to find again. */
let firstRun: { genesis: number; blocks: Array<{ height: string; hash: string; timestamp_ms: string }> } | undefined;

describe('dexlake start', () => {
  it('serves /health on embedded PostgreSQL and stops everything on SIGTERM with exit 0', async () => {
    const startedAt = Date.now();
    const { running, databaseUrl, port } = await startDexlake();
    // The children log asynchronously: their first lines may trail /health by a moment.
    expect(await waitUntil(() => running.output().includes('[indexer]') && running.output().includes('[api]'))).toBe(true);
    expect(await query(databaseUrl, 'show server_encoding')).toEqual([{ server_encoding: 'UTF8' }]);
    // The default source is the realnet, one block per second: the height grows, and its setup's pools come in (Ref's
    // in its first blocks, the hosted models' in the first block that trades).
    const height = async () => ((await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as { height: number | null }).height ?? 0;
    let seen = 0;
    expect(await waitUntilAsync(async () => (seen = await height()) >= 3, 30_000), `height ${seen}`).toBe(true);
    let dexes: Array<{ dex: string }> = [];
    const pooled = ['AmmA', 'AmmC', 'AmmDclA', 'Launch', 'StakeA', 'StakeB', 'StakeC', 'StakeD'];
    expect(await waitUntilAsync(async () => (dexes = (await query(databaseUrl, 'select distinct dex from pools order by dex')) as typeof dexes).length >= pooled.length, 60_000), JSON.stringify(dexes)).toBe(true);
    // Ref's exchange (its release wasm) and every hosted model hold pools.
    expect(dexes.map((d) => d.dex)).toEqual(pooled);
    // The devnet's genesis is the moment its indexer first started (one second per block from there), so its clock is
    // real time: the lag is seconds, not the months since a fixed genesis.
    const genesis = await genesesOf(databaseUrl);
    expect(genesis).toHaveLength(1);
    expect(genesis[0]).toBeGreaterThanOrEqual(Math.floor(startedAt / 1000) * 1000);
    expect(genesis[0]).toBeLessThanOrEqual(Date.now());
    const health = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as { lag_seconds: number };
    expect(health.lag_seconds).toBeLessThan(120);
    firstRun = { genesis: genesis[0]!, blocks: (await query(databaseUrl, 'select height, hash, timestamp_ms from blocks order by height')) as NonNullable<typeof firstRun>['blocks'] };
    // A marker that must survive the restart below.
    await query(databaseUrl, `insert into checkpoints (name, height, hash) values ('marker', 7, 'x')`);
    expect(processesMentioning(dataDir).length).toBeGreaterThanOrEqual(3);

    running.child.kill('SIGTERM');
    expect(await running.exited).toEqual({ code: 0, signal: null });
    expect(processesMentioning(dataDir)).toEqual([]);
  });

  it('restarts on the same data, and takes a free port when the preferred one is busy', async () => {
    const busy: Server = createServer();
    const busyPort = await freePort();
    await new Promise<void>((resolve) => busy.listen(busyPort, '127.0.0.1', resolve));
    try {
      const { running, databaseUrl, port } = await startDexlake({ DEXLAKE_PG_PORT: String(busyPort) });
      expect(running.output()).not.toContain('initialising a new PostgreSQL cluster');
      expect(new URL(databaseUrl).port).not.toBe(String(busyPort));
      expect(await query(databaseUrl, `select height from checkpoints where name = 'marker'`)).toEqual([{ height: '7' }]);
      // The devnet goes on with the genesis it has: the blocks of the first run are as they were, every block since
      // is one second after the one before from that genesis, and the lag is still seconds.
      const last = firstRun!.blocks.at(-1)!.height;
      expect(await waitUntilAsync(async () => (await query(databaseUrl, 'select 1 from blocks where height > $1', [last])).length > 0, 30_000)).toBe(true);
      expect(await query(databaseUrl, 'select height, hash, timestamp_ms from blocks where height <= $1 order by height', [last])).toEqual(firstRun!.blocks);
      expect(await genesesOf(databaseUrl)).toEqual([firstRun!.genesis]);
      const health = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as { lag_seconds: number };
      expect(health.lag_seconds).toBeLessThan(120);
      running.child.kill('SIGINT');
      expect(await running.exited).toEqual({ code: 0, signal: null });
      expect(processesMentioning(dataDir)).toEqual([]);
    } finally {
      busy.close();
    }
  });

  it('stops the whole with a non-zero exit when a child dies', async () => {
    const { running } = await startDexlake();
    const api = processesMentioning(dataDir).find((p) => p.cmd.endsWith(' serve '));
    expect(api).toBeDefined();
    process.kill(api!.pid, 'SIGKILL');
    const { code } = await running.exited;
    expect(code).not.toBe(0);
    expect(running.output()).toMatch(/api exited unexpectedly \(SIGKILL\): stopping/);
    expect(await waitUntil(() => processesMentioning(dataDir).length === 0)).toBe(true);
  });

  // Two starts that each stop at the taken port.
  it('stops with one line naming the setting, exit 2, when the relay or realnet RPC port is taken', { timeout: 90_000 }, async () => {
    const busy: Server = createServer();
    const busyPort = await freePort();
    await new Promise<void>((resolve) => busy.listen(busyPort, '127.0.0.1', resolve));
    try {
      for (const [variable, flag] of [['DEXLAKE_RELAY_PORT', '--relay-port'], ['DEXLAKE_DEVNET_RPC_PORT', '--devnet-rpc-port']] as const) {
        const running = runDexlake(['start'], { DEXLAKE_DATA_DIR: dataDir, PORT: String(await freePort()), DEXLAKE_RELAY_PORT: '0', DEXLAKE_DEVNET_RPC_PORT: '0', [variable]: String(busyPort) });
        expect((await running.exited).code, running.output()).toBe(2);
        const errors = running.output().split('\n').filter((line) => line.startsWith('dexlake: '));
        expect(errors).toEqual([`dexlake: ${variable} (${flag}) ${busyPort} on 127.0.0.1 is taken: choose another port (0: any free one)`]);
        expect(processesMentioning(dataDir)).toEqual([]);
      }
    } finally {
      busy.close();
    }
  });

  // A start, then the realnet's first blocks until its AmmA pools are indexed.
  it('with relay port 0 the relay takes a free port, and the api asks that relay for QuoteA quotes', { timeout: 120_000 }, async () => {
    const { running, port } = await startDexlake();
    const relay = () => /solver relay listening url=(http:\/\/127\.0\.0\.1:\d+)\/rpc/.exec(running.output())?.[1];
    const asked = () => /QuoteA asks this solver relay url=(\S+)/.exec(running.output())?.[1];
    expect(await waitUntil(() => relay() !== undefined && asked() !== undefined), running.output()).toBe(true);
    expect(asked()).toBe(relay());
    expect(new URL(relay()!).port).not.toBe('3001');
    // And it answers: once the realnet's AmmA pools are indexed, a QuoteA route comes from that relay.
    const query = new URLSearchParams({ token_in: 'wrap.near', token_out: 'usdt.tether-token.near', amount_in: '1000000000000000000000000', max_wait_ms: '3000', slippage_type: 'Fixed', slippage: '0.05', dexes: 'QuoteA', trader_account_id: 'alice.near' });
    const quoted = async () => ((await (await fetch(`http://127.0.0.1:${port}/route?${query}`)).json()) as Array<{ dex_id: string }>).some((q) => q.dex_id === 'QuoteA');
    expect(await waitUntilAsync(quoted, 60_000), running.output()).toBe(true);
    running.child.kill('SIGTERM');
    expect(await running.exited).toEqual({ code: 0, signal: null });
  });

  it('after a SIGKILL of dexlake, its children stop by themselves and the next start clears the orphaned PostgreSQL', async () => {
    const first = await startDexlake();
    first.running.child.kill('SIGKILL');
    await first.running.exited;
    // The node children notice the parent is gone; PostgreSQL, in its own process group, is left orphaned.
    expect(await waitUntil(() => processesMentioning(dataDir).every((p) => !p.cmd.includes('bin/dexlake.js')))).toBe(true);
    expect(processesMentioning(dataDir).some((p) => p.cmd.includes('postgres'))).toBe(true);

    const second = await startDexlake();
    expect(second.running.output()).toMatch(/stopping orphaned postgres/);
    second.running.child.kill('SIGTERM');
    expect(await second.running.exited).toEqual({ code: 0, signal: null });
    expect(processesMentioning(dataDir)).toEqual([]);
  });
});

describe('dexlake command line', () => {
  it('lists every subcommand in --help', async () => {
    const running = runDexlake(['--help']);
    expect((await running.exited).code).toBe(0);
    for (const command of ['start', 'index', 'serve', 'migrate', 'replay', 'rebuild']) {
      expect(running.output()).toMatch(new RegExp(`^  ${command} \\[options\\]`, 'm'));
    }
  });

  it('stops with one line naming the variable and exit code 2 on a bad value', async () => {
    const running = runDexlake(['start'], { PORT: 'abc', DEXLAKE_DATA_DIR: dataDir });
    expect((await running.exited).code).toBe(2);
    expect(running.output()).toBe('dexlake: invalid PORT="abc": expected an integer from 0 to 65535\n');
  });

  it('names the flag when the bad value came from a flag', async () => {
    const running = runDexlake(['serve', '--log-level', 'loud']);
    expect((await running.exited).code).toBe(2);
    expect(running.output()).toBe('dexlake: invalid --log-level="loud": expected one of fatal, error, warn, info, debug, trace, silent\n');
  });

  it('stops with exit code 2 and a line naming it on an unknown option or command, or a missing value', async () => {
    const hint = "(dexlake --help lists the commands, dexlake COMMAND --help a command's options)\n";
    for (const [args, line] of [
      [['--bogus'], "dexlake: unknown option '--bogus'\n"],
      [['serve', '--bogus'], "dexlake: unknown option '--bogus'\n"],
      [['frobnicate'], "dexlake: unknown command 'frobnicate'\n"],
      [['serve', '--port'], "dexlake: option '--port <value>' argument missing\n"],
    ] as const) {
      const running = runDexlake([...args]);
      expect((await running.exited).code, args.join(' ')).toBe(2);
      expect(running.output(), args.join(' ')).toBe(line + hint);
    }
  });

  it('prints its version with --version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const running = runDexlake([flag]);
      expect((await running.exited).code).toBe(0);
      expect(running.output()).toBe(`${version}\n`);
    }
  });
});

// It runs dexlake as `nobody` through runuser, which only root can do: elsewhere the test is listed as skipped, its
// name saying why.
const cannotRunAsNobody = process.getuid?.() !== 0 ? 'not root, so it cannot run dexlake as nobody' : existsSync('/usr/sbin/runuser') ? undefined : 'no /usr/sbin/runuser';
describe('as a normal user', () => {
  it.skipIf(cannotRunAsNobody)(`initialises and reuses its own embedded PostgreSQL${cannotRunAsNobody ? ` (skipped: ${cannotRunAsNobody})` : ''}`, async () => {
    const dir = path.join(tmpdir(), `dexlake-nobody-${randomBytes(6).toString('hex')}`);
    const migrate = () =>
      new Promise<string>((resolve, reject) =>
        execFile('runuser', ['-u', 'nobody', '--', process.execPath, BIN, 'migrate', '--data-dir', dir, '--pg-port', '0'], (err, stdout) =>
          err ? reject(err) : resolve(stdout),
        ),
      );
    try {
      // Every migration the registry lists, in order (migrate.test.ts writes the list out).
      expect(await migrate()).toBe(`applied ${Object.keys(migrations).join(', ')}\n`);
      expect(await migrate()).toBe('schema up to date\n');
      expect(statSync(path.join(dir, 'pg')).uid).toBe(Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' })));
      expect(processesMentioning(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
