// AmmDclA pool state through the real pipeline: a create_pool call opens the pool, liquidity events fill it, swaps
// move it, the contract's emergency removal empties part of it; the states land in `pools`/`pool_history` like any
// other DEX's, and stopping and resuming between blocks (the book re-seeded from the tables), a replay and a rebuild
// all end with the same tables as one run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { burn, mint, newPoolRecord, reserves, swapIn } from '../devnet/amm-dcl-a-math.ts';
import { ingest } from '../indexer/pipeline.ts';
import { rebuild, replay } from '../indexer/replay.ts';
import { filesSource } from '../indexer/sources/files.ts';
import { blockView, functionCallAction, receiptOutcome, shard, type RawJson } from '../near/lake-json.ts';
import { createMigratedDb, tableChecksums } from './harness/db.ts';

const DCL = 'dclv2.ref-labs.near';
const X = 'a.near';
const Y = 'b.near';
const POOL = `${X}|${Y}|2000`;
const never = new AbortController().signal;
const event = (name: string, item: Record<string, unknown>) => `EVENT_JSON:${JSON.stringify({ standard: 'dcl.ref', version: '1.0.0', event: name, data: [item] })}`;

// The swap of block 3, worked out on the state blocks 1 and 2 leave: a pool at point 0 with 10^18 of liquidity
// over [-4000, 4000). Worked out by the devnet's model of the contract (devnet/amm-dcl-a-math.ts, written from the
// contract's Rust source and importing nothing of dexes/amm-dcl-a), not by the indexer's port under test.
const LIQUIDITY = 10n ** 18n;
const seeded = mint(newPoolRecord(POOL, [X, Y], 2000, 40, 0), -4000, 4000, LIQUIDITY).pool;
// The log says protocol_fee 0: a pool without a protocol fee rate.
const swap = swapIn(seeded, X, 10n ** 15n, 0n);
// Block 4: the contract's emergency removal of half the position (`emergency_liquidity_removed`, C).
const emergency = burn(swap.pool, -4000, 4000, LIQUIDITY / 2n).pool;

function outcome(height: number, receiptId: string, method: string, args: unknown, logs: string[]): RawJson {
  return receiptOutcome({
    blockHash: `H${height}`,
    receiptId,
    predecessorId: 'owner.near',
    receiverId: DCL,
    signerId: 'owner.near',
    actions: [functionCallAction({ method, args, gas: 100n * 10n ** 12n, deposit: 0n })],
    logs,
    receiptIds: [],
    status: { SuccessValue: '' },
    txHash: `T${receiptId}`,
  });
}

function blockFile(dir: string, height: number, outcomes: RawJson[]): void {
  const message = {
    block: blockView({ height, hash: `H${height}`, prevHash: `H${height - 1}`, timestampNs: BigInt(height) * 1_000_000_000n, author: 'a.near', chunkHashes: [`C${height}`] }),
    shards: [shard({ shardId: 0, chunkHash: `C${height}`, blockHash: `H${height}`, prevBlockHash: `H${height - 1}`, height, transactions: [], outcomes, stateChanges: [] })],
  };
  writeFileSync(path.join(dir, `${height}.json`), JSON.stringify(message));
}

describe('AmmDclA pool state in the pipeline', () => {
  let dir: string;
  let oneRun: Record<string, string>;
  let db: Awaited<ReturnType<typeof createMigratedDb>>;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'dexlake-dcl-'));
    blockFile(dir, 1, [outcome(1, 'R1', 'create_pool', { token_a: Y, token_b: X, fee: 2000, init_point: 0 }, [])]);
    blockFile(dir, 2, [
      outcome(2, 'R2', 'ft_on_transfer', { sender_id: 'owner.near', amount: '1', msg: '' }, [
        event('liquidity_added', { lpt_id: `${POOL}#1`, owner_id: 'owner.near', pool_id: POOL, left_point: -4000, right_point: 4000, added_amount: String(LIQUIDITY), cur_amount: String(LIQUIDITY), paid_token_x: '1', paid_token_y: '1' }),
      ]),
    ]);
    blockFile(dir, 3, [
      outcome(3, 'R3', 'ft_on_transfer', { sender_id: 'alice.near', amount: String(10n ** 15n), msg: '' }, [
        event('swap', { swapper: 'alice.near', token_in: X, token_out: Y, amount_in: String(10n ** 15n), amount_out: String(swap.amountOut), pool_id: POOL, total_fee: String(swap.fee), protocol_fee: '0' }),
      ]),
    ]);
    blockFile(dir, 4, [
      outcome(4, 'R4', 'emergency_remove_liquidity', { lpt_id: `${POOL}#1` }, [
        event('emergency_liquidity_removed', { lpt_id: `${POOL}#1`, owner_id: 'owner.near', pool_id: POOL, left_point: -4000, right_point: 4000, removed_amount: String(LIQUIDITY / 2n), cur_amount: String(LIQUIDITY / 2n), refund_token_x: '1', refund_token_y: '1', claim_fee_token_x: '0', claim_fee_token_y: '0' }),
      ]),
    ]);
    blockFile(dir, 5, []);
    const whole = await createMigratedDb();
    await ingest({ db: whole, source: filesSource(dir), signal: never });
    oneRun = await tableChecksums(whole);
    await whole.close();
    db = await createMigratedDb();
  });

  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stopping after each block and resuming gives the tables of one run', async () => {
    for (const to of [1, 2, 3, 4, 5]) await ingest({ db, source: filesSource(dir), to, signal: never });
    expect(await tableChecksums(db)).toEqual(oneRun);
  });

  it('pools holds the state after the swap and the emergency removal: the swap re-simulated from the liquidity matched the log', async () => {
    const row = await db.kysely.selectFrom('pools').selectAll().where('dex', '=', 'AmmDclA').executeTakeFirstOrThrow();
    const state = row.state as { currentPoint: number; sqrtPrice96: string; liquidity: string; liquidityX: string; lastSwapCheck: { matched: boolean }; unmatchedSwaps: number; unappliedChanges: number };
    expect(swap.finished).toBe(true);
    expect(swap.amountIn).toBe(10n ** 15n);
    expect(row.pool_id).toBe(POOL);
    expect(row.tokens).toEqual([X, Y]);
    expect(row.amounts).toEqual(reserves(emergency).map(String));
    expect(reserves(emergency)).not.toEqual(reserves(swap.pool)); // the removal moved the reserves
    expect(swap.pool.liquidityX).toBeGreaterThan(0n); // X sold into the current point
    expect(state.currentPoint).toBe(emergency.currentPoint);
    expect(state.sqrtPrice96).toBe(String(emergency.sqrtPrice96));
    expect(state.liquidity).toBe(String(LIQUIDITY / 2n));
    expect(state.liquidityX).toBe(String(emergency.liquidityX));
    expect(state.lastSwapCheck.matched).toBe(true);
    expect([state.unmatchedSwaps, state.unappliedChanges]).toEqual([0, 0]);
    const history = await db.kysely.selectFrom('pool_history').select('block_height').where('dex', '=', 'AmmDclA').orderBy('block_height').execute();
    expect(history.map((h) => h.block_height)).toEqual([1, 2, 3, 4]);
  });

  it('a replay of the swap block, and a rebuild, leave the tables as they were', async () => {
    await replay({ db, source: filesSource(dir), from: 3, to: 3, signal: never });
    expect(await tableChecksums(db)).toEqual(oneRun);
    await rebuild(db);
    expect(await tableChecksums(db)).toEqual(oneRun);
  });
});
