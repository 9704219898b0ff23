// GET /route query rules (service-spec.md A1): every error text, checked word for word against near-facts.md
// ("Errors the aggregator returns") where the aggregator has one, and over HTTP (status 400, plain text) for the
// server's side of it (a repeated parameter, testnet).
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../api/server.ts';
import { parseRouteQuery, parseUnitFraction } from '../../api/routing/params.ts';
import { createMigratedDb } from '../harness/db.ts';

const VALID = {
  token_in: 'near',
  token_out: 'usdt.tether-token.near',
  amount_in: '1000',
  max_wait_ms: '1000',
  slippage_type: 'Fixed',
  slippage: '0.01',
};

function errorOf(overrides: Record<string, string | string[] | undefined>): string | null {
  const raw: Record<string, unknown> = { ...VALID };
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete raw[k];
    else raw[k] = v;
  }
  const result = parseRouteQuery(raw, 'mainnet');
  return result.ok ? null : result.error;
}

describe('parseRouteQuery', () => {
  it('accepts a valid query in each token form and keeps the amounts exact', () => {
    const result = parseRouteQuery({ ...VALID, token_out: 'nep141:usdt.tether-token.near', amount_in: '340282366920938463463374607431768211455' }, 'mainnet');
    expect(result).toEqual({
      ok: true,
      query: {
        tokenIn: { kind: 'near' },
        tokenOut: { kind: 'nep141', contractId: 'usdt.tether-token.near' },
        amount: { mode: 'exact_in', amountIn: 2n ** 128n - 1n },
        maxWaitMs: 1000,
        slippage: { type: 'Fixed', slippage: { numerator: 1n, denominator: 100n } },
        traderAccountId: null,
        referrerId: null,
        dexes: ['AmmA', 'AmmDclA', 'AmmC', 'QuoteA', 'Launch', 'Wrap', 'StakeA', 'StakeB', 'StakeC', 'StakeD'],
      },
    });
    const inner = parseRouteQuery({ ...VALID, token_in: 'inner-nep141:wrap.near', token_out: 'wrap.near' }, 'mainnet');
    expect(inner.ok && inner.query.tokenIn).toEqual({ kind: 'inner-nep141', contractId: 'wrap.near' });
    // `wrap.near` and `nep141:wrap.near` are one token.
    expect(errorOf({ token_in: 'wrap.near', token_out: 'nep141:wrap.near' })).toBe('Token in and token out must be different');
  });

  it('the aggregator texts, word for word', () => {
    expect(errorOf({ slippage: '1.01' })).toBe('Slippage must be between 0.00 and 1.00');
    expect(errorOf({ slippage: '-0.1' })).toBe('Slippage must be between 0.00 and 1.00');
    const auto = { slippage_type: 'Auto', slippage: undefined, min_slippage: '0.01', max_slippage: '0.05' };
    expect(errorOf(auto)).toBeNull();
    expect(errorOf({ ...auto, min_slippage: '2' })).toBe('Min slippage must be between 0.00 and 1.00');
    expect(errorOf({ ...auto, max_slippage: 'abc' })).toBe('Max slippage must be between 0.00 and 1.00');
    expect(errorOf({ ...auto, min_slippage: '0.06' })).toBe('Max slippage must be greater than min slippage');
    expect(errorOf({ ...auto, min_slippage: '0.05' })).toBeNull(); // min = max is allowed
    expect(errorOf({ token_out: 'near' })).toBe('Token in and token out must be different');
    expect(errorOf({ max_wait_ms: '60001' })).toBe('Max wait must be less than 60 seconds');
    expect(errorOf({ max_wait_ms: '60000' })).toBeNull();
    expect(errorOf({ dexes: '' })).toBe('Dexes must not be an empty array');
    expect(errorOf({ dexes: 'AmmA,amma' })).toBe('Invalid dex id: amma');
    expect(errorOf({ dexes: 'AmmA,Uniswap' })).toBe('Invalid dex id: Uniswap');
    expect(errorOf({ token_in: 'Not A Token' })).toBe('Invalid token ID');
    expect(errorOf({ token_out: 'nep141:' })).toBe('Invalid token ID');
    expect(errorOf({ token_out: 'inner-nep141:UPPER.near' })).toBe('Invalid token ID');
  });

  it('exactly one amount, a positive integer string', () => {
    expect(errorOf({ amount_out: '5' })).toBe('Exactly one of amount_in and amount_out must be given');
    expect(errorOf({ amount_in: undefined })).toBe('Exactly one of amount_in and amount_out must be given');
    const exactOut = parseRouteQuery({ ...VALID, amount_in: undefined, amount_out: '5' }, 'mainnet');
    expect(exactOut.ok && exactOut.query.amount).toEqual({ mode: 'exact_out', amountOut: 5n });
    expect(errorOf({ amount_in: '0' })).toBe('amount_in must be a positive integer string');
    expect(errorOf({ amount_in: '1.5' })).toBe('amount_in must be a positive integer string');
    expect(errorOf({ amount_in: '1e3' })).toBe('amount_in must be a positive integer string');
    // 2^128 does not fit a u128.
    expect(errorOf({ amount_in: '340282366920938463463374607431768211456' })).toBe('amount_in must be a positive integer string');
    expect(errorOf({ amount_in: undefined, amount_out: '-4' })).toBe('amount_out must be a positive integer string');
  });

  it('missing and malformed parameters', () => {
    expect(errorOf({ token_in: undefined })).toBe('Missing parameter: token_in');
    expect(errorOf({ token_out: undefined })).toBe('Missing parameter: token_out');
    expect(errorOf({ max_wait_ms: undefined })).toBe('Missing parameter: max_wait_ms');
    expect(errorOf({ max_wait_ms: '1.5' })).toBe('max_wait_ms must be a non-negative integer');
    expect(errorOf({ slippage_type: undefined })).toBe('Missing parameter: slippage_type');
    expect(errorOf({ slippage_type: 'fixed' })).toBe('slippage_type must be Fixed or Auto');
    expect(errorOf({ slippage: undefined })).toBe('Missing parameter: slippage');
    expect(errorOf({ slippage_type: 'Auto', slippage: undefined, max_slippage: '0.1' })).toBe('Missing parameter: min_slippage');
    expect(errorOf({ slippage_type: 'Auto', slippage: undefined, min_slippage: '0.1' })).toBe('Missing parameter: max_slippage');
    expect(errorOf({ trader_account_id: 'Bad..id' })).toBe('Invalid trader_account_id: Bad..id');
    expect(errorOf({ referrer_id: 'x' })).toBe('Invalid referrer_id: x');
    expect(errorOf({ trader_account_id: 'alice.near', referrer_id: 'ref.near', signing_public_key: 'ed25519:anything' })).toBeNull();
    expect(errorOf({ amount_in: ['1', '2'] })).toBe('Parameter given more than once: amount_in');
  });

  it('keeps the asked DEX ids in registry order', () => {
    const result = parseRouteQuery({ ...VALID, dexes: 'Wrap,AmmA,Wrap' }, 'mainnet');
    expect(result.ok && result.query.dexes).toEqual(['AmmA', 'Wrap']);
  });

  it('slippage texts read as exact fractions', () => {
    expect(parseUnitFraction('0.015')).toEqual({ numerator: 15n, denominator: 1000n });
    expect(parseUnitFraction('1')).toEqual({ numerator: 1n, denominator: 1n });
    expect(parseUnitFraction('1.0001')).toBeNull();
    expect(parseUnitFraction('.5')).toBeNull();
  });

  it('refuses every query on testnet', () => {
    expect(parseRouteQuery(VALID, 'testnet')).toEqual({ ok: false, error: 'Routing is not supported on testnet' });
  });
});

describe('GET /route errors over HTTP', async () => {
  const db = await createMigratedDb();
  const mainnet = await buildServer({ db, logLevel: 'silent' });
  const testnet = await buildServer({ db, logLevel: 'silent', network: 'testnet' });
  await mainnet.ready();
  await testnet.ready();
  afterAll(async () => {
    await mainnet.close();
    await testnet.close();
  });
  const query = new URLSearchParams(VALID).toString();

  it('400 with a plain-text body', async () => {
    const res = await mainnet.inject({ method: 'GET', url: `/route?${query}&slippage=2` });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    // The same parameter twice, even with the same value.
    expect(res.body).toBe('Parameter given more than once: slippage');
    const bad = await mainnet.inject({ method: 'GET', url: `/route?${query.replace('slippage=0.01', 'slippage=1.5')}` });
    expect([bad.statusCode, bad.body]).toEqual([400, 'Slippage must be between 0.00 and 1.00']);
  });

  it('no route is 200 []', async () => {
    const res = await mainnet.inject({ method: 'GET', url: `/route?${query}` });
    expect([res.statusCode, res.body]).toEqual([200, '[]']);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('testnet: 400 for any query', async () => {
    const res = await testnet.inject({ method: 'GET', url: `/route?${query}` });
    expect([res.statusCode, res.body]).toEqual([400, 'Routing is not supported on testnet']);
  });
});
