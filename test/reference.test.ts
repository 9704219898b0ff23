// The api's face, on a server over the realnet (`npm start`'s chain): one API reference (/openapi.json lists every
// HTTP path, /route with every parameter, its quote schema and its plain-text errors; /asyncapi.json the sockets),
// the 404 shape of any unknown path, /metrics's indexer and socket figures, and GET /indexer.
import type { FastifyInstance } from 'fastify';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../api/server.ts';
import type { Health } from '../api/health.ts';
import type { ReadsStatus, ReplicaStatus } from '../api/replicas.ts';
import { METHODS } from '../api/tokens/registry.ts';
import { DEX_IDS } from '../dexes/index.ts';
import { ingest } from '../indexer/pipeline.ts';
import { createMigratedDb } from './harness/db.ts';
import { realnet } from './harness/realnet.ts';

type Json = Record<string, any>;
const never = new AbortController().signal;
const SEED = 'reference';
const db = await createMigratedDb();
let app: FastifyInstance;
let base: string;

const ingestTo = (to: number) => ingest({ db, source: realnet(SEED), to, signal: never, workers: 0 });

beforeAll(async () => {
  await ingestTo(150);
  app = await buildServer({ db, logLevel: 'silent' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await app?.close();
});

const document = async (url: string): Promise<Json> => (await fetch(`${base}${url}`)).json() as Promise<Json>;

/** Polls `read` until `done` holds of its value (the server hears notifications on its own schedule). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('/openapi.json', () => {
  it('lists every HTTP path: the token-data methods, /route, /health, /metrics and /indexer', async () => {
    const doc = await document('/openapi.json');
    const paths = Object.keys(doc.paths).sort();
    expect(paths).toEqual([...METHODS.flatMap((m) => (m.path ? [m.path] : [])), '/route', '/health', '/metrics', '/indexer'].sort());
    for (const path of paths) {
      const res = await fetch(`${base}${path}`);
      // Each answers (a method without its required parameters says so), none is the 404 of an unknown path.
      expect(res.status, path).not.toBe(404);
    }
  });

  it('documents /route: every parameter, required or not, whose examples make a query answered with quotes of the documented schema', async () => {
    const doc = await document('/openapi.json');
    const route = doc.paths['/route'].get;
    const parameters: Json[] = route.parameters;
    expect(parameters.map((p) => p.name)).toEqual([
      'token_in', 'token_out', 'amount_in', 'amount_out', 'max_wait_ms', 'slippage_type', 'slippage', 'min_slippage', 'max_slippage',
      'trader_account_id', 'referrer_id', 'dexes', 'signing_public_key',
    ]);
    const required = parameters.filter((p) => p.required).map((p) => p.name);
    expect(required).toEqual(['token_in', 'token_out', 'max_wait_ms', 'slippage_type']);
    expect(parameters.find((p) => p.name === 'dexes')!.schema.items.enum).toEqual(DEX_IDS);

    const examples = Object.fromEntries(parameters.filter((p) => p.example !== undefined).map((p) => [p.name, String(p.example)]));
    const query = new URLSearchParams(examples);
    const res = await fetch(`${base}/route?${query}`);
    expect(res.status).toBe(200);
    // The documented header names the height the quotes were computed at.
    expect(Object.keys(route.responses['200'].headers)).toEqual(['X-Dexlake-Height']);
    expect(res.headers.get('x-dexlake-height')).toMatch(/^\d+$/);
    const quotes = (await res.json()) as Json[];
    expect(quotes.length).toBeGreaterThan(0);
    const schema = doc.components.schemas.Quote;
    for (const quote of quotes) {
      expect(Object.keys(quote)).toEqual(schema.required);
      expect(schema.properties.dex_id.enum).toContain(quote.dex_id);
    }
    // Each required parameter, left out, is the documented `Missing parameter` line.
    for (const name of required) {
      const without = new URLSearchParams(examples);
      without.delete(name);
      const missing = await fetch(`${base}/route?${without}`);
      expect(missing.status, name).toBe(400);
      expect(await missing.text(), name).toBe(`Missing parameter: ${name}`);
    }
  });

  it('documents every plain-text error /route answers', async () => {
    const doc = await document('/openapi.json');
    const documented: string = doc.paths['/route'].get.responses['400'].description;
    const lines = [...documented.matchAll(/^- `(.*)`$/gm)].map((m) => m[1]!);
    const matches = (body: string) =>
      lines.some((line) => new RegExp(`^${line.split(/<name>|<value>/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+')}$`).test(body));
    const valid = 'token_in=near&token_out=usdt.tether-token.near&amount_in=1000&max_wait_ms=0&slippage_type=Fixed&slippage=0.01';
    const bad = [
      'token_in=Not+A+Token&token_out=near&amount_in=1&max_wait_ms=0&slippage_type=Fixed&slippage=0',
      'token_in=near&token_out=near&amount_in=1&max_wait_ms=0&slippage_type=Fixed&slippage=0',
      `${valid}&amount_out=5`,
      valid.replace('max_wait_ms=0', 'max_wait_ms=70000'),
      valid.replace('max_wait_ms=0', 'max_wait_ms=soon'),
      valid.replace('slippage_type=Fixed', 'slippage_type=Loose'),
      valid.replace('slippage=0.01', 'slippage=2'),
      valid.replace('amount_in=1000', 'amount_in=0'),
      `${valid}&dexes=`,
      `${valid}&dexes=AmmA,Nope`,
      `${valid}&trader_account_id=NOT%20VALID`,
      `${valid}&slippage=0.02`,
      'token_in=near&token_out=usdt.tether-token.near&amount_in=1&max_wait_ms=0&slippage_type=Auto&min_slippage=0.5&max_slippage=0.1',
    ];
    for (const q of bad) {
      const res = await fetch(`${base}/route?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.headers.get('content-type'), q).toMatch(/^text\/plain/);
      const body = await res.text();
      expect(matches(body), `${q} -> ${body}`).toBe(true);
    }
  });

  it('documents /health and /metrics, and links the sockets\' AsyncAPI document, which describes /ws and /route/subscribe', async () => {
    const doc = await document('/openapi.json');
    expect(doc.paths['/health'].get.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/Health');
    // A plain /health has the required fields; bulk_load and reads appear only in their situations (the bulk-load
    // and replica tests read them); the schema names the same fields as the types (tsc checks these lists).
    const health = doc.components.schemas.Health;
    expect(health.required).toEqual(Object.keys(await document('/health')));
    const fields: Record<keyof Health, true> = { db: true, reason: true, height: true, lag_seconds: true, route_height: true, bulk_load: true, reads: true };
    const readsFields: Record<keyof ReadsStatus, true> = { primary: true, notified: true, primary_reads: true, replicas: true };
    const replicaFields: Record<keyof ReplicaStatus, true> = { name: true, state: true, replay_lsn: true, lag_bytes: true, lag_blocks: true, reads: true };
    expect(Object.keys(health.properties)).toEqual(Object.keys(fields));
    expect(Object.keys(health.properties.reads.properties)).toEqual(Object.keys(readsFields));
    expect(Object.keys(health.properties.reads.properties.replicas.items.properties)).toEqual(Object.keys(replicaFields));
    expect(doc.paths['/metrics'].get.responses['200'].content).toHaveProperty('text/plain');
    expect(doc.info.description).toContain('/asyncapi.json');
    const asyncApi = await document('/asyncapi.json');
    expect(asyncApi.asyncapi).toBe('3.0.0');
    expect(Object.values<Json>(asyncApi.channels).map((c) => c.address).sort()).toEqual(['/route/subscribe', '/ws']);
    for (const method of METHODS) expect(asyncApi.channels.tokens.messages.request.payload.properties.method.enum).toContain(method.name);
  });
});

describe('an unknown path', () => {
  it('is a 404 unknown_method in the token API\'s error shape, however many segments it has', async () => {
    for (const [method, url] of [['GET', '/no/such/path'], ['GET', '/nope'], ['POST', '/a/b/c/d'], ['GET', '/assets/missing.js'], ['DELETE', '/route/x']]) {
      const res = await fetch(`${base}${url}`, { method });
      expect(res.status, url).toBe(404);
      expect(await res.json(), url).toEqual({ error: { code: 'unknown_method', message: `no method at ${method} ${url}` } });
    }
  });
});

/** A metric's value from Prometheus text (the line `name{labels} value`). */
function metric(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (line === undefined) throw new Error(`no ${name} in /metrics`);
  return Number(line.slice(name.length + 1));
}

function opened(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

describe('/metrics and /indexer', () => {
  it('report the indexed height, lag and blocks/s, the open sockets and subscriptions, and the cache hit rate', async () => {
    const metrics = async () => (await fetch(`${base}/metrics`)).text();
    let text = await metrics();
    expect(metric(text, 'dexlake_api_indexed_height')).toBe(150);
    // The realnet's chain time is 2026-01-01 onwards: the lag is now minus that.
    const head = await db.kysely.selectFrom('blocks').select('timestamp_ms').where('height', '=', 150).executeTakeFirstOrThrow();
    expect(metric(text, 'dexlake_api_lag_seconds')).toBeGreaterThanOrEqual(Math.floor((Date.now() - head.timestamp_ms) / 1000) - 60);
    expect(metric(text, 'dexlake_api_open_sockets{socket="/ws"}')).toBe(0);

    // Two sockets: a token subscription on /ws and a running route request on /route/subscribe.
    const ws = await opened(`${base.replace('http', 'ws')}/ws`);
    const routes = await opened(`${base.replace('http', 'ws')}/route/subscribe`);
    const subscribed = new Promise<void>((resolve) => ws.on('message', (data) => JSON.parse(String(data)).id === 1 && resolve()));
    ws.send(JSON.stringify({ id: 1, method: 'tokens.subscribe', params: { limit: 5 } }));
    const routed = new Promise<void>((resolve) => routes.once('message', () => resolve()));
    routes.send(JSON.stringify({ id: 7, query: 'token_in=near&token_out=usdt.tether-token.near&amount_in=1000000000000000000000000&max_wait_ms=0&slippage_type=Fixed&slippage=0.01' }));
    await Promise.all([subscribed, routed]);
    text = await metrics();
    expect(metric(text, 'dexlake_api_open_sockets{socket="/ws"}')).toBe(1);
    expect(metric(text, 'dexlake_api_open_sockets{socket="/route/subscribe"}')).toBe(1);
    expect(metric(text, 'dexlake_api_subscriptions{socket="/ws"}')).toBe(1);
    expect(metric(text, 'dexlake_api_subscriptions{socket="/route/subscribe"}')).toBe(1);

    // The same request twice: the second is a cache hit.
    const before = { hits: metric(text, 'dexlake_api_cache_hits_total'), misses: metric(text, 'dexlake_api_cache_misses_total') };
    await fetch(`${base}/tokens?limit=3&precision=4`);
    await fetch(`${base}/tokens?limit=3&precision=4`);
    text = await metrics();
    expect(metric(text, 'dexlake_api_cache_misses_total')).toBe(before.misses + 1);
    expect(metric(text, 'dexlake_api_cache_hits_total')).toBe(before.hits + 1);
    const ratio = metric(text, 'dexlake_api_cache_hit_ratio');
    expect(ratio).toBeCloseTo((before.hits + 1) / (before.hits + before.misses + 2), 6);

    // Blocks indexed while the api listens are blocks/s.
    expect(metric(text, 'dexlake_api_blocks_per_second')).toBe(0);
    await ingestTo(160);
    await ingestTo(170);
    text = await until(metrics, (t) => metric(t, 'dexlake_api_indexed_height') === 170 && metric(t, 'dexlake_api_blocks_per_second') > 0);
    expect(metric(text, 'dexlake_api_blocks_per_second')).toBeGreaterThan(0);

    ws.close();
    routes.close();
    await until(metrics, (t) => metric(t, 'dexlake_api_open_sockets{socket="/ws"}') === 0 && metric(t, 'dexlake_api_open_sockets{socket="/route/subscribe"}') === 0);
    text = await metrics();
    expect(metric(text, 'dexlake_api_subscriptions{socket="/ws"}')).toBe(0);
    expect(metric(text, 'dexlake_api_subscriptions{socket="/route/subscribe"}')).toBe(0);
  });

  it('GET /indexer: per DEX its pools, trades of the last 24 h and undecoded inputs, as the tables hold them', async () => {
    const status = (await document('/indexer')) as Json;
    const head = await db.kysely.selectFrom('blocks').select(['height', 'timestamp_ms']).orderBy('height', 'desc').limit(1).executeTakeFirstOrThrow();
    expect(status.height).toBe(head.height);
    expect(status.timestamp_millis).toBe(head.timestamp_ms);
    expect(status.lag_seconds).toBeGreaterThan(0);
    const pools = await db.kysely.selectFrom('pools').select(['dex', 'stale']).execute();
    const trades = await db.kysely.selectFrom('trades').select('dex').execute();
    const undecoded = await db.kysely.selectFrom('undecoded_totals').selectAll().execute();
    expect(undecoded.length).toBeGreaterThan(0);
    const decoders = [...new Set([...DEX_IDS, ...undecoded.map((u) => u.dex)])];
    expect(status.dexes.map((d: Json) => d.dex).sort()).toEqual(decoders.sort());
    for (const dex of decoders) {
      expect(status.dexes.find((d: Json) => d.dex === dex), dex).toEqual({
        dex,
        pools: pools.filter((p) => p.dex === dex).length,
        stale_pools: pools.filter((p) => p.dex === dex && p.stale).length,
        // The realnet's 170 blocks are all within 24 h of its head.
        trades_24h: trades.filter((t) => t.dex === dex).length,
        undecoded: undecoded.filter((u) => u.dex === dex).reduce((n, u) => n + Number(u.count), 0),
      });
    }
    expect(status.dexes.find((d: Json) => d.dex === 'AmmA').trades_24h).toBeGreaterThan(0);
  });
});
