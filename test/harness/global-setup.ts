// Once per test run: find a PostgreSQL server for the test files. DATABASE_URL when set; else a Testcontainers
// PostgreSQL when a Docker engine answers (probed once, the probe fails within milliseconds when none does);
// else one embedded PostgreSQL for the whole run. Each test file then creates its own database on it.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../db/embedded.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A server URL whose user may create databases; test files add their own database to it. */
    postgresUrl: string;
    postgresKind: 'DATABASE_URL' | 'testcontainers' | 'embedded';
  }
}

async function dockerAnswers(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.DATABASE_URL) {
    project.provide('postgresUrl', process.env.DATABASE_URL);
    project.provide('postgresKind', 'DATABASE_URL');
    return async () => {};
  }
  if (await dockerAnswers()) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:18-alpine').start();
    project.provide('postgresUrl', container.getConnectionUri());
    project.provide('postgresKind', 'testcontainers');
    return async () => void (await container.stop());
  }
  // Directly in the temp dir: as root the server runs as `postgres`, which cannot enter a 0700 mkdtemp folder.
  const home = path.join(tmpdir(), `dexlake-test-${randomBytes(6).toString('hex')}`);
  const pg = await startEmbeddedPostgres({ dir: path.join(home, 'pg'), port: 0, database: 'postgres' });
  project.provide('postgresUrl', pg.url);
  project.provide('postgresKind', 'embedded');
  return async () => {
    await pg.stop();
    rmSync(home, { recursive: true, force: true });
  };
}
