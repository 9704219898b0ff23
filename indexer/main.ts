// The indexer's run loop: follow the configured block source until stopped (the schema is migrated by then). A
// database that goes away (a restart, a crash) is waited out: each batch is one transaction with its checkpoint,
// so ingestion simply resumes after the last committed block once the server answers again.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import type { DexContracts } from '../dexes/contracts.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { ingest } from './pipeline.ts';
import { createProgress } from './progress.ts';
import { openSource } from './sources/index.ts';
import type { SourceObserver } from './sources/retry.ts';
import type { UndecodedCount } from './projections/undecoded.ts';
import { rpcMetadata } from './token-metadata.ts';

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
  devnet?: { seed: string; speed: number };
  /** The network's DEX contracts (default: mainnet's). */
  contracts?: DexContracts;
}

export async function runIndexer(options: IndexerOptions): Promise<void> {
  const { db, logger, signal } = options;
  const observer = options.sourceObserver;
  const source = await openSource(options.source, {
    devnet: options.devnet,
    onRetry: (error, attempt, delayMs, kind) => {
      logger.warn({ err: error instanceof Error ? error.message : String(error), kind, attempt, retry_ms: delayMs }, 'block source: retrying');
      observer?.onRetry?.(error, attempt, delayMs, kind);
    },
    onSettled: (succeeded) => observer?.onSettled?.(succeeded),
  });
  logger.info({ source: source.name, from: options.from ?? 'the checkpoint, else where the source starts', to: options.to }, 'indexing');
  const progress = createProgress({ logger, from: options.from, to: options.to, tty: process.stderr.isTTY ? process.stderr : undefined });
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
