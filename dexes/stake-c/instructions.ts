// xRHEA staking (near-facts.md "Stake"): `ft_transfer_call` of RHEA (`DexContracts.StakeCUnderlying`) to
// `DexContracts.StakeC` with msg `{"Stake":{}}` and 50 TGas (C: a live aggregator's call, INTEARnear/dex-aggregator @
// 096462f : src/providers/xrhea.rs; xREF's msg was ""). Pure.
import { STAKE_ON_TRANSFER_BURN, TOKEN_RESOLVE_BURN, TOKEN_TRANSFER_CALL_BURN } from '../burn.ts';
import { ftTransferCall, tgas, type FunctionCallStep } from '../instructions.ts';

export const XRHEA_STAKE_MSG = '{"Stake":{}}';

export function xrheaStakeCalls(underlyingId: string, stakingId: string, amount: bigint): FunctionCallStep[] {
  return [ftTransferCall(underlyingId, stakingId, amount, XRHEA_STAKE_MSG, tgas(50), TOKEN_TRANSFER_CALL_BURN + STAKE_ON_TRANSFER_BURN + TOKEN_RESOLVE_BURN)];
}
