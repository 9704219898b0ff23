// The ingestion pipeline on the real mainnet fixture blocks: log, projections, checkpoint and NOTIFY in one
// transaction per batch; resume, replay, rebuild and a failure injected mid-batch.
import path from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { ingest } from '../indexer/pipeline.ts';
import { rebuild, replay } from '../indexer/replay.ts';
import { realnet } from './harness/realnet.ts';
import { filesSource } from '../indexer/sources/files.ts';
import { rawSource } from '../indexer/sources/raw.ts';
import type { RawBlock } from '../indexer/sources/source.ts';
import { NOTIFY_CHANNEL } from '../indexer/store.ts';
import { allNotified, createMigratedDb, tableChecksums } from './harness/db.ts';
import { FIXTURES_DIR } from './harness/fixtures.ts';

const MAINNET = path.join(FIXTURES_DIR, 'mainnet');
const never = new AbortController().signal;

describe('ingest the mainnet fixture blocks', () => {
  let clean: Record<string, string>;
  let db: Awaited<ReturnType<typeof createMigratedDb>>;

  beforeAll(async () => {
    db = await createMigratedDb();
    const result = await ingest({ db, source: filesSource(MAINNET), signal: never, limits: { maxBlocks: 4 } });
    expect(result.blocks).toBe(25);
    clean = await tableChecksums(db);
  });

  it('records every block, with the heights skipped before each (the fixtures are sparse)', async () => {
    const blocks = await db.kysely.selectFrom('blocks').select(['height', 'gap_before']).orderBy('height').execute();
    expect(blocks.length).toBe(25);
    expect(blocks[0]).toEqual({ height: 34834052, gap_before: 0 });
    expect(blocks[1]).toEqual({ height: 34834053, gap_before: 0 });
    expect(blocks[2]).toEqual({ height: 42598892, gap_before: 42598892 - 34834053 - 1 });
    const checkpoint = await db.kysely.selectFrom('checkpoints').select(['name', 'height']).execute();
    expect(checkpoint).toEqual([{ name: 'indexer', height: 151768255 }]);
  });

  it('balances move by exactly the transfers of the block (hand-picked accounts of 114081912)', async () => {
    // The change of an account's balance across one block: its history row at the block minus the row before.
    const delta = async (token: string, account: string, height: number) => {
      const rows = await db.kysely
        .selectFrom('balance_history')
        .select(['block_height', 'balance'])
        .where('token', '=', token)
        .where('account', '=', account)
        .where('block_height', '<=', height)
        .orderBy('block_height', 'desc')
        .limit(2)
        .execute();
      expect(rows[0]?.block_height).toBe(height);
      return BigInt(rows[0]!.balance) - BigInt(rows[1]?.balance ?? 0);
    };
    // earn.kaiching paid out twelve wallet.kaiching transfers in this block: 180 + 1235 + 10 + 40 + 40 + 694 +
    // 2776 + 10 + 4940 + 1235 + 10 + 90 = 11260, and received none.
    expect(await delta('wallet.kaiching', 'earn.kaiching', 114081912)).toBe(-11260n);
    const transfers = await db.kysely.selectFrom('transfers').select(['amount']).where('block_height', '=', 114081912).where('token', '=', 'wallet.kaiching').where('sender', '=', 'earn.kaiching').execute();
    expect(transfers.length).toBe(12);
    // spin.sweat: three token.sweat transfers in, two out (summed from the block's EVENT_JSON logs with python).
    expect(await delta('token.sweat', 'spin.sweat', 114081912)).toBe(-1516000000000000000n);
  });

  it('keeps the projections consistent with the log', async () => {
    const q = async (text: string) => (await db.pool.query(text)).rows[0];
    // One transfer row per token movement event, gas refunds from `system` excluded.
    expect(await q(`select count(*)::int as n from transfers`)).toEqual(
      await q(`select count(*)::int as n from events where kind in ('ft_transfer','ft_mint','ft_burn') or (kind = 'near_transfer' and not (payload->>'refund')::bool)`),
    );
    // Current balances are the last row of each account's history, and the holder counts count positive balances.
    expect(await q(`select count(*)::int as n from balances b where balance <> (select h.balance from balance_history h where h.token = b.token and h.account = b.account order by block_height desc limit 1)`)).toEqual({ n: 0 });
    expect(await q(`select count(*)::int as n from tokens t where holders <> (select count(*) from balances b where b.token = t.token and b.balance > 0)`)).toEqual({ n: 0 });
    expect(await q(`select count(*)::int as n from transfers where token = 'near' and sender = 'system'`)).toEqual({ n: 0 });
    const wrap = await db.kysely.selectFrom('tokens').selectAll().where('token', '=', 'wrap.near').executeTakeFirstOrThrow();
    expect(wrap).toMatchObject({ symbol: 'wNEAR', decimals: 24, metadata_source: 'known', total_supply: null });
    expect(await q(`select count(*)::int as n from storage_registrations`)).toEqual(await q(`select count(distinct (payload->>'contractId', payload->>'accountId'))::int as n from events where kind = 'storage_deposit'`));
  });

  it('re-ingesting the same blocks changes nothing', async () => {
    const result = await ingest({ db, source: filesSource(MAINNET), from: 0, signal: never });
    expect(result.blocks).toBe(0);
    expect(await tableChecksums(db)).toEqual(clean);
  });

  it('rebuild re-derives exactly the same projections from the log', async () => {
    await rebuild(db);
    expect(await tableChecksums(db)).toEqual(clean);
  });

  it('a rebuild in many small chunks (one transaction, many batches) gives the same projections', async () => {
    // Every chunk reuses the projections' temp tables within the one transaction: none may see another's rows.
    await rebuild(db, undefined, 50);
    expect(await tableChecksums(db)).toEqual(clean);
  });

  it('replay of a range, twice, leaves every table as the clean run did', async () => {
    for (let i = 0; i < 2; i++) {
      const result = await replay({ db, source: filesSource(MAINNET), from: 82654651, to: 114081912, signal: never });
      expect(result.blocks).toBe(7);
      expect(await tableChecksums(db)).toEqual(clean);
    }
  });

  it('resumes from the checkpoint after a stop, to the same tables', async () => {
    const other = await createMigratedDb();
    const first = await ingest({ db: other, source: filesSource(MAINNET), to: 89402026, signal: never });
    expect(first.height).toBe(89402026);
    const second = await ingest({ db: other, source: filesSource(MAINNET), signal: never });
    expect(second.blocks).toBe(25 - first.blocks);
    expect(await tableChecksums(other)).toEqual(clean);
  });

  it('a failure injected mid-batch leaves the database exactly as before the batch', async () => {
    const other = await createMigratedDb();
    await ingest({ db: other, source: filesSource(MAINNET), to: 70834061, signal: never });
    const before = await tableChecksums(other);
    // A real failure inside the batch's transaction: the database refuses a balance row of a later block.
    await other.pool.query(`
      create function fail_at_height() returns trigger language plpgsql as $$
      begin if new.block_height = 105793821 then raise exception 'injected failure'; end if; return new; end $$;
      create trigger fail_at_height before insert on balance_history for each row execute function fail_at_height();`);
    await expect(ingest({ db: other, source: filesSource(MAINNET), signal: never, limits: { maxBlocks: 100, idleMs: 60_000 } })).rejects.toThrow(/injected failure/);
    expect(await tableChecksums(other)).toEqual(before);

    await other.pool.query(`drop trigger fail_at_height on balance_history; drop function fail_at_height()`);
    await ingest({ db: other, source: filesSource(MAINNET), signal: never });
    expect(await tableChecksums(other)).toEqual(clean);
  });

  it('a block being decoded is waited for, not taken for the chain head: catching up stays one batch', async () => {
    // Most of these blocks take far longer than 1 ms to decode; the files are all there, so nothing is idle.
    const sizes: number[] = [];
    const other = await createMigratedDb();
    await ingest({ db: other, source: filesSource(MAINNET), signal: never, limits: { maxBlocks: 100, idleMs: 1 }, onBatch: (_h, blocks) => sizes.push(blocks) });
    expect(sizes).toEqual([25]);
    expect(await tableChecksums(other)).toEqual(clean);
  });

  it('stops cleanly when aborted in the middle of a catch-up, keeping every committed batch', async () => {
    const other = await createMigratedDb();
    const controller = new AbortController();
    const result = await ingest({ db: other, source: filesSource(MAINNET), signal: controller.signal, limits: { maxBlocks: 1 }, onBatch: () => controller.abort() });
    expect(result.blocks).toBeGreaterThanOrEqual(1);
    expect(result.blocks).toBeLessThan(25);
    const checkpoint = await other.kysely.selectFrom('checkpoints').select('height').executeTakeFirstOrThrow();
    expect(checkpoint.height).toBe(result.height);
    const blocks = await other.kysely.selectFrom('blocks').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(blocks.n)).toBe(result.blocks);
  });

  it('announces each committed batch on dexlake_blocks with the height and the tokens it touched', async () => {
    const other = await createMigratedDb();
    const listener = new pg.Client(other.url);
    await listener.connect();
    const payloads: { height: number; pools: string[]; tokens: string[] }[] = [];
    listener.on('notification', (n) => n.channel === NOTIFY_CHANNEL && payloads.push(JSON.parse(n.payload!)));
    await listener.query(`listen ${NOTIFY_CHANNEL}`);
    try {
      await ingest({ db: other, source: filesSource(MAINNET), from: 114081912, to: 114081912, signal: never });
      await ingest({ db: other, source: filesSource(MAINNET), from: 117969098, to: 117969098, signal: never });
      await allNotified(listener);
      expect(payloads.map((p) => p.height)).toEqual([114081912, 117969098]);
      expect(payloads[0]!.pools).toEqual([]);
      expect(payloads[0]!.tokens).toContain('wallet.kaiching');
      expect(payloads[0]!.tokens).toContain('token.sweat');
      expect(payloads[0]!.tokens).toEqual([...payloads[0]!.tokens].sort());
    } finally {
      await listener.end();
    }
  });
});

describe('the announcement names every token whose market row a batch changed', () => {
  it('price, liquidity, 24 h volume or change: a subscriber to the token re-reads it (realnet blocks 1..60, one at a time)', async () => {
    const db = await createMigratedDb();
    const listener = new pg.Client(db.url);
    await listener.connect();
    const named = new Map<number, string[]>();
    listener.on('notification', (n) => {
      if (n.channel !== NOTIFY_CHANNEL) return;
      const payload = JSON.parse(n.payload!) as { height: number; tokens: string[] };
      named.set(payload.height, payload.tokens);
    });
    await listener.query(`listen ${NOTIFY_CHANNEL}`);
    const market = async () => {
      const { rows } = await db.pool.query<{ token: string; row: string }>(
        `select token, concat_ws('|', price_usd, liquidity_usd, volume_usd_24h, price_change_24h) as row from token_market`,
      );
      return new Map(rows.map((r) => [r.token, r.row]));
    };
    let unnamed: string[] = [];
    let liquidityOnly = 0;
    try {
      let before = await market();
      for (let height = 1; height <= 60; height++) {
        await ingest({ db, source: realnet('dexlake'), from: height, to: height, signal: never, workers: 0 });
        const after = await market();
        await allNotified(listener);
        const tokens = new Set(named.get(height) ?? []);
        for (const [token, row] of after) {
          if (before.get(token) === row) continue;
          if (!tokens.has(token)) unnamed.push(`${height} ${token}`);
          // A row whose price stayed but whose liquidity moved: what a price-only announcement missed.
          const was = before.get(token)?.split('|');
          const now = row.split('|');
          if (was !== undefined && was[0] === now[0] && was[1] !== now[1]) liquidityOnly++;
        }
        before = after;
      }
    } finally {
      await listener.end();
    }
    expect(unnamed).toEqual([]);
    expect(liquidityOnly).toBeGreaterThan(0);
  }, 120_000);
});

describe('batch size follows the source', () => {
  // When each block is there is the test's to say, not the clock's: a paced chain falls behind its schedule
  // whenever the machine is busy (decode workers starting under load), and the blocks that came due meanwhile
  // arrive at once, batched together. So the realnet's blocks are read first and handed out by the test.
  const chainBlocks = async (count: number): Promise<RawBlock[]> => {
    const raws: RawBlock[] = [];
    for await (const raw of realnet('batches').raw({ to: count }, never)) raws.push(raw);
    return raws;
  };

  it('catching up (every block already there) writes batches of maxBlocks', async () => {
    const raws = await chainBlocks(400);
    const db = await createMigratedDb();
    const sizes: number[] = [];
    const ready = rawSource('ready', false, async function* () {
      yield* raws;
    });
    await ingest({ db, source: ready, signal: never, limits: { maxBlocks: 100 }, onBatch: (_height, blocks) => sizes.push(blocks) });
    expect(sizes).toEqual([100, 100, 100, 100]);
  });

  it('at the chain head (the next block not there yet) each block is written on its own', async () => {
    const raws = await chainBlocks(10);
    const db = await createMigratedDb();
    const sizes: number[] = [];
    let committed = 0;
    let wake = (): void => {};
    // The chain head: a block appears once every block before it is committed, so the pipeline waits for the source
    // with one block pending (a pipeline that never wrote it on its own would hang here until the test times out).
    const head = rawSource('head', false, async function* (_range, signal) {
      for (const [i, raw] of raws.entries()) {
        while (committed < i && !signal.aborted) await new Promise<void>((resolve) => (wake = resolve));
        if (signal.aborted) return;
        yield raw;
      }
    });
    const onBatch = (_height: number, blocks: number) => {
      sizes.push(blocks);
      committed += blocks;
      wake();
    };
    await ingest({ db, source: head, signal: never, limits: { maxBlocks: 100, idleMs: 50 }, onBatch });
    expect(sizes).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  });
});

describe('a block whose bytes are gone', () => {
  it('fails the run (it does not wait forever for a decode that never comes)', async () => {
    // A body whose memory moved away (to another thread, say) is empty. Node silently drops a message that would move
    // such memory again (the run waited forever), so the block is not moved to its decode worker and the copy fails.
    const memory = new ArrayBuffer(30_000);
    const body = Buffer.from(memory);
    structuredClone(memory, { transfer: [memory] });
    expect(body.length).toBe(0);
    const db = await createMigratedDb();
    const source = rawSource('moved', false, async function* () {
      yield { kind: 'message', height: 1, body };
    });
    await expect(ingest({ db, source, to: 1, signal: never })).rejects.toThrow(/detached/);
  });
});
