// The routing family's wiring: the in-memory graph (loaded and kept fresh by LISTEN once the server is ready,
// closed with it), GET /route and WebSocket /route/subscribe (the server registers @fastify/websocket).
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/connect.ts';
import { RoutingGraph } from './graph.ts';
import { routingRoutes, type Router } from './route.ts';
import { routeSubscribe } from './subscribe.ts';

export interface RoutingOptions {
  db: Db;
  network: 'mainnet' | 'testnet';
  /** QuoteA's solver relay; null: no QuoteA quotes. */
  quoteRelayUrl?: string | null;
}

const RETRY_MS = 1_000;

/** Registers the routing endpoints; the graph loads when the server becomes ready (a database that does not answer
 * then is retried in the background, and routes answer from an empty graph until it does). */
export function routing(app: FastifyInstance, { db, network, quoteRelayUrl = null }: RoutingOptions): Router {
  const graph = new RoutingGraph(db);
  const router = routingRoutes(app, { graph, network, quoteRelayUrl });
  routeSubscribe(app, { router, graph, network });
  if (network === 'testnet') return router; // routing never answers there: nothing to load
  let stop: (() => Promise<void>) | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const onError = (err: Error) => app.log.warn({ err: err.message }, 'routing: pool graph refresh failed');
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
  return router;
}
