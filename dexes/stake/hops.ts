// The stake DEXes' one hop: underlying -> staked token at the indexed rate, exact in and out (each DEX its own
// rounding, `quote`). The way back is a delayed unstake everywhere but at Meta Pool (stake-a/index.ts). Pure.
import { positive, type Hop, type RoutingPool } from '../dex.ts';
import type { StakeRateState } from './rate.ts';

export interface StakeQuote {
  out(state: StakeRateState, amountIn: bigint): bigint;
  in(state: StakeRateState, sharesOut: bigint): bigint;
}

/** The pool's rate state, checked; null when it cannot be quoted. */
export function stakeStateOf(pool: RoutingPool): StakeRateState | null {
  const state = pool.state as unknown as StakeRateState;
  if (state.kind !== 'stake' || state.tokens.length !== 2 || state.amounts.length !== 2) return null;
  const [total, shares] = state.amounts;
  return total <= 0n || shares <= 0n ? null : state;
}

export function stakeHop(pool: RoutingPool, state: StakeRateState, quote: StakeQuote): Hop {
  const [underlying, staked] = state.tokens;
  const [total, shares] = state.amounts;
  return {
    dex: pool.dex,
    poolId: pool.poolId,
    tokenIn: underlying,
    tokenOut: staked,
    out: (a) => positive(quote.out(state, a)),
    in: (b) => positive(quote.in(state, b)),
    spot: { numerator: shares, denominator: total },
  };
}

/** Stake hops of DEXes that only stake: their one hop, or none. */
export function stakeOnlyHops(quote: StakeQuote): (pool: RoutingPool) => Hop[] {
  return (pool) => {
    const state = stakeStateOf(pool);
    return state === null ? [] : [stakeHop(pool, state, quote)];
  };
}
