// The api process: Fastify wiring of every route family. It only reads tables; it never decodes blocks.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import cors from '@fastify/cors';
import pino, { type Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import { healthRoutes } from './health.ts';
import { metricsRoutes } from './metrics.ts';

export interface ApiOptions {
  db: Db;
  /** The process's logger; without one, a pino logger of `logLevel` on stdout. */
  logger?: Logger;
  logLevel?: string;
}

export async function buildServer({ db, logger, logLevel = 'info' }: ApiOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: (logger ?? pino({ level: logLevel, base: { proc: 'api' } })) as FastifyBaseLogger,
    // Per-request lines would drown the log under load; the metrics histogram counts requests instead.
    logController: new LogController({ disableRequestLogging: true }),
  });
  await app.register(cors, { origin: '*' });
  metricsRoutes(app);
  healthRoutes(app, db);
  return app;
}
