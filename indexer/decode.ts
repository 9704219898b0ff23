// Raw block -> what the pipeline writes: the block's identity and its domain events. Pure apart from reading the
// raw block's files; runs on a decode worker (decode-pool.ts) or inline.
import type { Block } from '../near/block.ts';
import { MAINNET_CONTRACTS, type DexContracts } from '../dexes/contracts.ts';
import type { Dex } from '../dexes/dex.ts';
import { DEXES } from '../dexes/index.ts';
import { decodeBlock } from '../near/decode.ts';
import { compareEvents, eventRowsText, type DomainEvent, type EventRowsText } from './event-rows.ts';
import { loadRawBlock } from './sources/raw.ts';
import type { RawBlock } from './sources/source.ts';

export interface DecodedBlock {
  height: number;
  hash: string;
  prevHash: string;
  timestampMs: number;
  /** Sorted by compareEvents. */
  events: DomainEvent[];
  /** The COPY text of the events' rows, rendered here, beside the decoding, rather than on the writer's thread. */
  rows: EventRowsText;
  /** The inputs of each DEX whose pool states need the states before the block (`Dex.fold`): folded on the
   * writer's thread, in height order (fold-stage.ts). */
  foldInputs: Array<{ dex: string; inputs: unknown[] }>;
}

/**
 * Every decoder's events for one block: the chain standards, then each DEX. Each decoder numbers its own events
 * per receipt from 0; here a DEX's events of a receipt are numbered after the ones before them, so
 * (block, receipt, index) stays the log's key.
 */
export function decodeEvents(block: Block, contracts: DexContracts = MAINNET_CONTRACTS, dexes: readonly Dex[] = DEXES): DomainEvent[] {
  const events: DomainEvent[] = decodeBlock(block);
  const next = new Map<string, number>();
  for (const e of events) next.set(e.receiptId, Math.max(next.get(e.receiptId) ?? 0, e.index + 1));
  for (const dex of dexes) {
    const decoded = dex.decode(block, contracts);
    // Most DEXes find nothing in a block: the copy of every receipt's count is for those that do.
    if (decoded.length === 0) continue;
    const base = new Map(next);
    for (const e of decoded) {
      e.index += base.get(e.receiptId) ?? 0;
      next.set(e.receiptId, Math.max(next.get(e.receiptId) ?? 0, e.index + 1));
      events.push(e);
    }
  }
  attachReceipts(block, events);
  return events;
}

/** Gives every swap event the receipts around its own: its creator when the block holds it, and its children. */
function attachReceipts(block: Block, events: DomainEvent[]): void {
  const swaps = events.filter((e) => e.kind === 'swap');
  if (swaps.length === 0) return;
  const parent = new Map<string, string>();
  const children = new Map<string, string[]>();
  for (const shard of block.shards) {
    for (const outcome of shard.receiptOutcomes) {
      children.set(outcome.receiptId, outcome.receiptIds);
      for (const child of outcome.receiptIds) parent.set(child, outcome.receiptId);
    }
  }
  for (const swap of swaps) {
    const before = parent.get(swap.receiptId);
    swap.receipts = [...(before === undefined ? [] : [before]), swap.receiptId, ...(children.get(swap.receiptId) ?? [])];
  }
}

export async function decodeRaw(raw: RawBlock, contracts: DexContracts = MAINNET_CONTRACTS, dexes: readonly Dex[] = DEXES): Promise<DecodedBlock> {
  const block = await loadRawBlock(raw);
  const events = decodeEvents(block, contracts, dexes).sort(compareEvents);
  const foldInputs: DecodedBlock['foldInputs'] = [];
  for (const dex of dexes) {
    const inputs = dex.fold?.inputs(block, contracts);
    if (inputs?.length) foldInputs.push({ dex: dex.id, inputs });
  }
  return {
    height: block.height,
    hash: block.hash,
    prevHash: block.prevHash,
    timestampMs: block.timestampMs,
    events,
    rows: eventRowsText(events),
    foldInputs,
  };
}
