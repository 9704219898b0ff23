// What the devnet's four stake models (stake-a.ts Meta Pool, stake-b.ts LiNEAR, stake-c.ts xRHEA, stake-d.ts rNEAR;
// stake-b.ts and stake-d.ts are linear-style.ts models) share: units, the near-sdk root key `STATE`, the staked
// tokens' NEP-148 metadata, and the devnet "epoch" at which staking rewards raise the exchange rate.
import type { TokenSpec } from './tokens.ts';
import type { World } from './world.ts';

export const NEAR = 10n ** 24n;
export const TGAS = 10n ** 12n;

/** near-sdk's root key: a contract's whole struct (or its leading fields, which is all the decoders read). */
export const STATE_KEY: Uint8Array = Buffer.from('STATE', 'utf8');

/** Blocks between two reward updates: the devnet's epoch (mainnet's is some 12 hours). */
export const EPOCH_BLOCKS = 100;

/** The staked tokens' metadata, as `ft_metadata` answers on mainnet (near/known-tokens.ts); the ids are the contracts'. */
export const STAKED_TOKEN_METADATA = {
  StakeA: { symbol: 'STNEAR', name: 'Staked NEAR', decimals: 24 },
  StakeB: { symbol: 'LINEAR', name: 'LiNEAR', decimals: 24 },
  StakeC: { symbol: 'xRHEA', name: 'xRHEA', decimals: 18 },
  StakeD: { symbol: 'rNEAR', name: 'rNEAR', decimals: 24 },
} as const satisfies Record<string, Omit<TokenSpec, 'contractId'>>;

/** RHEA, the token xRHEA stakes (`contracts.StakeCUnderlying`). */
export const RHEA_METADATA = { symbol: 'RHEA', name: 'Rhea', decimals: 18 } as const;

/**
 * When the next reward update is due. A model's `act` checks it first: the operator's update then takes the place
 * of a user action, so rewards land about every EPOCH_BLOCKS blocks.
 */
export class EpochClock {
  private nextHeight = 0;

  /** True once per epoch: the first call at or after the due height (the first epoch starts at the first call). */
  due(world: World): boolean {
    const height = world.chain.height;
    if (this.nextHeight === 0) this.nextHeight = height + EPOCH_BLOCKS;
    if (height < this.nextHeight) return false;
    this.nextHeight = height + EPOCH_BLOCKS;
    return true;
  }
}

/** One epoch's staking reward on `total`: 1 to 3 hundredths of a percent of it (roughly mainnet's 9-10% APY pace, sped up). */
export function epochReward(world: World, total: bigint): bigint {
  return (total * world.rng.bigint(1n, 3n)) / 10_000n;
}
