// GET /health: whether the database answers, how far behind the chain the indexed data is, and the height the
// routing graph (what GET /route answers from, in this process's memory) has reached.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/connect.ts';
import { sql } from '../db/kysely.ts';
import type { ReadReplicas, ReadsStatus } from './replicas.ts';

export interface Health {
  db: 'ok' | 'down';
  height: number | null;
  lag_seconds: number | null;
  /** GET /health of the api: the block height of this process's routing graph (RoutingGraph.height, the height GET
   * /route and /route/subscribe answer at); null before it holds a block (and on testnet, where it never loads). It
   * trails `height` until the graph has applied the newest notification. */
  route_height?: number | null;
  /** Only while the indexer's bulk-load mode has history indexes missing: answers stay right, some are slower. */
  bulk_load?: { indexes_missing: string[]; note: string };
  /** Only with read replicas (DATABASE_READ_URL): the primary's state and each replica's lag. `db` and `height` are
   * the primary's, or while it is down a replica's in use. */
  reads?: ReadsStatus;
}

const TIMEOUT_MS = 2_000;
const BULK_LOAD_NOTE =
  'the indexer is backfilling in bulk-load mode: these indexes are built once it nears the chain head; until then queries by token, account or height on transfers, balance history, trade hops and events scan their tables (right, but slower)';

export async function readHealth(db: Db, now = Date.now()): Promise<Health> {
  try {
    const latest = await withTimeout(
      db.kysely.selectFrom('blocks').select(['height', 'timestamp_ms']).orderBy('height', 'desc').limit(1).executeTakeFirst(),
      TIMEOUT_MS,
    );
    const missing = await withTimeout(sql<{ name: string }>`select name from deferred_indexes order by name`.execute(db.kysely), TIMEOUT_MS);
    const bulkLoad = missing.rows.length ? { bulk_load: { indexes_missing: missing.rows.map((r) => r.name), note: BULK_LOAD_NOTE } } : {};
    if (!latest) return { db: 'ok', height: null, lag_seconds: null, ...bulkLoad };
    return { db: 'ok', height: latest.height, lag_seconds: Math.max(0, Math.round((now - latest.timestamp_ms) / 100) / 10), ...bulkLoad };
  } catch {
    return { db: 'down', height: null, lag_seconds: null };
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The health of the primary `db`; with read replicas, also theirs, and while the primary is down the height a
 * replica in use has (reads are still answered: `db` is "ok"). */
export async function readServedHealth(db: Db, replicas: ReadReplicas | undefined): Promise<Health> {
  if (!replicas) return readHealth(db);
  const [primary, reads] = await Promise.all([readHealth(db), replicas.status()]);
  const replica = replicas.inUse();
  const health = primary.db === 'down' && replica ? await readHealth(replica) : primary;
  return { ...health, reads };
}

export function healthRoutes(app: FastifyInstance, db: Db, replicas: ReadReplicas | undefined, routeHeight: () => number | null): void {
  app.get('/health', async (_request, reply) => {
    const { db: state, height, lag_seconds, ...rest } = await readServedHealth(db, replicas);
    const health: Health = { db: state, height, lag_seconds, route_height: routeHeight(), ...rest };
    return reply.code(health.db === 'ok' ? 200 : 503).send(health);
  });
}
