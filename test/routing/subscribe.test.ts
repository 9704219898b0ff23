// WebSocket /route/subscribe (spec A2, Events A): answers as GET /route does, re-routes on pool changes coming
// through the real NOTIFY path, sends only changed quotes, errors in place of quotes with the socket left open,
// closes on a frame that is not `{id, query?}`, ignores binary frames. Pool states are written through the store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { buildServer } from '../../api/server.ts';
import { parseRouteQuery, routeQueryParams } from '../../api/routing/params.ts';
import { parseSubscribeMessage } from '../../api/routing/subscribe.ts';
import type { Dex } from '../../dexes/dex.ts';
import { DEXES } from '../../dexes/index.ts';
import { createMigratedDb } from '../harness/db.ts';
import { BlockWriter, eventually, getRoute, inbox } from './helpers.ts';

const REF = 'v2.ref-finance.near';
const simple = (amounts: bigint[]) => ({ kind: 'simple', tokens: ['alpha.near', 'beta.near'], amounts, totalFee: 30, exchangeFee: 0, referralFee: 0 });
const PARAMS = { token_in: 'alpha.near', token_out: 'beta.near', amount_in: '1000', max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.01', dexes: 'AmmA' };
const QUERY = new URLSearchParams(PARAMS).toString();

/** The heights of the AmmA:1 states the router made hops of: a route over AmmA after each new graph version makes
 * them (they are cached per version), so each entry is a round that routed that state. */
const routedAt: number[] = [];
/** The real registry, AmmA's hops observed on their way out (nothing else changed). */
const dexes: Dex[] = DEXES.map((d) =>
  d.id !== 'AmmA' || d.routing?.hops === undefined
    ? d
    : {
        ...d,
        routing: {
          ...d.routing,
          hops: (pool, ctx) => {
            if (pool.poolId === '1') routedAt.push(pool.updatedHeight);
            return d.routing!.hops!(pool, ctx);
          },
        },
      },
);

/** The socket's text messages, in order. */
describe('WebSocket /route/subscribe', () => {
  let app: FastifyInstance;
  let writer: BlockWriter;

  beforeAll(async () => {
    const db = await createMigratedDb();
    writer = new BlockWriter(db);
    await writer.write([{ dex: 'AmmA', contractId: REF, poolId: 1, state: simple([1_000_000n, 2_000_000n]) }]);
    app = await buildServer({ db, logLevel: 'silent', dexes });
    await app.ready();
  });
  afterAll(() => app?.close());

  /** Waits until GET /route reflects the latest write (the graph applied its notification). */
  const applied = (amountOut: string) =>
    eventually(async () => ((await getRoute(app, PARAMS)).json()[0]?.estimated_amount.amount_out === amountOut ? true : undefined));

  it('answers like GET /route, then only when the quotes change', async () => {
    const ws = await app.injectWS('/route/subscribe');
    const box = inbox(ws);
    ws.send(JSON.stringify({ id: 1, query: QUERY }));
    const first = await box.next();
    // GET /route's array, and the height it was computed at (the one block written: 1), which GET gives in a header.
    const get = await getRoute(app, PARAMS);
    expect(get.height).toBe('1');
    expect(first).toBe(`{"id":1,"routes":${get.body},"height":1}`);
    expect(JSON.parse(first).routes[0].estimated_amount).toEqual({ amount_out: '1992' });

    // A write the query's quotes do not depend on: the same reserves for AmmA:1 (named by the notification, so the
    // request is routed again), a new AmmC pool of other tokens and a pool of AmmC on the query's pair (a DEX the
    // query does not ask). A second socket, subscribed to the new pool's pair on AmmC alone, tells when the graph has
    // applied it; it routes no AmmA, so only the first socket's round routes AmmA:1's new state.
    const probe = await app.injectWS('/route/subscribe');
    const probeBox = inbox(probe);
    probe.send(JSON.stringify({ id: 100, query: new URLSearchParams({ ...PARAMS, token_in: 'gamma.near', token_out: 'delta.near', dexes: 'AmmC' }).toString() }));
    // Tokens no table holds yet: GET /route's error in place of quotes, and the request stays.
    expect(JSON.parse(await probeBox.next())).toEqual({ id: 100, error: 'Unknown token: gamma.near' });
    await writer.write([
      { dex: 'AmmA', contractId: REF, poolId: 1, state: simple([1_000_000n, 2_000_000n]) },
      {
        dex: 'AmmC',
        contractId: 'dex.intear.near',
        poolId: 9,
        state: { kind: 'xyk', poolType: 'public', tokens: ['gamma.near', 'delta.near'], amounts: [1_000_000n, 1_000_000n], totalFee: 0, feeReceivers: [], phantomLiquidity: null, totalShares: null },
      },
      {
        dex: 'AmmC',
        contractId: 'dex.intear.near',
        poolId: 3,
        state: { kind: 'xyk', poolType: 'public', tokens: ['alpha.near', 'beta.near'], amounts: [5n, 5n], totalFee: 0, feeReceivers: [], phantomLiquidity: null, totalShares: null },
      },
    ]);
    expect(JSON.parse(await probeBox.next())).toMatchObject({ routes: [{ dex_id: 'AmmC' }], height: 2 });
    probe.terminate();
    // The first socket's paced round routes block 2's AmmA:1 before the next write (the rest of that round, sending
    // or not, runs without I/O, so before the write below). Had it resent its unchanged quotes, that message would
    // come before the update below.
    await eventually(async () => (routedAt.includes(2) ? true : undefined), 400);
    // Then a change: floor(1000·9970·2 000 000 / (10000·2 000 000 + 1000·9970)) = 996. It is the next message.
    await writer.write([{ dex: 'AmmA', contractId: REF, poolId: 1, state: simple([2_000_000n, 2_000_000n]) }]);
    const update = JSON.parse(await box.next());
    expect(update.id).toBe(1);
    // Routed at block 3: the unchanged quotes of block 2 were not sent, and the push says which state it is of.
    expect(update.height).toBe(3);
    expect(update.routes.map((q: { estimated_amount: unknown }) => q.estimated_amount)).toEqual([{ amount_out: '996' }]);
    expect(box.pending()).toBe(0);
    ws.terminate();
  });

  it('an invalid query gets {id, error} with the HTTP text and the socket stays open; binary frames are ignored', async () => {
    const ws = await app.injectWS('/route/subscribe');
    const box = inbox(ws);
    ws.send(JSON.stringify({ id: 2, query: QUERY.replace('slippage=0.01', 'slippage=2') }));
    expect(JSON.parse(await box.next())).toEqual({ id: 2, error: 'Slippage must be between 0.00 and 1.00' });
    ws.send(Buffer.from(JSON.stringify({ id: 9, query: QUERY })), { binary: true });
    ws.send(JSON.stringify({ id: 3, query: `?${QUERY}` }));
    expect(JSON.parse(await box.next()).id).toBe(3);
    ws.terminate();
  });

  it('a message without query stops the request; a new one replaces it', async () => {
    const ws = await app.injectWS('/route/subscribe');
    const box = inbox(ws);
    ws.send(JSON.stringify({ id: 4, query: QUERY }));
    const current = JSON.parse(await box.next()).routes[0].estimated_amount.amount_out as string;
    ws.send(JSON.stringify({ id: 4 }));
    // 1 000 000 / 3 000 000: floor(1000·9970·3 000 000 / (10000·1 000 000 + 1000·9970)) = floor(29 910 000 000 000 / 10 009 970 000) = 2988
    await writer.write([{ dex: 'AmmA', contractId: REF, poolId: 1, state: simple([1_000_000n, 3_000_000n]) }]);
    await applied('2988');
    expect(current).not.toBe('2988');
    ws.send(JSON.stringify({ id: 5, query: QUERY }));
    const next = JSON.parse(await box.next());
    expect([next.id, next.routes[0].estimated_amount]).toEqual([5, { amount_out: '2988' }]);
    ws.terminate();
  });

  it('a frame that is not {id, query?} closes the connection', async () => {
    for (const frame of ['not json', '{"id":-1}', '{"id":1,"query":5}', '{"query":"x"}', '[1]', '{"id":1,"extra":true}']) {
      const ws = await app.injectWS('/route/subscribe');
      const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
      ws.send(frame);
      expect(await closed).toBe(1008);
    }
  });
});

describe('subscribe message parsing', () => {
  it('reads {id, query?} and query strings like HTTP does', () => {
    expect(parseSubscribeMessage('{"id":7,"query":"a=1"}')).toEqual({ id: 7, query: 'a=1' });
    expect(parseSubscribeMessage('{"id":0}')).toEqual({ id: 0 });
    expect(parseSubscribeMessage('{"id":1.5}')).toBeNull();
    expect(routeQueryParams('?a=1&b=2&a=3')).toEqual({ a: ['1', '3'], b: '2' });
    // Names of Object.prototype are parameters like any other, given once (not "already set").
    expect(parseRouteQuery(routeQueryParams('constructor=1&toString=2'), 'mainnet')).not.toMatchObject({ error: expect.stringContaining('more than once') });
  });
});
