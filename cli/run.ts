// What every long-running subcommand shares: its database for the length of the run, and when to stop.
import type { Config } from './config.ts';
import { openDatabase, type DatabaseHandle } from './database.ts';

/** Aborts on SIGINT, SIGTERM, or (for a child of `dexlake start`) the parent going away. */
export function stopSignal(): AbortSignal {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (process.connected) process.once('disconnect', stop);
  return controller.signal;
}

export async function withDatabase<T>(config: Config, fn: (db: DatabaseHandle) => Promise<T>): Promise<T> {
  const database = await openDatabase(config, (line) => process.stderr.write(`${line}\n`));
  try {
    return await fn(database);
  } finally {
    await database.stop();
  }
}

