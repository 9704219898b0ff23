// AmmDclA pool state on the writer's thread. The contract's storage layout is not public, so its pools are kept
// from its events, and a block's pool states depend on the states before it (dexes/amm-dcl-a/README.md). Blocks
// are decoded in parallel on workers; this stage then folds each block's DCL logs, in height order, through a book
// of the current states and adds the resulting `pool_state` events to the block's events. They go to the log like
// any other event, so a rebuild needs no book; the book is seeded from the tables where ingestion (or a replay)
// starts. Positions are not persisted: a merge of positions opened before the seed counts as an unapplied change.
import type { Kysely } from 'kysely';
import { applyDclLogs, ReceiptNumbering } from '../dexes/amm-dcl-a/decode.ts';
import { dclPoolStateFromJson, newDclPoolBook, type DclPoolBook } from '../dexes/amm-dcl-a/state.ts';
import type { DexContracts } from '../dexes/contracts.ts';
import type { Database } from '../db/schema.ts';
import type { DecodedBlock } from './decode.ts';
import { compareEvents, eventRowsText } from './event-rows.ts';

export class DclStage {
  private constructor(
    private readonly book: DclPoolBook,
    private readonly contractId: string,
  ) {}

  /** The book as of the latest indexed block, or as of the block before `from` (replay). */
  static async load(db: Kysely<Database>, contracts: DexContracts, from?: number): Promise<DclStage> {
    const rows =
      from === undefined
        ? await db.selectFrom('pools').select('state').where('dex', '=', 'AmmDclA').orderBy('pool_id').execute()
        : await db
            .selectFrom('pool_history')
            .select('state')
            .distinctOn('pool_id')
            .where('dex', '=', 'AmmDclA')
            .where('block_height', '<', from)
            .orderBy('pool_id')
            .orderBy('block_height', 'desc')
            .execute();
    return new DclStage(newDclPoolBook(rows.map((r) => dclPoolStateFromJson(r.state))), contracts.AmmDclA);
  }

  /** Adds the block's AmmDclA pool states to its events and rows, numbered after the events of their receipts. */
  apply(block: DecodedBlock): void {
    if (block.dclLogs.length === 0) return;
    const next = new Map<string, number>();
    for (const e of block.events) next.set(e.receiptId, Math.max(next.get(e.receiptId) ?? 0, e.index + 1));
    const states = applyDclLogs(this.book, block.dclLogs, this.contractId, new ReceiptNumbering(next));
    if (states.length === 0) return;
    for (const e of states) block.events.push(e);
    block.events.sort(compareEvents);
    const rows = eventRowsText(states);
    block.rows.events += rows.events;
    block.rows.transfers += rows.transfers;
  }
}
