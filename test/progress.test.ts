// Progress of long runs: a bar on a terminal, a structured log line every few seconds otherwise.
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createProgress } from '../indexer/progress.ts';

function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({ write: (chunk, _enc, done) => ((text += chunk), done()) });
  return { stream, text: () => text };
}

describe('progress', () => {
  it('draws a bar with height, rates and ETA on a terminal', () => {
    const tty = sink();
    const progress = createProgress({ logger: pino({ level: 'silent' }), from: 100, to: 199, tty: tty.stream as unknown as NodeJS.WriteStream });
    progress.update(149, 50, 500);
    expect(tty.text()).toMatch(/^\r\[#{15}\.{15}\] height 149 {2}\d+ blocks\/s {2}\d+ events\/s {2}ETA \d+s/);
    progress.done();
    expect(tty.text().endsWith('\n')).toBe(true);
  });

  it('logs a line at most every interval otherwise, and a summary at the end', () => {
    const log = sink();
    const progress = createProgress({ logger: pino({ level: 'info' }, log.stream), intervalMs: 0 });
    progress.update(10, 10, 30);
    progress.update(20, 10, 70);
    progress.done();
    const lines = log.text().trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.msg)).toEqual(['progress', 'progress', 'ingested']);
    expect(lines[1]).toMatchObject({ height: 20, blocks: 20, events: 100 });
    expect(lines[2]).toMatchObject({ height: 20, blocks: 20, events: 100 });

    const quiet = sink();
    const slow = createProgress({ logger: pino({ level: 'info' }, quiet.stream), intervalMs: 60_000 });
    slow.update(1, 1, 1);
    expect(quiet.text()).toBe('');
  });
});
