// `dexlake index --from A --to B --workers N` and `--range i/N`: the parallel backfill (indexer/backfill.ts). With
// --workers, this process plans the split, runs each range as a `dexlake index --range i/N` child of its own (a
// process, so each has its own event loop and decode threads), and merges once all have exited; with --range it is
// one of those workers, on this machine or another that shares the PostgreSQL.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import { contractsOf } from '../dexes/contracts.ts';
import { ingestRange, mergeBackfill, parseRangeSpec, planBackfill, readRanges, splitRange } from '../indexer/backfill.ts';
import { rebuild, rebuildsAsked } from '../indexer/replay.ts';
import { createProgress } from '../indexer/progress.ts';
import { openSource } from '../indexer/sources/index.ts';
import { DEFAULT_READ_AHEAD } from '../indexer/sources/read-ahead.ts';
import { ConfigError, configEnv, type Config } from './config.ts';

const BIN = fileURLToPath(new URL('../bin/dexlake.js', import.meta.url));

/** Refuses what a backfill cannot do before anything starts (exit 2). */
export function checkBackfill(config: Config): { from: number; to: number } {
  if (config.workers !== undefined && config.range !== undefined) throw new ConfigError('--workers runs every range itself: give --workers N or --range i/N, not both');
  if (config.from === undefined || config.to === undefined) throw new ConfigError(`${config.workers !== undefined ? '--workers' : '--range'} needs --from and --to`);
  if (config.range !== undefined) {
    try {
      parseRangeSpec(config.range);
    } catch (error) {
      throw new ConfigError((error as Error).message);
    }
  }
  const parts = config.workers ?? parseRangeSpec(config.range!).parts;
  if (parts > config.to - config.from + 1) throw new ConfigError(`${parts} ranges of ${config.to - config.from + 1} heights: expected at most one range a height`);
  return { from: config.from, to: config.to };
}

export async function backfill(config: Config, db: Db, url: string, logger: Logger, signal: AbortSignal, genesisMs: number | undefined): Promise<void> {
  const { from, to } = checkBackfill(config);
  const contracts = contractsOf(config.nearNetwork);
  // The merge adds to projections that must hold the log below the split: a rebuild a migration asked for comes
  // first (before any range writes, which a rebuild would fold without their merge).
  if ((await rebuildsAsked(db)).length && !(await readRanges(db)).length) {
    logger.info({ events: await rebuild(db) }, 'projections rebuilt, as a migration asked');
  }
  if (config.range !== undefined) {
    const { index, parts } = parseRangeSpec(config.range);
    const ranges = splitRange(from, to, parts);
    await planBackfill(db, ranges);
    const range = ranges[index - 1]!;
    const source = await openSource(config.source, {
      devnet: { seed: config.devnetSeed, speed: 0, genesisMs },
      readAhead: { ...DEFAULT_READ_AHEAD, ceiling: config.readAhead, budgetBytes: config.readAheadMb * 2 ** 20 },
    });
    const log = logger.child({ range: config.range });
    log.info({ from: range.from, to: range.to, source: source.name }, 'backfill: ingesting a range');
    const progress = createProgress({ logger: log, from: range.from, to: range.to, source });
    const result = await ingestRange({ db, source, range, signal, progress, contracts, onBatch: (height) => log.debug({ height }, 'backfill: batch committed') });
    progress.done();
    if (signal.aborted) return void log.info(result, 'backfill: stopped; the same command resumes the range after its checkpoint');
    log.info(result, 'backfill: range done');
  } else {
    const ranges = splitRange(from, to, config.workers!);
    await planBackfill(db, ranges);
    // Each child is told the database this process uses (an embedded one included) and every setting as resolved.
    // The status port stays this process's.
    const env: NodeJS.ProcessEnv = { ...process.env, ...configEnv(config), DATABASE_URL: url, DEXLAKE_WORKERS: '', INDEXER_PORT: '0' };
    const children = ranges.map((_, i) => {
      const child = spawn(process.execPath, [BIN, 'index'], { env: { ...env, DEXLAKE_RANGE: `${i + 1}/${ranges.length}` }, stdio: ['ignore', 'inherit', 'inherit'] });
      return { child, exited: new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))) };
    });
    logger.info({ ranges, pids: children.map((c) => c.child.pid) }, 'backfill: a worker process a range');
    const stop = () => children.forEach((c) => c.child.kill('SIGTERM'));
    signal.addEventListener('abort', stop, { once: true });
    const codes = await Promise.all(children.map((c) => c.exited));
    signal.removeEventListener('abort', stop);
    const failed = codes.flatMap((code, i) => (code === 0 ? [] : [`${i + 1}/${ranges.length} (exit ${code})`]));
    if (failed.length) throw new Error(`backfill: range ${failed.join(', ')} failed; the same command resumes each range after its checkpoint`);
    if (signal.aborted) return;
  }
  const started = performance.now();
  const merged = await mergeBackfill({ db, contracts, signal, progress: createProgress({ logger, from, to }) });
  if (merged.merged) logger.info({ blocks: merged.blocks, events: merged.events, height: merged.height, ms: Math.round(performance.now() - started) }, 'backfill: merged into the tables');
  else if (merged.waiting.length) logger.info({ waiting: merged.waiting.map((r) => `${r.from}-${r.to}`) }, 'backfill: ranges still to do; the last to finish merges');
  else if (signal.aborted) logger.info('backfill: merge stopped; the same command goes on with it');
}
