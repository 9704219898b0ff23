// AmmA: Ref Finance's classic exchange (`v2.ref-finance.near`): simple, stable and rated pools, routed exact in over
// up to 3 pools and split across pool-disjoint paths, or over its simple pools by the optimal-flow router (a plan
// of as many actions as the transaction's gas allows); its rated-token rates live in the event log (`rates` events).
import type { Dex } from '../dex.ts';
import { outputStorageSteps } from '../instructions.ts';
import { decodeAmmA } from './decode.ts';
import { AMM_A_DEX_ID } from './events.ts';
import { ammAHops, ratesFromPayload } from './hops.ts';
import { AMM_A_ACTION_BURN, ammAMaxActions, ammASwapCalls, ammASwapFits } from './instructions.ts';
import { ammABootstrap } from './bootstrap.ts';

export const ammA: Dex = {
  id: AMM_A_DEX_ID,
  contract: (contracts) => contracts.AmmA,
  activity: 'trade',
  decode: (block, contracts) => decodeAmmA(block, { contractId: contracts.AmmA }),
  // New rates move every rated pool's quotes, though no pool was written.
  bootstrap: ammABootstrap,
  ledger: { eventKind: 'rates', read: 'latest', parse: ratesFromPayload, affects: (state) => state.kind === 'rated' },
  routing: {
    maxHops: { exactIn: 3, exactOut: 0 },
    splits: true,
    flow: {
      maxActions: ({ maxTransactionGas }) => ammAMaxActions(maxTransactionGas),
      fits: (paths, { maxTransactionGas, referral }) => ammASwapFits(paths, maxTransactionGas, referral),
      actionBurn: AMM_A_ACTION_BURN,
    },
    tradesWnear: true,
    hasSlippage: true,
    hops: ammAHops,
    // The output arrives by ft_transfer (the last path ends in it); intermediate tokens stay inside the exchange.
    helperSteps: (route, ctx) => outputStorageSteps(route.paths.at(-1)!.hops.at(-1)!.tokenOut, ctx.trader, ctx.registered),
    // Exact in only: each path takes its part and wants its own worst case (0 for a chain ending before the output).
    calls: (route, amounts, ctx) =>
      ammASwapCalls({
        contractId: ctx.contracts.AmmA,
        paths: route.paths.map((p, i) => ({
          hops: p.hops.map((h) => ({ poolId: Number(h.poolId), tokenIn: h.tokenIn, tokenOut: h.tokenOut })),
          amountIn: p.amounts[0]!,
          minAmountOut: amounts.pathWorst[i]!,
        })),
        referrerId: ctx.referrerId,
        skipUnwrapNear: true,
      }),
  },
};
