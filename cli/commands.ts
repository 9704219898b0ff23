// The indexer's subcommands: index, migrate, replay, rebuild.
import { ConfigError, seeded, type Config } from './config.ts';
import { checkSource, listenOn, processLogger, refuseEmptyDatabase, stopSignal, withDatabase } from './run.ts';
import { connect } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { contractsOf } from '../dexes/contracts.ts';
import { runIndexer } from '../indexer/main.ts';
import { startStatusServer, type StatusServer } from '../indexer/status-server.ts';
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

/** A range that ends before it starts is refused before anything starts (exit 2). */
function checkRange(config: Config): void {
  if (config.from !== undefined && config.to !== undefined && config.from > config.to) {
    throw new ConfigError(`--from ${config.from} is after --to ${config.to}: expected from <= to`);
  }
}

export async function index(config: Config): Promise<void> {
  checkRange(config);
  checkSource(config);
  const parallel = config.workers !== undefined || config.range !== undefined;
  if (parallel) checkBackfill(config);
  const signal = stopSignal();
  const logger = processLogger('indexer', config.logLevel);
  await withDatabase(config, async ({ url }) => {
    const db = connect(url, { onError: (err) => logger.warn({ err: err.message }, 'database connection lost') });
    // The writer owns the schema; the status port opens only once it is migrated, so "healthy" means ready.
    const applied = await migrateToLatest(db.kysely);
    if (applied.length) logger.info({ applied }, 'migrated');
    let status: StatusServer | undefined;
    let relay: SolverRelay | undefined;
    let devnetRpc: NearRpcServer | undefined;
    try {
      status = config.indexerPort ? await listenOn('indexerPort', config.indexerPort, config.host, (port) => startStatusServer(port, config.host)) : undefined;
      if (status) {
        // The counter goes on from what earlier runs counted, so it reads the same across restarts.
        status.addUndecoded(await readUndecodedTotals(db.kysely));
        logger.info({ port: status.port }, 'status port listening');
      }
      const chain = seeded(config.source);
      const genesisMs = chain ? await resolveDevnetGenesis(db.kysely, config.devnetGenesis) : undefined;
      if (chain) logger.info({ genesis: new Date(genesisMs ?? DEVNET_GENESIS_MS).toISOString() }, 'realnet genesis');
      if (parallel) {
        await backfill(config, db, url, logger, signal, genesisMs);
        return;
      }
      const planned = await readRanges(db);
      if (planned.length) {
        throw new Error(`a parallel backfill of ${planned[0]!.from}-${planned.at(-1)!.to} in ${planned.length} ranges is under way: finish it (dexlake index --from ${planned[0]!.from} --to ${planned.at(-1)!.to} --workers ${planned.length}, or each --range i/${planned.length}) before following the chain`);
      }
      if (chain && config.relayPort !== 'off') {
        relay = await listenOn('relayPort', config.relayPort, config.host, (port) => startSolverRelay({ db, host: config.host, port }));
        logger.info({ url: `${relay.url}/rpc` }, 'solver relay listening');
      }
      // The realnet's JSON-RPC answers at any height indexed so far.
      let head = (await readCheckpoint(db.kysely))?.height ?? 0;
      if (chain && config.devnetRpcPort !== 'off') {
        const options = { seed: config.devnetSeed, ...(genesisMs !== undefined ? { genesisMs } : {}) };
        const rpcChain = realnetRpc(config.source.split(':')[1], options, () => Math.max(head, 1));
        devnetRpc = await listenOn('devnetRpcPort', config.devnetRpcPort, config.host, (port) => startNearRpc(rpcChain, { host: config.host, port }));
        logger.info({ url: devnetRpc.url }, 'devnet NEAR JSON-RPC listening');
      }
      const contracts = contractsOf(config.nearNetwork);
      if (head === 0 && config.from === undefined && config.nearRpcUrl !== undefined && /^(neardata|lake):/.test(config.source)) {
        // A mainnet quick start: an empty database begins with every DEX's state at the latest final block.
        const summary = await bootstrap({ db, rpcUrl: config.nearRpcUrl, contracts, signal, say: (line) => logger.info(line) });
        logger.info({ height: summary.height }, 'bootstrapped: following the chain from the next block');
      }
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
  checkSource(config);
  const { from, to } = config;
  const signal = stopSignal();
  const logger = processLogger('replay', config.logLevel);
  await withDatabase(config, async ({ url }) => {
    const db = connect(url);
    try {
      await refuseEmptyDatabase(db, 'replay');
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
  }, logger, { existing: 'replay' });
}

export async function rebuildCommand(config: Config): Promise<void> {
  const logger = processLogger('rebuild', config.logLevel);
  await withDatabase(config, async ({ url }) => {
    const db = connect(url);
    try {
      await refuseEmptyDatabase(db, 'rebuild');
      await migrateToLatest(db.kysely);
      const progress = createProgress({ logger, tty: process.stderr.isTTY ? process.stderr : undefined });
      const events = await rebuild(db, progress);
      progress.done();
      logger.info({ events }, 'rebuilt every projection from the event log');
    } finally {
      await db.close();
    }
  }, logger, { existing: 'rebuild' });
}
