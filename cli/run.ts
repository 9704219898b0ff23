// What every long-running subcommand shares: its database for the length of the run, and when to stop.
import { existsSync } from 'node:fs';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import { sql } from '../db/kysely.ts';
import { ConfigError, settings, type Config } from './config.ts';
import { openDatabase, type DatabaseHandle } from './database.ts';

const STDOUT_STUCK_MS = 2_000;

/** Aborts on SIGINT, SIGTERM, or (for a child of `dexlake start`) the parent going away. */
export function stopSignal(): AbortSignal {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // A child of `dexlake start` has an IPC channel to it; if that is already closed, the parent died while this
  // process was starting, before a 'disconnect' listener could hear it.
  if (process.env.DEXLAKE_SUPERVISED === '1') {
    if (process.connected) process.once('disconnect', stop);
    else stop();
  }
  return controller.signal;
}

/**
 * `logger`: the process's logger, which the database's lines join so that a process logs in one format (pino JSON);
 * without one (the commands that print text), they are plain lines on stderr.
 */
export async function withDatabase<T>(config: Config, fn: (db: DatabaseHandle) => Promise<T>, logger?: Logger, { existing }: { existing?: string } = {}): Promise<T> {
  if (existing !== undefined) refuseNewDataDir(config, existing);
  const database = await openDatabase(config, (level, line) => (logger ? logger[level](line) : process.stderr.write(`${line}\n`)));
  try {
    return await fn(database);
  } finally {
    await database.stop();
  }
}


/**
 * A process's logger: JSON lines on stdout, written asynchronously. A synchronous write to a pipe nobody reads
 * (the parent `dexlake start` was killed) can block the thread for good, and with it every signal handler.
 */
export function processLogger(proc: string, level: string): Logger {
  // Logging must never stop the process: a stdout nobody reads (the parent `dexlake start` was SIGKILLed) fills up,
  // and a write retried until it drains would wait forever. A line that cannot be written for 2 s is dropped.
  let stuckSince: number | undefined;
  const destination = pino.destination({
    dest: 1,
    sync: true,
    retryEAGAIN: () => Date.now() - (stuckSince ??= Date.now()) < STDOUT_STUCK_MS,
  });
  destination.on('error', () => {
    stuckSince = undefined;
  });
  destination.on('write', () => {
    stuckSince = undefined;
  });
  return pino({ level, base: { proc } }, destination);
}

/**
 * A server on the port of `name`. One it cannot have stops the command (exit 2) with a line naming the setting: going
 * on without it would leave clients talking to whoever holds the port (a second `start` sent its QuoteA quotes to the
 * first one's relay).
 */
export async function listenOn<T>(name: 'relayPort' | 'devnetRpcPort' | 'indexerPort' | 'port', port: number, host: string, listen: (port: number) => Promise<T>): Promise<T> {
  try {
    return await listen(port);
  } catch (err) {
    const { env, flag } = settings[name];
    const why = (err as NodeJS.ErrnoException).code === 'EADDRINUSE' ? 'is taken' : `cannot be listened on (${(err as Error).message})`;
    throw new ConfigError(`${env} (${flag}) ${port} on ${host} ${why}: choose another port (0: any free one)`);
  }
}

/**
 * `command` reads what earlier runs wrote (undecoded, replay, rebuild): with no database in the data dir it stops here
 * (exit 2), before an embedded PostgreSQL would make a new, empty one and the command report on nothing.
 */
function refuseNewDataDir(config: Config, command: string): void {
  if (config.databaseUrl) return;
  const dir = path.resolve(config.dataDir, 'pg');
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    throw new ConfigError(`${command}: no database in ${dir} (${settings.dataDir.env} ${config.dataDir}); \`dexlake start\` or \`dexlake index\` makes one`);
  }
}

/** The same for a database with no dexlake schema yet (a new DATABASE_URL, say): migrating it would make one empty. */
export async function refuseEmptyDatabase(db: Db, command: string): Promise<void> {
  const { rows } = await sql<{ found: string | null }>`select to_regclass('kysely_migration')::text as found`.execute(db.kysely);
  if (rows[0]?.found == null) throw new ConfigError(`${command}: the database holds no dexlake data (no schema); \`dexlake start\` or \`dexlake index\` makes it`);
}

/** A `files:` source whose path does not exist stops the command before anything starts (exit 2), not with a raw
 * ENOENT once the database is up. */
export function checkSource(config: Pick<Config, 'source'>): void {
  if (!config.source.startsWith('files:')) return;
  const file = path.resolve(config.source.slice('files:'.length));
  if (!existsSync(file)) throw new ConfigError(`${settings.source.env} (${settings.source.flag}) ${config.source}: ${file} does not exist`);
}
