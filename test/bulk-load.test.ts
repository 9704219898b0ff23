// Bulk-load mode (indexer/bulk-load.ts): a bounded run that drops the history tables' indexes while far from its end
// ends with the tables and indexes of a run without it; stopped in the middle, deferred_indexes names exactly what
// is missing, the api answers the same (saying so in /health), and the next run builds them.
import { describe, expect, it } from 'vitest';
import { buildServer } from '../api/server.ts';
import type { Db } from '../db/connect.ts';
import { BULK_LOAD_INDEXES, buildIndexes } from '../indexer/bulk-load.ts';
import { ingest, type BulkLoadState } from '../indexer/pipeline.ts';
import { readCheckpoint } from '../indexer/store.ts';
import { createMigratedDb, tableChecksums } from './harness/db.ts';
import { realnet } from './harness/realnet.ts';

const TO = 300;
// The realnet (`npm start`'s chain) of this seed, each block made once for the file (tokens/harness.ts).
const SEED = 'bulk-load';
const never = new AbortController().signal;

/** Every index of the schema with its definition, and every constraint with its own. */
async function schemaIndexes(db: Db): Promise<string[]> {
  const { rows } = await db.pool.query<{ line: string }>(
    `select indexname || ': ' || indexdef as line from pg_indexes where schemaname = 'public'
     union all select conname || ': ' || pg_get_constraintdef(oid) from pg_constraint where connamespace = 'public'::regnamespace
     order by 1`,
  );
  return rows.map((r) => r.line);
}

/** Each index of the schema with the index it is part of: the partitioned table's, or itself. */
async function indexRoots(db: Db): Promise<Map<string, string>> {
  const { rows } = await db.pool.query<{ name: string; root: string }>(
    `select c.relname as name, r.relname as root from pg_class c join pg_class r on r.oid = coalesce(pg_partition_root(c.oid), c.oid)
      where c.relkind in ('i', 'I') and c.relnamespace = 'public'::regnamespace`,
  );
  return new Map(rows.map((r) => [r.name, r.root]));
}

async function deferred(db: Db): Promise<string[]> {
  return (await db.pool.query<{ name: string }>('select name from deferred_indexes order by name')).rows.map((r) => r.name);
}

describe('bulk-load mode', () => {
  it('a bounded run drops the history indexes while far from its end and ends with the tables and indexes of a run without it', async () => {
    const clean = await createMigratedDb();
    await ingest({ db: clean, source: realnet(SEED), to: TO, signal: never });
    const bulk = await createMigratedDb();
    const states: BulkLoadState[] = [];
    const result = await ingest({
      db: bulk,
      source: realnet(SEED),
      to: TO,
      signal: never,
      bulkLoad: { distance: 100 },
      onBulkLoad: (state) => states.push(state),
    });

    expect(result.height).toBe(TO);
    // Dropped after the first batch (100 blocks in, 200 from the end), built once 100 or fewer were left.
    expect(states.map((s) => [s.change, s.missing])).toEqual([
      ['dropped', [...BULK_LOAD_INDEXES].sort()],
      ['built', []],
    ]);
    expect(await schemaIndexes(bulk)).toEqual(await schemaIndexes(clean));
    expect(await tableChecksums(bulk)).toEqual(await tableChecksums(clean));
  }, 180_000);

  it('stopped in bulk-load mode: deferred_indexes names what is missing, the api answers the same and says so, the next run builds them', async () => {
    const clean = await createMigratedDb();
    await ingest({ db: clean, source: realnet(SEED), to: TO, signal: never });
    const complete = await schemaIndexes(clean);

    const db = await createMigratedDb();
    const stop = new AbortController();
    await ingest({
      db,
      source: realnet(SEED),
      to: TO,
      signal: stop.signal,
      bulkLoad: { distance: 100 },
      onBulkLoad: (state) => state.change === 'dropped' && stop.abort(),
    });
    expect(await deferred(db)).toEqual([...BULK_LOAD_INDEXES].sort());
    const present = await schemaIndexes(db);
    const missing = complete.filter((line) => !present.includes(line));
    // Each missing index is one of the list or a partition's part of one.
    const roots = await indexRoots(clean);
    expect(new Set(missing.map((line) => roots.get(line.split(':')[0]!)))).toEqual(new Set(BULK_LOAD_INDEXES));

    // The api meanwhile: /health says which are missing; a history query scans instead, with the same answer.
    const { rows } = await db.pool.query<{ token: string; account: string }>(
      `select token, receiver as account from transfers where receiver is not null group by 1, 2 order by count(*) desc, 1, 2 limit 1`,
    );
    const { token, account } = rows[0]!;
    // A past height of the stopped run (where it stopped depends on its batches' sizes).
    const past = Math.floor((await readCheckpoint(db.kysely))!.height / 2);
    const queries = [`/transfers?token=${token}&limit=20`, `/transfers?account=${account}&limit=20`, `/activity?account_id=${account}&limit=20`, `/balances?account_id=${account}&at_height=${past}`];
    const answers = async (): Promise<{ health: Record<string, unknown>; bodies: unknown[] }> => {
      const app = await buildServer({ db, logLevel: 'silent' });
      try {
        const health = (await app.inject('/health')).json();
        const bodies = [];
        for (const q of queries) {
          const res = await app.inject(q);
          expect(res.statusCode, `${q}: ${res.body}`).toBe(200);
          bodies.push(res.json());
        }
        return { health, bodies };
      } finally {
        await app.close();
      }
    };
    const without = await answers();
    expect(without.health.bulk_load).toEqual({ indexes_missing: [...BULK_LOAD_INDEXES].sort(), note: expect.stringContaining('slower') });
    expect(without.bodies.every((b) => JSON.stringify(b).length > 100)).toBe(true);
    await buildIndexes(db);
    const withIndexes = await answers();
    expect(withIndexes.health.bulk_load).toBeUndefined();
    expect(withIndexes.bodies).toEqual(without.bodies);

    // Dropped again by a run that resumes far from its end, then built by one that is not: the clean run's state.
    const states: BulkLoadState[] = [];
    const restartStop = new AbortController();
    await ingest({
      db,
      source: realnet(SEED),
      to: TO,
      signal: restartStop.signal,
      bulkLoad: { distance: 10 },
      limits: { maxBlocks: 20 },
      onBulkLoad: (state) => {
        states.push(state);
        if (state.change === 'dropped') restartStop.abort();
      },
    });
    expect(states.map((s) => s.change)).toEqual(['dropped']);
    await ingest({ db, source: realnet(SEED), to: TO, signal: never, onBulkLoad: (state) => states.push(state) });
    expect(states.map((s) => s.change)).toEqual(['dropped', 'resumed', 'built']);
    expect(await deferred(db)).toEqual([]);
    expect(await schemaIndexes(db)).toEqual(complete);
    expect(await tableChecksums(db)).toEqual(await tableChecksums(clean));
  }, 180_000);
});
