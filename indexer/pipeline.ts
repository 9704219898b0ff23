// The ingestion loop: blocks from a source, decoded into events, written a batch at a time. Batches grow while
// the source has blocks ready (catching up) and shrink to one block when the next one is not there yet (the
// chain head), so throughput and latency both come for free. While one batch commits, the next is read and
// decoded: PostgreSQL and the decoder work at the same time, on different cores.
import type { Db } from '../db/connect.ts';
import { MAINNET_CONTRACTS, type DexContracts } from '../dexes/contracts.ts';
import type { Dex } from '../dexes/dex.ts';
import { DEXES } from '../dexes/index.ts';
import { buildIndexes, deferredIndexes, dropIndexes } from './bulk-load.ts';
import { FoldStage } from './fold-stage.ts';
import { createDecodePool, decodedBlocks } from './decode-pool.ts';
import { eventRowsText, type DomainEvent } from './event-rows.ts';
import type { Progress } from './progress.ts';
import type { Enrich } from './token-metadata.ts';
import type { BlockSource } from './sources/source.ts';
import type { UndecodedCount } from './projections/undecoded.ts';
import { prepareBatch, readCheckpoint, writeBatch, type BlockRow, type Checkpoint } from './store.ts';

export interface BatchLimits {
  maxBlocks: number;
  maxEvents: number;
  /** Flush when the next block has not arrived after this long. */
  idleMs: number;
}

export const DEFAULT_LIMITS: BatchLimits = { maxBlocks: 100, maxEvents: 20_000, idleMs: 50 };

export interface IngestOptions {
  db: Db;
  source: BlockSource;
  from?: number;
  to?: number;
  signal: AbortSignal;
  limits?: Partial<BatchLimits>;
  progress?: Progress;
  /** The network's DEX contracts (default: mainnet's, which the devnet uses too). */
  contracts?: DexContracts;
  /** The DEX registry (default: dexes/index.ts's); another one decodes on this thread (`workers: 0`). */
  dexes?: readonly Dex[];
  /** Decode worker threads (default: one per spare core; 0 decodes on this thread). */
  workers?: number;
  /** Extra events for a batch before it is written (token metadata over RPC). */
  enrich?: Enrich;
  /** Called after each committed batch with its last height, its size and what its decoders could not read. */
  onBatch?: (height: number, blocks: number, events: number, undecoded: readonly UndecodedCount[]) => void;
  /**
   * Bulk-load mode (bulk-load.ts): while more than `distance` blocks behind the end (`to`, or the head the source
   * knows), the history tables' indexes are dropped; they are built within that distance, or at the end of the run.
   * Without it, indexes an earlier run left missing are built after the first batch.
   */
  bulkLoad?: { distance: number };
  /** Told when the indexes missing change (and at the start, when some are): for logs and the status port. */
  onBulkLoad?: (state: BulkLoadState) => void;
}

export interface BulkLoadState {
  /** `resumed`: an earlier run left them missing. */
  change: 'resumed' | 'dropped' | 'built';
  /** The indexes missing now. */
  missing: readonly string[];
  /** How long the drop or the build took. */
  ms: number;
}

export interface IngestResult {
  blocks: number;
  events: number;
  height: number | undefined;
}

/** The chain the source gave does not continue the indexed one. */
export class ContinuityError extends Error {}

/**
 * Ingests from the source until `to`, the end of the source, or the signal. Resumes after the checkpoint; blocks
 * at or below it are skipped (re-ingesting a block already in the log changes nothing).
 */
export async function ingest(options: IngestOptions): Promise<IngestResult> {
  const { db, source, signal } = options;
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  let last: Checkpoint | undefined = await readCheckpoint(db.kysely);
  let missing = await deferredIndexes(db);
  if (missing.length) options.onBulkLoad?.({ change: 'resumed', missing, ms: 0 });
  /** Drops or builds the bulk-load indexes as the distance to the end says; between batches (on the write chain). */
  const bulkLoad = async (height: number | undefined): Promise<void> => {
    // A stop is not the end of the run: the next run decides.
    if (signal.aborted) return;
    const end = Math.min(options.to ?? Infinity, source.stats?.()?.head ?? Infinity);
    // Unknown (no end in sight) counts as near: the mode is for a backfill whose end is known.
    const far = options.bulkLoad !== undefined && height !== undefined && end - height > options.bulkLoad.distance && end < Infinity;
    if (far === missing.length > 0) return;
    const started = performance.now();
    if (far) missing = await dropIndexes(db);
    else missing = (await buildIndexes(db), []);
    options.onBulkLoad?.({ change: far ? 'dropped' : 'built', missing, ms: performance.now() - started });
  };
  const from = options.from ?? (last ? last.height + 1 : undefined);
  const result: IngestResult = { blocks: 0, events: 0, height: last?.height };

  let blocks: BlockRow[] = [];
  let events: DomainEvent[] = [];
  let eventRows: string[] = [];
  let transferRows: string[] = [];
  // At most one batch in flight; its failure is kept and thrown by the next flush, so none is ever unhandled.
  let writing: Promise<void> = Promise.resolve();
  let failure: { error: unknown } | undefined;
  const rethrow = () => {
    if (failure) throw failure.error;
  };
  const flush = async () => {
    rethrow();
    if (!blocks.length) return;
    const batch = { blocks, events, rows: { events: eventRows, transfers: transferRows } };
    blocks = [];
    events = [];
    eventRows = [];
    transferRows = [];
    if (options.enrich) {
      const extra = await options.enrich(batch.events);
      const rows = eventRowsText(extra);
      for (const e of extra) batch.events.push(e);
      batch.rows.events.push(rows.events);
      batch.rows.transfers.push(rows.transfers);
    }
    // Prepared while the previous batch is still being written: only the database work waits for it.
    const prepared = prepareBatch(batch.blocks, batch.events, batch.rows);
    await writing;
    rethrow();
    writing = writeBatch(db, prepared).then(
      () => {
        const height = batch.blocks.at(-1)!.height;
        result.blocks += batch.blocks.length;
        result.events += batch.events.length;
        result.height = height;
        options.progress?.update(height, batch.blocks.length, batch.events.length);
        options.onBatch?.(height, batch.blocks.length, batch.events.length, prepared.changes.undecoded.counts);
        return bulkLoad(height);
      },
    ).catch((error: unknown) => void (failure = { error }));
  };
  /** Writes what is pending and waits for it. */
  const drain = async () => {
    await flush();
    await writing;
    rethrow();
  };

  const contracts = options.contracts ?? MAINNET_CONTRACTS;
  const dexes = options.dexes ?? DEXES;
  const folds = await FoldStage.load(db.kysely, dexes, contracts);
  const pool = createDecodePool(options.workers ?? (dexes === DEXES ? undefined : 0), contracts, dexes);
  const iterator = decodedBlocks(source, { from, to: options.to }, signal, pool)[Symbol.asyncIterator]();
  try {
    let pending = iterator.next();
    for (;;) {
      // Waiting on the source (not on a block being decoded) means the chain head: write what is pending soon.
      const next = blocks.length && pool.inFlight() === 0 ? await raceIdle(pending, limits.idleMs) : await pending;
      if (next === IDLE) {
        await drain();
        continue;
      }
      if (next.done || signal.aborted) break;
      pending = iterator.next();
      const block = next.value;
      if (last && block.height <= last.height) continue;
      if (last && !source.sparse && block.prevHash !== last.hash) {
        throw new ContinuityError(
          `block ${block.height} (${block.hash}) has prev_hash ${block.prevHash}, but the last indexed block ${last.height} has hash ${last.hash}: ` +
            `the source skipped blocks or is on another chain; re-index with \`dexlake replay\` or start elsewhere with --from`,
        );
      }
      folds.apply(block);
      blocks.push({
        height: block.height,
        hash: block.hash,
        prevHash: block.prevHash,
        timestampMs: block.timestampMs,
        gapBefore: last ? block.height - last.height - 1 : 0,
      });
      for (const event of block.events) events.push(event);
      eventRows.push(block.rows.events);
      transferRows.push(block.rows.transfers);
      last = { height: block.height, hash: block.hash };
      if (blocks.length >= limits.maxBlocks || events.length >= limits.maxEvents) await flush();
    }
    await drain();
    // The end of a bounded run (or of the source): nothing is left to load in bulk.
    if (!signal.aborted && missing.length) await bulkLoad(undefined);
  } finally {
    await writing;
    await iterator.return?.(undefined);
    await pool.close();
  }
  return result;
}

const IDLE = Symbol('idle');

function raceIdle<T>(pending: Promise<T>, ms: number): Promise<T | typeof IDLE> {
  let timer: NodeJS.Timeout | undefined;
  const idle = new Promise<typeof IDLE>((resolve) => (timer = setTimeout(() => resolve(IDLE), ms)));
  return Promise.race([pending, idle]).finally(() => clearTimeout(timer));
}
