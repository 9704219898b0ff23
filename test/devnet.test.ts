// The devnet simulator: seeded and deterministic, and a round trip: what it says it did (every executed hop,
// every balance, every pool's reserves) is exactly what the indexer stores from its blocks.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEXES } from '../dexes/index.ts';
import { normalizeStreamerMessage } from '../near/block.ts';
import { ingest } from '../indexer/pipeline.ts';
import { Devnet } from '../devnet/devnet.ts';
import { devnetSource } from '../indexer/sources/devnet.ts';
import { filesSource } from '../indexer/sources/files.ts';
import { META_POOL_NSLP, StakeADevnet } from '../devnet/stake-a.ts';
import { metaPoolDiscountBps } from '../dexes/stake-a/math.ts';
import { RoutingGraph } from '../api/routing/graph.ts';
import { hopsOfPool } from '../api/routing/hops.ts';
import { MAINNET_CONTRACTS } from '../dexes/contracts.ts';
import { runDexlake } from './harness/cli.ts';
import { createMigratedDb } from './harness/db.ts';

const BLOCKS = 1_000;
const never = new AbortController().signal;

describe('devnet determinism', () => {
  it('the same seed gives the same blocks byte for byte; another seed another chain', () => {
    const a = new Devnet({ seed: 'one' });
    const b = new Devnet({ seed: 'one' });
    const c = new Devnet({ seed: 'two' });
    let differ = 0;
    for (let i = 0; i < 60; i++) {
      const text = JSON.stringify(a.next());
      expect(JSON.stringify(b.next())).toBe(text);
      if (JSON.stringify(c.next()) !== text) differ++;
    }
    expect(differ).toBeGreaterThan(50);
  });

  it('blocks chain: each prev_hash is the hash of the block before, heights go up by one', () => {
    const d = new Devnet();
    let prev: { height: number; hash: string } | undefined;
    for (let i = 0; i < 20; i++) {
      const header = (d.next().block as { header: { height: number; hash: string; prev_hash: string } }).header;
      if (prev) {
        expect(header.height).toBe(prev.height + 1);
        expect(header.prev_hash).toBe(prev.hash);
      }
      prev = header;
    }
  });
});

describe(`devnet round trip over ${BLOCKS} blocks`, () => {
  const devnet = new Devnet({ recordTrades: true });
  let db: Awaited<ReturnType<typeof createMigratedDb>>;
  let failedSwaps = 0;

  beforeAll(async () => {
    // The simulator the test reads its truth from runs alongside the source's own (same seed, same chain).
    for (let i = 0; i < BLOCKS; i++) {
      const block = normalizeStreamerMessage(devnet.next());
      for (const o of block.shards.flatMap((s) => s.receiptOutcomes)) {
        if (o.status.kind === 'Failure' && o.logs.some((l) => l.startsWith('Swapped '))) failedSwaps++;
      }
    }
    db = await createMigratedDb();
    const result = await ingest({ db, source: devnetSource({ seed: 'dexlake', speed: 0 }), to: BLOCKS, signal: never });
    expect(result.height).toBe(BLOCKS);
  });

  it('every hop the simulator executed is a trade_hops row, and nothing else is', async () => {
    const decoded = new Set<string>(DEXES.map((d) => d.id));
    const truth = devnet.trades.filter((t) => decoded.has(t.dex));
    expect(truth.length).toBeGreaterThan(500);
    const rows = await db.kysely
      .selectFrom('trade_hops')
      .select(['block_height', 'receipt_id', 'dex', 'pool_id', 'trader', 'token_in', 'token_out', 'amount_in', 'amount_out'])
      .orderBy('block_height')
      .orderBy('receipt_id')
      .orderBy('index')
      .execute();
    const key = (t: { height: number; receiptId: string }) => `${t.height}/${t.receiptId}`;
    const sorted = [...truth].sort((a, b) => a.height - b.height || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    expect(rows.map((r) => [Number(r.block_height), r.receipt_id, r.dex, r.pool_id, r.trader, r.token_in, r.token_out, String(r.amount_in), String(r.amount_out)])).toEqual(
      sorted.map((t) => [t.height, t.receiptId, t.dex, t.poolId, t.trader, t.tokenIn, t.tokenOut, String(t.amountIn), String(t.amountOut)]),
    );
  });

  it("trades: a NEAR Intents fill is the user's trade and the solver's; an AmmA trade names the ft_transfer_call that created it and its payout", async () => {
    const quoteA = await db.kysely.selectFrom('trades').select(['trader', 'token_in', 'token_out']).where('dex', '=', 'QuoteA').execute();
    expect(quoteA.length).toBeGreaterThan(0);
    expect(quoteA.filter((t) => t.token_in === t.token_out)).toEqual([]);
    const ammA = await db.kysely.selectFrom('trades').select(['receipt_id', 'receipt_ids']).where('dex', '=', 'AmmA').execute();
    expect(ammA.length).toBeGreaterThan(50);
    // On the devnet a transaction's receipts all run in its block: creator, swap, then what the swap created.
    for (const t of ammA) {
      expect(t.receipt_ids[1], t.receipt_id).toBe(t.receipt_id);
      expect(t.receipt_ids.length, t.receipt_id).toBeGreaterThanOrEqual(3);
    }
  });

  it('the blocks hold failed swaps whose receipts kept their Swapped logs (the hops above exclude them)', () => {
    expect(failedSwaps).toBeGreaterThan(5);
  });

  it('every non-zero token balance the simulator holds is the balances row, and no other row is non-zero', async () => {
    const truth = devnet.world.tokens.allBalances().filter((b) => b.balance !== 0n);
    const tokens = [...new Set(truth.map((b) => b.token))];
    const rows = await db.kysely
      .selectFrom('balances')
      .select(['token', 'account', 'balance'])
      .where('token', 'in', tokens)
      .where('balance', '!=', '0')
      .orderBy('token')
      .orderBy('account')
      .execute();
    expect(rows.map((r) => [r.token, r.account, String(r.balance)])).toEqual(truth.map((b) => [b.token, b.account, String(b.balance)]));
  });

  it("every pool's reserves are the pools row's amounts", async () => {
    for (const dex of devnet.dexes) {
      const rows = await db.kysely.selectFrom('pools').select(['pool_id', 'amounts']).where('dex', '=', dex.id).execute();
      const stored = new Map(rows.map((r) => [r.pool_id, (r.amounts as unknown[]).map(String)]));
      const truth = new Map([...dex.reserves()].map(([id, amounts]) => [id, amounts.map(String)]));
      expect(stored, dex.id).toEqual(truth);
    }
  });
});

describe(`Meta Pool's liquid unstake over ${BLOCKS} devnet blocks`, () => {
  it("the router's liquidity-pool figure is the simulator's, and its quote is what liquid_unstake pays there", async () => {
    const devnet = new Devnet();
    for (let i = 0; i < BLOCKS; i++) devnet.next();
    const model = devnet.dexes.find((d): d is StakeADevnet => d instanceof StakeADevnet)!;
    const db = await createMigratedDb();
    await ingest({ db, source: devnetSource({ seed: 'dexlake', speed: 0 }), to: BLOCKS, signal: never });
    const graph = new RoutingGraph(db);
    await graph.loadAll();
    expect(graph.ledgers.get('StakeA')).toBe(model.nslpAvailable());
    // The devnet's liquid unstakes leave the pool below its 10,000 NEAR target now and then: amounts up to the
    // whole pool cross the fee curve's three parts.
    const [unstake] = hopsOfPool(graph.poolsOf('StakeA')[0]!, { contracts: MAINNET_CONTRACTS, registrations: null, ledgers: graph.ledgers }).filter((h) => h.tokenOut === 'near');
    const rates = new Set<number>();
    for (const st of [10n ** 18n, 10n ** 24n, 3_000n * 10n ** 24n, 9_000n * 10n ** 24n, model.nslpAvailable(), 2n * model.nslpAvailable()]) {
      const quote = model.liquidUnstakeQuote(st);
      expect(unstake!.out(st), String(st)).toBe(quote.amountOut > model.nslpAvailable() ? null : quote.amountOut);
      rates.add(metaPoolDiscountBps({ nslpAvailable: model.nslpAvailable(), ...META_POOL_NSLP }, quote.nears));
    }
    expect([...rates].some((bps) => bps > 25 && bps < 180) && rates.has(25) && rates.has(180), [...rates].join()).toBe(true);
  });
});

describe('dexlake devnet export', () => {
  it('writes Lake-layout folders that --source files: reads back as the same blocks', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dexlake-devnet-'));
    try {
      const run = runDexlake(['devnet', 'export', '--blocks', '30', '--out', dir, '--devnet-seed', 'exported']);
      expect((await run.exited).code, run.output()).toBe(0);
      expect(run.output()).toContain('30 blocks');
      const exported = [];
      for await (const block of filesSource(dir).blocks({}, never)) exported.push(block);
      const direct = [];
      for await (const block of devnetSource({ seed: 'exported', speed: 0 }).blocks({ to: 30 }, never)) direct.push(block);
      expect(exported.length).toBe(30);
      expect(exported).toEqual(direct);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
