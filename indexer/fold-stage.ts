// Pool states that depend on the history before a block (`Dex.fold`: AmmDclA's book, whose contract's storage
// layout is not public), on the writer's thread. Blocks are decoded in parallel on workers, which also extract each
// folding DEX's inputs; this stage then folds them, in height order, through a book of the current states and adds
// the resulting `pool_state` events to the block's events. They go to the log like any other event, so a rebuild
// needs no book; each book is seeded from the tables where ingestion (or a replay) starts.
import type { Kysely } from 'kysely';
import type { DexContracts } from '../dexes/contracts.ts';
import type { Dex } from '../dexes/dex.ts';
import type { Database } from '../db/schema.ts';
import type { DecodedBlock } from './decode.ts';
import { compareEvents, eventRowsText, type DomainEvent } from './event-rows.ts';

export class FoldStage {
  private constructor(
    private readonly books: ReadonlyMap<string, { dex: Dex; book: unknown }>,
    private readonly contracts: DexContracts,
  ) {}

  /** Each folding DEX's book as of the latest indexed block, or as of the block before `from` (replay). */
  static async load(db: Kysely<Database>, dexes: readonly Dex[], contracts: DexContracts, from?: number): Promise<FoldStage> {
    const books = new Map<string, { dex: Dex; book: unknown }>();
    for (const dex of dexes) {
      if (dex.fold === undefined) continue;
      const rows =
        from === undefined
          ? await db.selectFrom('pools').select('state').where('dex', '=', dex.id).orderBy('pool_id').execute()
          : await db
              .selectFrom('pool_history')
              .select('state')
              .distinctOn('pool_id')
              .where('dex', '=', dex.id)
              .where('block_height', '<', from)
              .orderBy('pool_id')
              .orderBy('block_height', 'desc')
              .execute();
      books.set(dex.id, { dex, book: dex.fold.book(rows.map((r) => r.state)) });
    }
    return new FoldStage(books, contracts);
  }

  /**
   * Adds the block's folded pool states to its events and rows, numbered after the events of their receipts
   * (`next`: each receipt's next index, when the block's events are in the log rather than here: backfill.ts).
   */
  apply(block: DecodedBlock, next = new Map<string, number>()): void {
    if (block.foldInputs.length === 0) return;
    for (const e of block.events) next.set(e.receiptId, Math.max(next.get(e.receiptId) ?? 0, e.index + 1));
    const states: DomainEvent[] = [];
    for (const { dex, inputs } of block.foldInputs) {
      const entry = this.books.get(dex);
      if (entry !== undefined) states.push(...entry.dex.fold!.apply(entry.book, inputs, this.contracts, next));
    }
    if (states.length === 0) return;
    for (const e of states) block.events.push(e);
    block.events.sort(compareEvents);
    const rows = eventRowsText(states);
    block.rows.events += rows.events;
    block.rows.transfers += rows.transfers;
  }
}
