import { sql } from '../db/kysely.ts';
import { describe, expect, it } from 'vitest';
import { connect } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { ensurePartitions } from '../indexer/partitions.ts';
import { createTestDatabase } from './harness/db.ts';

describe('migrations', () => {
  it('create the tables once; a second run applies nothing', async () => {
    const database = await createTestDatabase();
    const db = connect(database.url);
    try {
      expect(await migrateToLatest(db.kysely)).toEqual(['0001_init', '0002_token_projections', '0003_pools', '0004_trade_hops', '0005_trades_prices_candles', '0006_trade_receipts', '0007_rates_index', '0008_nslp_index', '0009_undecoded', '0010_deferred_indexes', '0011_partitioned_history', '0012_read_indexes', '0013_prices_at_index', '0014_balances_first_height', '0015_hop_volume', '0016_market_beyond', '0017_backfill_ranges']);
      expect(await migrateToLatest(db.kysely)).toEqual([]);
      const tables = await sql<{ table_name: string }>`
        select table_name from information_schema.tables where table_schema = 'public' and table_name not like 'kysely_%' order by 1`.execute(db.kysely);
      expect(tables.rows.map((r) => r.table_name)).toEqual([
        'backfill_fold_inputs', 'backfill_ranges', 'balance_history', 'balances', 'blocks', 'candles', 'checkpoints', 'deferred_indexes', 'events', 'history_partitioning', 'market_clock', 'pool_history', 'pools', 'prices',
        'projection_rebuilds', 'storage_registrations', 'token_activity', 'token_market', 'tokens', 'trade_hops', 'trades', 'transfers', 'undecoded', 'undecoded_totals',
      ]);
      // A database made with every migration has nothing to rebuild (migrations 0015 and 0016 ask only where events exist).
      expect((await sql`select reason from projection_rebuilds`.execute(db.kysely)).rows).toEqual([]);
      // The event log's key: one row per (block, receipt, index), enforced in each partition (height 1 is in the first).
      await ensurePartitions(db.pool, [{ from: 1, to: 1 }]);
      await db.kysely.insertInto('events').values({ block_height: 1, receipt_id: 'r', index: 0, kind: 'k', timestamp_ms: 1, tx_hash: null, payload: '{}' }).execute();
      await expect(
        db.kysely.insertInto('events').values({ block_height: 1, receipt_id: 'r', index: 0, kind: 'k', timestamp_ms: 1, tx_hash: null, payload: '{}' }).execute(),
      ).rejects.toThrow(/duplicate key value violates unique constraint "events_p0_pkey"/);
    } finally {
      await db.close();
    }
  });

  it('run concurrently from two connections without applying anything twice', async () => {
    const database = await createTestDatabase();
    const [a, b] = [connect(database.url), connect(database.url)];
    try {
      const applied = await Promise.all([migrateToLatest(a.kysely), migrateToLatest(b.kysely)]);
      expect(applied.flat()).toEqual(['0001_init', '0002_token_projections', '0003_pools', '0004_trade_hops', '0005_trades_prices_candles', '0006_trade_receipts', '0007_rates_index', '0008_nslp_index', '0009_undecoded', '0010_deferred_indexes', '0011_partitioned_history', '0012_read_indexes', '0013_prices_at_index', '0014_balances_first_height', '0015_hop_volume', '0016_market_beyond', '0017_backfill_ranges']);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
