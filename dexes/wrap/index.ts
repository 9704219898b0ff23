// Wrap: 1:1 conversions without pools: NEAR <-> wNEAR (`wrap.near`), and a token <-> its inner balance at AmmA.
import { endsOf, positive, type Dex, type Hop } from '../dex.ts';
import { outputStorageSteps } from '../instructions.ts';
import { ammARegistrationCalls } from '../amm-a/instructions.ts';
import type { DexContracts } from '../contracts.ts';
import { decodeWrap } from './decode.ts';
import { wrapCalls, wrapConversionOf } from './instructions.ts';

const WRAP_DEX_ID = 'Wrap';

/** The one hop between two token ids (`near` <-> wNEAR, X <-> `inner-nep141:X`), 1:1, or null. */
export function wrapHop(tokenIn: string, tokenOut: string, contracts: DexContracts): Hop | null {
  if (wrapConversionOf(tokenIn, tokenOut, contracts) === null) return null;
  return { dex: WRAP_DEX_ID, poolId: '', tokenIn, tokenOut, out: (a) => positive(a), in: (b) => positive(b), spot: { numerator: 1n, denominator: 1n } };
}

export const wrap: Dex = {
  id: WRAP_DEX_ID,
  contract: (contracts) => contracts.Wrap,
  activity: 'wrap',
  decode: decodeWrap,
  routing: {
    maxHops: { exactIn: 1, exactOut: 1 },
    // 1:1: nothing to slip.
    hasSlippage: false,
    directHop: wrapHop,
    helperSteps: (route, ctx) => {
      const { first, last } = endsOf(route);
      const conversion = wrapConversionOf(first.tokenIn, last.tokenOut, ctx.contracts);
      if (conversion?.kind === 'wrap') return outputStorageSteps(ctx.contracts.Wrap, ctx.trader, ctx.registered);
      if (conversion?.kind === 'inner_withdraw') return outputStorageSteps(conversion.tokenId, ctx.trader, ctx.registered);
      // A fresh exchange account has no tokens registered: register the one deposited.
      if (conversion?.kind === 'inner_deposit' && !ctx.registered(ctx.contracts.AmmA)) return ammARegistrationCalls(ctx.contracts.AmmA, ctx.trader, [conversion.tokenId]);
      return [];
    },
    calls: (route, amounts, ctx) => {
      const { first, last } = endsOf(route);
      const conversion = wrapConversionOf(first.tokenIn, last.tokenOut, ctx.contracts);
      if (conversion === null) throw new Error('Wrap route without a conversion');
      return wrapCalls(conversion, amounts.amountIn, ctx.contracts);
    },
  },
};
