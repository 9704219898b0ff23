// xRHEA staking (near-facts.md "Stake"): `ft_transfer_call` of RHEA (`DexContracts.StakeCUnderlying`) to
// `DexContracts.StakeC` with msg `{"Stake":{}}` (?: the aggregator's msg; xREF's took ""), 50 TGas (?). Pure.
import { ftTransferCall, tgas, type FunctionCallStep } from '../instructions.ts';

export const XRHEA_STAKE_MSG = '{"Stake":{}}';

export function xrheaStakeCalls(underlyingId: string, stakingId: string, amount: bigint): FunctionCallStep[] {
  return [ftTransferCall(underlyingId, stakingId, amount, XRHEA_STAKE_MSG, tgas(50))];
}
