// Launch trade calls (near-facts.md "Launch"): `ft_transfer_call` of the input (wNEAR to buy, the aidol token to
// sell) to `aidols.near` with msg `{"token": <aidol token, or null when selling>, "min_swap_amount", "referral"}`;
// exact out adds `"amount_out"`. 50 TGas. Pure.
import { PAYOUT_CALLBACK_BURN, SWAP_PER_POOL_BURN, TOKEN_RESOLVE_BURN, TOKEN_TRANSFER_BURN, TOKEN_TRANSFER_CALL_BURN } from '../burn.ts';
import { ftTransferCall, tgas, type FunctionCallStep } from '../instructions.ts';

export const LAUNCH_GAS = tgas(50);

export interface LaunchTrade {
  contractId: string;
  /** The input token (`DexContracts.Wrap` for a buy) and the curve's aidol token. */
  tokenIn: string;
  aidolToken: string;
  /** Sent: the exact input, or for exact out the most the trade may take (the rest is refunded by ft_resolve). */
  amountIn: bigint;
  minAmountOut: bigint;
  /** Exact out: the amount asked for. */
  amountOut: bigint | null;
  referrerId: string | null;
}

export function launchMsg(trade: LaunchTrade): Record<string, unknown> {
  const buy = trade.tokenIn !== trade.aidolToken;
  return {
    token: buy ? trade.aidolToken : null,
    min_swap_amount: trade.minAmountOut.toString(),
    referral: trade.referrerId,
    ...(trade.amountOut !== null ? { amount_out: trade.amountOut.toString() } : {}),
  };
}

/** What a trade burns: the token's call and resolve, the curve's trade (one pool's swap envelope), the output's
 * `ft_transfer` and a callback after it (../burn.ts; aidols' code is not public). */
export const LAUNCH_BURN = TOKEN_TRANSFER_CALL_BURN + SWAP_PER_POOL_BURN + TOKEN_TRANSFER_BURN + PAYOUT_CALLBACK_BURN + TOKEN_RESOLVE_BURN;

export function launchCalls(trade: LaunchTrade): FunctionCallStep[] {
  return [ftTransferCall(trade.tokenIn, trade.contractId, trade.amountIn, JSON.stringify(launchMsg(trade)), LAUNCH_GAS, LAUNCH_BURN)];
}
