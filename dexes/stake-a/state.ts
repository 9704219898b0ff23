// Meta Pool's exchange rate from its contract storage: the leading fields of the borsh `MetaPool` struct under the
// near-sdk root key `STATE` (Meta-Pool/liquid-staking-contract metapool/src/lib.rs, v2.0.0; the same order in the
// v0.1 source, Narwallets/meta-pool metapool/src/lib.rs):
//   owner_account_id: AccountId (string), contract_busy: bool, staking_paused: bool,
//   contract_account_balance, retrieved_for_unstake_claims, total_available,
//   epoch_stake_orders, epoch_unstake_orders: u128, epoch_last_clearing: u64,
//   total_for_staking: u128      NEAR backing stNEAR (share price = total_for_staking / total_stake_shares)
//   total_actually_staked: u128
//   total_stake_shares: u128     stNEAR supply
// Only this prefix is read. Not yet checked against a real block (no fixture writes meta-pool.near's STATE). Pure.
import { BorshError, BorshReader } from '../../near/borsh.ts';
import { isValidAccountId } from '../../near/token-id.ts';

export const META_POOL_STATE_RATE_ORIGIN = 'STATE: total_for_staking / total_stake_shares';

/** [total_for_staking, total_stake_shares] from the `STATE` value, or null when the prefix does not read as expected. */
export function readMetaPoolStateRate(value: Uint8Array): { totalForStaking: bigint; totalShares: bigint } | null {
  try {
    const r = new BorshReader(value);
    const owner = r.string();
    r.bool(); // contract_busy
    r.bool(); // staking_paused
    for (let i = 0; i < 5; i++) r.u128(); // contract_account_balance .. epoch_unstake_orders
    r.u64(); // epoch_last_clearing
    const totalForStaking = r.u128();
    r.u128(); // total_actually_staked
    const totalShares = r.u128();
    if (!isValidAccountId(owner)) return null;
    return { totalForStaking, totalShares };
  } catch (err) {
    if (err instanceof BorshError) return null;
    throw err;
  }
}
