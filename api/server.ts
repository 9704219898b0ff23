// The api process: Fastify wiring of every route family. It only reads tables; it never decodes blocks.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import cors from '@fastify/cors';
import websocket from '@fastify/websocket';
import pino, { type Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import type { Dex } from '../dexes/dex.ts';
import { healthRoutes } from './health.ts';
import { metricsRoutes } from './metrics.ts';
import { routing } from './routing/plugin.ts';
import { badRequest } from './tokens/errors.ts';
import { sendError } from './tokens/http.ts';
import { tokenDataRoutes } from './tokens/plugin.ts';

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
}

export async function buildServer({ db, logger, logLevel = 'info', network = 'mainnet', quoteRelayUrl = null, httpCreditsPerMinute, dexes }: ApiOptions): Promise<FastifyInstance> {
  const app = Fastify({
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
  metricsRoutes(app);
  healthRoutes(app, db);
  routing(app, { db, network, quoteRelayUrl, ...(httpCreditsPerMinute === undefined ? {} : { creditsPerMinute: httpCreditsPerMinute }), ...(dexes === undefined ? {} : { dexes }) });
  // Encapsulated: its error handler and paths are the token API's own.
  await app.register(async (scope) => tokenDataRoutes(scope, { db, ...(httpCreditsPerMinute === undefined ? {} : { httpCreditsPerMinute }) }));
  return app;
}
