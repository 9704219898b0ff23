// The api process: Fastify wiring of every route family. It only reads tables; it never decodes blocks.
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import cors from '@fastify/cors';
import type { Db } from '../db/connect.ts';
import { healthRoutes } from './health.ts';
import { metricsRoutes } from './metrics.ts';

export interface ApiOptions {
  db: Db;
  logLevel?: string;
}

export async function buildServer({ db, logLevel = 'info' }: ApiOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: logLevel, base: { proc: 'api' } },
    // Per-request lines would drown the log under load; the metrics histogram counts requests instead.
    logController: new LogController({ disableRequestLogging: true }),
  });
  await app.register(cors, { origin: '*' });
  metricsRoutes(app);
  healthRoutes(app, db);
  return app;
}
