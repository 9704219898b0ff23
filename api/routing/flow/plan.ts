// A solved flow (floating point, one trade per pool) -> an executable plan whose amounts are exact: the contract's
// actions in topological order of the tokens, each token's actual inflow split among the pools it feeds in the
// proportions of the flow, every amount run through the pool's own integer math (Hop.out). The quoted amount is
// what these actions yield, to the unit. Pure.
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

/** A plan, or the token whose inflow no pool of the flow could take (it would be left over). */
export type PlanResult = { plan: Plan } | { stuck: number };

export interface Plan {
  /** Chains of actions in execution order: a chain's first action names its amount, the next ones take the whole
   * output of the action before (a token one pool gives and one pool takes). */
  chains: RoutePath[];
  amountOut: bigint;
  actions: number;
}

/**
 * The plan of `trades` (which must hold no cycle: findCycle) for `amountIn` of token `tokenIn` into `tokenOut`, or
 * the token it would leave over: every token the plan receives but the output is spent to the unit, and a pool that
 * would give nothing for its share gets none. Tokens are emitted depth first, so a token one pool gives and one pool
 * takes follows its producer at once; each token's consumers in decreasing weight (ties: pool id), the split
 * remainder to the first.
 */
export function buildPlan(trades: readonly PlannedTrade[], tokenIn: number, tokenOut: number, amountIn: bigint): PlanResult {
  let live = trades.filter((t) => t.from !== tokenOut && t.to !== tokenIn);
  // A trade is useful only if its input arrives and its output goes on: drop the others until none is left.
  for (let changed = true; changed; ) {
    const produced = new Set(live.map((t) => t.to));
    const consumed = new Set(live.map((t) => t.from));
    const kept = live.filter((t) => (t.from === tokenIn || produced.has(t.from)) && (t.to === tokenOut || consumed.has(t.to)));
    changed = kept.length !== live.length;
    live = kept;
  }
  if (live.length === 0) return { stuck: tokenIn };
  const consumers = new Map<number, PlannedTrade[]>();
  const producers = new Map<number, number>();
  for (const t of live) {
    (consumers.get(t.from) ?? consumers.set(t.from, []).get(t.from)!).push(t);
    producers.set(t.to, (producers.get(t.to) ?? 0) + 1);
  }
  for (const list of consumers.values()) list.sort((x, y) => y.weight - x.weight || comparePoolIds(x.hop.poolId, y.hop.poolId));
  const left = new Map(producers);
  const inflow = new Map<number, bigint>([[tokenIn, amountIn]]);
  const processed = new Set<number>();
  const actions: { trade: PlannedTrade; amountIn: bigint; amountOut: bigint; chained: boolean }[] = [];
  let stuck: number | null = null;

  const process = (token: number, via: PlannedTrade | null): void => {
    processed.add(token);
    const split = splitInflow(inflow.get(token) ?? 0n, consumers.get(token) ?? []);
    if (split === null) {
      stuck = token;
      return;
    }
    const executed = split.filter((s) => s.amountIn > 0n).length;
    for (const { trade, amountIn: amount, amountOut } of split) {
      if (amount > 0n) {
        // Chained: the only consumer of a token that one pool gave, right after that pool's action.
        const chained = executed === 1 && via !== null && producers.get(token) === 1 && actions.at(-1)?.trade === via;
        actions.push({ trade, amountIn: amount, amountOut, chained });
        inflow.set(trade.to, (inflow.get(trade.to) ?? 0n) + amountOut);
      }
      // A consumer left out still counts as done for its output token (it gives nothing).
      const remaining = left.get(trade.to)! - 1;
      left.set(trade.to, remaining);
      if (remaining === 0 && trade.to !== tokenOut) process(trade.to, amount > 0n ? trade : null);
      if (stuck !== null) return;
    }
  };
  process(tokenIn, null);
  if (stuck !== null) return { stuck };
  for (const [token, amount] of inflow) if (amount > 0n && token !== tokenOut && !processed.has(token)) return { stuck: token };
  const chains: RoutePath[] = [];
  for (const a of actions) {
    const last = chains.at(-1);
    if (a.chained && last !== undefined) {
      last.hops.push(a.trade.hop);
      last.amounts.push(a.amountOut);
    } else chains.push({ hops: [a.trade.hop], amounts: [a.amountIn, a.amountOut] });
  }
  return { plan: { chains, amountOut: inflow.get(tokenOut) ?? 0n, actions: actions.length } };
}

/**
 * `amount` split among `consumers` in proportion to their weights (floors; the remainder to the first), each share
 * run through its pool; every consumer is listed, those given nothing with 0. A pool that would give nothing for its
 * share is given nothing and the split made again without it. Null when no consumer can take the amount.
 */
function splitInflow(amount: bigint, consumers: readonly PlannedTrade[]): { trade: PlannedTrade; amountIn: bigint; amountOut: bigint }[] | null {
  const none = consumers.map((trade) => ({ trade, amountIn: 0n, amountOut: 0n }));
  if (amount === 0n) return none;
  let list = [...consumers];
  while (list.length > 0) {
    const total = list.reduce((sum, t) => sum + t.weight, 0);
    // Weights as integer 2^-52ths of the total, so that the split is integer arithmetic.
    const parts = list.map((t) => BigInt(Math.floor((t.weight / total) * 2 ** 52)));
    const denominator = parts.reduce((sum, p) => sum + p, 0n);
    if (denominator === 0n) return null;
    const shares = parts.map((p) => (amount * p) / denominator);
    shares[0] = shares[0]! + amount - shares.reduce((sum, s) => sum + s, 0n);
    const outs = list.map((t, i) => (shares[i]! > 0n ? t.hop.out(shares[i]!) : 0n));
    const refused = list.filter((_, i) => outs[i] === null);
    if (refused.length === 0) {
      return consumers.map((trade) => {
        const i = list.indexOf(trade);
        return i < 0 ? { trade, amountIn: 0n, amountOut: 0n } : { trade, amountIn: shares[i]!, amountOut: outs[i]! };
      });
    }
    list = list.filter((t) => !refused.includes(t));
  }
  return null;
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
