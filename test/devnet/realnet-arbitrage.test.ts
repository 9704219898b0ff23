// The arbitrage trader on the realnet (devnet/realnet/hosted.ts): Ref's pools set the market's prices (wNEAR from
// its wNEAR/USDt pool, REF from REF/wNEAR), and after each block every constant-product pool of the hosted AmmC is
// within 1% of them, traded back through AmmC's own swap; without it (the same seed, the same users' actions) AmmC's
// NEAR drifts further from Ref's.
import { beforeAll, describe, expect, it } from 'vitest';
import { ARBITRAGE_THRESHOLD, ARBITRAGEUR } from '../../devnet/arbitrage.ts';
import { AmmCDevnet } from '../../devnet/amm-c.ts';
import { USDT, type RealnetMarket } from '../../devnet/realnet/market.ts';
import { realnetMarket } from '../../devnet/realnet/wasm.ts';
import { realnetMemo } from '../harness/realnet.ts';
import { NEAR_TOKEN_ID } from '../../near/token-id.ts';

const BLOCKS = 1_200;

/** AmmC's NEAR in USDt (its NEAR/USDt pool) over Ref's (its wNEAR/USDt pool), less 1. */
function nearGap(market: RealnetMarket): number {
  const ammC = market.models!.dexes.find((d): d is AmmCDevnet => d instanceof AmmCDevnet)!;
  const pool = ammC.pools.find((p) => p.state.tokens[0] === NEAR_TOKEN_ID && p.state.tokens[1] === USDT)!;
  const ammCNear = Number(pool.state.amounts[1]!) / 1e6 / (Number(pool.state.amounts[0]!) / 1e24);
  return Math.abs(ammCNear / market.prices().near! - 1);
}

/** What a run of BLOCKS blocks shows (kept with the blocks: realnetMemo). */
interface Run {
  /** The worst AmmC-to-Ref NEAR gap after a block, once the models trade. */
  gap: number;
  /** The worst distance of an AmmC pool from the prices the arbitrage last read, after a block. */
  fromFeed: number;
  poolChecks: number;
  /** The arbitrage's pools (`dex:id`), its hops' DEXes and count, its NEAR price and Ref's; null without it. */
  arbitrage: { pools: string[]; hopDexes: string[]; hops: number; near: number; refNear: number } | null;
}

const run = (arbitrage: boolean): Run =>
  realnetMemo(`arbitrage: ${BLOCKS} blocks, arbitrage ${arbitrage}`, () => {
    const market = realnetMarket(undefined, { seed: 'arbitrage', models: true, recordTrades: true, history: false, arbitrage });
    const out: Run = { gap: 0, fromFeed: 0, poolChecks: 0, arbitrage: null };
    for (let i = 0; i < BLOCKS; i++) {
      market.next();
      if (!market.models!.trades.length) continue;
      out.gap = Math.max(out.gap, nearGap(market));
      const feed = market.models!.arbitrage;
      for (const pool of feed?.pools() ?? []) {
        out.fromFeed = Math.max(out.fromFeed, Math.abs(feed!.ratio(market.models!.world, pool) - 1));
        out.poolChecks++;
      }
    }
    const feed = market.models!.arbitrage;
    if (feed) {
      const hops = market.models!.trades.filter((t) => t.trader === ARBITRAGEUR);
      out.arbitrage = { pools: feed.pools().map((p) => `${p.dex}:${p.id}`), hopDexes: [...new Set(hops.map((t) => t.dex))], hops: hops.length, near: feed.price('near')!, refNear: market.prices().near! };
    }
    return out;
  });

describe(`the arbitrage trader on the realnet (${BLOCKS} blocks)`, () => {
  const runs: Record<'with' | 'without', Run> = {} as never;
  beforeAll(() => {
    runs.with = run(true);
    runs.without = run(false);
    console.log(`AmmC's NEAR against Ref's after each block: worst gap ${(runs.with.gap * 100).toFixed(2)}% with the arbitrage, ${(runs.without.gap * 100).toFixed(2)}% without`);
  }, 240_000);

  it("keeps AmmC's pools within 1% of Ref's prices after each block, trading through AmmC's own swap", () => {
    const { arbitrage, fromFeed, poolChecks } = runs.with;
    expect(arbitrage!.pools).toEqual(['AmmC:0', 'AmmC:1', 'AmmC:2']);
    expect(poolChecks).toBeGreaterThan(3 * (BLOCKS - 20));
    expect(fromFeed).toBeLessThanOrEqual(ARBITRAGE_THRESHOLD);
    expect(arbitrage!.hops).toBeGreaterThan(10);
    expect(arbitrage!.hopDexes).toEqual(['AmmC']);
    // The prices it keeps are Ref's, which moved from the setup's $5.
    expect(arbitrage!.near).toBe(arbitrage!.refNear);
    expect(arbitrage!.near).not.toBeCloseTo(5, 3);
  });

  it("without it, the same users' trades leave AmmC's NEAR further from Ref's, beyond twice the threshold", () => {
    expect(runs.without.arbitrage).toBeNull();
    // With it, the gap after a block is the threshold plus what Ref's own trades of that block moved; without it,
    // AmmC walks on its own (and the walk grows with the blocks).
    expect(runs.without.gap).toBeGreaterThan(2 * ARBITRAGE_THRESHOLD);
    expect(runs.without.gap).toBeGreaterThan(runs.with.gap);
  });
});
