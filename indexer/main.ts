// The indexer's run loop: follow the configured block source until stopped (the schema is migrated by then).
import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';

export interface IndexerOptions {
  db: Db;
  source: string;
  from?: number;
  to?: number;
  logger: Logger;
  signal: AbortSignal;
  onHeight?: (height: number) => void;
}

export async function runIndexer(options: IndexerOptions): Promise<void> {
  const { logger, signal } = options;
  // Block sources arrive with the ingestion issue; until then the indexer stays up and idle.
  logger.warn({ source: options.source }, 'no block source is implemented yet: idle until stopped');
  await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}
