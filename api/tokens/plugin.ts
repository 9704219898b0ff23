// The token-data interface as one Fastify plugin: the HTTP methods, the /ws socket, and the LISTEN that keeps
// subscriptions and the response cache in step with the indexer.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/connect.ts';
import type { BlocksNotification } from '../../db/notify.ts';
import { MethodCaller } from './call.ts';
import { initCompression } from './compress.ts';
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
  /** Told of each `dexlake_blocks` notification (the api's head tracker). */
  onBlocks?: (notification: BlocksNotification) => void;
}

/** What /metrics reads of the token API. */
export interface TokenApiStats {
  subscriptions(): number;
  cache(): { hits: number; misses: number };
}

export async function tokenDataRoutes(app: FastifyInstance, { db, httpCreditsPerMinute = LIMITS.credits_per_minute, onBlocks }: TokenApiOptions): Promise<TokenApiStats> {
  await initCompression();
  const caller = new MethodCaller(db);
  const hub = new SocketHub(db, caller, METHODS_BY_NAME, app.log);
  tokenHttpRoutes(app, { caller, methods: METHODS, budget: new CreditBudget(httpCreditsPerMinute) });
  tokenSocketRoute(app, hub);
  // LISTEN on the primary (on read replicas, db.pool.options are the primary's); reads after a notification wait
  // for a replica that has replayed it.
  const listener = new BlocksListener(db.pool.options, (notification) => {
    db.syncReads?.(notification.height);
    caller.newBlocks();
    onBlocks?.(notification);
    void hub.notify(notification);
  }, app.log);
  await listener.start();
  app.addHook('onClose', async () => {
    hub.close();
    await listener.close();
  });
  return { subscriptions: () => hub.subscriptions, cache: () => ({ hits: caller.hits, misses: caller.misses }) };
}
