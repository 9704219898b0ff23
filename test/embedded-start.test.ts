// The embedded PostgreSQL starts without a FATAL line in its log: a first start (initdb), a restart after the server
// was killed (it recovers first: the longest start) and a restart after a clean stop. Connecting before the server
// is ready used to log `FATAL: the database system is starting up` (or `is not yet accepting connections`).
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../db/embedded.ts';

// Directly in the temp dir: as root the server runs as `postgres`, which cannot enter a 0700 mkdtemp folder.
const home = path.join(tmpdir(), `dexlake-start-${randomBytes(6).toString('hex')}`);
afterAll(() => rmSync(home, { recursive: true, force: true }));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('embedded PostgreSQL start', () => {
  it('logs no FATAL line on a first start, a restart after a crash or after a clean stop, and answers once started', { timeout: 120_000 }, async () => {
    for (const start of ['first', 'after a crash', 'after a clean stop']) {
      const lines: string[] = [];
      // The last start sets a server setting for itself (as bench:scale sets shared_buffers).
      const settings = start === 'after a clean stop' ? { work_mem: '7MB' } : undefined;
      const server = await startEmbeddedPostgres({ dir: path.join(home, 'pg'), port: 0, log: (line) => lines.push(line), ...(settings && { settings }) });
      try {
        const client = new pg.Client({ connectionString: server.url });
        await client.connect();
        // Enough unflushed writes that a restart after a kill has WAL to replay.
        await client.query('create table if not exists t (x int)');
        await client.query('insert into t select generate_series(1, 200000)');
        expect((await client.query('select count(*)::int as n from t')).rows[0].n % 200000, start).toBe(0);
        expect((await client.query('show work_mem')).rows[0].work_mem, start).toBe(settings ? '7MB' : '4MB');
        await client.end();
      } finally {
        if (start === 'first') {
          process.kill(server.pid, 'SIGKILL');
          while (isAlive(server.pid)) await new Promise((r) => setTimeout(r, 20));
        } else {
          await server.stop();
        }
      }
      expect(lines.some((l) => l.includes('database system is ready to accept connections')), start).toBe(true);
      expect(lines.filter((l) => /\b(FATAL|ERROR|PANIC):/.test(l)), start).toEqual([]);
    }
  });
});
