// The registry: every DEX id with its decoder. A new DEX is a new folder and one line here.
import type { Block } from '../near/block.ts';
import type { UndecodedEvent } from '../near/events.ts';
import { decodeAmmA } from './amm-a/decode.ts';
import { decodeAmmC } from './amm-c/decode.ts';
import { decodeAmmDclA } from './amm-dcl-a/decode.ts';
import { decodeLaunch } from './launch/decode.ts';
import { decodeQuoteA } from './quote-a/decode.ts';
import { decodeStakeA } from './stake-a/decode.ts';
import { decodeStakeB } from './stake-b/decode.ts';
import { decodeStakeC } from './stake-c/decode.ts';
import { decodeStakeD } from './stake-d/decode.ts';
import { decodeWrap } from './wrap/decode.ts';
import type { AmmAEvent } from './amm-a/events.ts';
import type { DexContracts } from './contracts.ts';
import type { DexEvent, DexId } from './events.ts';
import type { StakeANslpEvent } from './stake-a/events.ts';

/** The shared vocabulary, the events some DEXes add to it, and what a decoder could not read. */
export type DecodedDexEvent = DexEvent | AmmAEvent | StakeANslpEvent | UndecodedEvent;

export interface DexDecoder {
  id: DexId;
  /** Block -> this DEX's events, numbered per receipt from 0. Pure. */
  decode(block: Block, contracts: DexContracts): DecodedDexEvent[];
}

export const DEX_DECODERS: readonly DexDecoder[] = [
  { id: 'AmmA', decode: (block, c) => decodeAmmA(block, { contractId: c.AmmA }) },
  // Swaps and liquidity only: its pool state needs the previous state (see amm-dcl-a/README.md), kept by the indexer.
  { id: 'AmmDclA', decode: (block, c) => decodeAmmDclA(block, c) },
  { id: 'AmmC', decode: decodeAmmC },
  { id: 'QuoteA', decode: decodeQuoteA },
  { id: 'Launch', decode: decodeLaunch },
  { id: 'Wrap', decode: decodeWrap },
  { id: 'StakeA', decode: decodeStakeA },
  { id: 'StakeB', decode: decodeStakeB },
  { id: 'StakeC', decode: decodeStakeC },
  { id: 'StakeD', decode: decodeStakeD },
];
