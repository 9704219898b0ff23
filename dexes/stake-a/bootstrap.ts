// StakeA's bootstrap (`Dex.bootstrap`): Meta Pool's state at one block from its one view `get_contract_state {}`
// (Meta-Pool/liquid-staking-contract metapool/src/owner.rs, `GetContractStateResult` in types.rs; README.md
// "Bootstrap"), which states every figure the indexer keeps, exactly:
//   total_for_staking, total_stake_shares (U128)            the rate, as STATE gives it to the decoder
//   nslp_target (U128), nslp_min/max_discount_basis_points (u16)   the liquid-unstake fee curve (STATE's fields)
//   nslp_liquidity (U128)                                   the NSLP account's available NEAR: the `nslp` ledger figure
// and `st_near_price` (U128, floor(10^24·total_for_staking / total_stake_shares)), checked against the two totals so
// that an answer whose fields mean something else is refused. Pure but for the view call.
import { NEAR_TOKEN_ID } from '../../near/token-id.ts';
import { PoolsImportError, type BootstrapState, type ChainAt, type DexBootstrap } from '../dex.ts';
import { answerObject, shown, stakeStateEvent, u128Field } from '../stake/bootstrap.ts';
import { stakeRateState } from '../stake/rate.ts';
import { feeCurveFields } from './decode.ts';
import { hasValidDiscountBounds } from './math.ts';

export const META_POOL_VIEW_RATE_ORIGIN = 'get_contract_state: total_for_staking / total_stake_shares';

const ONE_E24 = 10n ** 24n;

export const stakeABootstrap: DexBootstrap = {
  async read(at: ChainAt): Promise<BootstrapState> {
    const contractId = at.contracts.StakeA;
    const view = `${contractId}.get_contract_state`;
    const o = answerObject(view, await at.view(contractId, 'get_contract_state'));
    const u128 = (field: string) => u128Field(view, o, field);
    const bps = (field: string): number => {
      const v = o[field];
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffff) throw new PoolsImportError(`${view}: ${field} ${shown(v)} is not a u16`);
      return v;
    };
    const totalForStaking = u128('total_for_staking');
    const totalShares = u128('total_stake_shares');
    // amount_from_shares(10^24, N, S): 0 without shares.
    const price = u128('st_near_price');
    const expected = totalShares === 0n ? 0n : (ONE_E24 * totalForStaking) / totalShares;
    if (price !== expected) throw new PoolsImportError(`${view}: st_near_price ${price} is not 10^24·total_for_staking / total_stake_shares (${expected})`);
    const curve = { liquidityTarget: u128('nslp_target'), minDiscountBps: bps('nslp_min_discount_basis_points'), maxDiscountBps: bps('nslp_max_discount_basis_points') };
    const available = u128('nslp_liquidity');

    const rate = stakeRateState(NEAR_TOKEN_ID, contractId, totalForStaking, totalShares, META_POOL_VIEW_RATE_ORIGIN);
    // As the decoder keeps STATE's curve: only one the liquid-unstake math can work with (else it is not routed).
    const state = curve.liquidityTarget > 0n && hasValidDiscountBounds(curve) ? { ...rate, ...feeCurveFields(curve) } : rate;
    return {
      events: [
        stakeStateEvent('StakeA', contractId, state),
        // The ledger's figure at this block; the blocks after it add their deltas.
        { kind: 'nslp', dex: 'StakeA', contractId, available, delta: 0n },
      ],
    };
  },
};
