// isDatabaseUnavailable on real errors from a real server: a lost or refused connection is worth waiting out, a
// wrong query is not (the indexer would otherwise retry a bug forever).
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freePort } from '../db/embedded.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { createTestDatabase } from './harness/db.ts';

const { url } = await createTestDatabase();

async function errorOf(run: (client: pg.Client) => Promise<unknown>, connectionString = url): Promise<unknown> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await run(client);
  } catch (err) {
    return err;
  } finally {
    await client.end().catch(() => {});
  }
  throw new Error('expected an error');
}

describe('isDatabaseUnavailable', () => {
  it('is true for a refused connection, a terminated session and a statement after it', async () => {
    const closed = new URL(url);
    closed.port = String(await freePort());
    expect(isDatabaseUnavailable(await errorOf(async () => {}, closed.toString()))).toBe(true);
    // pg_terminate_backend of its own session: what a server shutdown or crash does to every session (57P01).
    const terminated = await errorOf((c) => c.query('select pg_terminate_backend(pg_backend_pid())'));
    expect((terminated as { code?: string }).code).toBe('57P01');
    expect(isDatabaseUnavailable(terminated)).toBe(true);
    const after = await errorOf(async (c) => {
      await c.query('select pg_terminate_backend(pg_backend_pid())').catch(() => {});
      await c.query('select 1');
    });
    expect(isDatabaseUnavailable(after)).toBe(true);
  });

  it('is false for a wrong query, a constraint violation and a plain error', async () => {
    expect(isDatabaseUnavailable(await errorOf((c) => c.query('select * from no_such_table')))).toBe(false);
    expect(isDatabaseUnavailable(await errorOf((c) => c.query('selec 1')))).toBe(false);
    expect(isDatabaseUnavailable(await errorOf((c) => c.query('select 1/0')))).toBe(false);
    expect(isDatabaseUnavailable(new Error('bad block'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
