// Token-data methods refuse ids that cannot exist with `invalid_params` (issue 32, point 3): a DEX id outside the
// registry, a malformed NEAR account id; over GET, POST and /ws alike. Every other broken rule stays `bad_request`.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMigratedDb } from '../harness/db.ts';
import { ingestTo, SocketClient, startServer } from './harness.ts';

let app: FastifyInstance;
let wsUrl: string;

beforeAll(async () => {
  const db = await createMigratedDb();
  await ingestTo(db, 5);
  ({ app, wsUrl } = await startServer(db));
}, 120_000);
afterAll(() => app?.close());

const get = async (url: string) => {
  const res = await app.inject({ url });
  return [res.statusCode, JSON.parse(res.body).error] as const;
};

describe('invalid_params', () => {
  it('an unknown DEX id, named with the list of the known ones', async () => {
    const [status, error] = await get('/trades?dex=AmmX');
    expect(status).toBe(400);
    expect(error).toEqual({ code: 'invalid_params', message: 'dex: "AmmX" is not a DEX id: expected one of AmmA, AmmDclA, AmmC, QuoteA, Launch, Wrap, StakeA, StakeB, StakeC, StakeD' });
    // Ids are case-sensitive (spec).
    expect((await get('/trades?dex=amma'))[1].code).toBe('invalid_params');
    expect((await app.inject({ url: '/trades?dex=AmmA' })).statusCode).toBe(200);
  });

  it('a malformed account id, in every account parameter', async () => {
    for (const url of [
      '/balances?account_id=Alice.near',
      '/balances?account_id=a',
      `/activity?account_id=${'a'.repeat(65)}`,
      '/positions?account_id=alice..near',
      '/trades?trader=-alice.near',
      '/transfers?account=alice.near.',
      '/transfers?from=al%20ice.near',
      '/transfers?to=alice@near',
    ]) {
      const [status, error] = await get(url);
      expect([status, error.code], url).toEqual([400, 'invalid_params']);
      expect(error.message, url).toMatch(/^[a-z_]+: ".*" is not a NEAR account id$/);
    }
    // Implicit and ETH-implicit ids are account ids.
    for (const account of ['a'.repeat(64), `0x${'b'.repeat(40)}`, 'alice.near']) {
      expect((await app.inject({ url: `/balances?account_id=${account}` })).statusCode, account).toBe(200);
    }
  });

  it('POST and /ws answer the same', async () => {
    const post = await app.inject({ method: 'POST', url: '/balances', payload: { account_id: 'Alice.near' } });
    expect([post.statusCode, JSON.parse(post.body).error.code]).toEqual([400, 'invalid_params']);
    const client = await SocketClient.open(wsUrl);
    try {
      await client.next(); // hello
      expect((await client.request('trades.query', { dex: 'AmmX' })).error.code).toBe('invalid_params');
      expect((await client.request('activity.query', { account_id: 'Alice.near' })).error.code).toBe('invalid_params');
    } finally {
      client.close();
    }
  });

  it('other broken rules stay bad_request', async () => {
    for (const url of ['/trades?limit=abc', '/trades?colour=red', '/balances', '/trades?dex=AmmA&dex=AmmC']) {
      expect((await get(url))[1].code, url).toBe('bad_request');
    }
  });
});
