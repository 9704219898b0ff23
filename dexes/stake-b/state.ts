// LiNEAR's exchange rate from its contract storage: the leading fields of the borsh `LiquidStakingContract` under
// the near-sdk root key `STATE` (linear-protocol/LiNEAR contracts/linear/src/lib.rs):
//   owner_id: AccountId            (string)
//   managers: UnorderedSet<AccountId> = element_index: LookupMap { prefix: Vec<u8> }, elements: Vector { len: u64, prefix: Vec<u8> }
//   treasury_id: AccountId         (string)
//   total_share_amount: u128       LiNEAR minted minus burned
//   total_staked_near_amount: u128 NEAR backing them
// Only this prefix is read: the fields after it changed across versions, these did not (the same in the 2022 build
// of mainnet block 70834059 and in the current source). Pure.
import { BorshError, BorshReader } from '../../near/borsh.ts';
import { isValidAccountId } from '../../near/token-id.ts';

export const LINEAR_STATE_RATE_ORIGIN = 'STATE: total_staked_near_amount / total_share_amount';

/** [total NEAR staked, total LiNEAR] from the `STATE` value, or null when the prefix does not read as expected. */
export function readLinearStateRate(value: Uint8Array): { totalStaked: bigint; totalShares: bigint } | null {
  try {
    const r = new BorshReader(value);
    const owner = r.string();
    r.bytesVec(); // managers.element_index prefix
    r.u64(); // managers.elements length
    r.bytesVec(); // managers.elements prefix
    const treasury = r.string();
    const totalShares = r.u128();
    const totalStaked = r.u128();
    // Two account ids where expected is the check that the layout still holds.
    if (!isValidAccountId(owner) || !isValidAccountId(treasury)) return null;
    return { totalStaked, totalShares };
  } catch (err) {
    if (err instanceof BorshError) return null;
    throw err;
  }
}
