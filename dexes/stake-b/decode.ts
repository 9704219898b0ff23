// Block -> StakeB events (LiNEAR, `linear-protocol.near`): stakes and the historical instant unstakes as swaps, the
// exchange rate as pool state (from the contract's STATE write, else its totals log), what we cannot read as
// `undecoded` events. Pure. See README.md.
import type { Block } from '../../near/block.ts';
import type { UndecodedEvent } from '../../near/events.ts';
import type { DexContracts } from '../contracts.ts';
import type { DexEvent } from '../events.ts';
import { KnownLogs } from '../stake/emit.ts';
import { decodeLinearStyle } from '../stake/linear-style.ts';
import { LINEAR_STATE_RATE_ORIGIN, readLinearStateRate } from './state.ts';

/**
 * Every `linear` event name of linear-protocol/LiNEAR `contracts/linear/src/events.rs` (`Event`, snake_case), over
 * its whole history to 63cd09a (v1.6.3): the liquidity-pool and farm events were dropped in 1.6 but stay on chain.
 */
const LINEAR_EVENTS: ReadonlySet<string> = new Set([
  'stake',
  'instant_unstake',
  'deposit',
  'withdraw',
  'unstake',
  'add_liquidity',
  'remove_liquidity',
  'remove_all_liquidity',
  'rebalance_liquidity',
  'liquidity_pool_swap_fee',
  'epoch_stake_attempt',
  'epoch_stake_success',
  'epoch_stake_failed',
  'epoch_unstake_attempt',
  'epoch_unstake_success',
  'epoch_unstake_failed',
  'epoch_withdraw_attempt',
  'epoch_withdraw_success',
  'epoch_withdraw_failed',
  'epoch_update_rewards',
  'epoch_cleanup',
  'drain_unstake_attempt',
  'drain_unstake_success',
  'drain_unstake_failed',
  'drain_withdraw_attempt',
  'drain_withdraw_success',
  'drain_withdraw_failed',
  'balance_synced_from_validator',
  'sync_validator_balance_success',
  'sync_validator_balance_failed',
  'sync_validator_balance_failed_large_diff',
  'sync_validator_balance_failed_cant_get_account',
  'sync_validator_balance_failed_cannot_get_account',
  'validator_added',
  'validator_updated',
  'validator_updated_weight',
  'validators_updated_weights',
  'validator_updated_base_stake_amount',
  'validator_removed',
  'change_owner',
  'add_manager',
  'remove_manager',
  'set_beneficiary',
  'remove_beneficiary',
  'set_treasury',
  'set_whitelist',
  'pause_contract',
  'resume_contract',
]);

/**
 * LiNEAR's other lines, from the `log!` format strings of `contracts/linear/src/` in every release tag, v1.0.0
 * (2022-03) to v1.6.3, and its NEP-141 events (the core decoder reads them). The totals line is read by the shared
 * decoder.
 */
const LINEAR_LOGS = new KnownLogs(
  ['nep141'],
  [
    'no need to stake, amount to settle is zero',
    'no need to unstake, amount to settle is zero',
    'no candidate found to stake',
    'no candidate found to stake {}',
    'no candidate found to unstake',
    'no candidate found to unstake {}',
    'stake amount too low: {}',
    'unstake amount too low: {}',
    'check unstake candidate {} with staked amount {} and target {}',
    'Failed to refresh total balance from validator {}',
    'The account {} is not registered',
    'The account is already registered, refunding the deposit',
    // The liquidity pool and farms, before 1.6.
    '{} shares of liquidity removed: receive back {:?}',
    'Record {} {} reward from farm #{}',
    '{} receives {} of {} from {}',
    'Returned {} {} to {}',
  ],
);

export function decodeStakeB(block: Block, contracts: DexContracts): Array<DexEvent | UndecodedEvent> {
  return decodeLinearStyle(block, {
    dex: 'StakeB',
    contractId: contracts.StakeB,
    standard: 'linear',
    events: LINEAR_EVENTS,
    known: LINEAR_LOGS,
    readStateRate: readLinearStateRate,
    stateRateOrigin: LINEAR_STATE_RATE_ORIGIN,
  });
}
