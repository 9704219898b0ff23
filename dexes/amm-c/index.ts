// AmmC: the Intear DEX engine (`dex.intear.near`) and its xyk DEX; routed exact in over up to 3 pools, exact out
// over one (the engine's `ExactOut` request), native NEAR traded as itself.
import { endsOf, positive, type Dex, type Hop, type RoutingPool } from '../dex.ts';
import { outputStorageSteps } from '../instructions.ts';
import { ammCBootstrap } from './bootstrap.ts';
import { decodeAmmC } from './decode.ts';
import { AMM_C_DEX_ID, type AmmCPoolState } from './events.ts';
import { ammCRegistrationCalls, ammCSwapCalls } from './instructions.ts';
import { ammCContractExactOut, ammCQuoteExactIn } from './math.ts';

/** Public, private and launch xyk pools, exact in and out. Exact out is what the contract charges an `ExactOut`
 * request (ammCContractExactOut), since that is the request the instructions send. */
function ammCHops(pool: RoutingPool): Hop[] {
  const state = pool.state as unknown as AmmCPoolState;
  if (state.kind !== 'xyk' || state.tokens.length !== 2 || state.amounts.length !== 2) return [];
  const [t0, t1] = state.tokens as [string, string];
  const [a0, a1] = state.amounts as [bigint, bigint];
  if (a0 <= 0n || a1 <= 0n) return [];
  const hop = (tokenIn: string, tokenOut: string, x: bigint, y: bigint): Hop => ({
    dex: AMM_C_DEX_ID,
    poolId: pool.poolId,
    tokenIn,
    tokenOut,
    out: (a) => positive(ammCQuoteExactIn(state, tokenIn, tokenOut, a)?.amountOut),
    in: (b) => positive(ammCContractExactOut(state, tokenIn, tokenOut, b)?.amountIn),
    spot: { numerator: y, denominator: x },
  });
  return [hop(t0, t1, a0, a1), hop(t1, t0, a1, a0)];
}

export const ammC: Dex = {
  id: AMM_C_DEX_ID,
  // Its pools' fees are in millionths.
  feeDenominator: 1_000_000,
  contract: (contracts) => contracts.AmmC,
  activity: 'trade',
  decode: decodeAmmC,
  bootstrap: ammCBootstrap,
  routing: {
    maxHops: { exactIn: 3, exactOut: 1 },
    hasSlippage: true,
    hops: ammCHops,
    helperSteps: (route, ctx) => {
      const { first, last, path } = endsOf(route);
      // The output token first: the engine's registration then sits next to the swap, in one transaction.
      const steps = outputStorageSteps(last.tokenOut, ctx.trader, ctx.registered);
      if (!ctx.registered(ctx.contracts.AmmC)) steps.push(...ammCRegistrationCalls(ctx.contracts.AmmC, [first.tokenIn, ...path.map((h) => h.tokenOut)]));
      return steps;
    },
    calls: (route, amounts, ctx) =>
      ammCSwapCalls({
        contractId: ctx.contracts.AmmC,
        dexId: ctx.contracts.AmmCXykDexId,
        hops: endsOf(route).path.map((h) => ({ poolId: Number(h.poolId), tokenIn: h.tokenIn, tokenOut: h.tokenOut })),
        mode: route.mode,
        amount: route.mode === 'exact_in' ? amounts.amountIn : amounts.amountOut,
        maxAmountIn: amounts.sent,
        minAmountOut: amounts.wanted,
        referrerId: ctx.referrerId,
      }),
  },
};
