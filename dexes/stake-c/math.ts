// xRHEA (StakeC) stake quotes over its rate, with the xREF contract's formula (ref-finance/ref-token
// xref-token/src/xref.rs `internal_stake`), which xRHEA is taken to keep (S for xREF, unconfirmed for xRHEA): L = RHEA locked, X = xRHEA supply
// (state.amounts = [L, X]):
//   minted = floor(a·X / L); L' = L + a, X' = X + minted.
// L grows between calls by the streamed reward (min(reward_per_sec·Δt, undistributed), added before each stake), so
// a state read at one time under-prices xRHEA later; `contract_metadata.cur_locked_token_amount` is the current L.
// Unstaking is not modelled: xRHEA charges a position-dependent exit fee whose rule is not public (README.md).
import { type StakeRateState, depositForShares, sharesForDeposit, withAmounts } from '../stake/rate.ts';

/** xRHEA minted for staking `amountIn` RHEA; 0n means the contract refuses (`ERR_STAKE_TOO_SMALL`). */
export function xrheaStakeOut(state: StakeRateState, amountIn: bigint): bigint {
  return sharesForDeposit(state, amountIn);
}

/** The smallest RHEA amount minting at least `sharesOut` xRHEA (exact out). */
export function xrheaStakeIn(state: StakeRateState, sharesOut: bigint): bigint {
  return depositForShares(state, sharesOut);
}

/** A stake's outcome: xRHEA minted and the rate after it. */
export function xrheaStake(state: StakeRateState, amountIn: bigint): { sharesOut: bigint; after: StakeRateState } {
  const sharesOut = sharesForDeposit(state, amountIn);
  if (sharesOut === 0n) return { sharesOut, after: state };
  const [locked, supply] = state.amounts;
  return { sharesOut, after: withAmounts(state, locked + amountIn, supply + sharesOut) };
}
