// Many api processes behind a load balancer (issue 22, point 2): three real `dexlake serve` processes on one
// database filled by the real `dexlake index` on the realnet give byte-equal answers (routes and token data); after
// the indexer writes more blocks (and notifies), every process answers at the new height, equal to the others again,
// and a `/ws` tokens.subscribe and a `/route/subscribe` subscriber on each process receive the pushes.
//
// "At the new height" is two heights per process: the token data's (/tokens `height`, the database head) and the
// routing graph's (/health `route_height`, GET /route's X-Dexlake-Height), which applies the notification later, on
// its own schedule. Routes are compared once every graph has reached the height; each wait has a deadline.
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../db/connect.ts';
import { freePort } from '../db/embedded.ts';
import { runDexlake, waitForOk, type Running } from './harness/cli.ts';
import { createTestDatabase } from './harness/db.ts';
import { SocketClient, type Message } from './tokens/harness.ts';

const PROCESSES = 3;
const FIRST = 100;
const SECOND = 130;
/** How long any one wait of this test may take before it fails, saying what it waited for. */
const WAIT_MS = 30_000;

/** `promise`, or a failure naming `what` after WAIT_MS. */
async function within<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`)), WAIT_MS)));
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

const { url } = await createTestDatabase();
const db = connect(url);
afterAll(() => db.close());

const indexEnv = {
  DATABASE_URL: url,
  LOG_LEVEL: 'warn',
  DEXLAKE_SOURCE: 'realnet',
  DEXLAKE_DEVNET_SPEED: '0',
  DEXLAKE_DEVNET_GENESIS: '2026-03-01T00:00:00Z',
  DEXLAKE_RELAY_PORT: 'off',
  DEXLAKE_DEVNET_RPC_PORT: 'off',
  DEXLAKE_FROM: undefined,
};

/** Runs the real `dexlake index --to height` to its end. */
async function indexTo(height: number): Promise<void> {
  const running = runDexlake(['index', '--to', String(height)], indexEnv);
  const { code } = await running.exited;
  expect(code, running.output()).toBe(0);
}

const servers: { running: Running; base: string }[] = [];
const sockets: WebSocket[] = [];

beforeAll(async () => {
  await indexTo(FIRST);
  for (let i = 0; i < PROCESSES; i++) {
    const port = await freePort();
    const running = runDexlake(['serve'], { DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
    servers.push({ running, base: `http://127.0.0.1:${port}` });
  }
  for (const { running, base } of servers) await waitForOk(`${base}/health`, running);
}, 180_000);
afterAll(async () => {
  for (const socket of sockets) socket.close();
  for (const { running } of servers) running.child.kill('SIGTERM');
  for (const { running } of servers) await running.exited;
});

/** Route queries over pairs of the realnet's pools (filled in once the database is). */
const routeQueries: string[] = [];
const route = (tokenIn: string, tokenOut: string, amountIn: string) =>
  `/route?${new URLSearchParams({ token_in: tokenIn, token_out: tokenOut, amount_in: amountIn, max_wait_ms: '0', slippage_type: 'Fixed', slippage: '0.005', trader_account_id: 'alice.near' })}`;
const TOKEN_QUERIES = [
  '/tokens?fields=symbol,price_usd,liquidity_usd,price_height&sort=-liquidity_usd&limit=20',
  '/tokens/search?q=us',
  '/trades?limit=20',
  '/transfers?limit=20',
  '/holders?token=wrap.near&limit=20',
  '/candles?token=wrap.near&resolution=1m&count_back=20',
  '/balances?account_id=trent.near',
  '/activity?account_id=trent.near&limit=20',
  '/positions?account_id=trent.near',
];

/** Each process's status, body and (for /route) X-Dexlake-Height for `path`. */
async function answers(path: string): Promise<{ status: number; body: string; height: string | null }[]> {
  return Promise.all(
    servers.map(async ({ base }) => {
      const res = await fetch(`${base}${path}`);
      return { status: res.status, body: await res.text(), height: res.headers.get('x-dexlake-height') };
    }),
  );
}

/** Asserts every process gives the same 200 body for every query (a route at `height`, its header says); returns the
 * first process's bodies. */
async function expectSameAnswers(queries: string[], height: number): Promise<Map<string, string>> {
  const first = new Map<string, string>();
  for (const path of queries) {
    const all = await answers(path);
    expect(all[0]!.status, `${path}: ${all[0]!.body}`).toBe(200);
    expect(all[0]!.height, `${path}: X-Dexlake-Height`).toBe(path.startsWith('/route?') ? String(height) : null);
    for (const answer of all.slice(1)) expect(answer, path).toEqual(all[0]);
    first.set(path, all[0]!.body);
  }
  return first;
}

/** Polls until every process answers at `height`: its token data (/tokens) and its routing graph (/health
 * route_height); fails after WAIT_MS naming the heights last seen. */
async function untilHeight(height: number): Promise<void> {
  const deadline = performance.now() + WAIT_MS;
  for (;;) {
    const seen = await Promise.all(
      servers.map(async ({ base }) => {
        const tokens = ((await (await fetch(`${base}/tokens?limit=1`)).json()) as Message).height as number;
        const route = ((await (await fetch(`${base}/health`)).json()) as Message).route_height as number | null;
        return { tokens, route };
      }),
    );
    if (seen.every((s) => s.tokens === height && s.route === height)) return;
    if (performance.now() > deadline) {
      throw new Error(`the processes did not reach height ${height} within ${WAIT_MS} ms: ${seen.map((s) => `tokens ${s.tokens}, route_height ${s.route}`).join('; ')}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A /route/subscribe client: every `{id, routes, height}` it receives, in order; `next` fails after WAIT_MS. */
async function routeSubscriber(base: string, id: number, query: string): Promise<{ frames: Message[]; next: () => Promise<Message> }> {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/route/subscribe`);
  sockets.push(ws);
  const frames: Message[] = [];
  const waiters: ((m: Message) => void)[] = [];
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString()) as Message;
    frames.push(message);
    waiters.shift()?.(message);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let read = 0;
  const next = () =>
    within(`a /route/subscribe frame from ${base}`, read < frames.length ? Promise.resolve(frames[read++]!) : new Promise<Message>((resolve) => waiters.push((m) => (read++, resolve(m)))));
  ws.send(JSON.stringify({ id, query }));
  return { frames, next };
}

describe(`${PROCESSES} dexlake serve processes on one database`, () => {
  it('give byte-equal route and token-data answers, and move together to the new height after more blocks are indexed, pushing to the subscribers of each', { timeout: 180_000 }, async () => {
    // Route queries: one per DEX over a pair of one of its pools (a hundredth of the first reserve), and a wrap.
    const { rows } = await db.pool.query<{ dex: string; tokens: string[]; amounts: string[] }>(
      `select distinct on (dex) dex, tokens, amounts::text[] from pools where not stale order by dex, pool_id`,
    );
    expect(rows.length).toBeGreaterThan(3);
    for (const { tokens, amounts } of rows) routeQueries.push(route(tokens[0]!, tokens[1]!, String(BigInt(amounts[0]!) / 100n)));
    routeQueries.push(route('near', 'wrap.near', '1000000000000000000000000'));
    const queries = [...routeQueries, ...TOKEN_QUERIES];

    await untilHeight(FIRST);
    const before = await expectSameAnswers(queries, FIRST);
    for (const path of TOKEN_QUERIES) expect((JSON.parse(before.get(path)!) as Message).height, path).toBe(FIRST);
    const routed = routeQueries.filter((path) => (JSON.parse(before.get(path)!) as unknown[]).length > 0);
    expect(routed.length, 'routes were found').toBeGreaterThan(3);

    // A subscriber of each kind on each process.
    const params = { fields: ['price_usd', 'price_height'], sort: { by: 'price_height', desc: true }, limit: 10 };
    const tokenSubscribers: { client: SocketClient; height: number; view: Map<string, unknown[]> }[] = [];
    for (const { base } of servers) {
      const client = await SocketClient.open(`${base.replace('http', 'ws')}/ws`);
      sockets.push(client.ws);
      await within(`the /ws hello of ${base}`, client.next()); // hello
      const subscribed = await within(`tokens.subscribe on ${base}`, client.request('tokens.subscribe', params, 1));
      expect(subscribed.result.height).toBe(FIRST);
      const view = new Map((subscribed.result.rows as unknown[][]).map(([token, ...values]) => [String(token), values]));
      tokenSubscribers.push({ client, height: FIRST, view });
    }
    const routeQuery = routed[0]!.slice('/route?'.length);
    const routeSubscribers = [];
    for (const { base } of servers) {
      const subscriber = await routeSubscriber(base, 7, routeQuery);
      expect(await subscriber.next()).toEqual({ id: 7, routes: JSON.parse(before.get(routed[0]!)!), height: FIRST });
      routeSubscribers.push(subscriber);
    }

    await indexTo(SECOND);
    await untilHeight(SECOND);
    const after = await expectSameAnswers(queries, SECOND);
    for (const path of TOKEN_QUERIES) expect((JSON.parse(after.get(path)!) as Message).height, path).toBe(SECOND);
    expect([...after.values()], 'the new blocks changed the answers').not.toEqual([...before.values()]);

    // Each token subscriber is pushed the new blocks' changes, up to the new height: its view ends equal to the
    // table every process now answers.
    const table = JSON.parse((await answers('/tokens?fields=price_usd,price_height&sort=-price_height&limit=10'))[0]!.body) as Message;
    expect(table.height).toBe(SECOND);
    const expected = (table.rows as unknown[][]).map(([token, ...values]) => [String(token), values]).sort();
    for (const subscriber of tokenSubscribers) {
      while (subscriber.height < SECOND) {
        const push = await within(`a tokens.subscribe push past height ${subscriber.height}`, subscriber.client.next());
        expect(push.height, 'a push never carries an older state').toBeGreaterThan(subscriber.height);
        subscriber.height = push.height;
        for (const [token, fields] of Object.entries((push.set ?? {}) as Record<string, Message>)) {
          subscriber.view.set(token, [fields.price_usd ?? subscriber.view.get(token)?.[0], fields.price_height ?? subscriber.view.get(token)?.[1]]);
        }
        for (const token of (push.left ?? []) as string[]) subscriber.view.delete(token);
      }
      expect(subscriber.height).toBe(SECOND);
      expect([...subscriber.view].sort()).toEqual(expected);
    }
    // Each route subscriber is pushed the routes GET /route now gives (the pools moved), computed at a height past
    // the first one and at most the new one (only a change of the quotes is pushed).
    const routesNow = JSON.parse(after.get(routed[0]!)!) as unknown;
    expect(routesNow).not.toEqual(JSON.parse(before.get(routed[0]!)!));
    for (const subscriber of routeSubscribers) {
      let frame = await subscriber.next();
      while (JSON.stringify(frame.routes) !== JSON.stringify(routesNow)) frame = await subscriber.next();
      expect(frame).toEqual({ id: 7, routes: routesNow, height: expect.any(Number) });
      expect(frame.height).toBeGreaterThan(FIRST);
      expect(frame.height).toBeLessThanOrEqual(SECOND);
    }
  });
});
