// The explorer at `/`: the static page `npm run build:web` builds into web/dist (Vite; `npm install` runs it through
// `prepare`), served from memory. index.html is revalidated on each visit; the hashed files under /assets/ are kept a
// year, and text goes gzipped to clients that take it. Nothing comes from another host.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { acceptsGzip } from './tokens/docs.ts';

export const EXPLORER_DIST = fileURLToPath(new URL('../web/dist/', import.meta.url));

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

interface Asset {
  type: string;
  raw: Buffer;
  gzip: Buffer | null;
}

async function load(file: string): Promise<Asset> {
  const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
  const raw = await readFile(file);
  const compressible = type.startsWith('text/') || type === 'image/svg+xml';
  return { type, raw, gzip: compressible && raw.length > 1024 ? gzipSync(raw) : null };
}

const NOT_BUILT = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>dexlake</title></head>
<body><h1>dexlake</h1><p>The explorer is not built: run <code>npm run build:web</code> (npm install does it).</p>
<p><a href="/docs">API reference</a></p></body></html>
`;

/** Serves `/` and `/assets/*` from `dist` (default web/dist), read once at start. */
export async function explorerRoutes(app: FastifyInstance, dist = EXPLORER_DIST): Promise<void> {
  let index: Asset | undefined;
  const assets = new Map<string, Asset>();
  try {
    index = await load(path.join(dist, 'index.html'));
    for (const name of await readdir(path.join(dist, 'assets'))) assets.set(name, await load(path.join(dist, 'assets', name)));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }

  const send = (request: FastifyRequest, reply: FastifyReply, asset: Asset, cacheControl: string) => {
    reply.type(asset.type).header('cache-control', cacheControl).header('vary', 'Accept-Encoding');
    if (asset.gzip !== null && acceptsGzip(request.headers['accept-encoding'])) return reply.header('content-encoding', 'gzip').send(asset.gzip);
    return reply.send(asset.raw);
  };

  app.get('/', (request, reply) => {
    if (index === undefined) return reply.code(503).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT);
    return send(request, reply, index, 'no-cache');
  });
  app.get('/assets/:name', (request, reply) => {
    const asset = assets.get((request.params as { name: string }).name);
    // Not found: the server's 404 (server.ts).
    if (asset === undefined) return reply.callNotFound();
    return send(request, reply, asset, 'public, max-age=31536000, immutable');
  });
}
