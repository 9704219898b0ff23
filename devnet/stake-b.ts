// StakeB (LiNEAR, `contracts.StakeB` = linear-protocol.near) on the devnet, a linear-style stake (linear-style.ts
// holds the model, its rewards and simplifications). Logs as dexes/stake-b/README.md gives them ("Exact formats"):
// `linear` 1.0.1 `deposit` event, `stake` event, NEP-141 `ft_mint` (memo "stake"), then
// `Contract total staked balance is <N>. Total number of shares <S>`.
// Amounts with the model's own `internal_stake` (stake-math.ts `linearInternalStake`, from LiNEAR's
// contracts/linear/src/internal.rs): LiNEAR charges floor(shares·N/S) of the deposit (the few yocto left stay the
// account's unstaked balance) and adds ceil(shares·N/S) to N. It writes `STATE` (its leading fields: owner,
// managers, treasury, total_share_amount, total_staked_near_amount) on every change, so its pools row follows each
// reward at once.
import { LinearStyleDevnet } from './linear-style.ts';
import { linearInternalStake } from './stake-math.ts';
import type { World } from './world.ts';

export class StakeBDevnet extends LinearStyleDevnet {
  readonly id = 'StakeB' as const;

  constructor() {
    super({
      id: 'StakeB',
      standard: 'linear',
      version: '1.0.1',
      sortedKeys: false,
      stakeMath: linearInternalStake,
      stakeEventFirst: true,
      writesState: true,
      genesisRewardPercent: 30n,
    });
  }

  protected contractOf(world: World): string {
    return world.contracts.StakeB;
  }
}
