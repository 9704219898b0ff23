// The routing family's wiring: the in-memory graph (loaded and kept fresh by LISTEN once the server is ready,
// closed with it), GET /route and WebSocket /route/subscribe (the server registers @fastify/websocket), and the
// credits per minute per client address of GET /route.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/connect.ts';
import type { Dex } from '../../dexes/dex.ts';
import { DEXES } from '../../dexes/index.ts';
import { DEFAULT_MAX_TRANSACTION_GAS } from '../../dexes/instructions.ts';
import { ApiError } from '../tokens/errors.ts';
import { LIMITS } from '../tokens/limits.ts';
import { CreditBudget } from '../tokens/rate-limit.ts';
import { RoutingGraph } from './graph.ts';
import { routingRoutes, type Router } from './route.ts';
import { routeSubscribe, type ActiveCount } from './subscribe.ts';

export interface RoutingOptions {
  db: Db;
  network: 'mainnet' | 'testnet';
  /** QuoteA's solver relay; null: no QuoteA quotes. */
  quoteRelayUrl?: string | null;
  /** Credits per minute per client address for GET /route (default LIMITS.credits_per_minute). */
  creditsPerMinute?: number;
  /** The DEX registry (default: dexes/index.ts's). */
  dexes?: readonly Dex[];
  /** NEAR's most prepaid gas per transaction (default DEFAULT_MAX_TRANSACTION_GAS). */
  maxTransactionGas?: bigint;
}

export interface RoutingFamily {
  router: Router;
  /** Connections of /route/subscribe with a running request. */
  subscriptions: ActiveCount;
}

/** Credits of one GET /route request, answered or refused: each may route every DEX over the whole graph. */
export const ROUTE_CREDITS = 1;

const RETRY_MS = 1_000;

/** GET /route past its client's credits: 429 with `Retry-After` and a plain-text body, as other /route errors. */
function rateLimitRoute(budget: CreditBudget) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.routeOptions.url !== '/route') return;
    try {
      budget.check(request.ip);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      budget.spend(request.ip, ROUTE_CREDITS);
      return reply
        .code(429)
        .header('retry-after', String(err.retryAfterSeconds ?? 60))
        .type('text/plain; charset=utf-8')
        .send(`Rate limited: ${err.message}`);
    }
    budget.spend(request.ip, ROUTE_CREDITS);
  };
}

/** Registers the routing endpoints; the graph loads when the server becomes ready (a database that does not answer
 * then is retried in the background, and routes answer from an empty graph until it does). */
export function routing(app: FastifyInstance, { db, network, quoteRelayUrl = null, creditsPerMinute = LIMITS.credits_per_minute, dexes = DEXES, maxTransactionGas = DEFAULT_MAX_TRANSACTION_GAS }: RoutingOptions): RoutingFamily {
  const graph = new RoutingGraph(db, dexes);
  app.addHook('onRequest', rateLimitRoute(new CreditBudget(creditsPerMinute)));
  const router = routingRoutes(app, { graph, network, quoteRelayUrl, dexes, maxTransactionGas });
  const family = { router, subscriptions: routeSubscribe(app, { router, graph, network }) };
  if (network === 'testnet') return family; // routing never answers there: nothing to load
  let stop: (() => Promise<void>) | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  // A refresh still running when the server closes fails on the closed database: that is the stop, not a failure.
  const onError = (err: Error) => {
    if (!closed) app.log.warn({ err: err.message }, 'routing: pool graph refresh failed');
  };
  const start = async (): Promise<void> => {
    try {
      const stopListening = await graph.listen(onError);
      if (closed) await stopListening();
      else stop = stopListening;
    } catch (err) {
      onError(err as Error);
      if (!closed) retry = setTimeout(() => void start(), RETRY_MS);
    }
  };
  app.addHook('onReady', start);
  app.addHook('onClose', async () => {
    closed = true;
    clearTimeout(retry);
    await stop?.();
  });
  return family;
}
