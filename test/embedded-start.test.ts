// The embedded PostgreSQL starts without a FATAL line in its log: a first start (initdb), a restart after the server
// was killed (it recovers first: the longest start) and a restart after a clean stop. Connecting before the server
// is ready used to log `FATAL: the database system is starting up` (or `is not yet accepting connections`). Its clean
// stop logs none either, even while an autovacuum works (`FATAL: terminating autovacuum process due to
// administrator command` is our own shutdown's doing).
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

  it('logs no FATAL line when stopped while an autovacuum works', { timeout: 120_000 }, async () => {
    const lines: string[] = [];
    // Autovacuum every second on any dead row, throttled to a crawl so that it is still at work when the stop comes.
    const settings = { autovacuum_naptime: '1', autovacuum_vacuum_threshold: '0', autovacuum_vacuum_scale_factor: '0', autovacuum_vacuum_cost_limit: '1', autovacuum_vacuum_cost_delay: '100' };
    const server = await startEmbeddedPostgres({ dir: path.join(home, 'pg-autovacuum'), port: 0, log: (line) => lines.push(line), settings });
    const client = new pg.Client({ connectionString: server.url });
    try {
      await client.connect();
      await client.query('create table dead (x int)');
      await client.query('insert into dead select generate_series(1, 100000)');
      await client.query('delete from dead');
      const working = async () => (await client.query(`select 1 from pg_stat_activity where backend_type = 'autovacuum worker' and query like '%dead%'`)).rowCount! > 0;
      const deadline = Date.now() + 60_000;
      while (!(await working())) {
        if (Date.now() > deadline) throw new Error('no autovacuum started within 60 s');
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await client.end();
      await server.stop();
    }
    // A clean, fast shutdown, which ended the worker.
    expect(lines.some((l) => l.includes('database system is shut down'))).toBe(true);
    expect(lines.filter((l) => /\b(FATAL|ERROR|PANIC|WARNING):/.test(l))).toEqual([]);
  });
});
