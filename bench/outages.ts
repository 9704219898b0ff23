// How fast the service gets past an outage: the timings test/reliability/outages.test.ts and soak.test.ts check as
// behaviour only (a test asserts no timing). Each figure is printed with its ratio to a bound stated or measured in
// the same run (below 1.00 is within).
// 1. relay: GET /route with a trader (QuoteA asks the solver relay) at max_wait_ms 1,500, through the real server
//    (buildServer, in this process) on 120 realnet blocks: answered with no relay, with a relay that refuses
//    connections, and with one that accepts and never answers; the silent one against max_wait_ms, with how far past
//    it the answer came (next to the no-relay answer's own time). Median of BENCH_OUTAGES_ROUNDS (5).
// 2. restart: PostgreSQL SIGKILLed under `dexlake serve`, down 8 s (past the listeners' backoff ceilings), started
//    again on the same data: from it accepting connections to the api answering /health and /tokens with 200, and
//    to both LISTEN sessions being back, against the 10 s.
// 3. catch-up: `dexlake index` (realnet, 10 blocks/s) and `dexlake serve` under BENCH_OUTAGES_SUBSCRIBERS (500) /ws
//    and as many /route/subscribe subscribers for BENCH_OUTAGES_LOAD_S (30) s; then the indexer stops: seconds to
//    the last push of each socket kind (a push counts until 4 s pass without one), against 10 s (a route
//    subscription re-routes at most 3 s after its previous round, subscribe.ts MAX_PACE_MS).
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import WebSocket from 'ws';
import { buildServer } from '../api/server.ts';
import { LISTENER_NAME } from '../api/routing/graph.ts';
import { TOKEN_LISTENER_NAME } from '../api/tokens/listen.ts';
import { connect } from '../db/connect.ts';
import { freePort, startEmbeddedPostgres } from '../db/embedded.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { ingest } from '../indexer/pipeline.ts';
import { realnetSource } from '../indexer/sources/realnet.ts';
import { runDexlake, waitForOk, type Running } from '../test/harness/cli.ts';
import { startBenchPostgres } from './harness.ts';

const ROUNDS = Number(process.env.BENCH_OUTAGES_ROUNDS ?? 5);
const SUBSCRIBERS = Number(process.env.BENCH_OUTAGES_SUBSCRIBERS ?? 500);
const LOAD_S = Number(process.env.BENCH_OUTAGES_LOAD_S ?? 30);
const SEED = 'outages';
const USDT = 'usdt.tether-token.near';
const ONE_NEAR = (10n ** 24n).toString();
const WAIT_MS = 1_500;
/** The bound on the service coming back after PostgreSQL does, and on the api catching up with the chain. */
const RESUME_MS = 10_000;
const CATCH_UP_MS = 10_000;
const OUTAGE_MS = 8_000;
const QUIET_MS = 4_000;
const never = new AbortController().signal;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (value: number) => `${value < 100 ? value.toFixed(1) : Math.round(value)} ms`;

async function relay(): Promise<void> {
  const pg = await startBenchPostgres('outages');
  const db = await pg.freshDb();
  const silent = createServer(() => {}); // reads the request, never answers
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    await ingest({ db, source: realnetSource({ seed: SEED, speed: 0 }), to: 120, signal: never, workers: 0 });
    const url = `/route?token_in=near&token_out=${USDT}&amount_in=${ONE_NEAR}&max_wait_ms=${WAIT_MS}&slippage_type=Fixed&slippage=0.005&trader_account_id=newcomer.near`;
    const time = async (quoteRelayUrl: string | null): Promise<number> => {
      const app = await buildServer({ db, logLevel: 'silent', quoteRelayUrl });
      try {
        await app.inject(url); // warm
        const times: number[] = [];
        for (let i = 0; i < ROUNDS; i++) {
          const started = performance.now();
          const res = await app.inject(url);
          times.push(performance.now() - started);
          if (res.statusCode !== 200) throw new Error(`/route answered ${res.statusCode}: ${res.body}`);
        }
        return median(times);
      } finally {
        await app.close();
      }
    };
    const none = await time(null);
    const refused = await time(`http://127.0.0.1:${await freePort()}`);
    const unanswered = await time(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`);
    console.log(
      `relay    /route with a trader, max_wait_ms ${WAIT_MS}, median of ${ROUNDS}: no relay ${ms(none)}; relay refused ${ms(refused)}; relay silent ${ms(unanswered)}, ` +
        `ratio to max_wait_ms ${(unanswered / WAIT_MS).toFixed(3)} (past it by ${ms(unanswered - WAIT_MS)})`,
    );
  } finally {
    silent.closeAllConnections();
    silent.close();
    await db.close();
    await pg.stop();
  }
}

async function restart(): Promise<void> {
  // Directly in the temp dir: as root the server runs as `postgres`, which cannot enter a 0700 mkdtemp folder.
  const home = path.join(tmpdir(), `dexlake-bench-restart-${randomBytes(6).toString('hex')}`);
  const dir = path.join(home, 'pg');
  const port = await freePort();
  let pg = await startEmbeddedPostgres({ dir, port });
  let api: Running | undefined;
  try {
    const writer = connect(pg.url);
    await migrateToLatest(writer.kysely);
    await ingest({ db: writer, source: realnetSource({ seed: SEED, speed: 0 }), to: 120, signal: never, workers: 0 });
    await writer.close();
    const apiPort = await freePort();
    // No indexer runs (the height stays at 120 on purpose, no stall of a source): DEXLAKE_STALL_SECONDS 0.
    api = runDexlake(['serve'], { DATABASE_URL: pg.url, PORT: String(apiPort), LOG_LEVEL: 'warn', QUOTE_RELAY_URL: `http://127.0.0.1:${await freePort()}`, DEXLAKE_STALL_SECONDS: '0' });
    const base = `http://127.0.0.1:${apiPort}`;
    await waitForOk(`${base}/health`, api);

    process.kill(-pg.pid, 'SIGKILL'); // the postmaster and every backend at once (its own process group)
    await pg.stop();
    await delay(OUTAGE_MS);
    const startedAt = performance.now();
    pg = await startEmbeddedPostgres({ dir, port });
    const upAt = performance.now();
    const status = async (url: string) => (await fetch(url, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined))?.status;
    const resumed = async () => {
      while ((await status(`${base}/health`)) !== 200 || (await status(`${base}/tokens?fields=symbol&limit=2`)) !== 200) await delay(20);
      return performance.now() - upAt;
    };
    const admin = connect(pg.url);
    const listening = async () => {
      const sessions = async () =>
        (await admin.pool.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where application_name = any($1)', [[LISTENER_NAME, TOKEN_LISTENER_NAME]])).rows[0]!.n;
      while ((await sessions()) < 2) await delay(20);
      return performance.now() - upAt;
    };
    const [resumeMs, listenMs] = await Promise.all([resumed(), listening()]);
    await admin.close();
    console.log(
      `restart  PostgreSQL down ${OUTAGE_MS / 1000} s, accepting connections ${ms(upAt - startedAt)} after its start; then the api answered /health and /tokens 200 after ${ms(resumeMs)}, ` +
        `LISTEN back after ${ms(listenMs)}; bound ${RESUME_MS / 1000} s, ratios ${(resumeMs / RESUME_MS).toFixed(2)} / ${(listenMs / RESUME_MS).toFixed(2)}`,
    );
  } finally {
    api?.child.kill('SIGTERM');
    await api?.exited;
    await pg.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

/** Opens a socket, sends `first` once it is open (or, on /ws, once the hello came), and notes the time of every
 * message after the first answer. */
function subscriber(url: string, first: string, onHello: boolean, lastPush: { at: number }): Promise<WebSocket> {
  const ws = new WebSocket(url);
  return new Promise((resolve, reject) => {
    let answered = false;
    ws.once('error', reject);
    if (!onHello) ws.once('open', () => ws.send(first));
    ws.on('message', (data) => {
      const text = data.toString();
      if (onHello && text.startsWith('{"hello"')) return void ws.send(first);
      if (/^\{"id":\d+,"error"/.test(text)) return reject(new Error(text.slice(0, 300)));
      if (!answered) {
        answered = true;
        return resolve(ws);
      }
      lastPush.at = performance.now();
    });
  });
}

async function catchUp(): Promise<void> {
  const pg = await startBenchPostgres('catch-up');
  const db = await pg.freshDb();
  const url = db.pool.options.connectionString!;
  await db.close();
  const [apiPort, relayPort] = [await freePort(), await freePort()];
  const env = {
    DATABASE_URL: url,
    LOG_LEVEL: 'warn',
    DEXLAKE_SOURCE: 'realnet',
    DEXLAKE_DEVNET_SPEED: '10',
    DEXLAKE_RELAY_PORT: String(relayPort),
    QUOTE_RELAY_URL: `http://127.0.0.1:${relayPort}`,
    PORT: String(apiPort),
  };
  const indexer = runDexlake(['index'], env);
  const api = runDexlake(['serve'], env);
  const sockets: WebSocket[] = [];
  try {
    await waitForOk(`http://127.0.0.1:${apiPort}/health`, api);
    const tokenParams = [{ ids: ['near', USDT] }, { limit: 10, fields: ['symbol', 'price_usd', 'liquidity_usd'] }, { sort: { by: 'volume_usd_24h', desc: true }, limit: 5 }];
    const routeQueries = (
      [
        { token_in: 'near', token_out: USDT, amount_in: ONE_NEAR },
        { token_in: 'near', token_out: USDT, amount_in: ONE_NEAR, trader_account_id: 'alice.near' },
        { token_in: USDT, token_out: 'token.v2.ref-finance.near', amount_in: '5000000' },
      ] as Record<string, string>[]
    ).map((q) => new URLSearchParams({ max_wait_ms: '500', slippage_type: 'Fixed', slippage: '0.005', ...q }).toString());
    const tokenPush = { at: 0 };
    const routePush = { at: 0 };
    for (let i = 0; i < SUBSCRIBERS; i += 10) {
      const batch = Array.from({ length: Math.min(10, SUBSCRIBERS - i) }, (_, j) => i + j);
      sockets.push(
        ...(await Promise.all(
          batch.flatMap((n) => [
            subscriber(`ws://127.0.0.1:${apiPort}/ws`, JSON.stringify({ id: 1, method: 'tokens.subscribe', params: tokenParams[n % tokenParams.length] }), true, tokenPush),
            subscriber(`ws://127.0.0.1:${apiPort}/route/subscribe`, JSON.stringify({ id: n, query: routeQueries[n % routeQueries.length] }), false, routePush),
          ]),
        )),
      );
    }
    await delay(LOAD_S * 1000);
    indexer.child.kill('SIGTERM');
    await indexer.exited;
    const stoppedAt = performance.now();
    const last = () => Math.max(stoppedAt, tokenPush.at, routePush.at);
    while (performance.now() - last() < QUIET_MS && performance.now() - stoppedAt < 60_000) await delay(50);
    const [token, route] = [tokenPush, routePush].map((p) => Math.max(0, p.at - stoppedAt));
    console.log(
      `catch-up ${SUBSCRIBERS} /ws + ${SUBSCRIBERS} /route/subscribe subscribers, ${LOAD_S} s at 10 blocks/s; last push after the indexer stopped: ` +
        `/ws ${(token! / 1000).toFixed(1)} s, /route/subscribe ${(route! / 1000).toFixed(1)} s; bound ${CATCH_UP_MS / 1000} s, ratios ${(token! / CATCH_UP_MS).toFixed(2)} / ${(route! / CATCH_UP_MS).toFixed(2)}`,
    );
  } finally {
    for (const ws of sockets) ws.close();
    for (const running of [indexer, api]) {
      if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGTERM');
      await running.exited;
    }
    await pg.stop();
  }
}

await relay();
await restart();
await catchUp();
