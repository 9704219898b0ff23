import { describe, expect, it } from 'vitest';
import { buildServer } from '../api/server.ts';
import { createMigratedDb } from './harness/db.ts';

describe('GET /health and /metrics', () => {
  it('reports the database up with the indexed height and lag, then down once the database is gone', async () => {
    const db = await createMigratedDb();
    const app = await buildServer({ db, logLevel: 'silent' });
    try {
      let res = await app.inject('/health');
      expect(res.statusCode).toBe(200);
      // route_height: the routing graph's, null while it holds no block.
      expect(res.json()).toEqual({ db: 'ok', height: null, lag_seconds: null, route_height: null });

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
      expect(res.json()).toEqual({ db: 'down', height: null, lag_seconds: null, route_height: null });
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
      expect(res.body).toMatch(/^dexlake_api_http_request_duration_seconds_count\{route="\/health",status="200"\} 1$/m);
    } finally {
      await app.close();
    }
  });
});
