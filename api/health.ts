// GET /health: whether the database answers, and how far behind the chain the indexed data is.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/connect.ts';

export interface Health {
  db: 'ok' | 'down';
  height: number | null;
  lag_seconds: number | null;
}

const TIMEOUT_MS = 2_000;

export async function readHealth(db: Db, now = Date.now()): Promise<Health> {
  try {
    const latest = await withTimeout(
      db.kysely.selectFrom('blocks').select(['height', 'timestamp_ms']).orderBy('height', 'desc').limit(1).executeTakeFirst(),
      TIMEOUT_MS,
    );
    if (!latest) return { db: 'ok', height: null, lag_seconds: null };
    return { db: 'ok', height: latest.height, lag_seconds: Math.max(0, Math.round((now - latest.timestamp_ms) / 100) / 10) };
  } catch {
    return { db: 'down', height: null, lag_seconds: null };
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function healthRoutes(app: FastifyInstance, db: Db): void {
  app.get('/health', async (_request, reply) => {
    const health = await readHealth(db);
    return reply.code(health.db === 'ok' ? 200 : 503).send(health);
  });
}
