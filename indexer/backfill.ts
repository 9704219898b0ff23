// Parallel backfill: a height range split into parts that separate processes (or machines sharing one PostgreSQL)
// ingest at the same time, then one merge. A range worker reads, decodes and appends its blocks and their events to
// the log, and their `transfers` rows (a function of the events alone), with its own checkpoint (a row of
// `backfill_ranges`), one transaction per batch. What needs the history before its range is left for the merge: the
// folding DEXes' pool states (fold-stage.ts: their inputs are kept in `backfill_fold_inputs`), each range's first
// `gap_before`, and every other projection. The merge, once every range is done, walks the log in height order as a
// sequential run would: it folds the kept inputs into `pool_state` events, applies the events to the projections
// (replay.ts projectLog) and advances the indexer's checkpoint, a chunk of blocks per transaction, so a merge that
// stops resumes where it committed. The tables end as one sequential run leaves them (test/backfill.test.ts
// compares every table's digest).
import { serialize, deserialize } from 'node:v8';
import type pg from 'pg';
import { inTransaction, type Db } from '../db/connect.ts';
import { copyRows } from '../db/copy.ts';
import { MAINNET_CONTRACTS, type DexContracts } from '../dexes/contracts.ts';
import type { Dex } from '../dexes/dex.ts';
import { DEXES } from '../dexes/index.ts';
import type { DecodedBlock } from './decode.ts';
import { createDecodePool, decodedBlocks } from './decode-pool.ts';
import { EVENT_COLUMNS, TRANSFER_COLUMNS } from './event-rows.ts';
import { FoldStage } from './fold-stage.ts';
import { ensurePartitions } from './partitions.ts';
import type { Progress } from './progress.ts';
import { projectLog } from './replay.ts';
import type { BlockSource } from './sources/source.ts';
import { notify, readCheckpoint, saveCheckpoint } from './store.ts';

export interface HeightRange {
  from: number;
  /** Inclusive. */
  to: number;
}

/** [from, to] in `parts` consecutive ranges, as equal as heights allow (the first ones one longer). */
export function splitRange(from: number, to: number, parts: number): HeightRange[] {
  if (!Number.isInteger(parts) || parts < 1) throw new Error(`backfill: ${parts} parts: expected a positive integer`);
  if (from > to) throw new Error(`backfill: --from ${from} is above --to ${to}`);
  const total = to - from + 1;
  if (parts > total) throw new Error(`backfill: ${parts} parts of ${total} heights: expected at most one part a height`);
  const ranges: HeightRange[] = [];
  let start = from;
  for (let i = 0; i < parts; i++) {
    const size = Math.floor(total / parts) + (i < total % parts ? 1 : 0);
    ranges.push({ from: start, to: start + size - 1 });
    start += size;
  }
  return ranges;
}

/** `i/N` (1-based, as `--range` takes it) into i and N. */
export function parseRangeSpec(spec: string): { index: number; parts: number } {
  const m = /^(\d+)\/(\d+)$/.exec(spec);
  const index = Number(m?.[1]);
  const parts = Number(m?.[2]);
  if (!m || parts < 1 || index < 1 || index > parts) throw new Error(`--range ${spec}: expected i/N with 1 <= i <= N`);
  return { index, parts };
}

interface RangeRow extends HeightRange {
  height: number | null;
  hash: string | null;
  done: boolean;
}

export async function readRanges(db: Db | pg.ClientBase): Promise<RangeRow[]> {
  const client = 'pool' in db ? db.pool : db;
  const { rows } = await client.query<{ from_height: string; to_height: string; height: string | null; hash: string | null; done: boolean }>(
    'select from_height, to_height, height, hash, done from backfill_ranges order by from_height',
  );
  return rows.map((r) => ({ from: Number(r.from_height), to: Number(r.to_height), height: r.height === null ? null : Number(r.height), hash: r.hash, done: r.done }));
}

/**
 * Records the split (every range of it, so the merge knows what to wait for), refusing one that overlaps another
 * split's ranges or starts at or below the indexer's checkpoint. Every worker of a split records the same rows.
 */
export async function planBackfill(db: Db, ranges: readonly HeightRange[]): Promise<void> {
  await inTransaction(db, async ({ client, kysely }) => {
    // One planner at a time: two workers of one split starting together see each other's rows.
    await client.query('select pg_advisory_xact_lock(hashtext($1))', ['dexlake backfill']);
    const checkpoint = await readCheckpoint(kysely);
    if (checkpoint && ranges[0]!.from <= checkpoint.height) {
      throw new Error(`backfill: --from ${ranges[0]!.from} is at or below the indexer's checkpoint ${checkpoint.height}: start after it`);
    }
    const existing = await readRanges(client);
    const same = (a: HeightRange, b: HeightRange) => a.from === b.from && a.to === b.to;
    if (existing.length && (existing.length !== ranges.length || existing.some((r, i) => !same(r, ranges[i]!)))) {
      const show = (rs: readonly HeightRange[]) => rs.map((r) => `${r.from}-${r.to}`).join(', ');
      throw new Error(`backfill: another split is under way (${show(existing)}); this one is ${show(ranges)}: finish that one first`);
    }
    for (const r of ranges) {
      await client.query('insert into backfill_ranges (from_height, to_height) values ($1, $2) on conflict do nothing', [r.from, r.to]);
    }
  });
}

export interface RangeOptions {
  db: Db;
  source: BlockSource;
  range: HeightRange;
  signal: AbortSignal;
  progress?: Progress;
  contracts?: DexContracts;
  dexes?: readonly Dex[];
  /** Decode worker threads (default: decode-pool.ts's). */
  workers?: number;
  /** Blocks a transaction (default 100, as the sequential pipeline's batches). */
  maxBlocks?: number;
  /** Called after each committed batch with its last height (tests stop a worker here). */
  onBatch?: (height: number) => void;
}

const BLOCK_COLUMNS = ['height', 'hash', 'prev_hash', 'timestamp_ms', 'gap_before'];

/** Races between workers of one split creating the same partition: the loser finds it made. */
const RACED = new Set(['42P07', '23505']);

/**
 * Ingests one planned range into the log, resuming after its checkpoint; returns the blocks written this run.
 * Marks the range done when the source has given every block up to its end.
 */
export async function ingestRange(options: RangeOptions): Promise<{ blocks: number; events: number }> {
  const { db, source, range, signal } = options;
  const row = (await readRanges(db)).find((r) => r.from === range.from && r.to === range.to);
  if (!row) throw new Error(`backfill: range ${range.from}-${range.to} is not planned`);
  const totals = { blocks: 0, events: 0 };
  if (row.done) return totals;
  let last = row.height === null ? undefined : { height: row.height, hash: row.hash! };
  const maxBlocks = options.maxBlocks ?? 100;
  let batch: DecodedBlock[] = [];
  // One batch in flight while the next is decoded; a failure is thrown at the next flush.
  let writing: Promise<void> = Promise.resolve();
  const write = async (blocks: DecodedBlock[]) => {
    const end = blocks.at(-1)!;
    // Outside the transaction, as writeBatch does; the partitions these rows need, not the whole range's.
    for (let attempt = 0; ; attempt++) {
      try {
        await ensurePartitions(db.pool, blocks.map((b) => ({ from: b.height, to: b.height })));
        break;
      } catch (error) {
        if (attempt > 3 || !RACED.has((error as { code?: string }).code ?? '')) throw error;
      }
    }
    await inTransaction(db, async ({ client }) => {
      let previous = last?.height;
      await copyRows(client, 'blocks', BLOCK_COLUMNS, blocks.map((b) => {
        // The range's first block: the merge sets its gap from the block before it in the log.
        const gap = previous === undefined ? 0 : b.height - previous - 1;
        previous = b.height;
        return [b.height, b.hash, b.prevHash, b.timestampMs, gap];
      }));
      await copyRows(client, 'events', EVENT_COLUMNS, blocks.map((b) => b.rows.events));
      // A history table that is a function of the events alone: written here, in parallel, not by the merge.
      await copyRows(client, 'transfers', TRANSFER_COLUMNS, blocks.map((b) => b.rows.transfers));
      for (const b of blocks) {
        if (b.foldInputs.length) await client.query('insert into backfill_fold_inputs (block_height, inputs) values ($1, $2)', [b.height, serialize(b.foldInputs)]);
      }
      await client.query('update backfill_ranges set height = $2, hash = $3 where from_height = $1', [range.from, end.height, end.hash]);
    });
    last = { height: end.height, hash: end.hash };
    totals.blocks += blocks.length;
    totals.events += blocks.reduce((n, b) => n + b.events.length, 0);
    options.progress?.update(end.height, blocks.length, blocks.reduce((n, b) => n + b.events.length, 0));
    options.onBatch?.(end.height);
  };
  const flush = async () => {
    await writing;
    if (!batch.length) return;
    const blocks = batch;
    batch = [];
    writing = write(blocks);
    writing.catch(() => {}); // awaited by the next flush
  };
  const dexes = options.dexes ?? DEXES;
  const pool = createDecodePool(options.workers ?? (dexes === DEXES ? undefined : 0), options.contracts ?? MAINNET_CONTRACTS, dexes);
  const from = last ? last.height + 1 : range.from;
  let previous = last;
  try {
    for await (const block of decodedBlocks(source, { from, to: range.to }, signal, pool)) {
      if (signal.aborted) break;
      if (previous && block.height <= previous.height) continue;
      if (previous && !source.sparse && block.prevHash !== previous.hash) {
        throw new Error(`backfill: block ${block.height} has prev_hash ${block.prevHash}, but block ${previous.height} of the range has hash ${previous.hash}`);
      }
      previous = { height: block.height, hash: block.hash };
      batch.push(block);
      if (batch.length >= maxBlocks) await flush();
    }
    await flush();
    await writing;
  } finally {
    await writing.catch(() => {});
    await pool.close();
  }
  if (!signal.aborted) await db.pool.query('update backfill_ranges set done = true where from_height = $1', [range.from]);
  return totals;
}

export interface MergeOptions {
  db: Db;
  contracts?: DexContracts;
  dexes?: readonly Dex[];
  progress?: Progress;
  signal?: AbortSignal;
  /** Blocks a merge transaction (default 2,000). */
  chunkBlocks?: number;
  /** Called after each committed chunk with its last height (tests stop the merge here). */
  onChunk?: (height: number) => void;
}

export type MergeResult = { merged: false; waiting: HeightRange[] } | { merged: true; blocks: number; events: number; height: number | undefined };

/**
 * Once every planned range is done: folds the log above the indexer's checkpoint into the projections, in height
 * order, and clears the plan. Otherwise returns the ranges still to do, changing nothing. One merger at a time (an
 * advisory lock); run again after a stop, it goes on from its last chunk.
 */
export async function mergeBackfill(options: MergeOptions): Promise<MergeResult> {
  const { db } = options;
  const contracts = options.contracts ?? MAINNET_CONTRACTS;
  const dexes = options.dexes ?? DEXES;
  const chunkBlocks = options.chunkBlocks ?? 2_000;
  const lock = await db.pool.connect();
  try {
    await lock.query('select pg_advisory_lock(hashtext($1))', ['dexlake backfill merge']);
    const ranges = await readRanges(db);
    const waiting = ranges.filter((r) => !r.done);
    if (waiting.length || !ranges.length) return { merged: false, waiting };
    await stitch(db, ranges);
    // The books as the tables hold them at the checkpoint, as a sequential run resumes.
    const folds = await FoldStage.load(db.kysely, dexes, contracts);
    let after = (await readCheckpoint(db.kysely))?.height ?? -1;
    const totals = { blocks: 0, events: 0 };
    for (;;) {
      if (options.signal?.aborted) return { merged: false, waiting: [] };
      const { rows } = await db.pool.query<{ height: number; hash: string; n: string }>(
        `select height, hash, count(*) over ()::text as n from (select height, hash from blocks where height > $1 order by height limit $2) b order by height desc limit 1`,
        [after, chunkBlocks],
      );
      const edge = rows[0];
      if (!edge) break;
      await inTransaction(db, async (tx) => {
        // The folding DEXes' pool_state events of these blocks, from their kept inputs, in height order.
        const kept = await tx.client.query<{ block_height: number; inputs: Buffer }>(
          'select block_height, inputs from backfill_fold_inputs where block_height > $1 and block_height <= $2 order by block_height',
          [after, edge.height],
        );
        let rowsText = '';
        let transfersText = '';
        for (const k of kept.rows) {
          const { rows: counts } = await tx.client.query<{ receipt_id: string; next: number }>(
            'select receipt_id, max(index) + 1 as next from events where block_height = $1 group by receipt_id',
            [k.block_height],
          );
          const block = {
            events: [],
            rows: { events: '', transfers: '' },
            foldInputs: deserialize(k.inputs) as DecodedBlock['foldInputs'],
          } as unknown as DecodedBlock;
          folds.apply(block, new Map(counts.map((c) => [c.receipt_id, Number(c.next)])));
          rowsText += block.rows.events;
          transfersText += block.rows.transfers;
        }
        await copyRows(tx.client, 'events', EVENT_COLUMNS, rowsText);
        await copyRows(tx.client, 'transfers', TRANSFER_COLUMNS, transfersText);
        await tx.client.query('delete from backfill_fold_inputs where block_height > $1 and block_height <= $2', [after, edge.height]);
        totals.events += await projectLog(tx, after, options.progress, undefined, edge.height, false);
        await saveCheckpoint(tx.kysely, { height: edge.height, hash: edge.hash });
      });
      totals.blocks += Number(edge.n);
      after = edge.height;
      options.onChunk?.(after);
    }
    await inTransaction(db, async (tx) => {
      await tx.client.query('delete from backfill_ranges');
      await notify(tx.kysely, JSON.stringify({ height: after, all: true }));
    });
    return { merged: true, ...totals, height: after < 0 ? undefined : after };
  } finally {
    await lock.query('select pg_advisory_unlock(hashtext($1))', ['dexlake backfill merge']).catch(() => {});
    lock.release();
  }
}

/**
 * Joins each range to the log before it: its first block's `gap_before` counts the heights since the block before
 * it, whose hash must be its prev_hash when the two are consecutive (a source on another chain is refused).
 */
async function stitch(db: Db, ranges: readonly RangeRow[]): Promise<void> {
  await inTransaction(db, async ({ client }) => {
    for (const r of ranges) {
      const { rows } = await client.query<{ height: number; prev_hash: string; before: number | null; before_hash: string | null }>(
        `select b.height, b.prev_hash, p.height as before, p.hash as before_hash
           from (select height, prev_hash from blocks where height >= $1 and height <= $2 order by height limit 1) b
           left join lateral (select height, hash from blocks where height < b.height order by height desc limit 1) p on true`,
        [r.from, r.to],
      );
      const first = rows[0];
      if (!first || first.before === null) continue;
      if (first.before === first.height - 1 && first.before_hash !== first.prev_hash) {
        throw new Error(`backfill: block ${first.height} has prev_hash ${first.prev_hash}, but block ${first.before} has hash ${first.before_hash}: the ranges are not one chain`);
      }
      await client.query('update blocks set gap_before = $2 where height = $1', [first.height, first.height - first.before - 1]);
    }
  });
}
