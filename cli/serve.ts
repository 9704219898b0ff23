// `dexlake serve`: the api process. Loads nothing of the indexer's, so it starts fast.
import type { Config } from './config.ts';
import { processLogger, stopSignal, withDatabase } from './run.ts';
import { connect } from '../db/connect.ts';
import { buildServer } from '../api/server.ts';
import { tgas } from '../dexes/instructions.ts';

export async function serve(config: Config): Promise<void> {
  const signal = stopSignal();
  await withDatabase(config, async ({ url }) => {
    const db = connect(url, { connectTimeoutMs: 2_000 });
    const app = await buildServer({
      db,
      logger: processLogger('api', config.logLevel),
      network: config.nearNetwork,
      quoteRelayUrl: config.quoteRelayUrl ?? null,
      readUrls: config.databaseReadUrl ?? [],
      trustProxy: config.trustProxy ?? [],
      maxTransactionGas: tgas(config.maxTransactionTgas),
    });
    db.pool.on('error', (err) => app.log.warn({ err: err.message }, 'database connection lost'));
    try {
      await app.listen({ port: config.port, host: config.host });
      await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
      app.log.info('api stopping');
    } finally {
      await app.close();
      await db.close();
    }
  });
}

