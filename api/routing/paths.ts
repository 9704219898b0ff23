// The best path of one DEX: every path of up to `maxHops` hops from the input token to the output token, no token
// visited twice, quoted hop by hop with the DEX's own math; the best is the largest output (exact in) or the
// smallest input (exact out). Ties go to fewer hops, then to the smaller pool-key sequence, so the same state
// always gives the same path. The last hop is looked up by its (token, token) pair, so a 3-hop search costs
// deg(in)·deg(mid) pair lookups, not deg³ quotes. Pure.
import type { Hop } from './hops.ts';

export interface HopIndex {
  from: Map<string, Hop[]>;
  between: Map<string, Hop[]>;
}

const pairKey = (a: string, b: string) => `${a}\u0000${b}`;

/** Indexes hops by input token and by (input, output); each list sorted by pool id. */
export function indexHops(hops: Iterable<Hop>): HopIndex {
  const from = new Map<string, Hop[]>();
  const between = new Map<string, Hop[]>();
  const push = (map: Map<string, Hop[]>, key: string, hop: Hop) => {
    const list = map.get(key);
    if (list) list.push(hop);
    else map.set(key, [hop]);
  };
  for (const hop of hops) {
    push(from, hop.tokenIn, hop);
    push(between, pairKey(hop.tokenIn, hop.tokenOut), hop);
  }
  const byPool = (a: Hop, b: Hop) => comparePoolIds(a.poolId, b.poolId);
  for (const list of from.values()) list.sort(byPool);
  for (const list of between.values()) list.sort(byPool);
  return { from, between };
}

/** Numeric pool ids in numeric order, others by text. */
export function comparePoolIds(a: string, b: string): number {
  const na = /^\d+$/.test(a);
  const nb = /^\d+$/.test(b);
  if (na && nb) return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface PathQuote {
  hops: Hop[];
  /** amounts[0] is the input, amounts[i+1] the output of hop i. */
  amounts: bigint[];
}

/** Every candidate path (as hop lists) from `tokenIn` to `tokenOut`, in a fixed order. */
function* candidatePaths(index: HopIndex, tokenIn: string, tokenOut: string, maxHops: number): Generator<Hop[]> {
  for (const hop of index.between.get(pairKey(tokenIn, tokenOut)) ?? []) yield [hop];
  if (maxHops < 2) return;
  for (const first of index.from.get(tokenIn) ?? []) {
    const a = first.tokenOut;
    if (a === tokenOut || a === tokenIn) continue;
    for (const last of index.between.get(pairKey(a, tokenOut)) ?? []) yield [first, last];
    if (maxHops < 3) continue;
    for (const second of index.from.get(a) ?? []) {
      const b = second.tokenOut;
      if (b === tokenIn || b === a || b === tokenOut) continue;
      const lasts = index.between.get(pairKey(b, tokenOut));
      if (lasts === undefined) continue;
      for (const last of lasts) yield [first, second, last];
    }
  }
}

function quoteBackward(hops: Hop[], amountOut: bigint): bigint[] | null {
  const amounts = [amountOut];
  let amount = amountOut;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (hop.in === undefined) return null;
    const needed = hop.in(amount);
    if (needed === null) return null;
    amounts.unshift(needed);
    amount = needed;
  }
  return amounts;
}

const pathKey = (hops: Hop[]) => hops.map((h) => h.poolId);

function comparePathKeys(a: Hop[], b: Hop[]): number {
  if (a.length !== b.length) return a.length - b.length;
  const ka = pathKey(a);
  const kb = pathKey(b);
  for (let i = 0; i < ka.length; i++) {
    const c = comparePoolIds(ka[i]!, kb[i]!);
    if (c !== 0) return c;
  }
  return 0;
}

/** Orders quotes best first: larger output, then fewer hops, then smaller pool ids. */
function compareExactIn(a: PathQuote, b: PathQuote): number {
  const oa = a.amounts[a.amounts.length - 1]!;
  const ob = b.amounts[b.amounts.length - 1]!;
  if (oa !== ob) return oa > ob ? -1 : 1;
  return comparePathKeys(a.hops, b.hops);
}

/**
 * The `keep` best exact-in paths, best first (empty when no path gives a positive output). The same candidates
 * as candidatePaths, but each prefix is quoted once (a hub token's first hop feeds hundreds of second hops).
 */
export function topPathsExactIn(index: HopIndex, tokenIn: string, tokenOut: string, amountIn: bigint, maxHops: number, keep: number): PathQuote[] {
  const top: PathQuote[] = [];
  const consider = (hops: Hop[], amounts: bigint[]) => {
    const candidate = { hops, amounts };
    if (top.length === keep && compareExactIn(candidate, top[top.length - 1]!) >= 0) return;
    let at = top.length;
    while (at > 0 && compareExactIn(candidate, top[at - 1]!) < 0) at--;
    top.splice(at, 0, candidate);
    if (top.length > keep) top.pop();
  };
  for (const hop of index.between.get(pairKey(tokenIn, tokenOut)) ?? []) {
    const out = hop.out(amountIn);
    if (out !== null) consider([hop], [amountIn, out]);
  }
  if (maxHops < 2) return top;
  for (const first of index.from.get(tokenIn) ?? []) {
    const a = first.tokenOut;
    if (a === tokenOut || a === tokenIn) continue;
    let amountA: bigint | null | undefined;
    const quoteA = () => (amountA === undefined ? (amountA = first.out(amountIn)) : amountA);
    for (const last of index.between.get(pairKey(a, tokenOut)) ?? []) {
      const x = quoteA();
      if (x === null) break;
      const out = last.out(x);
      if (out !== null) consider([first, last], [amountIn, x, out]);
    }
    if (maxHops < 3) continue;
    for (const second of index.from.get(a) ?? []) {
      const b = second.tokenOut;
      if (b === tokenIn || b === a || b === tokenOut) continue;
      const lasts = index.between.get(pairKey(b, tokenOut));
      if (lasts === undefined) continue;
      const x = quoteA();
      if (x === null) break;
      const y = second.out(x);
      if (y === null) continue;
      for (const last of lasts) {
        const out = last.out(y);
        if (out !== null) consider([first, second, last], [amountIn, x, y, out]);
      }
    }
  }
  return top;
}

/** The best exact-in path, or null when no path gives a positive output. */
export function bestPathExactIn(index: HopIndex, tokenIn: string, tokenOut: string, amountIn: bigint, maxHops: number): PathQuote | null {
  return topPathsExactIn(index, tokenIn, tokenOut, amountIn, maxHops, 1)[0] ?? null;
}

/** A path's amounts for input `amountIn`, or null when a hop refuses. */
export function quotePath(hops: readonly Hop[], amountIn: bigint): bigint[] | null {
  const amounts = [amountIn];
  let amount = amountIn;
  for (const hop of hops) {
    const next = hop.out(amount);
    if (next === null) return null;
    amounts.push(next);
    amount = next;
  }
  return amounts;
}

/**
 * Splits `amountIn` across paths that share no pool (so each one's output depends on its own part only): the
 * amount goes out in `chunks` equal parts (the remainder with the first), each to the path whose output grows the
 * most by it, i.e. the marginal outputs are equalized to within one chunk. Ties go to the earlier path. Returns the
 * paths that got a part, each quoted exactly for its part, in the order given; null when fewer than two get one.
 */
export function splitExactIn(paths: readonly PathQuote[], amountIn: bigint, chunks: number): PathQuote[] | null {
  if (paths.length < 2 || chunks < 2) return null;
  const chunk = amountIn / BigInt(chunks);
  if (chunk === 0n) return null;
  const parts = paths.map(() => 0n);
  const outs = paths.map(() => 0n);
  parts[0] = amountIn - chunk * BigInt(chunks);
  if (parts[0] > 0n) outs[0] = quotePath(paths[0]!.hops, parts[0])?.at(-1) ?? 0n;
  // The output each path would have with one more chunk (null: it refuses).
  const next = paths.map((p, i) => quotePath(p.hops, parts[i]! + chunk)?.at(-1) ?? null);
  for (let c = 0; c < chunks; c++) {
    let pick = -1;
    let gain = -1n;
    for (let i = 0; i < paths.length; i++) {
      const n = next[i];
      if (n === null || n === undefined) continue;
      if (n - outs[i]! > gain) {
        gain = n - outs[i]!;
        pick = i;
      }
    }
    if (pick < 0) return null;
    parts[pick] = parts[pick]! + chunk;
    outs[pick] = next[pick]!;
    next[pick] = quotePath(paths[pick]!.hops, parts[pick]! + chunk)?.at(-1) ?? null;
  }
  const used: PathQuote[] = [];
  for (const [i, path] of paths.entries()) {
    if (parts[i] === 0n) continue;
    const amounts = quotePath(path.hops, parts[i]!);
    if (amounts === null) return null;
    used.push({ hops: path.hops, amounts });
  }
  return used.length >= 2 ? used : null;
}

/** Up to `max` of the paths, best first, each sharing no pool with an earlier one. */
export function poolDisjoint(paths: readonly PathQuote[], max: number): PathQuote[] {
  const chosen: PathQuote[] = [];
  const used = new Set<string>();
  for (const path of paths) {
    if (chosen.length === max) break;
    if (path.hops.some((h) => used.has(h.poolId))) continue;
    chosen.push(path);
    for (const h of path.hops) used.add(h.poolId);
  }
  return chosen;
}

/** The best exact-out path (least input), or null when no path can give `amountOut`. */
export function bestPathExactOut(index: HopIndex, tokenIn: string, tokenOut: string, amountOut: bigint, maxHops: number): PathQuote | null {
  let best: PathQuote | null = null;
  for (const hops of candidatePaths(index, tokenIn, tokenOut, maxHops)) {
    const amounts = quoteBackward(hops, amountOut);
    if (amounts === null) continue;
    if (best === null || amounts[0]! < best.amounts[0]! || (amounts[0] === best.amounts[0] && comparePathKeys(hops, best.hops) < 0)) {
      best = { hops, amounts };
    }
  }
  return best;
}
