// AmmA stable and rated pools in the router: the hops of one pool (api/routing/hops.ts over
// dexes/amm-a/stable-math.ts) from a state as the graph revives it out of `pools.state`, and GET /route end to end
// over a stable pool written through the real store. The hand derivation of the amounts (a USDC/DAI pool, 1 000 000
// of each, amp 100, fee 4 bps, 1000 USDC in) is in test/dexes/amm-a-stable.test.ts ("stableAmountOutQuoter: stable
// pools"): y = 999000004975104552045149, dy = 10^24 − y − 1, fee 4 bps, out 999595026885489775669 DAI-wei; the
// other way floor(that/10^12) = 999595026 USDC. No fixture holds a stable pool value.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviveState, type RoutingPool } from '../../api/routing/graph.ts';
import { hopsOfPool, type HopContext } from '../../api/routing/hops.ts';
import { buildServer } from '../../api/server.ts';
import { contractsOf } from '../../dexes/contracts.ts';
import type { StableLikePoolState, TokenRate } from '../../dexes/amm-a/state.ts';
import { jsonWithAmounts, type DomainEvent } from '../../indexer/event-rows.ts';
import { prepareBatch, writeBatch } from '../../indexer/store.ts';
import type { Db } from '../../db/connect.ts';
import { createMigratedDb } from '../harness/db.ts';
import { BlockWriter, decodedCalls, eventually, getRoute, inbox } from './helpers.ts';

const REF = 'v2.ref-finance.near';
const E18 = 10n ** 18n;
const E24 = 10n ** 24n;
const DAY_NS = 86_400n * 1_000_000_000n;
/** 2025-01-01T00:00:00Z in ns: the e2e pool's amp ramp ran from 50 to 100 over that day, well before its blocks. */
const RAMP_START = BigInt(Date.UTC(2025, 0, 1)) * 1_000_000n;

const OUT_DAI = 999_595_026_885_489_775_669n;
const OUT_USDC = 999_595_026n;

/**
 * Ref's stable swap written out here, independently of dexes/amm-a/stable-math.ts (the code under test): the
 * contract's `stable_swap/math.rs` (`compute_d`, `compute_y`, `swap_to`: dy = c_out − y − 1, the fee
 * floor(dy·fee/10^4) kept) on comparable amounts (18 decimals), the output scaled back to the token's decimals.
 */
function refStableOut(cAmounts: bigint[], decimals: number[], i: number, j: number, amountIn: bigint, amp: bigint, feeBps: bigint): bigint {
  const n = BigInt(cAmounts.length);
  const ann = amp * n ** n;
  const computeD = (c: bigint[]): bigint => {
    const sum = c.reduce((a, b) => a + b, 0n);
    let d = sum;
    for (let k = 0; k < 256; k++) {
      let dProd = d;
      for (const x of c) dProd = (dProd * d) / (x * n);
      const prev = d;
      d = (prev * (dProd * n + sum * ann)) / (prev * (ann - 1n) + dProd * (n + 1n));
      if ((d > prev ? d - prev : prev - d) <= 1n) break;
    }
    return d;
  };
  const scale = (k: number) => 10n ** BigInt(18 - decimals[k]!);
  const x = cAmounts[i]! + amountIn * scale(i);
  const d = computeD(cAmounts);
  let s = x;
  let c = (d * d) / x;
  cAmounts.forEach((v, k) => {
    if (k !== i && k !== j) {
      s += v;
      c = (c * d) / v;
    }
  });
  c = (c * d) / (ann * n ** n);
  const b = d / ann + s;
  let y = d;
  for (let k = 0; k < 256; k++) {
    const prev = y;
    y = (y * y + c) / (2n * y + b - d);
    if ((y > prev ? y - prev : prev - y) <= 1n) break;
  }
  const dy = cAmounts[j]! - y - 1n;
  return (dy - (dy * feeBps) / 10_000n) / scale(j);
}

function stableLike(kind: 'stable' | 'rated' | 'degen', tokens: string[], decimals: number[], cAmounts: bigint[], amp: bigint, totalFee: number): StableLikePoolState {
  return {
    poolId: 1,
    kind,
    tokens,
    amounts: cAmounts.map((c, i) => c / 10n ** BigInt((kind === 'stable' ? 18 : 24) - decimals[i]!)),
    volumes: tokens.map(() => ({ input: 0n, output: 0n })),
    totalFee,
    sharesPrefixHex: '0201000000',
    sharesTotalSupply: 10n ** 24n,
    decimals,
    targetDecimals: kind === 'stable' ? 18 : 24,
    cAmounts,
    initAmpFactor: 50n,
    targetAmpFactor: amp,
    initAmpTime: RAMP_START,
    stopAmpTime: RAMP_START + DAY_NS,
  };
}

const usdcDai = () => stableLike('stable', ['usdc.near', 'dai.near'], [6, 18], [E24, E24], 100n, 4);

/** The pool as the router holds it: the state through the event log's JSON and the graph's revival. */
function routingPool(state: StableLikePoolState, poolId = '1'): RoutingPool {
  return { dex: 'AmmA', poolId, state: reviveState(JSON.parse(jsonWithAmounts(state))), updatedHeight: 1 };
}

const ctx: HopContext = { contracts: contractsOf('mainnet'), registrations: null };
const rate = (storedRates: bigint): TokenRate => ({ kind: 'linear', storedRates, ratesUpdatedAt: 0n, contractId: 'linear-protocol.near', extraInfo: null });

describe('AmmA stable-like hops', () => {
  it('a stable pool: a hop for every ordered pair of its tokens, quoting as the contract', () => {
    const three = stableLike('stable', ['dai.near', 'usdt.near', 'usdc.near'], [18, 6, 6], [100_000n * E18, 100_000n * E18, 100_000n * E18], 10_000n, 25);
    const hops = hopsOfPool(routingPool(three), ctx);
    expect(hops.map((h) => [h.tokenIn, h.tokenOut])).toEqual([
      ['dai.near', 'usdt.near'],
      ['dai.near', 'usdc.near'],
      ['usdt.near', 'dai.near'],
      ['usdt.near', 'usdc.near'],
      ['usdc.near', 'dai.near'],
      ['usdc.near', 'usdt.near'],
    ]);
    expect(hops.every((h) => h.dex === 'AmmA' && h.poolId === '1' && h.in === undefined)).toBe(true);
    // The contract's sim test (ref-exchange/tests/test_stable_pool.rs): 1 DAI -> USDC gives 997499.
    expect(hops[1]!.out(E18)).toBe(997_499n);
    // Nothing out is no quote.
    expect(hops[1]!.out(1n)).toBeNull();
  });

  it('the amount of the hand derivation, both ways; spot 10^12 DAI-wei per raw USDC on the balanced pool', () => {
    const [usdcToDai, daiToUsdc] = hopsOfPool(routingPool(usdcDai()), ctx);
    expect(usdcToDai!.out(1_000_000_000n)).toBe(OUT_DAI);
    expect(daiToUsdc!.out(1000n * E18)).toBe(OUT_USDC);
    expect(usdcToDai!.spot.numerator).toBe(usdcToDai!.spot.denominator * 10n ** 12n);
    expect(daiToUsdc!.spot.numerator * 10n ** 12n).toBe(daiToUsdc!.spot.denominator);
  });

  it('the amp at ctx.nowNs, at the ramp end without it', () => {
    const ramping = { ...usdcDai(), stopAmpTime: RAMP_START + 2n * DAY_NS, targetAmpFactor: 150n };
    // Half-way through 50 -> 150 the amp is 100: the hand-derived amount.
    const atHalf = hopsOfPool(routingPool(ramping), { ...ctx, nowNs: RAMP_START + DAY_NS })[0]!;
    expect(atHalf.out(1_000_000_000n)).toBe(OUT_DAI);
    const atEnd = hopsOfPool(routingPool(ramping), ctx)[0]!.out(1_000_000_000n)!;
    // The reference, checked first against the hand derivation at amp 100, gives amp 150's amount.
    expect(refStableOut([E24, E24], [6, 18], 0, 1, 1_000_000_000n, 100n, 4n)).toBe(OUT_DAI);
    expect(atEnd).toBe(refStableOut([E24, E24], [6, 18], 0, 1, 1_000_000_000n, 150n, 4n));
    expect(atEnd).toBeGreaterThan(OUT_DAI);
  });

  it('rated pools only with the rates; stale rates and degen pools never', () => {
    const rated = stableLike('rated', ['linear-protocol.near', 'wrap.near'], [24, 24], [100_000n * E24, 200_000n * E24], 1000n, 0);
    expect(hopsOfPool(routingPool(rated), ctx)).toEqual([]);
    // ref-exchange rated_swap/mod.rs `test_rated_julia_07`: rate 2.0, 1 in gives 1_999999990004997550200911.
    const rates = new Map([['linear-protocol.near', rate(2n * E24)]]);
    const hops = hopsOfPool(routingPool(rated), { ...ctx, ledgers: new Map([['AmmA', rates]]) });
    expect(hops).toHaveLength(2);
    expect(hops[0]!.out(E24)).toBe(1_999_999_990_004_997_550_200_911n);
    // The rate was set at t = 0: at t = 25 h the contract refuses the pool (ERR120_RATES_EXPIRED).
    expect(hopsOfPool(routingPool(rated), { ...ctx, ledgers: new Map([['AmmA', rates]]), nowNs: 25n * 3600n * 1_000_000_000n })).toEqual([]);
    const degen = stableLike('degen', ['usdc.near', 'usdt.near'], [6, 6], [E24, E24], 100n, 4);
    expect(hopsOfPool(routingPool(degen), { ...ctx, ledgers: new Map([['AmmA', rates]]) })).toEqual([]);
  });

  it('a state that is not what the contract stores gives no hops', () => {
    const good = routingPool(usdcDai());
    const broken = (patch: Record<string, unknown>): RoutingPool => ({ ...good, state: { ...good.state, ...patch } });
    expect(hopsOfPool(broken({ cAmounts: ['1000', '1000'] }), ctx)).toEqual([]);
    expect(hopsOfPool(broken({ cAmounts: [E24] }), ctx)).toEqual([]);
    expect(hopsOfPool(broken({ decimals: [6, 40] }), ctx)).toEqual([]);
    expect(hopsOfPool(broken({ totalFee: 10_001 }), ctx)).toEqual([]);
    expect(hopsOfPool(broken({ targetAmpFactor: '100' }), ctx)).toEqual([]);
    expect(hopsOfPool(broken({ cAmounts: [E24, 0n] }), ctx)).toEqual([]);
    expect(hopsOfPool(good, ctx)).toHaveLength(2);
  });
});

describe('GET /route over an AmmA stable pool', () => {
  let app: FastifyInstance;
  let db: Db;

  beforeAll(async () => {
    db = await createMigratedDb();
    const writer = new BlockWriter(db);
    const rated = stableLike('rated', ['linear-protocol.near', 'wrap.near'], [24, 24], [100_000n * E24, 200_000n * E24], 1000n, 0);
    await writer.write([
      { dex: 'AmmA', contractId: REF, poolId: 1, state: usdcDai() as never },
      { dex: 'AmmA', contractId: REF, poolId: 2, state: { ...rated, poolId: 2 } as never },
    ]);
    app = await buildServer({ db, logLevel: 'silent' });
    await app.ready();
  });
  afterAll(() => app?.close());

  it('1000 USDC -> DAI: the hand derivation, and the swap action', async () => {
    const res = await getRoute(app, { token_in: 'usdc.near', token_out: 'dai.near', amount_in: '1000000000', max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.01' });
    expect(res.status).toBe(200);
    const quotes = res.json();
    expect(quotes.map((q) => q.dex_id)).toEqual(['AmmA']);
    const [quote] = quotes;
    expect(quote!.estimated_amount).toEqual({ amount_out: OUT_DAI.toString() });
    // Worst case at 1%: floor(999595026885489775669·99/100) = 989599076616634877912.
    expect(quote!.worst_case_amount).toEqual({ amount_out: '989599076616634877912' });
    const calls = decodedCalls(quote!);
    expect(calls).toHaveLength(1);
    const [receiver, method, rawArgs] = calls[0]!;
    const args = rawArgs as { receiver_id: string; amount: string; msg: string };
    expect([receiver, method, args.receiver_id, args.amount]).toEqual(['usdc.near', 'ft_transfer_call', REF, '1000000000']);
    expect(JSON.parse(args.msg).actions).toEqual([
      { pool_id: 1, token_in: 'usdc.near', token_out: 'dai.near', amount_in: '1000000000', min_amount_out: '989599076616634877912' },
    ]);
  });

  it('1000 DAI -> USDC, truncated to 6 decimals', async () => {
    const [quote] = (await getRoute(app, { token_in: 'dai.near', token_out: 'usdc.near', amount_in: (1000n * E18).toString(), max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.01' })).json();
    expect(quote).toMatchObject({ dex_id: 'AmmA', estimated_amount: { amount_out: OUT_USDC.toString() } });
  });

  it('a rated pool routes once a rates event is indexed, at its rate (and not before), and subscribers are told', async () => {
    const query = { token_in: 'linear-protocol.near', token_out: 'wrap.near', amount_in: E24.toString(), max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.01', dexes: 'AmmA' };
    expect((await getRoute(app, query)).json()).toEqual([]);
    const ws = await app.injectWS('/route/subscribe');
    const box = inbox(ws);
    ws.send(JSON.stringify({ id: 1, query: new URLSearchParams(query).toString() }));
    expect(JSON.parse(await box.next())).toEqual({ id: 1, routes: [], height: 1 });
    // The rates map of a block, as the AmmA decoder gives it (custom_rate_key), written through the real store.
    const height = 2;
    const timestampMs = Date.UTC(2026, 0, 1) + height * 1000;
    const event = {
      blockHeight: height,
      timestampMs,
      receiptId: `receipt-${height}`,
      txHash: null,
      index: 0,
      kind: 'rates',
      dex: 'AmmA',
      contractId: REF,
      rates: [{ tokenId: 'linear-protocol.near', ...rate(2n * E24), ratesUpdatedAt: BigInt(timestampMs) * 1_000_000n }],
    } as unknown as DomainEvent;
    await writeBatch(db, prepareBatch([{ height, hash: `hash-${height}`, prevHash: `hash-${height - 1}`, timestampMs, gapBefore: 0 }], [event]));
    // ref-exchange rated_swap/mod.rs `test_rated_julia_07`: rate 2.0, 1 LiNEAR in gives 1_999999990004997550200911.
    const quotes = await eventually(async () => {
      const answer = (await getRoute(app, query)).json();
      return answer.length ? answer : undefined;
    });
    expect(quotes.map((q) => [q.dex_id, q.estimated_amount])).toEqual([['AmmA', { amount_out: '1999999990004997550200911' }]]);
    // The block wrote no pool, but new rates move the rated pool's quotes: the subscription is routed again.
    expect(JSON.parse(await box.next())).toEqual({ id: 1, routes: quotes, height });
    ws.terminate();
  });
});
