// What the four stake DEXes (StakeA..StakeD) share: the exchange rate as pool state, and the integer
// share arithmetic every liquid-staking contract does (bigint only, rounding as the contracts round).
// Pure: no I/O.
import type { PoolStateCommon } from '../events.ts';

/**
 * A staking contract's exchange rate as a pool state. `tokens` = [underlying, staked token]; `amounts` = the two
 * sides of the rate, [total underlying backing the shares, total shares], so shares = amount·amounts[1]/amounts[0].
 */
export interface StakeRateState extends PoolStateCommon {
  kind: 'stake';
  tokens: [string, string];
  amounts: [bigint, bigint];
  /** 0: staking takes no fee; a liquid-unstake fee, where one exists, is the DEX's own field. */
  totalFee: 0;
  /** Where the two amounts were read, e.g. `STATE: total_staked_near_amount / total_share_amount` or a log line. */
  rateOrigin: string;
}

export function stakeRateState(underlying: string, staked: string, totalUnderlying: bigint, totalShares: bigint, rateOrigin: string): StakeRateState {
  return { kind: 'stake', tokens: [underlying, staked], amounts: [totalUnderlying, totalShares], totalFee: 0, rateOrigin };
}

/** floor(a·b / c); the contracts do this in U256, bigint never overflows. */
export function mulDivFloor(a: bigint, b: bigint, c: bigint): bigint {
  if (c <= 0n) throw new RangeError('mulDiv: divisor must be positive');
  return (a * b) / c;
}

/** ceil(a·b / c), as `(a·b + c − 1) / c` in the contracts. */
export function mulDivCeil(a: bigint, b: bigint, c: bigint): bigint {
  if (c <= 0n) throw new RangeError('mulDiv: divisor must be positive');
  return (a * b + c - 1n) / c;
}

/** Throws on a rate that cannot price anything (an empty or negative side). */
export function assertUsableRate(state: StakeRateState): void {
  const [underlying, shares] = state.amounts;
  if (underlying <= 0n || shares <= 0n) {
    throw new RangeError(`${state.tokens[1]}: rate ${underlying}/${shares} has an empty side`);
  }
}

export function assertAmount(amount: bigint): void {
  if (amount < 0n) throw new RangeError('amount must not be negative');
}

/**
 * Shares minted for `amountIn` of the underlying at the state's rate: `floor(amountIn·shares / underlying)`, the
 * rounding of LiNEAR (`num_shares_from_staked_amount_rounded_down`), rNEAR, Meta Pool (`shares_from_amount`) and
 * xREF (`internal_stake`) alike. 0n when nothing would be minted (every contract then refuses the stake).
 */
export function sharesForDeposit(state: StakeRateState, amountIn: bigint): bigint {
  assertUsableRate(state);
  assertAmount(amountIn);
  const [underlying, shares] = state.amounts;
  return mulDivFloor(amountIn, shares, underlying);
}

/**
 * The smallest deposit that mints at least `sharesOut`: `ceil(sharesOut·underlying / shares)`. With a = that,
 * a·shares/underlying >= sharesOut, and (a−1)·shares/underlying < sharesOut, so `sharesForDeposit(a) >= sharesOut`
 * and no smaller deposit does.
 */
export function depositForShares(state: StakeRateState, sharesOut: bigint): bigint {
  assertUsableRate(state);
  assertAmount(sharesOut);
  const [underlying, shares] = state.amounts;
  return mulDivCeil(sharesOut, underlying, shares);
}

/** The same rate with both sides moved: a stake adds to both, an unstake takes from both. */
export function withAmounts(state: StakeRateState, totalUnderlying: bigint, totalShares: bigint): StakeRateState {
  return { ...state, amounts: [totalUnderlying, totalShares] };
}
