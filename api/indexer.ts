// The indexer as the api sees it: GET /indexer (height, lag, blocks/s, and per DEX its pools, trades of the last
// 24 h of chain time and undecoded inputs), and the head tracker behind blocks/s, fed by the `dexlake_blocks`
// notifications the api already listens to.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../db/connect.ts';
import { DEX_IDS } from '../dexes/index.ts';
import { readHealth } from './health.ts';
import { ApiError } from './tokens/errors.ts';
import { sendError } from './tokens/http.ts';

/** Over how long blocks/s is measured. */
const WINDOW_MS = 60_000;
const DAY_MS = 86_400_000;

/** The heights announced over the last minute, for blocks/s. */
export class HeadTracker {
  readonly #samples: Array<{ at: number; height: number }> = [];

  observe(height: number, at = Date.now()): void {
    this.#samples.push({ at, height });
    this.#drop(at);
  }

  /** Blocks announced over the last minute (or since the first announcement), per second; 0 without two. */
  blocksPerSecond(now = Date.now()): number {
    this.#drop(now);
    const first = this.#samples[0];
    const last = this.#samples.at(-1);
    if (first === undefined || last === undefined || last.height <= first.height) return 0;
    return Math.round(((last.height - first.height) * 1000 * 100) / Math.max(1000, now - first.at)) / 100;
  }

  #drop(now: number): void {
    while (this.#samples.length > 1 && this.#samples[0]!.at < now - WINDOW_MS) this.#samples.shift();
  }
}

export interface DexStatus {
  dex: string;
  pools: number;
  stale_pools: number;
  trades_24h: number;
  undecoded: number;
}

export interface IndexerStatus {
  height: number | null;
  timestamp_millis: number | null;
  lag_seconds: number | null;
  blocks_per_second: number;
  dexes: DexStatus[];
}

export async function readIndexerStatus(db: Db, tracker: HeadTracker): Promise<IndexerStatus> {
  const health = await readHealth(db);
  if (health.db === 'down') throw new Error('database down');
  const head = health.height === null ? undefined : await db.kysely.selectFrom('blocks').select('timestamp_ms').where('height', '=', health.height).executeTakeFirst();
  const since = (head?.timestamp_ms ?? 0) - DAY_MS;
  const [pools, trades, undecoded] = await Promise.all([
    db.kysely
      .selectFrom('pools')
      .select(['dex', sql<string>`count(*)`.as('pools'), sql<string>`count(*) filter (where stale)`.as('stale')])
      .groupBy('dex')
      .execute(),
    db.kysely.selectFrom('trades').select(['dex', sql<string>`count(*)`.as('n')]).where('timestamp_ms', '>', since).groupBy('dex').execute(),
    db.kysely.selectFrom('undecoded_totals').select(['dex', sql<string>`sum(count)`.as('n')]).groupBy('dex').execute(),
  ]);
  const names = [...DEX_IDS, ...[...new Set(undecoded.map((u) => u.dex))].filter((d) => !DEX_IDS.includes(d as never)).sort()];
  return {
    height: health.height,
    timestamp_millis: head?.timestamp_ms ?? null,
    lag_seconds: health.lag_seconds,
    blocks_per_second: tracker.blocksPerSecond(),
    dexes: names.map((dex) => {
      const p = pools.find((r) => r.dex === dex);
      return {
        dex,
        pools: Number(p?.pools ?? 0),
        stale_pools: Number(p?.stale ?? 0),
        trades_24h: Number(trades.find((r) => r.dex === dex)?.n ?? 0),
        undecoded: Number(undecoded.find((r) => r.dex === dex)?.n ?? 0),
      };
    }),
  };
}

export function indexerRoutes(app: FastifyInstance, db: Db, tracker: HeadTracker): void {
  app.get('/indexer', async (request, reply) => {
    try {
      return reply.header('cache-control', 'no-store').send(await readIndexerStatus(db, tracker));
    } catch {
      return sendError(request, reply, new ApiError('internal', 'internal error'));
    }
  });
}
