// Swagger UI at /docs: an HTML page over /openapi.json whose every asset the server itself serves (nothing from
// another host), the assets byte for byte the files of swagger-ui-dist, gzipped for clients that take it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../api/server.ts';
import { acceptsGzip } from '../../api/tokens/docs.ts';
import { createMigratedDb } from '../harness/db.ts';

const db = await createMigratedDb();
let app: FastifyInstance;
const distDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

beforeAll(async () => {
  app = await buildServer({ db, logLevel: 'silent' });
});
afterAll(async () => {
  await app?.close();
});

/** The src and href attributes of the page. */
const references = (html: string) => [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);

describe('/docs', () => {
  it('answers an HTML page that loads swagger-ui over /openapi.json, offline', async () => {
    const res = await app.inject({ method: 'GET', url: '/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('"url":"/openapi.json"');
    expect(res.body).toContain('SwaggerUIBundle(');
    // No online spec validator badge, and no address on another host.
    expect(res.body).toContain('"validatorUrl":null');
    expect(res.body).not.toMatch(/https?:\/\//);
    expect(references(res.body).sort()).toEqual(['/', '/asyncapi.json', '/docs/favicon-32x32.png', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui-standalone-preset.js', '/docs/swagger-ui.css', '/openapi.json']);
  });

  it('links the whole reference: the OpenAPI document, the AsyncAPI document of the sockets, and the explorer', async () => {
    const page = await app.inject({ method: 'GET', url: '/docs' });
    for (const [url, type] of [['/openapi.json', 'openapi'], ['/asyncapi.json', 'asyncapi']] as const) {
      expect(page.body).toContain(`href="${url}"`);
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(JSON.parse(res.body)[type], url).toMatch(/^3\./);
    }
  });

  it('serves every asset the page references, byte for byte the swagger-ui-dist file', async () => {
    const page = await app.inject({ method: 'GET', url: '/docs' });
    const types: Record<string, string> = { css: 'text/css; charset=utf-8', js: 'application/javascript; charset=utf-8', png: 'image/png' };
    for (const url of references(page.body).filter((u) => u.startsWith('/docs/'))) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toBe(types[url.split('.').pop()!]);
      expect(res.headers['content-encoding'], url).toBeUndefined();
      expect(res.rawPayload.equals(readFileSync(path.join(distDir, path.basename(url)))), url).toBe(true);
    }
  });

  it('gzips the bundle for a client that takes gzip', async () => {
    const res = await app.inject({ method: 'GET', url: '/docs/swagger-ui-bundle.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    const file = readFileSync(path.join(distDir, 'swagger-ui-bundle.js'));
    expect(res.rawPayload.length).toBeLessThan(file.length / 2);
    expect(gunzipSync(res.rawPayload).equals(file)).toBe(true);
  });

  it('the document the page names is the OpenAPI document', async () => {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = JSON.parse(res.body) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/tokens');
  });

  it('an unknown file under /docs is a 404, not a file of the server', async () => {
    const res = await app.inject({ method: 'GET', url: '/docs/..%2Fpackage.json' });
    expect(res.statusCode).toBe(404);
  });
});

describe('acceptsGzip', () => {
  it.each([
    ['gzip', true],
    ['gzip, deflate, br', true],
    ['zstd, gzip;q=0.5', true],
    ['*', true],
    ['gzip;q=0', false],
    ['br, deflate', false],
    ['identity', false],
    ['', false],
  ])('%j -> %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });

  it('no header -> false', () => {
    expect(acceptsGzip(undefined)).toBe(false);
  });
});
