// `dexlake pools import FILE`: AmmA pool snapshots (the get_pools view, a saved RPC answer, the Ref indexer's pools)
// become pool_state events at a height, projected like any other event. (Reading a node: test/bootstrap.test.ts.)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AmmAPoolStateEvent } from '../dexes/amm-a/events.ts';
import { blockView } from '../near/lake-json.ts';
import { ammA } from '../dexes/amm-a/index.ts';
import { parsePoolsJson, parseGetPools, type ImportedPoolState } from '../dexes/amm-a/snapshot.ts';
import { PoolsImportError } from '../dexes/dex.ts';
import { importReceiptId, poolStateEvents as eventsOf, type ImportAt } from '../indexer/pools-import/events.ts';
import { rebuild, replay } from '../indexer/replay.ts';
import { filesSource } from '../indexer/sources/files.ts';
import { prepareBatch, writeBatch } from '../indexer/store.ts';
import { runDexlake } from './harness/cli.ts';
import { createMigratedDb, tableChecksums } from './harness/db.ts';
import { readDataText } from './harness/fixtures.ts';


const IMPORT_RECEIPT_ID = importReceiptId(ammA);
const poolStateEvents = (pools: readonly ImportedPoolState[], at: ImportAt) => eventsOf(ammA, pools, at);
const never = new AbortController().signal;
const tmp = mkdtempSync(path.join(tmpdir(), 'dexlake-pools-import-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
// The real Ref snapshot (test/fixtures/pools), as the file an operator would import.
const SNAPSHOT = path.join(tmp, 'ref-indexer-pools-2024-04.json');
writeFileSync(SNAPSHOT, readDataText('pools/ref-indexer-pools-2024-04.json'));

async function dexlake(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const running = runDexlake(args, env);
  const { code } = await running.exited;
  return { code, output: running.output() };
}

function writeJson(name: string, value: unknown): string {
  const file = path.join(tmp, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

const rpcPool = (kind: string, tokens: string[], amounts: string[], fee = 30, shares = '1000', amp = 0) => ({
  pool_kind: kind,
  token_account_ids: tokens,
  amounts,
  total_fee: fee,
  shares_total_supply: shares,
  amp,
});

describe('parsing pool snapshots (pure)', () => {
  it('takes the simple pools of a get_pools page, numbered from from_index, and counts the others by kind', () => {
    const page = [
      rpcPool('SIMPLE_POOL', ['a.near', 'wrap.near'], ['5', '7'], 25, '12'),
      rpcPool('STABLE_SWAP', ['u.near', 'v.near'], ['1', '2'], 5, '3', 240),
      rpcPool('SIMPLE_POOL', ['b.near', 'c.near'], ['340282366920938463463374607431768211455', '0'], 0, '0'),
      rpcPool('RATED_SWAP', ['x.near', 'wrap.near'], ['1', '2'], 5, '3', 240),
      rpcPool('DEGEN_SWAP', ['x.near', 'y.near'], ['1', '2'], 5, '3', 240),
    ];
    const parsed = parseGetPools(page, 10);
    // Positions 0 and 2 are the simple pools: ids 10 + 0 and 10 + 2.
    expect(parsed.pools).toEqual<ImportedPoolState[]>([
      { poolId: 10, kind: 'simple', tokens: ['a.near', 'wrap.near'], amounts: [5n, 7n], totalFee: 25, sharesTotalSupply: 12n },
      { poolId: 12, kind: 'simple', tokens: ['b.near', 'c.near'], amounts: [2n ** 128n - 1n, 0n], totalFee: 0, sharesTotalSupply: 0n },
    ]);
    expect(parsed.skipped).toEqual({ STABLE_SWAP: 1, RATED_SWAP: 1, DEGEN_SWAP: 1 });
    expect(parsed.total).toBe(5);
  });

  it('reads a bare get_pools array from pool 0 and a saved JSON-RPC answer with its block height', () => {
    const pools = [rpcPool('SIMPLE_POOL', ['a.near', 'b.near'], ['1', '2']), rpcPool('SIMPLE_POOL', ['c.near', 'd.near'], ['3', '4'])];
    const bare = parsePoolsJson(pools);
    expect(bare).toMatchObject({ shape: 'get_pools', height: null, total: 2 });
    expect(bare.pools.map((p) => [p.poolId, p.amounts])).toEqual([
      [0, [1n, 2n]],
      [1, [3n, 4n]],
    ]);
    const answer = { jsonrpc: '2.0', id: 1, result: { result: [...Buffer.from(JSON.stringify(pools))], logs: [], block_height: 123_456, block_hash: 'h' } };
    const saved = parsePoolsJson(answer);
    expect(saved).toMatchObject({ shape: 'get_pools answer', height: 123_456, total: 2 });
    expect(saved.pools).toEqual(bare.pools);
  });

  it('puts the Ref indexer reserves in token order by token id, and skips DCL, stable and rated entries', () => {
    const parsed = parsePoolsJson({
      pools: [
        // asset is the SECOND token here: amounts must come out as [fiat, asset].
        { pool_id: 5, pool_kind: 'SIMPLE_POOL', token_account_ids: ['wrap.near', 'ref.near'], total_fee: 30, shares_total_supply: '9', asset_info_id: 'ref.near', asset_amount: '111', fiat_info_id: 'wrap.near', fiat_amount: '222' },
        { pool_id: 6, pool_kind: 'SIMPLE_POOL', token_account_ids: ['a.near', 'b.near'], total_fee: 20, shares_total_supply: '1', amounts: ['3', '4'] },
        { pool_id: 'a.near|wrap.near|2000', pool_kind: 'DCL', token_account_ids: ['a.near', 'wrap.near'], total_fee: 2000 },
        { pool_id: 7, pool_kind: 'STABLE_SWAP', token_account_ids: ['u.near', 'v.near'], total_fee: 5, shares_total_supply: '1', amounts: ['1', '1'] },
      ],
    });
    expect(parsed).toMatchObject({ shape: 'ref-indexer', height: null, total: 4, skipped: { DCL: 1, STABLE_SWAP: 1 } });
    expect(parsed.pools).toEqual<ImportedPoolState[]>([
      { poolId: 5, kind: 'simple', tokens: ['wrap.near', 'ref.near'], amounts: [222n, 111n], totalFee: 30, sharesTotalSupply: 9n },
      { poolId: 6, kind: 'simple', tokens: ['a.near', 'b.near'], amounts: [3n, 4n], totalFee: 20, sharesTotalSupply: 1n },
    ]);
  });

  it('refuses unknown shapes and malformed simple pools, naming the pool', () => {
    const fails = (json: unknown) => {
      try {
        parsePoolsJson(json);
      } catch (error) {
        expect(error).toBeInstanceOf(PoolsImportError);
        return (error as Error).message;
      }
      throw new Error(`accepted ${JSON.stringify(json)}`);
    };
    const simple = (over: Record<string, unknown>) => [{ ...rpcPool('SIMPLE_POOL', ['a.near', 'b.near'], ['1', '2']), ...over }];
    expect(fails({ data: [] })).toMatch(/^unknown shape/);
    expect(fails(42)).toMatch(/^unknown shape/);
    expect(fails([])).toBe('the file lists no pools');
    expect(fails([{ pool_id: 1, pool_kind: 'SIMPLE_POOL' }, { pool_kind: 'SIMPLE_POOL' }])).toMatch(/^unknown shape/);
    expect(fails(simple({ amounts: ['1', '2.5'] }))).toBe('pool 0 (SIMPLE_POOL): amounts ["1","2.5"] are not u128 decimal strings');
    expect(fails(simple({ amounts: ['1', '340282366920938463463374607431768211456'] }))).toMatch(/are not u128 decimal strings$/);
    expect(fails(simple({ token_account_ids: ['a.near', 'b.near', 'c.near'] }))).toMatch(/^pool 0 \(SIMPLE_POOL\): token_account_ids .* are not two account ids$/);
    expect(fails(simple({ total_fee: 10_001 }))).toBe('pool 0 (SIMPLE_POOL): total_fee 10001 is not in 0..10000');
    expect(fails(simple({ shares_total_supply: 5 }))).toBe('pool 0 (SIMPLE_POOL): shares_total_supply 5 is not a u128 decimal string');
    const indexerPool = { pool_kind: 'SIMPLE_POOL', token_account_ids: ['a.near', 'b.near'], total_fee: 30, shares_total_supply: '1', amounts: ['1', '2'] };
    expect(fails([{ ...indexerPool, pool_id: 3 }, { ...indexerPool, pool_id: 3 }])).toBe('pool 3 is listed twice');
    const { amounts: _given, ...withoutAmounts } = indexerPool;
    expect(fails([{ ...withoutAmounts, pool_id: 4, asset_info_id: 'a.near', fiat_info_id: 'c.near', asset_amount: '1', fiat_amount: '2' }])).toBe(
      'pool 4: asset_info_id and fiat_info_id are not its two tokens',
    );
  });

  it('makes one pool_state event per pool at (height, import:AmmA, i), in pool id order', () => {
    const pools: ImportedPoolState[] = [
      { poolId: 9, kind: 'simple', tokens: ['a.near', 'b.near'], amounts: [1n, 2n], totalFee: 30, sharesTotalSupply: 3n },
      { poolId: 2, kind: 'simple', tokens: ['c.near', 'd.near'], amounts: [4n, 5n], totalFee: 25, sharesTotalSupply: 6n },
    ];
    const events = poolStateEvents(pools, { contractId: 'v2.ref-finance.near', height: 77, timestampMs: 1234 });
    expect(events).toEqual([
      { kind: 'pool_state', blockHeight: 77, timestampMs: 1234, receiptId: 'import:AmmA', txHash: null, index: 0, dex: 'AmmA', contractId: 'v2.ref-finance.near', poolId: 2, state: pools[1], source: 'import' },
      { kind: 'pool_state', blockHeight: 77, timestampMs: 1234, receiptId: 'import:AmmA', txHash: null, index: 1, dex: 'AmmA', contractId: 'v2.ref-finance.near', poolId: 9, state: pools[0], source: 'import' },
    ]);
  });
});

describe('the Ref indexer snapshot imported with the real CLI', () => {
  const H = 115_000_000;
  let db: Awaited<ReturnType<typeof createMigratedDb>>;
  let first: { code: number | null; output: string };

  beforeAll(async () => {
    db = await createMigratedDb();
    first = await dexlake(['pools', 'import', SNAPSHOT, '--height', String(H)], { DATABASE_URL: db.url });
  });

  const poolRow = async (id: string) =>
    (
      await db.pool.query(`select tokens, amounts::text[], total_fee, updated_height::int as height, state from pools where dex = 'AmmA' and pool_id = $1`, [id])
    ).rows[0];

  it('imports the 1,107 simple pools and says what it skipped and what to run next', async () => {
    expect(first.code, first.output).toBe(0);
    // The file: 1,129 pools = 1,107 SIMPLE_POOL + 10 DCL + 8 RATED_SWAP + 4 STABLE_SWAP (fixtures/pools/README.md).
    expect(first.output).toContain('read 1129 pools');
    expect(first.output).toContain(`imported 1107 simple pools of v2.ref-finance.near at height ${H}`);
    expect(first.output).toContain('skipped 22 that cannot be represented exactly: 10 DCL (AmmDclA summaries without ticks), 8 RATED_SWAP');
    expect(first.output).toContain('4 STABLE_SWAP');
    expect(first.output).toContain(`dexlake index --from ${H + 1}`);
    const counts = await db.pool.query(
      `select (select count(*)::int from pools where dex = 'AmmA' and kind = 'simple' and updated_height = $1) as pools,
              (select count(*)::int from pool_history where block_height = $1) as history,
              (select count(*)::int from events where block_height = $1 and receipt_id = $2 and kind = 'pool_state') as events,
              (select count(*)::int from checkpoints) as checkpoints,
              (select count(*)::int from blocks) as blocks`,
      [H, IMPORT_RECEIPT_ID],
    );
    expect(counts.rows[0]).toEqual({ pools: 1107, history: 1107, events: 1107, checkpoints: 0, blocks: 0 });
  });

  it("keeps each pool's tokens, reserves and fee as the file gives them", async () => {
    // Read from the file by hand: the indexer's asset_amount is the reserve of asset_info_id (the first token in
    // these three), fiat_amount that of fiat_info_id (wrap.near).
    expect(await poolRow('4512')).toMatchObject({
      tokens: ['17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1', 'wrap.near'],
      amounts: ['3184805908116', '464959211720371596131608302317'],
      total_fee: 30,
      height: H,
    });
    expect(await poolRow('79')).toMatchObject({
      tokens: ['token.v2.ref-finance.near', 'wrap.near'],
      amounts: ['4566432890673217107327957', '299050805853470496119761168449'],
      total_fee: 40,
      state: {
        poolId: 79,
        kind: 'simple',
        tokens: ['token.v2.ref-finance.near', 'wrap.near'],
        amounts: ['4566432890673217107327957', '299050805853470496119761168449'],
        totalFee: 40,
        sharesTotalSupply: '51895648403921881953875011757',
      },
    });
    expect(await poolRow('4525')).toMatchObject({
      tokens: ['853d955acef822db058eb8505911ed77f175b99e.factory.bridge.near', 'wrap.near'],
      amounts: ['1210831580258617355638070', '176509597469666848440889451466'],
      total_fee: 30,
    });
    // 3515 is the LINEAR/wNEAR RATED_SWAP pool of the file: not importable exactly, so absent.
    expect(await poolRow('3515')).toBeUndefined();
    const event = await db.pool.query(`select payload->>'source' as source, timestamp_ms::int as ts from events where receipt_id = $1 and index = 0`, [IMPORT_RECEIPT_ID]);
    // Block H is not indexed and a file gives no time: timestamp 0, as the output says.
    expect(event.rows[0]).toEqual({ source: 'import', ts: 0 });
    expect(first.output).toContain(`block ${H} is not indexed and the file gives no time`);
  });

  it('changes nothing when the same file is imported again at the same height, nor on rebuild', async () => {
    const before = await tableChecksums(db);
    const again = await dexlake(['pools', 'import', SNAPSHOT, '--height', String(H)], { DATABASE_URL: db.url });
    expect(again.code, again.output).toBe(0);
    expect(again.output).toContain(`replaced the 1107 events of the earlier import at height ${H}`);
    expect(await tableChecksums(db)).toEqual(before);
    await rebuild(db);
    expect(await tableChecksums(db)).toEqual(before);
  });

  it('lets a later storage write of a pool override the import; replay keeps the import and drops what the blocks no longer give', async () => {
    const later = H + 5;
    const written: AmmAPoolStateEvent = {
      kind: 'pool_state',
      blockHeight: later,
      timestampMs: 1_713_000_000_000,
      receiptId: 'Ref79Swap1111111111111111111111111111111111',
      txHash: null,
      index: 0,
      dex: 'AmmA',
      contractId: 'v2.ref-finance.near',
      poolId: 79,
      state: {
        poolId: 79,
        kind: 'simple',
        tokens: ['token.v2.ref-finance.near', 'wrap.near'],
        // The imported reserves after someone put 1000 REF in and took 600 yoctoNEAR out.
        amounts: [4566432890673217107328957n, 299050805853470496119761167849n],
        volumes: [
          { input: 0n, output: 0n },
          { input: 0n, output: 0n },
        ],
        totalFee: 40,
        exchangeFee: 0,
        referralFee: 0,
        sharesPrefixHex: '024f000000',
        sharesTotalSupply: 51895648403921881953875011757n,
      },
    };
    const block = { height: later, hash: 'LaterBlock11111111111111111111111111111111', prevHash: 'Prev1111111111111111111111111111111111111111', timestampMs: 1_713_000_000_000, gapBefore: 0 };
    await writeBatch(db, prepareBatch([block], [written]));
    expect(await poolRow('79')).toMatchObject({ amounts: ['4566432890673217107328957', '299050805853470496119761167849'], height: later });
    expect(await poolRow('4512')).toMatchObject({ height: H });
    const history = await db.pool.query(`select block_height::int as h from pool_history where pool_id = '79' order by 1`);
    expect(history.rows.map((r) => r.h)).toEqual([H, later]);

    const afterWrite = await tableChecksums(db);
    await rebuild(db);
    expect(await tableChecksums(db)).toEqual(afterWrite);

    // The block file at `later` has no pool writes: replaying H..later removes the hand-written event (no block
    // gives it) but keeps the import (no block can give it).
    const blocks = mkdtempSync(path.join(tmp, 'blocks-'));
    const raw = blockView({ height: later, hash: block.hash, prevHash: block.prevHash, timestampNs: 1_713_000_000_000_000_000n, author: 'a.poolv1.near', chunkHashes: [] });
    writeFileSync(path.join(blocks, `${later}.json`), JSON.stringify({ block: raw, shards: [] }));
    await replay({ db, source: filesSource(blocks), from: H, to: later, signal: never });
    expect(await poolRow('79')).toMatchObject({ amounts: ['4566432890673217107327957', '299050805853470496119761168449'], height: H });
    const imported = await db.pool.query(`select count(*)::int as n from events where receipt_id = $1`, [IMPORT_RECEIPT_ID]);
    expect(imported.rows[0].n).toBe(1107);
    expect((await db.pool.query(`select count(*)::int as n from pools where dex = 'AmmA'`)).rows[0].n).toBe(1107);
  });
});
