// The pure parts of the token API: GET parameter rules 1-7, decimal presentation, encoding choice, candle
// filling and bucketing, and the subscription diff. Every expected value is written out by hand.
import { describe, expect, it } from 'vitest';
import { cacheControl, canonicalJson, ResponseCache, type CachedAnswer } from '../../api/tokens/cache.ts';
import { chooseEncoding } from '../../api/tokens/compress.ts';
import { creditsFor } from '../../api/tokens/credits.ts';
import { formatScaled, parseScaled, presentDecimal, roundSignificant, share, usdValue } from '../../api/tokens/decimal.ts';
import { ApiError, httpStatus, toErrorBody } from '../../api/tokens/errors.ts';
import { historyCache } from '../../api/tokens/methods/history.ts';
import { bucketStart, fillCandles } from '../../api/tokens/methods/market.ts';
import { paramsFromQuery } from '../../api/tokens/query.ts';
import { METHODS_BY_NAME } from '../../api/tokens/registry.ts';
import { averageCost, positionsFromTrades, unrealized } from '../../api/tokens/positions.ts';
import { diffTable, passesMinChange } from '../../api/tokens/subscription.ts';
import type { TokenTableResult } from '../../api/tokens/methods/tokens.ts';

const method = (name: string) => METHODS_BY_NAME.get(name)!;
const fromQuery = (name: string, query: string) => paramsFromQuery(query, method(name).params, method(name).overrides);
const validate = (name: string, params: unknown) => method(name).params.safeParse(params);

function badRequestOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('bad_request');
    return (err as ApiError).message;
  }
  throw new Error('no bad_request thrown');
}

describe('GET parameter rules', () => {
  it('rule 2: lists are comma-separated, numbers and booleans parsed', () => {
    expect(fromQuery('tokens.get', 'ids=a.near,b.near&fields=symbol,price_usd&limit=5')).toEqual({
      ids: ['a.near', 'b.near'],
      fields: ['symbol', 'price_usd'],
      limit: 5,
    });
    expect(fromQuery('candles.get', 'token=a.near&resolution=1m&fill=false')).toEqual({ token: 'a.near', resolution: '1m', fill: false });
  });

  it('rule 3: object keys are dotted, `%` arrives URL-encoded', () => {
    expect(fromQuery('tokens.subscribe', 'min_change.price_usd=5%25&min_change.holders=1%25')).toEqual({
      min_change: { price_usd: '5%', holders: '1%' },
    });
    expect(validate('tokens.subscribe', { min_change: { price_usd: '5%' } }).success).toBe(true);
    expect(fromQuery('activity.query', 'account_id=a.near&fields.trade=dex,value_usd&fields.transfer=amount&kinds=trade,transfer')).toEqual({
      account_id: 'a.near',
      fields: { trade: ['dex', 'value_usd'], transfer: ['amount'] },
      kinds: ['trade', 'transfer'],
    });
    expect(validate('activity.query', { account_id: 'a.near', fields: { trade: ['colour'] } }).success).toBe(false);
  });

  it('rule 4: where keys go without the prefix', () => {
    expect(fromQuery('tokens.get', 'min_reputation=NotFake&min.liquidity_usd=1000&max.price_usd=2.5')).toEqual({
      where: { min_reputation: 'NotFake', min: { liquidity_usd: '1000' }, max: { price_usd: '2.5' } },
    });
    // A number in a POST body and its text over GET validate to the same params.
    expect(validate('tokens.get', { where: { min: { liquidity_usd: 1000 } } }).data).toEqual(validate('tokens.get', fromQuery('tokens.get', 'min.liquidity_usd=1000')).data);
    // With the prefix it is not a parameter of the method.
    expect(badRequestOf(() => fromQuery('tokens.get', 'where.min_reputation=NotFake'))).toContain('where.min_reputation');
  });

  it('rule 5: sort=f ascending, sort=-f descending', () => {
    expect(fromQuery('tokens.get', 'sort=holders')).toEqual({ sort: { by: 'holders', desc: false } });
    expect(fromQuery('tokens.get', 'sort=-liquidity_usd')).toEqual({ sort: { by: 'liquidity_usd', desc: true } });
  });

  it('rule 6: prices.at takes at=<token>:<timestamp_millis>, comma-separated', () => {
    expect(fromQuery('prices.at', 'at=wrap.near:1700000000000,near:5')).toEqual({
      at: [
        { token: 'wrap.near', timestamp_millis: 1_700_000_000_000 },
        { token: 'near', timestamp_millis: 5 },
      ],
    });
    badRequestOf(() => fromQuery('prices.at', 'at=wrap.near'));
    expect(validate('prices.at', fromQuery('prices.at', 'at=wrap.near:soon')).success).toBe(false);
  });

  it('rule 7: a parameter given twice, or one the method does not take, is bad_request', () => {
    expect(badRequestOf(() => fromQuery('tokens.get', 'limit=1&limit=2'))).toContain('twice');
    expect(badRequestOf(() => fromQuery('tokens.get', 'colour=red'))).toContain('colour');
    expect(badRequestOf(() => fromQuery('tokens.get', 'min.colour=1'))).toContain('min.colour');
    expect(badRequestOf(() => fromQuery('tokens.get', 'limit.x=1'))).toContain('limit.x');
    // A key of another method is not taken either.
    expect(badRequestOf(() => fromQuery('trades.query', 'q=usd'))).toContain('q');
  });

  it('values are validated by the schema, the same one POST bodies and the socket use', () => {
    expect(validate('tokens.get', fromQuery('tokens.get', 'limit=0')).success).toBe(false);
    expect(validate('tokens.get', fromQuery('tokens.get', 'limit=1001')).success).toBe(false);
    expect(validate('tokens.get', fromQuery('tokens.get', 'fields=colour')).success).toBe(false);
    expect(validate('tokens.get', fromQuery('tokens.get', 'min_reputation=Great')).success).toBe(false);
    expect(validate('tokens.get', { where: { min: { liquidity_usd: 1 } }, extra: 1 }).success).toBe(false);
  });
});

describe('decimals', () => {
  it('rounds to significant digits, half away from zero', () => {
    expect(roundSignificant('1234.5678', 3)).toBe('1230'); // 1234.5678 -> 123|4.5678 -> 1230
    expect(roundSignificant('1235', 3)).toBe('1240'); // 123|5 -> 124 -> 1240
    expect(roundSignificant('0.00012345', 2)).toBe('0.00012'); // first digit 1 at 10^-4; 12|345 -> 12
    expect(roundSignificant('9.99', 2)).toBe('10'); // 99|9 -> 100 -> 10.0
    expect(roundSignificant('0.0999', 1)).toBe('0.1'); // 9|99 -> 10 at 10^-2 -> 0.10
    expect(roundSignificant('-2.5', 1)).toBe('-3'); // half away from zero
    expect(roundSignificant('5.25', 8)).toBe('5.25'); // fewer digits than asked: unchanged
    expect(roundSignificant('0', 3)).toBe('0');
  });

  it('stored USD figures lose trailing zeros; precision applies after', () => {
    expect(presentDecimal('5.000000000000000000', undefined)).toBe('5');
    expect(presentDecimal('0.125466029907204492', 3)).toBe('0.125'); // 125|466 -> 125
    expect(presentDecimal(null, 3)).toBe(null);
    expect(formatScaled(parseScaled('-0.5'))).toBe('-0.5');
  });

  it('USD values and shares are exact', () => {
    // 2.5 tokens of 6 decimals at 1.2 USD = 3 USD
    expect(usdValue(2_500_000n, 6, '1.200000000000000000')).toBe('3');
    // 1 of 3: 0.333... to 18 digits, truncated
    expect(share(1n, 3n)).toBe('0.333333333333333333');
    expect(share(1n, 0n)).toBe(null);
  });
});

describe('transport pieces', () => {
  it('chooses zstd or gzip by Accept-Encoding, zstd on a tie', () => {
    expect(chooseEncoding('gzip, deflate, br, zstd')).toBe('zstd');
    expect(chooseEncoding('gzip')).toBe('gzip');
    expect(chooseEncoding('zstd;q=0.5, gzip;q=0.8')).toBe('gzip');
    expect(chooseEncoding('*')).toBe('zstd');
    expect(chooseEncoding('gzip;q=0, zstd;q=0')).toBe('identity');
    expect(chooseEncoding('br')).toBe('identity');
    expect(chooseEncoding(undefined)).toBe('identity');
  });

  it('maps error codes to statuses and hides internals', () => {
    expect(httpStatus('not_found')).toBe(404);
    expect(httpStatus('unknown_method')).toBe(404);
    expect(httpStatus('internal')).toBe(500);
    expect(httpStatus('bad_request')).toBe(400);
    expect(httpStatus('too_large')).toBe(400);
    expect(httpStatus('rate_limited')).toBe(400);
    expect(toErrorBody(new Error('password=hunter2 at db.internal:5432'))).toEqual({ code: 'internal', message: 'internal error' });
  });

  it('cache headers and credits', () => {
    expect(cacheControl('live')).toBe('public, max-age=1');
    expect(cacheControl('historical')).toBe('public, max-age=86400');
    expect(cacheControl('none')).toBe('no-store');
    // trades.query: base 2 + 1 per started hundred rows: 0 rows -> 2, 100 -> 3, 101 -> 4
    expect([creditsFor('trades.query', 0), creditsFor('trades.query', 100), creditsFor('trades.query', 101)]).toEqual([2, 3, 4]);
    expect(creditsFor('schema', 0)).toBe(0);
    expect(canonicalJson({ b: 1, a: { d: 2, c: 3 } })).toBe('{"a":{"c":3,"d":2},"b":1}');
  });

  it('history pages are historical exactly in the spec cases', () => {
    const head = { height: 10, timestamp_millis: 1_000 };
    expect(historyCache({ order: 'newest' }, head, 'x')).toBe('live');
    expect(historyCache({ order: 'newest', cursor: 'c' }, head, null)).toBe('historical');
    expect(historyCache({ order: 'newest', before_millis: 1_000 }, head, null)).toBe('historical');
    expect(historyCache({ order: 'newest', before_millis: 1_001 }, head, null)).toBe('live');
    expect(historyCache({ order: 'oldest' }, head, 'x')).toBe('historical');
    expect(historyCache({ order: 'oldest' }, head, null)).toBe('live');
  });
});

describe('response cache', () => {
  const answer = (cache: CachedAnswer['cache'], json: string, expiresAt = 10_000): CachedAnswer => ({ result: null, json, cache, credits: 1, expiresAt, compressed: {} });

  it('keeps answers until they expire, never no-store ones, and drops live ones on a new block', () => {
    const cache = new ResponseCache();
    cache.set('live', answer('live', 'a'));
    cache.set('old', answer('historical', 'b'));
    cache.set('none', answer('none', 'c'));
    expect(cache.get('live', 9_999)?.json).toBe('a');
    expect(cache.get('live', 10_000)).toBeUndefined(); // expired
    expect(cache.get('none', 0)).toBeUndefined();
    cache.set('live', answer('live', 'a'));
    cache.dropLive();
    expect(cache.get('live', 0)).toBeUndefined();
    expect(cache.get('old', 0)?.json).toBe('b');
  });

  it('evicts the least recently used past its entry and byte bounds', () => {
    const cache = new ResponseCache(2, 80);
    cache.set('a', answer('live', 'x'.repeat(10)));
    cache.set('b', answer('live', 'y'.repeat(10)));
    cache.get('a', 0); // a is now the most recently used
    cache.set('c', answer('live', 'z'.repeat(10))); // 3 entries > 2: b goes
    expect([cache.get('a', 0)?.json.length, cache.get('b', 0), cache.get('c', 0)?.json.length]).toEqual([10, undefined, 10]);
    expect(cache.bytes).toBe(20);
    cache.set('big', answer('live', 'w'.repeat(11))); // over 80 / 8 = 10 bytes: not kept at all
    expect(cache.get('big', 0)).toBeUndefined();
    expect(cache.bytes).toBe(20);
  });
});

describe('candles', () => {
  it('aligns buckets to UTC, weeks to Monday', () => {
    // 2026-01-01T00:00:30Z is 1767225630000; its minute starts at ...600000
    expect(bucketStart(1_767_225_630_000, '1m')).toBe(1_767_225_600_000);
    // 2026-01-01 is a Thursday; its week starts Monday 2025-12-29 = 1766966400000
    expect(bucketStart(1_767_225_630_000, '1w')).toBe(1_766_966_400_000);
  });

  it('fills gaps with the previous close and zero volume, and nothing before the first close', () => {
    const c = (t: number, close: string) => ({ time_millis: t, open: '1', high: '3', low: '1', close, volume_quote: '9', volume: '7', trades: 2 });
    expect(fillCandles([c(120, '2'), c(300, '4')], 60, 360, 60, null)).toEqual([
      c(120, '2'),
      { time_millis: 180, open: '2', high: '2', low: '2', close: '2', volume_quote: '0', volume: '0', trades: 0 },
      { time_millis: 240, open: '2', high: '2', low: '2', close: '2', volume_quote: '0', volume: '0', trades: 0 },
      c(300, '4'),
      { time_millis: 360, open: '4', high: '4', low: '4', close: '4', volume_quote: '0', volume: '0', trades: 0 },
    ]);
    expect(fillCandles([], 0, 60, 60, '5').map((x) => x.close)).toEqual(['5', '5']);
  });
});

describe('subscription diff', () => {
  const table = (rows: (string | number | null)[][]): TokenTableResult => ({
    height: 1,
    timestamp_millis: 1,
    columns: ['account_id', 'price_usd', 'holders'],
    rows,
    total: rows.length,
    missing: [],
  });

  it('min_change: relative move from the last pushed value', () => {
    expect(passesMinChange('100', '104.9', '5%')).toBe(false); // 4.9% < 5%
    expect(passesMinChange('100', '105', '5%')).toBe(true); // exactly 5%
    expect(passesMinChange('100', '95', '5%')).toBe(true); // -5%
    expect(passesMinChange('100', '100.0001', undefined)).toBe(true);
    expect(passesMinChange(null, '1', '5%')).toBe(true);
    expect(passesMinChange('1', '1', undefined)).toBe(false);
  });

  it('sends changed fields, whole entering tokens, and leavers; suppressed moves accumulate', () => {
    const start = diffTable(new Map(), table([['a', '100', 5]]));
    expect(start.diff).toEqual({ set: { a: { price_usd: '100', holders: 5 } }, left: [] });
    // a moves 3% (suppressed under 5%), holders change; b enters
    const second = diffTable(start.next, table([['a', '103', 6], ['b', '1', 1]]), { price_usd: '5%' });
    expect(second.diff).toEqual({ set: { a: { holders: 6 }, b: { price_usd: '1', holders: 1 } }, left: [] });
    // a moves to 105.5: 5.5% from the last pushed 100 (not from 103); b leaves
    const third = diffTable(second.next, table([['a', '105.5', 6]]), { price_usd: '5%' });
    expect(third.diff).toEqual({ set: { a: { price_usd: '105.5' } }, left: ['b'] });
  });
});

describe('positions', () => {
  const usd = (n: number) => BigInt(Math.round(n * 100)) * 10n ** 16n; // whole cents to 10^-18 USD
  const T = 10n ** 6n; // a token of 6 decimals

  it('average cost, realized and unrealized PnL', () => {
    const positions = positionsFromTrades([
      // buy 10 X for 100 USD, then 10 X for 300 USD: 20 X at an average of 20 USD
      { token_in: 'usd', token_out: 'x', amount_in: 100n * T, amount_out: 10n * T, value_usd: usd(100) },
      { token_in: 'usd', token_out: 'x', amount_in: 300n * T, amount_out: 10n * T, value_usd: usd(300) },
      // sell 5 X for 150 USD: realized 150 - 5 * 20 = 50; 15 X left at a cost of 300
      { token_in: 'x', token_out: 'usd', amount_in: 5n * T, amount_out: 150n * T, value_usd: usd(150) },
      // a trade without a USD value moves amounts but no cost
      { token_in: 'usd', token_out: 'x', amount_in: 1n * T, amount_out: 1n * T, value_usd: null },
    ]);
    const x = positions.get('x')!;
    expect(x).toEqual({ tracked: 15n * T, cost: usd(300), realized: usd(50), bought: 21n * T, sold: 5n * T });
    expect(averageCost(x, 6)).toBe(usd(20)); // 300 / 15
    expect(unrealized(x, 6, usd(30))).toBe(usd(150)); // 15 * 30 - 300
  });

  it('a sell beyond the tracked amount realizes only the tracked part', () => {
    const positions = positionsFromTrades([
      { token_in: 'usd', token_out: 'x', amount_in: 10n * T, amount_out: 1n * T, value_usd: usd(10) },
      // sell 4 X for 48 USD (12 each) with 1 tracked: realized 12 - 10 = 2; the other 3 came by transfer
      { token_in: 'x', token_out: 'usd', amount_in: 4n * T, amount_out: 48n * T, value_usd: usd(48) },
    ]);
    expect(positions.get('x')).toEqual({ tracked: 0n, cost: 0n, realized: usd(2), bought: 1n * T, sold: 4n * T });
    expect(averageCost(positions.get('x')!, 6)).toBe(null);
  });
});
