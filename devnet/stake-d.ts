// StakeD (rNEAR, `contracts.StakeD` = lst.rhealab.near, a LiNEAR derivative) on the devnet, a linear-style stake
// (linear-style.ts holds the model, its rewards and simplifications). Logs as dexes/stake-d/README.md gives them
// ("Exact formats"): `rhea_lst` 1.0.0 `deposit` event, `ft_mint`, `stake` event, then
// `Contract total staked balance is <N>. Total number of shares <S>`; its near-sdk 5 build writes every key of its
// events sorted (`{"data":[{"amount":..,"validator_id":..}],"event":..,"standard":..,"version":..}`, as the
// source's own unit test asserts: dexes/stake-d/README.md).
// Amounts with the model's own `internal_stake` (stake-math.ts `rnearInternalStake`, from the rNEAR source's
// contracts/lst/src/account.rs and lib.rs): rNEAR charges and adds the whole deposit. Its storage layout is unknown (its
// decoder reads the totals line only), so the devnet writes no storage for it and its pools row shows a reward at
// the next stake.
import { LinearStyleDevnet } from './linear-style.ts';
import { rnearInternalStake } from './stake-math.ts';
import type { World } from './world.ts';

export class StakeDDevnet extends LinearStyleDevnet {
  readonly id = 'StakeD' as const;

  constructor() {
    // `rhea_lst` 1.0.0: the rNEAR source's event.rs (S, see dexes/stake-d/README.md).
    super({
      id: 'StakeD',
      standard: 'rhea_lst',
      version: '1.0.0',
      sortedKeys: true,
      stakeMath: rnearInternalStake,
      stakeEventFirst: false,
      writesState: false,
      genesisRewardPercent: 2n,
    });
  }

  protected contractOf(world: World): string {
    return world.contracts.StakeD;
  }
}
