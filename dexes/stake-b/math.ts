// LiNEAR (StakeB) quotes over its rate, as `internal_stake` computes them (linear-protocol/LiNEAR
// contracts/linear/src/internal.rs), bigint only. N = total NEAR staked, S = total LiNEAR (state.amounts):
//   shares  = floor(a·S / N)              minted for a deposit a (`num_shares_from_staked_amount_rounded_down`)
//   charged = floor(shares·N / S)          taken from the deposit; a − charged stays the account's unstaked NEAR
//   N' = N + ceil(shares·N / S), S' = S + shares   (the rounding gap is paid by the contract, so the price never drops)
// Only NEAR -> LiNEAR: unstaking is delayed (4+ epochs) and the instant-unstake pool was removed in 1.6.
import { type StakeRateState, depositForShares, mulDivCeil, mulDivFloor, sharesForDeposit, withAmounts } from '../stake/rate.ts';

/** LiNEAR minted for depositing `amountIn` yoctoNEAR; 0n means the contract refuses (no share minted). */
export function linearStakeOut(state: StakeRateState, amountIn: bigint): bigint {
  return sharesForDeposit(state, amountIn);
}

/** The smallest deposit minting at least `sharesOut` LiNEAR (exact out). */
export function linearStakeIn(state: StakeRateState, sharesOut: bigint): bigint {
  return depositForShares(state, sharesOut);
}

/** A deposit's outcome: LiNEAR minted, NEAR actually charged, and the rate after it. */
export function linearStake(
  state: StakeRateState,
  amountIn: bigint,
): { sharesOut: bigint; charged: bigint; after: StakeRateState } {
  const sharesOut = sharesForDeposit(state, amountIn);
  const [staked, shares] = state.amounts;
  if (sharesOut === 0n) return { sharesOut, charged: 0n, after: state };
  const charged = mulDivFloor(sharesOut, staked, shares);
  const added = mulDivCeil(sharesOut, staked, shares);
  return { sharesOut, charged, after: withAmounts(state, staked + added, shares + sharesOut) };
}
