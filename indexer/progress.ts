// Progress of long runs: a bar on a terminal (height, blocks/s, events/s, the source's blocks in flight, ETA), a log
// line every few seconds otherwise, and the same reading for the status port's gauges. Rates are over the whole run
// so far: steady, and honest about the average. The ETA is to --to, else to the head the source knows.
import type { Logger } from 'pino';
import type { BlockSource } from './sources/source.ts';

export interface Progress {
  update(height: number, blocks: number, events: number): void;
  /** The current reading. */
  line(): ProgressLine;
  done(): void;
}

export interface ProgressLine {
  height: number;
  blocks: number;
  events: number;
  blocks_per_s: number;
  events_per_s: number;
  /** The source's blocks requested and not answered yet, and its read-ahead window (network sources). */
  in_flight: number | undefined;
  read_ahead: number | undefined;
  /** The chain head the source knows. */
  head: number | undefined;
  /** Seconds to --to, else to the head, at the run's rate; unknown without either, or before any progress. */
  eta_s: number | undefined;
  /** Fraction of the way from the first height to --to (or the head). */
  done: number | undefined;
}

export function createProgress(options: {
  logger: Logger;
  from?: number;
  to?: number;
  source?: BlockSource;
  tty?: NodeJS.WriteStream;
  intervalMs?: number;
}): Progress {
  const { logger, to, tty, source } = options;
  const started = performance.now();
  const interval = options.intervalMs ?? 5_000;
  let firstHeight = options.from;
  let blocks = 0;
  let events = 0;
  let height = 0;
  let lastReport = started;

  const line = (): ProgressLine => {
    const seconds = Math.max((performance.now() - started) / 1000, 1e-3);
    const stats = source?.stats?.();
    const target = to ?? stats?.head;
    const heightRate = firstHeight !== undefined && height > firstHeight ? (height - firstHeight) / seconds : 0;
    const eta = target !== undefined && heightRate > 0 ? Math.max(0, (target - height) / heightRate) : undefined;
    const done =
      target !== undefined && firstHeight !== undefined && blocks > 0 ? Math.max(0, Math.min(1, (height - firstHeight + 1) / (target - firstHeight + 1))) : undefined;
    return {
      height,
      blocks,
      events,
      blocks_per_s: Math.round(blocks / seconds),
      events_per_s: Math.round(events / seconds),
      in_flight: stats?.inFlight,
      read_ahead: stats?.limit,
      head: stats?.head,
      eta_s: eta === undefined ? undefined : Math.round(eta),
      done,
    };
  };

  return {
    update(h, b, e) {
      firstHeight ??= h - b + 1;
      height = h;
      blocks += b;
      events += e;
      const now = performance.now();
      if (tty) {
        const l = line();
        const width = 30;
        const filled = l.done === undefined ? 0 : Math.round(l.done * width);
        const bar = l.done === undefined ? '' : `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] `;
        const inFlight = l.in_flight === undefined ? '' : `  ${l.in_flight} in flight (of ${l.read_ahead})`;
        const eta = l.eta_s === undefined ? '' : `  ETA ${l.eta_s}s`;
        tty.write(`\r${bar}height ${l.height}  ${l.blocks_per_s} blocks/s  ${l.events_per_s} events/s${inFlight}${eta}\x1b[K`);
      } else if (now - lastReport >= interval) {
        lastReport = now;
        logger.info(line(), 'progress');
      }
    },
    line,
    done() {
      if (tty) tty.write('\n');
      if (blocks) logger.info(line(), 'ingested');
    },
  };
}
