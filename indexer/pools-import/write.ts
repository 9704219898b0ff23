// Writing an import: its pool_state events enter the log at (H, `import:<dex>`, i) like any other event, and
// the projections follow, in one transaction. The checkpoint is not touched: the indexer starts where its
// checkpoint or --from says (after an import at H: `dexlake index --from H+1`).
import type { Db } from '../../db/connect.ts';
import { rebuildProjections } from '../replay.ts';
import { appendToLog, applyProjections, inLogTransaction, notify, notifyPayload, prepareProjections } from '../store.ts';
import type { Dex } from '../../dexes/dex.ts';
import type { PoolStateEvent } from '../../dexes/events.ts';
import { importReceiptId } from './events.ts';

export interface ImportWritten {
  /** Events of an earlier import at the same height that this one replaced. */
  replaced: number;
  /** Whether every projection was re-derived from the log (see writeImport). */
  rederived: boolean;
}

/**
 * Replaces the events of any earlier import at `height` with `events`. When the log holds nothing at or above
 * `height` (the usual bootstrap), the new events are the log's last and are projected like a batch; otherwise
 * (a re-import, or an import below indexed blocks) every projection is re-derived from the log, as `rebuild` does,
 * so later events keep overriding the imported state and a replaced import leaves nothing behind.
 */
export async function writeImport(db: Db, dex: Dex, height: number, events: readonly PoolStateEvent[]): Promise<ImportWritten> {
  if (events.some((e) => e.blockHeight !== height)) throw new Error(`writeImport: every event must be at height ${height}`);
  return inLogTransaction(db, async (tx) => {
    const deleted = await tx.kysely.deleteFrom('events').where('block_height', '=', height).where('receipt_id', '=', importReceiptId(dex)).executeTakeFirst();
    const replaced = Number(deleted.numDeletedRows);
    const later = await tx.kysely.selectFrom('events').select('block_height').where('block_height', '>=', height).limit(1).executeTakeFirst();
    await appendToLog(tx, [], [...events]);
    const rederived = replaced > 0 || later !== undefined;
    if (rederived) {
      await rebuildProjections(tx);
      await notify(tx.kysely, JSON.stringify({ height, all: true }));
    } else {
      const changed = await applyProjections(tx, prepareProjections([...events]));
      await notify(tx.kysely, notifyPayload(height, changed.tokens, changed.pools));
    }
    return { replaced, rederived };
  });
}

/** The timestamp of block `height` when the log has it, else null. */
export async function indexedBlockTimestampMs(db: Db, height: number): Promise<number | null> {
  const row = await db.kysely.selectFrom('blocks').select('timestamp_ms').where('height', '=', height).executeTakeFirst();
  return row ? Number(row.timestamp_ms) : null;
}
