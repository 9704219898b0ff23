// AmmDclA swap calls (near-facts.md "AmmDclA"): `ft_transfer_call` of the input to the DCL contract with msg
// `{"Swap":{"pool_ids":[...],"output_token","min_output_amount","skip_unwrap_near"}}` (exact in, pools in path
// order) or `{"SwapByOutput":{"pool_ids":[... from the output side],"output_token","output_amount",
// "skip_unwrap_near"}}` (exact out; the unused input is refunded by `ft_resolve_transfer`). Gas 50 + 50 per hop
// TGas. Pure.
import { PAYOUT_CALLBACK_BURN, SWAP_PER_POOL_BURN, TOKEN_RESOLVE_BURN, TOKEN_TRANSFER_BURN, TOKEN_TRANSFER_CALL_BURN } from '../burn.ts';
import { ftTransferCall, tgas, type FunctionCallStep } from '../instructions.ts';

export interface DclSwap {
  contractId: string;
  tokenIn: string;
  /** Pool ids `token_x|token_y|fee`, in path order (input side first). */
  poolIds: readonly string[];
  outputToken: string;
  mode: 'exact_in' | 'exact_out';
  /** Sent: the exact input, or for exact out the most the swap may take. */
  amountIn: bigint;
  /** Exact in: the least output accepted; exact out: the output asked for. */
  amountOut: bigint;
  skipUnwrapNear: boolean;
}

export const dclSwapGas = (hops: number): bigint => tgas(50 + 50 * hops);

/** What a swap over `hops` pools burns: the token's call and resolve, the DCL's `ft_on_transfer` (a swap's envelope
 * per pool), the output's `ft_transfer` and a callback after it (../burn.ts; the DCL's wasm is not vendored). */
export const dclSwapBurn = (hops: number): bigint =>
  TOKEN_TRANSFER_CALL_BURN + BigInt(hops) * SWAP_PER_POOL_BURN + TOKEN_TRANSFER_BURN + PAYOUT_CALLBACK_BURN + TOKEN_RESOLVE_BURN;

export function dclSwapMsg(swap: DclSwap): Record<string, unknown> {
  if (swap.poolIds.length === 0) throw new RangeError('AmmDclA swap: no pool');
  return swap.mode === 'exact_in'
    ? {
        Swap: {
          pool_ids: [...swap.poolIds],
          output_token: swap.outputToken,
          min_output_amount: swap.amountOut.toString(),
          skip_unwrap_near: swap.skipUnwrapNear,
        },
      }
    : {
        SwapByOutput: {
          pool_ids: [...swap.poolIds].reverse(),
          output_token: swap.outputToken,
          output_amount: swap.amountOut.toString(),
          skip_unwrap_near: swap.skipUnwrapNear,
        },
      };
}

export function dclSwapCalls(swap: DclSwap): FunctionCallStep[] {
  return [ftTransferCall(swap.tokenIn, swap.contractId, swap.amountIn, JSON.stringify(dclSwapMsg(swap)), dclSwapGas(swap.poolIds.length), dclSwapBurn(swap.poolIds.length))];
}
