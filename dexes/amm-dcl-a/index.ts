// AmmDclA: Ref's concentrated-liquidity exchange (`dclv2.ref-labs.near`). Its storage layout is not public, so its
// pools are re-simulated from its events through a book of their states (the fold: state.ts, decode.ts), started
// from its views at a bootstrap (bootstrap.ts); routed exact in and out over up to 3 pools; a pool whose book could
// not stay exact is not routed.
import { endsOf, positive, type Dex, type Fraction, type Hop, type RoutingPool } from '../dex.ts';
import type { PoolStateCommon } from '../events.ts';
import { outputStorageSteps } from '../instructions.ts';
import { ammDclABootstrap } from './bootstrap.ts';
import { applyDclLogs, decodeAmmDclA, extractDclLogs, ReceiptNumbering, type LocatedDclLog } from './decode.ts';
import { AMM_DCL_A_DEX_ID } from './events.ts';
import { dclSwapCalls } from './instructions.ts';
import { quoteExactIn, quoteExactOut } from './math.ts';
import { dclPoolStateFromJson, newDclPoolBook, type DclPoolBook, type DclPoolState } from './state.ts';

/** Exact in and out, over the pool's liquidity and limit orders. Marginal rate before fees: Y per X = (sqrtPrice96/2^96)². */
function dclHops(pool: RoutingPool): Hop[] {
  const state = pool.state as unknown as DclPoolState;
  if (state.kind !== 'dcl' || state.unappliedChanges > 0 || state.liquidity + state.amounts[0] + state.amounts[1] === 0n) return [];
  const [x, y] = state.tokens;
  const priceNumerator = state.sqrtPrice96 * state.sqrtPrice96;
  const priceDenominator = 1n << 192n;
  const hop = (tokenIn: string, tokenOut: string, spot: Fraction): Hop => ({
    dex: AMM_DCL_A_DEX_ID,
    poolId: pool.poolId,
    tokenIn,
    tokenOut,
    out: (a) => quoteExactIn(state, tokenIn, a),
    in: (b) => positive(quoteExactOut(state, tokenOut, b)),
    spot,
  });
  return [
    hop(x, y, { numerator: priceNumerator, denominator: priceDenominator }),
    hop(y, x, { numerator: priceDenominator, denominator: priceNumerator }),
  ];
}

export const ammDclA: Dex = {
  id: AMM_DCL_A_DEX_ID,
  // Its pools' fees are in millionths.
  feeDenominator: 1_000_000,
  contract: (contracts) => contracts.AmmDclA,
  activity: 'trade',
  // Swaps and liquidity; its pool states come from the fold.
  decode: (block, contracts) => decodeAmmDclA(block, contracts),
  // Points and orders have their own JSON form.
  reviveState: (json) => dclPoolStateFromJson(json) as unknown as PoolStateCommon & Record<string, unknown>,
  fold: {
    inputs: (block, contracts) => extractDclLogs(block, contracts.AmmDclA),
    book: (states) => newDclPoolBook(states.map(dclPoolStateFromJson)),
    apply: (book, inputs, contracts, nextIndex) =>
      applyDclLogs(book as DclPoolBook, inputs as readonly LocatedDclLog[], contracts.AmmDclA, new ReceiptNumbering(nextIndex)),
  },
  routing: {
    maxHops: { exactIn: 3, exactOut: 3 },
    tradesWnear: true,
    hasSlippage: true,
    hops: dclHops,
    helperSteps: (route, ctx) => outputStorageSteps(endsOf(route).last.tokenOut, ctx.trader, ctx.registered),
    calls: (route, amounts, ctx) => {
      const { first, last, path } = endsOf(route);
      return dclSwapCalls({
        contractId: ctx.contracts.AmmDclA,
        tokenIn: first.tokenIn,
        poolIds: path.map((h) => h.poolId),
        outputToken: last.tokenOut,
        mode: route.mode,
        amountIn: amounts.sent,
        amountOut: amounts.wanted,
        skipUnwrapNear: true,
      });
    },
  },
  // Pools, liquidity per point and orders from the contract's views (bootstrap.ts).
  bootstrap: ammDclABootstrap,
};
