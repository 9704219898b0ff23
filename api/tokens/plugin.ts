// The token-data interface as one Fastify plugin: the HTTP methods, Swagger UI at /docs, the /ws socket, and the LISTEN that keeps
// subscriptions and the response cache in step with the indexer.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/connect.ts';
import { MethodCaller } from './call.ts';
import { initCompression } from './compress.ts';
import { docsRoutes } from './docs.ts';
import { tokenHttpRoutes } from './http.ts';
import { LIMITS } from './limits.ts';
import { BlocksListener } from './listen.ts';
import { CreditBudget } from './rate-limit.ts';
import { METHODS, METHODS_BY_NAME } from './registry.ts';
import { SocketHub, tokenSocketRoute } from './ws.ts';

export interface TokenApiOptions {
  db: Db;
  /** Credits per minute per client IP over HTTP (default LIMITS.credits_per_minute; benchmarks raise it). */
  httpCreditsPerMinute?: number;
}

export async function tokenDataRoutes(app: FastifyInstance, { db, httpCreditsPerMinute = LIMITS.credits_per_minute }: TokenApiOptions): Promise<void> {
  await initCompression();
  const caller = new MethodCaller(db);
  const hub = new SocketHub(db, caller, METHODS_BY_NAME, app.log);
  tokenHttpRoutes(app, { caller, methods: METHODS, budget: new CreditBudget(httpCreditsPerMinute) });
  tokenSocketRoute(app, hub);
  docsRoutes(app, '/openapi.json');
  const listener = new BlocksListener(db.pool.options, (notification) => {
    caller.newBlocks();
    void hub.notify(notification);
  }, app.log);
  await listener.start();
  app.addHook('onClose', async () => {
    hub.close();
    await listener.close();
  });
}
