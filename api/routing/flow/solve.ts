// The convex routing problem over constant-product pools, solved through its dual (Angeris, Agrawal, Evans,
// Chitra, Boyd, "Optimal Routing for Constant Function Market Makers", 2022; the CFMMRouter method: per-pool
// arbitrage subproblems in closed form, an optimizer over the token prices). Floating point throughout: it finds
// the flow and a bound on what any route can give; quoted amounts come from the pools' exact math (plan.ts). Pure.
//
// The problem: sell A of token `in`, keep every other token's net >= 0, maximize the net of token `out`. Its dual
// at token prices ν >= 0 with ν_out = 1 is g(ν) = A·ν_in + Σ_pools arb(ν), arb being the most a pool pays an
// arbitrageur at those prices: g(ν) >= every route's output for every such ν (weak duality), and min g is the
// optimum. A pool with reserves R_a, R_b that keeps the fraction 1 − γ of its input (out = γa·R_b/(R_a + γa)) pays
// (√(ν_b R_b) − √(ν_a R_a/γ))² for selling a for b when the root is positive, taking a = (√(γR_aR_b·ν_b/ν_a) − R_a)/γ.
// In s = √ν each pool direction is the square of a hinge of a linear form, h = √R_b·s_b − √(R_a/γ)·s_a, so
//   F(s) = A·s_in² + Σ_directions max(0, h)²,  s_out = 1
// is convex and piecewise quadratic: Newton's step on the current piece is exact, and a line search that is exact
// over the piece boundaries (where a pool starts or stops trading) makes it a finite active-set method. The Newton
// systems are weighted-graph Laplacians (one rank-1 term per trading pool): elimination, fewest neighbours first,
// removes the leaf tokens at no cost and leaves the small core of hub tokens.

export interface CpmmPool {
  /** Token indices. */
  a: number;
  b: number;
  /** Reserves, and γ = 1 − fee: the solver's floating-point view of the pool. */
  ra: number;
  rb: number;
  gamma: number;
}

export interface FlowQuery {
  /** The token sold (null: none, the arbitrage problem) and how much of it. */
  tokenIn: number | null;
  amountIn: number;
  /** The token everything is valued in: its s stays as given. */
  fixed: number;
}

export interface PoolTrade {
  pool: number;
  /** 1: sells token a for b; -1: sells b for a. */
  direction: 1 | -1;
  amountIn: number;
  amountOut: number;
  /** ν of the input times the input, in the fixed token. */
  value: number;
}

/**
 * The solver treats a pool direction as trading only when its hinge exceeds this share of its terms (as if the fee
 * were higher by it): a pool left exactly at the edge of its no-trade band by an arbitrage, or by a rounding, stays
 * out of the Newton systems instead of entering them with a hinge of rounding noise. The bound (dual) uses the
 * exact coefficients.
 */
const BAND_MARGIN = 1e-12;

/** Pools over a token set, each token's pools, and the closed forms' constants. */
export class CpmmNetwork {
  readonly byToken: number[][];
  // Per pool: h_ab = cb·s_b − ka·s_a (sell a for b), h_ba = ca·s_a − kb·s_b (sell b for a); exact in xa, xb.
  private readonly xa: Float64Array;
  private readonly xb: Float64Array;
  private readonly ca: Float64Array;
  private readonly cb: Float64Array;
  private readonly ka: Float64Array;
  private readonly kb: Float64Array;

  constructor(
    readonly tokens: number,
    readonly pools: readonly CpmmPool[],
  ) {
    this.byToken = Array.from({ length: tokens }, () => []);
    const n = pools.length;
    this.xa = new Float64Array(n);
    this.xb = new Float64Array(n);
    this.ca = new Float64Array(n);
    this.cb = new Float64Array(n);
    this.ka = new Float64Array(n);
    this.kb = new Float64Array(n);
    for (const [i, p] of pools.entries()) {
      this.byToken[p.a]!.push(i);
      this.byToken[p.b]!.push(i);
      this.xa[i] = Math.sqrt(p.ra);
      this.xb[i] = Math.sqrt(p.rb);
      this.ca[i] = this.xa[i]! * (1 - BAND_MARGIN);
      this.cb[i] = this.xb[i]! * (1 - BAND_MARGIN);
      this.ka[i] = Math.sqrt(p.ra / p.gamma);
      this.kb[i] = Math.sqrt(p.rb / p.gamma);
    }
  }

  /**
   * The dual value at ν = s²: A·ν_in + Σ arb, in units of the token whose s is 1. Every s gives an upper bound on
   * what any route yields (|s| is read, so a stray sign cannot make it invalid).
   */
  dual(s: Float64Array, query: Pick<FlowQuery, 'tokenIn' | 'amountIn'>, excluded?: Uint8Array): number {
    return this.objective(s, query, excluded, this.xa, this.xb);
  }

  /** The dual value with coefficients ca, cb for the positive terms (exact: xa, xb; the solver's: ca, cb). */
  private objective(s: Float64Array, query: Pick<FlowQuery, 'tokenIn' | 'amountIn'>, excluded: Uint8Array | undefined, ca: Float64Array, cb: Float64Array): number {
    let value = query.tokenIn === null ? 0 : query.amountIn * s[query.tokenIn]! * s[query.tokenIn]!;
    for (let i = 0; i < this.pools.length; i++) {
      if (excluded?.[i]) continue;
      const p = this.pools[i]!;
      const sa = Math.abs(s[p.a]!);
      const sb = Math.abs(s[p.b]!);
      const h1 = cb[i]! * sb - this.ka[i]! * sa;
      const h2 = ca[i]! * sa - this.kb[i]! * sb;
      if (h1 > 0) value += h1 * h1;
      else if (h2 > 0) value += h2 * h2;
    }
    return value;
  }

  /** Pool i's optimal trade at s, or null when it is in balance with those prices. */
  trade(i: number, s: Float64Array): PoolTrade | null {
    const p = this.pools[i]!;
    const sa = s[p.a]!;
    const sb = s[p.b]!;
    const h1 = this.cb[i]! * sb - this.ka[i]! * sa;
    if (h1 > 0) return { pool: i, direction: 1, amountIn: (this.ka[i]! * h1) / sa, amountOut: (this.cb[i]! * h1) / sb, value: this.ka[i]! * h1 * sa };
    const h2 = this.ca[i]! * sa - this.kb[i]! * sb;
    if (h2 > 0) return { pool: i, direction: -1, amountIn: (this.kb[i]! * h2) / sb, amountOut: (this.ca[i]! * h2) / sa, value: this.kb[i]! * h2 * sb };
    return null;
  }

  /** Every trading pool's trade at s, in pool order. */
  trades(s: Float64Array, excluded?: Uint8Array): PoolTrade[] {
    const out: PoolTrade[] = [];
    for (let i = 0; i < this.pools.length; i++) {
      if (excluded?.[i]) continue;
      const t = this.trade(i, s);
      if (t !== null) out.push(t);
    }
    return out;
  }

  /**
   * Minimizes F from `s` (changed in place; s[fixed] stays), leaving out `excluded` pools. Stops when Newton's
   * step promises less than 1e-13 of F, or after `maxIterations`. Returns F at the end (with the band margin: the
   * bound is `dual`) and the iterations run.
   */
  solve(s: Float64Array, query: FlowQuery, excluded?: Uint8Array, maxIterations = 60): { value: number; iterations: number } {
    const n = this.tokens;
    const poolCount = this.pools.length;
    const { tokenIn, fixed } = query;
    const amountIn = tokenIn === null || tokenIn === fixed ? 0 : query.amountIn;
    // The current piece's quadratic over the tokens it moves (local numbering, in order of first appearance): gradient
    // and Hessian, both halved. Arrays made once a solve: building the systems in Maps cost as much as solving them.
    const local = new Int32Array(n).fill(-1);
    const nodes = new Int32Array(n);
    const grad = new Float64Array(n);
    const delta = new Float64Array(n);
    const trading = new Int32Array(poolCount); // pool index, ones' complement when it sells b for a
    const search = new LineSearch(poolCount);
    const system = new NewtonSystem(n);
    let value = this.objective(s, query, excluded, this.ca, this.cb);
    let iterations = 0;
    while (iterations < maxIterations) {
      iterations++;
      let m = 0;
      let count = 0;
      if (amountIn > 0) {
        local[tokenIn!] = m;
        nodes[m++] = tokenIn!;
      }
      for (let i = 0; i < poolCount; i++) {
        if (excluded?.[i]) continue;
        const p = this.pools[i]!;
        let direction = 0;
        if (this.cb[i]! * s[p.b]! - this.ka[i]! * s[p.a]! > 0) direction = 1;
        else if (this.ca[i]! * s[p.a]! - this.kb[i]! * s[p.b]! > 0) direction = -1;
        if (direction === 0) continue;
        trading[count++] = direction === 1 ? i : ~i;
        if (p.a !== fixed && local[p.a]! < 0) {
          local[p.a] = m;
          nodes[m++] = p.a;
        }
        if (p.b !== fixed && local[p.b]! < 0) {
          local[p.b] = m;
          nodes[m++] = p.b;
        }
      }
      if (m === 0) break;
      system.reset(m);
      const { diag } = system;
      grad.fill(0, 0, m);
      if (amountIn > 0) {
        grad[0] = amountIn * s[tokenIn!]!;
        diag[0] = amountIn;
      }
      for (let c = 0; c < count; c++) {
        const code = trading[c]!;
        const i = code >= 0 ? code : ~code;
        const p = this.pools[i]!;
        // h = wa·s_a + wb·s_b on this piece.
        const wa = code >= 0 ? -this.ka[i]! : this.ca[i]!;
        const wb = code >= 0 ? this.cb[i]! : -this.kb[i]!;
        const h = wa * s[p.a]! + wb * s[p.b]!;
        const ka = p.a === fixed ? -1 : local[p.a]!;
        const kb = p.b === fixed ? -1 : local[p.b]!;
        if (ka >= 0) {
          grad[ka]! += h * wa;
          diag[ka]! += wa * wa;
        }
        if (kb >= 0) {
          grad[kb]! += h * wb;
          diag[kb]! += wb * wb;
        }
        if (ka >= 0 && kb >= 0) system.couple(ka, kb, wa * wb);
      }
      for (let k = 0; k < m; k++) {
        local[nodes[k]!] = -1;
        system.rhs[k] = -grad[k]!;
      }
      const step = system.solve();
      let promised = 0;
      for (let k = 0; k < m; k++) promised -= grad[k]! * step[k]!;
      if (!(promised > 1e-13 * value)) break;
      for (let k = 0; k < m; k++) delta[nodes[k]!] = step[k]!;
      const moved = nodes.subarray(0, m);
      const t = search.run(this, s, delta, moved, query.tokenIn, amountIn, excluded, iterations);
      if (!(t > 0)) break;
      for (const token of moved) s[token] = s[token]! + t * delta[token]!;
      const next = this.objective(s, query, excluded, this.ca, this.cb);
      if (!(next < value)) {
        // No progress in floating point: undo (never keep a worse point) and stop.
        for (const token of moved) s[token] = s[token]! - t * delta[token]!;
        break;
      }
      for (const token of moved) delta[token] = 0;
      value = next;
    }
    return { value, iterations };
  }

  /** Pool i's hinges at s and their change along delta, for the line search: [h_ab, d_ab, h_ba, d_ba]. */
  hinges(i: number, s: Float64Array, delta: Float64Array, into: Float64Array): void {
    const p = this.pools[i]!;
    const da = delta[p.a]!;
    const db = delta[p.b]!;
    into[0] = this.cb[i]! * s[p.b]! - this.ka[i]! * s[p.a]!;
    into[1] = this.cb[i]! * db - this.ka[i]! * da;
    into[2] = this.ca[i]! * s[p.a]! - this.kb[i]! * s[p.b]!;
    into[3] = this.ca[i]! * da - this.kb[i]! * db;
  }
}

/**
 * The exact line search of a solve, its buffers made once: the t >= 0 minimizing F(s + t·delta). F's derivative
 * along delta is piecewise linear and increasing, with a breakpoint where a pool direction starts or stops trading.
 * Steps are capped so that no s falls below 1% of its value (prices stay positive).
 */
class LineSearch {
  private readonly stamp: Int32Array;
  private readonly at: Float64Array;
  private readonly h0s: Float64Array;
  private readonly ds: Float64Array;
  private readonly heap: Int32Array;
  private readonly pair = new Float64Array(4);
  private count = 0;
  // φ'(t)/2 = intercept + slope·t on the current piece; lasting: the slope of the hinges that never stop trading.
  private slope = 0;
  private intercept = 0;
  private lasting = 0;

  constructor(pools: number) {
    this.stamp = new Int32Array(pools).fill(-1);
    this.at = new Float64Array(2 * pools);
    this.h0s = new Float64Array(2 * pools);
    this.ds = new Float64Array(2 * pools);
    this.heap = new Int32Array(2 * pools);
  }

  /** The step for pass `pass` (each pool's hinges are read once a pass, through its tokens among `moved`). */
  run(network: CpmmNetwork, s: Float64Array, delta: Float64Array, moved: Int32Array, tokenIn: number | null, amountIn: number, excluded: Uint8Array | undefined, pass: number): number {
    let tMax = Infinity;
    for (const t of moved) if (delta[t]! < 0) tMax = Math.min(tMax, (0.99 * s[t]!) / -delta[t]!);
    this.slope = 0;
    this.intercept = 0;
    this.count = 0;
    if (tokenIn !== null && amountIn > 0) {
      this.slope += amountIn * delta[tokenIn]! * delta[tokenIn]!;
      this.intercept += amountIn * s[tokenIn]! * delta[tokenIn]!;
    }
    this.lasting = this.slope;
    const pair = this.pair;
    for (const t of moved) {
      for (const i of network.byToken[t]!) {
        if (this.stamp[i] === pass || excluded?.[i]) continue;
        this.stamp[i] = pass;
        network.hinges(i, s, delta, pair);
        this.hinge(pair[0]!, pair[1]!);
        this.hinge(pair[2]!, pair[3]!);
      }
    }
    let { slope, intercept } = this;
    if (intercept >= 0) return 0; // not a descent direction
    // φ'/2 >= intercept + lasting·t (a hinge that stops trading gives at least its start, one that starts gives
    // >= 0), so the minimizer is at most -intercept/lasting: only the breakpoints before it (with room for rounding)
    // and before tMax can matter (every-pool solves of bench:route's cases, a scratch run: of 1,234 breakpoints a
    // search, 417 are kept and 56 reached).
    this.keepBefore(Math.min(tMax, this.lasting > 0 ? (-2 * intercept) / this.lasting : Infinity));
    // Breakpoints in order (ties: first found) from a heap: the minimizer is usually a few breakpoints in, so
    // sorting them all would cost more than the rest of the search.
    this.heapify();
    for (let k = this.pop(); k >= 0; k = this.pop()) {
      const tau = this.at[k]!;
      if (tau >= tMax) break;
      if (intercept + slope * tau >= 0) return -intercept / slope;
      const d = this.ds[k]!;
      const sign = d > 0 ? 1 : -1;
      slope = Math.max(0, slope + sign * d * d);
      intercept += sign * this.h0s[k]! * d;
    }
    return slope > 0 ? Math.min(tMax, -intercept / slope) : tMax;
  }

  /** A hinge max(0, h0 + d·t): its part of the first piece, and its breakpoint if it changes state later. */
  private hinge(h0: number, d: number): void {
    if (d === 0) return;
    const tau = -h0 / d;
    const activeFirst = h0 > 0 || (h0 === 0 && d > 0);
    if (activeFirst) {
      this.slope += d * d;
      this.intercept += h0 * d;
      if (d > 0) this.lasting += d * d;
    }
    // A later change of state: activation (d > 0) or deactivation (d < 0).
    if (tau > 0 && d > 0 !== activeFirst) {
      this.at[this.count] = tau;
      this.h0s[this.count] = h0;
      this.ds[this.count] = d;
      this.count++;
    }
  }

  /** Drops the breakpoints at or after `limit`, keeping the others' order. */
  private keepBefore(limit: number): void {
    let kept = 0;
    for (let k = 0; k < this.count; k++) {
      if (!(this.at[k]! < limit)) continue;
      this.at[kept] = this.at[k]!;
      this.h0s[kept] = this.h0s[k]!;
      this.ds[kept] = this.ds[k]!;
      kept++;
    }
    this.count = kept;
  }

  /** The breakpoints as a binary min-heap of their indices, by time (ties: the smaller index), in linear time. */
  private heapify(): void {
    for (let k = 0; k < this.count; k++) this.heap[k] = k;
    for (let i = (this.count >> 1) - 1; i >= 0; i--) this.down(i);
  }

  /** The next breakpoint's index, or -1 when none is left. */
  private pop(): number {
    if (this.count === 0) return -1;
    const top = this.heap[0]!;
    this.heap[0] = this.heap[--this.count]!;
    this.down(0);
    return top;
  }

  private less(x: number, y: number): boolean {
    const kx = this.at[x]!;
    const ky = this.at[y]!;
    return kx < ky || (kx === ky && x < y);
  }

  private down(i: number): void {
    const { heap, count } = this;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < count && this.less(heap[l]!, heap[least]!)) least = l;
      if (r < count && this.less(heap[r]!, heap[least]!)) least = r;
      if (least === i) return;
      const swap = heap[i]!;
      heap[i] = heap[least]!;
      heap[least] = swap;
      i = least;
    }
  }
}

/**
 * The Newton system M·x = rhs of one iteration, over its m tokens: M symmetric positive semi-definite, given by its
 * diagonal and its couplings (one per pair of tokens that a trading pool joins). Solved by elimination, the token
 * with the fewest neighbours first (ties: the first), so that the leaf tokens go at no cost and fill-in stays in the
 * small core of hub tokens. A coupling is a sum of products wa·wb < 0 and stays negative through elimination, so an
 * entry is a neighbour iff it is not 0. The entries live in a square table (looked up in O(1)) with a list of
 * neighbours per token (walked: the tokens are a few hundred, the couplings a few per token); made once a solve.
 */
export class NewtonSystem {
  m = 0;
  diag: Float64Array;
  rhs: Float64Array;
  private stride = 0;
  private off = new Float64Array(0);
  private readonly neighbours: number[][] = [];
  private readonly degree: Int32Array;
  private readonly done: Uint8Array;
  private readonly pivots: Float64Array;
  private readonly initial: Float64Array;
  private readonly order: Int32Array;
  /** Per eliminated token, the range of its row (neighbours and entries at its elimination) in rowIndex/rowValue. */
  private readonly rowStart: Int32Array;
  private readonly rowEnd: Int32Array;
  private readonly rowIndex: number[] = [];
  private readonly rowValue: number[] = [];
  /** Min-heap of degree·capacity + token (exact in a double); entries whose degree changed since are stale and skipped. */
  private heap = new Float64Array(64);
  private heapSize = 0;

  constructor(private readonly capacity: number) {
    this.diag = new Float64Array(capacity);
    this.rhs = new Float64Array(capacity);
    this.degree = new Int32Array(capacity);
    this.done = new Uint8Array(capacity);
    this.pivots = new Float64Array(capacity);
    this.initial = new Float64Array(capacity);
    this.order = new Int32Array(capacity);
    this.rowStart = new Int32Array(capacity);
    this.rowEnd = new Int32Array(capacity);
  }

  /** An empty system over m tokens. */
  reset(m: number): void {
    this.m = m;
    if (m > this.stride) {
      this.stride = Math.min(this.capacity, 2 * m);
      this.off = new Float64Array(this.stride * this.stride);
    }
    this.diag.fill(0, 0, m);
    // Lists made as tokens first need them (a solve over every pool may move a few of its tokens only).
    while (this.neighbours.length < m) this.neighbours.push([]);
    for (let k = 0; k < m; k++) this.neighbours[k]!.length = 0;
  }

  /** Adds w to M's entries (i, j) and (j, i), i ≠ j. */
  couple(i: number, j: number, w: number): void {
    const at = i * this.stride + j;
    const before = this.off[at]!;
    if (before === 0) {
      this.neighbours[i]!.push(j);
      this.neighbours[j]!.push(i);
    }
    this.off[at] = before + w;
    this.off[j * this.stride + i] = before + w;
  }

  /**
   * x with M·x = rhs (diag, rhs and the couplings are consumed; the table is left empty). A pivot that vanishes (a
   * group of tokens whose trading pools do not reach the input or the fixed token: M is singular there, the system
   * consistent) gets x = 0.
   */
  solve(): Float64Array {
    const { m, stride, off, diag, rhs, neighbours, degree, done, pivots, order, rowStart, rowEnd, rowIndex, rowValue } = this;
    this.initial.set(diag.subarray(0, m));
    rowIndex.length = 0;
    rowValue.length = 0;
    this.heapSize = 0;
    for (let k = 0; k < m; k++) {
      degree[k] = neighbours[k]!.length;
      done[k] = 0;
      rowStart[k] = -1;
      this.push(k);
    }
    for (let step = 0; step < m; step++) {
      const k = this.pop();
      done[k] = 1;
      order[step] = k;
      const first = rowIndex.length;
      for (const j of neighbours[k]!) {
        if (done[j]) continue;
        rowIndex.push(j);
        rowValue.push(off[k * stride + j]!);
        degree[j]!--;
      }
      const last = rowIndex.length;
      const pivot = diag[k]!;
      if (pivot > 1e-13 * this.initial[k]!) {
        pivots[k] = pivot;
        rowStart[k] = first;
        rowEnd[k] = last;
        const rk = rhs[k]! / pivot;
        for (let x = first; x < last; x++) {
          const i = rowIndex[x]!;
          const aik = rowValue[x]!;
          const f = aik / pivot;
          diag[i] = diag[i]! - f * aik;
          rhs[i] = rhs[i]! - aik * rk;
          for (let y = x + 1; y < last; y++) {
            const j = rowIndex[y]!;
            const before = off[i * stride + j]!;
            const v = before - f * rowValue[y]!;
            if (before === 0) {
              neighbours[i]!.push(j);
              neighbours[j]!.push(i);
              degree[i]!++;
              degree[j]!++;
            }
            off[i * stride + j] = v;
            off[j * stride + i] = v;
          }
        }
      }
      for (let x = first; x < last; x++) this.push(rowIndex[x]!);
    }
    const x = new Float64Array(m);
    for (let o = m - 1; o >= 0; o--) {
      const k = order[o]!;
      if (rowStart[k]! < 0) continue;
      let v = rhs[k]!;
      for (let e = rowStart[k]!; e < rowEnd[k]!; e++) v -= rowValue[e]! * x[rowIndex[e]!]!;
      x[k] = v / pivots[k]!;
    }
    for (let k = 0; k < m; k++) for (const j of neighbours[k]!) off[k * stride + j] = 0;
    return x;
  }

  private push(k: number): void {
    if (this.heapSize === this.heap.length) {
      const grown = new Float64Array(2 * this.heap.length);
      grown.set(this.heap);
      this.heap = grown;
    }
    const { heap } = this;
    const key = this.degree[k]! * this.capacity + k;
    let i = this.heapSize++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]! <= key) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = key;
  }

  /** The live token of least degree (ties: the first). */
  private pop(): number {
    const { heap, degree, done } = this;
    for (;;) {
      const top = heap[0]!;
      const last = heap[--this.heapSize]!;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= this.heapSize) break;
        const c = l + 1 < this.heapSize && heap[l + 1]! < heap[l]! ? l + 1 : l;
        if (heap[c]! >= last) break;
        heap[i] = heap[c]!;
        i = c;
      }
      heap[i] = last;
      const k = top % this.capacity;
      if (!done[k] && degree[k]! * this.capacity + k === top) return k;
    }
  }
}
