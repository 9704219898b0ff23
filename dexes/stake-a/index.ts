// StakeA: Meta Pool (`meta-pool.near`): NEAR -> stNEAR at the rate of its STATE (a new account's storage comes out
// of the deposit), and back by the liquid unstake, whose fee follows the liquidity pool's NEAR: a ledger of its
// own, folded from the `nslp` events (the latest figure plus the moves after it). Bootstrapped from
// `get_contract_state`, which gives the rate, the fee curve and the pool's NEAR exactly.
import { endsOf, positive, type Dex, type Hop, type HopContext, type RoutingPool } from '../dex.ts';
import { stakeHop, stakeStateOf } from '../stake/hops.ts';
import { stakeABootstrap } from './bootstrap.ts';
import type { StakeRateState } from '../stake/rate.ts';
import { decodeStakeA } from './decode.ts';
import { depositAndStakeCalls, liquidUnstakeCalls } from './instructions.ts';
import { hasValidDiscountBounds, metaPoolLiquidUnstakeOut, metaPoolStakeIn, metaPoolStakeOut } from './math.ts';

const STAKE_A_DEX_ID = 'StakeA';

function stakeAHops(pool: RoutingPool, ctx: HopContext): Hop[] {
  const state = stakeStateOf(pool);
  if (state === null) return [];
  // A trader whose registration is not indexed pays the new account's storage out of the deposit.
  const newAccount = ctx.registrations !== null && !ctx.registrations.has(state.tokens[1]);
  const stake = stakeHop(pool, state, { out: (s, a) => metaPoolStakeOut(s, a, { newAccount }), in: (s, b) => metaPoolStakeIn(s, b, { newAccount }) });
  const unstake = liquidUnstakeHop(pool, state, ctx);
  return unstake === null ? [stake] : [stake, unstake];
}

/** The liquid unstake, staked -> underlying, exact in only (its fee steps up with the amount), or null while the
 * pool's NEAR or the fee curve of its STATE is unknown. */
function liquidUnstakeHop(pool: RoutingPool, state: StakeRateState, ctx: HopContext): Hop | null {
  const { nslpLiquidityTarget: liquidityTarget, nslpMinDiscountBps: minDiscountBps, nslpMaxDiscountBps: maxDiscountBps } = pool.state;
  const nslpAvailable = ctx.ledgers?.get(STAKE_A_DEX_ID) as bigint | undefined;
  if (nslpAvailable === undefined || typeof liquidityTarget !== 'bigint') return null;
  const params = { nslpAvailable, liquidityTarget, minDiscountBps: minDiscountBps as number, maxDiscountBps: maxDiscountBps as number };
  // A row the contract could not hold is not routed (the math would refuse it mid-search).
  if (!hasValidDiscountBounds(params)) return null;
  const [underlying, staked] = state.tokens;
  const [total, shares] = state.amounts;
  return {
    dex: pool.dex,
    poolId: pool.poolId,
    tokenIn: staked,
    tokenOut: underlying,
    out: (a) => positive(metaPoolLiquidUnstakeOut(state, a, params)?.amountOut),
    spot: { numerator: total, denominator: shares },
  };
}

export const stakeA: Dex = {
  id: STAKE_A_DEX_ID,
  contract: (contracts) => contracts.StakeA,
  activity: 'stake',
  decode: decodeStakeA,
  ledger: { eventKind: 'nslp', read: 'figureAndDeltas', figure: 'available', delta: 'delta', parse: (total) => total },
  bootstrap: stakeABootstrap,
  routing: {
    maxHops: { exactIn: 1, exactOut: 1 },
    hasSlippage: true,
    hopsNeedTrader: true,
    hops: stakeAHops,
    // stNEAR is minted to the caller's own account (its storage charge is in the quote already).
    helperSteps: () => [],
    calls: (route, amounts) => {
      const { first } = endsOf(route);
      // The pool id is the stNEAR contract: selling it is the liquid unstake.
      return first.tokenIn === first.poolId ? liquidUnstakeCalls(first.poolId, amounts.sent, amounts.wanted) : depositAndStakeCalls(first.poolId, amounts.sent);
    },
  },
};
