// The registry: every DEX the service knows, in the order the API lists them (and breaks ranking ties by). A new DEX
// is a new folder exporting its `Dex` (dex.ts) and one line here; nothing outside dexes/ and devnet/ names a DEX id.
import type { UndecodedEvent } from '../near/events.ts';
import { ammA } from './amm-a/index.ts';
import type { AmmAEvent } from './amm-a/events.ts';
import { ammC } from './amm-c/index.ts';
import { ammDclA } from './amm-dcl-a/index.ts';
import type { Dex } from './dex.ts';
import type { DexEvent } from './events.ts';
import { launch } from './launch/index.ts';
import { quoteA } from './quote-a/index.ts';
import { stakeA } from './stake-a/index.ts';
import type { StakeANslpEvent } from './stake-a/events.ts';
import { stakeB } from './stake-b/index.ts';
import { stakeC } from './stake-c/index.ts';
import { stakeD } from './stake-d/index.ts';
import { wrap } from './wrap/index.ts';

/** The shared vocabulary, the events some DEXes add to it, and what a decoder could not read. */
export type DecodedDexEvent = DexEvent | AmmAEvent | StakeANslpEvent | UndecodedEvent;

export const DEXES: readonly Dex[] = [ammA, ammDclA, ammC, quoteA, launch, wrap, stakeA, stakeB, stakeC, stakeD];

/** The DEX ids, in registry order. */
export const DEX_IDS: readonly string[] = DEXES.map((d) => d.id);

/** A registry's DEX of this id, or undefined. */
export function dexOf(id: string, dexes: readonly Dex[] = DEXES): Dex | undefined {
  return dexes.find((d) => d.id === id);
}
