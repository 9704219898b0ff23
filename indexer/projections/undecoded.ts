// What the decoders could not read: `undecoded` (the newest KEEP_PER_DEX inputs of each DEX, raw text and all) and
// `undecoded_totals` (every one ever indexed, per DEX and kind), from the log's `undecoded` events. Which pools
// they make stale is the pools projection's business (pools.ts). A pure step renders the rows, an I/O step writes.
import type { Kysely } from 'kysely';
import type { Tx } from '../../db/connect.ts';
import { copyRows } from '../../db/copy.ts';
import { copyText } from '../../db/copy-text.ts';
import { sql } from '../../db/kysely.ts';
import type { Database } from '../../db/schema.ts';
import type { DomainEvent } from '../event-rows.ts';

/** Inputs kept per DEX (the newest); older ones stay counted in `undecoded_totals` and in the event log. */
export const KEEP_PER_DEX = 1_000;
/** A storage value can be megabytes: the kept text stops here (the event log keeps it whole). */
const MAX_RAW = 65_536;

const COLUMNS = ['block_height', 'receipt_id', 'index', 'timestamp_ms', 'tx_hash', 'dex', 'kind', 'contract_id', 'pool_id', 'reason', 'raw'];

/** Undecoded inputs of one DEX (or core standard) and kind (`log`, `state`). */
export interface UndecodedCount {
  dex: string;
  kind: string;
  count: number;
}

export interface UndecodedChanges {
  /** COPY text of `undecoded` rows. */
  rows: string;
  /** How many per DEX and kind, in the order first met. */
  counts: UndecodedCount[];
}

export function prepareUndecodedChanges(events: readonly DomainEvent[]): UndecodedChanges {
  const rows = [];
  const counts = new Map<string, UndecodedCount>();
  for (const e of events) {
    if (e.kind !== 'undecoded') continue;
    rows.push([e.blockHeight, e.receiptId, e.index, e.timestampMs, e.txHash, e.dex, e.input, e.contractId, e.poolId, text(e.reason), text(e.raw)]);
    const key = `${e.dex}\u0000${e.input}`;
    const c = counts.get(key) ?? { dex: e.dex, kind: e.input, count: 0 };
    c.count++;
    counts.set(key, c);
  }
  return { rows: copyText(rows), counts: [...counts.values()] };
}

/** PostgreSQL text holds no NUL character; a log line can. */
function text(s: string): string {
  const kept = s.length > MAX_RAW ? `${s.slice(0, MAX_RAW)}... (${s.length - MAX_RAW} more characters)` : s;
  return kept.includes('\u0000') ? kept.replaceAll('\u0000', '\\u0000') : kept;
}

export async function applyUndecodedChanges(tx: Tx, changes: UndecodedChanges): Promise<void> {
  if (!changes.counts.length) return;
  await copyRows(tx.client, 'undecoded', COLUMNS, changes.rows);
  for (const { dex, kind, count } of changes.counts) {
    await sql`
      insert into undecoded_totals (dex, kind, count) values (${dex}, ${kind}, ${count})
      on conflict (dex, kind) do update set count = undecoded_totals.count + excluded.count`.execute(tx.kysely);
  }
  const dexes = [...new Set(changes.counts.map((c) => c.dex))];
  // Keep each DEX's newest KEEP_PER_DEX, newest in the log's own order.
  await sql`
    delete from undecoded u
    using (
      select dex, block_height, receipt_id, index from (
        select dex, block_height, receipt_id, index,
          row_number() over (partition by dex order by block_height desc, receipt_id desc, index desc) as rank
        from undecoded where dex = any(${dexes})
      ) ranked where rank > ${KEEP_PER_DEX}
    ) old
    where u.block_height = old.block_height and u.receipt_id = old.receipt_id and u.index = old.index`.execute(tx.kysely);
}

/** Every undecoded input indexed so far, per DEX and kind. */
export async function readUndecodedTotals(db: Kysely<Database>): Promise<UndecodedCount[]> {
  const rows = await db.selectFrom('undecoded_totals').selectAll().orderBy('dex').orderBy('kind').execute();
  return rows.map((r) => ({ dex: r.dex, kind: r.kind, count: Number(r.count) }));
}
