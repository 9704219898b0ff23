// Domain events of AmmA (Ref Finance `v2.ref-finance.near`). Same base fields as the core events
// (near/events.ts): (blockHeight, receiptId, index) is unique among AmmA events; `index` counts
// within AmmA's own events of one receipt (log-derived events in log order first, then pool writes in
// block order), so a store that mixes AmmA and core events must key on the kind (or dex) as well.

import type { EventBase, UndecodedEvent } from '../../near/events.ts';
import type { LiquidityEvent, SwapEvent } from '../events.ts';
import type { AmmAPoolState, TokenRate } from './state.ts';

export const AMM_A_DEX_ID = 'AmmA';

/**
 * A pool's state after the block: the LAST write of its storage key `00 ‖ u64le(poolId)` in the
 * block. `receiptId` is the receipt that made that write (the state change's cause). Emitted
 * for every written pool, whether or not a Swapped log accompanies it (add/remove liquidity,
 * pool creation, admin fee changes...).
 */
export interface AmmAPoolStateEvent extends EventBase {
  kind: 'pool_state';
  dex: typeof AMM_A_DEX_ID;
  contractId: string;
  poolId: number;
  state: AmmAPoolState;
}

/**
 * A pool key deleted in the block (the last change of the key was a `data_deletion`). The
 * contract never deletes pools, so this marks an unexpected contract change: the pool's state
 * is unknown from here on.
 */
export interface AmmAPoolDeletedEvent extends EventBase {
  kind: 'pool_deleted';
  dex: typeof AMM_A_DEX_ID;
  contractId: string;
  poolId: number;
}

/** The rated-token rates map (`custom_rate_key`) after the block, when the block wrote it. */
export interface AmmARatesEvent extends EventBase {
  kind: 'rates';
  dex: typeof AMM_A_DEX_ID;
  contractId: string;
  /** In stored order (borsh sorts HashMap entries by key). Tokens absent here use rate 10^24. */
  rates: Array<TokenRate & { tokenId: string }>;
}

/**
 * One swap hop: one log line of a successful receipt executed by the contract, `Swapped <amountIn> <tokenIn> for
 * <amountOut> <tokenOut>[, total fee F, admin fee G]` (exact in) or `Swap_by_output <amountIn> <tokenIn> for
 * <amountOut> <tokenOut>` (exact out, simple pools). `poolId` is the pool of the hop, from the receipt's swap actions
 * (`swap`/`swap_by_output`/`execute_actions` args, or the `ft_on_transfer` msg's `actions` or HotZap
 * `hot_zap_actions`), matched in order to the receipt's swap lines; null when that match is not exact (the number of
 * actions differs from the number of lines, or a line's kind, tokens, or given or chained amount differ from its
 * action's). `trader`: `ft_on_transfer`'s `sender_id`, else the receipt's predecessor. `totalFee`/`adminFee`: stable,
 * rated and degen pools only (log suffix, output-token units).
 */
export interface AmmASwapEvent extends SwapEvent {
  dex: typeof AMM_A_DEX_ID;
  poolId: number | null;
}

/** A liquidity line of a successful receipt, pool from the call that made it (`add_liquidity`,
 * `add_stable_liquidity`, `remove_liquidity`, `remove_liquidity_by_tokens`, a HotZap's `add_liquidity_infos`).
 * Simple pools log tokens and amounts (`Liquidity added [...]`, `... shares of liquidity removed: receive back
 * [...]`); stable, rated and degen pools log the provider and shares (`Mint ...`, `LP ... remove ...`, `LP ...
 * removed ... by given tokens ...`): their tokens are the pool's, their amounts the line's or the call's. */
export interface AmmALiquidityEvent extends LiquidityEvent {
  dex: typeof AMM_A_DEX_ID;
  poolId: number;
}

/** What AmmA's decoder gives, including what it could not read. */
export type AmmAEvent = AmmAPoolStateEvent | AmmAPoolDeletedEvent | AmmARatesEvent | AmmASwapEvent | AmmALiquidityEvent | UndecodedEvent;
export type AmmAEventKind = AmmAEvent['kind'];
