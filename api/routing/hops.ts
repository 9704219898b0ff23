// One swap step of one pool, per DEX, over that DEX's pure math.ts: what the pathfinder composes. A hop quotes exact
// in (`out`) and, where the DEX and the pool kind allow, exact out (`in`); `spot` is its marginal rate before fees
// (out per in), which the price impact of a route is measured against. Token ids are the DEXes' own: `near` for
// native NEAR, else the NEP-141 contract id (AmmA and Launch trade wNEAR, never `near`). Pure.
import { ammCContractExactOut, ammCQuoteExactIn } from '../../dexes/amm-c/math.ts';
import { quoteExactIn as dclQuoteExactIn, quoteExactOut as dclQuoteExactOut } from '../../dexes/amm-dcl-a/math.ts';
import type { DclPoolState } from '../../dexes/amm-dcl-a/state.ts';
import type { AmmCPoolState } from '../../dexes/amm-c/events.ts';
import { simpleAmountOutQuoter } from '../../dexes/amm-a/math.ts';
import { prepareStablePool, preparedSpotPrice, quoterOf } from '../../dexes/amm-a/stable-math.ts';
import type { StableLikePoolState, TokenRate } from '../../dexes/amm-a/state.ts';
import type { DexContracts } from '../../dexes/contracts.ts';
import type { DexId } from '../../dexes/events.ts';
import { launchQuoteExactIn, launchQuoteExactOut } from '../../dexes/launch/math.ts';
import type { LaunchPoolState } from '../../dexes/launch/events.ts';
import { hasValidDiscountBounds, metaPoolLiquidUnstakeOut, metaPoolStakeIn, metaPoolStakeOut } from '../../dexes/stake-a/math.ts';
import { linearStakeIn, linearStakeOut } from '../../dexes/stake-b/math.ts';
import { xrheaStakeIn, xrheaStakeOut } from '../../dexes/stake-c/math.ts';
import { rnearStakeIn, rnearStakeOut } from '../../dexes/stake-d/math.ts';
import type { StakeRateState } from '../../dexes/stake/rate.ts';
import { wrapConversionOf } from '../../dexes/wrap/instructions.ts';
import type { RoutingPool } from './graph.ts';
import type { Fraction } from './params.ts';

export interface Hop {
  dex: DexId;
  poolId: string;
  tokenIn: string;
  tokenOut: string;
  /** Exact in: the output, or null when the pool refuses (or nothing would come out). */
  out(amountIn: bigint): bigint | null;
  /** Exact out: the least input, or null when refused; absent when the DEX has no exact-out mode. */
  in?(amountOut: bigint): bigint | null;
  /** Marginal rate before fees, out per in. */
  spot: Fraction;
}

/** What a hop's quote may depend on besides the pool (a stake contract's storage charge for a new account). */
export interface HopContext {
  contracts: DexContracts;
  /** Contracts the trader is registered with (NEP-145), or null without a trader. */
  registrations: ReadonlySet<string> | null;
  /** The latest indexed block's timestamp in ns: AmmA stable and rated pools swap at the amp factor of that time and
   * refuse rates older than 24 h. Absent or null: the amp at each pool's ramp end (its target), rates not aged. */
  nowNs?: bigint | null;
  /** AmmA's rated-token rates (`custom_rate_key`, the latest `rates` event); a token without an entry has rate
   * 10^24. Absent or null: rated pools are not routed (their rates are unknown). */
  ammARates?: ReadonlyMap<string, TokenRate> | null;
  /** The NEAR of Meta Pool's liquid-unstake pool (the `nslp` events). Absent or null: StakeA's liquid unstake is
   * not routed (its fee is unknown). */
  metaPoolNslp?: bigint | null;
}

const positive = (v: bigint | null | undefined): bigint | null => (v === null || v === undefined || v <= 0n ? null : v);

/** The hops of one pool (both directions where the DEX trades both ways). */
export function hopsOfPool(pool: RoutingPool, ctx: HopContext): Hop[] {
  switch (pool.dex) {
    case 'AmmA':
      return ammAHops(pool, ctx);
    case 'AmmC':
      return ammCHops(pool);
    case 'AmmDclA':
      return dclHops(pool);
    case 'Launch':
      return launchHops(pool);
    case 'StakeA':
    case 'StakeB':
    case 'StakeC':
    case 'StakeD':
      return stakeHops(pool, ctx);
    default:
      // QuoteA is not routed yet; Wrap has no pools (wrapHop).
      return [];
  }
}

/**
 * AmmA pools, exact in only (the spec: AmmA has no exact-output mode). Simple (x·y=k) pools: both directions, spot
 * Y/X. Stable and rated pools (StableSwap, dexes/amm-a/stable-math.ts): a hop for every ordered pair of distinct
 * tokens, at the amp factor of `ctx.nowNs` (its ramp end without a time), rated ones only with `ctx.ammARates`;
 * spot is the invariant's analytic derivative. Degen pools are not routed: their prices come from price oracles
 * (`custom_degen_key`) that the indexer does not read, so no exact quote exists for them.
 */
function ammAHops(pool: RoutingPool, ctx: HopContext): Hop[] {
  const { state } = pool;
  if (state.kind === 'stable' || state.kind === 'rated') return stableLikeHops(pool, ctx);
  if (state.kind !== 'simple' || state.tokens.length !== 2 || state.amounts.length !== 2) return [];
  const [t0, t1] = state.tokens as [string, string];
  const [a0, a1] = state.amounts as [bigint, bigint];
  if (a0 <= 0n || a1 <= 0n) return [];
  const fee = state.totalFee;
  if (!Number.isInteger(fee) || fee < 0 || fee > 10_000) return []; // not a fee the contract allows
  const hop = (tokenIn: string, tokenOut: string, x: bigint, y: bigint): Hop => {
    const quote = simpleAmountOutQuoter(x, y, fee);
    return { dex: 'AmmA', poolId: pool.poolId, tokenIn, tokenOut, out: (a) => positive(quote(a)), spot: { numerator: y, denominator: x } };
  };
  return [hop(t0, t1, a0, a1), hop(t1, t0, a1, a0)];
}

/** The contract allows 2..9 tokens in a stable-like pool (mainnet's have 2..4), of 1..24 decimals. */
const MAX_STABLE_TOKENS = 9;
const MAX_STABLE_DECIMALS = 24;

const isBigints = (v: unknown, n: number): v is bigint[] => Array.isArray(v) && v.length === n && v.every((x) => typeof x === 'bigint');

/**
 * An AmmA stable or rated pool state as the graph revived it from `pools.state` (amount fields as bigint, the rest
 * as JSON gave it), checked field by field; null when anything is not what the contract stores.
 */
function stableLikeStateOf(state: RoutingPool['state']): StableLikePoolState | null {
  const s = state as Record<string, unknown>;
  const { kind, tokens, decimals, cAmounts, totalFee, initAmpFactor, targetAmpFactor, initAmpTime, stopAmpTime } = s;
  if (kind !== 'stable' && kind !== 'rated') return null;
  if (!Array.isArray(tokens) || tokens.length < 2 || tokens.length > MAX_STABLE_TOKENS || !tokens.every((t) => typeof t === 'string')) return null;
  if (new Set(tokens).size !== tokens.length) return null;
  const n = tokens.length;
  if (!Array.isArray(decimals) || decimals.length !== n || !decimals.every((d) => Number.isInteger(d) && d >= 1 && d <= MAX_STABLE_DECIMALS)) return null;
  if (!isBigints(cAmounts, n)) return null;
  if (typeof totalFee !== 'number' || !Number.isInteger(totalFee) || totalFee < 0 || totalFee > 10_000) return null;
  const amp = [initAmpFactor, targetAmpFactor, initAmpTime, stopAmpTime];
  if (!amp.every((v) => typeof v === 'bigint' && v >= 0n)) return null;
  const targetDecimals = kind === 'stable' ? 18 : 24;
  if (s.targetDecimals !== undefined && s.targetDecimals !== targetDecimals) return null;
  return { ...(state as unknown as StableLikePoolState), kind, tokens: tokens as string[], decimals: decimals as number[], cAmounts, totalFee, targetDecimals };
}

function stableLikeHops(pool: RoutingPool, ctx: HopContext): Hop[] {
  const state = stableLikeStateOf(pool.state);
  if (state === null) return [];
  const rates = ctx.ammARates ?? null;
  if (state.kind === 'rated' && rates === null) return [];
  const prepared = prepareStablePool(state, ctx.nowNs ?? null, rates ?? undefined);
  if (prepared === null) return []; // the contract refuses every swap of this pool now
  const hops: Hop[] = [];
  for (const [i, tokenIn] of state.tokens.entries()) {
    for (const [j, tokenOut] of state.tokens.entries()) {
      if (i === j) continue;
      const quote = quoterOf(prepared, state, i, j);
      hops.push({ dex: 'AmmA', poolId: pool.poolId, tokenIn, tokenOut, out: (a) => positive(quote(a)), spot: preparedSpotPrice(prepared, i, j) });
    }
  }
  return hops;
}

/** AmmC xyk pools (public, private, launch), exact in and out. Exact out is what the contract charges an
 * `ExactOut` request (ammCContractExactOut), since that is the request the instructions send. */
function ammCHops(pool: RoutingPool): Hop[] {
  const state = pool.state as unknown as AmmCPoolState;
  if (state.kind !== 'xyk' || state.tokens.length !== 2 || state.amounts.length !== 2) return [];
  const [t0, t1] = state.tokens as [string, string];
  const [a0, a1] = state.amounts as [bigint, bigint];
  if (a0 <= 0n || a1 <= 0n) return [];
  const hop = (tokenIn: string, tokenOut: string, x: bigint, y: bigint): Hop => ({
    dex: 'AmmC',
    poolId: pool.poolId,
    tokenIn,
    tokenOut,
    out: (a) => positive(ammCQuoteExactIn(state, tokenIn, tokenOut, a)?.amountOut),
    in: (b) => positive(ammCContractExactOut(state, tokenIn, tokenOut, b)?.amountIn),
    spot: { numerator: y, denominator: x },
  });
  return [hop(t0, t1, a0, a1), hop(t1, t0, a1, a0)];
}

/** AmmDclA pools, exact in and out, over their concentrated liquidity and limit orders. A state the indexer could
 * not keep exact (`unappliedChanges` > 0) is not routed. Marginal rate before fees: Y per X = (sqrtPrice96/2^96)². */
function dclHops(pool: RoutingPool): Hop[] {
  const state = pool.state as unknown as DclPoolState;
  if (state.kind !== 'dcl' || state.unappliedChanges > 0 || state.liquidity + state.amounts[0] + state.amounts[1] === 0n) return [];
  const [x, y] = state.tokens;
  const priceNumerator = state.sqrtPrice96 * state.sqrtPrice96;
  const priceDenominator = 1n << 192n;
  const hop = (tokenIn: string, tokenOut: string, spot: Fraction): Hop => ({
    dex: 'AmmDclA',
    poolId: pool.poolId,
    tokenIn,
    tokenOut,
    out: (a) => dclQuoteExactIn(state, tokenIn, a),
    in: (b) => positive(dclQuoteExactOut(state, tokenOut, b)),
    spot,
  });
  return [
    hop(x, y, { numerator: priceNumerator, denominator: priceDenominator }),
    hop(y, x, { numerator: priceDenominator, denominator: priceNumerator }),
  ];
}

/** Launch curves: [aidol token, wNEAR], exact in and out. */
function launchHops(pool: RoutingPool): Hop[] {
  const state = pool.state as unknown as LaunchPoolState;
  if (state.kind !== 'curve' || state.tokens.length !== 2 || state.amounts.length !== 2) return [];
  const [token, wnear] = state.tokens as [string, string];
  const [tokenHold, wnearHold] = state.amounts as [bigint, bigint];
  if (tokenHold <= 0n || wnearHold <= 0n) return [];
  const hop = (tokenIn: string, tokenOut: string, spot: Fraction): Hop => ({
    dex: 'Launch',
    poolId: pool.poolId,
    tokenIn,
    tokenOut,
    out: (a) => positive(launchQuoteExactIn(state, tokenIn, tokenOut, a)?.amountOut),
    in: (b) => positive(launchQuoteExactOut(state, tokenIn, tokenOut, b)?.amountIn),
    spot,
  });
  return [
    hop(wnear, token, { numerator: tokenHold, denominator: wnearHold }),
    hop(token, wnear, { numerator: wnearHold, denominator: tokenHold }),
  ];
}

/**
 * Stakes at the indexed rate: underlying -> staked token, exact in and out. Meta Pool charges a new account's storage
 * out of the deposit: with a trader whose registration is not indexed, that is counted. The way back is a delayed
 * unstake everywhere but at Meta Pool, whose liquid unstake (stNEAR -> NEAR, exact in only: its fee steps up with the
 * amount) is routed once the pool's NEAR (`ctx.metaPoolNslp`) and the fee curve of its STATE are known.
 */
function stakeHops(pool: RoutingPool, ctx: HopContext): Hop[] {
  const state = pool.state as unknown as StakeRateState;
  if (state.kind !== 'stake' || state.tokens.length !== 2 || state.amounts.length !== 2) return [];
  const [underlying, staked] = state.tokens;
  const [total, shares] = state.amounts;
  if (total <= 0n || shares <= 0n) return [];
  let out: (a: bigint) => bigint;
  let inFor: (b: bigint) => bigint;
  switch (pool.dex) {
    case 'StakeA': {
      const newAccount = ctx.registrations !== null && !ctx.registrations.has(staked);
      out = (a) => metaPoolStakeOut(state, a, { newAccount });
      inFor = (b) => metaPoolStakeIn(state, b, { newAccount });
      break;
    }
    case 'StakeB':
      out = (a) => linearStakeOut(state, a);
      inFor = (b) => linearStakeIn(state, b);
      break;
    case 'StakeC':
      out = (a) => xrheaStakeOut(state, a);
      inFor = (b) => xrheaStakeIn(state, b);
      break;
    default:
      out = (a) => rnearStakeOut(state, a);
      inFor = (b) => rnearStakeIn(state, b);
  }
  const stake: Hop = {
    dex: pool.dex,
    poolId: pool.poolId,
    tokenIn: underlying,
    tokenOut: staked,
    out: (a) => positive(out(a)),
    in: (b) => positive(inFor(b)),
    spot: { numerator: shares, denominator: total },
  };
  const unstake = pool.dex === 'StakeA' ? metaPoolLiquidUnstakeHop(pool, state, ctx) : null;
  return unstake === null ? [stake] : [stake, unstake];
}

/** Meta Pool's liquid unstake, staked -> underlying, or null while its pool's NEAR or fee curve is unknown. */
function metaPoolLiquidUnstakeHop(pool: RoutingPool, state: StakeRateState, ctx: HopContext): Hop | null {
  const { nslpLiquidityTarget: liquidityTarget, nslpMinDiscountBps: minDiscountBps, nslpMaxDiscountBps: maxDiscountBps } = pool.state;
  const nslpAvailable = ctx.metaPoolNslp;
  if (nslpAvailable === undefined || nslpAvailable === null || typeof liquidityTarget !== 'bigint') return null;
  const params = { nslpAvailable, liquidityTarget, minDiscountBps: minDiscountBps as number, maxDiscountBps: maxDiscountBps as number };
  // A row the contract could not hold is not routed (the math would refuse it mid-search).
  if (!hasValidDiscountBounds(params)) return null;
  const [underlying, staked] = state.tokens;
  const [total, shares] = state.amounts;
  return {
    dex: pool.dex,
    poolId: pool.poolId,
    tokenIn: staked,
    tokenOut: underlying,
    out: (a) => positive(metaPoolLiquidUnstakeOut(state, a, params)?.amountOut),
    spot: { numerator: total, denominator: shares },
  };
}

/** Wrap's one hop between two token ids (`near` <-> wNEAR, X <-> `inner-nep141:X`), 1:1, or null. */
export function wrapHop(tokenIn: string, tokenOut: string, contracts: DexContracts): Hop | null {
  if (wrapConversionOf(tokenIn, tokenOut, contracts) === null) return null;
  return { dex: 'Wrap', poolId: '', tokenIn, tokenOut, out: (a) => positive(a), in: (b) => positive(b), spot: { numerator: 1n, denominator: 1n } };
}
