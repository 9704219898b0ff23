// The best path of one DEX: every path of up to `maxHops` hops from the input token to the output token, no token
// visited twice, quoted hop by hop with the DEX's own math; the best is the largest output (exact in) or the
// smallest input (exact out). Ties go to fewer hops, then to the smaller pool-key sequence, so the same state
// always gives the same path. The last hop is looked up by its (token, token) pair, so a 3-hop search costs
// deg(in)·min(deg(mid), deg(out)) pair lookups, not deg³ quotes. Pure.
import type { Hop } from './hops.ts';

export interface HopIndex {
  /** Hops by input token. */
  from: Map<string, Hop[]>;
  /** Hops by input token, then output token. */
  between: Map<string, Map<string, Hop[]>>;
  /** Hops by output token, then input token (the same lists as `between`). */
  into: Map<string, Map<string, Hop[]>>;
}

/** Indexes hops by input token, by (input, output) and by (output, input); each list sorted by pool id. */
export function indexHops(hops: Iterable<Hop>): HopIndex {
  const from = new Map<string, Hop[]>();
  const between = new Map<string, Map<string, Hop[]>>();
  const into = new Map<string, Map<string, Hop[]>>();
  for (const hop of hops) {
    const fromList = from.get(hop.tokenIn);
    if (fromList) fromList.push(hop);
    else from.set(hop.tokenIn, [hop]);
    let byOut = between.get(hop.tokenIn);
    if (byOut === undefined) between.set(hop.tokenIn, (byOut = new Map()));
    let pair = byOut.get(hop.tokenOut);
    if (pair === undefined) {
      byOut.set(hop.tokenOut, (pair = []));
      let byIn = into.get(hop.tokenOut);
      if (byIn === undefined) into.set(hop.tokenOut, (byIn = new Map()));
      byIn.set(hop.tokenIn, pair);
    }
    pair.push(hop);
  }
  const byPool = (a: Hop, b: Hop) => comparePoolIds(a.poolId, b.poolId);
  for (const list of from.values()) list.sort(byPool);
  for (const byOut of between.values()) for (const list of byOut.values()) list.sort(byPool);
  return { from, between, into };
}

const hopsBetween = (index: HopIndex, a: string, b: string): Hop[] | undefined => index.between.get(a)?.get(b);

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
  for (const hop of hopsBetween(index, tokenIn, tokenOut) ?? []) yield [hop];
  if (maxHops < 2) return;
  for (const first of index.from.get(tokenIn) ?? []) {
    const a = first.tokenOut;
    if (a === tokenOut || a === tokenIn) continue;
    for (const last of hopsBetween(index, a, tokenOut) ?? []) yield [first, last];
    if (maxHops < 3) continue;
    for (const second of index.from.get(a) ?? []) {
      const b = second.tokenOut;
      if (b === tokenIn || b === a || b === tokenOut) continue;
      const lasts = hopsBetween(index, b, tokenOut);
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
 * The `keep` best exact-in paths, best first (empty when no path gives a positive output), using no pool of
 * `exclude`. The same candidates as candidatePaths, but each prefix is quoted once (a hub token's first hop feeds
 * hundreds of second hops), and a 3-hop path's middle token is found from whichever side has fewer choices: the
 * second hop's output tokens, or the tokens with a pool into the output token.
 */
export function topPathsExactIn(
  index: HopIndex,
  tokenIn: string,
  tokenOut: string,
  amountIn: bigint,
  maxHops: number,
  keep: number,
  exclude: ReadonlySet<string> = new Set(),
): PathQuote[] {
  return topPathsExactInEach(index, tokenIn, tokenOut, [amountIn], maxHops, keep, exclude)[0]!;
}

/** topPathsExactIn for several input amounts in one walk over the paths: one ranking per amount. */
export function topPathsExactInEach(
  index: HopIndex,
  tokenIn: string,
  tokenOut: string,
  amountsIn: readonly bigint[],
  maxHops: number,
  keep: number,
  exclude: ReadonlySet<string> = new Set(),
): PathQuote[][] {
  const tops: PathQuote[][] = amountsIn.map(() => []);
  const consider = (top: PathQuote[], hops: Hop[], amounts: bigint[]) => {
    const candidate = { hops, amounts };
    if (top.length === keep && compareExactIn(candidate, top[top.length - 1]!) >= 0) return;
    let at = top.length;
    while (at > 0 && compareExactIn(candidate, top[at - 1]!) < 0) at--;
    top.splice(at, 0, candidate);
    if (top.length > keep) top.pop();
  };
  const usable = (hop: Hop) => !exclude.has(hop.poolId);
  const n = amountsIn.length;
  // A path whose floating-point output (from the hops' curves, never below the exact one beyond rounding) falls
  // short of the k-th best exact output by more than SCREEN cannot enter the top: it is not quoted exactly.
  const bar = new Float64Array(n).fill(-Infinity);
  const inTop = (k: number, hops: Hop[], amounts: bigint[]) => {
    const top = tops[k]!;
    consider(top, hops, amounts);
    if (top.length === keep) bar[k] = Number(top[keep - 1]!.amounts.at(-1)!);
  };
  const screened = (k: number, outFloat: number) => outFloat * SCREEN < bar[k]!;
  const floatsIn = amountsIn.map((a) => Number(a));
  for (const hop of hopsBetween(index, tokenIn, tokenOut) ?? []) {
    if (!usable(hop)) continue;
    for (let k = 0; k < n; k++) {
      const out = hop.out(amountsIn[k]!);
      if (out !== null) inTop(k, [hop], [amountsIn[k]!, out]);
    }
  }
  if (maxHops < 2) return tops;
  const intoOut = index.into.get(tokenOut);
  // The first hop being walked, and its outputs: exact ones quoted once when a continuation needs them (null where
  // it refuses), float ones for the screen. The helpers below read them, so that they are made once a walk, not
  // once a first hop (under tsx each closure made costs a call to esbuild's keepNames helper).
  let first: Hop;
  let a: string;
  let amountsA: (bigint | null)[] | undefined;
  const xf = new Float64Array(n);
  const quoteA = (): (bigint | null)[] => {
    if (amountsA === undefined) {
      amountsA = [];
      for (const amount of amountsIn) amountsA.push(first.out(amount));
    }
    return amountsA;
  };
  // Third hops b -> out, each after every usable second hop a -> b.
  const viaB = (b: string, seconds: readonly Hop[], lasts: readonly Hop[]): void => {
    if (b === tokenIn || b === a || b === tokenOut) return;
    for (const second of seconds) {
      if (!usable(second)) continue;
      const secondFloat = floatQuote(second);
      for (let k = 0; k < n; k++) {
        const yf = secondFloat === null ? NaN : floatOut(secondFloat, xf[k]!);
        let y: bigint | null | undefined;
        for (const last of lasts) {
          if (!usable(last)) continue;
          const lastFloat = floatQuote(last);
          if (lastFloat !== null && screened(k, floatOut(lastFloat, yf))) continue;
          if (y === undefined) {
            const x = quoteA()[k];
            y = x === null || x === undefined ? null : second.out(x);
          }
          if (y === null) break;
          const out = last.out(y);
          if (out !== null) inTop(k, [first, second, last], [amountsIn[k]!, quoteA()[k]!, y, out]);
        }
      }
    }
  };
  for (const hop of index.from.get(tokenIn) ?? []) {
    first = hop;
    a = first.tokenOut;
    if (a === tokenOut || a === tokenIn || !usable(first)) continue;
    amountsA = undefined;
    const firstFloat = floatQuote(first);
    for (let k = 0; k < n; k++) xf[k] = firstFloat === null ? NaN : floatOut(firstFloat, floatsIn[k]!);
    for (const last of hopsBetween(index, a, tokenOut) ?? []) {
      if (!usable(last)) continue;
      const lastFloat = floatQuote(last);
      for (let k = 0; k < n; k++) {
        if (lastFloat !== null && screened(k, floatOut(lastFloat, xf[k]!))) continue;
        const x = quoteA()[k];
        if (x === null || x === undefined) continue;
        const out = last.out(x);
        if (out !== null) inTop(k, [first, last], [amountsIn[k]!, x, out]);
      }
    }
    if (maxHops < 3 || intoOut === undefined) continue;
    const fromA = index.from.get(a) ?? [];
    if (fromA.length <= intoOut.size) {
      for (const second of fromA) {
        const lasts = intoOut.get(second.tokenOut);
        if (lasts !== undefined) viaB(second.tokenOut, [second], lasts);
      }
    } else {
      const betweenA = index.between.get(a);
      if (betweenA === undefined) continue;
      for (const [b, lasts] of intoOut) {
        const seconds = betweenA.get(b);
        if (seconds !== undefined) viaB(b, seconds, lasts);
      }
    }
  }
  return tops;
}

/** The float screen's margin: floating-point path outputs are within 10^-13 of the real-valued ones, which the
 * exact (floored) outputs never exceed. */
const SCREEN = 1 + 1e-9;

/** A hop's constant-product curve in floating point: out = a·kept·reserveOut / (scaledIn + a·kept). */
interface FloatCurve {
  kept: number;
  scaledIn: number;
  reserveOut: number;
}

const floatQuotes = new WeakMap<Hop, FloatCurve | null>();

/** A hop's curve in floating point (null: it has none), cached per hop. */
function floatQuote(hop: Hop): FloatCurve | null {
  let quote = floatQuotes.get(hop);
  if (quote === undefined) {
    const curve = hop.curve;
    quote =
      curve === undefined
        ? null
        : { kept: Number(curve.fee.denominator - curve.fee.numerator), scaledIn: Number(curve.reserveIn) * Number(curve.fee.denominator), reserveOut: Number(curve.reserveOut) };
    floatQuotes.set(hop, quote);
  }
  return quote;
}

/** The output of `amountIn` through a curve, in floating point. */
function floatOut(q: FloatCurve, amountIn: number): number {
  return (amountIn * q.kept * q.reserveOut) / (q.scaledIn + amountIn * q.kept);
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

/** A path's output for `amountIn` (0 for nothing in), or null when a hop refuses; no arrays built. */
function pathOut(hops: readonly Hop[], amountIn: bigint): bigint | null {
  if (amountIn === 0n) return 0n;
  let amount: bigint | null = amountIn;
  for (const hop of hops) {
    amount = hop.out(amount);
    if (amount === null) return null;
  }
  return amount;
}

/**
 * Splits `amountIn` across paths that share no pool (so each one's output depends on its own part only): the
 * amount goes out in `chunks` equal parts (the remainder with the first), each to the path whose output grows the
 * most by it, i.e. the marginal outputs are equalized to within one chunk. Then amounts move between paths in
 * steps of a tenth, a hundredth... of a chunk while that raises the total (refineSplit): a path that deserves less
 * than one chunk still gets its share (unless `refine` is false: a quick estimate). Ties go to the earlier path.
 * Returns the paths that got a part, each quoted exactly for its part, in the order given; null when fewer than two
 * get one.
 */
export function splitExactIn(paths: readonly PathQuote[], amountIn: bigint, chunks: number, refine = true): PathQuote[] | null {
  if (paths.length < 2 || chunks < 2) return null;
  const chunk = amountIn / BigInt(chunks);
  if (chunk === 0n) return null;
  const parts = paths.map(() => 0n);
  const outs = paths.map(() => 0n);
  parts[0] = amountIn - chunk * BigInt(chunks);
  if (parts[0] > 0n) outs[0] = pathOut(paths[0]!.hops, parts[0]) ?? 0n;
  // The output each path would have with one more chunk (null: it refuses).
  const next = paths.map((p, i) => pathOut(p.hops, parts[i]! + chunk));
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
    next[pick] = pathOut(paths[pick]!.hops, parts[pick]! + chunk);
  }
  if (refine) refineSplit(paths, parts, outs, chunk / 10n);
  const used = quoteParts(paths, parts);
  return used !== null && used.length >= 2 ? used : null;
}

/**
 * A split over pool-disjoint paths (each path's amount named: `amounts[0]`) polished by refineSplit from a millionth
 * of the input down to single units: a split found in floating point (the optimal flow's, or the chunked split's
 * refinement, which stops at a millionth of a chunk) is exact only to that precision, and integer moves recover what
 * it leaves (bench:route found Ref's SDK 4e-17 ahead on one pair without it). Null when a path is refused.
 */
export function refineDisjoint(paths: readonly PathQuote[], amountIn: bigint): PathQuote[] | null {
  const parts = paths.map((p) => p.amounts[0]!);
  const outs = paths.map((p) => p.amounts[p.amounts.length - 1]!);
  // Down to units, any move that pays the trader more is taken: the outputs are what the contract pays.
  refineSplit(paths, parts, outs, amountIn / 1_000_000n, Infinity, 1n);
  return quoteParts(paths, parts);
}

/** The paths given a part each, quoted (those given nothing left out); null when a path refuses its part. */
function quoteParts(paths: readonly PathQuote[], parts: readonly bigint[]): PathQuote[] | null {
  const quoted: PathQuote[] = [];
  for (const [i, path] of paths.entries()) {
    if (parts[i] === 0n) continue;
    const amounts = quotePath(path.hops, parts[i]!);
    if (amounts === null) return null;
    quoted.push({ hops: path.hops, amounts });
  }
  return quoted;
}

/** Step sizes of refineSplit (a tenth of a chunk down to a millionth) and the moves allowed per step size. */
const REFINE_LEVELS = 6;
const REFINE_MOVES = 40;

/**
 * Local search over a split (in place): at each step size, from `firstStep` down by tens, the move of one step
 * from one path to another that raises the total output most (outputs floored as the contract floors them),
 * repeated while one does. A move must gain at least `minGain` units (2 while a split is still coarse: the two
 * floors alone can make a move that loses value gain 1, and such a move is noise, not a better split). Each move raises the total, so it ends; ties go to
 * the earlier pair. Only the two paths a move changes are quoted again.
 */
function refineSplit(paths: readonly PathQuote[], parts: bigint[], outs: bigint[], firstStep: bigint, levels = REFINE_LEVELS, minGain = 2n): void {
  const n = paths.length;
  for (let level = 0, step = firstStep; level < levels && step > 0n; level++, step /= 10n) {
    // Each path's output with one step less and one step more (null: not possible or refused).
    const less = parts.map((p, i) => (p >= step ? pathOut(paths[i]!.hops, p - step) : null));
    const more = parts.map((p, i) => pathOut(paths[i]!.hops, p + step));
    for (let move = 0; move < REFINE_MOVES; move++) {
      let from = -1;
      let to = -1;
      let bestGain = minGain - 1n;
      for (let f = 0; f < n; f++) {
        const down = less[f];
        if (down === null || down === undefined) continue;
        for (let t = 0; t < n; t++) {
          const up = more[t];
          if (t === f || up === null || up === undefined) continue;
          const gain = down + up - outs[f]! - outs[t]!;
          if (gain > bestGain) {
            bestGain = gain;
            from = f;
            to = t;
          }
        }
      }
      if (from < 0) break;
      parts[from] = parts[from]! - step;
      parts[to] = parts[to]! + step;
      outs[from] = less[from]!;
      outs[to] = more[to]!;
      for (const i of [from, to]) {
        less[i] = parts[i]! >= step ? pathOut(paths[i]!.hops, parts[i]! - step) : null;
        more[i] = pathOut(paths[i]!.hops, parts[i]! + step);
      }
    }
  }
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
