// Meta Pool's exchange rate and liquid-unstake fee curve from its contract storage: the borsh `MetaPool` struct under
// the near-sdk root key `STATE` (Meta-Pool/liquid-staking-contract metapool/src/lib.rs, v2.0.0; the leading fields
// are in the same order in the v0.1 source, Narwallets/meta-pool metapool/src/lib.rs):
//   owner_account_id: AccountId (string), contract_busy: bool, staking_paused: bool,
//   contract_account_balance, retrieved_for_unstake_claims, total_available,
//   epoch_stake_orders, epoch_unstake_orders: u128, epoch_last_clearing: u64,
//   total_for_staking: u128      NEAR backing stNEAR (share price = total_for_staking / total_stake_shares)
//   total_actually_staked: u128
//   total_stake_shares: u128     stNEAR supply
//   total_meta, total_unstaked_and_waiting, total_unstake_claims, accumulated_staked_rewards: u128
//   accounts: UnorderedMap       (near-sdk collections: key_index_prefix Vec<u8>, then keys and values, each a
//                                 Vector {len: u64, prefix: Vec<u8>})
//   staking_pools: Vec<StakingPoolInfo {account_id: string, weight_basis_points: u16, busy_lock: bool,
//                  staked: u128, unstaked: u128, unstk_req_epoch_height: u64, last_asked_rewards_epoch_height: u64}>
//   loan_requests: LookupMap     (key_prefix Vec<u8>)
//   nslp_liquidity_target: u128, nslp_max_discount_basis_points: u16, nslp_min_discount_basis_points: u16
// Only this far is read. Not yet checked against a real block (no public block writes meta-pool.near's STATE): the
// rate stands on the leading fields alone (grade S); the fee curve, which lies behind the variable-length parts, is
// kept only when it reads as one (min <= max < 100 %, a positive target). Pure.
import { BorshError, BorshReader } from '../../near/borsh.ts';
import { isValidAccountId } from '../../near/token-id.ts';
import { StateLayoutError } from '../stake/emit.ts';
import { hasValidDiscountBounds, type MetaPoolFeeCurve } from './math.ts';

export const META_POOL_STATE_RATE_ORIGIN = 'STATE: total_for_staking / total_stake_shares';

export interface MetaPoolStateFigures {
  totalForStaking: bigint;
  totalShares: bigint;
  /** The liquid-unstake fee curve, or why the fields behind the rate did not read as one. */
  feeCurve: MetaPoolFeeCurve | { unreadable: string };
}

/**
 * The rate and fee curve from the `STATE` value. Throws BorshError (a short value) or StateLayoutError (no account id
 * where the owner belongs) when even the rate's prefix does not read as the layout above.
 */
export function readMetaPoolState(value: Uint8Array): MetaPoolStateFigures {
  const r = new BorshReader(value);
  const owner = r.string();
  if (!isValidAccountId(owner)) throw new StateLayoutError(`owner_account_id ${JSON.stringify(owner.slice(0, 64))} is not an account id`);
  r.bool(); // contract_busy
  r.bool(); // staking_paused
  for (let i = 0; i < 5; i++) r.u128(); // contract_account_balance .. epoch_unstake_orders
  r.u64(); // epoch_last_clearing
  const totalForStaking = r.u128();
  r.u128(); // total_actually_staked
  const totalShares = r.u128();
  return { totalForStaking, totalShares, feeCurve: readFeeCurve(r) };
}

function readFeeCurve(r: BorshReader): MetaPoolFeeCurve | { unreadable: string } {
  try {
    for (let i = 0; i < 4; i++) r.u128(); // total_meta .. accumulated_staked_rewards
    r.bytesVec(); // accounts.key_index_prefix
    for (let i = 0; i < 2; i++) {
      r.u64(); // accounts.keys / accounts.values: len
      r.bytesVec(); // and prefix
    }
    r.vec((pool) => {
      pool.string(); // account_id
      pool.u16(); // weight_basis_points
      pool.bool(); // busy_lock
      pool.u128(); // staked
      pool.u128(); // unstaked
      pool.u64(); // unstk_req_epoch_height
      pool.u64(); // last_asked_rewards_epoch_height
    });
    r.bytesVec(); // loan_requests.key_prefix
    const liquidityTarget = r.u128();
    const maxDiscountBps = r.u16();
    const minDiscountBps = r.u16();
    const curve = { liquidityTarget, minDiscountBps, maxDiscountBps };
    // No target, or bounds the contract cannot work with: the layout was misread.
    if (liquidityTarget > 0n && hasValidDiscountBounds(curve)) return curve;
    return { unreadable: `fee curve reads as target ${liquidityTarget}, discount ${minDiscountBps}..${maxDiscountBps} bps: not a curve` };
  } catch (err) {
    if (err instanceof BorshError) return { unreadable: `fee curve: ${err.message}` };
    throw err;
  }
}
