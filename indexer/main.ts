// The indexer's run loop: follow the configured block source until stopped (the schema is migrated by then). A
// database that goes away (a restart, a crash) is waited out: each batch is one transaction with its checkpoint,
// so ingestion simply resumes after the last committed block once the server answers again.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import type { DexContracts } from '../dexes/contracts.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { ingest, type BulkLoadState } from './pipeline.ts';
import { createProgress, type ProgressLine } from './progress.ts';
import { openSource } from './sources/index.ts';
import { DEFAULT_READ_AHEAD } from './sources/read-ahead.ts';
import type { SourceObserver } from './sources/retry.ts';
import type { UndecodedCount } from './projections/undecoded.ts';
import { rpcMetadata } from './token-metadata.ts';
import { rebuild, rebuildsAsked } from './replay.ts';

const MIN_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

export interface IndexerOptions {
  db: Db;
  source: string;
  from?: number;
  to?: number;
  logger: Logger;
  signal: AbortSignal;
  onHeight?: (height: number) => void;
  /** Told of each committed batch's undecoded inputs, per DEX and kind. */
  onUndecoded?: (counts: readonly UndecodedCount[]) => void;
  /** Told of the block source's retries and recoveries (the status port); each retry is also logged. */
  sourceObserver?: SourceObserver;
  /** NEAR JSON-RPC for `ft_metadata` of tokens the chain has not described in the log. */
  rpcUrl?: string;
  /** The devnet's seed, pace and genesis (none: the fixed one); sources/index.ts. */
  devnet?: { seed: string; speed: number; genesisMs?: number | undefined };
  /** The network's DEX contracts (default: mainnet's). */
  contracts?: DexContracts;
  /** The neardata and lake read-ahead's ceiling (blocks) and memory budget (bytes); the floor is 4. */
  readAhead?: { ceiling: number; budgetBytes: number };
  /** Bulk-load mode's distance to the head in blocks (pipeline.ts); 0 or none: off. */
  bulkLoadDistance?: number;
  /** Told of the indexes bulk-load mode dropped or built (the status port); each change is also logged. */
  onBulkLoad?: (state: BulkLoadState) => void;
  /** Given the progress line's reading (rates, in flight, ETA), for the status port's gauges. */
  watchProgress?: (line: () => ProgressLine) => void;
}

export async function runIndexer(options: IndexerOptions): Promise<void> {
  const { db, logger, signal } = options;
  const observer = options.sourceObserver;
  const source = await openSource(options.source, {
    devnet: options.devnet,
    readAhead: options.readAhead && { ...DEFAULT_READ_AHEAD, ...options.readAhead },
    onRetry: (error, attempt, delayMs, kind) => {
      logger.warn({ err: error instanceof Error ? error.message : String(error), kind, attempt, retry_ms: delayMs }, 'block source: retrying');
      observer?.onRetry?.(error, attempt, delayMs, kind);
    },
    onSettled: (succeeded) => observer?.onSettled?.(succeeded),
  });
  const reasons = await rebuildsAsked(db);
  if (reasons.length) {
    logger.info({ reasons }, 'rebuilding the projections from the event log, as a migration asked');
    const events = await rebuild(db);
    logger.info({ events }, 'projections rebuilt');
  }
  logger.info({ source: source.name, from: options.from ?? 'the checkpoint, else where the source starts', to: options.to }, 'indexing');
  const progress = createProgress({ logger, from: options.from, to: options.to, source, tty: process.stderr.isTTY ? process.stderr : undefined });
  options.watchProgress?.(() => progress.line());
  const distance = options.bulkLoadDistance ?? 0;
  const enrich = options.rpcUrl ? rpcMetadata(db, options.rpcUrl, logger, signal) : undefined;
  const total = { blocks: 0, events: 0, height: undefined as number | undefined };
  let from = options.from;
  for (let failures = 0; ; ) {
    try {
      await ingest({
        db,
        source,
        from,
        to: options.to,
        contracts: options.contracts,
        signal,
        progress,
        enrich,
        bulkLoad: distance > 0 ? { distance } : undefined,
        onBulkLoad: (state) => {
          const { change, missing, ms } = state;
          if (change === 'built') logger.info({ ms: Math.round(ms) }, 'bulk-load mode over: indexes built');
          else logger.info({ missing, ms: Math.round(ms), distance }, `bulk-load mode: indexes ${change === 'dropped' ? 'dropped' : 'still missing'} until within the distance of the head (the api is slower where one is missing)`);
          options.onBulkLoad?.(state);
        },
        onBatch: (height, blocks, events, undecoded) => {
          failures = 0;
          total.height = height;
          total.blocks += blocks;
          total.events += events;
          // Once a batch is in, the checkpoint is where to resume, not the --from given at start.
          from = undefined;
          options.onHeight?.(height);
          if (undecoded.length) {
            options.onUndecoded?.(undecoded);
            for (const { dex, kind, count } of undecoded) logger.warn({ dex, kind, count, height }, 'undecoded input kept (dexlake undecoded lists it)');
          }
        },
      });
      break;
    } catch (err) {
      if (signal.aborted || !isDatabaseUnavailable(err)) throw err;
      const retryMs = Math.min(MAX_RETRY_MS, MIN_RETRY_MS * 2 ** failures++);
      logger.warn({ err: (err as Error).message, retry_ms: retryMs }, 'database unavailable: resuming from the checkpoint when it answers');
      await sleep(retryMs, undefined, { signal }).catch(() => {});
      if (signal.aborted) break;
    }
  }
  progress.done();
  logger.info({ ...total }, signal.aborted ? 'stopped' : 'source ended');
}
