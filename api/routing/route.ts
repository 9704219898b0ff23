// GET /route: a query in, one quote per DEX that found a route out, best first (service-spec.md A1). Each asked
// DEX finds its best path over the in-memory pools (paths.ts over hops.ts), the path becomes a quote (quote.ts),
// and the quotes are ranked by value net of gas and storage at current indexed prices. The same query against the
// same state gives the same bytes: every iteration order is fixed and the JSON is built in a fixed key order.
import type { FastifyInstance } from 'fastify';
import { contractsOf, type DexContracts } from '../../dexes/contracts.ts';
import type { Dex, DexRouting } from '../../dexes/dex.ts';
import type { DexId } from '../../dexes/events.ts';
import { DEXES } from '../../dexes/index.ts';
import { DEFAULT_MAX_TRANSACTION_GAS } from '../../dexes/instructions.ts';
import type { TokenId } from '../../near/token-id.ts';
import { jsonWithBigints } from '../../near/units.ts';
import { DatabaseUnavailableError, type RoutingGraph } from './graph.ts';
import { hopsOfPool, type Hop, type HopContext } from './hops.ts';
import { ERRORS, parseRouteQuery, routeQueryParams, type RouteQuery } from './params.ts';
import { bestPathExactOut, indexHops, poolDisjoint, quotePath, refineDisjoint, splitExactIn, topPathsExactIn, topPathsExactInEach, type HopIndex, type PathQuote } from './paths.ts';
import { buildQuote, GAS_PRICE_YOCTO, type BuiltQuote, type DexRoute, type QuoteJson } from './quote.ts';
import { askRelay, type RelayQuote } from './quote-a.ts';
import { FlowGraph } from './flow/index.ts';

/** A DEX that splits (`routing.splits`) divides an exact-in amount across up to MAX_SPLIT_PATHS pool-disjoint paths: the best single path, then
 * the SPLIT_CANDIDATES best paths that avoid its pools (ranked at one chunk's amount and at a hundredth of it),
 * then the other SPLIT_CANDIDATES best single paths; in SPLIT_CHUNKS parts refined below one chunk, when that gives
 * more than the best path alone. Sets led by the next SPLIT_SEEDS − 1 best paths compete through a quick split in
 * QUICK_SPLIT_CHUNKS parts, and the winner is split in full too. */
const SPLIT_CANDIDATES = 12;
const MAX_SPLIT_PATHS = 4;
const SPLIT_CHUNKS = 100;
const SPLIT_SEEDS = 4;
const QUICK_SPLIT_CHUNKS = 20;

/** A candidate set's identity: its paths' pool ids. */
const setKey = (paths: readonly PathQuote[]) => paths.map((p) => p.hops.map((h) => h.poolId).join('-')).join(',');

/** What paths yield. */
const totalOut = (paths: readonly PathQuote[]) => paths.reduce((sum, p) => sum + p.amounts[p.amounts.length - 1]!, 0n);

/** How long equal queries at one graph version share an answer, and how many answers are kept at most. */
const SHARE_MS = 1_000;
const MAX_SHARED = 1_000;

/** The request's token in a DEX's vocabulary: `near`, the contract id, or the inner-balance id. */
function dexTokenId(token: TokenId): string {
  return token.kind === 'near' ? 'near' : token.kind === 'nep141' ? token.contractId : `inner-nep141:${token.contractId}`;
}

/** A route answer: the quotes, best first, and the graph's height when they were found (RoutingGraph.height). */
export interface RouteAnswer {
  height: number | null;
  quotes: QuoteJson[];
}

export class Router {
  private readonly indexes = new Map<DexId, { version: number; index: HopIndex }>();
  private readonly flows = new Map<DexId, { version: number; flow: FlowGraph }>();
  private readonly shared = new Map<string, { version: number; at: number; answer: Promise<RouteAnswer> }>();
  private readonly dexes: ReadonlyMap<string, Dex>;
  /** The registry's DEX ids, the ones a query may ask. */
  readonly dexIds: readonly string[];

  constructor(
    readonly graph: RoutingGraph,
    readonly contracts: DexContracts,
    /** The solver relay of the request-for-quote DEX (JSON-RPC at `{url}/rpc`); null: no such quotes. */
    readonly relayUrl: string | null = null,
    readonly registry: readonly Dex[] = DEXES,
    /** NEAR's most prepaid gas per transaction on this network (DEXLAKE_MAX_TRANSACTION_TGAS). */
    readonly maxTransactionGas: bigint = DEFAULT_MAX_TRANSACTION_GAS,
  ) {
    this.dexes = new Map(registry.map((d) => [d.id, d]));
    this.dexIds = registry.map((d) => d.id);
  }

  /** The optimal-flow network of a DEX with `routing.flow` (cached per graph version, built from its pools alone). */
  private flowOf(dex: DexId, index: HopIndex): FlowGraph {
    const cached = this.flows.get(dex);
    if (cached !== undefined && cached.version === this.graph.version) return cached.flow;
    const flow = new FlowGraph([...index.from.values()].flat());
    this.flows.set(dex, { version: this.graph.version, flow });
    return flow;
  }

  /** The hop index of a DEX (cached per graph version, unless its hops read the trader). */
  private indexOf(dex: DexId, routing: DexRouting, ctx: HopContext): HopIndex {
    const cached = this.indexes.get(dex);
    if (!routing.hopsNeedTrader && cached !== undefined && cached.version === this.graph.version) return cached.index;
    const hops: Hop[] = [];
    for (const pool of this.graph.poolsOf(dex)) hops.push(...hopsOfPool(pool, ctx, this.registry));
    const index = indexHops(hops);
    if (!routing.hopsNeedTrader) this.indexes.set(dex, { version: this.graph.version, index });
    return index;
  }

  /**
   * The error of a query naming a token the service does not know (RoutingGraph.knowsToken), or null: a known pair
   * with no route is `[]`, a token never seen is this error. `near` is always known; `inner-nep141:X` as X is.
   * Before the graph holds a block nothing is known yet, so nothing is refused.
   */
  unknownToken(query: RouteQuery): string | null {
    if (this.graph.height === null) return null;
    for (const token of [query.tokenIn, query.tokenOut]) {
      if (token.kind !== 'near' && !this.graph.knowsToken(token.contractId)) return ERRORS.unknownToken(dexTokenId(token));
    }
    return null;
  }

  /** The best route of one DEX, or null. */
  bestRoute(dex: DexId, query: RouteQuery, ctx: HopContext): DexRoute | null {
    const routing = this.dexes.get(dex)?.routing;
    if (routing === undefined || routing.rfq) return null;
    let tokenIn = dexTokenId(query.tokenIn);
    let tokenOut = dexTokenId(query.tokenOut);
    const mode = query.amount.mode;
    if (routing.directHop !== undefined) {
      const hop = routing.directHop(tokenIn, tokenOut, this.contracts);
      if (hop === null) return null;
      const amount = mode === 'exact_in' ? query.amount.amountIn : query.amount.amountOut;
      return { dex, mode, paths: [{ hops: [hop], amounts: [amount, amount] }], amountIn: amount, amountOut: amount, wrapsInput: false, unwrapsOutput: false };
    }
    const limits = routing.maxHops;
    const wrapsInput = routing.tradesWnear === true && tokenIn === 'near';
    const unwrapsOutput = routing.tradesWnear === true && tokenOut === 'near';
    if (wrapsInput) tokenIn = this.contracts.Wrap;
    if (unwrapsOutput) tokenOut = this.contracts.Wrap;
    if (tokenIn === tokenOut) return null;
    const index = this.indexOf(dex, routing, ctx);
    let paths: PathQuote[];
    if (query.amount.mode === 'exact_in') {
      const amountIn = query.amount.amountIn;
      if (limits.exactIn === 0) return null;
      const top = topPathsExactIn(index, tokenIn, tokenOut, amountIn, limits.exactIn, routing.splits || routing.flow ? SPLIT_CANDIDATES : 1);
      if (top.length === 0) return null;
      // A route is worth its output less the gas of its swap actions, each action's metered burn valued in the
      // output token at the pools' own prices (a DEX with `flow`; 0 where no pool joins wNEAR to the output): the
      // pools alone decide a route, so the same pools give the same route whatever prices are indexed.
      const flow = routing.flow !== undefined && !routing.hopsNeedTrader ? { ...routing.flow, graph: this.flowOf(dex, index) } : null;
      const actionCost = flow === null ? 0n : flow.graph.inToken(flow.actionBurn * GAS_PRICE_YOCTO, this.contracts.Wrap, tokenOut);
      const value = (list: readonly PathQuote[]) => totalOut(list) - actionCost * BigInt(list.reduce((n, p) => n + p.hops.length, 0));
      paths = [top.reduce((best, p) => (value([p]) > value([best]) ? p : best))];
      let complements: PathQuote[] = [];
      if (routing.splits) {
        // The best path's complements: the paths that avoid its pools, ranked by what they give for a small share
        // (a path poor alone can be the best place for one): at one chunk and at a hundredth of one, alternately.
        const best = top[0]!;
        const probes = [amountIn / BigInt(SPLIT_CHUNKS), amountIn / BigInt(SPLIT_CHUNKS * 100)].filter((p) => p > 0n);
        const avoid = new Set(best.hops.map((h) => h.poolId));
        const [atChunk = [], atSliver = []] = topPathsExactInEach(index, tokenIn, tokenOut, probes, limits.exactIn, SPLIT_CANDIDATES, avoid);
        complements = atChunk.flatMap((p, i) => (atSliver[i] === undefined ? [p] : [p, atSliver[i]!]));
        const sets = [poolDisjoint([best, ...complements, ...top.slice(1)], MAX_SPLIT_PATHS)];
        // The best path's pools may be worth more to two others: the next best paths also lead a set (what is left
        // of the other candidates), and the one whose quick split gives most is split again in full.
        const seen = new Set([setKey(sets[0]!)]);
        for (const seed of top.slice(1, SPLIT_SEEDS)) {
          const set = poolDisjoint([seed, ...top.filter((p) => p !== seed), ...complements], MAX_SPLIT_PATHS);
          if (!seen.has(setKey(set))) sets.push(set);
          seen.add(setKey(set));
        }
        let challenger: PathQuote[] | null = null;
        let challengerOut = -1n;
        for (const set of sets.slice(1)) {
          const quick = splitExactIn(set, amountIn, QUICK_SPLIT_CHUNKS, false);
          // No split: its lead path alone.
          const out = quick === null ? (quotePath(set[0]!.hops, amountIn)?.at(-1) ?? 0n) : totalOut(quick);
          if (out > challengerOut) {
            challengerOut = out;
            challenger = set;
          }
        }
        for (const set of challenger === null ? [sets[0]!] : [sets[0]!, challenger]) {
          const split = splitExactIn(set, amountIn, SPLIT_CHUNKS);
          if (split !== null && value(split) > value(paths)) paths = split;
        }
      }
      if (flow !== null) {
        // The optimal flow over the pools with a curve, seeded with the paths' pools; kept only when it is worth more.
        const seeds = [...top, ...complements, ...paths].flatMap((p) => p.hops.map((h) => h.poolId));
        const callLimits = { maxTransactionGas: this.maxTransactionGas, referral: query.referrerId !== null };
        const fit = { maxActions: flow.maxActions(callLimits), fits: (p: readonly PathQuote[]) => flow.fits(p, callLimits) };
        const plan = flow.graph.route(tokenIn, tokenOut, amountIn, fit, seeds, actionCost);
        if (plan !== null && value(plan.paths) > value(paths)) paths = plan.paths;
      }
      // Paths that share no pool are a split: its shares, found in floating point or in chunks, are polished to units.
      if (paths.length > 1 && new Set(paths.flatMap((p) => p.hops.map((h) => h.poolId))).size === paths.reduce((n, p) => n + p.hops.length, 0)) {
        const refined = refineDisjoint(paths, amountIn);
        if (refined !== null && value(refined) > value(paths)) paths = refined;
      }
    } else {
      const path = limits.exactOut > 0 ? bestPathExactOut(index, tokenIn, tokenOut, query.amount.amountOut, limits.exactOut) : null;
      if (path === null) return null;
      paths = [path];
    }
    const amountIn = paths.reduce((sum, p) => sum + p.amounts[0]!, 0n);
    return { dex, mode, paths, amountIn, amountOut: totalOut(paths), wrapsInput, unwrapsOutput };
  }

  /**
   * The request-for-quote DEX's route (`routing.rfq`: QuoteA): the relay's quote, asked at once and waited for at
   * most `max_wait_ms` while the other DEXes route. Needs the trader (the signer of the intents); NEAR trades as
   * wNEAR (`nep141:wrap.near`), inner balances not at all.
   */
  private rfq(query: RouteQuery): { dex: DexId; tokenIn: string; tokenOut: string; wrapsInput: boolean; unwrapsOutput: boolean; answer: Promise<RelayQuote | null> } | null {
    const dex = query.dexes.find((id) => this.dexes.get(id)?.routing?.rfq);
    if (dex === undefined || this.relayUrl === null || query.traderAccountId === null) return null;
    if (query.tokenIn.kind === 'inner-nep141' || query.tokenOut.kind === 'inner-nep141') return null;
    const wrapsInput = query.tokenIn.kind === 'near';
    const unwrapsOutput = query.tokenOut.kind === 'near';
    const tokenIn = query.tokenIn.kind === 'near' ? this.contracts.Wrap : query.tokenIn.contractId;
    const tokenOut = query.tokenOut.kind === 'near' ? this.contracts.Wrap : query.tokenOut.contractId;
    if (tokenIn === tokenOut) return null;
    const amount = query.amount.mode === 'exact_in' ? query.amount.amountIn : query.amount.amountOut;
    const request = { assetIn: `nep141:${tokenIn}`, assetOut: `nep141:${tokenOut}`, mode: query.amount.mode, amount };
    return { dex, tokenIn, tokenOut, wrapsInput, unwrapsOutput, answer: askRelay(this.relayUrl, request, query.maxWaitMs) };
  }

  /** Per route, its worst path's sum of pool volatilities (ppm), from pool_history in one query. */
  private async routeVolatility(routes: readonly DexRoute[]): Promise<Map<DexRoute, bigint>> {
    const keyOf = (hop: Hop) => `${hop.dex}:${hop.poolId}`;
    // Hops through pools: not a direct conversion (Wrap), not a request for quote.
    const pooled = (hop: Hop) => this.dexes.get(hop.dex)?.routing?.hops !== undefined;
    const keys = [...new Set(routes.flatMap((r) => r.paths.flatMap((p) => p.hops.filter(pooled).map(keyOf))))].sort();
    const byPool = await this.graph.volatilityPpm(keys);
    const result = new Map<DexRoute, bigint>();
    for (const route of routes) {
      let worst = 0n;
      for (const path of route.paths) {
        const sum = path.hops.filter(pooled).reduce((total, hop) => total + (byPool.get(keyOf(hop)) ?? 0n), 0n);
        if (sum > worst) worst = sum;
      }
      result.set(route, worst);
    }
    return result;
  }

  /**
   * Every asked DEX's quote, ranked. Equal queries at one graph version within SHARE_MS share one answer: a crowd of
   * subscribers (or clients) asking the same thing after a block costs one routing. The version in the key means
   * a pool change is never hidden; the short life bounds how old a shared QuoteA relay quote can get.
   */
  route(query: RouteQuery): Promise<RouteAnswer> {
    const key = jsonWithBigints(query);
    const now = performance.now();
    const shared = this.shared.get(key);
    if (shared !== undefined && shared.version === this.graph.version && now - shared.at < SHARE_MS) return shared.answer;
    const entry = { version: this.graph.version, at: now, answer: this.routeNow(query) };
    if (this.shared.size >= MAX_SHARED) this.shared.clear();
    this.shared.set(key, entry);
    // A failure (the database did not answer) is not kept: the next asker tries again.
    entry.answer.catch(() => this.shared.get(key) === entry && this.shared.delete(key));
    return entry.answer;
  }

  private async routeNow(query: RouteQuery): Promise<RouteAnswer> {
    const relay = this.rfq(query);
    const registrations = query.traderAccountId === null ? null : await this.graph.registrationsOf(query.traderAccountId);
    // From here to the first await below, the graph is one state: the answer's height is its height then, and the
    // ranking reads the prices of then (a notification applied during the awaits must not mix in).
    const height = this.graph.height;
    const lookup = rankingPrices(query, (token) => this.graph.token(token));
    const ctx = { contracts: this.contracts, registrations, nowNs: this.graph.nowNs, ledgers: this.graph.ledgers, dexes: this.registry };
    const routes: DexRoute[] = [];
    for (const dex of query.dexes) {
      const route = this.bestRoute(dex, query, ctx);
      if (route !== null) routes.push(route);
    }
    const volatility = query.slippage.type === 'Auto' ? await this.routeVolatility(routes) : null;
    const built: { dex: DexId; quote: BuiltQuote }[] = routes.map((route) => ({
      dex: route.dex,
      quote: buildQuote(route, query, ctx, volatility?.get(route) ?? 0n),
    }));
    const relayQuote = relay === null ? null : await relay.answer;
    if (relay !== null && relayQuote !== null) {
      const { dex, tokenIn, tokenOut, wrapsInput, unwrapsOutput } = relay;
      const hop: Hop = {
        dex,
        poolId: relayQuote.quoteHash,
        tokenIn,
        tokenOut,
        out: () => relayQuote.amountOut,
        spot: { numerator: relayQuote.amountOut, denominator: relayQuote.amountIn },
      };
      const route: DexRoute = {
        dex,
        mode: query.amount.mode,
        paths: [{ hops: [hop], amounts: [relayQuote.amountIn, relayQuote.amountOut] }],
        amountIn: relayQuote.amountIn,
        amountOut: relayQuote.amountOut,
        wrapsInput,
        unwrapsOutput,
        rfqQuote: relayQuote,
      };
      built.push({ dex, quote: buildQuote(route, query, ctx) });
    }
    return { height, quotes: rank(built, query, lookup, this.registry).map((b) => b.quote.json) };
  }
}

const PRICE_SCALE = 10n ** 18n;

/** A `numeric` USD price text -> units of 10^-18 USD (truncating further digits); null when absent or not positive. */
export function parsePrice(text: string | null | undefined): bigint | null {
  if (text === null || text === undefined) return null;
  const match = /^(\d+)(?:\.(\d*))?$/.exec(text);
  if (match === null) return null;
  const fraction = (match[2] ?? '').slice(0, 18).padEnd(18, '0');
  const value = BigInt(match[1]!) * PRICE_SCALE + BigInt(fraction);
  return value > 0n ? value : null;
}

type TokenLookup = (token: string) => { decimals: number | null; priceUsd: string | null } | undefined;

/** The token a query's quotes are ranked in: the output (exact in) or the input (exact out), as the DEXes name it. */
const quotedToken = (query: RouteQuery) => dexTokenId(query.amount.mode === 'exact_in' ? query.tokenOut : query.tokenIn);

/** What the ranking of `query` reads (yoctoInToken's tokens: NEAR, wNEAR, the quoted token and an inner balance's
 * token), read now: a ranking after an await uses the prices of the graph state the routes were found on. */
export function rankingPrices(query: RouteQuery, lookup: TokenLookup): TokenLookup {
  const quoted = quotedToken(query);
  const tokens = ['near', 'wrap.near', quoted, ...(quoted.startsWith('inner-nep141:') ? [quoted.slice('inner-nep141:'.length)] : [])];
  const now = new Map(tokens.map((token) => [token, lookup(token)]));
  return (token) => (now.has(token) ? now.get(token) : lookup(token));
}

/** yoctoNEAR -> smallest units of `token` at the indexed USD prices: cost·p(NEAR)·10^d / (p(token)·10^24). */
export function yoctoInToken(costYocto: bigint, token: string, lookup: TokenLookup): bigint | null {
  const near = parsePrice(lookup('near')?.priceUsd) ?? parsePrice(lookup('wrap.near')?.priceUsd);
  // An inner balance is worth its token.
  const info = lookup(token);
  const base = token.startsWith('inner-nep141:') ? lookup(token.slice('inner-nep141:'.length)) : undefined;
  const price = parsePrice(info?.priceUsd) ?? parsePrice(base?.priceUsd);
  const decimals = info?.decimals ?? base?.decimals ?? null;
  if (near === null || price === null || decimals === null) return null;
  return (costYocto * near * 10n ** BigInt(decimals)) / (price * 10n ** 24n);
}

/**
 * Ranking (spec A1 rule 2): value = output − costs (exact in) or −(input + costs) (exact out), costs converted
 * into the quoted token; best first. When a quote's costs cannot be converted (an unknown price), every quote is
 * ranked by amount alone. Ties: the better amount, then the registry's order. A request-for-quote DEX (QuoteA)
 * comes last whatever its value (spec: poor liquidity and long waits, to use only when nothing else routes).
 */
export function rank<T extends { dex: DexId; quote: BuiltQuote }>(built: T[], query: RouteQuery, lookup: TokenLookup, registry: readonly Dex[] = DEXES): T[] {
  const ids = registry.map((d) => d.id);
  const isRfq = (dex: DexId) => registry.find((d) => d.id === dex)?.routing?.rfq === true;
  const exactIn = query.amount.mode === 'exact_in';
  const quoted = quotedToken(query);
  const costs = built.map((b) => yoctoInToken(b.quote.costYocto, quoted, lookup));
  const priced = costs.every((c) => c !== null);
  const value = (i: number) => {
    const b = built[i]!;
    const cost = priced ? costs[i]! : 0n;
    return exactIn ? b.quote.amount - cost : -(b.quote.amount + cost);
  };
  const order = built.map((_, i) => i);
  order.sort((i, j) => {
    const lastI = isRfq(built[i]!.dex);
    const lastJ = isRfq(built[j]!.dex);
    if (lastI !== lastJ) return lastI ? 1 : -1;
    const vi = value(i);
    const vj = value(j);
    if (vi !== vj) return vi > vj ? -1 : 1;
    const ai = built[i]!.quote.amount;
    const aj = built[j]!.quote.amount;
    if (ai !== aj) return (exactIn ? ai > aj : ai < aj) ? -1 : 1;
    return ids.indexOf(built[i]!.dex) - ids.indexOf(built[j]!.dex);
  });
  return order.map((i) => built[i]!);
}

export interface RoutingPluginOptions {
  graph: RoutingGraph;
  network: 'mainnet' | 'testnet';
  /** QuoteA's solver relay; null: no QuoteA quotes. */
  quoteRelayUrl?: string | null;
  /** The DEX registry (default: dexes/index.ts's). */
  dexes?: readonly Dex[];
  /** NEAR's most prepaid gas per transaction (default DEFAULT_MAX_TRANSACTION_GAS). */
  maxTransactionGas?: bigint;
}

/** The response header of GET /route that names the block height its quotes were computed at (RouteAnswer.height);
 * absent while the graph holds no block. */
export const HEIGHT_HEADER = 'X-Dexlake-Height';

/** Registers GET /route. Errors are plain text with status 400; no route is `200 []`. */
export function routingRoutes(app: FastifyInstance, { graph, network, quoteRelayUrl = null, dexes = DEXES, maxTransactionGas }: RoutingPluginOptions): Router {
  const router = new Router(graph, contractsOf(network), quoteRelayUrl, dexes, maxTransactionGas);
  app.get('/route', async (request, reply) => {
    // Read from the raw URL with the parser /route/subscribe uses, so both answer a query with the same text.
    const at = request.url.indexOf('?');
    const parsed = parseRouteQuery(routeQueryParams(at < 0 ? '' : request.url.slice(at + 1)), network, router.dexIds);
    if (!parsed.ok) return reply.code(400).type('text/plain; charset=utf-8').send(parsed.error);
    const unknown = router.unknownToken(parsed.query);
    if (unknown !== null) return reply.code(400).type('text/plain; charset=utf-8').send(unknown);
    let answer: RouteAnswer;
    try {
      answer = await router.route(parsed.query);
    } catch (err) {
      // Like every /route error, plain text (a read it needed did not answer: registrations, volatility).
      if (err instanceof DatabaseUnavailableError) return reply.code(503).type('text/plain; charset=utf-8').send(err.message);
      throw err;
    }
    // The body stays the spec's array; the chain state it was computed on rides in a header (readable cross-origin).
    if (answer.height !== null) reply.header(HEIGHT_HEADER, String(answer.height)).header('access-control-expose-headers', HEIGHT_HEADER);
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(answer.quotes));
  });
  return router;
}
