// AmmA routing against Ref's own SDK (`@ref-finance/ref-sdk` estimateSwap, smart routing), offline, over the same
// pools, in the same process:
// 1. The Ref indexer pool snapshot (test/fixtures/pools/) goes through `dexlake pools import`'s functions into a
//    fresh database; the router's in-memory graph is loaded from the `pools` table, and the SDK gets the same rows
//    as its `Pool` objects.
// 2. A seeded set of cases over the best-connected tokens: direct, 2-hop and 3-hop pairs (shortest distance in the
//    pool graph), amounts from 0.01 % to 10 % of the input token's deepest reserve (log-uniform).
// 3. Both answers are re-executed with the contract's exact math (dexes/amm-a/math.ts) as the contract would run
//    the actions it is sent: in order on the deposit, each pool's reserves updated after every action, an action
//    without `amount_in` taking the previous action's output; ours must spend every token but the output to the
//    unit. The SDK's own estimates (floats) are not compared. Answers are compared net of their swap actions' gas
//    (each action's metered burn in the output token at the pools' own prices), what our router maximizes: a path
//    that gains less than its actions burn is left out, so the gross output can be lower (printed too).
// 4. Latency: our `Router.bestRoute('AmmA', ...)` against `estimateSwap`, one timed call each per case after a
//    warm-up; then GET /route end to end over real HTTP (`buildServer`) for the same cases.
// 5. The bound (bench/README.md): per case, the dual upper bound of the convex routing problem over every pool
//    (Angeris et al.), at prices the solver of api/routing/flow/solve.ts finds and evaluated here by its own
//    formula; every router's shortfall to it (ours, the SDK, the best single path) per size, on the snapshot and on
//    an arbitrage-free state made from it (the zero-input optimal flow, the arbitrage, applied until none is left);
//    ours by output alone (its actions weighed at no gas, which is what the bound measures); and
//    the optimal flow over every pool, without the action budget and pruned to it (26 and 103 actions), timed.
//
// Offline: estimateSwap with smart routing asks for the token list (`getTokensTiny`), which it reads from the
// browser's localStorage when `window` exists, else from Ref's indexer over fetch. It is given the list as data
// through that cache, for the synchronous part of each call only, and every token gets decimals 0 so that its
// amounts are our raw units (its routing math is scale-free). `fetch` throws during the SDK's calls, and the number
// of attempts is printed.
import { createHash, randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { estimateSwap, type EstimateSwapView, type Pool as SdkPool, type TokenMetadata } from '@ref-finance/ref-sdk';
import { buildServer } from '../api/server.ts';
import { RoutingGraph } from '../api/routing/graph.ts';
import { parseRouteQuery, type RouteQuery } from '../api/routing/params.ts';
import type { QuoteJson } from '../api/routing/quote.ts';
import { Router } from '../api/routing/route.ts';
import { connect, ensureDatabase, withDatabase } from '../db/connect.ts';
import { startEmbeddedPostgres } from '../db/embedded.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { simpleGetAmountOut, simpleSwap } from '../dexes/amm-a/math.ts';
import { contractsOf } from '../dexes/contracts.ts';
import { ammA } from '../dexes/amm-a/index.ts';
import { DEXES } from '../dexes/index.ts';
import { DEFAULT_MAX_TRANSACTION_GAS, tgas } from '../dexes/instructions.ts';
import { AMM_A_ACTION_BURN, ammAMaxActions, ammASwapFits } from '../dexes/amm-a/instructions.ts';
import type { RoutePath } from '../dexes/dex.ts';
import type { Dex } from '../dexes/dex.ts';
import { parsePoolsJson } from '../dexes/amm-a/snapshot.ts';
import { poolStateEvents } from '../indexer/pools-import/events.ts';
import { writeImport } from '../indexer/pools-import/write.ts';
import { readText } from '../indexer/sources/raw.ts';
import { CpmmNetwork } from '../api/routing/flow/solve.ts';
import { FlowGraph } from '../api/routing/flow/index.ts';
import { hopsOfPool } from '../api/routing/hops.ts';
import { deepestReserves, prng, sampleCases, type Case } from '../test/harness/route-cases.ts';
import { RefExchange, signedSwap, VERDICTS, type QuoteFields, type Verdict } from '../test/harness/ref-exchange.ts';
import { GAS_PRICE_YOCTO } from '../api/routing/quote.ts';

const POOLS_FILE = fileURLToPath(new URL('../test/fixtures/pools/ref-indexer-pools-2024-04.json.gz', import.meta.url));
/** A call that carries any plan (the flow without the action budget). */
const UNBOUNDED = { maxActions: Infinity, fits: () => true };
const CASES_PER_KIND = Number(process.env.BENCH_ROUTE_CASES ?? 80);
const SEED = Number(process.env.BENCH_ROUTE_SEED ?? 20240401);
/** The snapshot records no height; early April 2024 is about here. */
const IMPORT_HEIGHT = 116_000_000;
const WARMUP = 10;
/** Bound section: direct and 2-hop pairs of each kind, each routed at every size of SIZES. */
const BOUND_PAIRS = Number(process.env.BENCH_ROUTE_BOUND_PAIRS ?? 30);
const SIZES = [1e-4, 1e-3, 1e-2, 1e-1];
/** The arbitrage of a state is valued in native USDC (6 decimals). */
const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';

// ---- pure helpers ----

/** Nearest-rank percentile of a sorted list. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface BenchPool {
  id: number;
  tokens: [string, string];
  amounts: [bigint, bigint];
  fee: number;
}

/** One swap action as the contract receives it: no `amountIn` means the previous action's output. */
interface SwapAction {
  poolId: number;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint | null;
}

/**
 * The contract's execution of `actions` on a deposit of `amountIn` of `tokenIn` (ref-exchange's instant swap on its
 * virtual account): in order, each action withdrawing its amount from the account (the previous action's output
 * when it names none) and depositing its output, pools' reserves updated after each. Returns what the account holds
 * of `tokenOut` at the end and of every other token (sent back to the trader), or null when an action names a pool
 * or token that does not fit or takes more than the account holds (the contract panics).
 */
function executeActions(actions: readonly SwapAction[], pools: ReadonlyMap<number, BenchPool>, tokenIn: string, amountIn: bigint, tokenOut: string): { out: bigint; leftovers: number } | null {
  const reserves = new Map<number, [bigint, bigint]>();
  const account = new Map<string, bigint>([[tokenIn, amountIn]]);
  let previous: bigint | null = null;
  for (const action of actions) {
    const pool = pools.get(action.poolId);
    if (pool === undefined) return null;
    const i = pool.tokens.indexOf(action.tokenIn);
    const o = pool.tokens.indexOf(action.tokenOut);
    if (i < 0 || o < 0 || i === o) return null;
    const amount = action.amountIn ?? previous;
    const held = account.get(action.tokenIn) ?? 0n;
    if (amount === null || amount > held) return null;
    account.set(action.tokenIn, held - amount);
    const current = reserves.get(pool.id) ?? [...pool.amounts];
    const swap = simpleSwap(current[i]!, current[o]!, amount, pool.fee);
    current[i] = swap.reserveIn;
    current[o] = swap.reserveOut;
    reserves.set(pool.id, current as [bigint, bigint]);
    previous = swap.amountOut;
    account.set(action.tokenOut, (account.get(action.tokenOut) ?? 0n) + swap.amountOut);
  }
  return { out: account.get(tokenOut) ?? 0n, leftovers: [...account].filter(([t, v]) => t !== tokenOut && v > 0n).length };
}

/** A path or a plan's chain as the contract's actions: its first names its amount, the others take the previous output. */
function chainActions(path: { hops: readonly { poolId: string; tokenIn: string; tokenOut: string }[]; amounts: readonly bigint[] }): SwapAction[] {
  return path.hops.map((h, i) => ({ poolId: Number(h.poolId), tokenIn: h.tokenIn, tokenOut: h.tokenOut, amountIn: i === 0 ? path.amounts[0]! : null }));
}

/** The SDK's answer as the actions its own `instantSwap` sends (v1-swap: amount_in on a route's first hop only). */
function sdkActions(views: readonly EstimateSwapView[], tokenIn: string): SwapAction[] | null {
  const actions: SwapAction[] = [];
  for (const view of views) {
    if (view.inputToken === undefined || view.outputToken === undefined) return null;
    let amountIn: bigint | null = null;
    if (view.inputToken === tokenIn) {
      const text = view.pool.partialAmountIn;
      if (text === undefined || !/^\d+$/.test(text)) return null;
      amountIn = BigInt(text);
    }
    actions.push({ poolId: Number(view.pool.id), tokenIn: view.inputToken, tokenOut: view.outputToken, amountIn });
  }
  return actions;
}

// ---- the run ----

/** One case routed by ours and the SDK, both re-executed with the contract math. */
interface Routed {
  c: Case;
  ours: bigint | null;
  /** The router before the optimal flow: best path or split of pool-disjoint paths. */
  before: bigint | null;
  /** Ours by output alone: the same router weighing no action's gas (what the bound, which knows no gas, measures). */
  gross: bigint | null;
  sdk: bigint | null;
  sdkError: string | null;
  ourMs: number;
  sdkMs: number;
  /** Swap actions each sends (the SDK's: its answer's), for the comparisons net of gas. */
  actions: { ours: number; before: number; sdk: number };
  /** One more action's metered burn in the output token, at the pools' own prices (what the router weighs). */
  actionCost: bigint;
}

async function run(): Promise<void> {
  const work = path.join(tmpdir(), `dexlake-bench-route-${randomBytes(6).toString('hex')}`);
  let url = process.env.DATABASE_URL;
  let stopPg = async () => {};
  if (!url) {
    const pg = await startEmbeddedPostgres({ dir: path.join(work, 'pg'), port: 0 });
    url = pg.url;
    stopPg = pg.stop;
  }
  const dbUrl = withDatabase(url, `dexlake_bench_${randomBytes(4).toString('hex')}`);
  await ensureDatabase(dbUrl);
  const db = connect(dbUrl);
  const realFetch = globalThis.fetch;
  try {
    await migrateToLatest(db.kysely);
    // What `dexlake pools import FILE --height H` does (cli/pools.ts), with the same functions.
    const parsed = parsePoolsJson(JSON.parse(readText(POOLS_FILE)));
    const contracts = contractsOf('mainnet');
    await writeImport(db, ammA, IMPORT_HEIGHT, poolStateEvents(ammA, parsed.pools, { contractId: contracts.AmmA, height: IMPORT_HEIGHT, timestampMs: 0 }));
    const graph = new RoutingGraph(db);
    await graph.loadAll();
    const router = new Router(graph, contracts);
    // "Before": the same router without AmmA's optimal flow (paths and splits only).
    const withoutFlow = (d: Dex): Dex => {
      if (d.routing?.flow === undefined) return d;
      const { flow: _, ...routing } = d.routing;
      return { ...d, routing };
    };
    const before = new Router(graph, contracts, null, DEXES.map(withoutFlow));
    // Ours by output alone: its actions weighed at no gas (at 1 PGas a transaction it plans what it does at 300 TGas:
    // the receipt's 100 log lines bind first).
    const byOutput = (d: Dex): Dex => (d.routing?.flow === undefined ? d : { ...d, routing: { ...d.routing, flow: { ...d.routing.flow, actionBurn: 0n } } });
    const grossRouter = new Router(graph, contracts, null, DEXES.map(byOutput));

    const pools = new Map<number, BenchPool>();
    for (const p of graph.poolsOf('AmmA')) {
      const s = p.state;
      if (s.kind !== 'simple' || s.tokens.length !== 2) continue;
      pools.set(Number(p.poolId), {
        id: Number(p.poolId),
        tokens: [s.tokens[0]!, s.tokens[1]!],
        amounts: [s.amounts[0]!, s.amounts[1]!],
        fee: s.totalFee as number,
      });
    }
    console.log(`pools    ${parsed.total} in ${path.basename(POOLS_FILE)}: ${parsed.pools.length} simple pools imported, ${pools.size} in the routing graph`);

    const cases = sampleCases(pools.values(), CASES_PER_KIND, SEED);
    const kinds = [1, 2, 3].map((k) => cases.filter((c) => c.hops === k).length);
    console.log(`cases    ${cases.length} (seed ${SEED}): ${kinds[0]} direct, ${kinds[1]} 2-hop, ${kinds[2]} 3-hop; amounts 0.01%..10% of the input's deepest reserve`);

    const tokenMeta = new Map<string, TokenMetadata>();
    for (const p of pools.values()) for (const t of p.tokens) tokenMeta.set(t, { id: t, name: t, symbol: t, decimals: 0, icon: '' });
    const tokenList = JSON.stringify(Object.fromEntries(tokenMeta));
    let sdkFetches = 0;
    const offline = (async () => {
      sdkFetches++;
      throw new Error('bench:route: the SDK runs offline');
    }) as typeof fetch;
    const query = (c: Case, dexes: string): RouteQuery => {
      const parsedQuery = parseRouteQuery(
        { token_in: c.tokenIn, token_out: c.tokenOut, amount_in: c.amountIn.toString(), max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.005', dexes },
        'mainnet',
      );
      if (!parsedQuery.ok) throw new Error(`case ${c.tokenIn} -> ${c.tokenOut}: ${parsedQuery.error}`);
      return parsedQuery.query;
    };
    const ctx = { contracts, registrations: null };

    /** Every case routed by ours and by the SDK over `state` (the pools the router's graph holds too). */
    const routeAll = async (state: ReadonlyMap<number, BenchPool>, list: readonly Case[]): Promise<Routed[]> => {
      // The SDK's inputs, from the same rows.
      const sdkPools: SdkPool[] = [...state.values()].map((p) => ({
        id: p.id,
        tokenIds: [...p.tokens],
        supplies: { [p.tokens[0]]: p.amounts[0].toString(), [p.tokens[1]]: p.amounts[1].toString() },
        fee: p.fee,
        total_fee: p.fee,
        shareSupply: '0',
        tvl: 0,
        token0_ref_price: '0',
        pool_kind: 'SIMPLE_POOL',
      }));
      const callSdk = (c: Case): Promise<EstimateSwapView[]> => {
        const g = globalThis as Record<string, unknown>;
        g.window = g;
        g.localStorage = { getItem: (key: string) => (key === 'REF_WIDGET_ALL_LIGHT_TOKENS_LIST_VALUE' ? tokenList : null), setItem() {}, removeItem() {} };
        try {
          return estimateSwap({
            tokenIn: tokenMeta.get(c.tokenIn)!,
            tokenOut: tokenMeta.get(c.tokenOut)!,
            amountIn: c.amountIn.toString(),
            simplePools: sdkPools,
            options: { enableSmartRouting: true },
          });
        } finally {
          delete g.window;
          delete g.localStorage;
        }
      };
      globalThis.fetch = offline;
      // The pools' own prices, as the router values gas.
      const valuation = new FlowGraph(graph.poolsOf('AmmA').flatMap((p) => hopsOfPool(p, ctx)));
      // Warm-up (JIT, our hop index and flow network), untimed.
      for (const c of list.slice(0, WARMUP)) {
        router.bestRoute('AmmA', query(c, 'AmmA'), ctx);
        before.bestRoute('AmmA', query(c, 'AmmA'), ctx);
        grossRouter.bestRoute('AmmA', query(c, 'AmmA'), ctx);
        await callSdk(c).catch(() => []);
      }
      const routed: Routed[] = [];
      for (const c of list) {
        const q = query(c, 'AmmA');
        let t = performance.now();
        const route = router.bestRoute('AmmA', q, ctx);
        const ourMs = performance.now() - t;
        t = performance.now();
        let views: EstimateSwapView[] | null = null;
        let sdkError: string | null = null;
        try {
          views = await callSdk(c);
        } catch (err) {
          sdkError = (err as Error).message ?? String(err);
        }
        const sdkMs = performance.now() - t;
        const ourActions = route === null ? null : route.paths.flatMap(chainActions);
        const executed = ourActions === null ? null : executeActions(ourActions, state, c.tokenIn, c.amountIn, c.tokenOut);
        if (route !== null && (executed?.out !== route.amountOut || executed.leftovers > 0)) {
          throw new Error(`our quote ${route.amountOut} does not re-execute to itself (${executed?.out}, ${executed?.leftovers} tokens left over) for ${c.tokenIn} -> ${c.tokenOut}`);
        }
        const ours = executed?.out ?? null;
        const old = before.bestRoute('AmmA', q, ctx);
        const oldExecuted = old === null ? null : executeActions(old.paths.flatMap(chainActions), state, c.tokenIn, c.amountIn, c.tokenOut);
        if (old !== null && oldExecuted?.out !== old.amountOut) throw new Error(`the paths router's quote ${old.amountOut} does not re-execute to itself for ${c.tokenIn} -> ${c.tokenOut}`);
        let sdk: bigint | null = null;
        let sdkCount = 0;
        if (views !== null) {
          const actions = sdkActions(views, c.tokenIn);
          sdkCount = actions?.length ?? 0;
          const spent = actions?.reduce((sum, a) => sum + (a.amountIn ?? 0n), 0n);
          if (actions === null || spent !== c.amountIn) sdkError = `unexecutable answer (${actions === null ? 'malformed' : `spends ${spent} of ${c.amountIn}`})`;
          else sdk = executeActions(actions, state, c.tokenIn, c.amountIn, c.tokenOut)?.out ?? null;
        }
        const wide = grossRouter.bestRoute('AmmA', q, ctx);
        const wideExecuted = wide === null ? null : executeActions(wide.paths.flatMap(chainActions), state, c.tokenIn, c.amountIn, c.tokenOut);
        if (wide !== null && (wideExecuted?.out !== wide.amountOut || wideExecuted.leftovers > 0)) throw new Error(`a plan by output alone ${wide.amountOut} does not re-execute to itself for ${c.tokenIn} -> ${c.tokenOut}`);
        const count = (r: { paths: readonly { hops: readonly unknown[] }[] } | null) => r?.paths.reduce((n, p) => n + p.hops.length, 0) ?? 0;
        const actionCost = valuation.inToken(AMM_A_ACTION_BURN * GAS_PRICE_YOCTO, contracts.Wrap, c.tokenOut);
        routed.push({ c, ours, before: oldExecuted?.out ?? null, gross: wideExecuted?.out ?? null, sdk, sdkError, ourMs, sdkMs, actions: { ours: count(route), before: count(old), sdk: sdkCount }, actionCost });
      }
      globalThis.fetch = realFetch;
      return routed;
    };

    const results = await routeAll(pools, cases);
    compare(results, pools);
    const ms = (v: number) => `${v.toFixed(3)} ms`;
    const ourMs = results.map((r) => r.ourMs).sort((a, b) => a - b);
    const sdkMs = results.map((r) => r.sdkMs).sort((a, b) => a - b);
    console.log(`latency  ours p50 ${ms(percentile(ourMs, 50))} p99 ${ms(percentile(ourMs, 99))}; SDK p50 ${ms(percentile(sdkMs, 50))} p99 ${ms(percentile(sdkMs, 99))}`);
    console.log(
      `ratio    ours/SDK p50 ${(percentile(ourMs, 50) / percentile(sdkMs, 50)).toFixed(4)}  p99 ${(percentile(ourMs, 99) / percentile(sdkMs, 99)).toFixed(4)}  (target p50 <= 0.0100); SDK network attempts ${sdkFetches}`,
    );
    await httpRun(db, cases, results);
    if (process.env.BENCH_ROUTE_BOUND === '0') return;

    // The bound: the same direct and 2-hop pairs at each size, and the 3-hop cases as drawn, on the snapshot and on
    // the arbitrage-free state made from it.
    const depth = deepestReserves(pools.values());
    const boundCases: (Case & { group: string })[] = [];
    for (const hops of [1, 2]) {
      for (const c of cases.filter((x) => x.hops === hops).slice(0, BOUND_PAIRS)) {
        for (const size of SIZES) boundCases.push({ ...c, amountIn: (depth.get(c.tokenIn)! * BigInt(Math.round(size * 1e6))) / 1_000_000n, group: `${size * 100}%` });
      }
    }
    for (const c of cases.filter((x) => x.hops === 3)) boundCases.push({ ...c, group: '3-hop' });
    console.log(`bound    ${boundCases.length} cases: ${BOUND_PAIRS} direct and ${BOUND_PAIRS} 2-hop pairs at ${SIZES.map((x) => `${x * 100}%`).join(', ')} of the input's deepest reserve, and the ${kinds[2]} 3-hop cases`);
    const flowOf = () => new FlowGraph(graph.poolsOf('AmmA').flatMap((p) => hopsOfPool(p, ctx)));
    await boundSection('snapshot', pools, boundCases, routeAll, flowOf());
    const free = arbitrageFree(pools);
    console.log(
      `arbfree  the zero-input optimal flow (the arbitrage, valued in USDC at the solved prices) applied ${free.residuals.length - 1} times: ` +
        free.residuals.map((r) => usdc(r)).join(' -> ') + ` USDC left (the residual: integer rounding of the last trades)`,
    );
    const freePools = parsed.pools.map((p) => ({ ...p, amounts: [...(free.pools.get(p.poolId)?.amounts ?? p.amounts)] }));
    await writeImport(db, ammA, IMPORT_HEIGHT + 1, poolStateEvents(ammA, freePools, { contractId: contracts.AmmA, height: IMPORT_HEIGHT + 1, timestampMs: 0 }));
    await graph.loadAll();
    await boundSection('arb-free', free.pools, boundCases, routeAll, flowOf());
    await contractSection('arb-free', free.pools, cases, router, (c) => query(c, 'AmmA'));
  } finally {
    globalThis.fetch = realFetch;
    await db.close();
    await stopPg();
    await rm(work, { recursive: true, force: true });
  }
}

/** The original comparison lines: ours against the SDK and against the best single path. */
function compare(results: readonly Routed[], pools: ReadonlyMap<number, BenchPool>): void {
  let better = 0;
  let equal = 0;
  let worse = 0;
  let sdkNone = 0;
  let bothNone = 0;
  const gainsPpm: bigint[] = [];
  const worseCases: string[] = [];
  // Net of the gas of each answer's swap actions, in the output token at the pools' own prices: what the trader
  // keeps, and what our router maximizes (a path that gains less than its actions burn is left out).
  const net = (out: bigint | null, actions: number, r: Routed) => (out ?? 0n) - r.actionCost * BigInt(actions);
  let grossWorse = 0;
  for (const r of results) {
    if (r.sdk === null) {
      if (r.ours === null) bothNone++;
      else sdkNone++;
      continue;
    }
    const ours = net(r.ours, r.actions.ours, r);
    const sdk = net(r.sdk, r.actions.sdk, r);
    if ((r.ours ?? 0n) < r.sdk) grossWorse++;
    if (ours > sdk) better++;
    else if (ours === sdk) equal++;
    else {
      worse++;
      worseCases.push(`${r.c.tokenIn} -> ${r.c.tokenOut} ${r.c.amountIn}: ours ${r.ours} in ${r.actions.ours} actions, SDK ${r.sdk} in ${r.actions.sdk}, an action worth ${r.actionCost}`);
    }
    if (sdk > 0n) gainsPpm.push(((ours - sdk) * 1_000_000n) / sdk);
  }
  gainsPpm.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const pct = (ppm: bigint | undefined) => (ppm === undefined ? 'n/a' : `${(Number(ppm) / 10_000).toFixed(4)}%`);
  const median = gainsPpm.length ? gainsPpm[Math.ceil(gainsPpm.length / 2) - 1] : undefined;
  console.log(
    `quality  ours vs SDK (both re-executed with the contract math; net of their actions' gas): better ${better}, equal ${equal}, worse ${worse}` +
      ` (target 0); SDK no route or unexecutable ${sdkNone}, neither routes ${bothNone}; gross output below the SDK's in ${grossWorse}`,
  );
  console.log(`gain     median ${pct(median)}  max ${pct(gainsPpm.at(-1))}  (ours/SDK − 1, over the ${gainsPpm.length} cases both route)`);
  for (const hops of [1, 2, 3]) {
    const of = results.filter((r) => r.c.hops === hops);
    const routed = of.filter((r) => r.sdk !== null);
    const count = (test: (ours: bigint, sdk: bigint) => boolean) => routed.filter((r) => test(net(r.ours, r.actions.ours, r), net(r.sdk, r.actions.sdk, r))).length;
    console.log(
      `  ${['direct', '2-hop', '3-hop'][hops - 1]!.padEnd(6)} better ${count((o, k) => o > k)}, equal ${count((o, k) => o === k)}, worse ${count((o, k) => o < k)};` +
        ` SDK no route or unexecutable ${of.length - routed.length} of ${of.length}`,
    );
  }
  for (const line of worseCases.slice(0, 10)) console.log(`worse    ${line}`);
  // The optimal flow is kept only when its plan gives more net of its actions' gas, so ours is never below the
  // paths router so counted.
  const flowCount = (test: (ours: bigint, before: bigint) => boolean) => results.filter((r) => test(net(r.ours, r.actions.ours, r), net(r.before, r.actions.before, r))).length;
  console.log(`flow     ours vs before (the same router without the optimal flow: paths and splits; net of gas): better ${flowCount((o, b) => o > b)}, equal ${flowCount((o, b) => o === b)}, worse ${flowCount((o, b) => o < b)} (must be 0)`);
  // A second peer where the SDK answers nothing (every 3-hop case): the best single path of at most 3 pools, by
  // exhaustive search with the contract math. Ours (paths and splits) must never be below it.
  const searchStarted = performance.now();
  const single = results.map((r) => bestSinglePath(r.c, pools, r.actionCost));
  for (const hops of [1, 2, 3]) {
    const of = results.map((r, i) => ({ ours: net(r.ours, r.actions.ours, r), best: single[i]! })).filter((_, i) => results[i]!.c.hops === hops && single[i] !== null);
    console.log(
      `exhaust  ${['direct', '2-hop', '3-hop'][hops - 1]!.padEnd(6)} ours vs the best single path of <= 3 pools (exhaustive, contract math; net of gas): ` +
        `better ${of.filter((x) => x.ours > x.best!).length}, equal ${of.filter((x) => x.ours === x.best).length}, worse ${of.filter((x) => x.ours < x.best!).length} (target 0)`,
    );
  }
  console.log(`exhaust  search took ${((performance.now() - searchStarted) / 1000).toFixed(1)} s for ${results.length} cases`);
  const sdkErrors = new Map<string, number>();
  for (const r of results) if (r.sdkError !== null) sdkErrors.set(r.sdkError, (sdkErrors.get(r.sdkError) ?? 0) + 1);
  for (const [message, n] of sdkErrors) console.log(`sdk      ${n} cases: ${message}`);
}

/**
 * The dual bound of the convex routing problem over `pools` (bench/README.md): at any token prices ν >= 0 with
 * ν_out = 1, no route out of A of token `in` yields more than A·ν_in + Σ_pools arb(ν), arb(ν) being the most a pool
 * pays an arbitrageur at those prices, for selling its token 0: (√(ν1·R1) − √(ν0·R0/γ))² when positive (γ = 1 − fee),
 * and the same the other way. The prices come from the solver of api/routing/flow/solve.ts (its minimizer of that
 * sum); the value from the formula here. Tokens `root` cannot reach get ν = 0.
 */
class DualBound {
  readonly list: BenchPool[];
  readonly network: CpmmNetwork;
  /** √ν of the arbitrage problem's optimum (no input), valued in `root`. */
  readonly reference: Float64Array;
  readonly arbitrage: number;
  private readonly index: Map<string, number>;
  private readonly outside: Uint8Array;

  constructor(pools: ReadonlyMap<number, BenchPool>, root: string) {
    this.list = [...pools.values()].filter((p) => p.amounts[0] > 0n && p.amounts[1] > 0n);
    const tokens = [...new Set(this.list.flatMap((p) => p.tokens))].sort();
    this.index = new Map(tokens.map((t, i) => [t, i]));
    const at = (t: string) => this.index.get(t)!;
    this.network = new CpmmNetwork(
      tokens.length,
      this.list.map((p) => ({ a: at(p.tokens[0]), b: at(p.tokens[1]), ra: Number(p.amounts[0]), rb: Number(p.amounts[1]), gamma: (10_000 - p.fee) / 10_000 })),
    );
    // A start: mid prices, breadth first from the root.
    const nu = new Float64Array(tokens.length);
    nu[at(root)] = 1;
    for (let frontier = [at(root)]; frontier.length > 0; ) {
      const next: number[] = [];
      for (const t of frontier) {
        for (const i of this.network.byToken[t]!) {
          const p = this.network.pools[i]!;
          const [other, price] = p.a === t ? [p.b, (nu[t]! * p.ra) / p.rb] : [p.a, (nu[t]! * p.rb) / p.ra];
          if (nu[other] !== 0) continue;
          nu[other] = price;
          next.push(other);
        }
      }
      frontier = next;
    }
    this.outside = Uint8Array.from(this.network.pools, (p) => (nu[p.a] === 0 ? 1 : 0));
    this.reference = nu.map(Math.sqrt);
    this.network.solve(this.reference, { tokenIn: null, amountIn: 0, fixed: at(root) }, this.outside, 500);
    this.arbitrage = this.value(this.reference, null, 0n);
  }

  /** The bound for case c (0 when its tokens are not both reached), and the solver's iterations. */
  of(c: Case): { bound: number; iterations: number } {
    const i = this.index.get(c.tokenIn);
    const o = this.index.get(c.tokenOut);
    if (i === undefined || o === undefined || this.reference[i] === 0 || this.reference[o] === 0) return { bound: 0, iterations: 0 };
    const s = this.reference.map((v) => v / this.reference[o]!);
    const { iterations } = this.network.solve(s, { tokenIn: i, amountIn: Number(c.amountIn), fixed: o }, this.outside, 500);
    return { bound: this.value(s, c.tokenIn, c.amountIn), iterations };
  }

  /** `amount` of `token` in USDC at the reference prices (the root is USDC, 6 decimals). */
  worth(token: string, amount: number): number {
    const t = this.index.get(token);
    return t === undefined ? 0 : (amount * this.reference[t]! ** 2) / 1e6;
  }

  /** A·ν_in + Σ arb(ν) at ν = s², in the token whose s is 1; raised by 10^-12 of itself for floating-point error. */
  value(s: Float64Array, tokenIn: string | null, amountIn: bigint): number {
    const nu = (t: string) => s[this.index.get(t)!]! ** 2;
    let v = tokenIn === null ? 0 : Number(amountIn) * nu(tokenIn);
    for (const p of this.list) {
      const [n0, n1] = [nu(p.tokens[0]), nu(p.tokens[1])];
      const [r0, r1] = [Number(p.amounts[0]), Number(p.amounts[1])];
      const gamma = (10_000 - p.fee) / 10_000;
      v += Math.max(0, Math.sqrt(n1 * r1) - Math.sqrt((n0 * r0) / gamma)) ** 2 + Math.max(0, Math.sqrt(n0 * r0) - Math.sqrt((n1 * r1) / gamma)) ** 2;
    }
    return v * (1 + 1e-12);
  }
}

/**
 * The arbitrage-free state of `pools`: the optimal flow with no input (the arbitrage, into USDC) found at the
 * solved prices, each of its pool trades applied with the contract math (the amount floored), until the arbitrage
 * left is under one unit of USDC or stops falling. Returns the state and the arbitrage before each application.
 */
function arbitrageFree(pools: ReadonlyMap<number, BenchPool>): { pools: Map<number, BenchPool>; residuals: number[] } {
  const state = new Map([...pools].map(([id, p]) => [id, { ...p, amounts: [...p.amounts] as [bigint, bigint] }]));
  const residuals: number[] = [];
  for (let round = 0; round < 8; round++) {
    const bound = new DualBound(state, USDC);
    residuals.push(bound.arbitrage);
    if (bound.arbitrage < 1 || (residuals.length > 1 && bound.arbitrage >= residuals.at(-2)!)) break;
    for (const t of bound.network.trades(bound.reference)) {
      const pool = state.get(bound.list[t.pool]!.id)!;
      const amount = BigInt(Math.floor(t.amountIn));
      if (amount <= 0n) continue;
      const i = t.direction === 1 ? 0 : 1;
      const swap = simpleSwap(pool.amounts[i]!, pool.amounts[1 - i]!, amount, pool.fee);
      pool.amounts[i] = swap.reserveIn;
      pool.amounts[1 - i] = swap.reserveOut;
    }
  }
  return { pools: state, residuals };
}

/** USDC units (6 decimals) as USDC. */
const usdc = (units: number) => (units / 1e6).toFixed(units < 1e4 ? 6 : 2);

/**
 * Every router's shortfall to the bound (1 − output/bound) on `state`, per group of cases: median, p99 and max over
 * the cases it routes; then the cases ours is below the SDK, any output above the bound (there must be none), and the
 * latencies.
 */
async function boundSection(
  label: string,
  state: ReadonlyMap<number, BenchPool>,
  cases: readonly (Case & { group: string })[],
  routeAll: (state: ReadonlyMap<number, BenchPool>, list: readonly Case[]) => Promise<Routed[]>,
  flow: FlowGraph,
): Promise<void> {
  const started = performance.now();
  const bound = new DualBound(state, USDC);
  console.log(`state    ${label}: arbitrage at the solved prices ${usdc(bound.arbitrage)} USDC`);
  const routed = await routeAll(state, cases);
  const everyPool = [...state.keys()].map(String);
  // The optimal flow over every pool, run exactly: without the action budget (one transaction cannot carry it), and
  // pruned to the budget at 300 TGas and at 1 PGas (what ours would reach were its pool set not the limit), timed.
  const everyPoolFlow = (c: Case, maxTransactionGas: bigint | null, what: string) => {
    const started = performance.now();
    const fit = maxTransactionGas === null ? UNBOUNDED : { maxActions: ammAMaxActions(maxTransactionGas), fits: (paths: readonly RoutePath[]) => ammASwapFits(paths, maxTransactionGas, false) };
    const plan = flow.route(c.tokenIn, c.tokenOut, c.amountIn, fit, everyPool);
    const ms = performance.now() - started;
    const replay = plan === null ? null : executeActions(plan.paths.flatMap(chainActions), state, c.tokenIn, c.amountIn, c.tokenOut);
    if (plan !== null && (replay?.out !== plan.amountOut || replay.leftovers > 0)) throw new Error(`${what} plan does not re-execute to itself`);
    return { out: plan?.amountOut ?? null, actions: plan?.actions ?? 0, ms };
  };
  const rows = routed.map((r, i) => {
    const unbudgeted = everyPoolFlow(r.c, null, 'an unbudgeted');
    const tera = everyPoolFlow(r.c, DEFAULT_MAX_TRANSACTION_GAS, 'a 300 TGas every-pool');
    const peta = everyPoolFlow(r.c, tgas(1000), 'a 1 PGas every-pool');
    const solved = bound.of(r.c);
    return {
      r,
      group: cases[i]!.group,
      ...solved,
      worth: bound.worth(r.c.tokenOut, solved.bound),
      single: bestSinglePath(r.c, state),
      unbudgeted: unbudgeted.out,
      actions: unbudgeted.actions,
      tera,
      peta,
    };
  });
  const above = rows.filter((x) => [x.r.ours, x.r.before, x.r.gross, x.r.sdk, x.single, x.unbudgeted, x.tera.out, x.peta.out].some((v) => v !== null && Number(v) > x.bound));
  const unsolved = rows.filter((x) => x.iterations >= 500).length;
  const stats = (values: (bigint | null)[], bounds: number[]) => {
    const shortfalls = values.flatMap((v, i) => (v === null || bounds[i]! <= 0 ? [] : [1 - Number(v) / bounds[i]!])).sort((a, b) => a - b);
    const e = (x: number) => (Number.isNaN(x) ? 'n/a' : x.toExponential(1));
    return `${e(percentile(shortfalls, 50))} / ${e(percentile(shortfalls, 99))} (${shortfalls.length})`;
  };
  console.log(`bound    ${label.padEnd(8)} shortfall to the bound (1 − output/bound), median / p99 (cases routed); target for ours on the arbitrage-free state: <= 1e-4 / 1e-3`);
  for (const group of [...SIZES.map((x) => `${x * 100}%`), '3-hop']) {
    const of = rows.filter((x) => x.group === group);
    const bounds = of.map((x) => x.bound);
    console.log(
      `bound    ${label.padEnd(8)} ${group.padEnd(6)} ours ${stats(of.map((x) => x.r.ours), bounds)}  before ${stats(of.map((x) => x.r.before), bounds)}  ` +
        `ours by output alone ${stats(of.map((x) => x.r.gross), bounds)}  ` +
        `SDK ${stats(of.map((x) => x.r.sdk), bounds)}  best single path ${stats(of.map((x) => x.single), bounds)}  ` +
        `flow without the action budget ${stats(of.map((x) => x.unbudgeted), bounds)}, median ${percentile(of.map((x) => x.actions).sort((a, b) => a - b), 50)} actions`,
    );
    console.log(
      `bound    ${label.padEnd(8)} ${group.padEnd(6)} every pool within the budget: 300 TGas ${stats(of.map((x) => x.tera.out), bounds)}  ` +
        `1 PGas ${stats(of.map((x) => x.peta.out), bounds)}`,
    );
    // A case worth under 1 USDC cannot be judged at 1e-4: its bound holds the state's residual arbitrage (about
    // 0.00003 USDC on the arbitrage-free state) and each action's output is floored to a unit.
    const material = of.filter((x) => x.worth >= 1);
    const materialBounds = material.map((x) => x.bound);
    console.log(
      `bound    ${label.padEnd(8)} ${group.padEnd(6)} worth >= 1 USDC, ${String(material.length).padStart(2)} of ${of.length}: ` +
        `ours ${stats(material.map((x) => x.r.ours), materialBounds)}  ours by output alone ${stats(material.map((x) => x.r.gross), materialBounds)}  ` +
        `flow without the action budget ${stats(material.map((x) => x.unbudgeted), materialBounds)}  ` +
        `every pool within the budget: 300 TGas ${stats(material.map((x) => x.tera.out), materialBounds)}  1 PGas ${stats(material.map((x) => x.peta.out), materialBounds)}`,
    );
  }
  // Ours net of its actions' gas (what it maximizes), and ours by output alone on gross output, against the SDK's.
  const net = (out: bigint | null, actions: number, r: Routed) => (out ?? 0n) - r.actionCost * BigInt(actions);
  const below = rows.filter((x) => x.r.sdk !== null && net(x.r.ours, x.r.actions.ours, x.r) < net(x.r.sdk, x.r.actions.sdk, x.r));
  const grossBelow = rows.filter((x) => x.r.sdk !== null && (x.r.gross ?? 0n) < x.r.sdk);
  console.log(
    `bound    ${label.padEnd(8)} below the SDK in the ${rows.filter((x) => x.r.sdk !== null).length} cases it routes: ours net of gas ${below.length}, ours by output alone ${grossBelow.length} (target 0); ` +
      `above the bound ${above.length} (must be 0); bound solves not converged ${unsolved}`,
  );
  for (const x of [...below, ...grossBelow].slice(0, 5)) console.log(`below    ${x.r.c.tokenIn} -> ${x.r.c.tokenOut} ${x.r.c.amountIn}: ours ${x.r.ours}, by output alone ${x.r.gross}, SDK ${x.r.sdk}`);
  if (process.env.BENCH_ROUTE_WORST) {
    const worst = rows.filter((x) => x.bound > 0).sort((a, b) => Number(a.r.ours ?? 0n) / a.bound - Number(b.r.ours ?? 0n) / b.bound).slice(0, Number(process.env.BENCH_ROUTE_WORST));
    for (const x of worst) console.log(`worst    ${x.group} ${x.r.c.tokenIn} -> ${x.r.c.tokenOut} ${x.r.c.amountIn}: ours ${x.r.ours} bound ${x.bound.toExponential(6)} single ${x.single} (${x.iterations} iterations)`);
  }
  const ourMs = routed.map((r) => r.ourMs).sort((a, b) => a - b);
  const sdkMs = routed.map((r) => r.sdkMs).sort((a, b) => a - b);
  const p50 = (values: number[]) => percentile(values.sort((a, b) => a - b), 50).toFixed(2);
  console.log(
    `bound    ${label.padEnd(8)} every-pool flow a query (the flow alone, in-process): p50 ${p50(rows.map((x) => x.tera.ms))} ms at 300 TGas, ` +
      `${p50(rows.map((x) => x.peta.ms))} ms at 1 PGas; ours (its whole AmmA route: paths and flow) p50 ${percentile(ourMs, 50).toFixed(2)} ms`,
  );
  console.log(
    `latency  ${label.padEnd(8)} ours p50 ${percentile(ourMs, 50).toFixed(3)} ms p99 ${percentile(ourMs, 99).toFixed(3)} ms; SDK p50 ${percentile(sdkMs, 50).toFixed(1)} ms p99 ${percentile(sdkMs, 99).toFixed(1)} ms;` +
      ` ratio p50 ${(percentile(ourMs, 50) / percentile(sdkMs, 50)).toFixed(4)} (target <= 0.0100); section took ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
}

/**
 * Ours judged by Ref's own contract (release 1.9.17 in near/vm, test/harness/ref-exchange.ts) holding `state`: every
 * case's AmmA quote (the answer GET /route gives) executed as the chain would, on the unmoved pools (the whole
 * transaction, each receipt with the gas it is given) and after another account's swaps moved every pool of the
 * route, or one drawn at random, 0.1% and 0.3% against it.
 */
async function contractSection(label: string, state: ReadonlyMap<number, BenchPool>, cases: readonly Case[], router: Router, queryOf: (c: Case) => RouteQuery): Promise<void> {
  const started = performance.now();
  const ref = RefExchange.withPools([...state.values()]);
  const unmoved = ref.save();
  const setup = (performance.now() - started) / 1000;
  const random = prng(SEED);
  const tally = new Map<string, Map<Verdict, number>>();
  let exact = 0;
  let failedReceipts = 0;
  const burns: number[] = [];
  const attached: number[] = [];
  const ratios: number[] = [];
  const actions: number[] = [];
  let maxLogs = 0;
  let maxLogBytes = 0;
  let quoted = 0;
  for (const c of cases) {
    const quote = (await router.route(queryOf(c))).quotes.find((q) => q.dex_id === 'AmmA');
    if (quote === undefined) continue;
    quoted++;
    // As a client reads it: the answer's JSON.
    const swap = signedSwap(JSON.parse(JSON.stringify(quote)) as QuoteFields, c.tokenIn, c.tokenOut);
    unmoved();
    const tx = ref.swapTransaction('trader.near', c.tokenIn, swap.amount, swap.msg, swap.gas);
    failedReceipts += tx.receipts.filter((r) => !r.outcome.ok).length;
    const onTransfer = tx.receipts.find((r) => r.method === 'ft_on_transfer')?.outcome;
    const paid = onTransfer?.receipts.flatMap((r) => r.actions).find((a) => a.kind === 'FunctionCall' && a.method === 'ft_transfer');
    if (paid?.kind === 'FunctionCall' && BigInt((JSON.parse(new TextDecoder().decode(paid.args)) as { amount: string }).amount) === swap.estimated) exact++;
    maxLogs = Math.max(maxLogs, onTransfer?.logs.length ?? 0);
    maxLogBytes = Math.max(maxLogBytes, onTransfer?.logs.reduce((n, l) => n + Buffer.byteLength(l), 0) ?? 0);
    const conversion = BigInt(quote.estimated_max_gas_cost) / GAS_PRICE_YOCTO - swap.gas;
    burns.push(Number(tx.burnt) / 1e12);
    attached.push(Number(swap.gas) / 1e12);
    ratios.push(Number(BigInt(quote.estimated_gas_usage) - conversion) / Number(tx.burnt));
    actions.push(swap.actions.length);
    const pools = [...new Map(swap.actions.map((a) => [a.pool_id, a])).values()];
    const one = pools[Math.floor(random() * pools.length)]!;
    for (const move of [0.001, 0.003]) {
      for (const [variant, moved] of [['every pool', pools], ['one pool', [one]]] as const) {
        const { verdict } = ref.judge('trader.near', swap, () => {
          unmoved();
          for (const a of moved) ref.move(a.pool_id, a.token_in, a.token_out, move);
        });
        const key = `${(move * 100).toFixed(1)}% ${variant}`;
        const counts = tally.get(key) ?? tally.set(key, new Map()).get(key)!;
        counts.set(verdict, (counts.get(verdict) ?? 0) + 1);
      }
    }
  }
  const sorted = (list: number[]) => [...list].sort((a, b) => a - b);
  const med = (list: number[]) => percentile(sorted(list), 50);
  const max = (list: number[]) => Math.max(...list);
  console.log(
    `contract ${label.padEnd(8)} ${quoted} AmmA quotes executed by Ref 1.9.17 in near/vm (its pools made by its own methods in ${setup.toFixed(0)} s): ` +
      `${exact} paid exactly their quote on the unmoved pools; receipts that failed ${failedReceipts}; logs at most ${maxLogs} lines, ${maxLogBytes} bytes a receipt (limits 100, 16384)`,
  );
  for (const [key, counts] of tally) {
    console.log(`robust   ${label.padEnd(8)} ${key.padEnd(14)} ${VERDICTS.map((v) => `${v} ${counts.get(v) ?? 0}`).join(', ')}  (target: intermediate failure 0)`);
  }
  console.log(
    `gas      ${label.padEnd(8)} metered burn a swap transaction median ${med(burns).toFixed(1)} TGas, max ${max(burns).toFixed(1)}; attached median ${med(attached).toFixed(0)} TGas, max ${max(attached).toFixed(0)} ` +
      `(ceiling 300); estimated_gas_usage / metered median ${med(ratios).toFixed(2)}, min ${Math.min(...ratios).toFixed(2)}; actions median ${med(actions)}, max ${max(actions)}; section took ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
}

/**
 * The most `c.tokenOut` one path of at most 3 distinct pools gives for `c.amountIn`, with the contract math (null
 * when no path exists): every first and second pool, then every pool joining the second hop's token to the output.
 */
function bestSinglePath(c: Case, pools: ReadonlyMap<number, BenchPool>, actionCost = 0n): bigint | null {
  const byToken = new Map<string, BenchPool[]>();
  const byPair = new Map<string, BenchPool[]>();
  for (const pool of pools.values()) {
    if (pool.amounts[0] <= 0n || pool.amounts[1] <= 0n) continue;
    const add = (map: Map<string, BenchPool[]>, key: string) => (map.get(key) ?? map.set(key, []).get(key)!).push(pool);
    for (const t of pool.tokens) add(byToken, t);
    add(byPair, [...pool.tokens].sort().join('|'));
  }
  const out = (pool: BenchPool, tokenIn: string, amount: bigint): bigint => {
    const i = pool.tokens.indexOf(tokenIn);
    return simpleGetAmountOut(pool.amounts[i]!, pool.amounts[1 - i]!, amount, pool.fee);
  };
  const other = (pool: BenchPool, token: string) => pool.tokens[pool.tokens[0] === token ? 1 : 0];
  let best: bigint | null = null;
  // Net of its actions' gas (`actionCost` each; 0: the gross output).
  const consider = (amount: bigint, hops: number) => {
    const value = amount - actionCost * BigInt(hops);
    if (best === null || value > best) best = value;
  };
  const lastHops = (token: string, amount: bigint, used: readonly BenchPool[]) => {
    for (const pool of byPair.get([token, c.tokenOut].sort().join('|')) ?? []) if (!used.includes(pool)) consider(out(pool, token, amount), used.length + 1);
  };
  lastHops(c.tokenIn, c.amountIn, []);
  for (const first of byToken.get(c.tokenIn) ?? []) {
    const mid = other(first, c.tokenIn);
    if (mid === c.tokenOut) continue;
    const a1 = out(first, c.tokenIn, c.amountIn);
    if (a1 <= 0n) continue;
    lastHops(mid, a1, [first]);
    for (const second of byToken.get(mid) ?? []) {
      const next = other(second, mid);
      if (second === first || next === c.tokenIn || next === c.tokenOut) continue;
      const a2 = out(second, mid, a1);
      if (a2 > 0n) lastHops(next, a2, [first, second]);
    }
  }
  return best;
}

/** GET /route over real HTTP for the same cases; the AmmA amount must be the in-process one. */
async function httpRun(db: ReturnType<typeof connect>, cases: readonly Case[], results: readonly { ours: bigint | null }[]): Promise<void> {
  const app = await buildServer({ db, logLevel: 'silent' });
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const urlOf = (c: Case) =>
      `http://127.0.0.1:${port}/route?` +
      new URLSearchParams({ token_in: c.tokenIn, token_out: c.tokenOut, amount_in: c.amountIn.toString(), max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.005' }).toString();
    // Warm-up amounts differ by one unit: the router shares equal queries' answers for a second (route.ts), and
    // the timed requests must each route.
    for (const c of cases.slice(0, WARMUP)) await (await fetch(urlOf({ ...c, amountIn: c.amountIn + 1n }))).text();
    const times: number[] = [];
    let mismatches = 0;
    let failures = 0;
    const digest = createHash('sha256');
    for (const [i, c] of cases.entries()) {
      const t = performance.now();
      const response = await fetch(urlOf(c));
      const body = await response.text();
      times.push(performance.now() - t);
      digest.update(`${response.status}\n${body}\n`);
      if (response.status !== 200) {
        failures++;
        continue;
      }
      const amm = (JSON.parse(body) as QuoteJson[]).find((q) => q.dex_id === 'AmmA');
      const amount = amm && 'amount_out' in amm.estimated_amount ? BigInt(amm.estimated_amount.amount_out) : null;
      if (amount !== (results[i]!.ours ?? null)) mismatches++;
    }
    times.sort((a, b) => a - b);
    console.log(
      `http     GET /route p50 ${percentile(times, 50).toFixed(3)} ms  p99 ${percentile(times, 99).toFixed(3)} ms over ${times.length} requests` +
        ` (sequential, keep-alive, every DEX id asked); non-200 ${failures}, AmmA amount differing from in-process ${mismatches}`,
    );
    // Same pools, same cases, same answers byte for byte: a refactor of the router must leave this unchanged.
    console.log(`digest   sha256 of the ${cases.length} GET /route answers (status and body): ${digest.digest('hex')}`);
  } finally {
    await app.close();
  }
}

// Last: the classes above are initialized only as the module runs down to here.
await run();
