// GET /health: whether the database answers, how far behind the chain the indexed data is, and the height the
// routing graph (what GET /route answers from, in this process's memory) has reached. It answers 503 with a `reason`
// while the service cannot answer from fresh data: the database is down, it holds no block yet, or the indexed height
// has not grown for the stall time (the indexer's source makes no progress), since a 200 there would let a load
// balancer send traffic to an api whose /route answers `[]`.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/connect.ts';
import { sql } from '../db/kysely.ts';
import type { ReadReplicas, ReadsStatus } from './replicas.ts';

export interface Health {
  db: 'ok' | 'down';
  /** Only on a 503: why the service is not ready. */
  reason?: string;
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
export async function readServedHealth(db: Db, replicas: ReadReplicas | undefined, now = Date.now()): Promise<Health> {
  if (!replicas) return readHealth(db, now);
  const [primary, reads] = await Promise.all([readHealth(db, now), replicas.status()]);
  const replica = replicas.inUse();
  const health = primary.db === 'down' && replica ? await readHealth(replica, now) : primary;
  return { ...health, reads };
}

/** Default of DEXLAKE_STALL_SECONDS, in ms. */
export const STALL_MS = 60_000;

/**
 * When the indexed height last changed, as this process saw it (a /health read or a block notification). Until it
 * has seen a change, the process's start is the reference: an indexer dead before the api started still shows.
 */
export class ProgressWatch {
  #height: number | null | undefined;
  #since: number;

  constructor(now: number) {
    this.#since = now;
  }

  see(height: number | null, at: number): void {
    if (this.#height === undefined) this.#height = height;
    else if (height !== this.#height) [this.#height, this.#since] = [height, at];
  }

  /** ms since the height last changed (or since the start). */
  quietFor(now: number): number {
    return now - this.#since;
  }
}

export interface HealthRouteOptions {
  replicas: ReadReplicas | undefined;
  routeHeight: () => number | null;
  progress: ProgressWatch;
  /** A height unchanged for longer makes /health 503; 0: never. */
  stallMs: number;
  clock: () => number;
}

/** Why the service is not ready, or undefined when it is. */
function notReady(health: Health, quietMs: number, stallMs: number): string | undefined {
  if (health.db === 'down') return 'the database does not answer';
  if (health.height === null) return 'no block indexed yet';
  if (stallMs > 0 && quietMs > stallMs) {
    return `the indexed height has not grown for ${Math.floor(quietMs / 1000)} s (stall time DEXLAKE_STALL_SECONDS=${stallMs / 1000}): the indexer's source makes no progress`;
  }
  return undefined;
}

export function healthRoutes(app: FastifyInstance, db: Db, { replicas, routeHeight, progress, stallMs, clock }: HealthRouteOptions): void {
  app.get('/health', async (_request, reply) => {
    const now = clock();
    const { db: state, height, lag_seconds, ...rest } = await readServedHealth(db, replicas, now);
    if (state === 'ok') progress.see(height, now);
    const health: Health = { db: state, height, lag_seconds, route_height: routeHeight(), ...rest };
    const reason = notReady(health, progress.quietFor(now), stallMs);
    return reply.code(reason === undefined ? 200 : 503).send(reason === undefined ? health : { ...health, reason });
  });
}
