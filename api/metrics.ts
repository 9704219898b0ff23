// GET /metrics: Prometheus text, with the process metrics of prom-client and a histogram of HTTP responses.
import type { FastifyInstance } from 'fastify';
import { Registry, collectDefaultMetrics, Histogram } from 'prom-client';

export function metricsRoutes(app: FastifyInstance): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'dexlake_api_' });
  const duration = new Histogram({
    name: 'dexlake_api_http_request_duration_seconds',
    help: 'HTTP response time by route and status code',
    labelNames: ['route', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    duration.observe({ route: request.routeOptions.url ?? 'unknown', status: reply.statusCode }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()));
}
