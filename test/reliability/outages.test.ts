// Outages (issue #7): PostgreSQL crashing under a serving api, a solver relay that is down or never answers, and a
// block source that errors, stalls or sends malformed JSON. Each is made to happen for real (a SIGKILLed
// PostgreSQL, closed ports, a local neardata server misbehaving on cue) against the real processes, over realnet
// blocks (its contracts' own wasm and the hosted models).
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import WebSocket from 'ws';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../api/server.ts';
import { connect, type Db } from '../../db/connect.ts';
import { freePort, startEmbeddedPostgres, type EmbeddedPostgres } from '../../db/embedded.ts';
import { migrateToLatest } from '../../db/migrate.ts';
import { LISTENER_NAME } from '../../api/routing/graph.ts';
import { TOKEN_LISTENER_NAME } from '../../api/tokens/listen.ts';
import { ingest } from '../../indexer/pipeline.ts';
import { realnetMarket } from '../../devnet/realnet/wasm.ts';
import { realnetSource } from '../../indexer/sources/realnet.ts';
import { runDexlake, waitForOk, type Running } from '../harness/cli.ts';
import { createMigratedDb, tableChecksums } from '../harness/db.ts';
import { SocketClient, type Message } from '../tokens/harness.ts';

const SEED = 'outages';
const USDT = 'usdt.tether-token.near';
const WRAP = 'wrap.near';
const ONE_NEAR = (10n ** 24n).toString();
/** What "answers quickly" means here: well above an answer's normal time on a busy 2-core machine, far below a hang. */
const QUICK_MS = 5_000;
/** A hang guard, not a measurement: how long a wait may last before the test fails naming what never came. How fast
 * the api resumes and abandons a relay is measured by `npm run bench:outages`. */
const HANG_MS = 60_000;
/** How long PostgreSQL stays down: past the listeners' backoff ceilings and pg-listen's own 5 s of retrying. */
const OUTAGE_MS = 8_000;

const never = new AbortController().signal;
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => {});
});

/** A GET or POST that must answer within QUICK_MS: a hang fails with the path in the message. */
async function quick(url: string, init: RequestInit = {}): Promise<{ status: number; body: string; type: string; ms: number }> {
  const started = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(QUICK_MS) });
    const body = await res.text();
    return { status: res.status, body, type: res.headers.get('content-type') ?? '', ms: Math.round(performance.now() - started) };
  } catch (err) {
    throw new Error(`${init.method ?? 'GET'} ${url}: no answer within ${QUICK_MS} ms (${(err as Error).message})`);
  }
}

/** Resolves with `promise`, or fails naming `what` after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms)));
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** A /route/subscribe client: every `{id, routes}` message it gets, in order. */
class RouteSubscriber {
  readonly messages: Message[] = [];
  private waiters: (() => void)[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.messages.push(JSON.parse(data.toString()) as Message);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static async open(url: string, query: string): Promise<RouteSubscriber> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject));
    const subscriber = new RouteSubscriber(ws);
    ws.send(JSON.stringify({ id: 1, query }));
    return subscriber;
  }

  /** Waits until `count` messages have arrived. */
  async waitFor(count: number, ms: number, what: string): Promise<Message> {
    while (this.messages.length < count) await within(new Promise<void>((resolve) => this.waiters.push(resolve)), ms, what);
    return this.messages[count - 1]!;
  }
}

/** The api's two LISTEN sessions (routing and token pushes), by their application names. */
async function listeningSessions(db: Db): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where application_name = any($1)`, [
    [LISTENER_NAME, TOKEN_LISTENER_NAME],
  ]);
  return rows[0]!.n;
}

describe('PostgreSQL down while the api serves', () => {
  it('answers quickly, reports db down, and resumes (LISTEN included) once PostgreSQL is back', async () => {
    // Directly in the temp dir: as root the server runs as `postgres`, which cannot enter a 0700 mkdtemp folder.
    const home = path.join(tmpdir(), `dexlake-outage-${randomBytes(6).toString('hex')}`);
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const dir = path.join(home, 'pg');
    const pgPort = await freePort();
    let pg: EmbeddedPostgres = await startEmbeddedPostgres({ dir, port: pgPort });
    cleanups.push(() => pg.stop());
    expect(pg.port).toBe(pgPort);

    const writer = connect(pg.url);
    cleanups.push(() => writer.close());
    await migrateToLatest(writer.kysely);
    let height = 120;
    await ingest({ db: writer, source: realnetSource({ seed: SEED, speed: 0 }), to: height, signal: never, workers: 0 });

    const apiPort = await freePort();
    const relayPort = await freePort(); // nothing listens there: QuoteA is simply absent
    const api: Running = runDexlake(['serve'], {
      DATABASE_URL: pg.url,
      PORT: String(apiPort),
      LOG_LEVEL: 'warn',
      QUOTE_RELAY_URL: `http://127.0.0.1:${relayPort}`,
      // No indexer runs: the height stays at 120 on purpose, which is no stall of a source.
      DEXLAKE_STALL_SECONDS: '0',
    });
    cleanups.push(async () => {
      if (api.child.exitCode === null && api.child.signalCode === null) api.child.kill('SIGTERM');
      await api.exited;
    });
    const base = `http://127.0.0.1:${apiPort}`;
    await waitForOk(`${base}/health`, api);

    const routeQuery = `token_in=near&token_out=${USDT}&amount_in=${ONE_NEAR}&max_wait_ms=500&slippage_type=Fixed&slippage=0.005`;
    const traderQuery = `${routeQuery}&trader_account_id=newcomer.near`;
    const routeBefore = await quick(`${base}/route?${routeQuery}`);
    expect(routeBefore.status).toBe(200);
    expect(JSON.parse(routeBefore.body).length).toBeGreaterThan(0);

    // Subscriptions made before the outage, expected to live through it.
    const socket = await SocketClient.open(`ws://127.0.0.1:${apiPort}/ws`);
    cleanups.push(() => socket.close());
    expect((await socket.next()).hello).toBeDefined();
    const subscribed = await socket.request('tokens.subscribe', { fields: ['price_usd', 'price_height'], sort: { by: 'price_height', desc: true }, limit: 5 }, 1);
    expect(subscribed.result.height).toBe(height);
    const routes = await RouteSubscriber.open(`ws://127.0.0.1:${apiPort}/route/subscribe`, routeQuery);
    cleanups.push(() => routes.ws.close());
    const firstRoutes = await routes.waitFor(1, QUICK_MS, 'the first routes');
    expect(firstRoutes.routes).toEqual(JSON.parse(routeBefore.body));

    // The crash: the postmaster and every backend, at once (its own process group).
    process.kill(-pg.pid, 'SIGKILL');
    await pg.stop(); // returns once the postmaster is gone
    const downSince = performance.now();

    const health = await quick(`${base}/health`);
    console.log(`db down: /health ${health.status} in ${health.ms} ms`);
    expect(health.status).toBe(503);
    expect(JSON.parse(health.body)).toMatchObject({ db: 'down' });

    // Routes from the in-memory pool graph: the same answer as before the crash (the pools have not changed).
    const route = await quick(`${base}/route?${routeQuery}`);
    console.log(`db down: /route ${route.status} in ${route.ms} ms`);
    expect(route.status).toBe(200);
    expect(route.body).toBe(routeBefore.body);
    // A trader's route needs their storage registrations, and Auto slippage the pools' recent history: only the
    // database has them. 503, saying so, and nothing about the server's address.
    for (const [what, query] of [['a trader', traderQuery], ['Auto slippage', routeQuery.replace('slippage_type=Fixed&slippage=0.005', 'slippage_type=Auto&min_slippage=0.001&max_slippage=0.05')]]) {
      const answer = await quick(`${base}/route?${query}`);
      console.log(`db down: /route with ${what} ${answer.status} in ${answer.ms} ms: ${answer.body}`);
      expect(answer.status, what).toBe(503);
      expect(answer.body, what).toBe('The database is unavailable; try again shortly'); // plain text, like every /route error
      expect(answer.body, what).not.toMatch(/ECONN|127\.0\.0\.1|\d{4,5}/);
    }

    const internal = { error: { code: 'internal', message: 'internal error' } };
    for (const [what, url, init] of [
      ['/tokens', `${base}/tokens?fields=symbol,price_usd&limit=3`, {}],
      ['/trades', `${base}/trades?limit=3`, {}],
      ['/candles', `${base}/candles?token=${WRAP}&resolution=1m&count_back=5`, {}],
      ['POST /holders', `${base}/holders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: WRAP, limit: 3 }) }],
    ] as const) {
      const answer = await quick(url, init);
      console.log(`db down: ${what} ${answer.status} in ${answer.ms} ms`);
      expect(answer.status, what).toBe(500);
      expect(JSON.parse(answer.body), what).toEqual(internal);
    }
    const socketAnswer = await within(socket.request('tokens.get', { fields: ['symbol'], limit: 2 }, 2), QUICK_MS, '/ws tokens.get');
    expect(socketAnswer).toEqual({ id: 2, ...internal });
    // A new socket: its hello comes, and its requests get the same error.
    const lateSocket = await SocketClient.open(`ws://127.0.0.1:${apiPort}/ws`);
    cleanups.push(() => lateSocket.close());
    expect((await within(lateSocket.next(), QUICK_MS, 'hello during the outage')).hello).toBeDefined();
    expect(await within(lateSocket.request('trades.query', { limit: 1 }, 7), QUICK_MS, '/ws trades.query')).toEqual({ id: 7, ...internal });
    // A longer outage than the listeners' first reconnect attempts (pg-listen gives up after 5 s and is reopened):
    // the api must still answer the same way at its end.
    await delay(Math.max(0, OUTAGE_MS - (performance.now() - downSince)));
    expect((await quick(`${base}/health`)).status).toBe(503);
    expect((await quick(`${base}/route?${routeQuery}`)).body).toBe(routeBefore.body);
    expect((await quick(`${base}/trades?limit=2`)).status).toBe(500);
    console.log(`PostgreSQL down for ${Math.round(performance.now() - downSince)} ms`);
    expect(api.child.exitCode).toBeNull();

    // PostgreSQL again, on the same port and data dir (crash recovery replays its WAL).
    pg = await startEmbeddedPostgres({ dir, port: pgPort });
    expect(pg.port).toBe(pgPort);
    // The api resumes by itself: /health and /tokens answer 200 again, read from the database (this /tokens was never
    // answered before, so no cache holds it).
    const tokensUrl = `${base}/tokens?ids=${WRAP},${USDT}&fields=symbol&sort=account_id`;
    const upAt = performance.now();
    let [h, tokens] = [await quick(`${base}/health`), await quick(tokensUrl)];
    while ((h.status !== 200 || tokens.status !== 200) && performance.now() - upAt < HANG_MS) {
      await delay(100);
      [h, tokens] = [await quick(`${base}/health`), await quick(tokensUrl)];
    }
    expect(h.status, `/health after PostgreSQL came back: ${h.body}`).toBe(200);
    expect(JSON.parse(h.body)).toMatchObject({ db: 'ok', height });
    expect(tokens.status, `/tokens after PostgreSQL came back: ${tokens.body}`).toBe(200);
    // The symbols the token contracts' own ft_metadata gives on the chain at that height.
    const chain = chainAt(SEED, height);
    const symbol = (id: string) => chain.view<{ symbol: string }>(id, 'ft_metadata').symbol;
    expect(JSON.parse(tokens.body)).toMatchObject({ height, rows: [[USDT, symbol(USDT)], [WRAP, symbol(WRAP)]] });
    expect((await quick(`${base}/route?${traderQuery}`)).status).toBe(200);

    // LISTEN again: wait for the api's two listeners, then commit new blocks.
    const admin = connect(pg.url);
    cleanups.push(() => admin.close());
    const listenDeadline = performance.now() + HANG_MS;
    while ((await listeningSessions(admin)) < 2 && performance.now() < listenDeadline) await delay(100);
    expect(await listeningSessions(admin)).toBeGreaterThanOrEqual(2);

    const routeMessages = routes.messages.length;
    socket.drainQueued();
    height += 30;
    await ingest({ db: admin, source: realnetSource({ seed: SEED, speed: 0 }), to: height, signal: never, workers: 0 });
    const push = await within(socket.next(), 15_000, 'a /ws push after the restart');
    expect(push).toMatchObject({ sub: 1 });
    expect(push.height).toBeGreaterThan(120);
    // Routes pushed as the new pools give them: the last push is what GET /route answers now, and differs from before.
    // The routing graph hears the blocks on its own connection, in no order with the /ws push: wait for it too.
    let routeNow = await quick(`${base}/route?${routeQuery}`);
    const routeDeadline = performance.now() + 15_000;
    while (routeNow.body === routeBefore.body && performance.now() < routeDeadline) {
      await delay(100);
      routeNow = await quick(`${base}/route?${routeQuery}`);
    }
    expect(routeNow.body).not.toBe(routeBefore.body);
    await routes.waitFor(routeMessages + 1, 15_000, 'a /route/subscribe push after the restart');
    const pushDeadline = performance.now() + 15_000;
    while (JSON.stringify(routes.messages.at(-1)!.routes) !== routeNow.body && performance.now() < pushDeadline) await delay(100);
    expect(routes.messages.at(-1)!.routes).toEqual(JSON.parse(routeNow.body));
    expect(api.child.exitCode).toBeNull();
  });
});

/** A relay that accepts connections and reads requests but never answers them; `aborted` resolves once the asker
 * has closed a request unanswered (it gave up on it). */
async function silentRelay(): Promise<{ url: string; requests: () => number; aborted: Promise<void>; close(): Promise<void> }> {
  let requests = 0;
  let onAbort: () => void = () => {};
  const aborted = new Promise<void>((resolve) => (onAbort = resolve));
  const server = createServer((req, res) => {
    requests++;
    res.on('close', () => {
      if (!res.writableEnded) onAbort();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    aborted,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// test/routing/quote-a.test.ts proves a relay slower than max_wait_ms (it answers later): the answer comes without
// QuoteA. Here: a relay that is down (connection refused) and one that accepts and never answers.
describe('solver relay down or silent', () => {
  it('QuoteA is missing, every other quote is as without QuoteA, and a silent relay is given up on', async () => {
    const db = await createMigratedDb();
    await ingest({ db, source: realnetSource({ seed: SEED, speed: 0 }), to: 120, signal: never, workers: 0 });
    const downPort = await freePort(); // nothing listens: refused at once
    const silent = await silentRelay();
    cleanups.push(() => silent.close());
    const apps: FastifyInstance[] = [];
    cleanups.push(async () => {
      for (const app of apps) await app.close();
    });
    const serve = async (quoteRelayUrl: string | null) => {
      const app = await buildServer({ db, logLevel: 'silent', quoteRelayUrl });
      await app.ready();
      apps.push(app);
      return app;
    };
    const [withoutRelay, down, silentApp] = [await serve(null), await serve(`http://127.0.0.1:${downPort}`), await serve(silent.url)];
    const WAIT_MS = 1_500;
    // QuoteA asks the relay only for a trader (the signer of its intents).
    const url = `/route?token_in=near&token_out=${USDT}&amount_in=${ONE_NEAR}&max_wait_ms=${WAIT_MS}&slippage_type=Fixed&slippage=0.005&trader_account_id=newcomer.near`;
    const expected = await withoutRelay.inject(url);
    expect(expected.statusCode).toBe(200);
    const dexes = (JSON.parse(expected.body) as { dex_id: string }[]).map((q) => q.dex_id);
    expect(dexes.length).toBeGreaterThan(0);
    expect(dexes).not.toContain('QuoteA');

    const refused = await down.inject(url);
    expect(refused.statusCode).toBe(200);
    expect(refused.body).toBe(expected.body);

    // The relay never answers: the api answers anyway, without its quote, and aborts the request it gave up on
    // (how long it waited is bench:outages' figure).
    const unanswered = await within(silentApp.inject(url), HANG_MS, 'the answer with a silent relay');
    expect(unanswered.statusCode).toBe(200);
    expect(unanswered.body).toBe(expected.body);
    expect(silent.requests(), 'QuoteA asked the relay').toBe(1);
    await within(silent.aborted, HANG_MS, 'the api to abort its request to the silent relay');
  });
});

/** The realnet's chain (as realnetSource makes it) after its first `count` blocks. */
function chainAt(seed: string, count: number) {
  const market = realnetMarket(undefined, { seed, history: false, models: true });
  for (let i = 0; i < count; i++) market.next();
  return market.chain;
}

/** The realnet's first `count` blocks (as realnetSource makes them) as neardata serves them: the combined message's
 * JSON text per height. */
function realnetTexts(seed: string, count: number): Map<number, string> {
  const market = realnetMarket(undefined, { seed, history: false, models: true });
  const texts = new Map<number, string>();
  for (let i = 0; i < count; i++) {
    const message = market.next();
    texts.set((message.block as { header: { height: number } }).header.height, JSON.stringify(message));
  }
  return texts;
}

type Trouble = 'none' | 'http_500' | 'stall' | 'malformed';

/** neardata's protocol over the realnet blocks (head by 302, blocks by height), misbehaving as `trouble` says. */
class UnreliableNeardata {
  head = 0;
  trouble: Trouble = 'none';
  /** Heights answered with their block, in order (a height answered twice means it was asked twice). */
  readonly served: number[] = [];
  failed500 = 0;
  stalled = 0;
  malformed = 0;
  private readonly server: Server;
  url = '';

  constructor(readonly texts: Map<number, string>) {
    this.server = createServer((req, res) => this.answer(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const height = Number(/^\/v0\/block\/(\d+)$/.exec(req.url ?? '')?.[1] ?? NaN);
    const isHead = req.url === '/v0/last_block/final';
    if (!isHead && !this.texts.has(height)) return void res.writeHead(404).end();
    if (this.trouble === 'http_500') {
      this.failed500++;
      return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"failing on purpose"}');
    }
    if (this.trouble === 'stall') {
      this.stalled++;
      return; // accepted, never answered
    }
    if (isHead) return void res.writeHead(302, { location: `/v0/block/${this.head}` }).end();
    if (height > this.head) return void res.writeHead(404).end('{"type":"BLOCK_DOES_NOT_EXIST"}');
    const text = this.texts.get(height)!;
    if (this.trouble === 'malformed') {
      // Alternately a body cut in half (with a Content-Length that matches it) and a proxy's HTML page.
      const body = this.malformed++ % 2 === 0 ? text.slice(0, text.length >> 1) : '<html><body>502 Bad Gateway</body></html>';
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    }
    this.served.push(height);
    res.writeHead(200, { 'content-type': 'application/json' }).end(text);
  }
}

interface IndexerHealth {
  ok: boolean;
  height: number | null;
  source: { status: 'ok' | 'retrying'; retries: number; errors: Record<string, number>; last_error: string | null; since: string | null };
}

/** One counter sample of Prometheus text, or 0 when absent. */
function metric(text: string, sample: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? 0 : Number(line.slice(sample.length + 1));
}

describe('a block source that errors, stalls or sends malformed JSON', () => {
  it('the indexer retries, reports it on its status port, and ends with the tables of a clean run', async () => {
    const SOURCE_SEED = 'outage-source';
    const LAST = 60;
    const texts = realnetTexts(SOURCE_SEED, LAST);
    const neardata = await new UnreliableNeardata(texts).start();
    cleanups.push(() => neardata.stop());
    neardata.head = 20;

    const db = await createMigratedDb();
    const statusPort = await freePort();
    const indexer = runDexlake(['index', '--source', `neardata:${neardata.url}`, '--from', '1', '--to', String(LAST), '--indexer-port', String(statusPort)], {
      DATABASE_URL: db.url,
      LOG_LEVEL: 'warn',
    });
    cleanups.push(async () => {
      if (indexer.child.exitCode === null && indexer.child.signalCode === null) indexer.child.kill('SIGTERM');
      await indexer.exited;
    });
    const status = `http://127.0.0.1:${statusPort}`;
    await waitForOk(`${status}/health`, indexer);
    const health = async () => JSON.parse((await quick(`${status}/health`)).body) as IndexerHealth;
    const metrics = async () => (await quick(`${status}/metrics`)).body;
    /** Polls /health until `check` holds (60 s at most: a stall takes the source's 10 s idle timeout). */
    const waitHealth = async (what: string, check: (h: IndexerHealth) => boolean): Promise<IndexerHealth> => {
      const deadline = performance.now() + 60_000;
      for (;;) {
        const h = await health();
        if (check(h)) return h;
        if (indexer.child.exitCode !== null) throw new Error(`the indexer exited while waiting for ${what}:\n${indexer.output()}`);
        if (performance.now() > deadline) throw new Error(`${what}: not seen in 60 s; last /health ${JSON.stringify(h)}`);
        await delay(100);
      }
    };
    const indexed = async () => {
      const { rows } = await db.pool.query<{ n: number; max: number | null }>('select count(*)::int as n, max(height)::int as max from blocks');
      return rows[0]!;
    };

    let h = await waitHealth('blocks 1..20', (x) => x.height === 20);
    expect(h.source).toMatchObject({ status: 'ok', retries: 0, since: null });
    const troubleStarted = performance.now();

    // 1. Every request answers 500.
    neardata.trouble = 'http_500';
    neardata.head = 40;
    h = await waitHealth('http_500 retries', (x) => x.source.status === 'retrying' && (x.source.errors.http_5xx ?? 0) >= 2);
    expect(h.source.last_error).toMatch(/HTTP 500/);
    expect(h.source.since).not.toBeNull();
    let text = await metrics();
    expect(metric(text, 'dexlake_indexer_source_errors_total{kind="http_5xx"}')).toBeGreaterThanOrEqual(2);
    expect(metric(text, 'dexlake_indexer_source_retrying')).toBeGreaterThanOrEqual(1);
    expect(neardata.failed500).toBeGreaterThanOrEqual(2);

    // 2. Requests are accepted and never answered: the source gives up on each after its idle timeout.
    neardata.trouble = 'stall';
    h = await waitHealth('a stalled request timed out', (x) => (x.source.errors.timeout ?? 0) >= 1);
    expect(h.source.status).toBe('retrying');
    expect(h.source.last_error).toMatch(/nothing received for/);
    expect(metric(await metrics(), 'dexlake_indexer_source_errors_total{kind="timeout"}')).toBeGreaterThanOrEqual(1);
    expect(neardata.stalled).toBeGreaterThanOrEqual(1);

    // 3. The head answers again, but blocks come truncated or as HTML.
    neardata.trouble = 'malformed';
    h = await waitHealth('malformed answers retried', (x) => (x.source.errors.malformed ?? 0) >= 2);
    expect(h.source.status).toBe('retrying');
    expect(h.source.last_error).toMatch(/not a JSON object/);
    text = await metrics();
    expect(metric(text, 'dexlake_indexer_source_errors_total{kind="malformed"}')).toBeGreaterThanOrEqual(2);
    // Nothing of the troubled heights was written: not a block, not an event.
    expect(await indexed()).toEqual({ n: 20, max: 20 });
    const { rows: events } = await db.pool.query<{ n: number }>('select count(*)::int as n from events where block_height > 20');
    expect(events[0]!.n).toBe(0);

    // 4. Recovery: the source catches up by itself and says it is fine again.
    neardata.trouble = 'none';
    h = await waitHealth('recovery to the head', (x) => x.height === 40 && x.source.status === 'ok');
    console.log(`source trouble for ${Math.round(performance.now() - troubleStarted)} ms: ${JSON.stringify(h.source)}`);
    expect(h.source.since).toBeNull();
    expect(h.source.retries).toBeGreaterThanOrEqual(5);
    expect(metric(await metrics(), 'dexlake_indexer_source_retrying')).toBe(0);

    neardata.head = LAST;
    expect(await within(indexer.exited, 60_000, 'the indexer to finish at --to')).toEqual({ code: 0, signal: null });

    // Every height once, none missing; every table as a clean run over the same blocks leaves it.
    expect(await indexed()).toEqual({ n: LAST, max: LAST });
    expect([...new Set(neardata.served)].sort((a, b) => a - b)).toEqual([...texts.keys()]);
    const clean = await createMigratedDb();
    await ingest({ db: clean, source: realnetSource({ seed: SOURCE_SEED, speed: 0 }), to: LAST, signal: never, workers: 0 });
    expect(await tableChecksums(db)).toEqual(await tableChecksums(clean));
  });
});
