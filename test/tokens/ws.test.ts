// The /ws socket: hello, requests and errors, limits, tokens.subscribe with pushes after the indexer commits new
// realnet blocks (its NOTIFY), `left`, `min_change`, unsubscribe, and the cut-off of a client that does not read.
// Expected states come from SQL on the tables or from tokens.get over HTTP at the same height.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexedDb, ingestTo, SocketClient, startServer, type Message } from './harness.ts';

const db = await indexedDb(300);
let app: FastifyInstance;
let wsUrl: string;
const clients: SocketClient[] = [];

const WNEAR = 'wrap.near';
const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';
const FIELDS = ['price_usd', 'liquidity_usd', 'volume_usd_24h', 'holders'];

beforeAll(async () => {
  ({ app, wsUrl } = await startServer(db));
}, 120_000);
afterAll(async () => {
  for (const client of clients) client.close();
  await app?.close();
});

async function open(): Promise<{ client: SocketClient; hello: Message }> {
  const client = await SocketClient.open(wsUrl);
  clients.push(client);
  return { client, hello: await client.next() };
}

const query = async <T = any>(text: string, values: unknown[] = []) => (await db.pool.query(text, values)).rows as T[];

async function tokensGet(params: string): Promise<Message> {
  const res = await app.inject({ url: `/tokens?${params}` });
  return JSON.parse(res.body) as Message;
}

/** A subscriber's view: the reply's rows, then each push merged by the spec's rule (set per token, delete left). */
class View {
  readonly tokens = new Map<string, Record<string, unknown>>();
  height: number;

  constructor(result: Message) {
    this.height = result.height;
    for (const row of result.rows as unknown[][]) this.tokens.set(String(row[0]), Object.fromEntries(result.columns.slice(1).map((c: string, i: number) => [c, row[i + 1]])));
  }

  apply(push: Message): void {
    this.height = push.height;
    for (const [token, fields] of Object.entries(push.set ?? {})) this.tokens.set(token, { ...this.tokens.get(token), ...(fields as object) });
    for (const token of push.left ?? []) this.tokens.delete(token);
  }

  /** The state as a table result's rows would give it, for comparison. */
  asRows(columns: string[]): unknown[][] {
    return [...this.tokens].map(([token, fields]) => [token, ...columns.slice(1).map((c) => fields[c])]);
  }
}

describe('requests', () => {
  it('hello first, with version, height and limits', async () => {
    const { hello } = await open();
    expect(hello).toEqual({
      hello: {
        version: 1,
        height: 300,
        timestamp_millis: (await query('select timestamp_ms from blocks where height = 300'))[0].timestamp_ms,
        limits: {
          max_ids: 500,
          max_limit: 1000,
          max_subscriptions_per_connection: 20,
          max_message_bytes: 65536,
          credits_per_minute: 6000,
          max_buffered_bytes: 1048576,
        },
      },
      credits_used: 0,
    });
  });

  it('hello comes before the reply to a request sent at once', async () => {
    const client = await SocketClient.open(wsUrl);
    clients.push(client);
    const reply = await client.request('tokens.get', { limit: 1 });
    expect(reply.result.rows.length).toBe(1);
    expect(client.received.map((m) => (m.hello ? 'hello' : m.id))).toEqual(['hello', 1]);
  });

  it('errors: unknown method, bad params, bad messages, too large', async () => {
    const { client } = await open();
    expect(await client.request('tokens.nope', {})).toEqual({ id: 1, error: { code: 'unknown_method', message: 'no method "tokens.nope"' } });
    const bad = await client.request('tokens.get', { limit: 0 });
    expect(bad.id).toBe(2);
    expect(bad.error.code).toBe('bad_request');
    client.sendRaw('{not json');
    expect((await client.next()).error.code).toBe('bad_request');
    client.sendRaw(JSON.stringify({ id: 'x', method: 'schema' }));
    expect(await client.next()).toMatchObject({ id: null, error: { code: 'bad_request' } });
    client.sendRaw(JSON.stringify({ id: 9, method: 'tokens.get', params: { ids: Array.from({ length: 7000 }, (_, i) => `t${i}.near`) } }));
    expect(await client.next()).toMatchObject({ id: null, error: { code: 'too_large' } });
    // The connection stays usable.
    expect((await client.request('tokens.get', { limit: 1 })).result.rows.length).toBe(1);
  });

  it('at most 20 subscriptions per connection; unsubscribe frees one; unknown sub is not_found', async () => {
    const { client } = await open();
    for (let id = 1; id <= 20; id++) expect((await client.request('tokens.subscribe', { ids: [WNEAR] }, id)).result).toBeDefined();
    expect((await client.request('tokens.subscribe', { ids: [WNEAR] }, 21)).error.code).toBe('limit_exceeded');
    expect(await client.request('unsubscribe', { sub: 5 }, 22)).toEqual({ id: 22, result: { sub: 5 } });
    expect((await client.request('unsubscribe', { sub: 5 }, 23)).error.code).toBe('not_found');
    expect((await client.request('tokens.subscribe', { ids: [WNEAR] }, 24)).result).toBeDefined();
  });
});

describe('subscriptions', () => {
  it('push set, left and min_change after new blocks are committed', async () => {
    const { client } = await open();
    const columns = ['account_id', ...FIELDS];
    // A: two tokens, every change.  B: the two most recently repriced tokens (its list changes).  C: wNEAR's price
    // only past a 1000% move (never, here).  D: wNEAR's price on every change.
    const a = await client.request('tokens.subscribe', { ids: [WNEAR, USDC], fields: FIELDS }, 1);
    const b = await client.request('tokens.subscribe', { fields: ['price_height'], sort: { by: 'price_height', desc: true }, limit: 2 }, 2);
    const c = await client.request('tokens.subscribe', { ids: [WNEAR], fields: ['price_usd'], min_change: { price_usd: '1000%' } }, 3);
    const d = await client.request('tokens.subscribe', { ids: [WNEAR], fields: ['price_usd'] }, 4);
    // The reply is the token table, as tokens.get gives it at the same height.
    expect(a.result).toEqual(await tokensGet(`ids=${WNEAR},${USDC}&fields=${FIELDS.join(',')}`));
    expect(b.result).toEqual(await tokensGet('fields=price_height&sort=-price_height&limit=2'));
    const views = new Map([1, 2, 3, 4].map((sub, i) => [sub, new View([a, b, c, d][i]!.result)]));
    const before = [...views.get(2)!.tokens.keys()];
    // A historical page (newest first, after a cursor) answered at 300, and a live one.
    const cursorPage = async () => app.inject({ url: `/trades?limit=3&cursor=${encodeURIComponent(firstTrades.next_cursor)}` });
    const firstTrades = JSON.parse((await app.inject({ url: '/trades?limit=3' })).body) as Message;
    const historical = await cursorPage();
    expect(historical.headers['cache-control']).toBe('public, max-age=86400');

    await ingestTo(db, 370);

    // The cached historical answer keeps the height and latest_id of its first answer.
    const again = await cursorPage();
    expect(again.body).toBe(historical.body);
    expect(JSON.parse(again.body).height).toBe(300);

    // The premises, from the tables: wNEAR was repriced, and the two most recently repriced tokens changed.
    const [{ n }] = await query(`select count(*)::int as n from prices where token = $1 and block_height > 300 and block_height <= 370`, [WNEAR]);
    expect(n, 'wNEAR is repriced between blocks 300 and 370').toBeGreaterThan(0);
    // The server hears of the new blocks by NOTIFY, a moment after they commit: until then it serves its cache.
    let expectedA = await tokensGet(`ids=${WNEAR},${USDC}&fields=${FIELDS.join(',')}`);
    for (let tries = 0; expectedA.height !== 370 && tries < 100; tries++) {
      await new Promise((r) => setTimeout(r, 50));
      expectedA = await tokensGet(`ids=${WNEAR},${USDC}&fields=${FIELDS.join(',')}`);
    }
    const expectedB = await tokensGet('fields=price_height&sort=-price_height&limit=2');
    const expectedD = await tokensGet(`ids=${WNEAR}&fields=price_usd`);
    expect(expectedA.height).toBe(370);
    const after = expectedB.rows.map((r: unknown[]) => r[0]);
    const leavers = before.filter((t) => !after.includes(t));
    expect(leavers.length, 'the followed list of B changes').toBeGreaterThan(0);

    // Merge pushes until every view shows the state at 370 (a missing push would leave the test waiting). Rounds
    // run one after another, each on the latest tables, so once a view matches no later push undoes it.
    const pushes: Message[] = [];
    const done = () =>
      JSON.stringify(views.get(1)!.asRows(columns).sort()) === JSON.stringify([...expectedA.rows].sort()) &&
      JSON.stringify(views.get(2)!.asRows(['account_id', 'price_height']).sort()) === JSON.stringify([...expectedB.rows].sort()) &&
      JSON.stringify(views.get(4)!.asRows(['account_id', 'price_usd'])) === JSON.stringify(expectedD.rows);
    while (!done()) {
      const push = await client.next();
      expect(push.sub).toBeDefined();
      pushes.push(push);
      // Only changed fields travel: no pushed field repeats the value the view already has.
      const view = views.get(push.sub)!;
      for (const [token, fields] of Object.entries(push.set ?? {})) {
        const known = view.tokens.get(token);
        if (known) for (const [field, value] of Object.entries(fields as object)) expect(value, `${token}.${field}`).not.toEqual(known[field]);
      }
      view.apply(push);
    }
    // A notification that brought pushes also dropped the live answers cached before it.
    expect(JSON.parse((await app.inject({ url: '/trades?limit=3' })).body).height).toBeGreaterThan(300);
    // Everything sent in the same round is queued before the reply to a later request.
    await client.request('schema', {}, 99);
    for (const push of client.drainQueued()) pushes.push(push);

    // Every token gone from B's two by 370 left it; one may also join and leave between 300 and 370 (the indexer writes
    // a batch, and the server runs a round, as often as blocks come), and each that left was followed first.
    const ofB = pushes.filter((p) => p.sub === 2);
    const leftOfB = ofB.flatMap((p) => p.left ?? []);
    expect(leavers.filter((t) => !leftOfB.includes(t))).toEqual([]);
    const joinedB = new Set(ofB.flatMap((p) => Object.keys(p.set ?? {})));
    expect(leftOfB.filter((t) => !before.includes(t) && !joinedB.has(t))).toEqual([]);
    expect(pushes.every((p) => p.height > 300 && p.height <= 370)).toBe(true);
    // C's threshold was never reached: nothing was pushed to it, and its view keeps the price of block 300.
    expect(pushes.filter((p) => p.sub === 3)).toEqual([]);
    expect(views.get(3)!.asRows(['account_id', 'price_usd'])).toEqual(c.result.rows);
    expect(views.get(4)!.asRows(['account_id', 'price_usd'])).not.toEqual(d.result.rows);
  }, 120_000);

  it('no pushes after unsubscribe', async () => {
    const { client } = await open();
    await client.request('tokens.subscribe', { ids: [WNEAR], fields: ['volume_usd_24h'] }, 1);
    await client.request('tokens.subscribe', { fields: ['volume_usd_24h'], limit: 3 }, 2);
    expect(await client.request('unsubscribe', { sub: 1 }, 3)).toEqual({ id: 3, result: { sub: 1 } });
    await ingestTo(db, 385);
    // Sub 2 follows the three deepest tokens, wNEAR among them: its push comes, sub 1's must not.
    const push = await client.next();
    expect(push.sub).toBe(2);
    await client.request('schema', {}, 4);
    expect(client.drainQueued().filter((p) => p.sub === 1)).toEqual([]);
  }, 120_000);

  it('subscribers with equal params each get their own pushes, made once, whenever they subscribed', async () => {
    const params = { ids: [WNEAR, USDC], fields: ['price_usd', 'volume_usd_24h'] };
    const columns = ['account_id', ...params.fields];
    const one = (await open()).client;
    const two = (await open()).client;
    // 7 subscribes at the current head; 8 and 9 (one connection) after more blocks; 5 waits for a 1000% move.
    const seven = await one.request('tokens.subscribe', params, 7);
    const five = await one.request('tokens.subscribe', { ...params, min_change: { price_usd: '1000%', volume_usd_24h: '1000%' } }, 5);
    await ingestTo(db, 392);
    const eight = await two.request('tokens.subscribe', params, 8);
    const nine = await two.request('tokens.subscribe', params, 9);
    expect(eight.result.height).toBe(392);
    // The premise, from the tables: wNEAR or USDC is repriced after 392 (ingested 20 blocks at a time until it is, so
    // the premise does not hang on where the seeded chain happens to reprice them).
    const repriced = async (to: number) => (await query(`select count(*)::int as n from prices where token = any($1) and block_height > 392 and block_height <= $2`, [[WNEAR, USDC], to]))[0].n;
    let head = 392;
    do await ingestTo(db, (head += 20));
    while (head < 800 && (await repriced(head)) === 0);
    expect(await repriced(head), 'wNEAR or USDC is repriced after block 392').toBeGreaterThan(0);
    let expected = await tokensGet(`ids=${WNEAR},${USDC}&fields=${params.fields.join(',')}`);
    for (let tries = 0; expected.height !== head && tries < 100; tries++) {
      await new Promise((r) => setTimeout(r, 50));
      expected = await tokensGet(`ids=${WNEAR},${USDC}&fields=${params.fields.join(',')}`);
    }
    expect(expected.height).toBe(head);

    const views = new Map([[7, new View(seven.result)], [8, new View(eight.result)], [9, new View(nine.result)]]);
    const matches = (sub: number) => JSON.stringify(views.get(sub)!.asRows(columns).sort()) === JSON.stringify([...expected.rows].sort());
    const pushes: Message[] = [];
    const take = async (client: SocketClient, subs: number[]) => {
      while (!subs.every(matches)) {
        const push = await client.next();
        expect(subs, `push of sub ${push.sub}`).toContain(push.sub);
        pushes.push(push);
        views.get(push.sub)!.apply(push);
      }
    };
    await take(one, [7]);
    await take(two, [8, 9]);
    // 8 and 9 started from the same state: every round pushed them the same thing, each under its own sub id.
    const after392 = (sub: number) => pushes.filter((p) => p.sub === sub && p.height > 392).map(({ sub: _sub, ...rest }) => rest);
    expect(after392(8).length).toBeGreaterThan(0);
    expect(after392(9)).toEqual(after392(8));
    // 5's threshold was never reached.
    await one.request('schema', {}, 98);
    expect([...pushes, ...one.drainQueued()].filter((p) => p.sub === 5)).toEqual([]);
    expect(five.result.height).toBe(seven.result.height);
  }, 120_000);

  it('a client that does not read is cut off', async () => {
    const { client } = await open();
    const closed = new Promise<number>((resolve) => client.ws.once('close', (code) => resolve(code)));
    // Stop reading: the server's unsent bytes pile up past LIMITS.max_buffered_bytes (1 MiB) plus what the
    // kernel's socket buffers hold (a few MiB on loopback). Ask for 64 MiB of schema replies, far more than both.
    const raw = (client.ws as unknown as { _socket: import('node:net').Socket })._socket;
    raw.pause();
    const schemaBytes = (await app.inject({ url: '/schema' })).body.length;
    const count = Math.ceil((64 * 1024 * 1024) / schemaBytes);
    for (let id = 1; id <= count; id++) client.sendRaw(JSON.stringify({ id, method: 'schema' }));
    raw.resume();
    // Terminated by the server: an abnormal close (1006), not a clean one.
    expect(await closed).toBe(1006);
  }, 120_000);
});
