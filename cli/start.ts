// `dexlake start`: the database, the migrations, then the indexer and the api (told the indexer's relay) as two
// child processes whose log lines are prefixed by process. A signal stops both children, then PostgreSQL; a child
// that dies stops the whole with a non-zero exit. Nothing is left behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { configEnv, seeded, type Config } from './config.ts';
import { openDatabase } from './database.ts';
import { formatLogLine, LEVEL, lineSplitter } from './log.ts';
import { checkSource } from './run.ts';
import { connect } from '../db/connect.ts';
import { freePort } from '../db/embedded.ts';
import { migrateToLatest } from '../db/migrate.ts';

const BIN = fileURLToPath(new URL('../bin/dexlake.js', import.meta.url));
const CHILD_STOP_TIMEOUT_MS = 10_000;

export async function start(config: Config): Promise<never> {
  // This process's own lines, in the format of its children's (cli/log.ts).
  const say = (line: string, level: number = LEVEL.info) =>
    process.stdout.write(`${formatLogLine('dexlake', JSON.stringify({ level, time: Date.now(), msg: line }))}\n`);
  checkSource(config);
  // Its own PostgreSQL, never another dexlake's: a second `start` on a data dir in use stops there.
  const database = await openDatabase(config, (level, line) => say(line, LEVEL[level]), { share: false });
  const children = new Map<string, ChildProcess>();
  let stopping: Promise<never> | undefined;

  const stopAll = (code: number): Promise<never> =>
    (stopping ??= (async () => {
      await Promise.all([...children.values()].map(stopChild));
      await database.stop();
      if (database.embedded) say('embedded PostgreSQL stopped');
      process.exit(code);
    })());

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      say(`${signal} again: killing everything`, LEVEL.warn);
      for (const child of children.values()) child.kill('SIGKILL');
      return;
    }
    say(`${signal}: stopping`);
    void stopAll(0);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    const db = connect(database.url, { max: 1 });
    try {
      const applied = await migrateToLatest(db.kysely);
      say(applied.length ? `migrated: ${applied.join(', ')}` : 'schema up to date');
    } finally {
      await db.close();
    }
  } catch (err) {
    say(`migration failed: ${(err as Error).message}`, LEVEL.error);
    return stopAll(1);
  }
  if (stopping) return stopping;

  // The service's own devnet runs on real time from a recent genesis, kept in its database (cli/devnet.ts).
  const env = { ...process.env, ...configEnv({ ...config, devnetGenesis: config.devnetGenesis ?? 'recent' }), DATABASE_URL: database.url, DEXLAKE_SUPERVISED: '1' };
  const spawnChild = (name: string, command: string, childEnv: NodeJS.ProcessEnv): void => {
    // An IPC channel lets a child notice that this process died (even by SIGKILL) and stop by itself.
    const child = spawn(process.execPath, [BIN, command], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    children.set(name, child);
    // A line that is not the child's pino JSON (a Node warning, a crash's stack) still gets a time and a level.
    child.stdout!.on('data', lineSplitter((line) => process.stdout.write(`${formatLogLine(name, line, LEVEL.info)}\n`)));
    child.stderr!.on('data', lineSplitter((line) => process.stdout.write(`${formatLogLine(name, line, LEVEL.warn)}\n`)));
    // A child that stops on a bad setting (a port taken) hands its one line here: `start` ends with it, as the
    // command itself would.
    let fatal: ChildMessage | undefined;
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'fatal') fatal = message;
    });
    // 'close', not 'exit': it comes once the IPC channel is closed too, so a fatal line sent just before is in.
    child.on('close', (code, signal) => {
      children.delete(name);
      if (stopping) return;
      if (fatal) {
        process.stderr.write(`dexlake: ${fatal.message}\n`);
        void stopAll(fatal.code);
        return;
      }
      say(`${name} exited unexpectedly (${signal ?? `code ${code}`}): stopping`, LEVEL.error);
      void stopAll(1);
    });
  };

  // The api asks the indexer's relay for QuoteA quotes, never whatever else holds a port. Its port is settled here so
  // that both children start at once: 0 is a free port found now (should another process take it first, the indexer
  // stops with that port's line, and so does `start`).
  const relayPort = seeded(config.source) && config.relayPort !== 'off' ? (config.relayPort === 0 ? await freePort(config.host) : config.relayPort) : undefined;
  if (stopping) return stopping;
  const quoteRelayUrl = config.quoteRelayUrl ?? (relayPort === undefined ? 'off' : `http://${connectable(config.host)}:${relayPort}`);
  spawnChild('indexer', 'index', { ...env, DEXLAKE_RELAY_PORT: String(relayPort ?? 'off') });
  spawnChild('api', 'serve', { ...env, QUOTE_RELAY_URL: quoteRelayUrl });
  return new Promise<never>(() => {});
}

/** The address a client on this host reaches a server listening on `host` at (a wildcard: loopback). */
function connectable(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return '127.0.0.1';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** What a child says over its IPC channel before it exits on an error (main.ts). */
interface ChildMessage {
  type: 'fatal';
  message: string;
  code: number;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
