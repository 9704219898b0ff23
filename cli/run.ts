// What every long-running subcommand shares: its database for the length of the run, and when to stop.
import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';
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
export async function withDatabase<T>(config: Config, fn: (db: DatabaseHandle) => Promise<T>, logger?: Logger): Promise<T> {
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
