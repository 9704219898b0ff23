// The `trades` projection: the swap events (hops) of one (dex, receipt) become one trade, token and amount in of
// the first hop, token and amount out of the last. Scripted events go through the real store (writeBatch) into
// a real database; the real mainnet blocks' AmmA swaps must give trades equal to their `Swapped` log lines, read
// here straight from the block JSON.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SwapEvent } from '../dexes/events.ts';
import type { DomainEvent } from '../indexer/event-rows.ts';
import { ingest } from '../indexer/pipeline.ts';
import { groupTrades } from '../indexer/projections/trades.ts';
import { filesSource } from '../indexer/sources/files.ts';
import { prepareBatch, writeBatch, type BlockRow } from '../indexer/store.ts';
import { createMigratedDb } from './harness/db.ts';
import { FIXTURES_DIR, readFixture } from './harness/fixtures.ts';

const HEIGHT = 1_000;
const TIME = 1_704_067_200_000;

function hop(receiptId: string, index: number, poolId: number | string | null, tokenIn: string, amountIn: bigint, tokenOut: string, amountOut: bigint, trader = 'alice.near'): SwapEvent {
  return {
    kind: 'swap',
    blockHeight: HEIGHT,
    timestampMs: TIME,
    receiptId,
    txHash: `tx-${receiptId}`,
    index,
    dex: 'AmmA',
    contractId: 'v2.ref-finance.near',
    poolId,
    trader,
    tokenIn,
    tokenOut,
    amountIn,
    amountOut,
    totalFee: null,
    adminFee: null,
  };
}

const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';

// Receipt r1: a two-hop swap, 100 SWEAT -> 7 wNEAR (pool 3667) -> 5 USDC (pool 1395); its first event (index 0)
// is not a swap (a transfer). Receipt r2: one hop of bob's, 9 wNEAR -> 40 REF, pool unknown to the decoder.
// Receipt r3: a Wrap-dex swap (near -> wrap.near, 1:1) in the same receipt as an AmmA hop: two trades.
const scripted = (): DomainEvent[] => [
  { kind: 'ft_transfer', blockHeight: HEIGHT, timestampMs: TIME, receiptId: 'r1', txHash: 'tx-r1', index: 0, contractId: 'token.sweat', from: 'alice.near', to: 'v2.ref-finance.near', amount: 100n, memo: null },
  hop('r1', 1, 3667, 'token.sweat', 100n, 'wrap.near', 7n),
  hop('r1', 2, 1395, 'wrap.near', 7n, USDC, 5n),
  hop('r2', 0, null, 'wrap.near', 9n, 'token.v2.ref-finance.near', 40n, 'bob.near'),
  { ...hop('r3', 0, 'wrap.near', 'near', 3n, 'wrap.near', 3n, 'carol.near'), dex: 'Wrap', contractId: 'wrap.near' },
  hop('r3', 1, 2043, 'wrap.near', 3n, 'v3.oin_finance.near', 11n, 'carol.near'),
];

describe('groupTrades (pure)', () => {
  it('makes one trade of the hops of one receipt: first token in, last token out', () => {
    const trades = groupTrades(scripted());
    expect(trades.map((t) => [t.receiptId, t.dex, t.tokenIn, t.amountIn, t.tokenOut, t.amountOut, t.poolIds, t.index])).toEqual([
      ['r1', 'AmmA', 'token.sweat', 100n, USDC, 5n, ['3667', '1395'], 1],
      ['r2', 'AmmA', 'wrap.near', 9n, 'token.v2.ref-finance.near', 40n, [null], 0],
      ['r3', 'Wrap', 'near', 3n, 'wrap.near', 3n, ['wrap.near'], 0],
      ['r3', 'AmmA', 'wrap.near', 3n, 'v3.oin_finance.near', 11n, ['2043'], 1],
    ]);
  });
});

describe('trades through the store', () => {
  let db: Awaited<ReturnType<typeof createMigratedDb>>;

  beforeAll(async () => {
    db = await createMigratedDb();
    const block: BlockRow = { height: HEIGHT, hash: 'h1000', prevHash: 'h999', timestampMs: TIME, gapBefore: 0 };
    await writeBatch(db, prepareBatch([block], scripted()));
  });

  it('writes one row per (dex, receipt), with the hop count and the pools in order', async () => {
    const { rows } = await db.pool.query(
      `select receipt_id, dex, trader, token_in, amount_in::text, token_out, amount_out::text, hops, pool_ids, tx_hash, block_height, timestamp_ms
       from trades order by block_height, receipt_id, index`,
    );
    expect(rows).toEqual([
      { receipt_id: 'r1', dex: 'AmmA', trader: 'alice.near', token_in: 'token.sweat', amount_in: '100', token_out: USDC, amount_out: '5', hops: 2, pool_ids: ['3667', '1395'], tx_hash: 'tx-r1', block_height: HEIGHT, timestamp_ms: TIME },
      { receipt_id: 'r2', dex: 'AmmA', trader: 'bob.near', token_in: 'wrap.near', amount_in: '9', token_out: 'token.v2.ref-finance.near', amount_out: '40', hops: 1, pool_ids: [null], tx_hash: 'tx-r2', block_height: HEIGHT, timestamp_ms: TIME },
      { receipt_id: 'r3', dex: 'Wrap', trader: 'carol.near', token_in: 'near', amount_in: '3', token_out: 'wrap.near', amount_out: '3', hops: 1, pool_ids: ['wrap.near'], tx_hash: 'tx-r3', block_height: HEIGHT, timestamp_ms: TIME },
      { receipt_id: 'r3', dex: 'AmmA', trader: 'carol.near', token_in: 'wrap.near', amount_in: '3', token_out: 'v3.oin_finance.near', amount_out: '11', hops: 1, pool_ids: ['2043'], tx_hash: 'tx-r3', block_height: HEIGHT, timestamp_ms: TIME },
    ]);
  });

  it('keeps one trade_hops row per hop beside them', async () => {
    const { rows } = await db.pool.query(`select count(*)::int as n from trade_hops`);
    expect(rows[0].n).toBe(5);
  });

  it('values no trade while no pool prices anything, not even one paying out USDC (anchors are priced only while a pool holds them)', async () => {
    const { rows } = await db.pool.query(`select count(*)::int as n from trades where value_usd is not null`);
    expect(rows[0].n).toBe(0);
  });
});

/** The Swapped lines of the successful receipts executed by the AmmA contract in a fixture block, per receipt,
 * with the pool ids of the receipt's swap actions: read from the JSON with no code of ours. */
function swappedByReceipt(height: number) {
  type Outcome = { execution_outcome: { id: string; outcome: { executor_id: string; logs: string[]; status: Record<string, unknown> } }; receipt: { predecessor_id: string; receipt: { Action?: { actions: { FunctionCall?: { args: string } }[] } } } };
  const block = readFixture(`mainnet/${height}.json`) as { shards: { receipt_execution_outcomes: Outcome[] }[] };
  const result: { receipt: string; trader: string; hops: [string, string, string, string][]; pools: number[] }[] = [];
  for (const shard of block.shards) {
    for (const o of shard.receipt_execution_outcomes) {
      const { id, outcome } = o.execution_outcome;
      if (outcome.executor_id !== 'v2.ref-finance.near' || 'Failure' in outcome.status) continue;
      const hops = outcome.logs.flatMap((line) => {
        const m = /^Swapped (\d+) (\S+) for (\d+) (\S+?),?( |$)/.exec(line);
        return m ? [[m[1]!, m[2]!, m[3]!, m[4]!] as [string, string, string, string]] : [];
      });
      if (!hops.length) continue;
      const args = JSON.parse(Buffer.from(o.receipt.receipt.Action!.actions[0]!.FunctionCall!.args, 'base64').toString()) as { sender_id?: string; msg?: string; actions?: { pool_id: number }[] };
      const actions = args.actions ?? (JSON.parse(args.msg!) as { actions: { pool_id: number }[] }).actions;
      result.push({ receipt: id, trader: args.sender_id ?? o.receipt.predecessor_id, hops, pools: actions.map((a) => a.pool_id) });
    }
  }
  return result;
}

describe('trades of the real AmmA swaps in the mainnet fixture blocks', () => {
  let db: Awaited<ReturnType<typeof createMigratedDb>>;
  const HEIGHTS = [55905793, 81206675, 151768255];

  beforeAll(async () => {
    db = await createMigratedDb();
    await ingest({ db, source: filesSource(path.join(FIXTURES_DIR, 'mainnet')), signal: new AbortController().signal });
  });

  it('gives one AmmA trade per swapping receipt, with the amounts of its first and last Swapped lines', async () => {
    const expected = HEIGHTS.flatMap((height) =>
      swappedByReceipt(height).map(({ receipt, trader, hops, pools }) => ({
        block_height: height,
        receipt_id: receipt,
        trader,
        token_in: hops[0]![1],
        amount_in: hops[0]![0],
        token_out: hops.at(-1)![3],
        amount_out: hops.at(-1)![2],
        hops: hops.length,
        pool_ids: pools.map(String),
      })),
    );
    // What the JSON says, written out: 55905793 dogwater.near 15000000000 v3.oin_finance.near -> 9254425403101710706083291
    // wrap.near (pool 2043); 81206675 geal.near 27070000000000000000 token.sweat -> 208762475255939868571059 wrap.near
    // (pool 3667) -> 1241475781908817737 aaaaaa20...bridge.near (pool 1395), one trade of two hops; 151768255
    // 869362846900140300000 token.0xshitzu.near -> 641881789924959952116119 wrap.near (pool 4369).
    expect(expected.map((t) => [t.block_height, t.amount_in, t.amount_out, t.hops])).toEqual([
      [55905793, '15000000000', '9254425403101710706083291', 1],
      [81206675, '27070000000000000000', '1241475781908817737', 2],
      [151768255, '869362846900140300000', '641881789924959952116119', 1],
    ]);
    const { rows } = await db.pool.query(
      `select block_height, receipt_id, trader, token_in, amount_in::text, token_out, amount_out::text, hops, pool_ids from trades where dex = 'AmmA' order by block_height, receipt_id`,
    );
    expect(rows).toEqual(expected);
  });

  it('names the receipts of each trade: its own and the ones it created (payouts and callbacks), read from the blocks', async () => {
    // The creators of these swap receipts (the ft_transfer_call on the input token) ran in earlier blocks, not in
    // the fixtures; the children are the outcomes' receipt_ids, read from the JSON.
    const { rows } = await db.pool.query(`select block_height, receipt_ids from trades where dex = 'AmmA' order by block_height`);
    expect(rows).toEqual([
      { block_height: 55905793, receipt_ids: ['BKAFrhXEWKRxbsw8sfNDwXp3kiaHuTVjn4dohHaXGmHe', 'Bggfv9a462HzV9Exewy7EYhwuNr8jb3r12CaVEQMGd4f'] },
      {
        block_height: 81206675,
        receipt_ids: ['9DiG8Qe8xW5HgHfA5yaaWCjctKHcwQSwfpVAVLivNUPw', '8D3XdqwbeLNiH4GRzrPpNs8A3MNnsyCXrRjrpiC5rRQJ', '5ew3dpUKL98VbdmaWf6SeTjUWPiFkcvBRa4iW3KhTbdf', 'vmxi4SVXs2z3cEHpx7UxmYfDtfJQK6hFTdp62bk5N6Y'],
      },
      {
        block_height: 151768255,
        receipt_ids: ['FwuVhcMer1KRrhddpnhpHbKrcbHWfHS74QZ1SXAn73rY', '3jPpKfzL9eY7wFZNBaR9TPNLdtZWoeKK14jXqtvcCs1M', '9u7Lopboa87VVEtiBF9ydb2ELpDcsUajD3BVS14AwXdb', 'HegKHTgUrFiHcZTuTzhxXWSkW29ozouZymYW9tZRxvBa'],
      },
    ]);
  });
});
