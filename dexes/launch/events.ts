// The pool state Launch events carry (Aidols bonding curve `aidols.near`): one curve per aidol token, read from the
// contract's curve record in storage (the truth), or, in a block without that record's write, from the holds its
// `token_swap` events report. Swaps use the shared `SwapEvent` of ../events.ts as it is.
import type { PoolStateCommon, PoolStateEvent } from '../events.ts';

export const LAUNCH_DEX_ID = 'Launch';

/** The spec's protocol fee: max(0.01 NEAR, 1% of the trade volume), in wNEAR (service-spec.md, referral facts). */
export const LAUNCH_FEE_MILLIONTHS = 10_000;
export const LAUNCH_MIN_FEE = 10n ** 22n;

export interface LaunchPoolState extends PoolStateCommon {
  kind: 'curve';
  /** [aidol token, wNEAR]. */
  tokens: string[];
  /** [token_hold, wnear_hold]: the curve's reserves; wnear_hold includes the curve's 500 virtual wNEAR (T: the
   * record right after a launch holds 5·10^26), and x·y=k over these two is the pricing (near-facts.md "Launch";
   * no source: README.md). */
  amounts: bigint[];
  /** The percentage part of the fee, millionths of the trade volume. */
  totalFee: number;
  /** The fee's floor, wNEAR. */
  minFee: bigint;
  /** The curve record's `is_deployed` (the token graduated to a DEX pool); null when the state comes from a
   * `token_swap` event, which does not carry it. */
  isDeployed: boolean | null;
  /** The curve record's `is_tradable`: false means the contract takes no more trades on this curve, so it is not
   * quoted (math.ts); null when the state comes from a `token_swap` event. */
  isTradable: boolean | null;
}

export type LaunchPoolStateEvent = PoolStateEvent<LaunchPoolState>;
