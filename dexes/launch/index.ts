// Launch: the Aidols bonding-curve launchpad (`aidols.near`); each aidol token trades against wNEAR on its own
// curve, one call, exact in and out, until it graduates (math.ts refuses a curve that is not tradable).
import { endsOf, positive, type Dex, type Fraction, type Hop, type RoutingPool } from '../dex.ts';
import { outputStorageSteps } from '../instructions.ts';
import { launchBootstrap } from './bootstrap.ts';
import { decodeLaunch } from './decode.ts';
import { LAUNCH_DEX_ID, type LaunchPoolState } from './events.ts';
import { launchCalls } from './instructions.ts';
import { launchQuoteExactIn, launchQuoteExactOut } from './math.ts';

/** A curve [aidol token, wNEAR], both directions. */
function launchHops(pool: RoutingPool): Hop[] {
  const state = pool.state as unknown as LaunchPoolState;
  if (state.kind !== 'curve' || state.tokens.length !== 2 || state.amounts.length !== 2) return [];
  const [token, wnear] = state.tokens as [string, string];
  const [tokenHold, wnearHold] = state.amounts as [bigint, bigint];
  if (tokenHold <= 0n || wnearHold <= 0n) return [];
  const hop = (tokenIn: string, tokenOut: string, spot: Fraction): Hop => ({
    dex: LAUNCH_DEX_ID,
    poolId: pool.poolId,
    tokenIn,
    tokenOut,
    out: (a) => positive(launchQuoteExactIn(state, tokenIn, tokenOut, a)?.amountOut),
    in: (b) => positive(launchQuoteExactOut(state, tokenIn, tokenOut, b)?.amountIn),
    spot,
  });
  return [
    hop(wnear, token, { numerator: tokenHold, denominator: wnearHold }),
    hop(token, wnear, { numerator: wnearHold, denominator: tokenHold }),
  ];
}

export const launch: Dex = {
  id: LAUNCH_DEX_ID,
  // Its pools' fees are in millionths.
  feeDenominator: 1_000_000,
  contract: (contracts) => contracts.Launch,
  activity: 'trade',
  decode: decodeLaunch,
  bootstrap: launchBootstrap,
  routing: {
    maxHops: { exactIn: 1, exactOut: 1 },
    tradesWnear: true,
    hasSlippage: true,
    hops: launchHops,
    helperSteps: (route, ctx) => outputStorageSteps(endsOf(route).last.tokenOut, ctx.trader, ctx.registered),
    calls: (route, amounts, ctx) => {
      const { first } = endsOf(route);
      return launchCalls({
        contractId: ctx.contracts.Launch,
        tokenIn: first.tokenIn,
        aidolToken: first.poolId,
        amountIn: amounts.sent,
        minAmountOut: amounts.wanted,
        amountOut: route.mode === 'exact_out' ? amounts.amountOut : null,
        referrerId: ctx.referrerId,
      });
    },
  },
};
