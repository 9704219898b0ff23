// The database a command runs against: DATABASE_URL when given, else the embedded PostgreSQL of the data dir.
import path from 'node:path';
import type { Config } from './config.ts';
import { startEmbeddedPostgres } from '../db/embedded.ts';

export interface DatabaseHandle {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

export async function openDatabase(config: Config, log: (line: string) => void): Promise<DatabaseHandle> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: false, stop: async () => {} };
  const dir = path.resolve(config.dataDir, 'pg');
  const started = Date.now();
  const pg = await startEmbeddedPostgres({
    dir,
    port: config.pgPort,
    log: (line) => {
      if (/\b(WARNING|ERROR|FATAL|PANIC):/.test(line) || /^initialising/.test(line) || /^(removing|stopping)/.test(line)) log(line);
    },
  });
  log(`embedded PostgreSQL ready on 127.0.0.1:${pg.port} (data in ${dir}, ${Date.now() - started} ms)`);
  return { url: pg.url, embedded: true, stop: () => pg.stop() };
}
