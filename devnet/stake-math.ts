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
// - Meta Pool (`meta-pool.near`, stake-a.ts): Meta-Pool/liquid-staking-contract @ 1bcd25d : metapool/src/lib.rs
//   (`liquid_unstake`) and internal.rs (`internal_get_discount_basis_points`), @ 0dec5b3 : utils.rs.
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

// ---- Meta Pool (`meta-pool.near`, stake-a.ts): Meta-Pool/liquid-staking-contract @ 1bcd25d : metapool/src/lib.rs,
// metapool/src/internal.rs, @ 0dec5b3 : metapool/src/utils.rs, and metapool/src/empty_nep_145.rs (found in the code
// index by its text). ----

const ONE_NEAR = 10n ** 24n;
/** empty_nep_145.rs `STORAGE_COST_YOCTOS = ONE_NEAR / 100_000 * 125` (0.00125 NEAR). */
export const META_POOL_STORAGE_COST_YOCTOS = (ONE_NEAR / 100_000n) * 125n;
/** types.rs `ONE_MILLI_NEAR`, the margin of utils.rs `is_close`. */
const ONE_MILLI_NEAR = ONE_NEAR / 1_000n;

/** utils.rs `proportional(amount, numerator, denominator)`: amount·numerator / denominator, in U256. */
function metaPoolProportional(amount: bigint, numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new RangeError('Meta Pool proportional: division by zero');
  return (amount * numerator) / denominator;
}

/** utils.rs `apply_pct(basis_points, amount)`: basis_points·amount / 10_000. */
export function metaPoolApplyPct(basisPoints: bigint, amount: bigint): bigint {
  return (basisPoints * amount) / 10_000n;
}

/** utils.rs `shares_from_amount`: `amount` itself for the first shares, 0 for nothing, else proportional(S, a, N). */
export function metaPoolSharesFromAmount(amount: bigint, totalAmount: bigint, totalShares: bigint): bigint {
  if (totalShares === 0n) return amount;
  if (amount === 0n || totalAmount === 0n) return 0n;
  return metaPoolProportional(totalShares, amount, totalAmount);
}

/** utils.rs `amount_from_shares`: 0 without shares, else proportional(num_shares, N, S). */
export function metaPoolAmountFromShares(numShares: bigint, totalAmount: bigint, totalShares: bigint): bigint {
  if (totalShares === 0n || numShares === 0n) return 0n;
  return metaPoolProportional(numShares, totalAmount, totalShares);
}

/** utils.rs `is_close(requested, total)`: total − 0.001 NEAR (saturating) <= requested <= total + 0.001 NEAR. */
export function metaPoolIsClose(requested: bigint, total: bigint): boolean {
  const low = total > ONE_MILLI_NEAR ? total - ONE_MILLI_NEAR : 0n;
  return requested >= low && requested <= total + ONE_MILLI_NEAR;
}

/** The NSLP fee curve of the contract's state: `nslp_liquidity_target`, `nslp_min/max_discount_basis_points`. */
export interface MetaPoolNslpCurve {
  liquidityTarget: bigint;
  minDiscountBps: number;
  maxDiscountBps: number;
}

/**
 * internal.rs `internal_get_discount_basis_points(available_near, nears_requested)`: the max when the pool cannot
 * cover the request; the min while near_after = available − requested stays at or above the target; else
 * max − proportional(max − min, near_after, target).
 */
export function metaPoolDiscountBasisPoints(curve: MetaPoolNslpCurve, availableNear: bigint, nearsRequested: bigint): number {
  const { liquidityTarget, minDiscountBps: min, maxDiscountBps: max } = curve;
  if (availableNear <= nearsRequested) return max;
  const nearAfter = availableNear - nearsRequested;
  if (nearAfter >= liquidityTarget) return min;
  const range = BigInt(max - min);
  return max - Number(metaPoolProportional(range, nearAfter, liquidityTarget));
}

/**
 * lib.rs `liquid_unstake`'s pricing of `st_near_to_sell` at [total_for_staking N, total_stake_shares S] with the
 * NSLP's available NEAR: nears_out = amount_from_stake_shares(st), bp = internal_get_discount_basis_points
 * (available, nears_out) (the contract asserts bp < 10000), fee = apply_pct(bp, nears_out), near_to_receive =
 * nears_out − fee. The caller checks min_expected_near and the pool's liquidity, as the contract does after this.
 */
export function metaPoolLiquidUnstakePrice(
  [totalForStaking, totalStakeShares]: StakeTotals,
  curve: MetaPoolNslpCurve,
  nslpAvailable: bigint,
  stNearToSell: bigint,
): { nearsOut: bigint; discountBps: number; fee: bigint; nearToReceive: bigint } {
  const nearsOut = metaPoolAmountFromShares(stNearToSell, totalForStaking, totalStakeShares);
  const discountBps = metaPoolDiscountBasisPoints(curve, nslpAvailable, nearsOut);
  if (discountBps >= 10_000) throw new RangeError('inconsistency d>1');
  const fee = metaPoolApplyPct(BigInt(discountBps), nearsOut);
  return { nearsOut, discountBps, fee, nearToReceive: nearsOut - fee };
}
