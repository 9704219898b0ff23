// trades.subscribe on /ws: after the indexer commits more realnet blocks (its NOTIFY), each feed gets the trades of
// the new blocks that match it, oldest first, as trades.query rows; by token, by pool (with or without its DEX), by
// minimum USD value; each feed from its own height; unsubscribe, limits and refusals. The expected trades come from
// SQL on the `trades` table; the rows' form from trades.query over HTTP.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexedDb, ingestTo, SocketClient, startServer, type Message } from './harness.ts';

const db = await indexedDb(300);
let app: FastifyInstance;
let wsUrl: string;
const clients: SocketClient[] = [];

const WNEAR = 'wrap.near';

beforeAll(async () => {
  ({ app, wsUrl } = await startServer(db));
}, 120_000);
afterAll(async () => {
  for (const client of clients) client.close();
  await app?.close();
});

const query = async <T = any>(text: string, values: unknown[] = []) => (await db.pool.query(text, values)).rows as T[];

async function open(): Promise<SocketClient> {
  const client = await SocketClient.open(wsUrl);
  clients.push(client);
  await client.next(); // hello
  return client;
}

/** The ids of the trades in heights (from, to] matching `where`, oldest first. */
async function tradeIds(from: number, to: number, where: string, values: unknown[] = []): Promise<string[]> {
  const rows = await query(
    `select block_height || ':' || receipt_id || ':' || index as id from trades where block_height > ${from} and block_height <= ${to} and ${where}
     order by block_height, receipt_id, index`,
    values,
  );
  return rows.map((r) => r.id);
}

/** trades.query's rows (oldest first) for a query string, after a height. */
async function tradesAfter(params: string, height: number): Promise<Message[]> {
  const res = await app.inject({ url: `/trades?${params}&order=oldest&limit=1000` });
  return (JSON.parse(res.body).rows as Message[]).filter((r) => r.block_height > height);
}

/** Pushes of `client` until one of subscription `sentinel` reaches `height` (the sentinel, subscribed last on the
 * connection, is pushed last in each round, so every push of that round came before it). */
async function pushesUntil(client: SocketClient, sentinel: number, height: number): Promise<Message[]> {
  const pushes: Message[] = [];
  for (;;) {
    const message = await client.next();
    pushes.push(message);
    if (message.sub === sentinel && message.height >= height) return pushes;
  }
}

const trades = (pushes: Message[], sub: number) => pushes.filter((p) => p.sub === sub).flatMap((p) => p.trades as Message[]);

describe('trades.subscribe', () => {
  it('pushes the new trades of a token, a pool, a pool id alone and a minimum USD value, oldest first, as trades.query rows', async () => {
    const client = await open();
    const subscribed = [
      await client.request('trades.subscribe', { token: WNEAR }, 1),
      await client.request('trades.subscribe', { pool_id: '1', dex: 'AmmA' }, 2),
      await client.request('trades.subscribe', { pool_id: 'lumen.aidols.near' }, 3),
      await client.request('trades.subscribe', { min_usd: 100 }, 4),
      await client.request('trades.subscribe', { token: WNEAR, min_usd: 56.5 }, 5),
      await client.request('trades.subscribe', {}, 6),
    ];
    const [head] = await query('select height, timestamp_ms::int8 as ms from blocks order by height desc limit 1');
    for (const reply of subscribed) expect(reply.result).toEqual({ height: 300, timestamp_millis: Number(head.ms) });

    // Four batches, four notifications.
    for (const to of [310, 320, 330, 340]) await ingestTo(db, to);
    const pushes = await pushesUntil(client, 6, 340);
    expect(new Set(pushes.map((p) => p.height)).size).toBeGreaterThan(1);
    // Each push: the trades of the blocks after the previous push's height, up to its own.
    for (const sub of [1, 2, 3, 4, 5, 6]) {
      let from = 300;
      for (const push of pushes.filter((p) => p.sub === sub)) {
        expect(push.trades.length, `sub ${sub}`).toBeGreaterThan(0);
        expect(push.trades.every((t: Message) => t.block_height > from && t.block_height <= push.height), `sub ${sub}`).toBe(true);
        from = push.height;
      }
    }

    const ids = (sub: number) => trades(pushes, sub).map((t) => t.id);
    expect(ids(1)).toEqual(await tradeIds(300, 340, '(token_in = $1 or token_out = $1)', [WNEAR]));
    expect(ids(2)).toEqual(await tradeIds(300, 340, `dex = 'AmmA' and '1' = any(pool_ids)`));
    expect(ids(3)).toEqual(await tradeIds(300, 340, `dex = 'Launch' and 'lumen.aidols.near' = any(pool_ids)`));
    expect(ids(4)).toEqual(await tradeIds(300, 340, 'value_usd >= 100'));
    expect(ids(5)).toEqual(await tradeIds(300, 340, '(token_in = $1 or token_out = $1) and value_usd >= 56.5', [WNEAR]));
    expect(ids(6)).toEqual(await tradeIds(300, 340, 'true'));
    for (const sub of [1, 2, 3, 4, 6]) expect(ids(sub).length, `sub ${sub}`).toBeGreaterThan(0);
    // Between the two: some wNEAR trades worth less than 56.5 are left out.
    expect(ids(5).length).toBeLessThan(ids(1).length);

    // The rows are trades.query's: default fields, and side relative to the token.
    expect(trades(pushes, 1)).toEqual(await tradesAfter(`token=${WNEAR}`, 300));
    expect(trades(pushes, 2)).toEqual(await tradesAfter('pool_id=1&dex=AmmA', 300));
    expect(trades(pushes, 6)).toEqual(await tradesAfter('', 300));
  });

  it('each feed from its own height, equal feeds alike; no push after unsubscribe', async () => {
    const client = await open();
    const [start] = await query('select max(height)::int as h from blocks');
    await client.request('trades.subscribe', { token: WNEAR }, 1);
    await client.request('trades.subscribe', { token: WNEAR }, 2);
    await client.request('trades.subscribe', {}, 9);
    await ingestTo(db, start.h + 20);
    await pushesUntil(client, 9, start.h + 20);
    // A third feed like the first two, from the new height; the second one stops.
    const later = await client.request('trades.subscribe', { token: WNEAR }, 3);
    expect(later.result.height).toBe(start.h + 20);
    expect(await client.request('unsubscribe', { sub: 2 }, 10)).toEqual({ id: 10, result: { sub: 2 } });
    await client.request('unsubscribe', { sub: 9 }, 11);
    await client.request('trades.subscribe', {}, 12);
    client.drainQueued();
    const received = client.received.length;
    await ingestTo(db, start.h + 40);
    const pushes = await pushesUntil(client, 12, start.h + 40);
    const all = client.received.slice(received).filter((m) => m.sub !== undefined);
    expect(all.map((m) => m.sub)).not.toContain(2);
    const wnear = (from: number, to: number) => tradeIds(from, to, '(token_in = $1 or token_out = $1)', [WNEAR]);
    expect(trades(pushes, 1).map((t) => t.id)).toEqual(await wnear(start.h + 20, start.h + 40));
    expect(trades(pushes, 3).map((t) => t.id)).toEqual(await wnear(start.h + 20, start.h + 40));
    expect(trades(pushes, 1).length).toBeGreaterThan(0);
  });

  it('refuses a pool id of several DEXes and bad params; counts against the 20 subscriptions of a connection', async () => {
    const client = await open();
    expect((await client.request('trades.subscribe', { pool_id: '0' })).error).toEqual({ code: 'bad_request', message: 'pool_id "0" is a pool of AmmA, AmmC: give dex too' });
    for (const params of [{ min_usd: -1 }, { token: WNEAR, colour: 'red' }, { min_usd: '5' }]) {
      expect((await client.request('trades.subscribe', params)).error.code, JSON.stringify(params)).toBe('bad_request');
    }
    // A DEX id outside the registry (its error code is the token API's rule for ids).
    expect((await client.request('trades.subscribe', { dex: 'Nope' })).error).toBeDefined();
    for (let id = 100; id < 110; id++) expect((await client.request('tokens.subscribe', { ids: [WNEAR] }, id)).result).toBeDefined();
    for (let id = 200; id < 210; id++) expect((await client.request('trades.subscribe', { token: WNEAR }, id)).result).toBeDefined();
    expect((await client.request('trades.subscribe', { token: WNEAR }, 300)).error.code).toBe('limit_exceeded');
    expect((await client.request('trades.subscribe', { token: WNEAR }, 105)).error).toEqual({ code: 'bad_request', message: 'subscription 105 exists; use another id' });
    expect(await client.request('unsubscribe', { sub: 205 }, 400)).toEqual({ id: 400, result: { sub: 205 } });
    expect((await client.request('trades.subscribe', { token: WNEAR }, 300)).result).toBeDefined();
  });
});
