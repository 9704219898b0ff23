// Progress a user can plan with: the progress line and the indexer's status port show blocks/s, the network source's
// blocks in flight and an ETA (to --to, else to the head the source knows), here over a local neardata server.
import { Writable } from 'node:stream';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { realnetMarket } from '../devnet/realnet/wasm.ts';
import { runIndexer } from '../indexer/main.ts';
import { createProgress } from '../indexer/progress.ts';
import { neardataSource } from '../indexer/sources/neardata.ts';
import { startStatusServer } from '../indexer/status-server.ts';
import { createMigratedDb } from './harness/db.ts';

/** neardata's protocol over the realnet's first blocks, each answered after `delayMs` (or never, with `hang`: then
 * only the head is said, and no block is made). */
async function neardata(count: number, delayMs: number, hang = false): Promise<{ url: string; close: () => Promise<void> }> {
  const market = realnetMarket(undefined, { seed: 'progress', history: false, models: true });
  const texts = new Map<number, string>();
  for (let h = 1; h <= count && !hang; h++) texts.set(h, JSON.stringify(market.next()));
  const server = http.createServer(async (req, res) => {
    if (req.url === '/v0/last_block/final') return void res.writeHead(302, { location: `/v0/block/${count}` }).end();
    if (hang) return;
    await delay(delayMs);
    const text = texts.get(Number(/^\/v0\/block\/(\d+)$/.exec(req.url ?? '')?.[1]));
    res.writeHead(text === undefined ? 404 : 200, { 'content-type': 'application/json' }).end(text ?? '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** One sample of Prometheus text (NaN when absent or unknown). */
function metric(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? NaN : Number(line.slice(name.length + 1));
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('progress of a network source', () => {
  it('the terminal line shows the blocks in flight and an ETA to the head the source knows', async () => {
    const server = await neardata(1000, 0, true);
    cleanups.push(server.close);
    const source = neardataSource(`neardata:${server.url}`);
    const controller = new AbortController();
    cleanups.push(async () => controller.abort());
    // Started reading from 1: four requests (the floor) go out, and none is answered.
    const reading = source.raw({ from: 1 }, controller.signal)[Symbol.asyncIterator]().next();
    reading.catch(() => {});
    while ((source.stats?.()?.inFlight ?? 0) < 4) await delay(10);

    let text = '';
    const tty = new Writable({ write: (chunk, _encoding, done) => ((text += chunk), done()) });
    const progress = createProgress({ logger: pino({ level: 'silent' }), from: 1, source, tty: tty as unknown as NodeJS.WriteStream });
    await delay(20);
    progress.update(10, 10, 100);
    // 10 of 1,000 blocks (the head): the bar, and an ETA for the other 990 at the rate so far.
    expect(text).toMatch(/^\r\[\.{30}\] height 10 {2}\d+ blocks\/s {2}\d+ events\/s {2}4 in flight \(of 4\) {2}ETA \d+s/);
    expect(progress.line()).toMatchObject({ height: 10, in_flight: 4, read_ahead: 4, head: 1000, done: 0.01 });
  });

  it("the indexer's status port has them as gauges while it runs, and in /health", { timeout: 120_000 }, async () => {
    const server = await neardata(300, 100);
    cleanups.push(server.close);
    const db = await createMigratedDb();
    const status = await startStatusServer(0, '127.0.0.1');
    cleanups.push(status.close);
    const run = runIndexer({
      db,
      source: `neardata:${server.url}`,
      from: 1,
      logger: pino({ level: 'silent' }),
      signal: new AbortController().signal,
      to: 300,
      // At most 8 blocks per 100 ms: a run of about 4 s, long enough to look at.
      readAhead: { ceiling: 8, budgetBytes: 2 ** 26 },
      watchProgress: status.watchProgress,
      onBulkLoad: status.setBulkLoad,
    });
    let ended = false;
    void run.then(
      () => (ended = true),
      () => (ended = true),
    );
    const url = `http://127.0.0.1:${status.port}`;
    // A reading taken while blocks are on their way: requests in flight, a rate, and an ETA to --to.
    let sample: { inFlight: number; window: number; rate: number; eta: number; head: number; missing: number } | undefined;
    while (sample === undefined) {
      if (ended) await run; // a failed run shows its error; one that ended without a sample fails below
      expect(ended, 'the run ended before a sample with blocks in flight').toBe(false);
      const text = await (await fetch(`${url}/metrics`)).text();
      const read = (name: string) => metric(text, `dexlake_indexer_${name}`);
      const s = { inFlight: read('source_in_flight'), window: read('source_read_ahead'), rate: read('blocks_per_second'), eta: read('eta_seconds'), head: read('head_height'), missing: read('indexes_missing') };
      if (s.inFlight > 0 && s.rate > 0 && Number.isFinite(s.eta)) sample = s;
      else await delay(5);
    }
    expect(sample.window).toBeGreaterThanOrEqual(4);
    expect(sample.window).toBeLessThanOrEqual(8);
    expect(sample.inFlight).toBeLessThanOrEqual(sample.window);
    expect(sample.head).toBe(300);
    expect(sample.missing).toBe(0);
    await run;
    const health = (await (await fetch(`${url}/health`)).json()) as { progress: Record<string, number>; bulk_load: unknown };
    expect(health.progress).toMatchObject({ head: 300, eta_s: 0, in_flight: 0 });
    expect(health.progress.blocks_per_s).toBeGreaterThan(0);
    expect(health.bulk_load).toBeNull();
  });
});
