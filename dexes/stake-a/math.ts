// Meta Pool (StakeA) quotes over its rate, as the contract computes them (Meta-Pool/liquid-staking-contract
// metapool/src/{lib,internal,utils}.rs), bigint only. N = total_for_staking, S = total_stake_shares (state.amounts).
//   stake:          shares = floor(S·a / N)                                     (`shares_from_amount`)
//   liquid unstake: nears = floor(st·N / S), bp = discount(nslp, nears),         (`amount_from_shares`,
//                   fee = floor(bp·nears / 10000), out = nears − fee              `internal_get_discount_basis_points`,
//                                                                                  `apply_pct`)
// The liquid-unstake fee depends on the NEAR/stNEAR liquidity pool (NSLP): its available NEAR (followed from the logs,
// decode.ts) and the fee curve (STATE, state.ts); the caller passes them.
import {
  type StakeRateState,
  assertAmount,
  assertUsableRate,
  depositForShares,
  mulDivFloor,
  sharesForDeposit,
  withAmounts,
} from '../stake/rate.ts';

/** 0.00125 NEAR: taken from the first deposit of an account the contract does not know (`STORAGE_COST_YOCTOS`). */
export const META_POOL_STORAGE_COST = 1_250_000_000_000_000_000_000n;
const BPS = 10_000n;

/** stNEAR minted for depositing `amountIn`; `newAccount` pays the storage cost first. 0n: the contract refuses. */
export function metaPoolStakeOut(state: StakeRateState, amountIn: bigint, options?: { newAccount?: boolean }): bigint {
  assertAmount(amountIn);
  const staked = options?.newAccount === true ? amountIn - META_POOL_STORAGE_COST : amountIn;
  return staked <= 0n ? 0n : sharesForDeposit(state, staked);
}

/** The smallest deposit minting at least `sharesOut` stNEAR (exact out), storage cost included for a new account. */
export function metaPoolStakeIn(state: StakeRateState, sharesOut: bigint, options?: { newAccount?: boolean }): bigint {
  const deposit = depositForShares(state, sharesOut);
  return options?.newAccount === true ? deposit + META_POOL_STORAGE_COST : deposit;
}

/** The rate after staking `amountIn` (already net of any storage cost): N + a, S + shares. */
export function metaPoolStakeAfter(state: StakeRateState, amountIn: bigint): StakeRateState {
  const shares = sharesForDeposit(state, amountIn);
  const [n, s] = state.amounts;
  return withAmounts(state, n + amountIn, s + shares);
}

/** The liquid-unstake fee curve: three fields of the contract's `STATE` (state.ts reads them). */
export interface MetaPoolFeeCurve {
  /** `nslp_liquidity_target`: at or above it after the swap, the fee is the minimum. */
  liquidityTarget: bigint;
  /** `nslp_min_discount_basis_points`, `nslp_max_discount_basis_points`. */
  minDiscountBps: number;
  maxDiscountBps: number;
}

/** Whether a curve's discount bounds are ones the contract works with: whole basis points, 0 <= min <= max < 100 %. */
export function hasValidDiscountBounds(c: Pick<MetaPoolFeeCurve, 'minDiscountBps' | 'maxDiscountBps'>): boolean {
  const { minDiscountBps: min, maxDiscountBps: max } = c;
  return Number.isInteger(min) && Number.isInteger(max) && min >= 0 && min <= max && max < 10_000;
}

/** The NSLP figures the liquid-unstake fee depends on. */
export interface MetaPoolLiquidityParams extends MetaPoolFeeCurve {
  /** NEAR available in the liquidity pool (the `..NSLP..` account's `available`). */
  nslpAvailable: bigint;
}

/**
 * The fee in basis points for taking `nearsRequested` out of the pool: the maximum when the pool cannot pay, the
 * minimum while what remains stays at or above the target, else linear between them:
 * max − floor((max − min)·remaining / target).
 */
export function metaPoolDiscountBps(params: MetaPoolLiquidityParams, nearsRequested: bigint): number {
  const { nslpAvailable, liquidityTarget, minDiscountBps: min, maxDiscountBps: max } = params;
  if (!hasValidDiscountBounds(params)) throw new RangeError(`Meta Pool: discount bounds ${min}..${max} bps are not valid`);
  if (nslpAvailable <= nearsRequested) return max;
  const remaining = nslpAvailable - nearsRequested;
  if (remaining >= liquidityTarget) return min;
  return max - Number(mulDivFloor(BigInt(max - min), remaining, liquidityTarget));
}

/**
 * NEAR received for liquid-unstaking `stNearIn` (exact in), with the fee (in NEAR) and its rate; null when the
 * pool cannot pay it ("Not enough liquidity in the liquidity pool"). There is no exact-out form: the fee rate steps
 * up as the amount grows, so the output is not monotonic in the input.
 */
export function metaPoolLiquidUnstakeOut(
  state: StakeRateState,
  stNearIn: bigint,
  params: MetaPoolLiquidityParams,
): { amountOut: bigint; fee: bigint; discountBps: number } | null {
  assertUsableRate(state);
  assertAmount(stNearIn);
  const [n, s] = state.amounts;
  const nears = mulDivFloor(stNearIn, n, s);
  const discountBps = metaPoolDiscountBps(params, nears);
  const fee = mulDivFloor(BigInt(discountBps), nears, BPS);
  const amountOut = nears - fee;
  if (params.nslpAvailable < amountOut) return null;
  return { amountOut, fee, discountBps };
}
