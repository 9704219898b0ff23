// Meta Pool's calls: staking is the shared `deposit_and_stake {}` (../stake/instructions.ts); the way back is
// `liquid_unstake {st_near_to_burn, min_expected_near}` (near-facts.md "Stake"), which is not payable (no deposit)
// and pays the NEAR to the caller's wallet. 75 TGas, a margin: near-facts.md gives no figure; C: a live aggregator sends
// it with 10 TGas and no deposit (INTEARnear/dex-aggregator @ 096462f : src/providers/metapool.rs). Pure.
import { SWAP_PER_POOL_BURN, TRANSFER_BURN } from '../burn.ts';
import { functionCall, tgas, type FunctionCallStep } from '../instructions.ts';

export { depositAndStakeCalls, STAKE_GAS } from '../stake/instructions.ts';

export const LIQUID_UNSTAKE_GAS = tgas(75);

export function liquidUnstakeCalls(contractId: string, stNearToBurn: bigint, minExpectedNear: bigint): FunctionCallStep[] {
  const args = { st_near_to_burn: stNearToBurn.toString(), min_expected_near: minExpectedNear.toString() };
  // A swap out of the liquidity pool (one pool's envelope), and the NEAR's transfer.
  return [functionCall(contractId, 'liquid_unstake', args, LIQUID_UNSTAKE_GAS, 0n, SWAP_PER_POOL_BURN + TRANSFER_BURN)];
}
