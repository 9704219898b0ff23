// QuoteA (NEAR Intents) route steps (near-facts.md "QuoteA"): the input is deposited into the verifier
// (`ft_transfer_call` to `intents.near`, msg "", 40 TGas), then the trader signs a NEP-413 message whose intents
// trade the quoted amounts (`token_diff`) and withdraw the output to the trader (`ft_withdraw`), and publishes it
// to the relay with the quote's hash. Pure.
import { DEPOSIT_BURN, TOKEN_RESOLVE_BURN, TOKEN_TRANSFER_CALL_BURN } from '../burn.ts';
import { ftTransferCall, tgas, type FunctionCallStep } from '../instructions.ts';

export const INTENTS_DEPOSIT_GAS = tgas(40);

/** Deposit `amount` of `tokenId` into the verifier's balance of the sender: the token's call and resolve, and the
 * verifier crediting it (a deposit's envelope; the swap itself runs in the relay's transaction, not the trader's). */
export function intentsDepositCall(tokenId: string, verifierId: string, amount: bigint): FunctionCallStep {
  return ftTransferCall(tokenId, verifierId, amount, '', INTENTS_DEPOSIT_GAS, TOKEN_TRANSFER_CALL_BURN + DEPOSIT_BURN + TOKEN_RESOLVE_BURN);
}

export interface IntentsTrade {
  signerId: string;
  /** RFC 3339: the quote's expiration. */
  deadline: string;
  /** Intents asset ids (`nep141:<contract>`). */
  assetIn: string;
  assetOut: string;
  amountIn: bigint;
  amountOut: bigint;
  /** The output token's contract, for the withdrawal. */
  tokenOut: string;
  referrerId: string | null;
}

/** The message the trader signs (NEP-413 payload text): the token_diff of the quote, then the withdrawal. */
export function intentsMessage(trade: IntentsTrade): string {
  return JSON.stringify({
    signer_id: trade.signerId,
    deadline: trade.deadline,
    intents: [
      {
        intent: 'token_diff',
        diff: { [trade.assetIn]: `-${trade.amountIn}`, [trade.assetOut]: trade.amountOut.toString() },
        ...(trade.referrerId !== null ? { referral: trade.referrerId } : {}),
      },
      { intent: 'ft_withdraw', token: trade.tokenOut, receiver_id: trade.signerId, amount: trade.amountOut.toString() },
    ],
  });
}
