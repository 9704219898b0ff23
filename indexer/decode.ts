// Raw block -> what the pipeline writes: the block's identity and its domain events. Pure apart from reading the
// raw block's files; runs on a decode worker (decode-pool.ts) or inline.
import type { Block } from '../near/block.ts';
import { decodeBlock } from '../near/decode.ts';
import type { DomainEvent } from './event-rows.ts';
import { loadRawBlock } from './sources/raw.ts';
import type { RawBlock } from './sources/source.ts';

export interface DecodedBlock {
  height: number;
  hash: string;
  prevHash: string;
  timestampMs: number;
  events: DomainEvent[];
}

/** Every decoder's events for one block: the chain standards now, each DEX's decoder with the DEX issue. */
export function decodeEvents(block: Block): DomainEvent[] {
  return decodeBlock(block);
}

export async function decodeRaw(raw: RawBlock): Promise<DecodedBlock> {
  const block = await loadRawBlock(raw);
  return { height: block.height, hash: block.hash, prevHash: block.prevHash, timestampMs: block.timestampMs, events: decodeEvents(block) };
}
