// Writing a batch of decoded blocks: blocks, the event log, the projections, the checkpoint and the NOTIFY, in
// one transaction. PostgreSQL delivers a NOTIFY only when its transaction commits, so listeners never hear of
// a batch that was rolled back.
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';
import { inTransaction, type Db, type Tx } from '../db/connect.ts';
import { copyRows } from '../db/copy.ts';
import { isCopyChunks, type CopyChunks } from '../db/copy-text.ts';
import { NOTIFY_CHANNEL } from '../db/notify.ts';
import { ensurePartitions } from './partitions.ts';
import type { Database } from '../db/schema.ts';
import { compareEvents, EVENT_COLUMNS, eventRow, eventRowsText, transfersText, type DomainEvent } from './event-rows.ts';
import { applyMarketChanges, prepareMarketChanges, type MarketChanges } from './projections/market.ts';
import { applyPoolChanges, preparePoolChanges, type PoolChanges } from './projections/pools.ts';
import { applyTokenChanges, prepareTokenChanges, type TokenChanges } from './projections/tokens.ts';
import { applyUndecodedChanges, prepareUndecodedChanges, type UndecodedChanges } from './projections/undecoded.ts';

export const CHECKPOINT = 'indexer';
export { NOTIFY_CHANNEL, type BlocksNotification } from '../db/notify.ts';
/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more. */
const NOTIFY_LIMIT = 7_900;

export interface BlockRow {
  height: number;
  hash: string;
  prevHash: string;
  timestampMs: number;
  gapBefore: number;
}

export interface Checkpoint {
  height: number;
  hash: string;
}

export async function readCheckpoint(db: Kysely<Database>): Promise<Checkpoint | undefined> {
  return db.selectFrom('checkpoints').select(['height', 'hash']).where('name', '=', CHECKPOINT).executeTakeFirst();
}

const BLOCK_COLUMNS = ['height', 'hash', 'prev_hash', 'timestamp_ms', 'gap_before'];

/** Appends blocks and their events (or the events' rows, rendered already) to the log; their heights must not be in
 * it yet. */
export async function appendToLog(tx: Tx, blocks: readonly BlockRow[], events: readonly DomainEvent[] | CopyChunks): Promise<void> {
  await ensurePartitions(tx.client, spansOf(blocks, events));
  await copyRows(tx.client, 'blocks', BLOCK_COLUMNS, blocks.map((b) => [b.height, b.hash, b.prevHash, b.timestampMs, b.gapBefore]));
  await copyRows(tx.client, 'events', EVENT_COLUMNS, isCopyChunks(events) ? events : events.map(eventRow));
}

export interface ProjectionChanges {
  tokens: TokenChanges;
  pools: PoolChanges;
  /** trades, prices, candles, token_market. */
  market: MarketChanges;
  undecoded: UndecodedChanges;
}

/**
 * Every projection's changes for events of whole blocks, with their `transfers` rows rendered already (where the
 * blocks were decoded) or here. Pure: it can run while another batch is written.
 */
export function prepareProjections(events: DomainEvent[], transfers: CopyChunks = [transfersText(events)]): ProjectionChanges {
  // Each decoded block comes sorted, so this is a merge of sorted runs.
  events.sort(compareEvents);
  return {
    tokens: prepareTokenChanges(events, transfers),
    pools: preparePoolChanges(events),
    market: prepareMarketChanges(events),
    undecoded: prepareUndecodedChanges(events),
  };
}

/** Applies prepared changes; returns what changed, for the NOTIFY (tokens: touched by transfers or metadata, or
 * whose market row changed: price, liquidity, 24 h volume or change). */
export async function applyProjections(tx: Tx, changes: ProjectionChanges): Promise<{ tokens: Set<string>; pools: string[] }> {
  // The market reads the pools' states and the tokens' decimals as they were before the batch: first.
  const marketTokens = await applyMarketChanges(tx, changes.market);
  await applyPoolChanges(tx, changes.pools);
  const tokens = await applyTokenChanges(tx, changes.tokens);
  await applyUndecodedChanges(tx, changes.undecoded);
  for (const token of marketTokens) tokens.add(token);
  return { tokens, pools: changes.pools.keys };
}

export async function saveCheckpoint(tx: Kysely<Database>, checkpoint: Checkpoint): Promise<void> {
  await tx
    .insertInto('checkpoints')
    .values({ name: CHECKPOINT, height: checkpoint.height, hash: checkpoint.hash })
    .onConflict((oc) => oc.column('name').doUpdateSet({ height: checkpoint.height, hash: checkpoint.hash, updated_at: sql`now()` }))
    .execute();
}

export function notifyPayload(height: number, tokens: Iterable<string>, pools: Iterable<string> = []): string {
  const payload = JSON.stringify({ height, pools: [...pools].sort(), tokens: [...tokens].sort() });
  return Buffer.byteLength(payload) < NOTIFY_LIMIT ? payload : JSON.stringify({ height, all: true });
}

export async function notify(tx: Kysely<Database>, payload: string): Promise<void> {
  await sql`select pg_notify(${NOTIFY_CHANNEL}, ${payload})`.execute(tx);
}

/** A batch ready to write: all the work that needs no database is done. */
export interface PreparedBatch {
  blocks: readonly BlockRow[];
  events: CopyChunks;
  changes: ProjectionChanges;
}

/** `rows`: the COPY text of the events' rows, rendered where they were decoded (a block's a chunk), or here. */
export function prepareBatch(blocks: readonly BlockRow[], events: DomainEvent[], rows?: { events: CopyChunks; transfers: CopyChunks }): PreparedBatch {
  if (rows === undefined) {
    const text = eventRowsText(events);
    rows = { events: [text.events], transfers: [text.transfers] };
  }
  return { blocks, events: rows.events, changes: prepareProjections(events, rows.transfers) };
}

/** The heights rows will be written at: the blocks', and the events' where they come without blocks (imports). */
function spansOf(blocks: readonly BlockRow[], events: readonly DomainEvent[] | CopyChunks): { from: number; to: number }[] {
  const heights = blocks.map((b) => b.height);
  if (!isCopyChunks(events)) for (const e of events) heights.push(e.blockHeight);
  return heights.map((h) => ({ from: h, to: h }));
}

/**
 * A transaction that writes the log and the projections, run by one writer at a time: the indexer's batches, replay,
 * rebuild, a pools import and a bootstrap take the same lock first, so one that runs beside another (an operator's
 * `dexlake replay` while `dexlake start` indexes) waits for it instead of deadlocking on the tables both write
 * (replay's TRUNCATE against a batch's rows).
 */
export function inLogTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return inTransaction(db, async (tx) => {
    await sql`select pg_advisory_xact_lock(hashtext('dexlake log writer'))`.execute(tx.kysely);
    return fn(tx);
  });
}

/** One batch, all or nothing: log, projections, checkpoint, NOTIFY. */
export async function writeBatch(db: Db, batch: PreparedBatch): Promise<void> {
  const last = batch.blocks.at(-1);
  if (!last) return;
  // Outside the batch's transaction, so that a new partition locks its table for a moment, not for the batch.
  await ensurePartitions(db.pool, spansOf(batch.blocks, batch.events));
  await inLogTransaction(db, async (tx) => {
    await appendToLog(tx, batch.blocks, batch.events);
    const changed = await applyProjections(tx, batch.changes);
    await saveCheckpoint(tx.kysely, { height: last.height, hash: last.hash });
    await notify(tx.kysely, notifyPayload(last.height, changed.tokens, changed.pools));
  });
}
