// A solved flow (floating point, one trade per pool) -> an executable plan whose amounts are exact: the flow
// decomposed into chained paths from the input, each path's first action naming its share of the input, every later
// action taking the previous action's whole output. No action names an amount of an intermediate token, so a market
// that moved against the route between quote and execution can make a path pay less, never make a later action
// draw more than an earlier one delivered (a fork sized in exact intermediate amounts fails on chain with
// `E22: not enough tokens in deposit` once one pool moves 0.1%: ../../../docs/design.md, routes on a moving chain).
// The paths run one after the other in one call, so a pool two paths share sees the first one's trade: every amount
// is the pool's integer constant-product math on the reserves as the earlier actions left them, and the quoted
// amount is what these actions yield, to the unit. Pure.
import type { Hop, RoutePath } from '../../../dexes/dex.ts';
import { comparePoolIds } from '../paths.ts';

/** One pool trade of the flow: the hop that executes it and how much of its input the flow sends (float). */
export interface PlannedTrade {
  hop: Hop;
  /** Token indices of its input and output. */
  from: number;
  to: number;
  weight: number;
}

/** A plan; or its paths (trades, largest first) when they take more than the actions allowed; or the token whose
 * inflow no pool of the flow could take (it would be left over). */
export type PlanResult = { plan: Plan } | { tooLong: PlannedTrade[][] } | { stuck: number };

export interface Plan {
  /** Chained paths from the input to the output, largest share first: each path's first hop takes amounts[0] of the
   * input, every later hop the previous hop's output. */
  paths: RoutePath[];
  /** Each path's trades (the flow's), for pruning a plan that does not fit the call. */
  trades: PlannedTrade[][];
  amountOut: bigint;
  actions: number;
}

/** A path share below this part of the input is left out (its input goes to the largest path). */
const NEGLIGIBLE_SHARE = 1e-9;

/**
 * The plan of `trades` (which must hold no cycle: findCycle) for `amountIn` of token `tokenIn` into `tokenOut`, or
 * the token it would leave over. The flow is decomposed into paths (from the input, along the largest remaining
 * share at every token, ties by pool id; each path takes its narrowest step's share, which that step loses), and the
 * input split among the paths in those shares (floors, the remainder to the largest). A path that would give
 * nothing (a pool refusing its part) is left out and its part goes to the largest.
 */
export function buildPlan(trades: readonly PlannedTrade[], tokenIn: number, tokenOut: number, amountIn: bigint, maxActions = Infinity): PlanResult {
  let live = trades.filter((t) => t.from !== tokenOut && t.to !== tokenIn && t.weight > 0);
  // A trade is useful only if its input arrives and its output goes on: drop the others until none is left.
  for (let changed = true; changed; ) {
    const produced = new Set(live.map((t) => t.to));
    const consumed = new Set(live.map((t) => t.from));
    const kept = live.filter((t) => (t.from === tokenIn || produced.has(t.from)) && (t.to === tokenOut || consumed.has(t.to)));
    changed = kept.length !== live.length;
    live = kept;
  }
  if (live.length === 0) return { stuck: tokenIn };
  const shares = decompose(live, tokenIn, tokenOut);
  if (shares.length === 0) return { stuck: tokenIn };
  if (shares.reduce((n, p) => n + p.trades.length, 0) > maxActions) return { tooLong: shares.map((p) => p.trades) };
  let paths = shares;
  for (;;) {
    const amounts = splitAmount(amountIn, paths.map((p) => p.share));
    const executed = execute(paths.map((p) => p.trades.map((t) => t.hop)), amounts);
    if ('refused' in executed) {
      if (paths.length === 1) return { stuck: tokenIn };
      paths = paths.filter((_, k) => k !== executed.refused);
      continue;
    }
    return {
      plan: {
        paths: executed.paths,
        trades: paths.map((p) => p.trades),
        amountOut: executed.paths.reduce((sum, p) => sum + p.amounts.at(-1)!, 0n),
        actions: executed.paths.reduce((sum, p) => sum + p.hops.length, 0),
      },
    };
  }
}

/** The flow as paths from `tokenIn` to `tokenOut`, each with its share of the input, largest first. */
function decompose(live: readonly PlannedTrade[], tokenIn: number, tokenOut: number): { trades: PlannedTrade[]; share: number }[] {
  // Trades by index; each token's outgoing trades, heaviest first (ties by pool id).
  const out = new Map<number, number[]>();
  const inDegree = new Map<number, number>();
  live.forEach((t, k) => {
    (out.get(t.from) ?? out.set(t.from, []).get(t.from)!).push(k);
    inDegree.set(t.to, (inDegree.get(t.to) ?? 0) + 1);
  });
  for (const list of out.values()) list.sort((x, y) => live[y]!.weight - live[x]!.weight || comparePoolIds(live[x]!.hop.poolId, live[y]!.hop.poolId));
  // Each trade's share of the input: a token's share (what reaches it) divided among its trades by their weights,
  // in topological order of the tokens (the trades hold no cycle).
  const reach = new Map<number, number>([[tokenIn, 1]]);
  const share = new Float64Array(live.length);
  const ready = [tokenIn];
  for (let r = 0; r < ready.length; r++) {
    const token = ready[r]!;
    const list = out.get(token) ?? [];
    const total = list.reduce((sum, k) => sum + live[k]!.weight, 0);
    for (const k of list) {
      const t = live[k]!;
      const part = ((reach.get(token) ?? 0) * t.weight) / total;
      share[k] = part;
      reach.set(t.to, (reach.get(t.to) ?? 0) + part);
      const left = inDegree.get(t.to)! - 1;
      inDegree.set(t.to, left);
      if (left === 0 && t.to !== tokenOut) ready.push(t.to);
    }
  }
  const paths: { trades: PlannedTrade[]; share: number; key: string }[] = [];
  const first = out.get(tokenIn) ?? [];
  while (first.some((k) => share[k]! > 0)) {
    const path: number[] = [];
    let token = tokenIn;
    while (token !== tokenOut) {
      let next = -1;
      for (const k of out.get(token) ?? []) if (share[k]! > 0 && (next < 0 || share[k]! > share[next]!)) next = k;
      if (next < 0) break;
      path.push(next);
      token = live[next]!.to;
    }
    if (token !== tokenOut) {
      // Rounding left a share that leads nowhere: close the step into the dead end.
      share[path.at(-1)!] = 0;
      continue;
    }
    const narrowest = path.reduce((a, k) => (share[k]! < share[a]! ? k : a));
    const width = share[narrowest]!;
    for (const k of path) share[k] = k === narrowest ? 0 : Math.max(0, share[k]! - width);
    if (width > NEGLIGIBLE_SHARE) {
      const trades = path.map((k) => live[k]!);
      paths.push({ trades, share: width, key: trades.map((t) => t.hop.poolId).join(',') });
    }
  }
  // Largest first; ties by the paths' pool ids (deterministic).
  return paths.sort((x, y) => y.share - x.share || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
}

/** `amount` split in proportion to `shares` (floors of integer 2^-52ths; the remainder to the first). */
function splitAmount(amount: bigint, shares: readonly number[]): bigint[] {
  const total = shares.reduce((sum, s) => sum + s, 0);
  const parts = shares.map((s) => BigInt(Math.floor((s / total) * 2 ** 52)));
  const denominator = parts.reduce((sum, p) => sum + p, 0n);
  const amounts = parts.map((p) => (denominator === 0n ? 0n : (amount * p) / denominator));
  amounts[0] = amounts[0]! + amount - amounts.reduce((sum, a) => sum + a, 0n);
  return amounts;
}

/**
 * The paths run in order on one copy of their pools: a pool's first trade is its hop's own quote (`Hop.out`), a later
 * one the constant-product curve of the reserves the earlier trades left (the same formula: out =
 * floor(a·(d−n)·Y / (d·X + a·(d−n))) for a fee n/d, then X + a, Y − out). The index of the first path a pool refuses
 * (or that would give nothing), if any.
 */
function execute(paths: readonly Hop[][], amounts: readonly bigint[]): { paths: RoutePath[] } | { refused: number } {
  // Per pool traded: its first token and the two reserves as the trades so far left them.
  const reserves = new Map<string, { first: string; r0: bigint; r1: bigint }>();
  const result: RoutePath[] = [];
  for (const [k, hops] of paths.entries()) {
    const amountsOf = [amounts[k]!];
    for (const hop of hops) {
      const a = amountsOf[amountsOf.length - 1]!;
      let pool = reserves.get(hop.poolId);
      let out: bigint | null;
      if (pool === undefined) {
        out = a > 0n ? hop.out(a) : null;
        pool = { first: hop.tokenIn, r0: hop.curve!.reserveIn, r1: hop.curve!.reserveOut };
        reserves.set(hop.poolId, pool);
      } else {
        const forward = pool.first === hop.tokenIn;
        const { numerator, denominator } = hop.curve!.fee;
        const withFee = a * (denominator - numerator);
        const scaled = denominator * (forward ? pool.r0 : pool.r1) + withFee;
        out = scaled === 0n ? null : (withFee * (forward ? pool.r1 : pool.r0)) / scaled;
      }
      if (out === null || out <= 0n) return { refused: k };
      if (pool.first === hop.tokenIn) [pool.r0, pool.r1] = [pool.r0 + a, pool.r1 - out];
      else [pool.r0, pool.r1] = [pool.r0 - out, pool.r1 + a];
      amountsOf.push(out);
    }
    result.push({ hops: [...hops], amounts: amountsOf });
  }
  return { paths: result };
}

/** A cycle of the trades' token graph (a plan needs each token complete before it is spent), as its trades, or null. */
export function findCycle(trades: readonly PlannedTrade[]): PlannedTrade[] | null {
  const out = new Map<number, PlannedTrade[]>();
  for (const t of trades) (out.get(t.from) ?? out.set(t.from, []).get(t.from)!).push(t);
  const state = new Map<number, 1 | 2>();
  const stack: PlannedTrade[] = [];
  const visit = (token: number): PlannedTrade[] | null => {
    state.set(token, 1);
    for (const t of out.get(token) ?? []) {
      const s = state.get(t.to);
      if (s === 1) {
        const start = stack.findIndex((x) => x.from === t.to);
        return [...stack.slice(start < 0 ? stack.length : start), t];
      }
      if (s === undefined) {
        stack.push(t);
        const found = visit(t.to);
        if (found !== null) return found;
        stack.pop();
      }
    }
    state.set(token, 2);
    return null;
  };
  for (const t of trades) {
    if (state.has(t.from)) continue;
    const found = visit(t.from);
    if (found !== null) return found;
  }
  return null;
}
