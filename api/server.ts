// The api process: Fastify wiring of every route family. It only reads tables; it never decodes blocks.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import cors from '@fastify/cors';
import websocket from '@fastify/websocket';
import pino, { type Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import type { Dex } from '../dexes/dex.ts';
import { DEX_IDS } from '../dexes/index.ts';
import { explorerRoutes } from './explorer.ts';
import { healthRoutes, ProgressWatch, STALL_MS } from './health.ts';
import { HeadTracker, indexerRoutes } from './indexer.ts';
import { metricsRoutes } from './metrics.ts';
import { ReadReplicas } from './replicas.ts';
import { apiDocument, asyncApiDocument } from './reference.ts';
import { routing } from './routing/plugin.ts';
import { docsRoutes } from './tokens/docs.ts';
import { ApiError, badRequest } from './tokens/errors.ts';
import { send, sendError } from './tokens/http.ts';
import { tokenDataRoutes, type TokenApiStats } from './tokens/plugin.ts';
import { METHODS } from './tokens/registry.ts';

export interface ApiOptions {
  db: Db;
  /** The process's logger; without one, a pino logger of `logLevel` on stdout. */
  logger?: Logger;
  logLevel?: string;
  /** NEAR network of the data (routing answers on mainnet only); default mainnet. */
  network?: 'mainnet' | 'testnet';
  /** QuoteA's solver relay (JSON-RPC at `{url}/rpc`); unset: no QuoteA quotes. */
  quoteRelayUrl?: string | null;
  /** Credits per minute per client IP over HTTP, for the token API and for GET /route (each its own budget; default
   * the published limit; benchmarks raise it). */
  httpCreditsPerMinute?: number;
  /** The DEX registry (default: dexes/index.ts's). */
  dexes?: readonly Dex[];
  /** Read replicas of `db` (DATABASE_READ_URL): queries go to them, LISTEN stays on `db` (api/replicas.ts). */
  readUrls?: readonly string[];
  /** How long a read after a notification waits for a replica to replay it (default REPLICA_WAIT_MS). */
  replicaWaitMs?: number;
  /** Proxies (addresses or CIDR ranges) whose X-Forwarded-For names the client (DEXLAKE_TRUST_PROXY); none by
   * default, so that a client cannot pick the address its credits are counted against. */
  trustProxy?: readonly string[];
  /** NEAR's most prepaid gas per transaction on the network (DEXLAKE_MAX_TRANSACTION_TGAS; default 300 TGas). */
  maxTransactionGas?: bigint;
  /** /health answers 503 once the indexed height has not changed for longer (DEXLAKE_STALL_SECONDS); 0: never.
   * Default STALL_MS. */
  stallMs?: number;
  /** The time /health judges a stall by (tests move it; default Date.now). */
  clock?: () => number;
}

export async function buildServer(options: ApiOptions): Promise<FastifyInstance> {
  const { logger, logLevel = 'info', network = 'mainnet', quoteRelayUrl = null, httpCreditsPerMinute, dexes, readUrls = [], replicaWaitMs, trustProxy = [], maxTransactionGas, stallMs = STALL_MS, clock = Date.now } = options;
  // Every query below goes through `db`: the primary, or with read replicas the database that picks one.
  const replicas = readUrls.length ? new ReadReplicas(options.db, readUrls, replicaWaitMs === undefined ? {} : { waitMs: replicaWaitMs }) : undefined;
  const db = replicas?.db ?? options.db;
  const app = Fastify({
    // request.ip: the client X-Forwarded-For names when the peer is a trusted proxy, else the peer.
    trustProxy: trustProxy.length ? [...trustProxy] : false,
    loggerInstance: (logger ?? pino({ level: logLevel, base: { proc: 'api' } })) as FastifyBaseLogger,
    // Per-request lines would drown the log under load; the metrics histogram counts requests instead.
    logController: new LogController({ disableRequestLogging: true }),
    // A URL that does not decode (`/tokens/%`) reaches no route: it is answered in the error vocabulary of the
    // family its path names, /route's plain text or the token API's JSON.
    frameworkErrors: (_error, request, rawReply) => {
      const reply = rawReply as FastifyReply;
      const message = 'the URL is not valid percent-encoding';
      if (request.url.startsWith('/route')) return reply.code(400).type('text/plain; charset=utf-8').send(`Invalid URL: ${message}`);
      return sendError(request, reply, badRequest(message));
    },
  });
  await app.register(cors, { origin: '*' });
  // Once per server, for every WebSocket route family (/route/subscribe, /ws). Frames above 1 MiB are refused by
  // the socket layer before they are buffered whole (the token API answers `too_large` above 64 KiB itself).
  if (!app.hasDecorator('websocketServer')) await app.register(websocket, { options: { maxPayload: 1 << 20 } });
  if (replicas) app.addHook('onClose', () => replicas.close());
  const tracker = new HeadTracker();
  const progress = new ProgressWatch(clock());
  let tokenStats: TokenApiStats | undefined;
  metricsRoutes(app, {
    db: options.db,
    tracker,
    subscriptions: () => ({ '/ws': tokenStats?.subscriptions() ?? 0, '/route/subscribe': routes.subscriptions.active }),
    cache: () => tokenStats?.cache() ?? { hits: 0, misses: 0 },
    replicas,
  });
  healthRoutes(app, options.db, { replicas, routeHeight: () => routes.router.graph.height, progress, stallMs, clock });
  indexerRoutes(app, db, tracker);
  const routes = routing(app, {
    db,
    network,
    quoteRelayUrl,
    ...(httpCreditsPerMinute === undefined ? {} : { creditsPerMinute: httpCreditsPerMinute }),
    ...(dexes === undefined ? {} : { dexes }),
    ...(maxTransactionGas === undefined ? {} : { maxTransactionGas }),
  });
  // Encapsulated: its error handler and paths are the token API's own.
  await app.register(async (scope) => {
    tokenStats = await tokenDataRoutes(scope, { db, onBlocks: (n) => {
        tracker.observe(n.height);
        progress.see(n.height, clock());
      }, ...(httpCreditsPerMinute === undefined ? {} : { httpCreditsPerMinute }) });
  });
  // The reference (made once: it depends on nothing but the code), Swagger UI over it, and the explorer.
  const documents = {
    '/openapi.json': () => apiDocument(METHODS, dexes?.map((d) => d.id) ?? DEX_IDS),
    '/asyncapi.json': () => asyncApiDocument(METHODS),
  };
  for (const [url, make] of Object.entries(documents)) {
    let json: string | undefined;
    app.get(url, (request, reply) => send(request, reply, { status: 200, json: (json ??= JSON.stringify(make())), cacheControl: 'public, max-age=3600', credits: 0 }));
  }
  docsRoutes(app, '/openapi.json');
  await explorerRoutes(app);
  // Any other path names no method, in the token API's vocabulary (`/no/such/path` as `/tokens/nope`).
  app.setNotFoundHandler((request, reply) => sendError(request, reply, new ApiError('unknown_method', `no method at ${request.method} ${request.url.split('?')[0]}`)));
  return app;
}
