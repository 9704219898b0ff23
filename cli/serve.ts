// `dexlake serve`: the api process. Loads nothing of the indexer's, so it starts fast.
import type { Config } from './config.ts';
import { listenOn, processLogger, stopSignal, withDatabase } from './run.ts';
import { connect } from '../db/connect.ts';
import { buildServer } from '../api/server.ts';
import { DEFAULT_MAX_TRANSACTION_GAS, tgas } from '../dexes/instructions.ts';
import { protocolLimits } from '../indexer/near-rpc.ts';

/** QUOTE_RELAY_URL unset under `serve`: the relay `dexlake index` starts on its default port. */
const DEFAULT_QUOTE_RELAY_URL = 'http://127.0.0.1:3001';

/** Where the ceiling's origin is said. */
interface CeilingLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * NEAR's most prepaid gas per transaction, which no swap may attach more than: DEXLAKE_MAX_TRANSACTION_TGAS when set,
 * else the chain's own (`EXPERIMENTAL_protocol_config` of NEAR_RPC_URL), else 300 TGas. A node that does not answer
 * leaves 300 TGas, said in the log: the lower ceiling only makes plans smaller.
 */
export async function transactionGasCeiling(config: Pick<Config, 'maxTransactionTgas' | 'nearRpcUrl'>, log: CeilingLog): Promise<bigint> {
  if (config.maxTransactionTgas !== undefined) return tgas(config.maxTransactionTgas);
  if (config.nearRpcUrl === undefined) return DEFAULT_MAX_TRANSACTION_GAS;
  try {
    const { protocolVersion, maxTotalPrepaidGas } = await protocolLimits(config.nearRpcUrl, { retries: 1, timeoutMs: 5_000 });
    log.info({ protocolVersion, maxTransactionTgas: Number(maxTotalPrepaidGas / tgas(1)) }, 'prepaid gas per transaction, from the chain');
    return maxTotalPrepaidGas;
  } catch (error) {
    log.warn({ err: (error as Error).message }, 'EXPERIMENTAL_protocol_config did not answer: swaps attach at most 300 TGas');
    return DEFAULT_MAX_TRANSACTION_GAS;
  }
}

export async function serve(config: Config): Promise<void> {
  const signal = stopSignal();
  const logger = processLogger('api', config.logLevel);
  await withDatabase(config, async ({ url }) => {
    const db = connect(url, { connectTimeoutMs: 2_000 });
    const maxTransactionGas = await transactionGasCeiling(config, logger);
    const quoteRelayUrl = config.quoteRelayUrl === 'off' ? null : (config.quoteRelayUrl ?? DEFAULT_QUOTE_RELAY_URL);
    logger.info({ url: quoteRelayUrl }, quoteRelayUrl === null ? 'no solver relay: no QuoteA quotes' : 'QuoteA asks this solver relay');
    const app = await buildServer({
      db,
      logger,
      network: config.nearNetwork,
      quoteRelayUrl,
      readUrls: config.databaseReadUrl ?? [],
      trustProxy: config.trustProxy ?? [],
      maxTransactionGas,
      stallMs: config.stallSeconds * 1000,
    });
    db.pool.on('error', (err) => app.log.warn({ err: err.message }, 'database connection lost'));
    try {
      await listenOn('port', config.port, config.host, (port) => app.listen({ port, host: config.host }));
      await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
      app.log.info('api stopping');
    } finally {
      await app.close();
      await db.close();
    }
  }, logger);
}

