// StakeD: rNEAR (`lst.rhealab.near`), a LiNEAR-style contract: NEAR -> rNEAR at the rate of its totals log line;
// unstaking is delayed, so only the stake is routed.
import { endsOf, type Dex } from '../dex.ts';
import { stakeOnlyHops } from '../stake/hops.ts';
import { depositAndStakeCalls } from '../stake/instructions.ts';
import { decodeStakeD } from './decode.ts';
import { rnearStakeIn, rnearStakeOut } from './math.ts';

export const stakeD: Dex = {
  id: 'StakeD',
  contract: (contracts) => contracts.StakeD,
  activity: 'stake',
  decode: decodeStakeD,
  routing: {
    maxHops: { exactIn: 1, exactOut: 1 },
    hasSlippage: true,
    hops: stakeOnlyHops({ out: rnearStakeOut, in: rnearStakeIn }),
    // It mints to the caller's own account in the staking contract.
    helperSteps: () => [],
    calls: (route, amounts) => depositAndStakeCalls(endsOf(route).first.poolId, amounts.sent),
  },
};
