// The arbitrage trader on the realnet (devnet/realnet/hosted.ts): Ref's pools set the market's prices (wNEAR from
// its wNEAR/USDt pool, REF from REF/wNEAR), and after each block every constant-product pool of the hosted AmmC is
// within 1% of them, traded back through AmmC's own swap; without it (the same seed, the same users' actions) AmmC's
// NEAR drifts further from Ref's.
import { beforeAll, describe, expect, it } from 'vitest';
import { ARBITRAGE_THRESHOLD, ARBITRAGEUR } from '../../devnet/arbitrage.ts';
import { AmmCDevnet } from '../../devnet/amm-c.ts';
import { USDT, type RealnetMarket } from '../../devnet/realnet/market.ts';
import { realnetMarket } from '../../devnet/realnet/wasm.ts';
import { NEAR_TOKEN_ID } from '../../near/token-id.ts';

const BLOCKS = 1_200;

/** AmmC's NEAR in USDt (its NEAR/USDt pool) over Ref's (its wNEAR/USDt pool), less 1. */
function nearGap(market: RealnetMarket): number {
  const ammC = market.models!.dexes.find((d): d is AmmCDevnet => d instanceof AmmCDevnet)!;
  const pool = ammC.pools.find((p) => p.state.tokens[0] === NEAR_TOKEN_ID && p.state.tokens[1] === USDT)!;
  const ammCNear = Number(pool.state.amounts[1]!) / 1e6 / (Number(pool.state.amounts[0]!) / 1e24);
  return Math.abs(ammCNear / market.prices().near! - 1);
}

interface Run {
  market: RealnetMarket;
  /** The worst AmmC-to-Ref NEAR gap after a block, once the models trade. */
  gap: number;
  /** The worst distance of an AmmC pool from the prices the arbitrage last read, after a block. */
  fromFeed: number;
  poolChecks: number;
}

function run(arbitrage: boolean): Run {
  const market = realnetMarket(undefined, { seed: 'arbitrage', models: true, recordTrades: true, history: false, arbitrage });
  const out: Run = { market, gap: 0, fromFeed: 0, poolChecks: 0 };
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
  return out;
}

describe(`the arbitrage trader on the realnet (${BLOCKS} blocks)`, () => {
  const runs: Record<'with' | 'without', Run> = {} as never;
  beforeAll(() => {
    runs.with = run(true);
    runs.without = run(false);
    console.log(`AmmC's NEAR against Ref's after each block: worst gap ${(runs.with.gap * 100).toFixed(2)}% with the arbitrage, ${(runs.without.gap * 100).toFixed(2)}% without`);
  }, 240_000);

  it("keeps AmmC's pools within 1% of Ref's prices after each block, trading through AmmC's own swap", () => {
    const { market, fromFeed, poolChecks } = runs.with;
    const arbitrage = market.models!.arbitrage!;
    expect(arbitrage.pools().map((p) => `${p.dex}:${p.id}`)).toEqual(['AmmC:0', 'AmmC:1', 'AmmC:2']);
    expect(poolChecks).toBeGreaterThan(3 * (BLOCKS - 20));
    expect(fromFeed).toBeLessThanOrEqual(ARBITRAGE_THRESHOLD);
    const hops = market.models!.trades.filter((t) => t.trader === ARBITRAGEUR);
    expect(hops.length).toBeGreaterThan(10);
    expect(new Set(hops.map((t) => t.dex))).toEqual(new Set(['AmmC']));
    // The prices it keeps are Ref's, which moved from the setup's $5.
    expect(arbitrage.price('near')).toBe(market.prices().near);
    expect(arbitrage.price('near')).not.toBeCloseTo(5, 3);
  });

  it("without it, the same users' trades leave AmmC's NEAR further from Ref's, beyond twice the threshold", () => {
    expect(runs.without.market.models!.arbitrage).toBeNull();
    // With it, the gap after a block is the threshold plus what Ref's own trades of that block moved; without it,
    // AmmC walks on its own (and the walk grows with the blocks).
    expect(runs.without.gap).toBeGreaterThan(2 * ARBITRAGE_THRESHOLD);
    expect(runs.without.gap).toBeGreaterThan(runs.with.gap);
  });
});
