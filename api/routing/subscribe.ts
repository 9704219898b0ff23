// WebSocket /route/subscribe (service-spec.md A2, Events A): a client sends `{id, query?}` text frames; each replaces
// the previous request, and one without `query` stops it. The server answers `{id, routes, height}` as soon as it
// has routed (or `{id, error}` for an invalid query, the socket staying open), then routes again when a notification
// names a pool the request could use, no sooner than 10x the last round's duration (at most 3 s) after that round,
// and sends only when the quotes changed. `height` is the block height the routes were computed at (the graph's,
// RouteAnswer.height; null while it holds no block): a new height alone is no change, so it is not sent. A frame that is not JSON of that shape closes the connection; binary
// frames are ignored.
//
// Hostile clients (the token socket's LIMITS, api/tokens/limits.ts): a frame over `max_message_bytes` (64 KiB) closes
// the connection with 1009; each frame costs 1 credit of the connection's own `credits_per_minute`, and one past them
// gets `{id, error}` (the running request is kept); a connection whose unsent bytes pass `max_buffered_bytes` does
// not read what it is sent and is cut off (its request stops), so a slow reader cannot grow the server's memory.
//
// "A pool the request could use": any pool of the DEXes it asks (a change anywhere in a DEX's graph can open a
// better multi-hop path); Wrap has no pools and never changes. Quotes that did not change are not resent, so this
// costs routing time, never messages.
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import type { DexId } from '../../dexes/events.ts';
import { ApiError } from '../tokens/errors.ts';
import { LIMITS } from '../tokens/limits.ts';
import { CreditBudget } from '../tokens/rate-limit.ts';
import { parseRouteQuery, routeQueryParams, type RouteQuery } from './params.ts';
import type { RoutingGraph } from './graph.ts';
import type { Router } from './route.ts';

/** Pacing: wait 10x the last round's duration, capped (spec "Limits"). */
export const PACE_FACTOR = 10;
export const MAX_PACE_MS = 3_000;
/** Credits of one client frame. */
export const FRAME_CREDITS = 1;

export interface SubscribeMessage {
  id: number;
  query?: string;
}

/** A client frame as `{id, query?}`, or null when it is not exactly that (the connection is then closed). */
export function parseSubscribeMessage(text: string): SubscribeMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const { id, query, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return null;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) return null;
  if (query !== undefined && typeof query !== 'string') return null;
  return query === undefined ? { id } : { id, query };
}

interface Active {
  id: number;
  query: RouteQuery;
  dexes: ReadonlySet<DexId>;
  /** JSON of the last routes sent. */
  lastRoutes: string | null;
  /** When the next round may start (performance.now()). */
  notBefore: number;
  dirty: boolean;
  routing: boolean;
  timer: NodeJS.Timeout | undefined;
}

/** How many connections have a running request (/metrics). */
export interface ActiveCount {
  active: number;
}

/** One client's subscription loop. */
class Subscription {
  private active: Active | null = null;

  constructor(
    private readonly socket: WebSocket,
    private readonly router: Router,
    private readonly network: 'mainnet' | 'testnet',
    private readonly onError: (err: unknown) => void,
    private readonly count: ActiveCount,
  ) {}

  /** A new client message: replaces what ran before. */
  replace(message: SubscribeMessage): void {
    this.stop();
    if (message.query === undefined) return;
    const parsed = parseRouteQuery(routeQueryParams(message.query), this.network, this.router.dexIds);
    if (!parsed.ok) {
      this.send({ id: message.id, error: parsed.error });
      return;
    }
    this.count.active++;
    this.active = {
      id: message.id,
      query: parsed.query,
      dexes: new Set(parsed.query.dexes),
      lastRoutes: null,
      notBefore: 0,
      dirty: true,
      routing: false,
      timer: undefined,
    };
    this.schedule();
  }

  /** The graph changed: re-route if the change concerns this request. */
  poolsChanged(pools: ReadonlySet<string> | 'all'): void {
    const active = this.active;
    if (active === null) return;
    if (pools !== 'all' && ![...pools].some((key) => active.dexes.has(key.slice(0, key.indexOf(':')) as DexId))) return;
    active.dirty = true;
    this.schedule();
  }

  stop(): void {
    if (this.active === null) return;
    clearTimeout(this.active.timer);
    this.active = null;
    this.count.active--;
  }

  private schedule(): void {
    const active = this.active;
    if (active === null || !active.dirty || active.routing || active.timer !== undefined) return;
    const wait = Math.max(0, active.notBefore - performance.now());
    active.timer = setTimeout(() => {
      active.timer = undefined;
      void this.round(active);
    }, wait);
  }

  private async round(active: Active): Promise<void> {
    if (this.active !== active) return;
    active.dirty = false;
    active.routing = true;
    const started = performance.now();
    try {
      // A token the service does not know gets GET /route's error in place of quotes; the request stays, and
      // routes come once a pool of it does.
      const unknown = this.router.unknownToken(active.query);
      const answer = unknown === null ? await this.router.route(active.query) : null;
      const routes = answer === null ? `error ${unknown}` : JSON.stringify(answer.quotes);
      const took = performance.now() - started;
      active.notBefore = performance.now() + Math.min(MAX_PACE_MS, PACE_FACTOR * took);
      // Replaced or stopped meanwhile: this answer belongs to nobody.
      if (this.active !== active) return;
      if (routes !== active.lastRoutes) {
        active.lastRoutes = routes;
        if (answer === null) this.send({ id: active.id, error: unknown });
        else this.sendRaw(`{"id":${active.id},"routes":${routes},"height":${JSON.stringify(answer.height)}}`);
      }
    } catch (err) {
      this.onError(err);
      active.notBefore = performance.now() + MAX_PACE_MS;
    } finally {
      active.routing = false;
    }
    this.schedule();
  }

  /** A message to the client, unless it is closed or cut off for not reading. */
  send(message: unknown): void {
    this.sendRaw(JSON.stringify(message));
  }

  private sendRaw(text: string): void {
    const { socket } = this;
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > LIMITS.max_buffered_bytes) {
      // It does not read: cut it off (the close handler stops its request).
      this.stop();
      socket.terminate();
      return;
    }
    socket.send(text);
  }
}

/** Registers WebSocket /route/subscribe (needs @fastify/websocket registered on the server). */
export function routeSubscribe(app: FastifyInstance, options: { router: Router; graph: RoutingGraph; network: 'mainnet' | 'testnet' }): ActiveCount {
  const { router, graph, network } = options;
  const count: ActiveCount = { active: 0 };
  app.get('/route/subscribe', { websocket: true }, (socket) => {
    const subscription = new Subscription(socket, router, network, (err) => app.log.warn({ err }, 'routing subscription failed'), count);
    const unsubscribe = graph.onChange((pools) => subscription.poolsChanged(pools));
    const budget = new CreditBudget(LIMITS.credits_per_minute);
    socket.on('message', (data, isBinary) => {
      if (isBinary) return; // non-text frames are ignored (spec A2)
      const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer | ArrayBuffer).byteLength;
      if (size > LIMITS.max_message_bytes) {
        subscription.stop();
        socket.close(1009, `a message is at most ${LIMITS.max_message_bytes} bytes`);
        return;
      }
      const message = parseSubscribeMessage(data.toString());
      if (message === null) {
        subscription.stop();
        socket.close(1008, 'expected {"id": <unsigned integer>, "query"?: <string>}');
        return;
      }
      try {
        budget.check('socket');
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        budget.spend('socket', FRAME_CREDITS);
        subscription.send({ id: message.id, error: `Rate limited: ${err.message}` });
        return;
      }
      budget.spend('socket', FRAME_CREDITS);
      subscription.replace(message);
    });
    socket.on('close', () => {
      subscription.stop();
      unsubscribe();
    });
  });
  return count;
}
