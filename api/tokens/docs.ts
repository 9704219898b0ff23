// Swagger UI at /docs over /openapi.json, under links to it, to /asyncapi.json (the sockets) and to the explorer;
// served from the files of `swagger-ui-dist`, offline: no CDN, and the online spec validator badge is off (`validatorUrl: null`). swagger-ui-dist is pinned at 5.17.14, the last release
// without the @scarf/scarf dependency, whose postinstall reports each install to a remote server.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';

export const DOCS_PATH = '/docs';

/** The files of swagger-ui-dist that the page loads, with their content types. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** The page: swagger-ui's standalone layout over `specUrl`; assets are relative to `/docs/`. */
export function docsHtml(specUrl: string): string {
  const config = { url: specUrl, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null, layout: 'StandaloneLayout' };
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>dexlake: API reference</title>
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
<style>nav.dexlake{font:14px/1.5 sans-serif;padding:8px 20px;background:#1b1b1b;color:#fff}nav.dexlake a{color:#9cf;margin-right:16px}</style>
</head>
<body>
<nav class="dexlake" aria-label="dexlake">dexlake API reference:
<a href="${specUrl}">OpenAPI document (every HTTP path)</a>
<a href="/asyncapi.json">AsyncAPI document (the sockets /ws and /route/subscribe)</a>
<a href="/">explorer</a></nav>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/swagger-ui-standalone-preset.js"></script>
<script>
window.ui = SwaggerUIBundle(Object.assign(${JSON.stringify(config)}, {
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
}));
</script>
</body>
</html>
`;
}

/** Whether an Accept-Encoding header takes gzip (named or `*`, with a q above 0). */
export function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [name, ...options] = part.trim().toLowerCase().split(';').map((s) => s.trim());
    const q = options.find((o) => o.startsWith('q='));
    return (name === 'gzip' || name === '*') && (q === undefined || Number(q.slice(2)) > 0);
  });
}

interface Asset {
  type: string;
  raw: Buffer;
  /** Made on the first request that accepts gzip (the bundle is 1.5 MB raw, about 0.4 MB gzipped). */
  gzip?: Buffer;
}

export function docsRoutes(app: FastifyInstance, specUrl: string): void {
  const distDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const loaded = new Map<string, Promise<Asset>>();
  const load = (name: string, type: string) => {
    let asset = loaded.get(name);
    if (!asset) {
      asset = readFile(path.join(distDir, name)).then((raw) => ({ type, raw }));
      // A failed read is tried again on the next request.
      asset.catch(() => loaded.delete(name));
      loaded.set(name, asset);
    }
    return asset;
  };

  const html = docsHtml(specUrl);
  app.get(DOCS_PATH, (_request, reply) => reply.type('text/html; charset=utf-8').header('cache-control', 'public, max-age=3600').send(html));
  for (const [name, type] of Object.entries(ASSETS)) {
    app.get(`${DOCS_PATH}/${name}`, async (request, reply) => {
      const asset = await load(name, type);
      reply.type(asset.type).header('cache-control', 'public, max-age=86400').header('vary', 'Accept-Encoding');
      // Text assets go gzipped when the client takes gzip (every browser does; zstd is not worth a second copy).
      if (!type.startsWith('image/') && acceptsGzip(request.headers['accept-encoding'])) {
        asset.gzip ??= gzipSync(asset.raw);
        return reply.header('content-encoding', 'gzip').send(asset.gzip);
      }
      return reply.send(asset.raw);
    });
  }
}
