// AmmA's hops over its pools, exact in only (the spec: AmmA has no exact-output mode). Simple (x·y=k) pools: both
// directions, spot Y/X, and their constant-product curve for the optimal-flow router. Stable and rated pools (StableSwap, stable-math.ts): a hop for every ordered pair of
// distinct tokens, at the amp factor of `ctx.nowNs` (its ramp end without a time), rated ones only with the rates of
// AmmA's ledger (`custom_rate_key`, the latest `rates` event); spot is the invariant's analytic derivative. Degen
// pools are not routed: their prices come from price oracles (`custom_degen_key`) that the indexer does not read,
// so no exact quote exists for them. Pure.
import { positive, type Hop, type HopContext, type RoutingPool } from '../dex.ts';
import { AMM_A_DEX_ID } from './events.ts';
import { FEE_DIVISOR, simpleAmountOutQuoter } from './math.ts';
import { prepareStablePool, preparedSpotPrice, quoterOf } from './stable-math.ts';
import type { StableLikePoolState, TokenRate } from './state.ts';

export function ammAHops(pool: RoutingPool, ctx: HopContext): Hop[] {
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
    return {
      dex: AMM_A_DEX_ID,
      poolId: pool.poolId,
      tokenIn,
      tokenOut,
      out: (a) => positive(quote(a)),
      spot: { numerator: y, denominator: x },
      curve: { kind: 'constantProduct', reserveIn: x, reserveOut: y, fee: { numerator: BigInt(fee), denominator: FEE_DIVISOR } },
    };
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
  const rates = (ctx.ledgers?.get(AMM_A_DEX_ID) as ReadonlyMap<string, TokenRate> | undefined) ?? null;
  if (state.kind === 'rated' && rates === null) return [];
  const prepared = prepareStablePool(state, ctx.nowNs ?? null, rates ?? undefined);
  if (prepared === null) return []; // the contract refuses every swap of this pool now
  const hops: Hop[] = [];
  for (const [i, tokenIn] of state.tokens.entries()) {
    for (const [j, tokenOut] of state.tokens.entries()) {
      if (i === j) continue;
      const quote = quoterOf(prepared, state, i, j);
      hops.push({ dex: AMM_A_DEX_ID, poolId: pool.poolId, tokenIn, tokenOut, out: (a) => positive(quote(a)), spot: preparedSpotPrice(prepared, i, j) });
    }
  }
  return hops;
}

/** The rates of an AmmA `rates` event as stored (amounts as decimal strings); an entry that does not read is left
 * out, so its pools do not route rather than route at a wrong rate. */
export function ratesFromPayload(payload: unknown): Map<string, TokenRate> {
  const rates = new Map<string, TokenRate>();
  const digits = (v: unknown): bigint | null => (typeof v === 'string' && /^\d{1,40}$/.test(v) ? BigInt(v) : null);
  const list = (payload as { dex?: unknown; rates?: unknown }).rates;
  if ((payload as { dex?: unknown }).dex !== AMM_A_DEX_ID || !Array.isArray(list)) return rates;
  for (const entry of list as Record<string, unknown>[]) {
    const storedRates = digits(entry.storedRates);
    const ratesUpdatedAt = digits(entry.ratesUpdatedAt);
    if (typeof entry.tokenId !== 'string' || storedRates === null || ratesUpdatedAt === null) continue;
    rates.set(entry.tokenId, { ...(entry as unknown as TokenRate), storedRates, ratesUpdatedAt });
  }
  return rates;
}
