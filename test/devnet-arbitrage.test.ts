// The devnet's arbitrage trader: with it every AmmA and AmmC constant-product pool stays within 1% of the market's
// price after each block, so the DEXes agree on NEAR; without it (the default seed, 6,000 blocks, the same user
// actions) they drift apart.
import { describe, expect, it } from 'vitest';
import { ARBITRAGE_THRESHOLD, ARBITRAGEUR } from '../devnet/arbitrage.ts';
import { AmmADevnet } from '../devnet/amm-a.ts';
import { AmmCDevnet } from '../devnet/amm-c.ts';
import { Devnet } from '../devnet/devnet.ts';

const USDT = 'usdt.tether-token.near';
const BLOCKS = 6_000;

/** NEAR in USDT on AmmA's wNEAR/USDT pool and on AmmC's NEAR/USDT pool (both: 24 and 6 decimals). */
function nearPrices(devnet: Devnet): { ammA: number; ammC: number } {
  const ammA = devnet.dexes.find((d): d is AmmADevnet => d instanceof AmmADevnet)!.pools.find((p) => p.tokens[0] === devnet.world.contracts.Wrap && p.tokens[1] === USDT)!;
  const ammC = devnet.dexes.find((d): d is AmmCDevnet => d instanceof AmmCDevnet)!.pools.find((p) => p.state.tokens[0] === 'near' && p.state.tokens[1] === USDT)!;
  const price = (amounts: readonly bigint[]) => (Number(amounts[1]!) / 1e6) / (Number(amounts[0]!) / 1e24);
  return { ammA: price(ammA.amounts), ammC: price(ammC.state.amounts) };
}

describe('devnet arbitrage', () => {
  it('keeps every AmmA and AmmC pool within 1% of the market after each block, and the two DEXes\' NEAR together', () => {
    const devnet = new Devnet({ seed: 'dexlake', recordTrades: true });
    const arbitrage = devnet.arbitrage!;
    let worst = 0;
    let worstGap = 0;
    for (let i = 0; i < BLOCKS; i++) {
      devnet.next();
      for (const pool of arbitrage.pools()) worst = Math.max(worst, Math.abs(arbitrage.ratio(devnet.world, pool) - 1));
      const { ammA, ammC } = nearPrices(devnet);
      worstGap = Math.max(worstGap, Math.abs(ammA / ammC - 1));
    }
    expect(arbitrage.pools().map((p) => `${p.dex}:${p.id}`)).toEqual(['AmmA:0', 'AmmA:1', 'AmmA:2', 'AmmA:3', 'AmmA:4', 'AmmA:5', 'AmmC:0', 'AmmC:1', 'AmmC:2']);
    expect(worst).toBeLessThanOrEqual(ARBITRAGE_THRESHOLD);
    expect(worstGap).toBeLessThan(2 * ARBITRAGE_THRESHOLD);
    // It trades as anyone does, through the DEXes' own swaps, on both DEXes.
    const hops = devnet.trades.filter((t) => t.trader === ARBITRAGEUR && t.dex !== 'Wrap');
    expect(new Set(hops.map((t) => t.dex))).toEqual(new Set(['AmmA', 'AmmC']));
    // The market moves: NEAR's price is not its genesis $5 any more, and the pools followed it.
    expect(arbitrage.price('near')).not.toBe(5);
    expect(Math.abs(nearPrices(devnet).ammA / arbitrage.price('near')! - 1)).toBeLessThanOrEqual(ARBITRAGE_THRESHOLD);
  });

  it('without it, the same users\' trades leave AmmA and AmmC more than 10% apart on NEAR', () => {
    const devnet = new Devnet({ seed: 'dexlake', arbitrage: false });
    expect(devnet.arbitrage).toBeNull();
    let worstGap = 0;
    for (let i = 0; i < BLOCKS; i++) {
      devnet.next();
      const { ammA, ammC } = nearPrices(devnet);
      worstGap = Math.max(worstGap, Math.abs(ammA / ammC - 1));
    }
    expect(worstGap).toBeGreaterThan(0.1);
  });
});
