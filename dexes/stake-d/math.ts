// rNEAR (StakeD) quotes over its rate, as the LST contract's `internal_stake` computes them (see README.md for
// the source and what is unconfirmed), bigint only. N = total NEAR staked, S = total rNEAR (state.amounts):
//   shares = floor(a·S / N) minted for a deposit a; the whole deposit is charged: N' = N + a, S' = S + shares
// (unlike LiNEAR, no rounding refund). Only NEAR -> rNEAR: unstaking is delayed, there is no liquid unstake.
import { type StakeRateState, depositForShares, sharesForDeposit, withAmounts } from '../stake/rate.ts';

/** rNEAR minted for depositing `amountIn` yoctoNEAR; 0n means the contract refuses (no share minted). */
export function rnearStakeOut(state: StakeRateState, amountIn: bigint): bigint {
  return sharesForDeposit(state, amountIn);
}

/** The smallest deposit minting at least `sharesOut` rNEAR (exact out). */
export function rnearStakeIn(state: StakeRateState, sharesOut: bigint): bigint {
  return depositForShares(state, sharesOut);
}

/** A deposit's outcome: rNEAR minted and the rate after it. */
export function rnearStake(state: StakeRateState, amountIn: bigint): { sharesOut: bigint; after: StakeRateState } {
  const sharesOut = sharesForDeposit(state, amountIn);
  if (sharesOut === 0n) return { sharesOut, after: state };
  const [staked, shares] = state.amounts;
  return { sharesOut, after: withAmounts(state, staked + amountIn, shares + sharesOut) };
}
