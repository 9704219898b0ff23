// One swap step of one pool, per DEX, over that DEX's pure math.ts: what the pathfinder composes. A hop quotes exact
// in (`out`) and, where the DEX and the pool kind allow, exact out (`in`); `spot` is its marginal rate before fees
// (out per in), which the price impact of a route is measured against. Token ids are the DEXes' own: `near` for
// native NEAR, else the NEP-141 contract id (AmmA and Launch trade wNEAR, never `near`). Pure.
import { ammCContractExactOut, ammCQuoteExactIn } from '../../dexes/amm-c/math.ts';
import { quoteExactIn as dclQuoteExactIn, quoteExactOut as dclQuoteExactOut } from '../../dexes/amm-dcl-a/math.ts';
import type { DclPoolState } from '../../dexes/amm-dcl-a/state.ts';
import type { AmmCPoolState } from '../../dexes/amm-c/events.ts';
import { simpleAmountOutQuoter } from '../../dexes/amm-a/math.ts';
import type { DexContracts } from '../../dexes/contracts.ts';
import type { DexId } from '../../dexes/events.ts';
import { launchQuoteExactIn, launchQuoteExactOut } from '../../dexes/launch/math.ts';
import type { LaunchPoolState } from '../../dexes/launch/events.ts';
import { metaPoolStakeIn, metaPoolStakeOut } from '../../dexes/stake-a/math.ts';
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
}

const positive = (v: bigint | null | undefined): bigint | null => (v === null || v === undefined || v <= 0n ? null : v);

/** The hops of one pool (both directions where the DEX trades both ways). */
export function hopsOfPool(pool: RoutingPool, ctx: HopContext): Hop[] {
  switch (pool.dex) {
    case 'AmmA':
      return ammAHops(pool);
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

/** AmmA simple (x·y=k) pools, exact in only (the spec: AmmA has no exact-output mode). Stable, rated and degen
 * pools are not routed: their StableSwap math is not in dexes/amm-a/math.ts yet. */
function ammAHops(pool: RoutingPool): Hop[] {
  const { state } = pool;
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
 * Stakes at the indexed rate: underlying -> staked token only. StakeA's liquid unstake is not routed: its fee
 * depends on the NEAR/stNEAR liquidity pool, which the decoder does not read (dexes/stake-a/README.md), so no exact
 * quote exists for it. Meta Pool charges a new account's storage out of the deposit: with a trader whose
 * registration is not indexed, that is counted.
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
  return [
    {
      dex: pool.dex,
      poolId: pool.poolId,
      tokenIn: underlying,
      tokenOut: staked,
      out: (a) => positive(out(a)),
      in: (b) => positive(inFor(b)),
      spot: { numerator: shares, denominator: total },
    },
  ];
}

/** Wrap's one hop between two token ids (`near` <-> wNEAR, X <-> `inner-nep141:X`), 1:1, or null. */
export function wrapHop(tokenIn: string, tokenOut: string, contracts: DexContracts): Hop | null {
  if (wrapConversionOf(tokenIn, tokenOut, contracts) === null) return null;
  return { dex: 'Wrap', poolId: '', tokenIn, tokenOut, out: (a) => positive(a), in: (b) => positive(b), spot: { numerator: 1n, denominator: 1n } };
}
