// LiNEAR's exchange rate from its contract storage: the leading fields of the borsh `LiquidStakingContract` under
// the near-sdk root key `STATE` (linear-protocol/LiNEAR contracts/linear/src/lib.rs):
//   owner_id: AccountId            (string)
//   managers: UnorderedSet<AccountId> = element_index: LookupMap { prefix: Vec<u8> }, elements: Vector { len: u64, prefix: Vec<u8> }
//   treasury_id: AccountId         (string)
//   total_share_amount: u128       LiNEAR minted minus burned
//   total_staked_near_amount: u128 NEAR backing them
// Only this prefix is read: the fields after it changed across versions, these did not (the same in the 2022 build
// of mainnet block 70834059, grade R, and in the current source, linear-protocol/LiNEAR @ 63cd09a). Pure.
import { BorshReader } from '../../near/borsh.ts';
import { isValidAccountId } from '../../near/token-id.ts';
import { StateLayoutError } from '../stake/emit.ts';

export const LINEAR_STATE_RATE_ORIGIN = 'STATE: total_staked_near_amount / total_share_amount';

/**
 * [total NEAR staked, total LiNEAR] from the `STATE` value. Throws BorshError (a short value, bad UTF-8) or
 * StateLayoutError (no account id where one belongs: the layout moved) when the prefix does not read as expected.
 */
export function readLinearStateRate(value: Uint8Array): { totalStaked: bigint; totalShares: bigint } {
  const r = new BorshReader(value);
  const owner = r.string();
  r.bytesVec(); // managers.element_index prefix
  r.u64(); // managers.elements length
  r.bytesVec(); // managers.elements prefix
  const treasury = r.string();
  const totalShares = r.u128();
  const totalStaked = r.u128();
  // Two account ids where expected is the check that the layout still holds.
  for (const [field, id] of [['owner_id', owner], ['treasury_id', treasury]] as const) {
    if (!isValidAccountId(id)) throw new StateLayoutError(`${field} ${JSON.stringify(id.slice(0, 64))} is not an account id`);
  }
  return { totalStaked, totalShares };
}
