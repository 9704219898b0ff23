// The optimal-flow router (api/routing/flow/) against the contract's integer math run here, action by action, as
// ref-exchange runs an instant swap on its virtual account: the dual bound is never beaten, neither by random
// sequences of actions nor by our plans, over random small pool graphs; plans stay within the action budget, spend
// every token but the output to the unit, and yield exactly what they quote; end to end, GET /route's AmmA actions
// replay to the quoted amount. The Newton systems the solver builds are solved exactly, over random token graphs.
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlowGraph } from '../../api/routing/flow/index.ts';
import { CpmmNetwork, NewtonSystem } from '../../api/routing/flow/solve.ts';
import { buildServer } from '../../api/server.ts';
import { contractsOf } from '../../dexes/contracts.ts';
import type { RoutePath } from '../../dexes/dex.ts';
import { ammAHops } from '../../dexes/amm-a/hops.ts';
import { simpleSwap } from '../../dexes/amm-a/math.ts';
import { ammAMaxActions, ammASwapGas } from '../../dexes/amm-a/instructions.ts';
import { createMigratedDb } from '../harness/db.ts';
import { readDataText } from '../harness/fixtures.ts';
import { parsePoolsJson } from '../../dexes/amm-a/snapshot.ts';
import { parseRouteQuery } from '../../api/routing/params.ts';
import { Router } from '../../api/routing/route.ts';
import type { RoutingGraph } from '../../api/routing/graph.ts';
import type { RoutingPool } from '../../dexes/dex.ts';
import { BlockWriter, decodedCalls, getRoute } from './helpers.ts';

interface Pool {
  id: number;
  tokens: [string, string];
  amounts: [bigint, bigint];
  fee: number;
}

interface Action {
  poolId: number;
  tokenIn: string;
  tokenOut: string;
  /** null: the previous action's output. */
  amountIn: bigint | null;
}

/**
 * ref-exchange's instant swap: the deposit on a virtual account, each action withdrawing its amount (or the previous
 * output) and depositing its output, pools updated as it goes. Null when an action takes more than the account holds.
 */
function execute(pools: readonly Pool[], deposit: [string, bigint], actions: readonly Action[]): Map<string, bigint> | null {
  const reserves = new Map(pools.map((p) => [p.id, [...p.amounts]]));
  const account = new Map<string, bigint>([deposit]);
  let previous: bigint | null = null;
  for (const action of actions) {
    const pool = pools.find((p) => p.id === action.poolId)!;
    const i = pool.tokens.indexOf(action.tokenIn);
    const amount = action.amountIn ?? previous!;
    const held = account.get(action.tokenIn) ?? 0n;
    if (i < 0 || pool.tokens[1 - i] !== action.tokenOut || amount > held) return null;
    const r = reserves.get(pool.id)!;
    const swap = simpleSwap(r[i]!, r[1 - i]!, amount, pool.fee);
    r[i] = swap.reserveIn;
    r[1 - i] = swap.reserveOut;
    account.set(action.tokenIn, held - amount);
    account.set(action.tokenOut, (account.get(action.tokenOut) ?? 0n) + swap.amountOut);
    previous = swap.amountOut;
  }
  return account;
}

/** A plan's paths as actions: each path's first names its amount. */
/** A call that carries any plan. */
const UNBOUNDED = { maxActions: Infinity, fits: () => true };

const actionsOf = (chains: readonly RoutePath[]): Action[] =>
  chains.flatMap((c) => c.hops.map((h, i) => ({ poolId: Number(h.poolId), tokenIn: h.tokenIn, tokenOut: h.tokenOut, amountIn: i === 0 ? c.amounts[0]! : null })));

const ctx = { contracts: contractsOf('mainnet'), registrations: null };
const hopsOf = (pools: readonly Pool[]) =>
  pools.flatMap((p) =>
    ammAHops({ dex: 'AmmA', poolId: String(p.id), updatedHeight: 1, state: { kind: 'simple', tokens: [...p.tokens], amounts: [...p.amounts], totalFee: p.fee, exchangeFee: 0, referralFee: 0 } }, ctx),
  );

/** The dual bound of selling `amountIn` of `tokenIn` for `tokenOut` over `pools`, at the prices the solver finds. */
function bound(pools: readonly Pool[], tokens: readonly string[], tokenIn: string, tokenOut: string, amountIn: bigint): number {
  const at = (t: string) => tokens.indexOf(t);
  const network = new CpmmNetwork(
    tokens.length,
    pools.map((p) => ({ a: at(p.tokens[0]), b: at(p.tokens[1]), ra: Number(p.amounts[0]), rb: Number(p.amounts[1]), gamma: (10_000 - p.fee) / 10_000 })),
  );
  const s = new Float64Array(tokens.length).fill(1);
  const query = { tokenIn: at(tokenIn), amountIn: Number(amountIn), fixed: at(tokenOut) };
  network.solve(s, query, undefined, 500);
  return network.dual(s, query);
}

const TOKENS = ['t0.near', 't1.near', 't2.near', 't3.near', 't4.near'];

/** Random graphs of 3..5 tokens and 2..9 pools, reserves 10^3..10^24, fees of the contract's common tiers. */
const graphs = fc
  .integer({ min: 3, max: 5 })
  .chain((n) =>
    fc.record({
      tokens: fc.constant(TOKENS.slice(0, n)),
      pools: fc.array(
        fc.record({
          pair: fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 1, max: n - 1 })),
          amounts: fc.tuple(fc.integer({ min: 3, max: 24 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 3, max: 24 }), fc.integer({ min: 1, max: 9 })),
          fee: fc.constantFrom(0, 1, 5, 20, 25, 30, 100, 300),
        }),
        { minLength: 2, maxLength: 9 },
      ),
      pair: fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 1, max: n - 1 })),
      amount: fc.tuple(fc.integer({ min: 0, max: 24 }), fc.integer({ min: 1, max: 9 })),
    }),
  )
  .map(({ tokens, pools, pair, amount }) => ({
    tokens,
    pools: pools.map(
      (p, id): Pool => ({
        id,
        tokens: [tokens[p.pair[0]]!, tokens[(p.pair[0] + p.pair[1]) % tokens.length]!],
        amounts: [BigInt(p.amounts[1]) * 10n ** BigInt(p.amounts[0]), BigInt(p.amounts[3]) * 10n ** BigInt(p.amounts[2])],
        fee: p.fee,
      }),
    ),
    tokenIn: tokens[pair[0]]!,
    tokenOut: tokens[(pair[0] + pair[1]) % tokens.length]!,
    amountIn: BigInt(amount[1]) * 10n ** BigInt(amount[0]),
  }));

// The bound holds in exact arithmetic; its floating-point evaluation is within 10^-14 of that, hence the slack.
const SLACK = 1 + 1e-9;

describe('the dual bound and the optimal-flow plans, over random pool graphs', () => {
  it('no sequence of actions yields more than the bound (whatever it leaves of the other tokens)', () => {
    // Often all of a balance, so that some sequences are single paths close to the optimum (where a wrong bound shows).
    const share = fc.oneof(fc.constant(1000), fc.integer({ min: 1, max: 1000 }));
    const moves = fc.array(fc.tuple(fc.nat(), fc.boolean(), share), { maxLength: 12 });
    fc.assert(
      fc.property(graphs, moves, ({ tokens, pools, tokenIn, tokenOut, amountIn }, steps) => {
        // Each step sends a share (1..1000 per mille) of what the account holds of a pool's token through it.
        const actions: Action[] = [];
        let account: Map<string, bigint> | null = new Map([[tokenIn, amountIn]]);
        for (const [k, forward, perMille] of steps) {
          const pool = pools[k % pools.length]!;
          const [from, to] = forward ? pool.tokens : [pool.tokens[1], pool.tokens[0]];
          const amount = ((account!.get(from) ?? 0n) * BigInt(perMille)) / 1000n;
          if (amount === 0n) continue;
          actions.push({ poolId: pool.id, tokenIn: from, tokenOut: to, amountIn: amount });
          account = execute(pools, [tokenIn, amountIn], actions);
          expect(account).not.toBeNull();
        }
        const out = account!.get(tokenOut) ?? 0n;
        expect(Number(out)).toBeLessThanOrEqual(bound(pools, tokens, tokenIn, tokenOut, amountIn) * SLACK);
      }),
      { numRuns: 300, seed: 20 },
    );
  });

  it('plans are chained paths from the input within the budget: they spend every token but the output, replay exactly, stay within the bound, and never run short of a token when the pools move', () => {
    let planned = 0;
    let shared = 0;
    fc.assert(
      fc.property(graphs, fc.integer({ min: 1, max: 26 }), fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 12, maxLength: 12 }), ({ tokens, pools, tokenIn, tokenOut, amountIn }, maxActions, moves) => {
        const flow = new FlowGraph(hopsOf(pools));
        const plan = flow.route(tokenIn, tokenOut, amountIn, { maxActions, fits: () => true }, pools.map((p) => String(p.id)));
        if (plan === null) return;
        planned++;
        const actions = actionsOf(plan.paths);
        expect(actions.length).toBe(plan.actions);
        expect(plan.actions).toBeLessThanOrEqual(maxActions);
        // Every path runs from the input to the output, and only amounts of the input are named.
        for (const path of plan.paths) expect([path.hops[0]!.tokenIn, path.hops.at(-1)!.tokenOut]).toEqual([tokenIn, tokenOut]);
        expect(actions.filter((a) => a.amountIn !== null && a.tokenIn !== tokenIn)).toEqual([]);
        if (new Set(actions.map((a) => a.poolId)).size < actions.length) shared++;
        // Each pool moved against the route by up to 3% of its reserves (a trade by someone else before ours): the
        // plan pays less, but no action lacks its input.
        const moved = pools.map((p, k) => {
          const bps = BigInt(moves[k % moves.length]!) * 10n;
          const amounts: [bigint, bigint] = [p.amounts[0] + (p.amounts[0] * bps) / 10_000n, p.amounts[1] + (p.amounts[1] * bps) / 10_000n];
          // Half the pools lose output-side depth, half input-side: either direction can hurt a path.
          amounts[k % 2] = p.amounts[k % 2]! - (p.amounts[k % 2]! * bps) / 10_000n;
          return { ...p, amounts };
        });
        expect(execute(moved, [tokenIn, amountIn], actions)).not.toBeNull();
        const account = execute(pools, [tokenIn, amountIn], actions);
        expect(account).not.toBeNull();
        expect([...account!].filter(([t, v]) => t !== tokenOut && v !== 0n)).toEqual([]);
        expect(account!.get(tokenOut)).toBe(plan.amountOut);
        expect(Number(plan.amountOut)).toBeLessThanOrEqual(bound(pools, tokens, tokenIn, tokenOut, amountIn) * SLACK);
      }),
      { numRuns: 300, seed: 21 },
    );
    // Most random graphs connect the pair, and some plans pass a pool twice: the properties were exercised.
    expect(planned).toBeGreaterThan(100);
    expect(shared).toBeGreaterThan(0);
  });

  it('the same network and query give the same plan', () => {
    const pools: Pool[] = [
      { id: 1, tokens: ['t0.near', 't1.near'], amounts: [10n ** 12n, 2n * 10n ** 12n], fee: 30 },
      { id: 2, tokens: ['t0.near', 't1.near'], amounts: [4n * 10n ** 11n, 9n * 10n ** 11n], fee: 5 },
      { id: 3, tokens: ['t1.near', 't2.near'], amounts: [5n * 10n ** 12n, 10n ** 12n], fee: 25 },
      { id: 4, tokens: ['t0.near', 't2.near'], amounts: [10n ** 11n, 2n * 10n ** 10n], fee: 30 },
    ];
    // Each run builds its own hops: the plans are compared as the actions they send.
    const plans = [0, 1].map(() => new FlowGraph(hopsOf(pools)).route('t0.near', 't2.near', 10n ** 11n, UNBOUNDED, ['1', '3', '4']));
    expect(plans[0]).not.toBeNull();
    expect(actionsOf(plans[1]!.paths)).toEqual(actionsOf(plans[0]!.paths));
    expect(actionsOf(plans[0]!.paths).length).toBeGreaterThan(1);
  });
});

describe('the Newton systems', () => {
  // A system as the solver builds one: per trading pool a rank-one term w·wᵀ with wa < 0 < wb over its two tokens,
  // per pool to the fixed token a diagonal term, the input token's own term; tokens drawn with a bias to the first
  // ones (hubs), so that there are leaves, chains, cycles and parallel pools. Every token has a diagonal term of its
  // own, so M is positive definite and x unique.
  const system = fc.integer({ min: 1, max: 40 }).chain((m) =>
    fc.record({
      m: fc.constant(m),
      own: fc.array(fc.double({ min: 0.01, max: 100, noNaN: true }), { minLength: m, maxLength: m }),
      pools: fc.array(
        fc.record({
          i: fc.double({ min: 0, max: 0.999, noNaN: true }).map((u) => Math.floor(m * u * u)),
          j: fc.integer({ min: 0, max: m - 1 }),
          wa: fc.double({ min: 0.1, max: 1e6, noNaN: true }),
          wb: fc.double({ min: 0.1, max: 1e6, noNaN: true }),
        }),
        { maxLength: 3 * m },
      ),
      rhs: fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: m, maxLength: m }),
    }),
  );

  it('are solved exactly: M·x = rhs, whatever the order the tokens are eliminated in', () => {
    const solver = new NewtonSystem(40);
    fc.assert(
      fc.property(system, ({ m, own, pools, rhs }) => {
        const dense = Array.from({ length: m }, (_, k) => Array.from({ length: m }, (_, j) => (j === k ? own[k]! : 0)));
        solver.reset(m);
        for (let k = 0; k < m; k++) {
          solver.diag[k] = own[k]!;
          solver.rhs[k] = rhs[k]!;
        }
        for (const { i, j, wa, wb } of pools) {
          // h = −wa·s_i + wb·s_j: diagonal wa², wb², coupling −wa·wb.
          solver.diag[i]! += wa * wa;
          dense[i]![i]! += wa * wa;
          if (i === j) continue;
          solver.diag[j]! += wb * wb;
          dense[j]![j]! += wb * wb;
          solver.couple(i, j, -wa * wb);
          dense[i]![j]! -= wa * wb;
          dense[j]![i]! -= wa * wb;
        }
        const x = solver.solve();
        for (let k = 0; k < m; k++) {
          let residual = -rhs[k]!;
          let scale = Math.abs(rhs[k]!);
          for (let j = 0; j < m; j++) {
            residual += dense[k]![j]! * x[j]!;
            scale += Math.abs(dense[k]![j]! * x[j]!);
          }
          expect(Math.abs(residual)).toBeLessThanOrEqual(1e-9 * scale + 1e-300); // (denormal rounding where all is 0)
        }
      }),
      { numRuns: 300, seed: 20261126 },
    );
  });
});

describe('the closed forms', () => {
  // Reserves 10^3..10^24, fees of 0..3%, prices 10^-6..10^6 of each other.
  const pool = fc.record({
    ra: fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 3, max: 24 })).map(([m, e]) => m * 10 ** e),
    rb: fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 3, max: 24 })).map(([m, e]) => m * 10 ** e),
    fee: fc.constantFrom(0, 1, 5, 20, 25, 30, 100, 300),
    nuA: fc.integer({ min: -6, max: 6 }).map((e) => 10 ** e),
    nuB: fc.integer({ min: -6, max: 6 }).map((e) => 10 ** e),
  });

  it("a pool's arbitrage trade and its payout match a brute-force search over the amount", () => {
    fc.assert(
      fc.property(pool, fc.boolean(), ({ ra, rb, fee, nuA, nuB }, aToB) => {
        const gamma = (10_000 - fee) / 10_000;
        const network = new CpmmNetwork(2, [{ a: 0, b: 1, ra, rb, gamma }]);
        const s = Float64Array.from([Math.sqrt(nuA), Math.sqrt(nuB)]);
        // Selling x for y at prices (nuX, nuY): profit nuY·out(amount) − nuX·amount, concave in the amount.
        const [rx, ry, nuX, nuY] = aToB ? [ra, rb, nuA, nuB] : [rb, ra, nuB, nuA];
        const profit = (amount: number) => (nuY * gamma * amount * ry) / (rx + gamma * amount) - nuX * amount;
        let lo = 0;
        let hi = 1e18 * rx; // beyond any optimum here (reserve and price ratios below 10^22 and 10^12)
        for (let k = 0; k < 400; k++) {
          const m1 = lo + (hi - lo) / 3;
          const m2 = hi - (hi - lo) / 3;
          if (profit(m1) < profit(m2)) lo = m1;
          else hi = m2;
        }
        const best = Math.max(0, profit((lo + hi) / 2));
        const trade = network.trade(0, s);
        const directed = trade !== null && trade.direction === (aToB ? 1 : -1) ? trade : null;
        if (best <= 1e-9 * nuY * ry) {
          // No profitable trade this way (up to the search's resolution): none, or a negligible one.
          if (directed !== null) expect(profit(directed.amountIn)).toBeLessThanOrEqual(1e-9 * nuY * ry);
          return;
        }
        expect(directed).not.toBeNull();
        // The trade's output is the curve's, and it earns what the best amount earns.
        expect(directed!.amountOut).toBeCloseTo((gamma * directed!.amountIn * ry) / (rx + gamma * directed!.amountIn), -Math.log10(ry * 1e-9));
        expect(Math.abs(profit(directed!.amountIn) - best)).toBeLessThanOrEqual(1e-6 * best);
        // The dual's term of the pool is that payout (the arbitrage problem: no input).
        const payout = network.dual(s, { tokenIn: null, amountIn: 0 });
        expect(Math.abs(payout - best)).toBeLessThanOrEqual(1e-6 * best);
      }),
      { numRuns: 500, seed: 22 },
    );
  });

  it('the bound is the known optimum: one pool, and two parallel pools at one price (one pool of their sums)', () => {
    fc.assert(
      fc.property(pool, fc.integer({ min: 1, max: 9 }), fc.integer({ min: -6, max: 1 }), ({ ra, rb, fee }, k, e) => {
        const gamma = (10_000 - fee) / 10_000;
        const amount = ra * 10 ** e;
        const one = (x: number, y: number) => (gamma * amount * y) / (x + gamma * amount);
        const solved = (pools: { ra: number; rb: number }[]) => {
          const network = new CpmmNetwork(2, pools.map((p) => ({ a: 0, b: 1, ...p, gamma })));
          const s = Float64Array.from([1, 1]);
          const query = { tokenIn: 0, amountIn: amount, fixed: 1 };
          network.solve(s, query, undefined, 500);
          return network.dual(s, query);
        };
        expect(Math.abs(solved([{ ra, rb }]) / one(ra, rb) - 1)).toBeLessThanOrEqual(1e-9);
        // A second pool k times the first's size, at its price.
        expect(Math.abs(solved([{ ra, rb }, { ra: k * ra, rb: k * rb }]) / one((k + 1) * ra, (k + 1) * rb) - 1)).toBeLessThanOrEqual(1e-9);
      }),
      { numRuns: 300, seed: 23 },
    );
  });

  it("the action budget is what one transaction's prepaid gas carries: 300 TGas, or 1 PGas from protocol 83", () => {
    const TGAS = 10n ** 12n;
    // 30 TGas the token keeps, and 1.2 × (5 + 3.2 an action + 26.8 prepaid onwards) TGas, rounded up: one action
    // 30 + ceil(42.0) = 72; 60 actions 30 + ceil(268.56) = 299, 61 would take 303; 242 actions 30 + ceil(967.44).
    expect(ammASwapGas(1)).toBe(72n * TGAS);
    for (const [limit, actions] of [[300n * TGAS, 60], [1000n * TGAS, 242]] as const) {
      expect(ammASwapGas(actions)).toBeLessThanOrEqual(limit);
      expect(ammASwapGas(actions + 1)).toBeGreaterThan(limit);
      // Two log lines an action within a receipt's 100 bind first.
      expect(ammAMaxActions(limit)).toBe(50);
    }
    // Below 300 TGas the gas binds: 230 TGas carries 30 + ceil(1.2 · (31.8 + 3.2·n)) <= 230, n = 42.
    expect(ammAMaxActions(230n * TGAS)).toBe(42);
  });
});

describe('the optimal flow over the real pool snapshot', () => {
  // The 1,107 simple pools of test/fixtures/pools/, as the graph would hand them to the router.
  const snapshot: RoutingPool[] = parsePoolsJson(JSON.parse(readDataText('pools/ref-indexer-pools-2024-04.json'))).pools.map((p) => ({
    dex: 'AmmA',
    poolId: String(p.poolId),
    updatedHeight: 1,
    state: p as RoutingPool['state'],
  }));
  const USDC = 'a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48.factory.bridge.near';
  const NATIVE_USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';
  const queries = [
    ['wrap.near', USDC, '1000000000000000000000000000'],
    ['usdt.tether-token.near', 'wrap.near', '5000000000'],
    ['meta-pool.near', 'usdt.tether-token.near', '30000000000000000000000000'],
    ['token.v2.ref-finance.near', 'meta-pool.near', '100000000000000000000000'],
  ].map(([tokenIn, tokenOut, amount]) => {
    const parsed = parseRouteQuery({ token_in: tokenIn!, token_out: tokenOut!, amount_in: amount!, max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.005', dexes: 'AmmA' }, 'mainnet');
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.query;
  });
  /** A router over a graph whose pools `set` replaces (a new version each time). */
  const routerOver = (maxTransactionGas?: bigint) => {
    // No token prices: routes by amount alone.
    const graph = { version: 0, pools: [] as RoutingPool[], poolsOf: (dex: string) => (dex === 'AmmA' ? graph.pools : []), token: () => undefined };
    const router = new Router(graph as unknown as RoutingGraph, contractsOf('mainnet'), null, undefined, maxTransactionGas);
    const set = (pools: RoutingPool[]) => {
      graph.pools = pools;
      graph.version++;
    };
    const best = () => queries.map((q) => router.bestRoute('AmmA', q, ctx));
    // Each route as the actions it sends.
    const routes = () => best().map((route) => route?.paths.flatMap((p) => p.hops.map((h, i) => [h.poolId, i === 0 ? p.amounts[0] : null, p.amounts.at(-1)])));
    return { set, routes, best };
  };

  it("values gas in a token at the pools' own prices: a NEAR in USDC is what the deepest wNEAR/USDC pool's mid price says, within 2%", () => {
    const flow = new FlowGraph(snapshot.flatMap((p) => ammAHops(p, ctx)));
    // Pool 4512, the deepest: 3 184 805.908116 USDC against 464 959.21 wNEAR, so 10^24 yocto is 6.8497 USDC.
    const pool = snapshot.find((p) => p.poolId === '4512')!.state;
    expect(pool.tokens).toEqual([NATIVE_USDC, 'wrap.near']);
    const mid = Number((10n ** 24n * pool.amounts[0]!) / pool.amounts[1]!);
    expect(mid).toBeGreaterThan(6_800_000);
    expect(mid).toBeLessThan(6_900_000);
    const near = Number(flow.inToken(10n ** 24n, 'wrap.near', NATIVE_USDC));
    expect(Math.abs(near / mid - 1)).toBeLessThan(0.02);
    expect(flow.inToken(10n ** 24n, 'wrap.near', 'nowhere.near')).toBe(0n);
  });

  it("weighs a plan's actions against their gas: a costlier action gives fewer actions and no less net of gas", () => {
    const flow = new FlowGraph(snapshot.flatMap((p) => ammAHops(p, ctx)));
    const seeds = snapshot.map((p) => p.poolId);
    const all = UNBOUNDED;
    for (const [tokenIn, tokenOut, amount] of [['wrap.near', USDC, 10n ** 27n], ['usdt.tether-token.near', 'wrap.near', 5_000_000_000n]] as const) {
      const free = flow.route(tokenIn, tokenOut, amount, all, seeds)!;
      expect(free.actions).toBeGreaterThan(4);
      // An action worth a thousandth of the output: a few paths at most pay for theirs.
      const cost = free.amountOut / 1000n;
      const costly = flow.route(tokenIn, tokenOut, amount, all, seeds, cost)!;
      const net = (plan: typeof free) => plan.amountOut - cost * BigInt(plan.actions);
      expect(costly.actions).toBeLessThan(free.actions);
      expect(net(costly)).toBeGreaterThanOrEqual(net(free));
    }
  });

  it('answers the same to the same pools whatever state came before (no warm start from an earlier block)', () => {
    const fresh = routerOver();
    fresh.set(snapshot);
    const expected = fresh.routes();
    // Plans of several actions were asked for: the flow router answered.
    expect(expected.filter((r) => r !== undefined && r.length > 2).length).toBeGreaterThan(0);
    const aged = routerOver();
    // Two earlier blocks: every pool's first reserve 1% and then 0.5% higher.
    for (const [num, den] of [[101n, 100n], [201n, 200n]] as const) {
      aged.set(snapshot.map((p) => ({ ...p, state: { ...p.state, amounts: p.state.amounts.map((a, i) => (i === 0 ? (a * num) / den : a)) } })));
      aged.routes();
    }
    aged.set(snapshot);
    expect(aged.routes()).toEqual(expected);
  });

  it("plans as many actions as the network's prepaid gas per transaction and the receipt's logs allow, and no less comes out", () => {
    // Each query's actions and output, with the default 300 TGas and with protocol 83's 1 PGas.
    const planned = (maxTransactionGas?: bigint) => {
      const { set, routes, best } = routerOver(maxTransactionGas);
      set(snapshot);
      return routes().map((r, i) => ({ actions: r?.length ?? 0, out: best()[i]?.amountOut ?? 0n }));
    };
    const [at300, at1000] = [planned(), planned(1000n * 10n ** 12n)];
    // 300 TGas carries 60 actions of metered gas, but the logs bind first: two lines an action, at most 100 lines
    // and 16 KiB a receipt. So 1 PGas plans no more, and the larger trades use more than 26 actions (the budget of
    // the 9 TGas an action once assumed).
    expect(Math.max(...at300.map((p) => p.actions))).toBeLessThanOrEqual(50);
    expect(at300.filter((p) => p.actions > 26).length).toBeGreaterThanOrEqual(1);
    expect(at1000).toEqual(at300);
  });
});

describe('GET /route with the optimal-flow plan', () => {
  const REF = 'v2.ref-finance.near';
  const TGAS = 1_000_000_000_000;
  // alpha -> beta through two shallow pools, beta -> gamma through one deep pool: pool-disjoint paths can use only
  // one of the shallow pools before the deep one, a plan merges both into it.
  const pools: Pool[] = [
    { id: 1, tokens: ['alpha.near', 'beta.near'], amounts: [1_000_000n, 1_000_000n], fee: 30 },
    { id: 2, tokens: ['alpha.near', 'beta.near'], amounts: [1_000_000n, 1_000_000n], fee: 30 },
    { id: 3, tokens: ['beta.near', 'gamma.near'], amounts: [100_000_000n, 100_000_000n], fee: 30 },
  ];
  let app: FastifyInstance;
  let db: Awaited<ReturnType<typeof createMigratedDb>>;

  beforeAll(async () => {
    db = await createMigratedDb();
    await new BlockWriter(db).write(
      pools.map((p) => ({
        dex: 'AmmA' as const,
        contractId: REF,
        poolId: p.id,
        state: { kind: 'simple', tokens: [...p.tokens], amounts: [...p.amounts], totalFee: p.fee, exchangeFee: 0, referralFee: 0 },
      })),
    );
    app = await buildServer({ db, logLevel: 'silent' });
    await app.ready();
  });
  afterAll(() => app?.close());

  const params = { token_in: 'alpha.near', token_out: 'gamma.near', amount_in: '200000', max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.01', dexes: 'AmmA' };

  it('merges two pools into a third, and its actions replay on the deposit to the quoted amount', async () => {
    const res = await getRoute(app, params);
    expect(res.status).toBe(200);
    const [quote] = res.json();
    const [receiver, method, args, gas] = decodedCalls(quote!)[0]!;
    expect([receiver, method]).toEqual(['alpha.near', 'ft_transfer_call']);
    const { amount, msg } = args as { amount: string; msg: string };
    expect(amount).toBe('200000');
    const { actions } = JSON.parse(msg) as { actions: { pool_id: number; token_in: string; token_out: string; amount_in?: string; min_amount_out: string }[] };
    // Two paths from the input through the two shallow pools, both into the deep one: each path's first action
    // names its part of the input, the second takes what the first gave (no amount of beta is named).
    expect(actions.map((a) => [a.pool_id, a.token_in, a.token_out, a.amount_in !== undefined])).toEqual([
      [1, 'alpha.near', 'beta.near', true],
      [3, 'beta.near', 'gamma.near', false],
      [2, 'alpha.near', 'beta.near', true],
      [3, 'beta.near', 'gamma.near', false],
    ]);
    const replayed = execute(
      pools,
      ['alpha.near', 200_000n],
      actions.map((a) => ({ poolId: a.pool_id, tokenIn: a.token_in, tokenOut: a.token_out, amountIn: a.amount_in === undefined ? null : BigInt(a.amount_in) })),
    );
    expect([...replayed!].filter(([t, v]) => t !== 'gamma.near' && v !== 0n)).toEqual([]);
    const out = replayed!.get('gamma.near')!;
    expect(quote!.estimated_amount).toEqual({ amount_out: out.toString() });
    // Each path's last action asks for its part of the route's worst case: the 1% the route may lose, shared by what
    // each path pays (both have two pools); the others for nothing.
    const paid = [0, 2].map((k) => execute(pools, ['alpha.near', 200_000n], actions.slice(0, k + 2).map((a) => ({ poolId: a.pool_id, tokenIn: a.token_in, tokenOut: a.token_out, amountIn: a.amount_in === undefined ? null : BigInt(a.amount_in) })))!.get('gamma.near')!);
    const [first, second] = [paid[0]!, paid[1]! - paid[0]!];
    expect(first + second).toBe(out);
    const loss = out - (out * 99n) / 100n;
    expect(actions.map((a) => a.min_amount_out)).toEqual(['0', (first - (loss * first) / out).toString(), '0', (second - (loss * second) / out).toString()]);
    // Four actions: 30 TGas for the token and ceil(1.2 × (5 + 4 × 3.2 + 26.8)) = ceil(53.52) for the exchange.
    expect(gas).toBe(84 * TGAS);
    // More than the best single path: 200 000 alpha through one shallow pool, then the deep one.
    const single = execute(pools, ['alpha.near', 200_000n], [
      { poolId: 1, tokenIn: 'alpha.near', tokenOut: 'beta.near', amountIn: 200_000n },
      { poolId: 3, tokenIn: 'beta.near', tokenOut: 'gamma.near', amountIn: null },
    ])!.get('gamma.near')!;
    expect(out).toBeGreaterThan(single);
  });

  it('answers the same bytes to the same query, also from a second server over the same pools', async () => {
    const first = await getRoute(app, params);
    expect(first.status).toBe(200);
    // One server shares equal queries' answers for a moment (Router's `shared`), so asking it twice proves nothing:
    // a server of its own plans this query afresh from the same database.
    const other = await buildServer({ db, logLevel: 'silent' });
    try {
      await other.ready();
      expect((await getRoute(other, params)).body).toBe(first.body);
    } finally {
      await other.close();
    }
  });
});
