// AmmA quotes judged by Ref's own contract (release wasm 1.9.17 in near/vm) on the chain they will meet: GET /route
// over the real Ref pool snapshot (seeded pairs: direct, 2-hop, 3-hop; 0.01% to 10% of depth), and each quote's
// `ft_transfer_call` executed as the token delivers it to the exchange. On the unmoved pools it pays exactly its
// quote; after another account's real swaps move the route's pools against it (every pool, and one random pool;
// 0.1% and 0.3% of spot) it never fails on an intermediate step, it pays at least its worst case, and it is refused
// for slippage only where what it would have paid really fell below the worst case (at most 5% of the routes
// otherwise at 0.1%). Its logs stay within the receipt's limits and its gas within what the token forwards.
// (The realnet's own AmmA quotes, on its own Ref 1.9.17, are executed by realnet-routes.test.ts.)
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../api/server.ts';
import { ammA } from '../../dexes/amm-a/index.ts';
import { parsePoolsJson } from '../../dexes/amm-a/snapshot.ts';
import { contractsOf } from '../../dexes/contracts.ts';
import { poolStateEvents } from '../../indexer/pools-import/events.ts';
import { writeImport } from '../../indexer/pools-import/write.ts';
import { GAS_PRICE_YOCTO } from '../../api/routing/quote.ts';
import { createMigratedDb } from '../harness/db.ts';
import { readDataText } from '../harness/fixtures.ts';
import { forwardedGas, RefExchange, signedSwap, type SignedSwap, type SimplePool, type Verdict } from '../harness/ref-exchange.ts';
import { prng, sampleCases, type Case } from '../harness/route-cases.ts';
import { getRoute, type Quote } from './helpers.ts';

const HEIGHT = 116_000_000;
const TRADER = 'trader.near';
const SLIPPAGE = 0.005;
/** Moves of a pool's spot price against the route, as fractions. */
const MOVES = [0.001, 0.003];

const parsed = parsePoolsJson(JSON.parse(readDataText('pools/ref-indexer-pools-2024-04.json')));
const snapshot: SimplePool[] = parsed.pools.map((p) => ({ id: p.poolId, tokens: p.tokens as [string, string], amounts: p.amounts as [bigint, bigint], fee: p.totalFee }));

describe('AmmA quotes executed by Ref 1.9.17 on a moving market', () => {
  let app: FastifyInstance;
  let db: Awaited<ReturnType<typeof createMigratedDb>>;
  let ref: RefExchange;
  let unmoved: () => void;
  const cases = sampleCases(snapshot, 8, 20261128);
  const swaps: { c: Case; swap: SignedSwap; quote: Quote }[] = [];

  beforeAll(async () => {
    db = await createMigratedDb();
    const contracts = contractsOf('mainnet');
    await writeImport(db, ammA, HEIGHT, poolStateEvents(ammA, parsed.pools, { contractId: contracts.AmmA, height: HEIGHT, timestampMs: 0 }));
    app = await buildServer({ db, logLevel: 'silent' });
    await app.ready();
    for (const c of cases) {
      const res = await getRoute(app, { token_in: c.tokenIn, token_out: c.tokenOut, amount_in: c.amountIn.toString(), max_wait_ms: '1000', slippage_type: 'Fixed', slippage: String(SLIPPAGE), dexes: 'AmmA' });
      expect(res.status).toBe(200);
      const quote = res.json().find((q) => q.dex_id === 'AmmA');
      if (quote !== undefined) swaps.push({ c, swap: signedSwap(quote, c.tokenIn, c.tokenOut), quote });
    }
    // The exchange holding the same pools, made through its own methods.
    ref = RefExchange.withPools(snapshot);
    unmoved = ref.save();
  }, 300_000);
  afterAll(async () => {
    await app?.close();
  });

  /** The quote's call on the exchange as it stands, with the gas a token forwards of the attached (near-contract-
   * standards keeps 30 TGas). */
  const run = (s: SignedSwap) => ref.instantSwap(TRADER, s.tokenIn, s.amount, s.msg, forwardedGas(s.gas));

  it('routes every sampled pair through the contract of the quotes', () => {
    expect(cases.map((c) => c.hops)).toEqual([...Array(8).fill(1), ...Array(8).fill(2), ...Array(8).fill(3)]);
    // Every pair of the snapshot's best-connected tokens has an AmmA route, and some routes split.
    expect(swaps.length).toBe(cases.length);
    expect(swaps.some(({ swap }) => swap.actions.length > 3)).toBe(true);
  });

  it('on the unmoved pools each quote pays exactly its quote, in one output token, within the log limits', () => {
    for (const { c, swap } of swaps) {
      unmoved();
      const { outcome, paid } = run(swap);
      expect(outcome.error, `${c.tokenIn} -> ${c.tokenOut}`).toBeUndefined();
      expect([...paid]).toEqual([[c.tokenOut, swap.estimated]]);
      expect(outcome.logs.length).toBeLessThanOrEqual(100);
      expect(outcome.logs.reduce((n, l) => n + Buffer.byteLength(l), 0)).toBeLessThanOrEqual(16_384);
      // Only amounts of the input are named: no action depends on what an earlier one produced beyond its chain.
      expect(swap.actions.filter((a) => a.amount_in !== undefined && a.token_in !== c.tokenIn)).toEqual([]);
    }
  });

  it('every receipt of the transaction runs within the gas it is given; the quote burns what it says, and attaches more', () => {
    const ratios: number[] = [];
    for (const { c, swap, quote } of swaps) {
      unmoved();
      const tx = ref.swapTransaction(TRADER, c.tokenIn, swap.amount, swap.msg, swap.gas);
      expect(tx.receipts.map((r) => r.method)).toEqual(['ft_transfer_call', 'ft_on_transfer', 'ft_transfer', 'exchange_callback_post_withdraw', 'ft_resolve_transfer']);
      for (const r of tx.receipts) expect(r.outcome.error, `${r.method} of ${c.tokenIn} -> ${c.tokenOut}`).toBeUndefined();
      // The transaction's own conversion, as the quote counts it: its maximum less the attached gas.
      const conversion = BigInt(quote.estimated_max_gas_cost) / GAS_PRICE_YOCTO - swap.gas;
      const estimated = BigInt(quote.estimated_gas_usage) - conversion;
      expect(tx.burnt).toBeLessThanOrEqual(estimated);
      expect(estimated).toBeLessThan(swap.gas);
      ratios.push(Number(estimated) / Number(tx.burnt));
    }
    ratios.sort((a, b) => a - b);
    console.log(`estimated burn / metered burn over ${ratios.length} quotes: min ${ratios[0]!.toFixed(3)} median ${ratios[ratios.length >> 1]!.toFixed(3)} max ${ratios.at(-1)!.toFixed(3)}`);
  });

  it('after the market moves against it, no quote fails on an intermediate step, and a refusal is a real shortfall', () => {
    const random = prng(7);
    const tally = new Map<string, Map<Verdict, number>>();
    for (const { swap } of swaps) {
      // The route's pools, each in the direction the route trades it.
      const pools = [...new Map(swap.actions.map((a) => [a.pool_id, a])).values()];
      const one = pools[Math.floor(random() * pools.length)]!;
      for (const move of MOVES) {
        for (const [variant, moved] of [['every pool', pools], ['one pool', [one]]] as const) {
          const { verdict } = ref.judge(TRADER, swap, () => {
            unmoved();
            for (const a of moved) ref.move(a.pool_id, a.token_in, a.token_out, move);
          });
          const key = `${(move * 100).toFixed(1)}% ${variant}`;
          const counts = tally.get(key) ?? tally.set(key, new Map()).get(key)!;
          counts.set(verdict, (counts.get(verdict) ?? 0) + 1);
        }
      }
    }
    const table = Object.fromEntries([...tally].map(([k, v]) => [k, Object.fromEntries(v)]));
    console.log('verdicts per move:', JSON.stringify(table));
    for (const counts of tally.values()) expect(counts.get('intermediate failure') ?? 0).toBe(0);
    for (const variant of ['every pool', 'one pool']) {
      const counts = tally.get(`0.1% ${variant}`)!;
      expect((counts.get('refused within slippage') ?? 0) / swaps.length).toBeLessThanOrEqual(0.05);
    }
    // The 0.3% moves of every pool push the longer routes below their worst case: the refusals were exercised.
    expect(tally.get('0.3% every pool')!.get('refused below it') ?? 0).toBeGreaterThan(0);
  });
});
