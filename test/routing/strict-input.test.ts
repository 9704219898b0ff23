// GET /route and /route/subscribe take nothing they do not know (issue 32, point 3): a parameter the spec does not
// list is a 400 naming it, and a token the service has never seen (no `tokens` row, no routed pool) is a 400 naming
// it, where a pair of known tokens with no route between them is 200 [].
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../api/server.ts';
import { createMigratedDb } from '../harness/db.ts';
import { BlockWriter, eventually, getRoute, inbox } from './helpers.ts';

const REF = 'v2.ref-finance.near';
const simple = (tokens: string[]) => ({ kind: 'simple', tokens, amounts: [1_000_000n, 2_000_000n], totalFee: 30, exchangeFee: 0, referralFee: 0 });
const PARAMS = { token_in: 'alpha.near', token_out: 'beta.near', amount_in: '1000', max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.01' };

describe('GET /route: strict input', () => {
  let app: FastifyInstance;
  const get = async (params: Record<string, string>) => {
    const res = await getRoute(app, params);
    return [res.status, res.body];
  };

  beforeAll(async () => {
    const db = await createMigratedDb();
    const writer = new BlockWriter(db);
    // alpha and beta in one pool, gamma and delta in another; lone.near only minted (a `tokens` row, no pool).
    await writer.write(
      [
        { dex: 'AmmA', contractId: REF, poolId: 1, state: simple(['alpha.near', 'beta.near']) },
        { dex: 'AmmA', contractId: REF, poolId: 2, state: simple(['gamma.near', 'delta.near']) },
      ],
      [],
      [{ kind: 'ft_mint', contractId: 'lone.near', owner: 'alice.near', amount: 5n }],
    );
    app = await buildServer({ db, logLevel: 'silent' });
    await app.ready();
    await eventually(async () => ((await getRoute(app, PARAMS)).json().length > 0 ? true : undefined));
  });
  afterAll(() => app?.close());

  it('an unknown parameter is a 400 naming it, in plain text', async () => {
    const res = await app.inject({ method: 'GET', url: `/route?${new URLSearchParams({ ...PARAMS, slipage: '0.5' })}` });
    expect([res.statusCode, res.headers['content-type'], res.body]).toEqual([400, 'text/plain; charset=utf-8', 'Unknown parameter: slipage']);
    // Every parameter of the spec is still taken.
    const all = { ...PARAMS, trader_account_id: 'alice.near', referrer_id: 'ref.near', dexes: 'AmmA', signing_public_key: 'ed25519:x' };
    expect((await get(all))[0]).toBe(200);
  });

  it('an unknown token is a 400 naming it; a known pair with no route is 200 []', async () => {
    expect(await get({ ...PARAMS, token_out: 'nosuch.near' })).toEqual([400, 'Unknown token: nosuch.near']);
    expect(await get({ ...PARAMS, token_in: 'nep141:nosuch.near' })).toEqual([400, 'Unknown token: nosuch.near']);
    expect(await get({ ...PARAMS, token_in: 'inner-nep141:nosuch.near' })).toEqual([400, 'Unknown token: inner-nep141:nosuch.near']);
    // Known from a pool, or from the tokens table alone; `near` always: no route between them is [].
    expect(await get({ ...PARAMS, token_out: 'gamma.near' })).toEqual([200, '[]']);
    expect(await get({ ...PARAMS, token_out: 'lone.near' })).toEqual([200, '[]']);
    expect(await get({ ...PARAMS, token_in: 'near', token_out: 'inner-nep141:delta.near' })).toEqual([200, '[]']);
  });

  it('/route/subscribe answers the same texts', async () => {
    const ws = await app.injectWS('/route/subscribe');
    const box = inbox(ws);
    ws.send(JSON.stringify({ id: 1, query: new URLSearchParams({ ...PARAMS, slipage: '0.5' }).toString() }));
    expect(JSON.parse(await box.next())).toEqual({ id: 1, error: 'Unknown parameter: slipage' });
    ws.send(JSON.stringify({ id: 2, query: new URLSearchParams({ ...PARAMS, token_out: 'nosuch.near' }).toString() }));
    expect(JSON.parse(await box.next())).toEqual({ id: 2, error: 'Unknown token: nosuch.near' });
    ws.send(JSON.stringify({ id: 3, query: new URLSearchParams({ ...PARAMS, token_out: 'gamma.near' }).toString() }));
    expect(JSON.parse(await box.next())).toEqual({ id: 3, routes: [], height: 1 });
    ws.terminate();
  });
});
