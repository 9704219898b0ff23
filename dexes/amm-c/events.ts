// The pool state AmmC events carry (Intear DEX engine `dex.intear.near`, its xyk DEX `slimedragon.near/xyk`):
// the xyk DEX's `PoolView` (INTEARnear/dex, dexes/xyk/types/src/lib.rs) in our vocabulary. Swaps and liquidity
// changes use the shared `SwapEvent` / `LiquidityEvent` of ../events.ts as they are.
import type { PoolStateCommon, PoolStateEvent } from '../events.ts';

export const AMM_C_DEX_ID = 'AmmC';

/** `Private` (owner-only liquidity), `Public` (LP shares) or `Launch`/`LaunchV2` (phantom quote liquidity). */
export type AmmCPoolType = 'private' | 'public' | 'launch';

/** One entry of the pool's current fees, in the order the contract charges them. */
export interface AmmCFeeReceiver {
  /** `pool`: stays in the reserves; `account`: collected for `accountId` (the protocol's `plach.intear.near`
   * is one of these); `community`: a launch pool's fee collected in NEAR for `accountId`. */
  kind: 'pool' | 'account' | 'community';
  accountId: string | null;
  /** Millionths of the input amount. */
  fee: number;
}

export interface AmmCPoolState extends PoolStateCommon {
  kind: 'xyk';
  poolType: AmmCPoolType;
  /** The pool's two assets in contract order; launch pools: [quote asset (`near` in v1 pools), launched token]. */
  tokens: string[];
  /** Reserves in contract order, as the curve uses them: a launch pool's amounts[0] includes the phantom liquidity. */
  amounts: bigint[];
  /** Sum of `feeReceivers[].fee` (millionths). */
  totalFee: number;
  /** The view's `fees.receivers`: the fees a swap pays at the time of the event, protocol fee included. */
  feeReceivers: AmmCFeeReceiver[];
  /** Launch pools: the phantom quote liquidity the pool started with; no swap may leave amounts[0] below it.
   * null for other pools. */
  phantomLiquidity: bigint | null;
  /** Public pools: LP shares outstanding (null before the first deposit); null for other pools. */
  totalShares: bigint | null;
}

export type AmmCPoolStateEvent = PoolStateEvent<AmmCPoolState>;
