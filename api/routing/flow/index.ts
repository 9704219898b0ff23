// The optimal-flow router of a DEX whose calls execute plans (`routing.flow`): its hops with a closed-form curve
// (Hop.curve) become a CpmmNetwork (solve.ts); per graph version the network's arbitrage-free prices are solved once
// (the reference, from the pools' mid prices: never from an earlier version's, so that the same pools give the same
// plans whatever came before); per query the routing problem is solved from them, the
// trades made an exact plan (plan.ts), and trades pruned (the smallest) and solved again until the plan fits the
// DEX's action budget. Pure.
import type { Hop, RoutePath } from '../../../dexes/dex.ts';
import { comparePoolIds } from '../paths.ts';
import { buildPlan, findCycle, type Plan, type PlannedTrade } from './plan.ts';
import { CpmmNetwork, type CpmmPool, type FlowQuery, type PoolTrade } from './solve.ts';

/** A trade worth less than this share of the output is left out (it cannot matter). */
const NEGLIGIBLE = 1e-9;
/** Solve-and-prune rounds at most (each drops at least one pool). */
const MAX_ROUNDS = 40;

export class FlowGraph {
  readonly tokens: string[];
  readonly tokenIndex: Map<string, number>;
  readonly network: CpmmNetwork;
  /** Per pool: its hops selling a for b and b for a. */
  private readonly hopsAb: Hop[];
  private readonly hopsBa: Hop[];
  /** Connected component of each token. */
  readonly component: Int32Array;
  /** Pool index by pool id, and each pool's parallel pools (same two tokens, itself included). */
  private readonly poolIndex: Map<string, number>;
  private readonly parallel: number[][];
  /** √ of the arbitrage-free prices of each component's tokens, its root's at 1 (solve.ts's s). */
  readonly reference: Float64Array;
  /** The arbitrage the pools held at the reference (in each component's root token, summed). */
  readonly arbitrage: number;

  /**
   * The network of `hops` (those with a constant-product curve, both directions of a pool), and its reference
   * prices: the arbitrage problem's (no input) dual optimum, from mid prices. The network queries are
   * solved on is the pools as that arbitrage would leave them (each pool's optimal trade at the reference applied to
   * its floating-point reserves: then no pool trades at the reference prices, so a query moves only the pools its
   * trade reaches): the router takes the trade's flow, not the arbitrage around it. Plans run on the real pools.
   */
  constructor(hops: Iterable<Hop>) {
    const byPool = new Map<string, Hop[]>();
    for (const hop of hops) if (hop.curve?.kind === 'constantProduct') (byPool.get(hop.poolId) ?? byPool.set(hop.poolId, []).get(hop.poolId)!).push(hop);
    const tokens = new Set<string>();
    const pairs: [Hop, Hop][] = [];
    for (const poolId of [...byPool.keys()].sort(comparePoolIds)) {
      const list = byPool.get(poolId)!;
      if (list.length !== 2 || list[0]!.tokenIn !== list[1]!.tokenOut || list[0]!.tokenOut !== list[1]!.tokenIn) continue;
      const [ab, ba] = list[0]!.tokenIn < list[0]!.tokenOut ? [list[0]!, list[1]!] : [list[1]!, list[0]!];
      pairs.push([ab, ba]);
      tokens.add(ab.tokenIn).add(ab.tokenOut);
    }
    this.tokens = [...tokens].sort();
    this.tokenIndex = new Map(this.tokens.map((t, i) => [t, i]));
    const pools: CpmmPool[] = pairs.map(([ab]) => {
      const { reserveIn, reserveOut, fee } = ab.curve!;
      return {
        a: this.tokenIndex.get(ab.tokenIn)!,
        b: this.tokenIndex.get(ab.tokenOut)!,
        ra: Number(reserveIn),
        rb: Number(reserveOut),
        gamma: Number(fee.denominator - fee.numerator) / Number(fee.denominator),
      };
    });
    this.hopsAb = pairs.map(([ab]) => ab);
    this.hopsBa = pairs.map(([, ba]) => ba);
    const real = new CpmmNetwork(this.tokens.length, pools);
    this.component = components(real);
    this.poolIndex = new Map(pairs.map(([ab], i) => [ab.poolId, i]));
    const byPair = new Map<string, number[]>();
    for (const [i, p] of pools.entries()) (byPair.get(`${p.a}:${p.b}`) ?? byPair.set(`${p.a}:${p.b}`, []).get(`${p.a}:${p.b}`)!).push(i);
    this.parallel = pools.map((p) => byPair.get(`${p.a}:${p.b}`)!);
    const start = spanningPrices(real, this.component);
    this.reference = start.s;
    let arbitrage = 0;
    for (const root of start.roots) {
      // Only a component with a cycle can hold arbitrage; a tree's mid prices are already in balance.
      const c = this.component[root]!;
      const members = pools.filter((p) => this.component[p.a] === c).length;
      const size = this.component.filter((x) => x === c).length;
      if (members < size) continue;
      arbitrage += real.solve(this.reference, { tokenIn: null, amountIn: 0, fixed: root }, this.outside(c)).value;
    }
    this.arbitrage = arbitrage;
    const moved = pools.map((p) => ({ ...p }));
    for (const t of real.trades(this.reference)) {
      const p = moved[t.pool]!;
      if (t.direction === 1) {
        p.ra += t.amountIn;
        p.rb -= t.amountOut;
      } else {
        p.rb += t.amountIn;
        p.ra -= t.amountOut;
      }
    }
    this.network = new CpmmNetwork(this.tokens.length, moved);
  }

  /** `amount` of token `from` in token `to` at the reference prices (raw units, floored); 0 when either is not in
   * the network or they are not connected. */
  inToken(amount: bigint, from: string, to: string): bigint {
    const f = this.tokenIndex.get(from);
    const t = this.tokenIndex.get(to);
    if (f === undefined || t === undefined || this.component[f] !== this.component[t]) return 0n;
    // s = √ν: the price of one unit of `from` in units of `to` is (s_from / s_to)².
    const rate = (this.reference[f]! / this.reference[t]!) ** 2;
    const value = Number(amount) * rate;
    return Number.isFinite(value) ? BigInt(Math.floor(value)) : 0n;
  }

  /** The pools outside component c, as a mask. */
  private outside(c: number): Uint8Array {
    return Uint8Array.from(this.hopsAb, (hop) => (this.component[this.tokenIndex.get(hop.tokenIn)!] === c ? 0 : 1));
  }

  /**
   * The best plan this router finds for `amountIn` of `tokenIn` into `tokenOut` whose paths `fit` one call, or null
   * (not connected, or no plan). The problem is solved over `seeds` (pool ids: the path router's candidate paths),
   * every pool parallel to them and every other pool between two tokens they reach; a plan that does not fit keeps
   * the pools of its largest paths that fit together, and the problem is solved again over them.
   */
  route(tokenIn: string, tokenOut: string, amountIn: bigint, fit: CallFit, seeds: Iterable<string>, actionCost = 0n): Plan | null {
    const i = this.tokenIndex.get(tokenIn);
    const o = this.tokenIndex.get(tokenOut);
    if (i === undefined || o === undefined || i === o || this.component[i] !== this.component[o] || amountIn <= 0n) return null;
    const scale = this.reference[o]!;
    const s = this.reference.map((v) => v / scale);
    const query = { tokenIn: i, amountIn: Number(amountIn), fixed: o };
    const member = new Uint8Array(this.network.pools.length);
    let working: number[] = [];
    for (const id of seeds) {
      const p = this.poolIndex.get(id);
      if (p === undefined || this.component[this.network.pools[p]!.a] !== this.component[o]) continue;
      for (const q of this.parallel[p]!) {
        if (member[q]) continue;
        member[q] = 1;
        working.push(q);
      }
    }
    // And every pool between two tokens the seeds reach: flows merge and part through them (a scratch run over 16
    // pairs of bench:route's arbitrage-free state: the 10% cases' median shortfall to the bound fell from 4.1e-3 to
    // 2.9e-3, the 3-hop pairs' from 3.6e-2 to 1.6e-2, for about 0.15 ms).
    const reached = new Uint8Array(this.tokens.length);
    const reachedTokens: number[] = [];
    for (const q of working) {
      for (const t of [this.network.pools[q]!.a, this.network.pools[q]!.b]) {
        if (reached[t]) continue;
        reached[t] = 1;
        reachedTokens.push(t);
      }
    }
    for (const t of reachedTokens) {
      for (const q of this.network.byToken[t]!) {
        const p = this.network.pools[q]!;
        if (member[q] || !reached[p.a] || !reached[p.b]) continue;
        member[q] = 1;
        working.push(q);
      }
    }
    let best = this.planOver(working, s, query, i, o, amountIn, fit);
    // Each action costs its gas (`actionCost`, in output units): while it pays, the smaller half of the paths goes and
    // the problem is solved again over the pools of the rest (a small trade spread over 40 pools gains less than
    // their actions burn).
    const net = (plan: Plan) => plan.amountOut - actionCost * BigInt(plan.actions);
    while (actionCost > 0n && best !== null && best.paths.length > 1) {
      const kept = best.trades.slice(0, Math.ceil(best.paths.length / 2));
      const pools = [...new Set(kept.flat().map((t) => this.poolIndex.get(t.hop.poolId)!))];
      const smaller = this.planOver(pools, s, query, i, o, amountIn, fit);
      if (smaller === null || net(smaller) <= net(best)) break;
      best = smaller;
    }
    return best;
  }

  /** The plan of the query over the `working` pools that fits, pruned and solved again until it does; or null. */
  private planOver(start: readonly number[], s: Float64Array, query: FlowQuery, i: number, o: number, amountIn: bigint, fit: CallFit): Plan | null {
    let working = [...start];
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const value = this.solveOn(working, s, query);
      if (value === null) return null;
      const trades = working.map((p) => this.network.trade(p, s)).filter((t): t is PoolTrade => t !== null && t.value > NEGLIGIBLE * value);
      const planned = trades.map((t) => this.planned(t));
      // A cycle (arbitrage through the trade) has no order to run in: its least valuable trade goes.
      const cycle = findCycle(planned);
      let keep: PoolTrade[];
      if (cycle !== null) {
        const drop = cycle.map((c) => trades[planned.indexOf(c)]!).sort(byValue).at(-1)!;
        keep = trades.filter((t) => t !== drop);
      } else {
        const built = buildPlan(planned, i, o, amountIn, fit.maxActions);
        if ('tooLong' in built) {
          // More actions than a call allows: the pools of the largest paths within the count, solved again.
          let actions = 0;
          const kept = built.tooLong.filter((path) => (actions += path.length) <= fit.maxActions);
          const pools = new Set(kept.flat());
          keep = trades.filter((_, k) => pools.has(planned[k]!));
          if (keep.length === trades.length) keep = trades.sort(byValue).slice(0, -1);
        } else if ('plan' in built) {
          if (fit.fits(built.plan.paths)) return built.plan;
          // Too many actions (or log lines) for one call: the pools of the largest paths that fit together, and the
          // problem solved again over them alone. Pruning by the paths' shares keeps whole routes: the smallest
          // trades of a flow often sit in the middle of a large path.
          // The longest run of the largest paths that fits, by bisection (each check reads the whole run).
          let [low, high] = [0, built.plan.paths.length - 1];
          while (low < high) {
            const mid = (low + high + 1) >> 1;
            if (fit.fits(built.plan.paths.slice(0, mid))) low = mid;
            else high = mid - 1;
          }
          const pools = new Set(built.plan.trades.slice(0, low).flatMap((path) => path.map((t) => trades[planned.indexOf(t)]!)));
          keep = trades.filter((t) => pools.has(t));
          // Each round drops at least one pool.
          if (keep.length === trades.length) keep = trades.sort(byValue).slice(0, -1);
        } else {
          // A token no pool of the flow could take (a dust flow): its producers go.
          keep = trades.filter((_, k) => planned[k]!.to !== built.stuck);
          if (keep.length === trades.length) return null;
        }
      }
      if (keep.length === 0) return null;
      working = keep.map((t) => t.pool);
    }
    return null;
  }

  /** Solves the query over the `working` pools only, from and into `s` (their tokens'); its value, or null when
   * they do not reach both ends. */
  private solveOn(working: readonly number[], s: Float64Array, query: FlowQuery): number | null {
    const local = new Map<number, number>();
    const global: number[] = [];
    const at = (t: number) => local.get(t) ?? (local.set(t, global.length), global.push(t), global.length - 1);
    const pools = working.map((p) => {
      const pool = this.network.pools[p]!;
      return { ...pool, a: at(pool.a), b: at(pool.b) };
    });
    const tokenIn = local.get(query.tokenIn!);
    const fixed = local.get(query.fixed);
    if (tokenIn === undefined || fixed === undefined) return null;
    const sub = new CpmmNetwork(global.length, pools);
    const ls = Float64Array.from(global, (t) => s[t]!);
    const { value } = sub.solve(ls, { tokenIn, amountIn: query.amountIn, fixed });
    global.forEach((t, k) => (s[t] = ls[k]!));
    return value;
  }

  private planned(t: PoolTrade): PlannedTrade {
    const p = this.network.pools[t.pool]!;
    return t.direction === 1 ? { hop: this.hopsAb[t.pool]!, from: p.a, to: p.b, weight: t.amountIn } : { hop: this.hopsBa[t.pool]!, from: p.b, to: p.a, weight: t.amountIn };
  }
}

/** What one call of a plan allows: at most `maxActions` actions, and paths that `fits` takes (the DEX's own rule:
 * gas, log lines and bytes with the plan's exact amounts). */
export interface CallFit {
  maxActions: number;
  fits(paths: readonly RoutePath[]): boolean;
}

/** Most valuable first; ties by pool. */
const byValue = (x: PoolTrade, y: PoolTrade) => y.value - x.value || x.pool - y.pool;

/** Connected components of the pool graph (numbered from 0 in token order). */
function components(network: CpmmNetwork): Int32Array {
  const component = new Int32Array(network.tokens).fill(-1);
  let next = 0;
  for (let t = 0; t < network.tokens; t++) {
    if (component[t] !== -1) continue;
    const stack = [t];
    component[t] = next;
    while (stack.length > 0) {
      const u = stack.pop()!;
      for (const i of network.byToken[u]!) {
        const p = network.pools[i]!;
        const v = p.a === u ? p.b : p.a;
        if (component[v] === -1) {
          component[v] = next;
          stack.push(v);
        }
      }
    }
    next++;
  }
  return component;
}

/**
 * Starting prices (as s = √ν) and each component's root (its token with most pools; ties: the first): each token
 * gets the mid price of the deepest pool (by the value of the priced side's reserve) to a token already priced, from
 * the root outwards. A start from an earlier graph's prices would converge a few steps sooner, but where the optimum
 * is not unique (a token off every cycle may sit anywhere in its pool's no-trade band) it would make the plans depend
 * on the states before: the same pools and query gave amounts up to 4e-8 apart in a scratch test.
 */
function spanningPrices(network: CpmmNetwork, component: Int32Array): { s: Float64Array; roots: number[] } {
  const n = network.tokens;
  const roots: number[] = [];
  for (let t = 0; t < n; t++) {
    const c = component[t]!;
    const root = roots[c];
    if (root === undefined || network.byToken[t]!.length > network.byToken[root]!.length) roots[c] = t;
  }
  const price = new Float64Array(n); // ν
  const priced = new Uint8Array(n);
  for (const root of roots) {
    price[root] = 1;
    priced[root] = 1;
    // Prim's order: the deepest pool out of the priced set first.
    const heap: [number, number, number][] = []; // [-depth, pool, from]
    const push = (t: number) => {
      for (const i of network.byToken[t]!) {
        const p = network.pools[i]!;
        const other = p.a === t ? p.b : p.a;
        if (!priced[other]) heapPush(heap, [-(price[t]! * (p.a === t ? p.ra : p.rb)), i, t]);
      }
    };
    push(root);
    while (heap.length > 0) {
      const [, i, from] = heapPop(heap);
      const p = network.pools[i]!;
      const to = p.a === from ? p.b : p.a;
      if (priced[to]) continue;
      price[to] = p.a === from ? (price[from]! * p.ra) / p.rb : (price[from]! * p.rb) / p.ra;
      priced[to] = 1;
      push(to);
    }
  }
  return { s: price.map(Math.sqrt), roots };
}

/** A binary min-heap of [key, pool, token] entries, ties by pool then token (deterministic). */
function heapPush(heap: [number, number, number][], entry: [number, number, number]): void {
  heap.push(entry);
  for (let i = heap.length - 1; i > 0; ) {
    const parent = (i - 1) >> 1;
    if (!entryLess(heap[i]!, heap[parent]!)) break;
    [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
    i = parent;
  }
}

function heapPop(heap: [number, number, number][]): [number, number, number] {
  const top = heap[0]!;
  const last = heap.pop()!;
  if (heap.length > 0) {
    heap[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < heap.length && entryLess(heap[l]!, heap[least]!)) least = l;
      if (r < heap.length && entryLess(heap[r]!, heap[least]!)) least = r;
      if (least === i) break;
      [heap[i], heap[least]] = [heap[least]!, heap[i]!];
      i = least;
    }
  }
  return top;
}

const entryLess = (x: [number, number, number], y: [number, number, number]) => x[0] < y[0] || (x[0] === y[0] && (x[1] < y[1] || (x[1] === y[1] && x[2] < y[2])));
