// api/explorer.ts over what `npm run build:web` wrote (web/dist): index.html revalidated on each visit, every
// hashed asset kept a year, text gzipped for the clients that take it, the bytes those of the files; and before a
// build, a 503 page that says how to build.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import Fastify, { type LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { EXPLORER_DIST, explorerRoutes } from '../../api/explorer.ts';

const body = (res: LightMyRequestResponse) => (res.headers['content-encoding'] === 'gzip' ? gunzipSync(res.rawPayload) : res.rawPayload);

describe('the explorer\'s files', () => {
  it('serves web/dist: index.html revalidated, each asset with a year\'s cache and its type, gzipped when asked', async () => {
    const app = Fastify();
    await explorerRoutes(app);
    const html = await readFile(path.join(EXPLORER_DIST, 'index.html'));
    for (const encoding of ['gzip', 'identity']) {
      const index = await app.inject({ url: '/', headers: { 'accept-encoding': encoding } });
      expect(index.statusCode).toBe(200);
      expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(index.headers['cache-control']).toBe('no-cache');
      expect(index.headers['content-encoding']).toBe(encoding === 'gzip' ? 'gzip' : undefined);
      expect(body(index)).toEqual(html);
    }
    // The page names its script and style; the chart's chunk is loaded later by the script. All are served.
    expect(html.toString()).toMatch(/src="\/assets\/index-[\w-]+\.js"/);
    const files = await readdir(path.join(EXPLORER_DIST, 'assets'));
    expect(files.some((f) => f.startsWith('lightweight-charts'))).toBe(true);
    for (const name of files) {
      const res = await app.inject({ url: `/assets/${name}`, headers: { 'accept-encoding': 'gzip' } });
      expect(res.statusCode, name).toBe(200);
      expect(res.headers['cache-control'], name).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-type'], name).toBe(name.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      expect(body(res), name).toEqual(await readFile(path.join(EXPLORER_DIST, 'assets', name)));
    }
    await app.close();
  });

  it('before a build: / is a 503 page saying how to build it, not cached', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'dexlake-no-dist-'));
    try {
      const app = Fastify();
      await explorerRoutes(app, empty);
      const res = await app.inject('/');
      expect(res.statusCode).toBe(503);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toContain('<code>npm run build:web</code>');
      expect((await app.inject('/assets/index.js')).statusCode).toBe(404);
      await app.close();
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
