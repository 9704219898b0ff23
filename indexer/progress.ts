// Progress of long runs: a bar on a terminal (height, blocks/s, events/s, ETA), a log line every few seconds
// otherwise. Rates are over the whole run so far: steady, and honest about the average.
import type { Logger } from 'pino';

export interface Progress {
  update(height: number, blocks: number, events: number): void;
  done(): void;
}

export function createProgress(options: { logger: Logger; from?: number; to?: number; tty?: NodeJS.WriteStream; intervalMs?: number }): Progress {
  const { logger, to, tty } = options;
  const started = performance.now();
  const interval = options.intervalMs ?? 5_000;
  let firstHeight = options.from;
  let blocks = 0;
  let events = 0;
  let height = 0;
  let lastReport = started;

  const line = () => {
    const seconds = Math.max((performance.now() - started) / 1000, 1e-3);
    const blockRate = blocks / seconds;
    const heightRate = firstHeight !== undefined && height > firstHeight ? (height - firstHeight) / seconds : 0;
    const eta = to !== undefined && heightRate > 0 ? Math.max(0, (to - height) / heightRate) : undefined;
    const done = to !== undefined && firstHeight !== undefined ? Math.min(1, (height - firstHeight + 1) / (to - firstHeight + 1)) : undefined;
    return { height, blocks, events, blocks_per_s: Math.round(blockRate), events_per_s: Math.round(events / seconds), eta_s: eta === undefined ? undefined : Math.round(eta), done };
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
        tty.write(`\r${bar}height ${l.height}  ${l.blocks_per_s} blocks/s  ${l.events_per_s} events/s${l.eta_s === undefined ? '' : `  ETA ${l.eta_s}s`}\x1b[K`);
      } else if (now - lastReport >= interval) {
        lastReport = now;
        logger.info(line(), 'progress');
      }
    },
    done() {
      if (tty) tty.write('\n');
      if (blocks) logger.info(line(), 'ingested');
    },
  };
}
