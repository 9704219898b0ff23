// StakeD: rNEAR (`lst.rhealab.near`), a LiNEAR-style contract: NEAR -> rNEAR at the rate of its totals log line;
// unstaking is delayed, so only the stake is routed. Bootstrapped from `get_summary`, the contract's totals now.
import { endsOf, type Dex } from '../dex.ts';
import { readSummaryRate } from '../stake/bootstrap.ts';
import { stakeOnlyHops } from '../stake/hops.ts';
import { depositAndStakeCalls } from '../stake/instructions.ts';
import { decodeStakeD } from './decode.ts';
import { rnearStakeIn, rnearStakeOut } from './math.ts';

export const stakeD: Dex = {
  id: 'StakeD',
  contract: (contracts) => contracts.StakeD,
  activity: 'stake',
  decode: decodeStakeD,
  bootstrap: { read: (at) => readSummaryRate(at, 'StakeD', at.contracts.StakeD) },
  routing: {
    maxHops: { exactIn: 1, exactOut: 1 },
    hasSlippage: true,
    hops: stakeOnlyHops({ out: rnearStakeOut, in: rnearStakeIn }),
    // It mints to the caller's own account in the staking contract.
    helperSteps: () => [],
    calls: (route, amounts) => depositAndStakeCalls(endsOf(route).first.poolId, amounts.sent),
  },
};
