// The typed client the README offers to apps, as it says to make it: openapi-typescript over the served
// /openapi.json, openapi-fetch with the api's list style, against the real api over realnet data. Its answers are
// the api's own.
import createClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../web/src/api-types.ts';
import { indexedRealnetDb } from '../harness/realnet.ts';
import { startSite, type Site } from '../harness/site.ts';

const db = await indexedRealnetDb('typed-client', 120);
let site: Site;

beforeAll(async () => {
  site = await startSite(db, 'typed-client', 120);
}, 120_000);
afterAll(async () => {
  await site?.close();
});

const raw = async (path: string) => (await fetch(`${site.url}${path}`)).json();

describe('the typed client for apps', () => {
  it('openapi-typescript reads the served /openapi.json into types with every path', async () => {
    const types = astToString(await openapiTS(new URL(`${site.url}/openapi.json`)));
    for (const path of ['/route', '/tokens', '/candles', '/trades', '/holders', '/health', '/metrics', '/indexer']) expect(types).toContain(`"${path}": {`);
  });

  it('openapi-fetch with the README\'s settings gets the same answers as plain requests', async () => {
    const dexlake = createClient<paths>({ baseUrl: site.url, querySerializer: { array: { style: 'form', explode: false } } });

    const tokens = await dexlake.GET('/tokens', { params: { query: { fields: ['symbol', 'price_usd'], limit: 10 } } });
    expect(tokens.response.status).toBe(200);
    expect(tokens.data!.columns).toEqual(['account_id', 'symbol', 'price_usd']);
    expect(tokens.data).toEqual(await raw('/tokens?fields=symbol,price_usd&limit=10'));

    const query = { token_in: 'near', token_out: 'usdt.tether-token.near', amount_in: '1000000000000000000000000', max_wait_ms: 0, slippage_type: 'Fixed', slippage: '0.005' } as const;
    const route = await dexlake.GET('/route', { params: { query } });
    expect(route.response.status).toBe(200);
    expect(route.data!.length).toBeGreaterThan(1);
    expect(route.data!.map((q) => q.dex_id)).toEqual((await raw(`/route?${new URLSearchParams({ ...query, max_wait_ms: '0' })}`)).map((q: { dex_id: string }) => q.dex_id));

    // A documented error comes back as the client's `error`, typed by the document.
    const tooMany = await dexlake.GET('/holders', { params: { query: { token: 'wrap.near', limit: 1_000_000 } } });
    expect(tooMany.response.status).toBe(400);
    expect(tooMany.data).toBeUndefined();
    expect(tooMany.error).toEqual(await raw('/holders?token=wrap.near&limit=1000000'));
    expect(tooMany.error!.error.code).toBe('bad_request');
  });
});
