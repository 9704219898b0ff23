// Partitioned history (migrations/0011, indexer/partitions.ts): a filled database moves over without losing a row,
// writers make each partition before its first row and the next one ahead, the partitions' width changes where
// rows live but not what the tables hold, and replay empties the partitions wholly inside its range with TRUNCATE.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { describe, expect, it } from 'vitest';
import { buildServer } from '../api/server.ts';
import { connect, quoteIdent, type Db } from '../db/connect.ts';
import { Migrator } from '../db/kysely.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { migrations } from '../migrations/index.ts';
import { BULK_LOAD_INDEXES, buildIndexes, dropIndexes } from '../indexer/bulk-load.ts';
import { ensurePartitions, partitions, PARTITIONED } from '../indexer/partitions.ts';
import { ingest } from '../indexer/pipeline.ts';
import { replay } from '../indexer/replay.ts';
import { filesSource } from '../indexer/sources/files.ts';
import { createMigratedDb, createTestDatabase, tableChecksums } from './harness/db.ts';
import { FIXTURES_DIR } from './harness/fixtures.ts';
import { indexedRealnetDb, realnet } from './harness/realnet.ts';

const never = new AbortController().signal;
const MAINNET = path.join(FIXTURES_DIR, 'mainnet');
const SEED = 'partitions';

/** A database holding 300 realnet blocks and then the real mainnet fixture blocks (heights 34,834,052 and up). */
async function filled(db: Db): Promise<void> {
  await ingest({ db, source: realnet(SEED), to: 300, signal: never });
  await ingest({ db, source: filesSource(MAINNET), signal: never });
}

/** The tables other than the migrator's own and the partitions, in dependency-free order. */
async function tables(db: Db): Promise<string[]> {
  const { rows } = await db.pool.query<{ name: string }>(
    `select relname as name from pg_class where relnamespace = 'public'::regnamespace and relkind in ('r', 'p')
        and not relispartition and relname not like 'kysely_%' order by 1`,
  );
  return rows.map((r) => r.name);
}

/** Copies every row of `tables` from one database to another, as COPY text. */
async function copyTables(from: Db, to: Db, names: readonly string[]): Promise<void> {
  const [source, target] = [await from.pool.connect(), await to.pool.connect()];
  try {
    for (const name of names) {
      // The target's columns: an older schema may lack some of the source's.
      const { rows } = await target.query<{ name: string }>(`select attname as name from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped order by attnum`, [name]);
      const columns = rows.map((r) => quoteIdent(r.name)).join(', ');
      await pipeline(source.query(copyTo(`copy (select ${columns} from ${quoteIdent(name)}) to stdout`)), target.query(copyFrom(`copy ${quoteIdent(name)} (${columns}) from stdin`)));
    }
  } finally {
    source.release();
    target.release();
  }
}

/** The indexes of the tables that are not partitions, with their definitions (a partitioned one says ON ONLY). */
async function parentIndexes(db: Db): Promise<string[]> {
  const { rows } = await db.pool.query<{ line: string }>(
    `select i.relname || ': ' || pg_get_indexdef(i.oid) as line from pg_index x join pg_class i on i.oid = x.indexrelid
       join pg_class t on t.oid = x.indrelid where t.relnamespace = 'public'::regnamespace and not t.relispartition order by 1`,
  );
  return rows.map((r) => r.line);
}

/** Per partitioned table: the number of its partitions lacking any of its indexes. */
async function partitionsMissingIndexes(db: Db): Promise<Record<string, number>> {
  const missing: Record<string, number> = {};
  for (const table of PARTITIONED) {
    const { rows } = await db.pool.query<{ n: number }>(
      `select count(*)::int as n from pg_inherits p
        where p.inhparent = $1::regclass
          and (select count(*) from pg_index where indrelid = p.inhrelid) <> (select count(*) from pg_index where indrelid = $1::regclass)`,
      [table],
    );
    missing[table] = rows[0]!.n;
  }
  return missing;
}

async function answer(db: Db, url: string) {
  const app = await buildServer({ db, logLevel: 'silent' });
  try {
    const res = await app.inject(url);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  } finally {
    await app.close();
  }
}

/** Every row id of a history, page after page of `limit`. */
async function pagedIds(db: Db, url: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor = '';
  for (;;) {
    const page = await answer(db, `${url}&limit=${limit}${cursor}`);
    ids.push(...page.rows.map((r: { id: string }) => r.id));
    if (page.next_cursor === null) return ids;
    cursor = `&cursor=${encodeURIComponent(page.next_cursor)}`;
  }
}

const filenode = async (db: Db, table: string): Promise<number> =>
  (await db.pool.query<{ n: number }>('select pg_relation_filenode($1::regclass)::int as n', [table])).rows[0]!.n;

describe('partitioned history', () => {
  it('a filled database moves over without losing a row, and bulk-load indexes missing at the time are still built', async () => {
    const reference = await createMigratedDb();
    await filled(reference);
    // Its heights span 150 million blocks: newest-first pages read the recent blocks first, then further back.
    const busiest = (await reference.pool.query<{ token: string }>(`select token from transfers group by 1 order by count(*) desc, 1 limit 1`)).rows[0]!.token;
    for (const [order, dir] of [['newest', 'desc'], ['oldest', 'asc']]) {
      const { rows } = await reference.pool.query<{ id: string }>(
        `select block_height || ':' || receipt_id || ':' || index as id from transfers where token = $1 order by block_height ${dir}, receipt_id ${dir}, index ${dir}`,
        [busiest],
      );
      expect(new Set(rows.map((r) => Math.floor(Number(r.id.split(':')[0]) / 1e6))).size).toBeGreaterThan(3);
      expect(await pagedIds(reference, `/transfers?token=${busiest}&order=${order}`, 17), order).toEqual(rows.map((r) => r.id));
    }
    // A time window millions of blocks wide: pages read the blocks at their near edge (the window's end, newest
    // first; its start, oldest first; then the cursor) first, then the rest.
    const { rows: fixtureBlocks } = await reference.pool.query<{ t: string }>(`select timestamp_ms::text as t from blocks where height > 1e6 order by height`);
    const [after, before] = [Number(fixtureBlocks[1]!.t), Number(fixtureBlocks.at(-2)!.t)];
    for (const [order, dir] of [['newest', 'desc'], ['oldest', 'asc']]) {
      const { rows } = await reference.pool.query<{ id: string }>(
        `select block_height || ':' || receipt_id || ':' || index as id from transfers where timestamp_ms > $1 and timestamp_ms < $2
          order by block_height ${dir}, receipt_id ${dir}, index ${dir}`,
        [after, before],
      );
      expect(new Set(rows.map((r) => Math.floor(Number(r.id.split(':')[0]) / 1e6))).size).toBeGreaterThan(3);
      expect(await pagedIds(reference, `/transfers?order=${order}&after_millis=${after}&before_millis=${before}`, 29), order).toEqual(rows.map((r) => r.id));
    }

    // The same rows in a database at the schema before partitioning, one of whose indexes bulk-load mode dropped.
    const database = await createTestDatabase();
    const old = connect(database.url);
    try {
      const migrator = new Migrator({ db: old.kysely, provider: { getMigrations: async () => migrations } });
      const { error } = await migrator.migrateTo('0010_deferred_indexes');
      expect(error).toBeUndefined();
      // Tables later migrations made (0011, 0015, 0016, 0017) are not in the old schema.
      const names = (await tables(reference)).filter((t) => t !== 'history_partitioning' && t !== 'projection_rebuilds' && t !== 'token_activity' && !t.startsWith('backfill_'));
      await copyTables(reference, old, names);
      await old.pool.query(`delete from deferred_indexes`);
      await old.pool.query(`drop index transfers_sender_height`);
      await old.pool.query(`insert into deferred_indexes values ('transfers_sender_height', 'transfers', 'CREATE INDEX transfers_sender_height ON public.transfers USING btree (sender, block_height)')`);
      const before = await tableChecksums(old);
      expect(Number(before.events!.split(':')[0])).toBeGreaterThan(1000);

      const { results = [] } = await migrator.migrateTo('0014_balances_first_height');
      expect(results.map((r) => [r.migrationName, r.status])).toEqual(['0011_partitioned_history', '0012_read_indexes', '0013_prices_at_index', '0014_balances_first_height'].map((n) => [n, 'Success']));

      const after = await tableChecksums(old);
      const { history_partitioning: _, balances, ...moved } = after;
      const { balances: balancesBefore, ...kept } = before;
      expect(moved).toEqual(kept);
      // balances gained first_height (0014), filled from the history exactly as the projection writes it.
      expect(balances).not.toEqual(balancesBefore);
      expect(balances).toEqual((await tableChecksums(reference)).balances);
      // One partition per million heights that holds a row, and the next one after the highest: read off the
      // fixture files' heights (the realnet's 1..300 are in the first).
      const heights = readdirSync(MAINNET).map((f) => Number(f.split('.')[0]));
      const used = new Set([0, ...heights.map((h) => Math.floor(h / 1e6) * 1e6)]);
      const expected = [...used, (Math.floor(Math.max(...heights) / 1e6) + 1) * 1e6].sort((a, b) => a - b);
      expect((await partitions(old.pool)).map((p) => p.from)).toEqual(expected);
      for (const table of PARTITIONED) {
        const { rows } = await old.pool.query<{ kind: string }>(`select relkind as kind from pg_class where oid = $1::regclass`, [table]);
        expect(rows[0]!.kind, table).toBe('p');
      }

      // The later migrations (0015 and 0016 ask for a rebuild, prices-candles.test.ts) complete the schema.
      expect(await migrateToLatest(old.kysely)).toEqual(['0015_hop_volume', '0016_market_beyond', '0017_backfill_ranges']);
      // The dropped index is still missing and still recorded; once built, the schema is the fresh one's.
      expect((await old.pool.query(`select name from deferred_indexes`)).rows).toEqual([{ name: 'transfers_sender_height' }]);
      expect(await parentIndexes(old)).not.toEqual(await parentIndexes(reference));
      await buildIndexes(old);
      expect(await parentIndexes(old)).toEqual(await parentIndexes(reference));
      expect(await partitionsMissingIndexes(old)).toEqual(Object.fromEntries(PARTITIONED.map((t) => [t, 0])));

      // Bulk-load mode on partitioned tables drops and builds every partition's part of each index.
      const partitionIndexes = async () =>
        (await old.pool.query<{ n: number }>(`select count(*)::int as n from pg_index x join pg_class t on t.oid = x.indrelid where t.relispartition`)).rows[0]!.n;
      const complete = await partitionIndexes();
      await dropIndexes(old);
      // Each of the nine is gone from every partition (the same partitions in every table).
      expect(complete - (await partitionIndexes())).toBe(expected.length * BULK_LOAD_INDEXES.length);
      await buildIndexes(old);
      expect(await parentIndexes(old)).toEqual(await parentIndexes(reference));
      expect(await partitionsMissingIndexes(old)).toEqual(Object.fromEntries(PARTITIONED.map((t) => [t, 0])));
    } finally {
      await old.close();
    }
  }, 240_000);

  it('writers make each partition before its rows and the next one ahead; the width changes where rows live, not what the tables hold', async () => {
    const wide = await indexedRealnetDb(SEED, 250);
    expect((await partitions(wide.pool)).map((p) => p.from)).toEqual([0, 1_000_000]);

    const narrow = await createMigratedDb();
    await narrow.pool.query('update history_partitioning set width_blocks = 100');
    await ingest({ db: narrow, source: realnet(SEED), to: 250, signal: never });
    expect((await partitions(narrow.pool)).map((p) => [p.from, p.to])).toEqual([[0, 100], [100, 200], [200, 300], [300, 400]]);
    const { rows } = await narrow.pool.query<{ partition: string; low: number; high: number }>(
      `select tableoid::regclass::text as partition, min(block_height)::int as low, max(block_height)::int as high from transfers group by 1 order by 2`,
    );
    expect(rows.map((r) => r.partition)).toEqual(['transfers_p0', 'transfers_p100', 'transfers_p200']);
    expect(rows.every((r) => Math.floor(r.low / 100) === Math.floor(r.high / 100))).toBe(true);
    const { history_partitioning: narrowWidth, ...narrowTables } = await tableChecksums(narrow);
    const { history_partitioning: wideWidth, ...wideTables } = await tableChecksums(wide);
    expect(narrowWidth).not.toEqual(wideWidth);
    expect(narrowTables).toEqual(wideTables);

    // The api reads across partitions the same answers.
    const busiest = await wide.pool.query<{ account: string }>(`select receiver as account from transfers where receiver is not null group by 1 order by count(*) desc, 1 limit 1`);
    const account = busiest.rows[0]!.account;
    for (const url of [`/transfers?account=${account}&limit=100`, `/activity?account_id=${account}&limit=100`, `/balances?account_id=${account}&at_height=150`]) {
      const body = await answer(narrow, url);
      expect(JSON.stringify(body).length, url).toBeGreaterThan(100);
      expect(body, url).toEqual(await answer(wide, url));
    }

    // Pages read arm by arm (sender, receiver; token in, token out) with time windows read as height ranges: the
    // rows of the plain `or` and time filters, in key order, across partitions and page after page.
    const { rows: times } = await narrow.pool.query<{ t: string }>(`select timestamp_ms::text as t from blocks where height in (60, 230) order by height`);
    const [after, before] = times.map((r) => Number(r.t));
    const token = (await narrow.pool.query<{ token: string }>(`select token_in as token from trades group by 1 order by count(*) desc, 1 limit 1`)).rows[0]!.token;
    const cases = [
      { url: `/transfers?account=${account}`, table: 'transfers', where: `(sender = $1 or receiver = $1)`, arg: account },
      { url: `/trades?token=${token}`, table: 'trades', where: `(token_in = $1 or token_out = $1)`, arg: token },
    ];
    for (const c of cases) {
      for (const order of ['newest', 'oldest']) {
        const dir = order === 'newest' ? 'desc' : 'asc';
        const { rows } = await narrow.pool.query<{ id: string }>(
          `select block_height || ':' || receipt_id || ':' || index as id from ${c.table}
            where ${c.where} and timestamp_ms > $2 and timestamp_ms < $3 order by block_height ${dir}, receipt_id ${dir}, index ${dir}`,
          [c.arg, after, before],
        );
        expect(rows.length, c.url).toBeGreaterThan(30);
        expect(await pagedIds(narrow, `${c.url}&order=${order}&after_millis=${after}&before_millis=${before}`, 13), `${c.url} ${order}`).toEqual(rows.map((r) => r.id));
      }
    }
    // The activity timeline, read arm by arm too: page after page gives what one long page gives.
    const trader = (await narrow.pool.query<{ trader: string }>(`select trader from trades t where block_height between 61 and 229 and exists (select 1 from transfers f where f.sender = t.trader and f.block_height between 61 and 229) group by 1 order by count(*) desc, 1 limit 1`)).rows[0]!.trader;
    for (const order of ['newest', 'oldest']) {
      const window = `/activity?account_id=${trader}&order=${order}&after_millis=${after}&before_millis=${before}`;
      const whole = (await answer(narrow, `${window}&limit=1000`)).rows.map((r: { id: string }) => r.id);
      expect(whole.length).toBeGreaterThan(30);
      expect(new Set(whole.map((id: string) => id.split(':')[0])).size, 'kinds').toBeGreaterThan(1);
      expect(await pagedIds(narrow, window, 7), order).toEqual(whole);
    }
  }, 240_000);

  it('the partition ahead gives way to a reader holding its table; one that rows need waits for it', async () => {
    const db = await createMigratedDb();
    await db.pool.query('update history_partitioning set width_blocks = 100');
    expect(await ensurePartitions(db.pool, [{ from: 10, to: 10 }])).toEqual([0, 100]);
    expect(await ensurePartitions(db.pool, [{ from: 20, to: 90 }])).toEqual([]);
    const holder = await db.pool.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from trades limit 1');
      // 150's partition exists; the one ahead (200) is left for later, and a reader meanwhile is not held up.
      expect(await ensurePartitions(db.pool, [{ from: 150, to: 150 }])).toEqual([]);
      expect((await db.pool.query('select count(*)::int as n from trades')).rows).toEqual([{ n: 0 }]);
      // 250 needs 200: that CREATE waits for the reader, and the one ahead (300) is made after it.
      const waiting = ensurePartitions(db.pool, [{ from: 250, to: 250 }]);
      const lockWaits = async () =>
        (await db.pool.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like 'create table%'`)).rows[0]!.n;
      while ((await lockWaits()) === 0) await new Promise((r) => setTimeout(r, 10));
      await holder.query('commit');
      expect(await waiting).toEqual([200, 300]);
    } finally {
      holder.release();
    }
    expect((await partitions(db.pool)).map((p) => p.from)).toEqual([0, 100, 200, 300]);
  });

  it('replay empties the partitions wholly inside its range with TRUNCATE, keeps those holding kept events, and ends with the same tables', async () => {
    const db = await createMigratedDb();
    await db.pool.query('update history_partitioning set width_blocks = 100');
    await ingest({ db, source: realnet(SEED), to: 350, signal: never });
    const clean = await tableChecksums(db);
    const nodes = async () => Object.fromEntries(await Promise.all(['events_p0', 'events_p100', 'events_p200', 'events_p300'].map(async (t) => [t, await filenode(db, t)])));

    const before = await nodes();
    await replay({ db, source: realnet(SEED), from: 100, to: 299, signal: never });
    const after = await nodes();
    // 100..199 and 200..299 are inside the range: emptied, so their files are new; 0..99 and 300..399 are not.
    expect([after.events_p0 === before.events_p0, after.events_p100 === before.events_p100, after.events_p200 === before.events_p200, after.events_p300 === before.events_p300]).toEqual([true, false, false, true]);
    expect(await tableChecksums(db)).toEqual(clean);

    // An event no block gives (learned over RPC) keeps its partition from being emptied, and survives the replay.
    await db.pool.query(
      `insert into events (block_height, receipt_id, index, kind, timestamp_ms, tx_hash, payload)
       select block_height, 'rpc:test', 0, 'test', timestamp_ms, null, '{}' from events where block_height = 150 limit 1`,
    );
    const withRpc = await nodes();
    await replay({ db, source: realnet(SEED), from: 100, to: 299, signal: never });
    const final = await nodes();
    expect([final.events_p100 === withRpc.events_p100, final.events_p200 === withRpc.events_p200]).toEqual([true, false]);
    expect((await db.pool.query(`select count(*)::int as n from events where receipt_id = 'rpc:test'`)).rows[0]!.n).toBe(1);
  }, 240_000);
});
