// The realnet with its hosted models (npm start's chain): seeded and deterministic, and what the indexer makes of it
// beyond its hops, pools and balances (those are the realnet judge's, test/harness/judge.ts, after every
// block; the exported bytes are test/devnet/realnet-export.test.ts's): the trades a fill and a swap give, and the
// liquid-unstake figure of Meta Pool's hosted model.
import { beforeAll, describe, expect, it } from 'vitest';
import { META_POOL_NSLP, StakeADevnet } from '../devnet/stake-a.ts';
import { REF, SOLVER, type RealnetMarket } from '../devnet/realnet/market.ts';
import { realnetMarket } from '../devnet/realnet/wasm.ts';
import { metaPoolDiscountBps } from '../dexes/stake-a/math.ts';
import { RoutingGraph } from '../api/routing/graph.ts';
import { hopsOfPool } from '../api/routing/hops.ts';
import { MAINNET_CONTRACTS } from '../dexes/contracts.ts';
import { indexedRealnetDb } from './harness/realnet.ts';

const SEED = 'dexlake';
const BLOCKS = 300;

describe('realnet determinism', () => {
  it('the same seed gives the same blocks byte for byte; another seed another chain', () => {
    const [a, b, c] = ['one', 'one', 'two'].map((seed) => realnetMarket(undefined, { seed, models: true, history: false }));
    let differ = 0;
    for (let i = 0; i < 60; i++) {
      const text = JSON.stringify(a!.next());
      expect(JSON.stringify(b!.next())).toBe(text);
      if (JSON.stringify(c!.next()) !== text) differ++;
    }
    expect(differ).toBeGreaterThan(50);
  }, 120_000);

  it('blocks chain: each prev_hash is the hash of the block before, heights go up by one', () => {
    const market = realnetMarket(undefined, { seed: SEED, models: true, history: false });
    let prev: { height: number; hash: string } | undefined;
    for (let i = 0; i < 20; i++) {
      const header = (market.next().block as { header: { height: number; hash: string; prev_hash: string } }).header;
      if (prev) {
        expect(header.height).toBe(prev.height + 1);
        expect(header.prev_hash).toBe(prev.hash);
      }
      prev = header;
    }
  });
});

describe(`the realnet indexed, ${BLOCKS} blocks`, () => {
  let market: RealnetMarket;
  let db: Awaited<ReturnType<typeof indexedRealnetDb>>;

  beforeAll(async () => {
    // The market the test reads its truth from runs alongside the source's own (same seed, same chain).
    market = realnetMarket(undefined, { seed: SEED, models: true, recordTrades: true });
    for (let i = 0; i < BLOCKS; i++) market.next();
    db = await indexedRealnetDb(SEED, BLOCKS);
    expect((await db.pool.query(`select max(height)::int as h from blocks`)).rows[0].h).toBe(BLOCKS);
  }, 240_000);

  it("trades: a NEAR Intents fill is the user's trade and the solver's; a Ref swap's trade names its receipt and the exchange's payout", async () => {
    const fills = market.fills.filter((f) => f.height <= BLOCKS - 5);
    expect(fills.length).toBeGreaterThan(5);
    const quoteA = await db.kysely.selectFrom('trades').select(['tx_hash', 'trader', 'token_in', 'token_out', 'amount_in', 'amount_out']).where('dex', '=', 'QuoteA').execute();
    for (const f of fills) {
      const rows = quoteA.filter((t) => t.tx_hash === f.txHash).map((t) => [t.trader, t.token_in, t.token_out, String(t.amount_in), String(t.amount_out)]);
      expect(rows.sort(), f.txHash).toEqual(
        [
          [f.trader, f.tokenIn, f.tokenOut, String(f.amountIn), String(f.amountOut)],
          [SOLVER, f.tokenOut, f.tokenIn, String(f.amountOut), String(f.amountIn)],
        ].sort(),
      );
    }

    // The exchange's payout of each swap: its ft_transfer to the trader of the last token, in the swap's transaction.
    const ammA = await db.kysely.selectFrom('trades').select(['tx_hash', 'receipt_id', 'receipt_ids']).where('dex', '=', 'AmmA').execute();
    expect(ammA.length).toBeGreaterThan(50);
    for (const t of ammA) {
      const tx = t.tx_hash!;
      const swap = market.swaps.find((s) => s.txHash === tx)!;
      const payout = market.chain.executed.find((e) => {
        const a = e.receipt.actions[0];
        return e.receipt.txHash === tx && e.receipt.predecessorId === REF && e.receipt.receiverId === swap.path.at(-1)!.tokenOut && a?.kind === 'FunctionCall' && a.method === 'ft_transfer';
      });
      expect(payout, tx).toBeDefined();
      expect(t.receipt_ids, tx).toContain(t.receipt_id);
      expect(t.receipt_ids, tx).toContain(payout!.receipt.id);
    }
  });

  it("Meta Pool's liquid unstake: the router's liquidity-pool figure is the hosted model's, and its quote is what liquid_unstake pays there", async () => {
    const model = market.models!.dexes.find((d): d is StakeADevnet => d instanceof StakeADevnet)!;
    const graph = new RoutingGraph(db);
    await graph.loadAll();
    expect(graph.ledgers.get('StakeA')).toBe(model.nslpAvailable());
    // Amounts up to twice the whole pool cross the fee curve's three parts.
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
