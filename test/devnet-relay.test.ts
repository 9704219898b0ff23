// The local solver relay over real HTTP and a real database: 50 realnet blocks ingested, then JSON-RPC requests as
// a client of the NEAR Intents relay sends them. Expected amounts are computed here from the `pools` row's reserves
// with the simple-pool formulas written out (near-facts.md, AmmA) and the solver's 0.3 % spread.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest } from '../indexer/pipeline.ts';
import { startSolverRelay, type SolverRelay } from '../devnet/relay.ts';
import { realnetSource } from '../indexer/sources/realnet.ts';
import { createMigratedDb } from './harness/db.ts';

const WNEAR = 'wrap.near';
const USDT = 'usdt.tether-token.near';
const never = new AbortController().signal;

let db: Awaited<ReturnType<typeof createMigratedDb>>;
let relay: SolverRelay;
/** The wNEAR/USDT pool's row after block 50: reserves and fee. */
let pool: { x: bigint; y: bigint; fee: bigint };

beforeAll(async () => {
  db = await createMigratedDb();
  const result = await ingest({ db, source: realnetSource({ seed: 'relay-test', speed: 0 }), to: 50, signal: never });
  expect(result.height).toBe(50);
  relay = await startSolverRelay({ db, host: '127.0.0.1', port: 0 });
  // The only AmmA pool holding both wNEAR and USDT (Ref's pool 0 on the realnet, made in its setup).
  const rows = await db.kysely.selectFrom('pools').select(['pool_id', 'tokens', 'amounts', 'total_fee']).where('dex', '=', 'AmmA').execute();
  const pair = rows.filter((r) => r.tokens.includes(WNEAR) && r.tokens.includes(USDT));
  expect(pair.map((r) => r.pool_id)).toEqual(['0']);
  const row = pair[0]!;
  const wnearFirst = row.tokens[0] === WNEAR;
  const [a, b] = row.amounts.map((v) => BigInt(v));
  pool = { x: wnearFirst ? a! : b!, y: wnearFirst ? b! : a!, fee: BigInt(row.total_fee) };
});

afterAll(async () => {
  await relay?.close();
});

async function rpc(body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${relay.url}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const quoteRequest = (params: Record<string, unknown>, id: number | string = 1) => ({ jsonrpc: '2.0', id, method: 'quote', params: [params] });

describe('solver relay: quote', () => {
  it('exact in: amount_out is the pool row\'s simple-pool output less the 0.3 % spread', async () => {
    const amountIn = 10n * 10n ** 24n; // 10 wNEAR
    const { status, json } = await rpc(
      quoteRequest({ defuse_asset_identifier_in: `nep141:${WNEAR}`, defuse_asset_identifier_out: `nep141:${USDT}`, exact_amount_in: amountIn.toString(), min_deadline_ms: 60_000 }),
    );
    expect(status).toBe(200);
    // out = floor(a·(10000 − f)·Y / (10000·X + a·(10000 − f))), then the spread: floor(out·9970 / 10000).
    const { x, y, fee } = pool;
    const gross = (amountIn * (10_000n - fee) * y) / (10_000n * x + amountIn * (10_000n - fee));
    const expected = (gross * 9_970n) / 10_000n;
    expect(expected).toBeGreaterThan(0n);
    expect(json.id).toBe(1);
    const quotes = json.result as Array<Record<string, string>>;
    expect(quotes).toHaveLength(1);
    expect(quotes[0]).toMatchObject({
      defuse_asset_identifier_in: `nep141:${WNEAR}`,
      defuse_asset_identifier_out: `nep141:${USDT}`,
      amount_in: amountIn.toString(),
      amount_out: expected.toString(),
    });
    expect(quotes[0]!.quote_hash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(Number.isNaN(Date.parse(quotes[0]!.expiration_time!))).toBe(false);
  });

  it('exact out: amount_in is the pool\'s exact-out input for the output grossed up by the spread', async () => {
    const amountOut = 100_000_000n; // 100 USDT
    const { json } = await rpc(
      quoteRequest({ defuse_asset_identifier_in: `nep141:${WNEAR}`, defuse_asset_identifier_out: `nep141:${USDT}`, exact_amount_out: amountOut.toString(), min_deadline_ms: 60_000 }),
    );
    // The pool must give g = ceil(b·10000 / 9970); its exact-out input for g is floor(X·g·10000 / ((Y − g)·(10000 − f))) + 1.
    const { x, y, fee } = pool;
    const g = (amountOut * 10_000n + 9_969n) / 9_970n;
    const expectedIn = (x * g * 10_000n) / ((y - g) * (10_000n - fee)) + 1n;
    const quotes = json.result as Array<Record<string, string>>;
    expect(quotes.map((q) => [q.amount_in, q.amount_out])).toEqual([[expectedIn.toString(), amountOut.toString()]]);
  });

  it('an unknown token, or a pair no pool holds, gives an empty list', async () => {
    const unknown = await rpc(quoteRequest({ defuse_asset_identifier_in: 'nep141:nosuch.near', defuse_asset_identifier_out: `nep141:${USDT}`, exact_amount_in: '1000' }));
    expect(unknown.json).toEqual({ jsonrpc: '2.0', id: 1, result: [] });
    const multiToken = await rpc(quoteRequest({ defuse_asset_identifier_in: 'nep245:v2_1.omni.hot.tg:56_11111111111111111111', defuse_asset_identifier_out: `nep141:${USDT}`, exact_amount_in: '1000' }));
    expect(multiToken.json.result).toEqual([]);
  });

  it('the same request twice gives the same quote hash; another amount another hash', async () => {
    const params = { defuse_asset_identifier_in: `nep141:${USDT}`, defuse_asset_identifier_out: `nep141:${WNEAR}`, exact_amount_in: '250000000', min_deadline_ms: 60_000 };
    const first = (await rpc(quoteRequest(params))).json.result as Array<{ quote_hash: string }>;
    const second = (await rpc(quoteRequest(params, 'two'))).json.result as Array<{ quote_hash: string }>;
    const other = (await rpc(quoteRequest({ ...params, exact_amount_in: '250000001' }))).json.result as Array<{ quote_hash: string }>;
    expect(first).toHaveLength(1);
    expect(second[0]!.quote_hash).toBe(first[0]!.quote_hash);
    expect(other[0]!.quote_hash).not.toBe(first[0]!.quote_hash);
  });
});

describe('solver relay: JSON-RPC errors and publish_intent', () => {
  const valid = { defuse_asset_identifier_in: `nep141:${WNEAR}`, defuse_asset_identifier_out: `nep141:${USDT}` };

  it.each([
    ['a body that is not JSON', '{"jsonrpc":"2.0",', -32700, null],
    ['a request without a method', { jsonrpc: '2.0', id: 7, params: [] }, -32600, null],
    ['a request of another JSON-RPC version', { jsonrpc: '1.0', id: 7, method: 'quote', params: [] }, -32600, null],
    ['an unknown method', { jsonrpc: '2.0', id: 7, method: 'swap', params: [] }, -32601, 7],
    ['quote params that are not a one-element list', { jsonrpc: '2.0', id: 7, method: 'quote', params: valid }, -32602, 7],
    ['both exact_amount_in and exact_amount_out', quoteRequest({ ...valid, exact_amount_in: '1', exact_amount_out: '1' }, 7), -32602, 7],
    ['neither amount', quoteRequest(valid, 7), -32602, 7],
    ['a negative amount', quoteRequest({ ...valid, exact_amount_in: '-5' }, 7), -32602, 7],
    ['an amount that is a number, not a string', quoteRequest({ ...valid, exact_amount_in: 5 }, 7), -32602, 7],
    ['a zero amount', quoteRequest({ ...valid, exact_amount_out: '0' }, 7), -32602, 7],
    ['a negative min_deadline_ms', quoteRequest({ ...valid, exact_amount_in: '5', min_deadline_ms: -1 }, 7), -32602, 7],
    ['publish_intent without signed_data', { jsonrpc: '2.0', id: 7, method: 'publish_intent', params: [{ quote_hashes: ['x'] }] }, -32602, 7],
  ])('%s gives a JSON-RPC error %i', async (_name, body, code, id) => {
    const { status, json } = await rpc(body);
    expect(status).toBe(200);
    expect(json.jsonrpc).toBe('2.0');
    expect(json.id).toBe(id);
    expect(json.result).toBeUndefined();
    expect((json.error as { code: number }).code).toBe(code);
    expect(typeof (json.error as { message: unknown }).message).toBe('string');
  });

  it('answers only POST /rpc', async () => {
    expect((await fetch(`${relay.url}/rpc`)).status).toBe(405);
    expect((await fetch(`${relay.url}/other`, { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it('publish_intent is accepted with a deterministic intent hash', async () => {
    const params = [{ quote_hashes: ['3ZsfLqgrZGXbNcaYvLY6xCBXLbT3Ggrxgg4awAd6GHpZ'], signed_data: { standard: 'nep413', payload: { message: '{}', nonce: 'AA==', recipient: 'intents.near' } } }];
    const first = await rpc({ jsonrpc: '2.0', id: 1, method: 'publish_intent', params });
    const second = await rpc({ jsonrpc: '2.0', id: 2, method: 'publish_intent', params });
    const result = first.json.result as { status: string; intent_hash: string };
    expect(result.status).toBe('OK');
    expect(result.intent_hash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(second.json.result).toEqual(result);
  });
});
