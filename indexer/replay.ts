// Operators' tools over the event log. `rebuild` re-derives every projection from the log; `replay` re-ingests
// a range of blocks into the log and then rebuilds. Each runs in one transaction, so a crash leaves the tables
// as they were, and each is deterministic, so running it twice changes nothing.
import { sql } from '../db/kysely.ts';
import type { Db, Tx } from '../db/connect.ts';
import { fromRow, type DomainEvent } from './event-rows.ts';
import { MAINNET_CONTRACTS, type DexContracts } from '../dexes/contracts.ts';
import type { Dex } from '../dexes/dex.ts';
import { DEXES } from '../dexes/index.ts';
import { FoldStage } from './fold-stage.ts';
import { createDecodePool, decodedBlocks } from './decode-pool.ts';
import { partitionName, partitions } from './partitions.ts';
import type { Progress } from './progress.ts';
import type { BlockSource } from './sources/source.ts';
import { appendToLog, applyProjections, inLogTransaction, notify, prepareProjections, saveCheckpoint, type BlockRow } from './store.ts';

/** Every table derived from the log (blocks and events are the log; checkpoints are the indexer's own). */
export const PROJECTIONS = [
  'transfers', 'balances', 'balance_history', 'tokens', 'storage_registrations', 'pools', 'pool_history', 'trade_hops',
  'trades', 'prices', 'token_market', 'token_activity', 'candles', 'market_clock', 'undecoded', 'undecoded_totals',
] as const;

/** Events per rebuild step, rounded up to whole blocks (projections take whole blocks). */
export const REBUILD_CHUNK = 50_000;

/** Truncates the projections and re-derives them from the event log, in log order, `chunk` events at a time. */
export async function rebuildProjections(tx: Tx, progress?: Progress, chunk = REBUILD_CHUNK): Promise<number> {
  await sql`truncate ${sql.join(PROJECTIONS.map((t) => sql.table(t)))}`.execute(tx.kysely);
  // What a migration asked for (rebuildsAsked) is done once this transaction commits.
  await tx.kysely.deleteFrom('projection_rebuilds').execute();
  return projectLog(tx, -1, progress, chunk);
}

/**
 * Applies the log's events above height `after` (up to `to`) to the projections (with `transfers` false, all but the
 * `transfers` rows), in log order, `chunk` events at a
 * time: the projections must hold exactly the log up to `after` (a rebuild: nothing; a backfill's merge: the log
 * up to its last chunk).
 */
export async function projectLog(tx: Tx, after: number, progress?: Progress, chunk = REBUILD_CHUNK, to = Number.MAX_SAFE_INTEGER, transfers = true): Promise<number> {
  let total = 0;
  for (;;) {
    // The height of the chunk-th next event: this step takes every event up to and including its block.
    const edge = await tx.kysely
      .selectFrom('events')
      .select('block_height')
      .where('block_height', '>', after)
      .where('block_height', '<=', to)
      .orderBy('block_height')
      .offset(chunk - 1)
      .limit(1)
      .executeTakeFirst();
    let query = tx.kysely.selectFrom('events').selectAll().where('block_height', '>', after).where('block_height', '<=', to);
    if (edge) query = query.where('block_height', '<=', edge.block_height);
    const rows = await query.orderBy('block_height').orderBy('receipt_id').orderBy('index').execute();
    if (!rows.length) break;
    const events: DomainEvent[] = rows.map(fromRow);
    // `transfers` false: the rows are there already (a backfill's range workers wrote them).
    await applyProjections(tx, prepareProjections(events, transfers ? undefined : []));
    after = rows.at(-1)!.block_height;
    total += rows.length;
    progress?.update(after, 0, rows.length);
    if (!edge) break;
  }
  return total;
}

export async function rebuild(db: Db, progress?: Progress, chunk = REBUILD_CHUNK): Promise<number> {
  return inLogTransaction(db, async (tx) => {
    const events = await rebuildProjections(tx, progress, chunk);
    const head = await tx.kysely.selectFrom('blocks').select('height').orderBy('height', 'desc').limit(1).executeTakeFirst();
    await notify(tx.kysely, JSON.stringify({ height: head?.height ?? 0, all: true }));
    return events;
  });
}

/** Why a migration asked for the projections to be made again (migrations/0015_hop_volume.ts); empty: nothing asked. */
export async function rebuildsAsked(db: Db): Promise<string[]> {
  return (await db.kysely.selectFrom('projection_rebuilds').select('reason').orderBy('reason').execute()).map((r) => r.reason);
}

/** Receipts that blocks cannot give, kept by replay: learned over RPC, imported (pools-import/) or bootstrapped. */
const KEPT = sql`(receipt_id like 'rpc:%' or receipt_id like 'import:%' or receipt_id like 'bootstrap:%')`;

/**
 * Deletes the events the blocks of [from, to] gave. A partition inside the range that holds no kept event is
 * emptied with TRUNCATE, which leaves no dead rows for vacuum; the rest are deleted row by row.
 */
async function deleteBlockEvents(tx: Tx, from: number, to: number): Promise<void> {
  for (const p of await partitions(tx.client)) {
    if (p.from < from || p.to - 1 > to) continue;
    const table = sql.table(partitionName('events', p.from));
    const kept = await sql`select 1 from ${table} where ${KEPT} limit 1`.execute(tx.kysely);
    if (!kept.rows.length) await sql`truncate ${table}`.execute(tx.kysely);
  }
  await sql`delete from events where block_height between ${from} and ${to} and not ${KEPT}`.execute(tx.kysely);
}

export interface ReplayOptions {
  db: Db;
  source: BlockSource;
  from: number;
  to: number;
  signal: AbortSignal;
  progress?: Progress;
  /** The network's DEX contracts (default: mainnet's). */
  contracts?: DexContracts;
  /** The DEX registry (default: dexes/index.ts's); another one decodes on this thread. */
  dexes?: readonly Dex[];
}

/** Replaces the log's blocks and events in [from, to] with what the source gives now, then rebuilds. */
export async function replay({ db, source, from, to, signal, progress, contracts = MAINNET_CONTRACTS, dexes = DEXES }: ReplayOptions): Promise<{ blocks: number; events: number }> {
  if (from > to) throw new Error(`replay: --from ${from} is above --to ${to}`);
  return inLogTransaction(db, async (tx) => {
    await deleteBlockEvents(tx, from, to);
    await tx.kysely.deleteFrom('blocks').where('height', '>=', from).where('height', '<=', to).execute();
    const before = await tx.kysely.selectFrom('blocks').select('height').where('height', '<', from).orderBy('height', 'desc').limit(1).executeTakeFirst();
    let previous = before?.height;
    let blocks: BlockRow[] = [];
    let events: DomainEvent[] = [];
    const totals = { blocks: 0, events: 0 };
    const flush = async () => {
      await appendToLog(tx, blocks, events);
      totals.blocks += blocks.length;
      totals.events += events.length;
      if (blocks.length) progress?.update(blocks.at(-1)!.height, blocks.length, events.length);
      blocks = [];
      events = [];
    };
    const folds = await FoldStage.load(tx.kysely, dexes, contracts, from);
    const pool = createDecodePool(dexes === DEXES ? undefined : 0, contracts, dexes);
    try {
      for await (const block of decodedBlocks(source, { from, to }, signal, pool)) {
        folds.apply(block);
        blocks.push({ height: block.height, hash: block.hash, prevHash: block.prevHash, timestampMs: block.timestampMs, gapBefore: previous === undefined ? 0 : block.height - previous - 1 });
        for (const event of block.events) events.push(event);
        previous = block.height;
        if (blocks.length >= 500) await flush();
      }
    } finally {
      await pool.close();
    }
    await flush();
    if (signal.aborted) throw new Error('replay interrupted: nothing was changed');
    await rebuildProjections(tx);
    const head = await tx.kysely.selectFrom('blocks').select(['height', 'hash']).orderBy('height', 'desc').limit(1).executeTakeFirst();
    if (head) await saveCheckpoint(tx.kysely, head);
    await notify(tx.kysely, JSON.stringify({ height: head?.height ?? 0, all: true }));
    return totals;
  });
}
