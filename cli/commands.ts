// The indexer's subcommands: index, migrate, replay, rebuild.
import type { Logger } from 'pino';
import { ConfigError, type Config } from './config.ts';
import { processLogger, stopSignal, withDatabase } from './run.ts';
import { connect, type Db } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { contractsOf } from '../dexes/contracts.ts';
import { runIndexer } from '../indexer/main.ts';
import { startStatusServer } from '../indexer/status-server.ts';
import { createProgress } from '../indexer/progress.ts';
import { readUndecodedTotals } from '../indexer/projections/undecoded.ts';
import { rebuild, replay } from '../indexer/replay.ts';
import { openSource } from '../indexer/sources/index.ts';
import { startSolverRelay, type SolverRelay } from '../devnet/relay.ts';
import { realnetRpc } from '../devnet/realnet/wasm.ts';
import { startNearRpc, type NearRpcServer } from '../devnet/rpc.ts';
import { DEVNET_GENESIS_MS } from '../devnet/realnet/chain.ts';
import { bootstrap } from '../indexer/bootstrap.ts';
import { readCheckpoint } from '../indexer/store.ts';
import { resolveDevnetGenesis } from './devnet.ts';
import { backfill, checkBackfill } from './backfill.ts';
import { readRanges } from '../indexer/backfill.ts';

/** The seeded chain the indexer makes itself: the realnet (the contracts' own wasm, and models of the closed ones). */
const seeded = (source: string): boolean => /^realnet(:|$)/.test(source);

/** A range that ends before it starts is refused before anything starts (exit 2). */
function checkRange(config: Config): void {
  if (config.from !== undefined && config.to !== undefined && config.from > config.to) {
    throw new ConfigError(`--from ${config.from} is after --to ${config.to}: expected from <= to`);
  }
}

export async function index(config: Config): Promise<void> {
  checkRange(config);
  const parallel = config.workers !== undefined || config.range !== undefined;
  if (parallel) checkBackfill(config);
  const signal = stopSignal();
  const logger = processLogger('indexer', config.logLevel);
  await withDatabase(config, async ({ url }) => {
    const db = connect(url, { onError: (err) => logger.warn({ err: err.message }, 'database connection lost') });
    // The writer owns the schema; the status port opens only once it is migrated, so "healthy" means ready.
    const applied = await migrateToLatest(db.kysely);
    if (applied.length) logger.info({ applied }, 'migrated');
    const status = config.indexerPort ? await startStatusServer(config.indexerPort, config.host) : undefined;
    if (status) {
      // The counter goes on from what earlier runs counted, so it reads the same across restarts.
      status.addUndecoded(await readUndecodedTotals(db.kysely));
      logger.info({ port: status.port }, 'status port listening');
    }
    const chain = seeded(config.source);
    const genesisMs = chain ? await resolveDevnetGenesis(db.kysely, config.devnetGenesis) : undefined;
    if (chain) logger.info({ genesis: new Date(genesisMs ?? DEVNET_GENESIS_MS).toISOString() }, 'realnet genesis');
    if (parallel) {
      try {
        await backfill(config, db, url, logger, signal, genesisMs);
      } finally {
        await status?.close();
        await db.close();
      }
      return;
    }
    const planned = await readRanges(db);
    if (planned.length) {
      await db.close();
      throw new Error(`a parallel backfill of ${planned[0]!.from}-${planned.at(-1)!.to} in ${planned.length} ranges is under way: finish it (dexlake index --from ${planned[0]!.from} --to ${planned.at(-1)!.to} --workers ${planned.length}, or each --range i/${planned.length}) before following the chain`);
    }
    const relay = chain && config.relayPort ? await startRelay(db, config, logger) : undefined;
    // The realnet's JSON-RPC answers at any height indexed so far.
    let head = (await readCheckpoint(db.kysely))?.height ?? 0;
    const devnetRpc = chain && config.devnetRpcPort ? await startDevnetRpc(config, genesisMs, () => Math.max(head, 1), logger) : undefined;
    const contracts = contractsOf(config.nearNetwork);
    if (head === 0 && config.from === undefined && config.nearRpcUrl !== undefined && /^(neardata|lake):/.test(config.source)) {
      // A mainnet quick start: an empty database begins with every DEX's state at the latest final block.
      const summary = await bootstrap({ db, rpcUrl: config.nearRpcUrl, contracts, signal, say: (line) => logger.info(line) });
      logger.info({ height: summary.height }, 'bootstrapped: following the chain from the next block');
    }
    try {
      await runIndexer({
        db,
        source: config.source,
        contracts,
        devnet: { seed: config.devnetSeed, speed: config.devnetSpeed, genesisMs },
        from: config.from,
        to: config.to,
        readAhead: { ceiling: config.readAhead, budgetBytes: config.readAheadMb * 2 ** 20 },
        bulkLoadDistance: config.bulkLoadDistance,
        logger,
        signal,
        rpcUrl: config.nearRpcUrl,
        onHeight: (height) => {
          head = height;
          status?.setHeight(height);
        },
        onUndecoded: status?.addUndecoded,
        sourceObserver: status?.source,
        onBulkLoad: status?.setBulkLoad,
        watchProgress: status?.watchProgress,
      });
    } finally {
      await relay?.close();
      await devnetRpc?.close();
      await status?.close();
      await db.close();
    }
    logger.info('indexer stopped');
  }, logger);
}

/** The realnet's NEAR JSON-RPC, answering at heights up to `final()`; like the relay, a taken port costs a warning. */
async function startDevnetRpc(config: Config, genesisMs: number | undefined, final: () => number, logger: Logger): Promise<NearRpcServer | undefined> {
  try {
    const options = { seed: config.devnetSeed, ...(genesisMs !== undefined ? { genesisMs } : {}) };
    const chain = realnetRpc(config.source.split(':')[1], options, final);
    const server = await startNearRpc(chain, {
      host: config.host,
      port: config.devnetRpcPort,
    });
    logger.info({ url: server.url }, 'devnet NEAR JSON-RPC listening');
    return server;
  } catch (err) {
    logger.warn({ port: config.devnetRpcPort, err: (err as Error).message }, 'devnet NEAR JSON-RPC not started');
    return undefined;
  }
}

/**
 * The devnet's local solver relay. A port already taken only costs the relay (a warning): the indexer is what
 * `index` is for.
 */
async function startRelay(db: Db, config: Config, logger: Logger): Promise<SolverRelay | undefined> {
  try {
    const relay = await startSolverRelay({ db, host: config.host, port: config.relayPort });
    logger.info({ url: `${relay.url}/rpc` }, 'solver relay listening');
    return relay;
  } catch (err) {
    logger.warn({ port: config.relayPort, err: (err as Error).message }, 'solver relay not started');
    return undefined;
  }
}

export async function migrate(config: Config): Promise<void> {
  await withDatabase(config, async ({ url }) => {
    const db = connect(url, { max: 1 });
    try {
      const applied = await migrateToLatest(db.kysely);
      process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'schema up to date\n');
    } finally {
      await db.close();
    }
  });
}

export async function replayCommand(config: Config): Promise<void> {
  if (config.from === undefined || config.to === undefined) throw new ConfigError('replay needs --from and --to');
  checkRange(config);
  const { from, to } = config;
  const signal = stopSignal();
  const logger = processLogger('replay', config.logLevel);
  await withDatabase(config, async ({ url }) => {
    const db = connect(url);
    try {
      await migrateToLatest(db.kysely);
      const genesisMs = seeded(config.source) ? await resolveDevnetGenesis(db.kysely, config.devnetGenesis) : undefined;
      const source = await openSource(config.source, { devnet: { seed: config.devnetSeed, speed: 0, genesisMs } });
      const progress = createProgress({ logger, from, to, tty: process.stderr.isTTY ? process.stderr : undefined });
      const result = await replay({ db, source, from, to, signal, progress, contracts: contractsOf(config.nearNetwork) });
      progress.done();
      logger.info({ ...result, from, to }, 'replayed');
    } finally {
      await db.close();
    }
  }, logger);
}

export async function rebuildCommand(config: Config): Promise<void> {
  const logger = processLogger('rebuild', config.logLevel);
  await withDatabase(config, async ({ url }) => {
    const db = connect(url);
    try {
      await migrateToLatest(db.kysely);
      const progress = createProgress({ logger, tty: process.stderr.isTTY ? process.stderr : undefined });
      const events = await rebuild(db, progress);
      progress.done();
      logger.info({ events }, 'rebuilt every projection from the event log');
    } finally {
      await db.close();
    }
  }, logger);
}
