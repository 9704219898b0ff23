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
    const local = new Int32Array(this.tokens).fill(-1);
    const stamp = new Int32Array(this.pools.length).fill(-1);
    const { tokenIn, fixed } = query;
    const amountIn = tokenIn === null || tokenIn === fixed ? 0 : query.amountIn;
    const objective = () => this.objective(s, query, excluded, this.ca, this.cb);
    let value = objective();
    let iterations = 0;
    // The current piece's quadratic: gradient g and Hessian M (both halved), over the tokens it moves; made anew each
    // iteration, by helpers made once (under tsx each closure made costs esbuild's keepNames helper).
    let nodes: number[] = [];
    let grad: number[] = [];
    let diag: number[] = [];
    let off: Map<number, number>[] = [];
    const node = (t: number): number => {
      if (t === fixed) return -1;
      let k = local[t]!;
      if (k < 0) {
        k = nodes.length;
        local[t] = k;
        nodes.push(t);
        grad.push(0);
        diag.push(0);
        off.push(new Map());
      }
      return k;
    };
    const term = (a: number, b: number, wa: number, wb: number, h: number) => {
      const ka = node(a);
      const kb = node(b);
      if (ka >= 0) {
        grad[ka]! += h * wa;
        diag[ka]! += wa * wa;
      }
      if (kb >= 0) {
        grad[kb]! += h * wb;
        diag[kb]! += wb * wb;
      }
      if (ka >= 0 && kb >= 0) {
        const v = (off[ka]!.get(kb) ?? 0) + wa * wb;
        off[ka]!.set(kb, v);
        off[kb]!.set(ka, v);
      }
    };
    while (iterations < maxIterations) {
      iterations++;
      nodes = [];
      grad = [];
      diag = [];
      off = [];
      if (amountIn > 0) {
        const k = node(tokenIn!);
        grad[k]! += amountIn * s[tokenIn!]!;
        diag[k]! += amountIn;
      }
      for (let i = 0; i < this.pools.length; i++) {
        if (excluded?.[i]) continue;
        const p = this.pools[i]!;
        const h1 = this.cb[i]! * s[p.b]! - this.ka[i]! * s[p.a]!;
        if (h1 > 0) term(p.a, p.b, -this.ka[i]!, this.cb[i]!, h1);
        else {
          const h2 = this.ca[i]! * s[p.a]! - this.kb[i]! * s[p.b]!;
          if (h2 > 0) term(p.a, p.b, this.ca[i]!, -this.kb[i]!, h2);
        }
      }
      for (const t of nodes) local[t] = -1;
      if (nodes.length === 0) break;
      const rhs: number[] = [];
      for (const g of grad) rhs.push(-g);
      const step = solveLaplacian(diag, off, rhs);
      let promised = 0;
      for (let k = 0; k < nodes.length; k++) promised -= grad[k]! * step[k]!;
      if (!(promised > 1e-13 * value)) break;
      const delta = new Float64Array(this.tokens);
      for (let k = 0; k < nodes.length; k++) delta[nodes[k]!] = step[k]!;
      const t = this.lineSearch(s, delta, nodes, query.tokenIn, amountIn, excluded, stamp, iterations);
      if (!(t > 0)) break;
      for (const token of nodes) s[token] = s[token]! + t * delta[token]!;
      const next = objective();
      if (!(next < value)) {
        // No progress in floating point: undo (never keep a worse point) and stop.
        for (const token of nodes) s[token] = s[token]! - t * delta[token]!;
        break;
      }
      value = next;
    }
    return { value, iterations };
  }

  /**
   * The t >= 0 minimizing F(s + t·delta) exactly: its derivative is piecewise linear and increasing, with a
   * breakpoint where a pool direction starts or stops trading. Steps are capped so that no s falls below 1% of
   * its value (prices stay positive). `stamp` marks pools already looked at in this pass.
   */
  private lineSearch(s: Float64Array, delta: Float64Array, moved: readonly number[], tokenIn: number | null, amountIn: number, excluded: Uint8Array | undefined, stamp: Int32Array, pass: number): number {
    let tMax = Infinity;
    for (const t of moved) if (delta[t]! < 0) tMax = Math.min(tMax, (0.99 * s[t]!) / -delta[t]!);
    // φ'(t)/2 = intercept + slope·t on each piece.
    let slope = 0;
    let intercept = 0;
    if (tokenIn !== null && amountIn > 0) {
      slope += amountIn * delta[tokenIn]! * delta[tokenIn]!;
      intercept += amountIn * s[tokenIn]! * delta[tokenIn]!;
    }
    const at: number[] = [];
    const h0s: number[] = [];
    const ds: number[] = [];
    const hinge = (h0: number, d: number) => {
      if (d === 0) return;
      const tau = -h0 / d;
      const activeFirst = h0 > 0 || (h0 === 0 && d > 0);
      if (activeFirst) {
        slope += d * d;
        intercept += h0 * d;
      }
      // A later change of state: activation (d > 0) or deactivation (d < 0).
      if (tau > 0 && (d > 0) !== activeFirst) {
        at.push(tau);
        h0s.push(h0);
        ds.push(d);
      }
    };
    for (const t of moved) {
      for (const i of this.byToken[t]!) {
        if (stamp[i] === pass || excluded?.[i]) continue;
        stamp[i] = pass;
        const p = this.pools[i]!;
        const da = delta[p.a]!;
        const db = delta[p.b]!;
        hinge(this.cb[i]! * s[p.b]! - this.ka[i]! * s[p.a]!, this.cb[i]! * db - this.ka[i]! * da);
        hinge(this.ca[i]! * s[p.a]! - this.kb[i]! * s[p.b]!, this.ca[i]! * da - this.kb[i]! * db);
      }
    }
    if (intercept >= 0) return 0; // not a descent direction
    // Breakpoints in order (ties: first found) from a heap: the minimizer is usually a few breakpoints in, so
    // sorting them all would cost more than the rest of the search.
    const heap = new BreakpointHeap(at);
    for (let k = heap.pop(); k >= 0; k = heap.pop()) {
      const tau = at[k]!;
      if (tau >= tMax) break;
      if (intercept + slope * tau >= 0) return -intercept / slope;
      const d = ds[k]!;
      const sign = d > 0 ? 1 : -1;
      slope = Math.max(0, slope + sign * d * d);
      intercept += sign * h0s[k]! * d;
    }
    return slope > 0 ? Math.min(tMax, -intercept / slope) : tMax;
  }
}

/** Indices of `keys` in increasing key order (ties: the smaller index), a binary heap built in linear time. */
class BreakpointHeap {
  private readonly heap: Int32Array;
  private size: number;

  constructor(private readonly keys: readonly number[]) {
    this.size = keys.length;
    this.heap = new Int32Array(this.size);
    for (let k = 0; k < this.size; k++) this.heap[k] = k;
    for (let i = (this.size >> 1) - 1; i >= 0; i--) this.down(i);
  }

  /** The next index, or -1 when none is left. */
  pop(): number {
    if (this.size === 0) return -1;
    const top = this.heap[0]!;
    this.heap[0] = this.heap[--this.size]!;
    this.down(0);
    return top;
  }

  private less(x: number, y: number): boolean {
    const kx = this.keys[x]!;
    const ky = this.keys[y]!;
    return kx < ky || (kx === ky && x < y);
  }

  private down(i: number): void {
    const { heap, size } = this;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < size && this.less(heap[l]!, heap[least]!)) least = l;
      if (r < size && this.less(heap[r]!, heap[least]!)) least = r;
      if (least === i) return;
      [heap[i], heap[least]] = [heap[least]!, heap[i]!];
      i = least;
    }
  }
}

/**
 * Solves M·x = rhs for a symmetric positive semi-definite M given by its diagonal and off-diagonal maps (both
 * consumed), eliminating the token with the fewest neighbours first. A pivot that vanishes (a group of tokens whose
 * trading pools do not reach the input or the fixed token: M is singular there, the system consistent) gets x = 0.
 */
function solveLaplacian(diag: number[], off: Map<number, number>[], rhs: number[]): Float64Array {
  const m = diag.length;
  const initial = diag.slice();
  const heap = new DegreeHeap();
  for (let k = 0; k < m; k++) heap.push(off[k]!.size, k);
  const done = new Uint8Array(m);
  const order: number[] = [];
  const pivots = new Float64Array(m);
  const rows: ([number, number][] | null)[] = new Array(m).fill(null);
  for (let k = heap.pop(off); k >= 0; k = heap.pop(off)) {
    if (done[k]) continue;
    done[k] = 1;
    order.push(k);
    const entries = [...off[k]!];
    for (const [j] of entries) off[j]!.delete(k);
    const pivot = diag[k]!;
    if (!(pivot > 1e-13 * initial[k]!)) {
      for (const [j] of entries) heap.push(off[j]!.size, j);
      continue;
    }
    pivots[k] = pivot;
    rows[k] = entries;
    const rk = rhs[k]! / pivot;
    for (let x = 0; x < entries.length; x++) {
      const [i, aik] = entries[x]!;
      const f = aik / pivot;
      diag[i] = diag[i]! - f * aik;
      rhs[i] = rhs[i]! - aik * rk;
      const oi = off[i]!;
      for (let y = x + 1; y < entries.length; y++) {
        const [j, ajk] = entries[y]!;
        const v = (oi.get(j) ?? 0) - f * ajk;
        oi.set(j, v);
        off[j]!.set(i, v);
      }
    }
    for (const [i] of entries) heap.push(off[i]!.size, i);
  }
  const x = new Float64Array(m);
  for (let o = order.length - 1; o >= 0; o--) {
    const k = order[o]!;
    const row = rows[k];
    if (row === null || row === undefined) continue;
    let v = rhs[k]!;
    for (const [j, a] of row) v -= a * x[j]!;
    x[k] = v / pivots[k]!;
  }
  return x;
}

/** A binary min-heap of (degree, node), ties by node; stale entries (the degree changed) are skipped on pop. */
class DegreeHeap {
  private readonly degrees: number[] = [];
  private readonly nodes: number[] = [];

  push(degree: number, node: number): void {
    let i = this.nodes.length;
    this.degrees.push(degree);
    this.nodes.push(node);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** The node of least current degree, or -1 when none is left. */
  pop(off: readonly Map<number, number>[]): number {
    while (this.nodes.length > 0) {
      const degree = this.degrees[0]!;
      const node = this.nodes[0]!;
      const lastDegree = this.degrees.pop()!;
      const lastNode = this.nodes.pop()!;
      if (this.nodes.length > 0) {
        this.degrees[0] = lastDegree;
        this.nodes[0] = lastNode;
        this.sink(0);
      }
      if (off[node]!.size === degree) return node;
    }
    return -1;
  }

  private sink(i: number): void {
    const n = this.nodes.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < n && this.less(l, least)) least = l;
      if (r < n && this.less(r, least)) least = r;
      if (least === i) return;
      this.swap(i, least);
      i = least;
    }
  }

  private less(i: number, j: number): boolean {
    return this.degrees[i]! < this.degrees[j]! || (this.degrees[i] === this.degrees[j] && this.nodes[i]! < this.nodes[j]!);
  }

  private swap(i: number, j: number): void {
    [this.degrees[i], this.degrees[j]] = [this.degrees[j]!, this.degrees[i]!];
    [this.nodes[i], this.nodes[j]] = [this.nodes[j]!, this.nodes[i]!];
  }
}
