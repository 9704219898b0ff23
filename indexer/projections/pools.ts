// Pool projections: `pools` (current state per pool) and `pool_history` (the state after each block that changed
// it), from the DEXes' pool_state events (`trade_hops` is the market pass's, market.ts). A pool whose latest write did
// not decode (an `undecoded` event naming it) is marked `stale` until a readable state arrives: its last known
// state is kept for inspection, but nothing routes through it. A pure step picks the rows, an I/O step writes them.
import type { Tx } from '../../db/connect.ts';
import { copyRows } from '../../db/copy.ts';
import { copyText, type CopyValue } from '../../db/copy-text.ts';
import { sql } from '../../db/kysely.ts';
import { jsonWithAmounts, type DomainEvent } from '../event-rows.ts';

export interface PoolChanges {
  /** COPY text of `pool_history` rows. */
  history: string;
  /** The latest state of each pool the batch changed, as `pools` rows. */
  latest: CopyValue[][];
  deleted: { dex: string; poolId: string }[];
  /** Pools whose last change in the batch is a write that did not decode. */
  stale: { dex: string; poolId: string }[];
  /** `dex:pool_id` of every pool changed, for the NOTIFY. */
  keys: string[];
  /** Pools the batch deleted and then created again: their rows go before the new ones are written. */
  recreated: { dex: string; poolId: string }[];
}

/** A state read from the chain by a bootstrap or an import: the pool existed before it, created at no known block. */
const readNotCreated = (receiptId: string) => receiptId.startsWith('bootstrap:') || receiptId.startsWith('import:');


const COLUMNS = ['dex', 'pool_id', 'kind', 'tokens', 'amounts', 'total_fee', 'state'];

/** Events sorted by compareEvents in, rows out. A block's last state of a pool is the one that counts. */
export function preparePoolChanges(events: readonly DomainEvent[]): PoolChanges {
  const byBlock = new Map<string, { height: number; row: CopyValue[] }>();
  const latest = new Map<string, { height: number; row: CopyValue[] }>();
  const deleted = new Map<string, { dex: string; poolId: string }>();
  const stale = new Map<string, { dex: string; poolId: string }>();
  // Per pool, the creation height its first state in the batch gives (counted again after a deletion in the batch).
  const created = new Map<string, number | null>();
  const recreated = new Map<string, { dex: string; poolId: string }>();
  for (const e of events) {
    if (e.kind === 'pool_state') {
      const key = `${e.dex}:${e.poolId}`;
      if (!created.has(key)) created.set(key, readNotCreated(e.receiptId) ? null : e.blockHeight);
      if (deleted.has(key)) recreated.set(key, deleted.get(key)!);
      const { kind, tokens, amounts, totalFee } = e.state;
      const row: CopyValue[] = [e.dex, String(e.poolId), kind, tokens, amounts, totalFee, jsonWithAmounts(e.state)];
      byBlock.set(`${key}@${e.blockHeight}`, { height: e.blockHeight, row });
      latest.set(key, { height: e.blockHeight, row });
      deleted.delete(key);
      stale.delete(key);
    } else if (e.kind === 'pool_deleted') {
      const key = `${e.dex}:${e.poolId}`;
      latest.delete(key);
      stale.delete(key);
      created.delete(key);
      deleted.set(key, { dex: e.dex, poolId: String(e.poolId) });
    } else if (e.kind === 'undecoded' && e.poolId !== null) {
      stale.set(`${e.dex}:${e.poolId}`, { dex: e.dex, poolId: e.poolId });
    }
  }
  const history = [...byBlock.values()].map(({ height, row }) => [row[0]!, row[1]!, height, ...row.slice(2)]);
  return {
    history: copyText(history),
    latest: [...latest].map(([key, { height, row }]) => [...row, height, created.get(key) ?? null]),
    deleted: [...deleted.values()],
    recreated: [...recreated.values()],
    stale: [...stale.values()],
    keys: [...new Set([...latest.keys(), ...deleted.keys(), ...stale.keys()])].sort(),
  };
}

export async function applyPoolChanges(tx: Tx, changes: PoolChanges): Promise<void> {
  await copyRows(tx.client, 'pool_history', ['dex', 'pool_id', 'block_height', ...COLUMNS.slice(2)], changes.history);
  for (const { dex, poolId } of changes.recreated) {
    await tx.kysely.deleteFrom('pools').where('dex', '=', dex).where('pool_id', '=', poolId).execute();
  }
  if (changes.latest.length) {
    await sql`create temp table if not exists pool_changes (like pools including defaults) on commit delete rows`.execute(tx.kysely);
    // Emptied at commit, but a rebuild applies many chunks in one transaction: start each from empty.
    await sql`truncate pool_changes`.execute(tx.kysely);
    await copyRows(tx.client, 'pool_changes', [...COLUMNS, 'updated_height', 'created_height'], changes.latest);
    await sql`
      insert into pools (dex, pool_id, kind, tokens, amounts, total_fee, state, updated_height, stale, created_height)
      select dex, pool_id, kind, tokens, amounts, total_fee, state, updated_height, stale, created_height from pool_changes
      -- created_height stays the pool's first
      on conflict (dex, pool_id) do update set kind = excluded.kind, tokens = excluded.tokens, amounts = excluded.amounts,
        total_fee = excluded.total_fee, state = excluded.state, updated_height = excluded.updated_height, stale = false`.execute(tx.kysely);
  }
  for (const { dex, poolId } of changes.stale) {
    await tx.kysely.updateTable('pools').set({ stale: true }).where('dex', '=', dex).where('pool_id', '=', poolId).execute();
  }
  for (const { dex, poolId } of changes.deleted) {
    await tx.kysely.deleteFrom('pools').where('dex', '=', dex).where('pool_id', '=', poolId).execute();
  }
}
