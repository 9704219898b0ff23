// StakeC: xRHEA (`xtoken.rhealab.near`): RHEA -> xRHEA by `ft_transfer_call` with the stake msg; the unstake is not
// instant, so only the stake is routed. Bootstrapped from its views, approximately (its source is not public).
import { endsOf, type Dex } from '../dex.ts';
import { outputStorageSteps } from '../instructions.ts';
import { stakeOnlyHops } from '../stake/hops.ts';
import { stakeCBootstrap } from './bootstrap.ts';
import { decodeStakeC } from './decode.ts';
import { xrheaStakeCalls } from './instructions.ts';
import { xrheaStakeIn, xrheaStakeOut } from './math.ts';

export const stakeC: Dex = {
  id: 'StakeC',
  contract: (contracts) => contracts.StakeC,
  activity: 'stake',
  decode: decodeStakeC,
  bootstrap: stakeCBootstrap,
  routing: {
    maxHops: { exactIn: 1, exactOut: 1 },
    hasSlippage: true,
    hops: stakeOnlyHops({ out: xrheaStakeOut, in: xrheaStakeIn }),
    // xRHEA arrives by ft_transfer.
    helperSteps: (route, ctx) => outputStorageSteps(endsOf(route).last.tokenOut, ctx.trader, ctx.registered),
    calls: (route, amounts) => {
      const { first } = endsOf(route);
      return xrheaStakeCalls(first.tokenIn, first.poolId, amounts.sent);
    },
  },
};
