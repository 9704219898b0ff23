// The database a command runs against: DATABASE_URL when given, else the embedded PostgreSQL of the data dir: the
// one a running dexlake (`npm start`) already serves from it, or one started for this run.
import path from 'node:path';
import type { Config } from './config.ts';
import { runningEmbeddedPostgres, startEmbeddedPostgres } from '../db/embedded.ts';

export interface DatabaseHandle {
  url: string;
  /** Started by this process, which stops it. */
  embedded: boolean;
  stop(): Promise<void>;
}

export type DatabaseLogLevel = 'info' | 'warn' | 'error' | 'fatal';
export type DatabaseLog = (level: DatabaseLogLevel, line: string) => void;

/** A PostgreSQL log line's level, from its severity. */
function levelOf(line: string): DatabaseLogLevel {
  const severity = /\b(WARNING|ERROR|FATAL|PANIC):/.exec(line)?.[1];
  return severity === 'WARNING' ? 'warn' : severity === 'ERROR' ? 'error' : severity === undefined ? 'info' : 'fatal';
}

/**
 * `share`: connect to the embedded PostgreSQL another running dexlake started in the data dir, rather than fail on
 * its files; that server is left running. `start` does not share: it supervises its own server.
 */
export async function openDatabase(config: Config, log: DatabaseLog, { share = true } = {}): Promise<DatabaseHandle> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: false, stop: async () => {} };
  const dir = path.resolve(config.dataDir, 'pg');
  const running = share ? runningEmbeddedPostgres(dir) : undefined;
  if (running) {
    log('info', `using the embedded PostgreSQL of the running dexlake (pid ${running.owner}) on 127.0.0.1:${running.port} (data in ${dir})`);
    return { url: running.url, embedded: false, stop: async () => {} };
  }
  const started = Date.now();
  const pg = await startEmbeddedPostgres({
    dir,
    port: config.pgPort,
    log: (line) => {
      if (/\b(WARNING|ERROR|FATAL|PANIC):/.test(line) || /^initialising/.test(line) || /^(removing|stopping)/.test(line)) log(levelOf(line), line);
    },
  });
  log('info', `embedded PostgreSQL ready on 127.0.0.1:${pg.port} (data in ${dir}, ${Date.now() - started} ms)`);
  return { url: pg.url, embedded: true, stop: () => pg.stop() };
}
