// Prices, candles and the current market figures, from a scripted sequence of pool states and swaps written
// through the real store into a real database. Every expected value is worked out by hand in the comments.
//
// Tokens: USDC (6 decimals, an anchor at 1 USD), USDT.e (6, an anchor), wNEAR (24), REF (18, bundled list),
// LINEAR (24, bundled list), DUST (8 decimals, from an `ft_metadata` answer logged at block 100).
// Pools (AmmA simple unless said, reserves in whole tokens):
//   P1 USDC/wNEAR   100000 / 20000          the NEAR price
//   P2 wNEAR/REF     10000 / 100000         REF's deepest pool: its wNEAR side is worth 10000 * 5 = 50000 USD
//   P3 USDC/REF        100 / 10             dust (100 USD < the 1000 USD floor): would say REF = 10
//   P4 USDC/DUST       500 / 1000           dust until block 104, then 5000 / 1000
//   P5 REF/USDC       3000 / 2000           above the floor but shallower than P2: would say REF = 0.666...
//   P6 USDC/USDT.e    1000 / 1000  stable   sets no price (stable pools do not), counts as liquidity
//   P7 near/LINEAR    1200 / 1000  StakeB   rate pool: LINEAR = 1.2 NEAR, of infinite depth
//   P8 wNEAR/LINEAR  50000 / 40000          deep, but the rate pool wins (it would say 1.25 NEAR)
// Blocks (t0 = Monday 2024-01-01 00:00 UTC):
//   100 @ t0+10s   all pools appear. NEAR = 100000/20000 = 5, REF = 10000*5/100000 = 0.5, LINEAR = 1.2*5 = 6.
//   101 @ t0+20s   alice: 25000 USDC -> 4000 wNEAR (P1 -> 125000/16000). NEAR = 7.8125, REF = 0.78125, LINEAR = 9.375.
//   102 @ t0+50s   carol: 2000 wNEAR -> 20000 REF (P2 -> 12000/80000). REF = 12000*7.8125/80000 = 1.171875.
//   103 @ t0+70s   bob, one receipt, two hops: 8000 REF -> 1000 wNEAR (P2 -> 11000/88000) -> 6000 USDC
//                  (P1 -> 119000/17000). NEAR = 119000/17000 = 7, REF = 11000*7/88000 = 0.875, LINEAR = 8.4.
//   104 @ t0+1d+30s dave: 1000 wNEAR -> 6500 USDC (P1 -> 112500/18000), and P4 -> 5000/1000.
//                  NEAR = 6.25, REF = 11000*6.25/88000 = 0.78125, LINEAR = 7.5, DUST = 5000/1000 = 5.
import path from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PoolStateEvent, SwapEvent } from '../dexes/events.ts';
import type { TokenMetadataEvent } from '../near/events.ts';
import type { DomainEvent } from '../indexer/event-rows.ts';
import { bucketStart } from '../indexer/projections/candles.ts';
import { formatUsd, parseUsd, priceTokens, relativeChange, USD_SCALE } from '../indexer/projections/prices.ts';
import { rebuild, rebuildsAsked, PROJECTIONS } from '../indexer/replay.ts';
import { connect } from '../db/connect.ts';
import { Migrator } from '../db/kysely.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { ensurePartitions } from '../indexer/partitions.ts';
import { migrations } from '../migrations/index.ts';
import { NOTIFY_CHANNEL, prepareBatch, writeBatch, type BlockRow } from '../indexer/store.ts';
import { allNotified, createMigratedDb, createTestDatabase, tableChecksums } from './harness/db.ts';
import { FIXTURES_DIR } from './harness/fixtures.ts';
import { ingest } from '../indexer/pipeline.ts';
import { filesSource } from '../indexer/sources/files.ts';

const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';
const USDT_E = 'dac17f958d2ee523a2206206994597c13d831ec7.factory.bridge.near';
const WNEAR = 'wrap.near';
const REF = 'token.v2.ref-finance.near';
const LINEAR = 'linear-protocol.near';
const DUST = 'dust.near';

const T0 = 1_704_067_200_000; // 2024-01-01T00:00:00Z, a Monday
const SECOND = 1_000;
const DAY = 86_400_000;
const TIMES: Record<number, number> = {
  100: T0 + 10 * SECOND,
  101: T0 + 20 * SECOND,
  102: T0 + 50 * SECOND,
  103: T0 + 70 * SECOND,
  104: T0 + DAY + 30 * SECOND,
  105: T0 + DAY + 40 * SECOND,
  300: T0 + 7 * DAY,
  301: T0 + 7 * DAY + SECOND,
  302: T0 + 7 * DAY + 2 * SECOND,
};

const usdc = (n: number) => BigInt(n) * 10n ** 6n;
const near = (n: number) => BigInt(n) * 10n ** 24n;
const ref = (n: number) => BigInt(n) * 10n ** 18n;
const dust = (n: number) => BigInt(n) * 10n ** 8n;

/** A decimal written by hand as a USD column prints it (18 digits after the point). */
const usd = (text: string) => {
  const [whole, fraction = ''] = text.split('.');
  return `${whole}.${fraction.padEnd(18, '0')}`;
};

function pool(height: number, poolId: string, tokens: string[], amounts: bigint[], kind = 'simple', dex: PoolStateEvent['dex'] = 'AmmA', extra: object = {}): PoolStateEvent {
  return {
    kind: 'pool_state',
    blockHeight: height,
    timestampMs: TIMES[height]!,
    receiptId: `state-${dex}-${poolId}`,
    txHash: null,
    index: 0,
    dex,
    contractId: dex === 'AmmA' ? 'v2.ref-finance.near' : LINEAR,
    poolId,
    state: { kind, tokens, amounts, totalFee: 30, ...extra },
  };
}

function swap(height: number, receiptId: string, index: number, trader: string, poolId: string, tokenIn: string, amountIn: bigint, tokenOut: string, amountOut: bigint): SwapEvent {
  return {
    kind: 'swap',
    blockHeight: height,
    timestampMs: TIMES[height]!,
    receiptId,
    txHash: `tx-${receiptId}`,
    index,
    dex: 'AmmA',
    contractId: 'v2.ref-finance.near',
    poolId,
    trader,
    tokenIn,
    tokenOut,
    amountIn,
    amountOut,
    totalFee: null,
    adminFee: null,
  };
}

const dustMetadata: TokenMetadataEvent = {
  kind: 'token_metadata',
  blockHeight: 100,
  timestampMs: TIMES[100]!,
  receiptId: `rpc:ft_metadata:${DUST}`,
  txHash: null,
  index: 0,
  contractId: DUST,
  spec: 'ft-1.0.0',
  name: 'Dust',
  symbol: 'DUST',
  decimals: 8,
  icon: null,
  reference: null,
  source: 'rpc',
};

/** The scripted events of each block (fresh objects per call: the store sorts and keeps them). */
function eventsOf(height: number): DomainEvent[] {
  switch (height) {
    case 100:
      return [
        dustMetadata,
        pool(100, '1', [USDC, WNEAR], [usdc(100_000), near(20_000)]),
        pool(100, '2', [WNEAR, REF], [near(10_000), ref(100_000)]),
        pool(100, '3', [USDC, REF], [usdc(100), ref(10)]),
        pool(100, '4', [USDC, DUST], [usdc(500), dust(1_000)]),
        pool(100, '5', [REF, USDC], [ref(3_000), usdc(2_000)]),
        pool(100, '6', [USDC, USDT_E], [usdc(1_000), usdc(1_000)], 'stable'),
        pool(100, LINEAR, ['near', LINEAR], [near(1_200), near(1_000)], 'stake', 'StakeB'),
        pool(100, '8', [WNEAR, LINEAR], [near(50_000), near(40_000)]),
      ];
    case 101:
      return [swap(101, 'r-alice', 0, 'alice.near', '1', USDC, usdc(25_000), WNEAR, near(4_000)), pool(101, '1', [USDC, WNEAR], [usdc(125_000), near(16_000)])];
    case 102:
      return [swap(102, 'r-carol', 0, 'carol.near', '2', WNEAR, near(2_000), REF, ref(20_000)), pool(102, '2', [WNEAR, REF], [near(12_000), ref(80_000)])];
    case 103:
      return [
        swap(103, 'r-bob', 0, 'bob.near', '2', REF, ref(8_000), WNEAR, near(1_000)),
        swap(103, 'r-bob', 1, 'bob.near', '1', WNEAR, near(1_000), USDC, usdc(6_000)),
        pool(103, '2', [WNEAR, REF], [near(11_000), ref(88_000)]),
        pool(103, '1', [USDC, WNEAR], [usdc(119_000), near(17_000)]),
      ];
    case 104:
      return [
        swap(104, 'r-dave', 0, 'dave.near', '1', WNEAR, near(1_000), USDC, usdc(6_500)),
        pool(104, '1', [USDC, WNEAR], [usdc(112_500), near(18_000)]),
        pool(104, '4', [USDC, DUST], [usdc(5_000), dust(1_000)]),
      ];
    default:
      throw new Error(`no block ${height}`);
  }
}

const block = (height: number): BlockRow => ({ height, hash: `h${height}`, prevHash: `h${height - 1}`, timestampMs: TIMES[height]!, gapBefore: 0 });

async function writeInBatches(db: Awaited<ReturnType<typeof createMigratedDb>>, batches: number[][]) {
  for (const heights of batches) await writeBatch(db, prepareBatch(heights.map(block), heights.flatMap(eventsOf)));
}

describe('pure parts', () => {
  it('aligns buckets to UTC, weeks to Monday 00:00', () => {
    // 2024-01-03T15:47:12.345Z (a Wednesday) = T0 + 2 d 15 h 47 min 12.345 s.
    const t = T0 + 2 * DAY + 15 * 3_600_000 + 47 * 60_000 + 12_345;
    expect(bucketStart(t, '1m')).toBe(T0 + 2 * DAY + 15 * 3_600_000 + 47 * 60_000);
    expect(bucketStart(t, '5m')).toBe(T0 + 2 * DAY + 15 * 3_600_000 + 45 * 60_000);
    expect(bucketStart(t, '15m')).toBe(T0 + 2 * DAY + 15 * 3_600_000 + 45 * 60_000);
    expect(bucketStart(t, '1h')).toBe(T0 + 2 * DAY + 15 * 3_600_000);
    expect(bucketStart(t, '4h')).toBe(T0 + 2 * DAY + 12 * 3_600_000);
    expect(bucketStart(t, '1d')).toBe(T0 + 2 * DAY);
    expect(bucketStart(t, '1w')).toBe(T0);
    // Sunday 2024-01-07T23:59:59.999Z is still in the week of Monday 1 January; Monday 8 January starts the next.
    expect(bucketStart(T0 + 7 * DAY - 1, '1w')).toBe(T0);
    expect(bucketStart(T0 + 7 * DAY, '1w')).toBe(T0 + 7 * DAY);
  });

  it('writes and reads USD fixed point exactly, and takes relative changes toward zero', () => {
    expect(formatUsd(6_250_000_000_000_000_000n)).toBe('6.250000000000000000');
    expect(formatUsd(-200_000_000_000_000_000n)).toBe('-0.200000000000000000');
    expect(parseUsd('-0.200000000000000000')).toBe(-200_000_000_000_000_000n);
    expect(parseUsd('71101.5625')).toBe(71_101_562_500_000_000_000_000n);
    // (6.25 - 7.8125) / 7.8125 = -0.2; (2 - 3) / 3 = -0.333... truncated at 18 digits.
    expect(relativeChange(6_250_000_000_000_000_000n, 7_812_500_000_000_000_000n)).toBe(-200_000_000_000_000_000n);
    expect(relativeChange(2n * USD_SCALE, 3n * USD_SCALE)).toBe(-333_333_333_333_333_333n);
    expect(relativeChange(USD_SCALE, null)).toBeNull();
  });

  it('prices a token through its deepest pool above the floor, never through dust', () => {
    const decimals: Record<string, number> = { [USDC]: 6, [WNEAR]: 24, [REF]: 18 };
    const prices = priceTokens(
      [
        { key: 'AmmA:1', kind: 'simple', tokens: [USDC, WNEAR], amounts: [usdc(100_000), near(20_000)] },
        // 999 USD of USDC against 1 REF: below the 1000 USD floor, it would price REF at 999.
        { key: 'AmmA:3', kind: 'simple', tokens: [USDC, REF], amounts: [usdc(999), ref(1)] },
      ],
      (t) => decimals[t],
    );
    expect(prices.get(WNEAR)).toEqual({ price: 5n * USD_SCALE, rank: 1, via: 'AmmA:1' });
    expect(prices.get('near')).toEqual(prices.get(WNEAR));
    expect(prices.has(REF)).toBe(false);
  });
});

describe('prices, candles and market figures through the store', () => {
  const BLOCKS = [100, 101, 102, 103, 104];
  let db: Awaited<ReturnType<typeof createMigratedDb>>;
  let clean: Record<string, string>;

  beforeAll(async () => {
    db = await createMigratedDb();
    await writeInBatches(db, [BLOCKS]);
    clean = await tableChecksums(db);
  });

  it('records each token price at each block where it changed', async () => {
    const { rows } = await db.pool.query(`select token, block_height, timestamp_ms, price_usd::text from prices order by block_height, token collate "C"`);
    const at = (height: number, token: string, price: string | null) => ({ token, block_height: height, timestamp_ms: TIMES[height], price_usd: price && usd(price) });
    expect(rows).toEqual([
      // 100: the anchors present in pools (USDC; USDT.e, only in the stable pool) at 1; NEAR 5 (P1); LINEAR 6
      // (the P7 rate, not P8's 50000/40000 * 5 = 6.25); REF 0.5 (P2, not P3's 10 or P5's 0.666...); DUST none (P4 is dust).
      at(100, USDC, '1'),
      at(100, USDT_E, '1'),
      at(100, LINEAR, '6'),
      at(100, 'near', '5'),
      at(100, REF, '0.5'),
      at(100, WNEAR, '5'),
      // 101: NEAR 125000/16000 = 7.8125; LINEAR 1.2 * 7.8125 = 9.375; REF 10000 * 7.8125 / 100000 = 0.78125.
      at(101, LINEAR, '9.375'),
      at(101, 'near', '7.8125'),
      at(101, REF, '0.78125'),
      at(101, WNEAR, '7.8125'),
      // 102: only P2 moved: REF 12000 * 7.8125 / 80000 = 1.171875.
      at(102, REF, '1.171875'),
      // 103: NEAR 119000/17000 = 7; LINEAR 8.4; REF 11000 * 7 / 88000 = 0.875.
      at(103, LINEAR, '8.4'),
      at(103, 'near', '7'),
      at(103, REF, '0.875'),
      at(103, WNEAR, '7'),
      // 104: NEAR 112500/18000 = 6.25; LINEAR 7.5; REF 11000 * 6.25 / 88000 = 0.78125; DUST 5000/1000 = 5 (P4 now
      // holds 5000 USD, above the floor).
      at(104, DUST, '5'),
      at(104, LINEAR, '7.5'),
      at(104, 'near', '6.25'),
      at(104, REF, '0.78125'),
      at(104, WNEAR, '6.25'),
    ]);
  });

  it('values each trade from its side closest to the anchors', async () => {
    const { rows } = await db.pool.query(`select receipt_id, hops, value_usd::text from trades order by block_height`);
    expect(rows).toEqual([
      // USDC in: 25000 USDC = 25000 USD.
      { receipt_id: 'r-alice', hops: 1, value_usd: usd('25000') },
      // wNEAR (rank 1) against REF: 2000 * 7.8125 = 15625.
      { receipt_id: 'r-carol', hops: 1, value_usd: usd('15625') },
      // REF -> USDC (two hops, one trade): 6000 USDC out = 6000.
      { receipt_id: 'r-bob', hops: 2, value_usd: usd('6000') },
      // wNEAR -> USDC: 6500 USDC out = 6500.
      { receipt_id: 'r-dave', hops: 1, value_usd: usd('6500') },
    ]);
  });

  it('keeps each token current price, liquidity and 24 h figures', async () => {
    const { rows } = await db.pool.query(
      `select token, price_usd::text, price_height, liquidity_usd::text, volume_usd_24h::text, price_change_24h::text from token_market order by token collate "C"`,
    );
    const row = (token: string, price: string, height: number, liquidity: string, volume: string, change: string | null) => ({
      token,
      price_usd: usd(price),
      price_height: height,
      liquidity_usd: usd(liquidity),
      volume_usd_24h: usd(volume),
      price_change_24h: change && usd(change),
    });
    // The clock is block 104 (t0+1d+30s); the window is (t0+30s, t0+1d+30s]: it holds the trades of 102, 103 and
    // 104, not alice's (t0+20s). The price 24 h before is the last row at or before t0+30s: block 101's.
    expect(rows).toEqual([
      // USDC: reserves 112500 (P1) + 100 (P3) + 5000 (P4) + 2000 (P5) + 1000 (P6) = 120600; volume 6000 + 6500.
      row(USDC, '1', 100, '120600', '12500', '0'),
      // USDT.e: 1000 in P6.
      row(USDT_E, '1', 100, '1000', '0', '0'),
      // DUST: 1000 * 5; no price 24 h before.
      row(DUST, '5', 104, '5000', '0', null),
      // LINEAR: 40000 in P8 (rate pools hold no reserves) * 7.5; (7.5 - 9.375) / 9.375 = -0.2.
      row(LINEAR, '7.5', 104, '300000', '0', '-0.2'),
      // near: as wrap.near, no trades of its own.
      row('near', '6.25', 104, '493750', '0', '-0.2'),
      // REF: (88000 + 10 + 3000) * 0.78125 = 71101.5625; volume per hop: carol 15625 + bob's first hop 7000
      // (1000 wNEAR at 7); (0.78125 - 0.78125) / 0.78125 = 0.
      row(REF, '0.78125', 104, '71101.5625', '22625', '0'),
      // wNEAR: (18000 + 11000 + 50000) * 6.25 = 493750; volume: carol 15625 + bob's two hops 7000 + 6000 (wNEAR is
      // in both pools he crossed) + dave 6500 = 35125; (6.25 - 7.8125) / 7.8125 = -0.2.
      row(WNEAR, '6.25', 104, '493750', '35125', '-0.2'),
    ]);
  });

  it('builds OHLC candles from the hops, merging across batches and splitting at bucket edges', async () => {
    const candle = async (token: string, resolution: string, start: number) =>
      (
        await db.pool.query(
          `select open_usd::text as o, high_usd::text as h, low_usd::text as l, close_usd::text as c, volume_usd::text as usd, volume::text, trades
           from candles where token = $1 and resolution = $2 and bucket_start_ms = $3`,
          [token, resolution, start],
        )
      ).rows[0];
    const ohlc = (o: string, h: string, l: string, c: string, volumeUsd: string, volume: bigint, trades: number) => ({ o: usd(o), h: usd(h), l: usd(l), c: usd(c), usd: usd(volumeUsd), volume: volume.toString(), trades });
    // Ticks come from hops, each at its own rate. wNEAR, minute 0: alice's buy implies 25000 / 4000 = 6.25, carol's
    // sale ticks at wNEAR's own 7.8125.
    expect(await candle(WNEAR, '1m', T0)).toEqual(ohlc('6.25', '7.8125', '6.25', '7.8125', '40625', near(6_000), 2));
    // Minute 1: bob's two hops, REF -> wNEAR at wNEAR's own 7 (value 7000), then wNEAR -> USDC implying 6000 / 1000
    // = 6: a price each pool really paid, not the whole trade's 6000 over an intermediate amount.
    expect(await candle(WNEAR, '1m', T0 + 60 * SECOND)).toEqual(ohlc('7', '7', '6', '6', '13000', near(2_000), 2));
    expect(await candle(WNEAR, '1m', T0 + DAY)).toEqual(ohlc('6.5', '6.5', '6.5', '6.5', '6500', near(1_000), 1));
    // The week from Monday t0 holds all five ticks: open 6.25, high 7.8125, low 6, close 6.5 (dave: 6500 / 1000).
    expect(await candle(WNEAR, '1w', T0)).toEqual(ohlc('6.25', '7.8125', '6', '6.5', '60125', near(9_000), 5));
    // REF: carol implies 15625 / 20000 = 0.78125 at t0+50s; bob's first hop 7000 / 8000 = 0.875 at t0+70s (REF's
    // own price then), across a minute edge.
    expect(await candle(REF, '1m', T0)).toEqual(ohlc('0.78125', '0.78125', '0.78125', '0.78125', '15625', ref(20_000), 1));
    expect(await candle(REF, '1m', T0 + 60 * SECOND)).toEqual(ohlc('0.875', '0.875', '0.875', '0.875', '7000', ref(8_000), 1));
    expect(await candle(REF, '5m', T0)).toEqual(ohlc('0.78125', '0.875', '0.78125', '0.875', '22625', ref(28_000), 2));
    expect(await candle(USDC, '1d', T0)).toEqual(ohlc('1', '1', '1', '1', '31000', usdc(31_000), 2));
    // Buckets per token and resolution (1m 5m 15m 1h 4h 1d 1w): USDC hops at t0+20s, t0+70s, t0+1d+30s: 3+2+2+2+2+2+1
    // = 14; wNEAR at t0+20s, t0+50s, t0+70s, t0+1d+30s: 3+2+2+2+2+2+1 = 14; REF at t0+50s, t0+70s: 2+1+1+1+1+1+1 = 8.
    const { rows } = await db.pool.query(`select token, count(*)::int as n from candles group by token order by token collate "C"`);
    expect(rows).toEqual([
      { token: USDC, n: 14 },
      { token: REF, n: 8 },
      { token: WNEAR, n: 14 },
    ]);
  });

  it('gives identical tables for the same events in other batches', async () => {
    for (const batches of [[[100], [101, 102], [103], [104]], [[100, 101], [102, 103, 104]], BLOCKS.map((h) => [h])]) {
      const other = await createMigratedDb();
      await writeInBatches(other, batches);
      expect(await tableChecksums(other)).toEqual(clean);
    }
  });

  it('rebuild gives identical tables', async () => {
    await rebuild(db);
    expect(await tableChecksums(db)).toEqual(clean);
  });

  it('counts no conversion as volume (wraps, inner-balance deposits, stakes), counts a liquid unstake, and a solver fill once', async () => {
    const other = await createMigratedDb();
    await writeInBatches(other, [BLOCKS]);
    // 105 @ t0+1d+40s, prices as after 104 (NEAR 6.25, REF 0.78125, LINEAR 7.5), no pool moves:
    //   erin wraps 100 NEAR; deposits 50 REF into the exchange (REF -> inner REF); stakes 12 NEAR for 10 LINEAR at
    //   the protocol's rate; and unstakes 10 LINEAR for 11 NEAR instantly, out of the protocol's liquidity pool.
    const conversion = (index: number, dex: SwapEvent['dex'], poolId: string | null, tokenIn: string, amountIn: bigint, tokenOut: string, amountOut: bigint): SwapEvent => ({
      ...swap(105, `r-erin-${index}`, 0, 'erin.near', '', tokenIn, amountIn, tokenOut, amountOut),
      dex,
      contractId: dex === 'Wrap' ? WNEAR : LINEAR,
      poolId,
    });
    const events = [
      conversion(0, 'Wrap', null, 'near', near(100), WNEAR, near(100)),
      conversion(1, 'Wrap', null, REF, ref(50), `inner-nep141:${REF}`, ref(50)),
      conversion(2, 'StakeB', LINEAR, 'near', near(12), LINEAR, near(10)),
      conversion(3, 'StakeB', LINEAR, LINEAR, near(10), 'near', near(11)),
      // A solver's fill (QuoteA, no pool): erin's side, 100 USDC for 16 wNEAR, and the solver's mirror of it in the
      // same receipt: one exchange, counted once.
      { ...swap(105, 'r-erin-4', 0, 'erin.near', '', USDC, usdc(100), WNEAR, near(16)), dex: 'QuoteA', contractId: 'intents.near', poolId: null },
      { ...swap(105, 'r-erin-4', 1, 'solver.near', '', WNEAR, near(16), USDC, usdc(100)), dex: 'QuoteA', contractId: 'intents.near', poolId: null },
    ];
    await writeBatch(other, prepareBatch([block(105)], events));
    const { rows: hops } = await other.pool.query(`select receipt_id, index, volume_usd::text from trade_hops where block_height = 105 order by receipt_id, index`);
    // Volume: the unstake, 11 NEAR at 6.25 = 68.75, and the fill's first leg, 100 USDC.
    expect(hops).toEqual([
      { receipt_id: 'r-erin-0', index: 0, volume_usd: null },
      { receipt_id: 'r-erin-1', index: 0, volume_usd: null },
      { receipt_id: 'r-erin-2', index: 0, volume_usd: null },
      { receipt_id: 'r-erin-3', index: 0, volume_usd: usd('68.75') },
      { receipt_id: 'r-erin-4', index: 0, volume_usd: usd('100') },
      { receipt_id: 'r-erin-4', index: 1, volume_usd: null },
    ]);
    // Each is still a trade with its value, for the accounts' activity: 100 * 6.25, 50 * 0.78125, 12 * 6.25, and the
    // fill's two sides.
    const { rows: trades } = await other.pool.query(`select receipt_id, value_usd::text from trades where block_height = 105 order by receipt_id, trader`);
    expect(trades.map((t) => t.value_usd)).toEqual([usd('625'), usd('39.0625'), usd('75'), usd('68.75'), usd('100'), usd('100')]);
    // The window is now (t0+40s, t0+1d+40s]: carol's, bob's and dave's hops, the unstake and the fill. wNEAR and USDC
    // gain the fill's 100 (35125 + 100, 12500 + 100), REF keeps 22625, NEAR and LINEAR get the unstake's 68.75, and
    // the inner balance has no row of its own.
    const { rows: market } = await other.pool.query(
      `select token, volume_usd_24h::text from token_market where token = any($1) order by token collate "C"`,
      [[USDC, WNEAR, REF, 'near', LINEAR, `inner-nep141:${REF}`]],
    );
    expect(market).toEqual([
      { token: USDC, volume_usd_24h: usd('12600') },
      { token: LINEAR, volume_usd_24h: usd('68.75') },
      { token: 'near', volume_usd_24h: usd('68.75') },
      { token: REF, volume_usd_24h: usd('22625') },
      { token: WNEAR, volume_usd_24h: usd('35225') },
    ]);
    // Candles: the unstake ticks NEAR at its price and LINEAR at 68.75 / 10 = 6.875; the fill ticks USDC at 1 and
    // wNEAR at 100 / 16 = 6.25 once; the conversions tick nothing.
    const { rows: candles } = await other.pool.query(
      `select token, open_usd::text as o, close_usd::text as c, volume_usd::text as usd, trades from candles where resolution = '1m' and bucket_start_ms = $1 order by token collate "C"`,
      [T0 + DAY],
    );
    expect(candles).toEqual([
      { token: USDC, o: usd('1'), c: usd('1'), usd: usd('6600'), trades: 2 },
      { token: LINEAR, o: usd('6.875'), c: usd('6.875'), usd: usd('68.75'), trades: 1 },
      { token: 'near', o: usd('6.25'), c: usd('6.25'), usd: usd('68.75'), trades: 1 },
      { token: WNEAR, o: usd('6.5'), c: usd('6.25'), usd: usd('6600'), trades: 2 },
    ]);
  });

  it('a database made before per-hop volume is rebuilt from its log at the next start, as migrations 0015 and 0016 ask', async () => {
    const database = await createTestDatabase();
    const old = connect(database.url);
    try {
      const migrator = new Migrator({ db: old.kysely, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('0014_balances_first_height')).error).toBeUndefined();
      // The same log, as a database of the old schema holds it.
      await ensurePartitions(old.pool, [{ from: 100, to: 104 }]);
      for (const table of ['blocks', 'events']) {
        const { rows } = await db.pool.query(`select * from ${table}`);
        await old.kysely.insertInto(table as 'events').values(rows).execute();
      }
      expect(await migrateToLatest(old.kysely)).toEqual(['0015_hop_volume', '0016_market_beyond', '0017_backfill_ranges']);
      expect(await rebuildsAsked(old)).toEqual([
        'price changes over 5 m, 1 h and 6 h, 24 h buys, sells and traders, pool creation heights (migration 0016)',
        'volume and candles per hop, conversions left out (migration 0015)',
      ]);
      await rebuild(old);
      expect(await rebuildsAsked(old)).toEqual([]);
      const projections = (sums: Record<string, string>) => Object.fromEntries(PROJECTIONS.map((t) => [t, sums[t]]));
      expect(projections(await tableChecksums(old))).toEqual(projections(clean));
    } finally {
      await old.close();
    }
  });

  it('names the tokens whose market row changed in the batch NOTIFY: price, liquidity, volume', async () => {
    const other = await createMigratedDb();
    const listener = new pg.Client(other.url);
    await listener.connect();
    const payloads: { height: number; tokens: string[] }[] = [];
    listener.on('notification', (n) => n.channel === NOTIFY_CHANNEL && payloads.push(JSON.parse(n.payload!)));
    await listener.query(`listen ${NOTIFY_CHANNEL}`);
    try {
      await writeInBatches(other, BLOCKS.map((h) => [h]));
      await allNotified(listener);
      // No transfers in these blocks: the tokens are those whose market row changed. 102: carol's swap moved P2
      // (wNEAR/REF): REF repriced, and the wNEAR reserves and so NEAR's (one token in the market) changed liquidity
      // and volume without a new price.
      expect(payloads.find((p) => p.height === 102)?.tokens).toEqual(['near', REF, WNEAR]);
      // 104: the repriced DUST, LINEAR, NEAR, REF and wNEAR; USDC (dave's trade moved P1: its liquidity and volume);
      // USDT.e, whose reference price (block 100's) left the 24 h window, so its change was worked out again.
      expect(payloads.find((p) => p.height === 104)?.tokens).toEqual([USDC, 'dac17f958d2ee523a2206206994597c13d831ec7.factory.bridge.near', DUST, LINEAR, 'near', REF, WNEAR]);
    } finally {
      await listener.end();
    }
  });
});

// An AmmC launch pool counts a phantom NEAR liquidity in its first reserve (dexes/amm-c/events.ts): its price is
// the curve's (the ratio of the reserves it uses), but only the NEAR it holds counts as depth and liquidity.
//   300 @ t0+7d    P1 USDC/wNEAR 100000 / 20000 (NEAR = 5); launch pool near/MEME 400 / 1000000 with 300 phantom:
//                  it holds 100 NEAR = 500 USD < the 1000 USD floor, so MEME has no price.
//   301 @ t0+7d+1s the launch pool is at 600 / 1000000: it holds 300 NEAR = 1500 USD, so MEME = 600 * 5 / 1000000
//                  = 0.003; MEME's liquidity 1000000 * 0.003 = 3000; NEAR's (20000 + 300) * 5 = 101500.
//   302 @ t0+7d+2s only P1 moves, to 125000 / 16000: NEAR = 7.8125, MEME = 600 * 7.8125 / 1000000 = 0.0046875 (the
//                  launch pool now comes from the pools table, phantom and all); liquidity: MEME 1000000 * 0.0046875
//                  = 4687.5, NEAR (16000 + 300) * 7.8125 = 127343.75.
describe('launch pools with phantom liquidity', () => {
  const MEME = 'meme.near';
  const launchPool = (height: number, nearAmount: number) =>
    pool(height, '7', ['near', MEME], [near(nearAmount), ref(1_000_000)], 'xyk', 'AmmC', { poolType: 'launch', phantomLiquidity: near(300) });
  const memeMetadata: TokenMetadataEvent = { ...dustMetadata, blockHeight: 300, timestampMs: TIMES[300]!, receiptId: `rpc:ft_metadata:${MEME}`, contractId: MEME, decimals: 18 };

  it('prices from the curve but counts only the money held', async () => {
    const db = await createMigratedDb();
    await writeBatch(db, prepareBatch([block(300)], [memeMetadata, pool(300, '1', [USDC, WNEAR], [usdc(100_000), near(20_000)]), launchPool(300, 400)]));
    expect((await db.pool.query(`select count(*)::int as n from prices where token = $1`, [MEME])).rows[0].n).toBe(0);
    await writeBatch(db, prepareBatch([block(301)], [launchPool(301, 600)]));
    const { rows } = await db.pool.query(`select token, price_usd::text, liquidity_usd::text from token_market where token in ($1, $2) order by token collate "C"`, [MEME, WNEAR]);
    expect(rows).toEqual([
      { token: MEME, price_usd: usd('0.003'), liquidity_usd: usd('3000') },
      { token: WNEAR, price_usd: usd('5'), liquidity_usd: usd('101500') },
    ]);
    await writeBatch(db, prepareBatch([block(302)], [pool(302, '1', [USDC, WNEAR], [usdc(125_000), near(16_000)])]));
    const after = await db.pool.query(`select token, price_usd::text, liquidity_usd::text from token_market where token in ($1, $2) order by token collate "C"`, [MEME, WNEAR]);
    expect(after.rows).toEqual([
      { token: MEME, price_usd: usd('0.0046875'), liquidity_usd: usd('4687.5') },
      { token: WNEAR, price_usd: usd('7.8125'), liquidity_usd: usd('127343.75') },
    ]);
  });
});

describe('a real two-hop Ref swap (mainnet block 81206675): each hop at its own rate', () => {
  // geal.near's one receipt, read off the block's JSON: 27.07 SWEAT -> 0.208762475255939868571059 wNEAR through pool
  // 3667, then that wNEAR -> 1.241475781908817737 AURORA (aaaaaa20...bridge.near) through pool 1395. The fixture
  // holds no pool against a dollar, so NEAR is priced by a USDC/wNEAR pool written one block before: 1,500,000 USDC
  // for 1,000,000 wNEAR, NEAR = 1.5 exactly.
  const HEIGHT = 81_206_675;
  const MINUTE_START = 1_671_700_800_000; // the block's time, 1671700817014 ms, to the minute
  const SWEAT = 'token.sweat';
  let db: Awaited<ReturnType<typeof createMigratedDb>>;

  beforeAll(async () => {
    db = await createMigratedDb();
    const before = { height: HEIGHT - 1, hash: 'synthetic', prevHash: 'synthetic-parent', timestampMs: 1_671_700_816_000, gapBefore: 0 };
    const nearPrice: PoolStateEvent = { ...pool(100, 'usdc-wnear', [USDC, WNEAR], [usdc(1_500_000), near(1_000_000)]), blockHeight: before.height, timestampMs: before.timestampMs };
    await writeBatch(db, prepareBatch([before], [nearPrice]));
    await ingest({ db, source: filesSource(path.join(FIXTURES_DIR, 'mainnet')), from: HEIGHT, to: HEIGHT, signal: new AbortController().signal });
  });

  it("values each hop by its wNEAR at 1.5, and charts SWEAT at the rate its pool paid, not the trade's or the pool's spot", async () => {
    // Both hops moved 208762475255939868571059 yocto-wNEAR: at 1.5 USD, floor(208762475255939868571059 * 1.5 / 10^6)
    // = 313143712883909802 units of 10^-18 USD.
    const { rows: hops } = await db.pool.query(`select pool_id, volume_usd::text from trade_hops where block_height = $1 order by index`, [HEIGHT]);
    expect(hops).toEqual([
      { pool_id: '3667', volume_usd: '0.313143712883909802' },
      { pool_id: '1395', volume_usd: '0.313143712883909802' },
    ]);
    // SWEAT's tick: that value over 27.07 SWEAT, floor(313143712883909802 * 10^18 / 27070000000000000000).
    const { rows: candles } = await db.pool.query(
      `select open_usd::text as o, close_usd::text as c, volume_usd::text as usd, volume::text, trades from candles where token = $1 and resolution = '1m' and bucket_start_ms = $2`,
      [SWEAT, MINUTE_START],
    );
    expect(candles).toEqual([{ o: '0.011567924376945319', c: '0.011567924376945319', usd: '0.313143712883909802', volume: '27070000000000000000', trades: 1 }]);
    // The pool's spot price after the swap (SWEAT's price at the block) is another figure: the candle is not it.
    const { rows: spot } = await db.pool.query(`select price_usd::text from prices where token = $1 and block_height = $2`, [SWEAT, HEIGHT]);
    expect(spot).toHaveLength(1);
    expect(spot[0].price_usd).not.toBe('0.011567924376945319');
    // wNEAR ticks at its own 1.5 in both pools: two ticks, twice the value, both hops' wNEAR.
    const { rows: wnear } = await db.pool.query(
      `select open_usd::text as o, volume_usd::text as usd, volume::text, trades from candles where token = $1 and resolution = '1m' and bucket_start_ms = $2`,
      [WNEAR, MINUTE_START],
    );
    expect(wnear).toEqual([{ o: '1.500000000000000000', usd: '0.626287425767819604', volume: '417524950511879737142118', trades: 2 }]);
  });
});

// Issue 40.7: price changes over 5 m / 1 h / 6 h / 24 h, 24 h buys, sells and traders, pools' creation heights, on a
// market of its own whose price rows fall between the windows' starts. The clock ends at T1 (block 205).
describe('what a DexScreener user looks for: price changes, buys and sells, pool creation', () => {
  const T1 = T0 + 30 * DAY;
  const MINUTE = 60_000;
  const HOUR = 3_600_000;
  const AT: Record<number, number> = {
    200: T1 - 25 * HOUR,
    201: T1 - 23 * HOUR,
    202: T1 - 5 * HOUR,
    203: T1 - 30 * MINUTE,
    204: T1 - 2 * MINUTE,
    205: T1,
  };
  const at = <E extends { blockHeight: number; timestampMs: number }>(height: number, e: E): E => ({ ...e, blockHeight: height, timestampMs: AT[height]! });
  // Pool A prices REF at its USDC over its REF (10000 REF throughout); W prices wNEAR at 5; B prices DUST from 203.
  const poolA = (height: number, dollars: number) => at(height, pool(100, 'A', [USDC, REF], [usdc(dollars), ref(10_000)]));
  const trade = (height: number, receipt: string, trader: string, hops: [string, string, bigint, string, bigint][], dex: SwapEvent['dex'] = 'AmmA') =>
    hops.map(([poolId, tokenIn, amountIn, tokenOut, amountOut], i) => ({ ...at(height, swap(100, receipt, i, trader, poolId, tokenIn, amountIn, tokenOut, amountOut)), dex }));
  const BEYOND = [200, 201, 202, 203, 204, 205];
  const ZED = 'zed.near';
  function beyondEvents(height: number): DomainEvent[] {
    switch (height) {
      case 200:
        return [
          { ...at(200, dustMetadata) },
          poolA(200, 10_000),
          at(200, pool(100, 'W', [USDC, WNEAR], [usdc(50_000), near(10_000)])),
          // Read by a bootstrap: it existed before, created at no known block.
          { ...at(200, pool(100, 'D', [USDC, USDT_E], [usdc(1_000), usdc(1_000)], 'stable')), receiptId: 'bootstrap:AmmA' },
          // bob's buy of ZED (in no later trade), 25 h before the clock: it leaves the 24 h window at 203, when the
          // clock passes T1 - 30 min, and only that recount takes it out.
          at(200, pool(100, 'Z', [USDC, ZED], [usdc(10), 10n])),
          ...trade(200, 'r-bob-0', 'bob.near', [['Z', USDC, usdc(10), ZED, 1n]]),
        ];
      case 201:
        return [poolA(201, 20_000), ...trade(201, 'r-alice-0', 'alice.near', [['A', USDC, usdc(20), REF, ref(10)]])];
      case 202:
        return [poolA(202, 40_000), ...trade(202, 'r-alice-1', 'alice.near', [['A', REF, ref(5), USDC, usdc(20)]])];
      case 203:
        return [poolA(203, 50_000), at(203, pool(100, 'B', [USDC, DUST], [usdc(5_000), dust(1_000)]))];
      case 204:
        // carol: wNEAR -> USDC -> REF, one trade: a sell of wNEAR and a buy of REF; USDC only passes through.
        return [poolA(204, 80_000), ...trade(204, 'r-carol-0', 'carol.near', [['W', WNEAR, near(1), USDC, usdc(5)], ['A', USDC, usdc(5), REF, ref(1)]])];
      case 205:
        return [
          poolA(205, 100_000),
          ...trade(205, 'r-bob-1', 'bob.near', [['A', REF, ref(1), USDC, usdc(10)]]),
          // dave's conversions, which are no buys or sells: a wrap and a stake at the protocol's rate.
          ...trade(205, 'r-dave-0', 'dave.near', [[null as unknown as string, 'near', near(3), WNEAR, near(3)]], 'Wrap'),
          ...trade(205, 'r-dave-1', 'dave.near', [[LINEAR, 'near', near(2), LINEAR, near(1)]], 'StakeB'),
        ];
      default:
        throw new Error(`no block ${height}`);
    }
  }
  const beyondBlock = (height: number): BlockRow => ({ height, hash: `b${height}`, prevHash: `b${height - 1}`, timestampMs: AT[height]!, gapBefore: 0 });
  async function writeBeyond(target: Awaited<ReturnType<typeof createMigratedDb>>, batches: number[][]) {
    for (const heights of batches) await writeBatch(target, prepareBatch(heights.map(beyondBlock), heights.flatMap(beyondEvents)));
  }
  let db: Awaited<ReturnType<typeof createMigratedDb>>;
  let clean: Record<string, string>;

  beforeAll(async () => {
    db = await createMigratedDb();
    await writeBeyond(db, [BEYOND]);
    clean = await tableChecksums(db);
  });

  it('changes over 5 m, 1 h, 6 h and 24 h: price now over the price in force at clock - window, minus 1', async () => {
    const { rows } = await db.pool.query(
      `select token, price_usd::text as p, price_change_5m::text as m5, price_change_1h::text as h1, price_change_6h::text as h6, price_change_24h::text as h24
       from token_market where token = any($1) order by token collate "C"`,
      [[REF, DUST, WNEAR]],
    );
    const change = (token: string, p: string, m5: string | null, h1: string | null, h6: string | null, h24: string | null) => ({
      token, p: usd(p), m5: m5 && usd(m5), h1: h1 && usd(h1), h6: h6 && usd(h6), h24: h24 && usd(h24),
    });
    expect(rows).toEqual([
      // DUST: priced at 203 (5000 / 1000 = 5, T1 - 30 min) and not since: the 5 m reference is that row, so 0; no
      // price stood at T1 - 1 h or earlier.
      change(DUST, '5', '0', null, null, null),
      // REF: 10 now (100000 / 10000). In force at T1 - 5 min: 203's 5 -> 10/5 - 1 = 1; at T1 - 1 h: 202's 4 -> 1.5;
      // at T1 - 6 h: 201's 2 -> 4; at T1 - 24 h: 200's 1 -> 9.
      change(REF, '10', '1', '1.5', '4', '9'),
      // wNEAR: 5 since 200 (50000 / 10000).
      change(WNEAR, '5', '0', '0', '0', '0'),
    ]);
  });

  it('buys, sells and unique traders of the 24 h up to the clock, conversions left out', async () => {
    const { rows } = await db.pool.query(`select token, buys_24h as buys, sells_24h as sells, traders_24h as traders from token_activity order by token collate "C"`);
    // The window (T1 - 24 h, T1] holds alice's buy (201) and sale (202), carol's route (204) and bob's sale (205),
    // not bob's buy at 200 (T1 - 25 h), which still gave ZED its row.
    expect(rows).toEqual([
      // USDC: bought (paid out) by alice at 202 and bob at 205, sold by alice at 201; carol's route only crossed it.
      { token: USDC, buys: 2, sells: 1, traders: 2 },
      // REF: bought by alice (201) and carol (204), sold by alice (202) and bob (205): alice, carol, bob.
      { token: REF, buys: 2, sells: 2, traders: 3 },
      // wNEAR: carol's sale; dave's wrap is a conversion, so neither it nor his stake gives near or LINEAR a row.
      { token: WNEAR, buys: 0, sells: 1, traders: 1 },
      { token: ZED, buys: 0, sells: 0, traders: 0 },
    ]);
  });

  it("each pool's creation height is its first state's block; null for a state a bootstrap read", async () => {
    const { rows } = await db.pool.query(`select pool_id, created_height::int as created, updated_height::int as updated from pools order by pool_id`);
    expect(rows).toEqual([
      { pool_id: 'A', created: 200, updated: 205 },
      { pool_id: 'B', created: 203, updated: 203 },
      { pool_id: 'D', created: null, updated: 200 },
      { pool_id: 'W', created: 200, updated: 200 },
      { pool_id: 'Z', created: 200, updated: 200 },
    ]);
  });

  it('gives identical tables in other batches and after a rebuild', async () => {
    for (const batches of [BEYOND.map((h) => [h]), [[200, 201], [202, 203, 204], [205]], [[200], [201, 202, 203, 204, 205]]]) {
      const other = await createMigratedDb();
      await writeBeyond(other, batches);
      expect(await tableChecksums(other)).toEqual(clean);
    }
    await rebuild(db);
    expect(await tableChecksums(db)).toEqual(clean);
  });
});
