// The indexer serves no API; this small port only lets an orchestrator see that it is alive and how far it got.
import { createServer, type Server } from 'node:http';
import { Registry, collectDefaultMetrics, Gauge } from 'prom-client';

export interface StatusServer {
  setHeight(height: number): void;
  close(): Promise<void>;
  port: number;
}

export async function startStatusServer(port: number, host: string): Promise<StatusServer> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'dexlake_indexer_' });
  const heightGauge = new Gauge({ name: 'dexlake_indexer_height', help: 'Last indexed block height', registers: [registry] });
  let height: number | null = null;
  const server: Server = createServer(async (req, res) => {
    if (req.url === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, height }));
    } else if (req.url === '/metrics') {
      res.writeHead(200, { 'content-type': registry.contentType }).end(await registry.metrics());
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return {
    port: (server.address() as { port: number }).port,
    setHeight(h) {
      height = h;
      heightGauge.set(h);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
