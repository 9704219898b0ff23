import { describe, expect, it } from 'vitest';
import { buildServer } from '../api/server.ts';
import { createMigratedDb } from './harness/db.ts';

describe('GET /health and /metrics', () => {
  it('reports the database up with the indexed height and lag (503 until it holds a block), then down once the database is gone', async () => {
    const db = await createMigratedDb();
    const app = await buildServer({ db, logLevel: 'silent' });
    try {
      // An empty database: the api answers, but /route would only say []: not ready, and why.
      let res = await app.inject('/health');
      expect(res.statusCode).toBe(503);
      // route_height: the routing graph's, null while it holds no block.
      expect(res.json()).toEqual({ db: 'ok', height: null, lag_seconds: null, route_height: null, reason: 'no block indexed yet' });

      const blockTime = Date.now() - 90_000;
      await db.kysely.insertInto('blocks').values([
        { height: 100, hash: 'a', prev_hash: 'z', timestamp_ms: blockTime - 1_000 },
        { height: 102, hash: 'b', prev_hash: 'a', timestamp_ms: blockTime },
      ]).execute();
      res = await app.inject('/health');
      expect(res.statusCode).toBe(200);
      const health = res.json();
      expect(health.height).toBe(102);
      // Rows written without a notification: the routing graph has not read them.
      expect(health.route_height).toBeNull();
      expect(health.lag_seconds).toBeGreaterThanOrEqual(90);
      expect(health.lag_seconds).toBeLessThan(600);

      await db.database.drop();
      res = await app.inject('/health');
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ db: 'down', height: null, lag_seconds: null, route_height: null, reason: 'the database does not answer' });
    } finally {
      await app.close();
    }
  });

  it('answers 503 once the indexed height has not changed for the stall time, and 200 again with the next block', async () => {
    const db = await createMigratedDb();
    // The api's clock, moved by hand: the stall is judged by it, so no test waits a minute.
    let now = Date.now();
    const app = await buildServer({ db, logLevel: 'silent', stallMs: 60_000, clock: () => now });
    const block = (height: number) => db.kysely.insertInto('blocks').values({ height, hash: `h${height}`, prev_hash: `h${height - 1}`, timestamp_ms: now }).execute();
    try {
      await block(10);
      expect((await app.inject('/health')).statusCode).toBe(200);
      // Within the stall time since the api started: still ready.
      now += 60_000;
      expect((await app.inject('/health')).statusCode).toBe(200);
      now += 15_000;
      let res = await app.inject('/health');
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({
        db: 'ok',
        height: 10,
        reason: "the indexed height has not grown for 75 s (stall time DEXLAKE_STALL_SECONDS=60): the indexer's source makes no progress",
      });
      // The source moves again: ready, with no reason.
      await block(11);
      res = await app.inject('/health');
      expect(res.statusCode).toBe(200);
      expect(res.json()).not.toHaveProperty('reason');
      expect(res.json()).toMatchObject({ height: 11 });
    } finally {
      await app.close();
    }
  });

  it('with a stall time of 0, an unchanged height never makes /health 503', async () => {
    const db = await createMigratedDb();
    let now = Date.now();
    const app = await buildServer({ db, logLevel: 'silent', stallMs: 0, clock: () => now });
    try {
      await db.kysely.insertInto('blocks').values({ height: 10, hash: 'a', prev_hash: 'z', timestamp_ms: now }).execute();
      now += 86_400_000;
      expect((await app.inject('/health')).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('serves Prometheus text with process metrics and allows any origin', async () => {
    const db = await createMigratedDb();
    const app = await buildServer({ db, logLevel: 'silent' });
    try {
      await app.inject('/health');
      const res = await app.inject({ url: '/metrics', headers: { origin: 'https://example.org' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.body).toMatch(/^dexlake_api_process_resident_memory_bytes \d+/m);
      // An empty database: /health is 503 (no block yet).
      expect(res.body).toMatch(/^dexlake_api_http_request_duration_seconds_count\{route="\/health",status="503"\} 1$/m);
    } finally {
      await app.close();
    }
  });
});
