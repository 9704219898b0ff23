// One writer of the log at a time (indexer/store.ts `inLogTransaction`): the indexer's batches, replay, rebuild, a
// pools import and a bootstrap take the same lock first. An operator's `dexlake replay` beside a running indexer
// (which once ended `dexlake start` with PostgreSQL's "deadlock detected") waits for the batch in progress, and the
// tables come out as one writer after the other would leave them.
import { describe, expect, it } from 'vitest';
import { ingest } from '../indexer/pipeline.ts';
import { rebuild, replay } from '../indexer/replay.ts';
import { inLogTransaction } from '../indexer/store.ts';
import { tableChecksums } from './harness/db.ts';
import { indexedRealnetDb, realnet } from './harness/realnet.ts';

const SEED = 'partitions';
const never = new AbortController().signal;

describe('writers of the log', () => {
  it('replay and rebuild wait for a writer holding the log, then run', async () => {
    const db = await indexedRealnetDb(SEED, 60);
    let release!: () => void;
    let holding!: () => void;
    const held = new Promise<void>((r) => (holding = r));
    const holder = inLogTransaction(db, async () => {
      holding();
      await new Promise<void>((r) => (release = r));
    });
    await held;
    const replayed = replay({ db, source: realnet(SEED), from: 1, to: 10, signal: never });
    const rebuilt = rebuild(db);
    // Both sessions wait on the writers' advisory lock, not on a table.
    const waiting = async () =>
      (await db.pool.query<{ n: number }>(`select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`)).rows[0]!.n;
    for (let i = 0; (await waiting()) < 2; i++) {
      expect(i, 'replay and rebuild wait for the lock').toBeLessThan(600);
      await new Promise((r) => setTimeout(r, 50));
    }
    release();
    await holder;
    expect((await replayed).blocks).toBe(10);
    await rebuilt;
  });

  it('replays of early blocks beside an indexer writing later ones leave the tables of an uninterrupted run', async () => {
    const reference = await indexedRealnetDb(SEED, 200);
    const db = await indexedRealnetDb(SEED, 60);
    const indexing = ingest({ db, source: realnet(SEED), from: 61, to: 200, signal: never, limits: { maxBlocks: 5 } });
    for (let i = 0; i < 3; i++) await replay({ db, source: realnet(SEED), from: 1, to: 60, signal: never });
    await indexing;
    await replay({ db, source: realnet(SEED), from: 1, to: 60, signal: never });
    expect(await tableChecksums(db)).toEqual(await tableChecksums(reference));
  });
});
