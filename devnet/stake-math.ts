// The devnet stake models' own share arithmetic, bigint only, written from the contracts' sources (each function
// names the file and function it follows). It imports nothing of dexes/stake*/, so the tests comparing the indexer's
// stake pools (dexes/stake/rate.ts and dexes/stake-*/math.ts) with the models compare two implementations. The
// contracts compute in U256 and cast to u128; bigint never overflows, and the devnet's amounts stay far below 2^128.
//
// Sources (grade S: contract source, each found with the library's search tools):
// - LiNEAR (`linear-protocol.near`, stake-b.ts): linear-protocol/LiNEAR @ 6ab19e3 : contracts/linear/src/internal.rs.
// - rNEAR (`lst.rhealab.near`, stake-d.ts): ref-finance/rnear-contract `contracts/lst/src/` (its `lib.rs`, which
//   defaults `rnear_contract_id` to `lst.rhealab.near`, and `account.rs`), found in the code index by their text
//   without a commit (the repository is not stored: dexes/stake-d/README.md says the same).
// - xRHEA (`xtoken.rhealab.near`, stake-c.ts): its source is NOT public; written from Ref's xREF, which it descends
//   from (ref-finance/ref-token xref-token/src/xref.rs, views.rs: S for xREF only), as its section below says.

/** [total NEAR staked N, total shares S]: the two sides of a linear-style contract's rate. */
export type StakeTotals = readonly [bigint, bigint];

/** A deposit's outcome: shares minted, NEAR charged from the account's unstaked balance, and the totals after it. */
export interface StakeOutcome {
  minted: bigint;
  charged: bigint;
  after: [bigint, bigint];
}

// ---- LiNEAR: linear-protocol/LiNEAR @ 6ab19e3 : contracts/linear/src/internal.rs ----

/** `num_shares_from_staked_amount_rounded_down`: total_share_amount·amount / total_staked_near_amount (N > 0). */
function linearNumSharesFromStakedAmountRoundedDown([staked, shares]: StakeTotals, amount: bigint): bigint {
  if (staked <= 0n) throw new RangeError('ERR_NON_POSITIVE_TOTAL_STAKED_BALANCE');
  return (shares * amount) / staked;
}

/** `staked_amount_from_num_shares_rounded_down`: total_staked_near_amount·num_shares / total_share_amount (S > 0). */
function linearStakedAmountFromNumSharesRoundedDown([staked, shares]: StakeTotals, numShares: bigint): bigint {
  if (shares <= 0n) throw new RangeError('ERR_NON_POSITIVE_TOTAL_STAKE_SHARES');
  return (staked * numShares) / shares;
}

/** `staked_amount_from_num_shares_rounded_up`: (total_staked_near_amount·num_shares + S − 1) / S (S > 0). */
function linearStakedAmountFromNumSharesRoundedUp([staked, shares]: StakeTotals, numShares: bigint): bigint {
  if (shares <= 0n) throw new RangeError('ERR_NON_POSITIVE_TOTAL_STAKE_SHARES');
  return (staked * numShares + shares - 1n) / shares;
}

/**
 * `internal_stake(amount)`: num_shares rounded down (0: ERR_NON_POSITIVE_CALCULATED_STAKING_SHARE, here `minted`
 * 0 and nothing changed); the account is charged the shares' value rounded down (charge_amount), while the totals
 * grow by it rounded up (stake_amount, the difference paid by the contract so the share price never drops):
 * total_staked_near_amount += stake_amount, total_share_amount += num_shares.
 */
export function linearInternalStake(totals: StakeTotals, amount: bigint): StakeOutcome {
  const numShares = linearNumSharesFromStakedAmountRoundedDown(totals, amount);
  if (numShares === 0n) return { minted: 0n, charged: 0n, after: [totals[0], totals[1]] };
  const chargeAmount = linearStakedAmountFromNumSharesRoundedDown(totals, numShares);
  const stakeAmount = linearStakedAmountFromNumSharesRoundedUp(totals, numShares);
  return { minted: numShares, charged: chargeAmount, after: [totals[0] + stakeAmount, totals[1] + numShares] };
}

// ---- rNEAR: ref-finance/rnear-contract contracts/lst/src/ ----

/** `lib.rs` `num_shares_from_staked_amount_rounded_down`: token.total_supply·amount / total_staked_near_amount. */
function rnearNumSharesFromStakedAmountRoundedDown([staked, supply]: StakeTotals, amount: bigint): bigint {
  if (staked <= 0n) throw new RangeError('ERR_NON_POSITIVE_TOTAL_STAKED_BALANCE');
  return (supply * amount) / staked;
}

/**
 * `account.rs` `internal_stake(amount)`: num_shares rounded down (0: ERR_NON_POSITIVE_CALCULATED_STAKING_SHARE);
 * the whole amount leaves the unstaked balance, `mint_lst` adds num_shares to the supply and
 * total_staked_near_amount += amount (no rounding refund, unlike LiNEAR).
 */
export function rnearInternalStake(totals: StakeTotals, amount: bigint): StakeOutcome {
  const numShares = rnearNumSharesFromStakedAmountRoundedDown(totals, amount);
  if (numShares === 0n) return { minted: 0n, charged: 0n, after: [totals[0], totals[1]] };
  return { minted: numShares, charged: amount, after: [totals[0] + amount, totals[1] + numShares] };
}

// ---- xRHEA (`xtoken.rhealab.near`, stake-c.ts): NO xRHEA SOURCE IS PUBLIC. Written from the contract it descends
// from, Ref's xREF: ref-finance/ref-token @ ca4afb6 : xref-token/src/xref.rs and @ 4a479f1 : xref-token/src/views.rs
// (S for xREF). That xRHEA keeps these formulas is the public evidence dexes/stake-c/README.md grades (a live
// aggregator prices xRHEA with `get_virtual_price` / 10^8, and a RHEA adapter reads xREF's `contract_metadata`
// fields from it), not its source. ----

/** `get_virtual_price`'s scale: "X-REF / REF price in decimal 8", `* 100_000_000` (views.rs). */
export const XREF_PRICE_SCALE = 100_000_000n;

/**
 * xref.rs `internal_stake(account_id, amount)` on [locked_token_amount L, ft total_supply X]: minted = amount when
 * X is 0, else floor(amount·X / L) (L must be positive: ERR_INTERNAL); 0 minted: ERR_STAKE_TOO_SMALL (here `minted`
 * 0 and nothing changed); then L += amount and the minted xREF is deposited (X += minted).
 */
export function xrefInternalStake([locked, supply]: StakeTotals, amount: bigint): StakeOutcome {
  let minted = amount;
  if (supply !== 0n) {
    if (locked <= 0n) throw new RangeError('ERR_INTERNAL');
    minted = (amount * supply) / locked;
  }
  if (minted <= 0n) return { minted: 0n, charged: 0n, after: [locked, supply] };
  return { minted, charged: amount, after: [locked + amount, supply + minted] };
}

/**
 * xref.rs `try_distribute_reward(cur_timestamp_in_sec)`: the reward streamed since the last distribution,
 * min(reward_per_sec·(now − prev), undistribute_reward), when now is past both the reward genesis and the previous
 * distribution; else 0.
 */
export function xrefTryDistributeReward(
  s: { rewardPerSec: bigint; undistributed: bigint; prevDistributionSec: bigint; rewardGenesisSec: bigint },
  nowSec: bigint,
): bigint {
  if (!(nowSec > s.rewardGenesisSec && nowSec > s.prevDistributionSec)) return 0n;
  const ideal = s.rewardPerSec * (nowSec - s.prevDistributionSec);
  return ideal < s.undistributed ? ideal : s.undistributed;
}

/** views.rs `get_virtual_price`: 10^8 without supply, else (locked + reward due now)·10^8 / supply. */
export function xrefVirtualPrice(lockedWithDue: bigint, supply: bigint): bigint {
  return supply === 0n ? XREF_PRICE_SCALE : (lockedWithDue * XREF_PRICE_SCALE) / supply;
}
