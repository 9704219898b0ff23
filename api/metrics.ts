// GET /metrics: Prometheus text, with the process metrics of prom-client, a histogram of HTTP responses, the indexed
// height, lag and blocks/s, the open sockets and subscriptions, and the token-data response cache's hits.
import type { FastifyInstance } from 'fastify';
import type {} from '@fastify/websocket';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../db/connect.ts';
import { readServedHealth } from './health.ts';
import type { HeadTracker } from './indexer.ts';
import type { ReadReplicas } from './replicas.ts';

/** The socket paths counted. */
const SOCKETS = ['/ws', '/route/subscribe'] as const;

export interface MetricsSources {
  db: Db;
  tracker: HeadTracker;
  /** Live subscriptions per socket path. */
  subscriptions: () => Partial<Record<(typeof SOCKETS)[number], number>>;
  /** The token-data response cache: answers served from it, and answers computed. */
  cache: () => { hits: number; misses: number };
  /** Read replicas, when the api has them. */
  replicas?: ReadReplicas | undefined;
}

export function metricsRoutes(app: FastifyInstance, sources: MetricsSources): void {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry, prefix: 'dexlake_api_' });
  const duration = new Histogram({
    name: 'dexlake_api_http_request_duration_seconds',
    help: 'HTTP response time by route and status code',
    labelNames: ['route', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers,
  });
  app.addHook('onResponse', async (request, reply) => {
    duration.observe({ route: request.routeOptions.url ?? 'unknown', status: reply.statusCode }, reply.elapsedTime / 1000);
  });

  const height = new Gauge({ name: 'dexlake_api_indexed_height', help: 'the newest indexed block (-1: none, or the database is down)', registers });
  const lag = new Gauge({ name: 'dexlake_api_lag_seconds', help: 'now minus the newest indexed block\'s chain time (-1: unknown)', registers });
  new Gauge({
    name: 'dexlake_api_blocks_per_second',
    help: 'blocks announced by the indexer over the last minute, per second',
    registers,
    collect() {
      this.set(sources.tracker.blocksPerSecond());
    },
  });

  // Open sockets, counted as the WebSocket server accepts and closes them.
  const open = new Map<string, number>(SOCKETS.map((s) => [s, 0]));
  app.websocketServer.on('connection', (socket: { once(event: 'close', f: () => void): void }, request: { url?: string }) => {
    const path = (request.url ?? '').split('?')[0]!;
    if (!open.has(path)) return;
    open.set(path, open.get(path)! + 1);
    socket.once('close', () => open.set(path, open.get(path)! - 1));
  });
  new Gauge({
    name: 'dexlake_api_open_sockets',
    help: 'open WebSocket connections by path',
    labelNames: ['socket'],
    registers,
    collect() {
      for (const [socket, n] of open) this.set({ socket }, n);
    },
  });
  new Gauge({
    name: 'dexlake_api_subscriptions',
    help: 'live subscriptions by socket path (/route/subscribe: connections with a running request)',
    labelNames: ['socket'],
    registers,
    collect() {
      const counts = sources.subscriptions();
      for (const socket of SOCKETS) this.set({ socket }, counts[socket] ?? 0);
    },
  });

  new Counter({
    name: 'dexlake_api_cache_hits_total',
    help: 'token-data answers served from the response cache (or shared with an equal request being answered)',
    registers,
    collect() {
      this.reset();
      this.inc(sources.cache().hits);
    },
  });
  new Counter({
    name: 'dexlake_api_cache_misses_total',
    help: 'token-data answers computed from the database',
    registers,
    collect() {
      this.reset();
      this.inc(sources.cache().misses);
    },
  });
  new Gauge({
    name: 'dexlake_api_cache_hit_ratio',
    help: 'hits / (hits + misses) since the api started (0 before any answer)',
    registers,
    collect() {
      const { hits, misses } = sources.cache();
      this.set(hits + misses === 0 ? 0 : hits / (hits + misses));
    },
  });

  // Read replicas: each one's lag, whether reads go to it, and the reads each server took.
  const replicaLagBytes = new Gauge({ name: 'dexlake_api_replica_lag_bytes', help: 'the primary\'s WAL position minus the replica\'s replayed one (-1: unknown)', labelNames: ['replica'], registers });
  const replicaLagBlocks = new Gauge({ name: 'dexlake_api_replica_lag_blocks', help: 'the primary\'s newest indexed block minus the replica\'s (-1: unknown)', labelNames: ['replica'], registers });
  const replicaInUse = new Gauge({ name: 'dexlake_api_replica_in_use', help: '1 while reads go to the replica; 0 while it is left out (behind or down)', labelNames: ['replica'], registers });
  const reads = new Gauge({ name: 'dexlake_api_reads', help: 'database connections handed out for reads since the api started, by server (with read replicas)', labelNames: ['server'], registers });

  app.get('/metrics', async (_request, reply) => {
    // One database read per scrape, for the height and the lag (and with replicas one probe of each).
    const health = await readServedHealth(sources.db, sources.replicas);
    const status = health.reads;
    height.set(health.height ?? -1);
    lag.set(health.lag_seconds ?? -1);
    if (status) {
      reads.set({ server: 'primary' }, status.primary_reads);
      for (const r of status.replicas) {
        replicaLagBytes.set({ replica: r.name }, r.lag_bytes ?? -1);
        replicaLagBlocks.set({ replica: r.name }, r.lag_blocks ?? -1);
        replicaInUse.set({ replica: r.name }, r.state === 'ok' ? 1 : 0);
        reads.set({ server: r.name }, r.reads);
      }
    }
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
