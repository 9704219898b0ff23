// The figures users read (docs/methodology.md), judged from outside: a plain reference (reference.ts) reads the
// realnet's raw blocks (the contracts' own logs and the receipts' arguments) and works the figures out again, and the
// api's answers must equal it. The reference imports nothing from indexer/ or api/; the harness only builds the
// system under test (the realnet's first 300 blocks indexed, the real server).
//
// What the reference computes, over the window (every block: 300 blocks are five minutes, inside 24 hours):
// - the hops that are volume, one per swap the venues log: Ref's `Swapped` / `Swap_by_output` lines (pools from the
//   receipt's actions), the DCL's and Intear's `swap` events, the launchpad's `token_swap`, the verifier's
//   `token_diff` (a fill logs both sides; the first leg counts) and Meta Pool's liquid unstakes (`LIQ.U`). Wraps,
//   deposits into Ref and stakes are conversions: no volume reads them;
// - each hop's USD value where a side is a dollar (USDt or USDC, 1 USD each by definition; the input side when both
//   are): exact, in 10^-18 USD;
// - from those: USDt's and USDC's 24 h volume, each Ref and DCL pool's volume where one side is a dollar, and USDt's
//   and USDC's 1-minute candles (each hop a tick: 1 where the token valued the hop, else the hop's own rate).
// - every NEP-141 balance from the tokens' own records (the standard's events and the example contract's unlogged
//   init), for holders, their amounts and the supply: seven of the realnet's tokens; Ref's token and the stake
//   contracts also log in other formats, which this reference does not read, and are left out.
// Exact for integers and to the 10^-18 USD for USD: the figures are sums and floors of integers both ways.
// The reference itself (reading the blocks, the venues' swaps, the balances) is reference.ts, shared with
// prices.test.ts, which judges prices, liquidity, price changes, trades' USD values and positions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexedDb, startServer } from '../tokens/harness.ts';
import { DOLLARS, dollarValue, rawBlocks, referenceBalances, referenceHops, SCALE, units as decimalUnits, USDC, USDT, type Hop } from './reference.ts';

const HEAD = 300;
/** An api decimal in 10^-18 units, null as 0. */
const units = (text: string | null): bigint => decimalUnits(text) ?? 0n;

const db = await indexedDb(HEAD);
let server: Awaited<ReturnType<typeof startServer>>;
let hops: Hop[];
const get = async (url: string) => JSON.parse((await server.app.inject({ url })).body);

beforeAll(async () => {
  server = await startServer(db);
  hops = referenceHops(await rawBlocks(HEAD));
}, 120_000);
afterAll(async () => {
  await server?.app.close();
});

describe('holders and supply against the tokens\' own records', () => {
  it("every NEP-141 token's holders, their amounts and its supply", async () => {
    const { balances, inits } = referenceBalances(await rawBlocks(HEAD));
    expect(balances.size).toBeGreaterThan(5);
    let supplies = 0;
    for (const [token, of] of balances) {
      const held = [...of].filter(([, amount]) => amount > 0n).sort(([a, x], [b, y]) => (x > y ? -1 : x < y ? 1 : a < b ? -1 : 1));
      const answer = await get(`/holders?token=${token}&limit=1000`);
      expect(answer.holders, token).toBe(held.length);
      expect(answer.rows.map((r: { account_id: string; amount: string }) => [r.account_id, BigInt(r.amount)]), token).toEqual(held.slice(0, 1000));
      // The supply is known where the token's creation is in the log: its init, or mints from nothing.
      if (answer.total_supply !== null) {
        expect(BigInt(answer.total_supply), token).toBe(held.reduce((sum, [, amount]) => sum + amount, 0n));
        supplies++;
      }
    }
    expect(supplies).toBeGreaterThan(3);
    expect(inits.size).toBeGreaterThan(0);
  });
});

describe('the figures against a reference computed from the raw blocks', () => {
  it('reads every venue the realnet trades on', () => {
    const venues = new Set(hops.map((h) => h.pool.split(':')[0]));
    expect([...venues].sort()).toEqual(['dcl', 'intear', 'launch', 'meta-pool', 'ref', 'rfq']);
  });

  it("USDt's and USDC's 24 h volume: every hop with the dollar on a side, at its dollar amount", async () => {
    const table = await get(`/tokens?ids=${USDT},${USDC}&fields=volume_usd_24h`);
    for (const token of DOLLARS) {
      const expected = hops.filter((h) => h.tokenIn === token || h.tokenOut === token).reduce((sum, h) => sum + dollarValue(h)!, 0n);
      expect(expected, token).toBeGreaterThan(0n);
      const row = table.rows.find((r: unknown[]) => r[0] === token);
      expect(units(row[1]), token).toBe(expected);
    }
  });

  it('each Ref and DCL pool with a dollar side: its 24 h volume is the dollars its hops moved', async () => {
    const pools = [...(await get('/pools?dex=AmmA&limit=1000')).rows, ...(await get('/pools?dex=AmmDclA&limit=1000')).rows];
    let checked = 0;
    for (const pool of pools) {
      if (!pool.tokens.some((t: string) => DOLLARS.includes(t))) continue;
      const key = `${pool.dex === 'AmmA' ? 'ref' : 'dcl'}:${pool.pool_id}`;
      const expected = hops.filter((h) => h.pool === key).reduce((sum, h) => sum + dollarValue(h)!, 0n);
      expect(units(pool.volume_usd_24h), key).toBe(expected);
      if (expected > 0n) checked++;
    }
    expect(checked).toBeGreaterThan(3);
  });

  it("USDt's and USDC's 1-minute candles: a tick per hop, 1 where the dollar valued the hop, else the hop's own rate", async () => {
    for (const token of DOLLARS) {
      const buckets = new Map<number, { open: bigint; high: bigint; low: bigint; close: bigint; volume_quote: bigint; volume: bigint; trades: number }>();
      for (const h of hops) {
        if (h.tokenIn !== token && h.tokenOut !== token) continue;
        const value = dollarValue(h)!;
        const amount = h.tokenIn === token ? h.amountIn : h.amountOut;
        const valuedBy = DOLLARS.includes(h.tokenIn) ? h.tokenIn : h.tokenOut;
        const price = valuedBy === token ? SCALE : (value * 10n ** 6n) / amount;
        const start = Math.floor(h.ms / 60_000) * 60_000;
        const b = buckets.get(start);
        if (!b) buckets.set(start, { open: price, high: price, low: price, close: price, volume_quote: value, volume: amount, trades: 1 });
        else Object.assign(b, { high: b.high > price ? b.high : price, low: b.low < price ? b.low : price, close: price, volume_quote: b.volume_quote + value, volume: b.volume + amount, trades: b.trades + 1 });
      }
      const starts = [...buckets.keys()];
      const answer = await get(`/candles?token=${token}&resolution=1m&from_millis=${Math.min(...starts)}&to_millis=${Math.max(...starts)}&fill=false`);
      const got = answer.candles.map((c: { time_millis: number; open: string; high: string; low: string; close: string; volume_quote: string; volume: string; trades: number }) => [c.time_millis, units(c.open), units(c.high), units(c.low), units(c.close), units(c.volume_quote), BigInt(c.volume), c.trades]);
      expect(got, token).toEqual([...buckets].map(([t, b]) => [t, b.open, b.high, b.low, b.close, b.volume_quote, b.volume, b.trades]));
    }
  });

  it("every token's 24 h volume is the sum of its pools' and its fills' (a fill, like a hop, counted once)", async () => {
    const pools = (await get('/pools?limit=1000')).rows as { tokens: string[]; volume_usd_24h: string | null }[];
    const table = await get('/tokens?fields=volume_usd_24h&limit=1000');
    const fills = hops.filter((h) => h.pool === 'rfq');
    expect(fills.length).toBeGreaterThan(0);
    // A fill without a dollar trades wNEAR against REF: valued by its wNEAR (the side nearer the dollars) at NEAR's
    // price in force at its block. That price is the api's (prices-candles.test.ts works the engine out by hand);
    // the arithmetic is the reference's.
    const fillValues = new Map<Hop, bigint>();
    for (const h of fills) {
      const dollars = dollarValue(h);
      if (dollars !== null) {
        fillValues.set(h, dollars);
        continue;
      }
      expect([h.tokenIn, h.tokenOut]).toContain('wrap.near');
      const [{ price_usd }] = (await get(`/prices/at?at=wrap.near:${h.ms}`)).prices;
      fillValues.set(h, ((h.tokenIn === 'wrap.near' ? h.amountIn : h.amountOut) * units(price_usd)) / 10n ** 24n);
    }
    let traded = 0;
    for (const [token, volume] of table.rows as [string, string | null][]) {
      expect(token.startsWith('inner-nep141:'), token).toBe(false);
      const inPools = pools.filter((p) => p.tokens.includes(token)).reduce((sum, p) => sum + units(p.volume_usd_24h), 0n);
      const inFills = fills.filter((h) => h.tokenIn === token || h.tokenOut === token).reduce((sum, h) => sum + fillValues.get(h)!, 0n);
      expect(units(volume), token).toBe(inPools + inFills);
      if (units(volume) > 0n) traded++;
    }
    expect(traded).toBeGreaterThan(5);
  });
});
