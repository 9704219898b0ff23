// StakeA's own event beside the shared vocabulary (../events.ts): the liquid-unstake pool's NEAR, which the fee of
// every liquid unstake depends on and which no storage write names (the NSLP is one entry of the contract's accounts
// map, under an index the blocks do not reveal).
import type { EventBase } from '../../near/events.ts';

/**
 * The NEAR/stNEAR liquidity pool's (NSLP) available NEAR, as one block's successful meta-pool.near receipts move it.
 * `available`: after the block, when a liquid unstake in it logged the figure (`get_discount_basis_points
 * available_near=..`) or the contract was created in it (`new`: an empty pool), exact from there on; null otherwise. `delta`: the net move over the whole block: minus the
 * NEAR of each liquid unstake (`LIQ.U`), liquidity removal (`REM.L`) and stake from the pool (`stake_from_nslp`'s
 * `STAKE` of `..NSLP..`), plus that of each internal clearing (`NSLP.clr`) and liquidity addition (`ADD.L`).
 * The NSLP's NEAR now: the latest `available`, plus the deltas of the blocks after it.
 */
export interface StakeANslpEvent extends EventBase {
  kind: 'nslp';
  dex: 'StakeA';
  contractId: string;
  available: bigint | null;
  delta: bigint;
}
