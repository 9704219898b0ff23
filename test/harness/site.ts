// The explorer over seeded chain data: a database filled by ingesting the realnet `npm start` runs (the real
// pipeline; a database from `indexedRealnetDb` already holds it), the real api serving it and the built explorer
// (web/dist, `npm run build:web`), listening on a free port.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { EXPLORER_DIST } from '../../api/explorer.ts';
import { buildServer } from '../../api/server.ts';
import type { Db } from '../../db/connect.ts';
import { ingest } from '../../indexer/pipeline.ts';
import { realnet } from './realnet.ts';

const never = new AbortController().signal;

export interface Site {
  url: string;
  app: FastifyInstance;
  /** Opens `hash` in `page` afresh (a hash alone would keep the page shown). */
  open(page: Page, hash: string): Promise<void>;
  /** An api answer of the site, as JSON. */
  api(path: string): Promise<Record<string, any>>;
  /** Indexes the chain up to `height` while the site runs (the api hears it as it hears the indexer). */
  ingestTo(height: number): Promise<void>;
  close(): Promise<void>;
}

export async function startSite(db: Db, seed: string, height: number): Promise<Site> {
  if (!existsSync(path.join(EXPLORER_DIST, 'index.html'))) throw new Error('the explorer is not built: npm run build:web');
  let app: FastifyInstance | undefined;
  const ingestTo = async (to: number) => {
    await ingest({ db, source: realnet(seed), to, signal: never, workers: 0 });
    // The api hears of the new blocks by NOTIFY, a moment after they commit (until then it answers from its caches):
    // wait until its routing graph, the last to apply a notification, stands at the new head.
    for (let tries = 0; app !== undefined && tries < 400; tries++) {
      const health = JSON.parse((await app.inject({ url: '/health' })).body) as { route_height: number | null };
      if (health.route_height === to) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    if (app !== undefined) throw new Error(`the api did not reach height ${to}`);
  };
  await ingestTo(height);
  app = await buildServer({ db, logLevel: 'silent' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  const open = async (page: Page, hash: string) => {
    await page.goto('about:blank');
    await page.goto(`${url}/${hash}`);
  };
  const api = async (p: string) => (await fetch(`${url}${p}`)).json() as Promise<Record<string, any>>;
  return { url, app, open, api, ingestTo, close: () => app.close() };
}
