// QuoteA: NEAR Intents (`intents.near`), a request-for-quote market: the api asks the solver relay for a quote, the
// trader deposits into the verifier and signs a NEP-413 `token_diff` intent that the relay settles. No slippage (the
// quote is firm); ranked after every pool DEX (the spec: poor liquidity and long waits).
import { endsOf, type Dex } from '../dex.ts';
import { outputStorageSteps } from '../instructions.ts';
import { decodeQuoteA } from './decode.ts';
import { intentsDepositCall, intentsMessage } from './instructions.ts';

export const quoteA: Dex = {
  id: 'QuoteA',
  contract: (contracts) => contracts.QuoteA,
  activity: 'trade',
  decode: decodeQuoteA,
  routing: {
    maxHops: { exactIn: 1, exactOut: 1 },
    rfq: true,
    tradesWnear: true,
    hasSlippage: false,
    // The output arrives by the intents' ft_withdraw.
    helperSteps: (route, ctx) => outputStorageSteps(endsOf(route).last.tokenOut, ctx.trader, ctx.registered),
    calls: (route, amounts, ctx) => [intentsDepositCall(endsOf(route).first.tokenIn, ctx.contracts.QuoteA, amounts.amountIn)],
    signedMessages: (route, ctx) => {
      const quote = route.rfqQuote;
      if (quote === undefined) return [];
      const hop = endsOf(route).first;
      const message = intentsMessage({
        signerId: ctx.trader,
        deadline: quote.expirationTime,
        assetIn: `nep141:${hop.tokenIn}`,
        assetOut: `nep141:${hop.tokenOut}`,
        amountIn: quote.amountIn,
        amountOut: quote.amountOut,
        tokenOut: hop.tokenOut,
        referrerId: ctx.referrerId,
      });
      return [{ IntentsQuote: { message_to_sign: message, quote_hash: quote.quoteHash } }];
    },
  },
};
