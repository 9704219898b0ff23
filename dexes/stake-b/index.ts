// StakeB: LiNEAR (`linear-protocol.near`): NEAR -> LiNEAR at the rate of its STATE; unstaking is delayed, so only
// the stake is routed. Bootstrapped from `get_summary`, which gives STATE's two totals exactly.
import { endsOf, type Dex } from '../dex.ts';
import { readSummaryRate } from '../stake/bootstrap.ts';
import { stakeOnlyHops } from '../stake/hops.ts';
import { depositAndStakeCalls } from '../stake/instructions.ts';
import { decodeStakeB } from './decode.ts';
import { linearStakeIn, linearStakeOut } from './math.ts';

export const stakeB: Dex = {
  id: 'StakeB',
  contract: (contracts) => contracts.StakeB,
  activity: 'stake',
  decode: decodeStakeB,
  bootstrap: { read: (at) => readSummaryRate(at, 'StakeB', at.contracts.StakeB) },
  routing: {
    maxHops: { exactIn: 1, exactOut: 1 },
    hasSlippage: true,
    hops: stakeOnlyHops({ out: linearStakeOut, in: linearStakeIn }),
    // It mints to the caller's own account in the staking contract.
    helperSteps: () => [],
    calls: (route, amounts) => depositAndStakeCalls(endsOf(route).first.poolId, amounts.sent),
  },
};
