// The soak (issue #7, "Load"): the real indexer (`dexlake index`, the realnet at 10 blocks/s) and the real api
// (`dexlake serve`) as separate processes on one database, under 500 `/ws` token subscribers, 500
// `/route/subscribe` subscribers and a steady HTTP mix, for SOAK_MS after a warm-up. It fails on any error answer,
// socket error or api warning, on api memory that grows (heap and RSS from the api's own /metrics), on indexer lag
// that grows, and on subscribers that do not end with the chain's last state once it stops (the api fell behind for
// good). Figures are printed for CI; no time is asserted (how soon the api catches up is `npm run bench:outages`'
// figure). About 6.3 minutes in all.
//
// Client side: one timer drives everything (HTTP dispatch, /health and /metrics samples, phase changes); socket
// messages are only classified by their first bytes and counted.
import pg from 'pg';
import WebSocket from 'ws';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../db/embedded.ts';
import { MAINNET_CONTRACTS } from '../../dexes/contracts.ts';
import { runDexlake, waitForOk, waitUntil, type Running } from '../harness/cli.ts';
import { createTestDatabase } from '../harness/db.ts';

/** Measured load after the warm-up (shorten only while developing). */
const SOAK_MS = 5 * 60_000;
/** Load after every subscriber is connected and before the measurement starts: JIT, caches and the heap settle
 * (connecting them already runs under the HTTP mix). */
const WARMUP_MS = 10_000;
/** The realnet's pace (it makes about 80 blocks/s on its own). */
const REALNET_SPEED = 10;
const SUBSCRIBERS_PER_SOCKET = 500;
/** The one timer: every tick sends REQUESTS_PER_TICK HTTP requests (100 ms x 3 = 30 requests/s). */
const TICK_MS = 100;
const REQUESTS_PER_TICK = 3;
/** /health and /metrics every 5 s. */
const SAMPLE_EVERY_TICKS = 50;
/** Sockets opened at once while connecting the subscribers (a ramp: each /ws subscribe is a database read, each
 * route subscription a routing round). */
const OPEN_BATCH = 10;

// Bounds (see the assertions).
const MiB = 1024 * 1024;
/** Heap: the minimum over the last minute may exceed the minimum over the first minute after warm-up by this. */
const HEAP_GROWTH = { ratio: 1.2, bytes: 20 * MiB };
/** RSS: the end figure may exceed the first figure after warm-up by this. */
const RSS_GROWTH = { ratio: 1.2, bytes: 40 * MiB };
/** Lag (blocks the realnet's schedule has produced minus blocks indexed) may grow by this many blocks (15 s of chain). */
const LAG_GROWTH_BLOCKS = 150;
/** A hang guard, not a measurement: how long the api may take to reach the chain's last state once it stops before
 * the test fails listing the subscribers still behind. */
const HANG_MS = 120_000;

const USDT = 'usdt.tether-token.near';
const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';
const REF = 'token.v2.ref-finance.near';
const SLIME = 'slime.tkn.near';
const WNEAR = MAINNET_CONTRACTS.Wrap;
const STNEAR = MAINNET_CONTRACTS.StakeA;
const LINEAR = MAINNET_CONTRACTS.StakeB;
const MIKO = 'miko.aidols.near';
const YOCTO = 10n ** 24n;

/** Tokens traded on the realnet: Ref's market (wNEAR, USDt, USDC, REF) and SLIME, AmmC's launch pool's (devnet/realnet/README.md).
 * Accounts: Ref's LP and two traders, a hosted models' wallet (trent) and Ref's exchange. */
const TRADED_TOKENS = [WNEAR, USDT, USDC, REF, SLIME];
const ACCOUNTS = ['alice.near', 'bob.near', 'carol.near', 'trent.near', MAINNET_CONTRACTS.AmmA];

/** /route and /route/subscribe queries: pairs over every routed DEX id, exact in and out, with and without a trader
 * (a trader brings QuoteA, asked from the indexer's solver relay). */
const ROUTE_QUERIES: string[] = (
  [
    { token_in: 'near', token_out: USDT, amount_in: String(1n * YOCTO) },
    { token_in: 'near', token_out: USDT, amount_in: String(250n * YOCTO), trader_account_id: 'alice.near' },
    { token_in: USDT, token_out: REF, amount_in: '5000000' },
    { token_in: USDC, token_out: WNEAR, amount_in: '100000000', dexes: 'AmmA,AmmDclA' },
    { token_in: 'near', token_out: STNEAR, amount_in: String(10n * YOCTO) },
    { token_in: 'near', token_out: LINEAR, amount_out: String(1n * YOCTO) },
    { token_in: WNEAR, token_out: 'near', amount_in: String(2n * YOCTO) },
    { token_in: 'near', token_out: MIKO, amount_in: String(YOCTO / 10n), trader_account_id: 'bob.near' },
    { token_in: REF, token_out: SLIME, amount_in: String(1000n * 10n ** 18n), slippage_type: 'Auto', min_slippage: '0.001', max_slippage: '0.05' },
    { token_in: USDT, token_out: 'near', amount_in: '20000000000', trader_account_id: 'carol.near' },
  ] as Record<string, string>[]
).map((params) => new URLSearchParams({ max_wait_ms: '500', ...(params.slippage_type ? {} : { slippage_type: 'Fixed', slippage: '0.005' }), ...params }).toString());

/** tokens.subscribe params: id lists, the top of the table, and thresholds. */
const TOKEN_SUBSCRIPTIONS: Record<string, unknown>[] = [
  { ids: ['near', USDT] },
  { ids: [WNEAR, REF, SLIME], fields: ['symbol', 'price_usd', 'liquidity_usd'] },
  { ids: [USDC], fields: ['price_usd', 'volume_usd_24h'] },
  { limit: 10, fields: ['symbol', 'price_usd', 'liquidity_usd'] },
  { ids: ['near', STNEAR, LINEAR], min_change: { price_usd: '0.1%' } },
  { where: { min_reputation: 'NotFake' }, sort: { by: 'volume_usd_24h', desc: true }, limit: 5 },
];

type HttpKind = 'route' | 'tokens' | 'trades' | 'candles' | 'holders' | 'balances' | 'POST tokens' | 'POST trades';

interface HttpRequest {
  kind: HttpKind;
  path: string;
  body?: unknown;
}

const at = <T,>(list: readonly T[], n: number): T => list[n % list.length]!;

/** The n-th request of the HTTP mix: a cycle of 10 slots, 3 of them /route (each ROUTE_QUERIES in turn). Token-data credits per cycle (credits.ts,
 * base + 1 per started 100 rows): tokens 1+1, trades 2+1, candles 2+1, holders 2+1, balances 2+1, POST tokens
 * 1+1, POST trades 2+1 = 19 for 7 requests; at 30 requests/s that is 3 cycles/s x 19 x 60 = 3,420 credits a
 * minute, under the 6,000 per client IP (LIMITS.credits_per_minute), so no valid request is rate limited. */
function httpRequest(n: number): HttpRequest {
  const round = Math.floor(n / 10);
  const token = at(TRADED_TOKENS, round);
  switch (n % 10) {
    case 0:
    case 4:
    case 8:
      return { kind: 'route', path: `/route?${at(ROUTE_QUERIES, round * 3 + (n % 10) / 4)}` };
    case 1:
      return round % 2
        ? { kind: 'tokens', path: '/tokens?fields=symbol,price_usd,liquidity_usd&sort=-liquidity_usd&limit=20' }
        : { kind: 'tokens', path: `/tokens?ids=near,${token}&fields=symbol,price_usd,price_change_24h,volume_usd_24h` };
    case 2:
      return { kind: 'trades', path: `/trades?token=${token}&limit=20` };
    case 3:
      return { kind: 'candles', path: `/candles?token=${token}&resolution=${round % 2 ? '1m' : '5m'}&count_back=60` };
    case 5:
      return { kind: 'holders', path: `/holders?token=${token}&limit=20` };
    case 6:
      return { kind: 'balances', path: `/balances?account_id=${at(ACCOUNTS, round)}` };
    case 7:
      return { kind: 'POST tokens', path: '/tokens', body: { ids: [token, 'near'], fields: ['symbol', 'price_usd', 'holders'] } };
    default:
      return { kind: 'POST trades', path: '/trades', body: { token, side: round % 2 ? 'buy' : 'sell', limit: 20 } };
  }
}

/** Counts of one socket kind. */
interface SocketTally {
  /** First answers (the subscribe reply on /ws, the first `{id, routes}` on /route/subscribe). */
  answered: number;
  pushes: number;
  pushesDuringSoak: number;
  /** Error replies, `end` messages, unexpected frames, socket errors, closes we did not ask for. */
  errors: string[];
}

interface Subscriber {
  ws: WebSocket;
  answered: boolean;
  pushesDuringSoak: number;
  /** Set before we close it: a close is then expected. */
  closing: boolean;
  /** Settles with the first answer, or with the first error before it. */
  ready: Promise<Subscriber>;
  settle: (error?: string) => void;
}

function newSubscriber(url: string, tally: SocketTally, name: string): Subscriber {
  let settle: (error?: string) => void = () => {};
  const ready = new Promise<Subscriber>((resolve, reject) => {
    settle = (error) => (error === undefined ? resolve(subscriber) : reject(new Error(error)));
  });
  const subscriber: Subscriber = { ws: new WebSocket(url), answered: false, pushesDuringSoak: 0, closing: false, ready, settle };
  const fail = (error: string) => {
    tally.errors.push(error);
    if (!subscriber.answered) subscriber.settle(error);
  };
  subscriber.ws.on('error', (err) => fail(`${name} socket error: ${err.message}`));
  subscriber.ws.on('close', (code) => {
    if (!subscriber.closing) fail(`${name} closed by the server: ${code}`);
  });
  return subscriber;
}

function answered(subscriber: Subscriber, tally: SocketTally): void {
  subscriber.answered = true;
  tally.answered++;
  subscriber.settle();
}

let measuring = false;

/** The text of `bytes` after the first comma (`{"id":1,` / `{"sub":3,`): which key comes second. */
function secondKey(bytes: Buffer, key: string): boolean {
  const comma = bytes.indexOf(44);
  return comma > 0 && bytes.toString('latin1', comma + 1, comma + 1 + key.length) === key;
}

function asBuffer(data: WebSocket.RawData): Buffer {
  return Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}

function shortText(bytes: Buffer): string {
  return bytes.toString('utf8', 0, 200);
}

/** A token table as a subscriber holds it: token -> field -> value. */
type TokenView = Map<string, Record<string, unknown>>;

function tableView(result: { columns: string[]; rows: unknown[][] }): TokenView {
  return new Map(result.rows.map((row) => [String(row[0]), Object.fromEntries(result.columns.slice(1).map((column, i) => [column, row[i + 1]]))]));
}

const viewText = (view: TokenView) => JSON.stringify([...view].sort(([a], [b]) => (a < b ? -1 : 1)));

/** A few subscribers (one per kind of params or query) also keep what they were sent: the subscribe reply with every
 * push applied (/ws), the last routes (/route/subscribe). */
interface Tracked {
  view?: TokenView;
  routes?: string;
}

/** A /ws client: hello, one tokens.subscribe (id 1), then `{"sub":1,"height":...}` pushes. */
function openTokenSubscriber(url: string, params: unknown, tally: SocketTally, tracked?: Tracked): Promise<Subscriber> {
  const subscriber = newSubscriber(url, tally, '/ws');
  subscriber.ws.on('message', (data) => {
    const bytes = asBuffer(data);
    if (bytes[2] === 0x73 /* {"sub": */ && secondKey(bytes, '"height"')) {
      if (tracked?.view) {
        const push = JSON.parse(bytes.toString()) as { set?: Record<string, Record<string, unknown>>; left?: string[] };
        for (const [token, fields] of Object.entries(push.set ?? {})) tracked.view.set(token, { ...tracked.view.get(token), ...fields });
        for (const token of push.left ?? []) tracked.view.delete(token);
      }
      tally.pushes++;
      if (measuring) {
        tally.pushesDuringSoak++;
        subscriber.pushesDuringSoak++;
      }
    } else if (bytes[2] === 0x68 /* {"hello": */ && !subscriber.answered) {
      subscriber.ws.send(JSON.stringify({ id: 1, method: 'tokens.subscribe', params }));
    } else if (bytes[2] === 0x69 /* {"id": */ && secondKey(bytes, '"result"') && !subscriber.answered) {
      if (tracked) tracked.view = tableView(JSON.parse(bytes.toString()).result);
      answered(subscriber, tally);
    } else {
      tally.errors.push(`/ws unexpected: ${shortText(bytes)}`);
      if (!subscriber.answered) subscriber.settle(`/ws unexpected: ${shortText(bytes)}`);
    }
  });
  return subscriber.ready;
}

/** A /route/subscribe client: one `{id, query}`, then `{"id":7,"routes":[...]}` answers (the first, then pushes). */
function openRouteSubscriber(url: string, id: number, query: string, tally: SocketTally, tracked?: Tracked): Promise<Subscriber> {
  const subscriber = newSubscriber(url, tally, '/route/subscribe');
  subscriber.ws.on('open', () => subscriber.ws.send(JSON.stringify({ id, query })));
  subscriber.ws.on('message', (data) => {
    const bytes = asBuffer(data);
    if (bytes[2] !== 0x69 /* {"id": */ || !secondKey(bytes, '"routes"')) {
      tally.errors.push(`/route/subscribe unexpected: ${shortText(bytes)}`);
      if (!subscriber.answered) subscriber.settle(`/route/subscribe unexpected: ${shortText(bytes)}`);
      return;
    }
    if (tracked) tracked.routes = JSON.stringify(JSON.parse(bytes.toString()).routes);
    if (!subscriber.answered) {
      answered(subscriber, tally);
    } else {
      tally.pushes++;
      if (measuring) {
        tally.pushesDuringSoak++;
        subscriber.pushesDuringSoak++;
      }
    }
  });
  return subscriber.ready;
}

/** Opens `count` subscribers OPEN_BATCH at a time; each batch must be answered within 60 s. */
async function openInBatches(count: number, open: (i: number) => Promise<Subscriber>): Promise<Subscriber[]> {
  const all: Subscriber[] = [];
  for (let start = 0; start < count; start += OPEN_BATCH) {
    const batch = Promise.all(Array.from({ length: Math.min(OPEN_BATCH, count - start) }, (_, j) => open(start + j)));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`subscribers ${start}.. not answered within 60 s`)), 60_000)));
    try {
      all.push(...(await Promise.race([batch, timeout])));
    } finally {
      clearTimeout(timer);
    }
  }
  return all;
}

interface Sample {
  /** Date.now() when the answers were in. */
  at: number;
  heap: number;
  rss: number;
  cpuSeconds: number;
  /** Longest event loop delay since the previous /metrics read. */
  loopLagMax: number;
  height: number;
  lag: number;
}

function metric(text: string, name: string): number {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (!match) throw new Error(`/metrics has no ${name}`);
  return Number(match[1]);
}

/** Percentile of sorted values (nearest rank). */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

/** The `time` of the indexer's "indexing" log line: the realnet source starts its schedule after it (at its first block). */
function indexingStartedAt(indexer: Running): number | undefined {
  for (const line of indexer.output().split('\n')) {
    if (!line.includes('"msg":"indexing"')) continue;
    return (JSON.parse(line) as { time: number }).time;
  }
  return undefined;
}

/** Log lines (pino JSON) at level `minLevel` and above (40 warn, 50 error, 60 fatal). */
function logLines(output: string, minLevel: 40 | 50): string[] {
  return output.split('\n').filter((line) => Number(/^\{"level":(\d+)/.exec(line)?.[1] ?? 0) >= minLevel);
}

describe('soak: 10 blocks/s, 1,000 socket subscribers and a steady HTTP mix', () => {
  const processes: Running[] = [];
  afterAll(async () => {
    for (const running of processes) {
      if (running.child.exitCode === null && running.child.signalCode === null) {
        running.child.kill('SIGKILL');
        await running.exited;
      }
    }
  });

  it(`serves ${SOAK_MS / 1000} s without an error, with flat api memory and bounded indexer lag`, async () => {
    const database = await createTestDatabase();
    const [apiPort, relayPort] = [await freePort(), await freePort()];
    const env = {
      DATABASE_URL: database.url,
      LOG_LEVEL: 'info',
      DEXLAKE_SOURCE: 'realnet',
      DEXLAKE_DEVNET_SEED: 'dexlake',
      DEXLAKE_DEVNET_SPEED: String(REALNET_SPEED),
      DEXLAKE_RELAY_PORT: String(relayPort),
      QUOTE_RELAY_URL: `http://127.0.0.1:${relayPort}`,
      PORT: String(apiPort),
    };
    const indexer = runDexlake(['index'], env);
    processes.push(indexer);
    // The api reads tables the indexer's migrations make: start it once the indexer is indexing.
    expect(await waitUntil(() => indexingStartedAt(indexer) !== undefined || indexer.child.exitCode !== null, 60_000), indexer.output()).toBe(true);
    const scheduleStart = indexingStartedAt(indexer);
    expect(scheduleStart, indexer.output()).toBeDefined();
    const api = runDexlake(['serve'], env);
    processes.push(api);
    const base = `http://127.0.0.1:${apiPort}`;
    await waitForOk(`${base}/health`, api);
    // The realnet makes its tokens and pools in its first blocks (the hosted models' in the first that trades): the
    // load starts once every route query names tokens the api knows (a token not yet made is a 400, rightly).
    const known = async () => (await Promise.all(ROUTE_QUERIES.map(async (q) => (await fetch(`${base}/route?${q}`)).status))).every((status) => status === 200);
    const knowsDeadline = Date.now() + 60_000;
    while (!(await known())) {
      expect(Date.now() < knowsDeadline, `route tokens still unknown: ${indexer.output().slice(-2000)}`).toBe(true);
      await new Promise((r) => setTimeout(r, 200));
    }

    /** Blocks the realnet has produced by `now` on its schedule: block 1 at scheduleStart, then one every 1/SPEED s.
     * scheduleStart is logged before the source makes its first block, so this never undercounts. */
    const producedBy = (now: number) => Math.floor(((now - scheduleStart!) * REALNET_SPEED) / 1000) + 1;

    // The HTTP mix and the samples: one timer, from now until soakEnd (set once every subscriber is connected).
    const statuses = new Map<string, number>();
    const count = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);
    const latencies = new Map<HttpKind, number[]>();
    const samples: Sample[] = [];
    const failures: string[] = [];
    let inFlight = 0;
    let sent = 0;
    let soakStart = Infinity;
    let soakEnd = Infinity;
    const loadStart = Date.now();

    const send = (request: HttpRequest) => {
      inFlight++;
      const started = performance.now();
      const init: RequestInit = request.body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request.body) };
      fetch(`${base}${request.path}`, init)
        .then(async (res) => {
          await res.arrayBuffer();
          count(`${request.kind} ${res.status}`);
          if (measuring) {
            const list = latencies.get(request.kind) ?? [];
            list.push(performance.now() - started);
            latencies.set(request.kind, list);
          }
          if (res.status !== 200) failures.push(`${Math.round((Date.now() - loadStart) / 1000)} s: ${request.kind} ${request.path} -> ${res.status}`);
        })
        .catch((err: Error) => {
          count(`${request.kind} ${err.message}`);
          failures.push(`${Math.round((Date.now() - loadStart) / 1000)} s: ${request.kind} ${request.path} -> ${err.message}`);
        })
        .finally(() => inFlight--);
    };

    const sample = async () => {
      try {
        const [healthRes, metricsRes] = await Promise.all([fetch(`${base}/health`), fetch(`${base}/metrics`)]);
        const health = (await healthRes.json()) as { height: number | null };
        const text = await metricsRes.text();
        const now = Date.now();
        if (healthRes.status !== 200 || metricsRes.status !== 200) throw new Error(`/health ${healthRes.status}, /metrics ${metricsRes.status}`);
        const height = health.height ?? 0;
        samples.push({
          at: now,
          heap: metric(text, 'dexlake_api_nodejs_heap_size_used_bytes'),
          rss: metric(text, 'dexlake_api_process_resident_memory_bytes'),
          cpuSeconds: metric(text, 'dexlake_api_process_cpu_seconds_total'),
          loopLagMax: metric(text, 'dexlake_api_nodejs_eventloop_lag_max_seconds'),
          height,
          lag: producedBy(now) - height,
        });
      } catch (err) {
        failures.push(`${Math.round((Date.now() - loadStart) / 1000)} s: sample: ${(err as Error).message}`);
      }
    };

    let ticks = 0;
    let timer: NodeJS.Timeout | undefined;
    const loadDone = new Promise<void>((resolve) => {
      timer = setInterval(() => {
        const now = Date.now();
        if (now >= soakEnd) {
          measuring = false;
          clearInterval(timer);
          void sample().then(resolve);
          return;
        }
        if (!measuring && now >= soakStart) {
          measuring = true;
          void sample(); // the first figures after warm-up
        } else if (ticks % SAMPLE_EVERY_TICKS === 0) {
          void sample();
        }
        ticks++;
        for (let i = 0; i < REQUESTS_PER_TICK; i++) send(httpRequest(sent++));
      }, TICK_MS);
    });

    // The subscribers, under the HTTP mix: the token ones, then the route ones.
    const tokenTally: SocketTally = { answered: 0, pushes: 0, pushesDuringSoak: 0, errors: [] };
    const routeTally: SocketTally = { answered: 0, pushes: 0, pushesDuringSoak: 0, errors: [] };
    const wsUrl = `ws://127.0.0.1:${apiPort}`;
    // Tracked: the first subscriber of each params without min_change (with it a subscriber keeps values a fresh read
    // has moved past), and of each query without a trader (its QuoteA quote comes from the indexer's relay, which
    // stops with it).
    const trackedTokens = new Map<number, Tracked>();
    TOKEN_SUBSCRIPTIONS.forEach((params, i) => params.min_change === undefined && trackedTokens.set(i, {}));
    const trackedRoutes = new Map<number, Tracked>();
    ROUTE_QUERIES.forEach((query, i) => !query.includes('trader_account_id') && trackedRoutes.set(i, {}));
    let tokenSubscribers: Subscriber[];
    let routeSubscribers: Subscriber[];
    try {
      tokenSubscribers = await openInBatches(SUBSCRIBERS_PER_SOCKET, (i) => openTokenSubscriber(`${wsUrl}/ws`, at(TOKEN_SUBSCRIPTIONS, i), tokenTally, trackedTokens.get(i)));
      routeSubscribers = await openInBatches(SUBSCRIBERS_PER_SOCKET, (i) =>
        openRouteSubscriber(`${wsUrl}/route/subscribe`, i, at(ROUTE_QUERIES, i), routeTally, trackedRoutes.get(i)),
      );
    } catch (err) {
      clearInterval(timer);
      const firstError = logLines(api.output(), 40)[0];
      throw new Error(`${(err as Error).message}${firstError ? `; the api logged: ${firstError.slice(0, 600)}` : ''}`);
    }
    const openSeconds = (Date.now() - loadStart) / 1000;
    soakStart = Date.now() + WARMUP_MS;
    soakEnd = soakStart + SOAK_MS;
    await loadDone;
    // A request still unanswered 15 s after the load stopped is hung.
    await waitUntil(() => inFlight === 0, 15_000);
    const hung = inFlight;

    // The processes must still be alive. The chain stops first.
    const apiAlive = api.child.exitCode === null;
    const indexerAlive = indexer.child.exitCode === null;
    indexer.child.kill('SIGTERM');
    const indexerExit = await indexer.exited;

    // Heights are contiguous from 1 (the realnet skips none), so the indexed height is the number of blocks indexed.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query<{ blocks: string; top: string }>('select count(*) as blocks, max(height) as top from blocks');
    await client.end();

    // The api catches up with the stopped chain: its head is the last block, and every tracked subscriber holds what a
    // fresh read answers now. A push lost or wrong on the way leaves one behind for good.
    const behind = async (): Promise<string[]> => {
      const found: string[] = [];
      const health = (await (await fetch(`${base}/health`)).json()) as { height: number | null };
      if (health.height !== Number(rows[0]!.top)) found.push(`api head ${health.height}, last block ${rows[0]!.top}`);
      for (const [i, tracked] of trackedTokens) {
        const res = await fetch(`${base}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(TOKEN_SUBSCRIPTIONS[i]) });
        const fresh = viewText(tableView((await res.json()) as { columns: string[]; rows: unknown[][] }));
        if (viewText(tracked.view!) !== fresh) found.push(`/ws ${JSON.stringify(TOKEN_SUBSCRIPTIONS[i])}: holds ${viewText(tracked.view!)}, now ${fresh}`);
      }
      for (const [i, tracked] of trackedRoutes) {
        const fresh = JSON.stringify(await (await fetch(`${base}/route?${ROUTE_QUERIES[i]}`)).json());
        if (tracked.routes !== fresh) found.push(`/route/subscribe ${ROUTE_QUERIES[i]}: holds ${tracked.routes?.slice(0, 300)}, now ${fresh.slice(0, 300)}`);
      }
      return found;
    };
    let stillBehind = await behind();
    for (const deadline = Date.now() + HANG_MS; stillBehind.length && Date.now() < deadline; stillBehind = await behind()) await new Promise((r) => setTimeout(r, 500));

    // Every subscriber is closed by us, then the api stops.
    const subscribers = [...tokenSubscribers, ...routeSubscribers];
    for (const subscriber of subscribers) {
      subscriber.closing = true;
      subscriber.ws.close();
    }
    await waitUntil(() => subscribers.every((s) => s.ws.readyState === WebSocket.CLOSED), 10_000);

    const apiOutputAtStop = api.output().length;
    api.child.kill('SIGTERM');
    const apiExit = await api.exited;

    // Figures.
    const soakSamples = samples.filter((s) => s.at >= soakStart);
    const firstMinute = soakSamples.filter((s) => s.at < soakStart + 60_000);
    const lastMinute = soakSamples.filter((s) => s.at >= soakEnd - 60_000);
    const first = soakSamples[0]!;
    const last = soakSamples[soakSamples.length - 1]!;
    const heapStart = Math.min(...firstMinute.map((s) => s.heap));
    const heapEnd = Math.min(...lastMinute.map((s) => s.heap));
    const lagMax = Math.max(...soakSamples.map((s) => s.lag));
    const loopLagMax = Math.max(...soakSamples.map((s) => s.loopLagMax));
    const all = [...latencies.values()].flat().sort((a, b) => a - b);
    const byKind = [...latencies].map(([kind, list]) => {
      const sorted = list.sort((a, b) => a - b);
      return `${kind} ${percentile(sorted, 50).toFixed(0)}/${percentile(sorted, 99).toFixed(0)}`;
    });
    const requests = [...statuses.values()].reduce((a, b) => a + b, 0);
    const silentToken = tokenSubscribers.filter((s) => s.pushesDuringSoak === 0).length;
    const silentRoute = routeSubscribers.filter((s) => s.pushesDuringSoak === 0).length;
    const soakSeconds = (last.at - first.at) / 1000;
    // Every warning of the api is a failure under load (a route round or a pool graph refresh that failed, a lost
    // connection); so is one while it stops (a pool graph refresh still queued then fails on the closed pool: that
    // many notifications were waiting to be applied). The indexer's warnings are printed, its errors fail the test.
    const apiWarnings = logLines(api.output().slice(0, apiOutputAtStop), 40);
    const apiStopWarnings = logLines(api.output().slice(apiOutputAtStop), 40);
    const indexerWarnings = logLines(indexer.output(), 40);
    const indexerErrors = logLines(indexer.output(), 50);
    console.log(
      [
        `soak: ${SOAK_MS / 1000} s measured after ${WARMUP_MS / 1000} s of warm-up; realnet ${REALNET_SPEED} blocks/s; ${SUBSCRIBERS_PER_SOCKET} /ws + ${SUBSCRIBERS_PER_SOCKET} /route/subscribe subscribers, all answered ${openSeconds.toFixed(1)} s after the load began`,
        `HTTP: ${requests} requests (${(requests / ((Date.now() - loadStart) / 1000)).toFixed(1)}/s), by status: ${[...statuses].sort().map(([k, n]) => `${k}: ${n}`).join(', ')}`,
        `HTTP latency during the soak: p50 ${percentile(all, 50).toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms, max ${percentile(all, 100).toFixed(1)} ms over ${all.length} requests; p50/p99 ms by kind: ${byKind.join(', ')}; hung: ${hung}`,
        `/ws: ${tokenTally.answered} subscribed, ${tokenTally.pushes} pushes (${tokenTally.pushesDuringSoak} during the soak, ${(tokenTally.pushesDuringSoak / soakSeconds).toFixed(0)}/s), ${silentToken} subscribers without a push during the soak`,
        `/route/subscribe: ${routeTally.answered} answered, ${routeTally.pushes} pushes (${routeTally.pushesDuringSoak} during the soak, ${(routeTally.pushesDuringSoak / soakSeconds).toFixed(1)}/s), ${silentRoute} subscribers without a push during the soak`,
        `api heap: min over the first minute ${mib(heapStart)}, over the last minute ${mib(heapEnd)} (first/last sample ${mib(first.heap)} / ${mib(last.heap)})`,
        `api RSS: after warm-up ${mib(first.rss)}, at the end ${mib(last.rss)}; api CPU during the soak ${(((last.cpuSeconds - first.cpuSeconds) / soakSeconds) * 100).toFixed(0)}% of one core; event loop lag max ${(loopLagMax * 1000).toFixed(0)} ms`,
        `indexer lag (blocks scheduled - blocks indexed): start ${first.lag} (height ${first.height}), end ${last.lag} (height ${last.height}), max ${lagMax}; blocks table ${rows[0]!.blocks} rows, top ${rows[0]!.top}`,
        `after the indexer stopped: ${trackedTokens.size} tracked /ws and ${trackedRoutes.size} tracked /route/subscribe subscribers, ${stillBehind.length} not at the chain's last state`,
        `failures: ${failures.length}${failures.length ? ` (${failures.slice(0, 10).join('; ')})` : ''}; api exit ${JSON.stringify(apiExit)}, indexer exit ${JSON.stringify(indexerExit)}`,
        `api warnings and errors: ${apiWarnings.length} under load${apiWarnings.length ? ` (the first: ${apiWarnings[0]!.slice(0, 600)})` : ''}, ${apiStopWarnings.length} while stopping${apiStopWarnings.length ? ` (the first: ${apiStopWarnings[0]!.slice(0, 300)})` : ''}`,
        `indexer warnings and errors: ${indexerWarnings.length}${indexerWarnings.length ? `, the first: ${indexerWarnings[0]!.slice(0, 600)}` : ''}`,
      ].join('\n'),
    );

    // No error anywhere: every HTTP answer a 200, none hung, no socket error or unexpected message or close.
    expect(failures.slice(0, 20)).toEqual([]);
    expect([...statuses.keys()].filter((key) => !key.endsWith(' 200'))).toEqual([]);
    expect(hung).toBe(0);
    expect(tokenTally.errors.slice(0, 20)).toEqual([]);
    expect(routeTally.errors.slice(0, 20)).toEqual([]);
    expect(apiWarnings.slice(0, 5)).toEqual([]);
    expect(apiStopWarnings.slice(0, 5)).toEqual([]);
    expect(indexerErrors.slice(0, 5)).toEqual([]);
    expect(apiAlive && indexerAlive).toBe(true);
    expect(apiExit.code).toBe(0);
    expect(indexerExit.code).toBe(0);
    // The load happened: every subscriber answered, both socket kinds pushed during the soak, every HTTP kind ran.
    expect(tokenTally.answered).toBe(SUBSCRIBERS_PER_SOCKET);
    expect(routeTally.answered).toBe(SUBSCRIBERS_PER_SOCKET);
    expect(tokenTally.pushesDuringSoak).toBeGreaterThan(0);
    expect(routeTally.pushesDuringSoak).toBeGreaterThan(0);
    expect(latencies.size).toBe(8);
    // The api caught up with the chain once it stopped: its head and every tracked subscriber's state are the last block's.
    expect(stillBehind.slice(0, 5)).toEqual([]);
    // Heights are the count of blocks (so `height` counts blocks indexed).
    expect(Number(rows[0]!.blocks)).toBe(Number(rows[0]!.top));
    // Flat memory: heap minimum over the last minute vs the first minute after warm-up (GC timing does not decide),
    // RSS at the end vs after warm-up; each within +20 % or its absolute allowance, whichever is larger.
    expect(heapEnd).toBeLessThanOrEqual(Math.max(heapStart * HEAP_GROWTH.ratio, heapStart + HEAP_GROWTH.bytes));
    expect(last.rss).toBeLessThanOrEqual(Math.max(first.rss * RSS_GROWTH.ratio, first.rss + RSS_GROWTH.bytes));
    // Bounded lag: no sample of the soak is more than LAG_GROWTH_BLOCKS behind where the soak started.
    expect(lagMax).toBeLessThanOrEqual(first.lag + LAG_GROWTH_BLOCKS);
  });
});
