import { describe, it, expect, afterEach } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { createDecodePool, decodedBlocks } from '../../indexer/decode-pool.ts';
import { normalizeStreamerMessage } from '../../near/block.ts';
import type { Block } from '../../near/block.ts';
import { neardataSource } from '../../indexer/sources/neardata.ts';
import type { NeardataOptions } from '../../indexer/sources/neardata.ts';
import { drain, readMessage, relabel, within } from './helpers.ts';

// A chain of heights 1000..1019 made of small real blocks re-labelled; the chain skipped 1003, 1006 and 1012.
const GENESIS = 1000;
const LAST = 1019;
const SKIPPED = new Set([1003, 1006, 1012]);
const FIXTURES = [
  'mainnet/34834052.json',
  'mainnet/34834053.json',
  'mainnet/70834061.json',
  'testnet/120572296.json',
  'testnet/190534818.json',
];

interface Failure {
  status: number;
  headers?: Record<string, string>;
}

/** A local server speaking neardata's protocol, with knobs to misbehave and a log of what it was asked. */
class FakeNeardata {
  head: number;
  /** 'redirect' like the real server (302 to /v0/block/{head}), or the head block itself. */
  headMode: 'redirect' | 'body' = 'redirect';
  /** Block requests from this height up are never answered. */
  hangFrom = Infinity;
  readonly failures = new Map<string, Failure[]>();
  readonly requests: { path: string; at: number }[] = [];
  /** Requests whose client went away before an answer. */
  cancelled = 0;
  /** Requests for heights above the head (the real server would hold them or answer 404). */
  beyondHead = 0;
  readonly texts = new Map<number, string>();
  /** Heights answered compressed, as a CDN in front of the server may (when the request accepts it). */
  readonly encodings = new Map<number, 'gzip' | 'br'>();
  /** The accept-encoding header of each block request. */
  readonly accepted: string[] = [];
  readonly expected = new Map<number, Block>();
  private readonly server: http.Server;
  url = '';

  constructor(head: number) {
    this.head = head;
    for (let h = GENESIS; h <= LAST; h++) {
      if (SKIPPED.has(h)) continue;
      const relabelled = relabel(readMessage(FIXTURES[h % FIXTURES.length] ?? ''), h);
      this.texts.set(h, JSON.stringify(relabelled));
      this.expected.set(h, normalizeStreamerMessage(relabelled));
    }
    this.server = http.createServer((req, res) => this.answer(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  count(path: string | RegExp): number {
    return this.requests.filter((r) => (typeof path === 'string' ? r.path === path : path.test(r.path))).length;
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = req.url ?? '';
    this.requests.push({ path, at: Date.now() });
    const failure = this.failures.get(path)?.shift();
    if (failure !== undefined) {
      res.writeHead(failure.status, { 'content-type': 'application/json', ...failure.headers });
      res.end(JSON.stringify('failing on purpose'));
      return;
    }
    if (path === '/v0/last_block/final') {
      if (this.headMode === 'redirect') {
        res.writeHead(302, { location: `/v0/block/${this.head}` }).end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(this.texts.get(this.head));
      }
      return;
    }
    const height = Number(/^\/v0\/block\/(\d+)$/.exec(path)?.[1] ?? NaN);
    if (!Number.isInteger(height)) {
      res.writeHead(404).end();
    } else if (height < GENESIS) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'Block height is before the genesis', type: 'BLOCK_HEIGHT_TOO_LOW' }));
    } else if (height > this.head) {
      this.beyondHead++;
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'The block is too far in the future', type: 'BLOCK_DOES_NOT_EXIST' }));
    } else if (height >= this.hangFrom) {
      res.on('close', () => this.cancelled++);
    } else {
      const text = this.texts.get(height) ?? 'null';
      const accepts = String(req.headers['accept-encoding'] ?? '');
      this.accepted.push(accepts);
      const encoding = this.encodings.get(height);
      if (encoding === undefined || !accepts.includes(encoding)) return void res.writeHead(200, { 'content-type': 'application/json' }).end(text);
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
      res.end(encoding === 'gzip' ? gzipSync(text) : brotliCompressSync(text));
    }
  }
}

const FAST_BACKOFF: NeardataOptions = { backoff: { initialMs: 20, maxMs: 200 } };

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await delay(10);
  if (!condition()) throw new Error(`gave up waiting for ${what}`);
}

describe('neardata: source', () => {
  let server: FakeNeardata | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('catches up a range in order, skips null heights, retries 500, 503 and 429 (honouring Retry-After)', async () => {
    server = await new FakeNeardata(1009).start();
    server.failures.set('/v0/last_block/final', [{ status: 500 }]);
    server.failures.set('/v0/block/1001', [{ status: 500 }, { status: 503 }]);
    server.failures.set('/v0/block/1002', [{ status: 429, headers: { 'retry-after': '1' } }]);
    server.failures.set('/v0/block/1004', [{ status: 429 }]);
    const retries: number[] = [];
    const onRetry = (_error: unknown, _attempt: number, delayMs: number): number => retries.push(delayMs);
    const source = neardataSource(`neardata:${server.url}`, { ...FAST_BACKOFF, onRetry });
    expect(source.sparse).toBe(false);

    const blocks = await drain(source.blocks({ from: 1000, to: 1009 }, new AbortController().signal));

    expect(blocks.map((b) => b.height)).toEqual([1000, 1001, 1002, 1004, 1005, 1007, 1008, 1009]);
    for (const block of blocks) expect(block).toEqual(server.expected.get(block.height));
    expect(server.count('/v0/block/1001')).toBe(3);
    expect(server.count('/v0/block/1002')).toBe(2);
    expect(server.count('/v0/block/1004')).toBe(2);
    expect(server.count('/v0/block/1003')).toBe(1);
    expect(retries).toHaveLength(5);
    expect(retries.filter((ms) => ms === 1000)).toHaveLength(1); // Retry-After: 1, not the 20 ms backoff
    const [refused, retried] = server.requests.filter((r) => r.path === '/v0/block/1002');
    expect((retried?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect(server.beyondHead).toBe(0);
  });

  it('reads answers compressed with gzip or brotli, the same on a decode worker as on this thread', async () => {
    server = await new FakeNeardata(1009).start();
    for (const h of [1000, 1002, 1005]) server.encodings.set(h, 'gzip');
    for (const h of [1001, 1003, 1008]) server.encodings.set(h, 'br'); // 1003 is a skipped height: a compressed null
    server.texts.set(1007, `  \n${server.texts.get(1007)}\n`); // whitespace around the object is still JSON
    const source = neardataSource(`neardata:${server.url}`, FAST_BACKOFF);
    const signal = new AbortController().signal;

    const blocks = await drain(source.blocks({ from: 1000, to: 1009 }, signal));
    expect(blocks.map((b) => b.height)).toEqual([1000, 1001, 1002, 1004, 1005, 1007, 1008, 1009]);
    for (const block of blocks) expect(block).toEqual(server.expected.get(block.height));
    expect(new Set(server.accepted)).toEqual(new Set(['gzip, br']));

    // The bodies move to the worker (transferred, not copied): it decodes what the calling thread decodes.
    const [worker, inline] = [createDecodePool(1), createDecodePool(0)];
    try {
      const onWorker = await drain(decodedBlocks(source, { from: 1000, to: 1009 }, signal, worker));
      const onThisThread = await drain(decodedBlocks(source, { from: 1000, to: 1009 }, signal, inline));
      expect(onWorker.map((b) => b.height)).toEqual([1000, 1001, 1002, 1004, 1005, 1007, 1008, 1009]);
      expect(onWorker).toEqual(onThisThread);
    } finally {
      await worker.close();
    }
  });

  it('without from it starts at the final head, read from the redirect or from the block itself', async () => {
    server = await new FakeNeardata(1005).start();
    const source = neardataSource('neardata:mainnet', { ...FAST_BACKOFF, baseUrl: server.url });
    expect((await drain(source.blocks({}, new AbortController().signal), 1)).map((b) => b.height)).toEqual([1005]);
    server.headMode = 'body';
    server.head = 1007;
    expect((await drain(source.blocks({}, new AbortController().signal), 1)).map((b) => b.height)).toEqual([1007]);
  });

  it('follows an advancing head, polling it about once per block time', async () => {
    server = await new FakeNeardata(1001).start();
    const s = server;
    const advance = setInterval(() => {
      if (s.head < LAST) s.head++;
    }, 250);
    try {
      const source = neardataSource(`neardata:${s.url}/`, FAST_BACKOFF);
      const blocks = await drain(source.blocks({ from: 1000, to: 1010 }, new AbortController().signal));
      expect(blocks.map((b) => b.height)).toEqual([1000, 1001, 1002, 1004, 1005, 1007, 1008, 1009, 1010]);
    } finally {
      clearInterval(advance);
    }
    // ~2.3 s of waiting for 9 new heights: a poll per ~700 ms, not a request per millisecond.
    expect(s.count('/v0/last_block/final')).toBeLessThanOrEqual(8);
    for (let h = 1000; h <= 1010; h++) expect(s.count(`/v0/block/${h}`)).toBe(1);
    expect(s.count('/v0/block/1011')).toBe(0);
    expect(s.beyondHead).toBe(0);
  });

  it('waits for a future height with a handful of head polls; abort ends the wait at once', async () => {
    server = await new FakeNeardata(1009).start();
    const controller = new AbortController();
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const source = neardataSource(`neardata:${server.url}`, FAST_BACKOFF);
    const consumer = drain(source.blocks({ from: 1015 }, controller.signal));

    await delay(2000);
    const polls = server.count('/v0/last_block/final');
    expect(polls).toBeGreaterThanOrEqual(2);
    expect(polls).toBeLessThanOrEqual(6);
    expect(server.count(/^\/v0\/block\//)).toBe(0);

    controller.abort();
    expect(await within(consumer, 2000, 'the aborted iteration')).toEqual([]);
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBeLessThanOrEqual(timersBefore);
  });

  it('starts with 4 requests in flight (the floor), grows none while none is answered, and abort cancels them', async () => {
    server = await new FakeNeardata(1019).start();
    server.hangFrom = 0;
    const s = server;
    const controller = new AbortController();
    const consumer = drain(neardataSource(`neardata:${s.url}`, FAST_BACKOFF).blocks({ from: 1000 }, controller.signal));
    await until(() => s.count(/^\/v0\/block\//) === 4, '4 block requests');
    await delay(200);
    expect(s.count(/^\/v0\/block\//)).toBe(4);

    controller.abort();
    expect(await within(consumer, 2000, 'the aborted iteration')).toEqual([]);
    await until(() => s.cancelled === 4, 'the server to see 4 requests cancelled');
  });

  it('stopping the iteration early cancels the read-ahead too', async () => {
    server = await new FakeNeardata(1019).start();
    server.hangFrom = 1001;
    const s = server;
    const controller = new AbortController();
    const source = neardataSource(`neardata:${s.url}`, FAST_BACKOFF);
    const blocks = source.blocks({ from: 1000 }, controller.signal)[Symbol.asyncIterator]();
    expect((await blocks.next()).value?.height).toBe(1000);
    // 1000's answer freed its place in the window: 1001..1004 are in flight.
    await until(() => s.count(/^\/v0\/block\//) === 5, '1001..1004 requested');
    await blocks.return?.(); // what `break` in a for-await loop does
    await until(() => s.cancelled === 4, 'the server to see 1001..1004 cancelled');
    expect(controller.signal.aborted).toBe(false);
  });

  it('an answer that retrying cannot change (404 below genesis) ends the iteration with an error', async () => {
    server = await new FakeNeardata(1009).start();
    const source = neardataSource(`neardata:${server.url}`, FAST_BACKOFF);
    await expect(drain(source.blocks({ from: 990 }, new AbortController().signal))).rejects.toThrow(
      /\/v0\/block\/990: HTTP 404 .*BLOCK_HEIGHT_TOO_LOW/,
    );
  });

  it('rejects a spec it does not know', () => {
    expect(() => neardataSource('neardata:devnet')).toThrow(/expected neardata:mainnet, neardata:testnet/);
    expect(neardataSource('neardata:testnet').name).toBe('neardata:https://testnet.neardata.xyz');
  });
});
