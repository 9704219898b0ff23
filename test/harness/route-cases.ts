// Seeded routing cases over a pool snapshot, shared by the route tests on Ref's own contract and bench:route:
// direct, 2-hop and 3-hop pairs (shortest distance in the pool graph) from the best-connected tokens, amounts from
// 0.01% to 10% of the input token's deepest reserve (log-uniform). Deterministic for a seed. Pure.

/** A simple pool as the cases read it. */
export interface CasePool {
  tokens: readonly [string, string];
  amounts: readonly [bigint, bigint];
}

export interface Case {
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  /** The shortest path's length in the pool graph. */
  hops: number;
}

/** The best-connected tokens the pairs start from. */
const HUBS = 20;

/** mulberry32: a small seeded PRNG, so the same seed gives the same cases. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Each token's deepest reserve over the pools with both reserves positive. */
export function deepestReserves(pools: Iterable<CasePool>): Map<string, bigint> {
  const deepest = new Map<string, bigint>();
  for (const p of pools) {
    if (p.amounts[0] <= 0n || p.amounts[1] <= 0n) continue;
    for (const [i, t] of p.tokens.entries()) if ((deepest.get(t) ?? 0n) < p.amounts[i as 0 | 1]) deepest.set(t, p.amounts[i as 0 | 1]);
  }
  return deepest;
}

/**
 * `perKind` cases at each shortest distance 1, 2, 3, from one of the HUBS best-connected tokens (most pools with both
 * reserves positive) to any token at that distance, the partner drawn among the best connected first; the direction
 * is drawn too.
 */
export function sampleCases(pools: Iterable<CasePool>, perKind: number, seed: number): Case[] {
  const list = [...pools];
  const random = prng(seed);
  const neighbours = new Map<string, Set<string>>();
  const deepest = deepestReserves(list);
  for (const p of list) {
    if (p.amounts[0] <= 0n || p.amounts[1] <= 0n) continue;
    for (const [i, t] of p.tokens.entries()) (neighbours.get(t) ?? neighbours.set(t, new Set()).get(t)!).add(p.tokens[1 - i]!);
  }
  const byDegree = [...neighbours.keys()].sort((a, b) => neighbours.get(b)!.size - neighbours.get(a)!.size || (a < b ? -1 : 1));
  const rank = new Map(byDegree.map((t, i) => [t, i]));
  const candidates: [string, string][][] = [[], [], [], []];
  for (const hub of byDegree.slice(0, HUBS)) {
    const distance = new Map<string, number>([[hub, 0]]);
    let frontier = [hub];
    for (let d = 1; d <= 3; d++) {
      const next: string[] = [];
      for (const t of frontier) {
        for (const n of neighbours.get(t)!) {
          if (distance.has(n)) continue;
          distance.set(n, d);
          next.push(n);
          candidates[d]!.push([hub, n]);
        }
      }
      frontier = next;
    }
  }
  const cases: Case[] = [];
  for (const hops of [1, 2, 3]) {
    // The best-connected partners first: the pool of pairs to draw from is the 4·perKind best ranked.
    const pairs = candidates[hops]!.sort((a, b) => rank.get(a[1])! - rank.get(b[1])! || rank.get(a[0])! - rank.get(b[0])!).slice(0, 4 * perKind);
    for (let i = 0; i < perKind && pairs.length > 0; i++) {
      const [a, b] = pairs.splice(Math.floor(random() * pairs.length), 1)[0]!;
      const [tokenIn, tokenOut] = random() < 0.5 ? [a, b] : [b, a];
      // Log-uniform from 10^-4 to 10^-1 of the input token's deepest reserve, in parts per 10^12.
      const fraction = BigInt(Math.round(10 ** (-4 + 3 * random()) * 1e12));
      const amountIn = (deepest.get(tokenIn)! * fraction) / 1_000_000_000_000n;
      if (amountIn > 0n) cases.push({ tokenIn, tokenOut, amountIn, hops });
    }
  }
  return cases;
}
