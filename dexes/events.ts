// The event vocabulary every DEX decoder speaks, so the projections (pools, trades, prices, candles) treat the ten
// DEX ids alike. A DEX adds its own fields to a pool's `state` (its math.ts reads them); the fields here are the
// ones the shared projections read.
//
// Token ids inside events: `near` for native NEAR, else the NEP-141 contract id (as the contracts' own logs
// write them); `inner-nep141:<contract>` for a token's inner balance at AmmA (Wrap); NEAR Intents' multi-token ids
// (`nep245:...`, `nep171:...`) whole, as no NEP-141 contract stands for them.
import type { EventBase } from '../near/events.ts';

/** A DEX id: one of the registry's (`dexes/index.ts`). */
export type DexId = string;

/** What every pool state carries. */
export interface PoolStateCommon {
  /** The DEX's own pool kind: `simple`, `stable`, `xyk`, `dcl`, `curve`, `stake`, `wrap`... */
  kind: string;
  tokens: string[];
  /** Reserves per token in smallest units; for rate pools (stake, wrap) the two sides of the rate (e.g. total
   * NEAR staked and total shares), so amounts[1]/amounts[0] converts tokens[0] into tokens[1]. */
  amounts: bigint[];
  /** Fee in the DEX's own unit (AmmA: basis points of 10 000; AmmC, AmmDclA: millionths); 0 when none. */
  totalFee: number;
}

/** Pool kinds whose amounts are the two sides of a rate (PoolStateCommon.amounts), not reserves: they hold no
 * liquidity (the token and pool liquidity figures leave them out). */
export const NOT_RESERVE_KINDS: ReadonlySet<string> = new Set(['stake', 'wrap']);

/** Where a pool state came from. */
export type PoolStateSource = 'storage' | 'event' | 'rpc' | 'import' | 'devnet';

/** A pool's state after the block (the last one the block gave). */
export interface PoolStateEvent<S extends PoolStateCommon = PoolStateCommon> extends EventBase {
  kind: 'pool_state';
  dex: DexId;
  contractId: string;
  poolId: number | string;
  state: S;
  /** Absent for AmmA storage writes (the default source of its states). */
  source?: PoolStateSource;
}

/**
 * One pool hop of a trade. Stakes, unstakes, wraps and unwraps are swaps of their DEX ids. A user's trade is the
 * hops of one (dex, receipt), in index order: tokenIn of the first, tokenOut of the last.
 */
export interface SwapEvent extends EventBase {
  kind: 'swap';
  dex: DexId;
  contractId: string;
  /** null when the decoder cannot tell the pool exactly. */
  poolId: number | string | null;
  /** The account that traded (the `ft_on_transfer` sender, or the caller); null when unknown. */
  trader: string | null;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  amountOut: bigint;
  /** Fee taken, in the unit the DEX reports it (AmmA stable pools: output token), or null. */
  totalFee: bigint | null;
  adminFee: bigint | null;
  /**
   * The receipts of the swap, set by the indexer from the block (decoders leave it out): the one that created the
   * swap's receipt when the block holds it (the `ft_transfer_call` on the input token), the swap's receipt, and the
   * receipts it created (the payouts and callbacks, which may execute in later blocks).
   */
  receipts?: string[];
}

/** Liquidity added to or removed from a pool, as the contract reports it. */
export interface LiquidityEvent extends EventBase {
  kind: 'liquidity';
  dex: DexId;
  contractId: string;
  poolId: number | string;
  provider: string | null;
  action: 'add' | 'remove';
  tokens: string[];
  /** Amounts moved per token (positive for both actions). */
  amounts: bigint[];
  /** LP shares minted or burned, when the DEX has shares. */
  shares: bigint | null;
}

export type DexEvent = PoolStateEvent | SwapEvent | LiquidityEvent;
