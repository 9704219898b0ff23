// Nothing from the chain is fatal, nothing is silent: the real mainnet blocks plus one block holding a pool value
// that no decoder can read (real pool 3667 of block 81206675 with one byte appended, as another contract version
// could write it) and an event of a known standard with an unknown name. `dexlake index` goes on and exits 0, the
// inputs are kept in `undecoded` and listed by `dexlake undecoded`, counted on the indexer's /metrics, and the pool
// is stale (not routed) until a readable write arrives.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, inTransaction, type Db } from '../db/connect.ts';
import type { UndecodedEvent } from '../near/events.ts';
import { runIndexer } from '../indexer/main.ts';
import { KEEP_PER_DEX, readUndecodedTotals } from '../indexer/projections/undecoded.ts';
import { rebuild } from '../indexer/replay.ts';
import { startStatusServer } from '../indexer/status-server.ts';
import { applyProjections, prepareProjections } from '../indexer/store.ts';
import { processLogger } from '../cli/run.ts';
import { runDexlake } from './harness/cli.ts';
import { createMigratedDb, createTestDatabase, tableChecksums } from './harness/db.ts';
import { FIXTURES_DIR, readFixture } from './harness/fixtures.ts';
import { buildServer } from '../api/server.ts';
import { BlockWriter, eventually, getRoute } from './routing/helpers.ts';

interface Message {
  block: { header: Record<string, unknown> };
  shards: Array<{
    receipt_execution_outcomes: Array<{ execution_outcome: { outcome: { executor_id: string; logs: string[] } }; receipt: { receipt_id: string } }>;
    state_changes: Array<{ type: string; change: { account_id: string; key_base64?: string; value_base64?: string } }>;
  }>;
}

// Read by hand off mainnet/81206675.json: receipt 9DiG8... of v2.ref-finance.near writes pool 3667 (key
// 00 || u64le(3667) = AFMOAAAAAAAA, a 174-byte SimplePool value) and pool 1395; aurora's receipt 6jZh... logs
// two lines.
const REF_RECEIPT = '9DiG8Qe8xW5HgHfA5yaaWCjctKHcwQSwfpVAVLivNUPw';
const POOL_3667_KEY = Buffer.concat([Buffer.from([0]), Buffer.from(new BigUint64Array([3667n]).buffer)]).toString('base64');
const UNKNOWN_EVENT = 'EVENT_JSON:{"standard":"nep141","version":"1.0.0","event":"ft_freeze","data":[{"owner_id":"a.near","amount":"1"}]}';
// In none of the formats ref-exchange has ever logged (dexes/amm-a/logs.ts lists them).
const UNKNOWN_REF_LINE = 'Pool 3667 paused by the guardian for 600 seconds';

/** Block 81206675 under another height and hash; `corrupt` appends one byte to pool 3667's value, a line in no
 * known format to Ref's receipt and a nep141 event with an unknown name to aurora's receipt 6jZh.... */
function copyOf81206675(height: number, corrupt: boolean): Message {
  const m = structuredClone(readFixture('mainnet/81206675.json')) as Message;
  m.block.header = { ...m.block.header, height, hash: `copy-of-81206675-at-${height}` };
  if (!corrupt) return m;
  let written = 0;
  for (const shard of m.shards) {
    for (const sc of shard.state_changes) {
      if (sc.type !== 'data_update' || sc.change.account_id !== 'v2.ref-finance.near' || sc.change.key_base64 !== POOL_3667_KEY) continue;
      sc.change.value_base64 = Buffer.concat([Buffer.from(sc.change.value_base64!, 'base64'), Buffer.from([7])]).toString('base64');
      written++;
    }
    for (const o of shard.receipt_execution_outcomes) {
      if (o.receipt.receipt_id === '6jZhbuVwdgcmPacFdg7fYGp7BpP3zR9EGgd1YyQZ4uKw') {
        o.execution_outcome.outcome.logs.push(UNKNOWN_EVENT);
        written++;
      }
      if (o.receipt.receipt_id === REF_RECEIPT) {
        o.execution_outcome.outcome.logs.push(UNKNOWN_REF_LINE);
        written++;
      }
    }
  }
  expect(written).toBe(3);
  return m;
}

async function dexlake(args: string[], url: string): Promise<{ code: number | null; output: string }> {
  const running = runDexlake(args, { DATABASE_URL: url, LOG_LEVEL: 'warn', DEXLAKE_SOURCE: undefined, DEXLAKE_FROM: undefined, DEXLAKE_TO: undefined });
  const { code } = await running.exited;
  return { code, output: running.output() };
}

describe('undecoded input from the chain', () => {
  let dir = '';
  let url = '';
  let db: Db;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dexlake-undecoded-'));
    for (const file of readdirSync(path.join(FIXTURES_DIR, 'mainnet'))) {
      const name = file.replace(/\.gz$/, '');
      writeFileSync(path.join(dir, name), JSON.stringify(readFixture(`mainnet/${name}`)));
    }
    writeFileSync(path.join(dir, 'corrupt-81206676.json'), JSON.stringify(copyOf81206675(81206676, true)));
    url = (await createTestDatabase()).url;
    db = connect(url);
  });
  afterAll(async () => {
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('dexlake index reads past them and exits 0', async () => {
    const { code, output } = await dexlake(['index', '--source', `files:${dir}`], url);
    expect(code, output).toBe(0);
    expect(output).toContain('undecoded input kept');
    const { rows } = await db.pool.query('select count(*)::int as n, count(*) filter (where height = 81206676)::int as corrupt from blocks');
    expect(rows[0]).toEqual({ n: 26, corrupt: 1 });
  });

  it('keeps each with its height, receipt, reason and raw text', async () => {
    const { rows } = await db.pool.query('select block_height, receipt_id, dex, kind, contract_id, pool_id, reason, raw from undecoded order by dex, kind desc');
    expect(rows).toHaveLength(3);
    const [amm, ammLog, nep141] = rows;
    expect(amm).toMatchObject({ block_height: 81206676, receipt_id: REF_RECEIPT, dex: 'AmmA', kind: 'state', contract_id: 'v2.ref-finance.near', pool_id: '3667' });
    expect(amm.reason).toContain('1 leftover byte(s) after offset 174 of 175');
    expect(amm.raw.startsWith(`${POOL_3667_KEY}=`)).toBe(true);
    expect(Buffer.from(amm.raw.split('=')[1], 'base64')).toHaveLength(175);
    // The receipt swaps through two pools (3667, 1395): the line names neither, so no pool goes stale for it.
    expect(ammLog).toMatchObject({ block_height: 81206676, receipt_id: REF_RECEIPT, dex: 'AmmA', kind: 'log', contract_id: 'v2.ref-finance.near', pool_id: null, raw: UNKNOWN_REF_LINE });
    expect(nep141).toMatchObject({ block_height: 81206676, dex: 'NEP-141', kind: 'log', contract_id: 'aurora', pool_id: null, raw: UNKNOWN_EVENT });
    expect(nep141.reason).toBe('unknown nep141 event "ft_freeze"');
    const totals = await db.pool.query('select dex, kind, count::int from undecoded_totals order by dex, kind');
    expect(totals.rows).toEqual([
      { dex: 'AmmA', kind: 'log', count: 1 },
      { dex: 'AmmA', kind: 'state', count: 1 },
      { dex: 'NEP-141', kind: 'log', count: 1 },
    ]);
  });

  it('marks the unreadable pool stale and leaves the others of the same receipt alone', async () => {
    const { rows } = await db.pool.query(`select pool_id, stale, updated_height::int from pools where dex = 'AmmA' and pool_id in ('3667', '1395') order by pool_id`);
    // 3667 keeps its last readable state (block 81206675's) but is stale; 1395 was written readably at 81206676.
    expect(rows).toEqual([
      { pool_id: '1395', stale: false, updated_height: 81206676 },
      { pool_id: '3667', stale: true, updated_height: 81206675 },
    ]);
  });

  it('dexlake undecoded lists them, totals first; --dex filters; --json prints rows', async () => {
    const all = await dexlake(['undecoded'], url);
    expect(all.code, all.output).toBe(0);
    expect(all.output).toMatch(/AmmA\s+log\s+1/);
    expect(all.output).toMatch(/AmmA\s+state\s+1/);
    expect(all.output).toMatch(/NEP-141\s+log\s+1/);
    expect(all.output).toContain(`81206676  AmmA  state  v2.ref-finance.near  pool 3667  receipt ${REF_RECEIPT}`);
    expect(all.output).toContain('reason: ');
    expect(all.output).toContain(`raw: ${UNKNOWN_EVENT}`);

    const json = await dexlake(['undecoded', '--dex', 'NEP-141', '--json'], url);
    expect(json.code, json.output).toBe(0);
    const lines = json.output.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([expect.objectContaining({ dex: 'NEP-141', kind: 'log', contract_id: 'aurora', raw: UNKNOWN_EVENT })]);

    const none = await dexlake(['undecoded', '--dex', 'StakeC'], url);
    expect(none.output).toContain('nothing undecoded for StakeC');

    const bad = await dexlake(['undecoded', '--limit', '0'], url);
    expect(bad.code).toBe(2);
    expect(bad.output).toContain('--limit 0: expected an integer from 1 to 1000');
    const unknown = await dexlake(['undecoded', '--dex', 'Uniswap'], url);
    expect(unknown.code).toBe(2);
    expect(unknown.output).toContain('--dex Uniswap: expected one of AmmA, AmmDclA, AmmC, QuoteA, Launch, Wrap, StakeA, StakeB, StakeC, StakeD, NEP-141, NEP-145, NEP-297');
  });

  it('rebuild derives the same tables from the event log', async () => {
    const before = await tableChecksums(db);
    await rebuild(db);
    expect(await tableChecksums(db)).toEqual(before);
  });

  it('the indexer counts them on /metrics, and a readable write makes the pool fresh again', async () => {
    rmSync(dir, { recursive: true, force: true });
    dir = mkdtempSync(path.join(os.tmpdir(), 'dexlake-undecoded-'));
    // Above the checkpoint (151768255, the newest real block), where the indexer resumes.
    writeFileSync(path.join(dir, 'corrupt.json'), JSON.stringify(copyOf81206675(151768256, true)));
    writeFileSync(path.join(dir, 'fresh.json'), JSON.stringify(copyOf81206675(151768257, false)));
    const status = await startStatusServer(0, '127.0.0.1');
    try {
      // As `dexlake index` wires it: the counter starts from the totals so far, then counts each batch.
      status.addUndecoded(await readUndecodedTotals(db.kysely));
      await runIndexer({ db, source: `files:${dir}`, logger: processLogger('indexer', 'silent'), signal: new AbortController().signal, onUndecoded: status.addUndecoded });
      const metrics = await (await fetch(`http://127.0.0.1:${status.port}/metrics`)).text();
      expect(metrics).toContain('dexlake_indexer_undecoded_total{dex="AmmA",kind="state"} 2');
      expect(metrics).toContain('dexlake_indexer_undecoded_total{dex="AmmA",kind="log"} 2');
      expect(metrics).toContain('dexlake_indexer_undecoded_total{dex="NEP-141",kind="log"} 2');
    } finally {
      await status.close();
    }
    const { rows } = await db.pool.query(`select stale, updated_height::int from pools where dex = 'AmmA' and pool_id = '3667'`);
    expect(rows).toEqual([{ stale: false, updated_height: 151768257 }]);
  });
});

describe('the undecoded projection', () => {
  it(`keeps the newest ${KEEP_PER_DEX} per DEX and counts every one`, async () => {
    const db = await createMigratedDb();
    const event = (height: number, dex: string): UndecodedEvent => ({
      blockHeight: height,
      timestampMs: height * 1000,
      receiptId: `r${height}`,
      txHash: null,
      index: 0,
      kind: 'undecoded',
      dex,
      input: 'log',
      contractId: 'c.near',
      poolId: null,
      reason: 'test',
      raw: `line ${height} with a NUL \u0000 and a tab \t`,
    });
    // Two batches, so the trim runs over rows of an earlier batch too; another DEX's rows are not touched.
    for (const heights of [[1, 600], [601, KEEP_PER_DEX + 5]]) {
      const events: UndecodedEvent[] = [];
      for (let h = heights[0]!; h <= heights[1]!; h++) events.push(event(h, 'X'));
      events.push(event(heights[1]! + 10_000, 'Y'));
      await inTransaction(db, (tx) => applyProjections(tx, prepareProjections(events)));
    }
    const kept = await db.pool.query(`select dex, count(*)::int as n, min(block_height)::int as oldest from undecoded group by dex order by dex`);
    expect(kept.rows).toEqual([
      { dex: 'X', n: KEEP_PER_DEX, oldest: 6 },
      { dex: 'Y', n: 2, oldest: 10_600 },
    ]);
    const totals = await db.pool.query('select dex, count::int from undecoded_totals order by dex');
    expect(totals.rows).toEqual([
      { dex: 'X', count: KEEP_PER_DEX + 5 },
      { dex: 'Y', count: 2 },
    ]);
    const raw = await db.pool.query(`select raw from undecoded where dex = 'X' and block_height = 6`);
    expect(raw.rows[0].raw).toBe('line 6 with a NUL \\u0000 and a tab \t');
  });
});

describe('a stale pool is not routed', () => {
  it('until a readable state arrives', async () => {
    const db = await createMigratedDb();
    const writer = new BlockWriter(db);
    const pool = (amounts: bigint[]) => ({
      dex: 'AmmA' as const,
      contractId: 'v2.ref-finance.near',
      poolId: 1,
      state: { kind: 'simple', tokens: ['alpha.near', 'beta.near'], amounts, totalFee: 30, exchangeFee: 0, referralFee: 0 },
    });
    await writer.write([pool([1_000_000n, 2_000_000n])]);
    const app = await buildServer({ db, logLevel: 'silent' });
    try {
      await app.ready();
      const route = async () =>
        (await getRoute(app, { token_in: 'alpha.near', token_out: 'beta.near', amount_in: '1000', max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.01' })).json();
      // floor(1000·9970·2 000 000 / (10000·1 000 000 + 1000·9970)) = 1992, as in routing/route.test.ts
      expect((await route()).map((q) => q.estimated_amount)).toEqual([{ amount_out: '1992' }]);
      const unreadable = { kind: 'undecoded', dex: 'AmmA', input: 'state', contractId: 'v2.ref-finance.near', poolId: '1', reason: 'unknown Pool variant 9', raw: 'AAEAAAAAAAAA=CQ==' };
      await writer.write([], [], [unreadable]);
      await eventually(async () => ((await route()).length === 0 ? true : undefined));
      // 1000·9970·4 000 000 / (10000·1 000 000 + 1000·9970) = 3984.1...
      await writer.write([pool([1_000_000n, 4_000_000n])]);
      const fresh = await eventually(async () => {
        const quotes = await route();
        return quotes.length ? quotes : undefined;
      });
      expect(fresh.map((q) => q.estimated_amount)).toEqual([{ amount_out: '3984' }]);
    } finally {
      await app.close();
    }
  });
});
