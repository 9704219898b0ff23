// Block -> StakeD events (rNEAR, `lst.rhealab.near`, a LiNEAR-style contract): stakes as swaps, the exchange rate
// as pool state from the contract's totals log (its storage layout is not read), what we cannot read as `undecoded`
// events. Pure. See README.md for the source and its grade.
import type { Block } from '../../near/block.ts';
import type { UndecodedEvent } from '../../near/events.ts';
import type { DexContracts } from '../contracts.ts';
import type { DexEvent } from '../events.ts';
import { KnownLogs } from '../stake/emit.ts';
import { decodeLinearStyle } from '../stake/linear-style.ts';

/** Every event name of the `rhea_lst` standard (the rNEAR source's `event.rs`, `Event`, snake_case). */
const RHEA_LST_EVENTS: ReadonlySet<string> = new Set([
  'stake',
  'deposit',
  'withdraw',
  'unstake',
  'donate',
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
  'sync_validator_balance_success',
  'sync_validator_balance_failed_large_diff',
  'sync_validator_balance_failed_cannot_get_account',
  'validator_added',
  'validators_updated_weights',
  'validator_updated_base_stake_amount',
  'validator_removed',
  'change_owner',
  'add_manager',
  'remove_manager',
  'set_beneficiary',
  'remove_beneficiary',
  'set_whitelist',
  'pause_contract',
  'resume_contract',
]);

/**
 * rNEAR's other lines: NEP-141 events (the core decoder's), the admin events of near-plugins (its access control,
 * pause and upgrade plugins: Near-One/near-plugins @ e8622dd), the `log!` lines of the source files found
 * (`account.rs`, `epoch_actions.rs`), and near-contract-standards' storage lines its token inherits. The totals line
 * is read by the shared decoder.
 */
const RHEA_LST_LOGS = new KnownLogs(
  ['nep141', 'AccessControllable', 'Pausable', 'Upgradable'],
  [
    'no need to stake, amount to settle is zero',
    'no need to unstake, amount to settle is zero',
    'no candidate found to stake',
    'no candidate found to unstake',
    'stake amount too low: {}',
    'The account {} is not registered',
    'The account is already registered, refunding the deposit',
  ],
);

export function decodeStakeD(block: Block, contracts: DexContracts): Array<DexEvent | UndecodedEvent> {
  return decodeLinearStyle(block, { dex: 'StakeD', contractId: contracts.StakeD, standard: 'rhea_lst', events: RHEA_LST_EVENTS, known: RHEA_LST_LOGS });
}
