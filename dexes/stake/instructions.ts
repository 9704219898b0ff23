// Stake calls shared by StakeA, StakeB and StakeD (near-facts.md "Stake"): `deposit_and_stake {}` with the NEAR
// attached mints the staked token to the caller. 50 TGas, a margin: near-facts.md gives no figure; C: a live aggregator
// sends it to meta-pool.near, linear-protocol.near and lst.rhealab.near with 10 TGas (INTEARnear/dex-aggregator @
// 096462f : src/providers/metapool.rs, linear.rs, rnear.rs). It is expected to burn a payable mint's envelope
// (../burn.ts). Pure.
import { PAYABLE_MINT_BURN } from '../burn.ts';
import { functionCall, tgas, type FunctionCallStep } from '../instructions.ts';

export const STAKE_GAS = tgas(50);

export function depositAndStakeCalls(contractId: string, amount: bigint): FunctionCallStep[] {
  return [functionCall(contractId, 'deposit_and_stake', {}, STAKE_GAS, amount, PAYABLE_MINT_BURN)];
}
