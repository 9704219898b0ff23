// The indexer's run loop: follow the configured block source until stopped (the schema is migrated by then).
import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import { ingest } from './pipeline.ts';
import { createProgress } from './progress.ts';
import { openSource } from './sources/index.ts';
import { readCheckpoint } from './store.ts';
import { rpcMetadata } from './token-metadata.ts';

export interface IndexerOptions {
  db: Db;
  source: string;
  from?: number;
  to?: number;
  logger: Logger;
  signal: AbortSignal;
  onHeight?: (height: number) => void;
  /** NEAR JSON-RPC for `ft_metadata` of tokens the chain has not described in the log. */
  rpcUrl?: string;
  devnet?: { seed: string; speed: number };
}

export async function runIndexer(options: IndexerOptions): Promise<void> {
  const { db, logger, signal } = options;
  const source = await openSource(options.source, { devnet: options.devnet });
  const checkpoint = await readCheckpoint(db.kysely);
  const from = options.from ?? (checkpoint ? checkpoint.height + 1 : undefined);
  logger.info({ source: source.name, from: from ?? 'where the source starts', to: options.to, resuming: options.from === undefined && checkpoint !== undefined }, 'indexing');
  const progress = createProgress({ logger, from: options.from, to: options.to, tty: process.stderr.isTTY ? process.stderr : undefined });
  const enrich = options.rpcUrl ? rpcMetadata(db, options.rpcUrl, logger, signal) : undefined;
  const result = await ingest({ db, source, from: options.from, to: options.to, signal, progress, enrich, onBatch: options.onHeight });
  progress.done();
  logger.info({ ...result }, signal.aborted ? 'stopped' : 'source ended');
}
