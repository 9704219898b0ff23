// The adaptive read-ahead of the network sources (indexer/sources/read-ahead.ts), against local servers: blocks come
// out in height order however the answers arrive and whatever fails on the way, the blocks held stay within the
// memory budget (bytes, not a count), and the window shrinks on 429s.
import { describe, it, expect, afterEach, beforeAll, afterAll } from 'vitest';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { normalizeStreamerMessage, type Block } from '../../near/block.ts';
import { createDecodePool, decodedBlocks } from '../../indexer/decode-pool.ts';
import { lakeSource } from '../../indexer/sources/lake.ts';
import { neardataSource } from '../../indexer/sources/neardata.ts';
import type { SourceErrorKind } from '../../indexer/sources/retry.ts';
import { drain, readMessage, relabel, within, type Message } from './helpers.ts';

const FIRST = 1000;
const FIXTURES = ['mainnet/34834052.json', 'mainnet/34834053.json', 'mainnet/70834061.json', 'testnet/120572296.json', 'testnet/190534818.json'];
const FAST_BACKOFF = { initialMs: 10, maxMs: 50 };

/**
 * What a request gets instead of its block, the first time(s) it is asked: a status, no answer, half the body, a
 * proxy's page, the body cut just after a `}` (its ends look whole: only the full parse finds it), another block.
 */
type Trouble = { status: number; headers?: Record<string, string> } | 'stall' | 'cut' | 'html' | 'brace' | 'other';

/** neardata's protocol over `count` real blocks re-labelled to FIRST.., with per-height delays and troubles. */
class Neardata {
  readonly texts = new Map<number, string>();
  readonly expected = new Map<number, Block>();
  /** Heights in the order their blocks were answered (200 with the block). */
  readonly answered: number[] = [];
  readonly asked = new Map<number, number>();
  inFlight = 0;
  maxInFlight = 0;
  delayMs: (height: number) => number = () => 0;
  trouble = new Map<number, Trouble[]>();
  url = '';
  private readonly server = http.createServer((req, res) => void this.answer(req, res));

  constructor(
    readonly count: number,
    padding = 0,
  ) {
    for (let h = FIRST; h < FIRST + count; h++) {
      const message = relabel(readMessage(FIXTURES[h % FIXTURES.length]!), h);
      // Padding (a member the normalizer ignores) makes blocks of a chosen size.
      this.texts.set(h, JSON.stringify(padding ? { ...message, padding: 'x'.repeat(padding) } : message));
      this.expected.set(h, normalizeStreamerMessage(message));
    }
  }

  get last(): number {
    return FIRST + this.count - 1;
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

  requests(): number {
    return [...this.asked.values()].reduce((a, b) => a + b, 0);
  }

  private async answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (req.url === '/v0/last_block/final') return void res.writeHead(302, { location: `/v0/block/${this.last}` }).end();
    const height = Number(/^\/v0\/block\/(\d+)$/.exec(req.url ?? '')?.[1]);
    this.asked.set(height, (this.asked.get(height) ?? 0) + 1);
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    res.on('close', () => this.inFlight--);
    await delay(this.delayMs(height));
    const trouble = this.trouble.get(height)?.shift();
    const text = this.texts.get(height)!;
    if (trouble === 'stall') return; // accepted, never answered
    if (trouble === 'cut') return void res.writeHead(200, { 'content-type': 'application/json' }).end(text.slice(0, text.length >> 1));
    if (trouble === 'html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
    if (trouble === 'brace') return void res.writeHead(200, { 'content-type': 'application/json' }).end(text.slice(0, text.lastIndexOf('}', text.length >> 1) + 1));
    if (trouble === 'other') return void res.writeHead(200, { 'content-type': 'application/json' }).end(this.texts.get(height === this.last ? FIRST : height + 1));
    if (trouble !== undefined) return void res.writeHead(trouble.status, trouble.headers).end('{"error":"on purpose"}');
    this.answered.push(height);
    res.writeHead(200, { 'content-type': 'application/json' }).end(text);
  }
}

/** Every failed attempt a source reports, by kind. */
function retryLog(): { kinds: SourceErrorKind[]; onRetry: (error: unknown, attempt: number, delayMs: number, kind: SourceErrorKind) => void } {
  const kinds: SourceErrorKind[] = [];
  return { kinds, onRetry: (_error, _attempt, _delayMs, kind) => void kinds.push(kind) };
}

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await delay(10);
  }
}

describe('read-ahead: neardata', () => {
  let server: Neardata | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('hands blocks over in height order while answers arrive out of order, some failing, stalling or cut short', async () => {
    server = await new Neardata(40).start();
    // Within each run of 5 heights the later ones answer first (80, 60, 40, 20, 0 ms).
    server.delayMs = (h) => (4 - ((h - FIRST) % 5)) * 20;
    server.trouble = new Map<number, Trouble[]>([
      [1003, [{ status: 500 }]],
      [1007, [{ status: 429, headers: { 'retry-after': '0' } }]],
      [1011, ['stall']],
      [1015, ['cut']],
      [1019, [{ status: 503 }, { status: 503 }]],
      [1023, ['html']],
      [1026, ['brace']],
      [1030, [{ status: 429 }]],
      [1034, ['other']],
    ]);
    const log = retryLog();
    const source = neardataSource(`neardata:${server.url}`, { backoff: FAST_BACKOFF, requestTimeoutMs: 300, onRetry: log.onRetry });

    const blocks = await within(drain(source.blocks({ from: FIRST, to: server.last }, new AbortController().signal)), 20_000, 'the range');

    expect(blocks.map((b) => b.height)).toEqual([...server.texts.keys()]);
    for (const block of blocks) expect(block).toEqual(server.expected.get(block.height));
    // The server did answer out of order: a later height before an earlier one.
    expect(server.answered).not.toEqual([...server.answered].sort((a, b) => a - b));
    expect(server.maxInFlight).toBeGreaterThanOrEqual(4);
    expect([...log.kinds].sort()).toEqual(['http_429', 'http_429', 'http_5xx', 'http_5xx', 'http_5xx', 'malformed', 'malformed', 'malformed', 'malformed', 'timeout']);
    expect(server.asked.get(1019)).toBe(3);
    // The answers whose ends looked whole were asked for again once the parse failed.
    expect([server.asked.get(1026), server.asked.get(1034)]).toEqual([2, 2]);
  });

  it('a block that does not parse on a decode worker is fetched again in its place', async () => {
    server = await new Neardata(12).start();
    server.trouble = new Map<number, Trouble[]>([
      [1003, ['brace']],
      [1008, ['other', 'brace']],
    ]);
    const log = retryLog();
    const source = neardataSource(`neardata:${server.url}`, { backoff: FAST_BACKOFF, onRetry: log.onRetry });
    const pool = createDecodePool(2);
    try {
      const blocks = await within(drain(decodedBlocks(source, { from: FIRST, to: server.last }, new AbortController().signal, pool)), 20_000, 'the range');
      expect(blocks.map((b) => [b.height, b.hash])).toEqual([...server.expected.values()].map((b) => [b.height, b.hash]));
      expect(log.kinds).toEqual(['malformed', 'malformed', 'malformed']);
      expect([server.asked.get(1003), server.asked.get(1008)]).toEqual([2, 3]);
    } finally {
      await pool.close();
    }
  });

  it('holds at most its memory budget in bytes: bigger blocks, fewer requested ahead of a consumer that waits', async () => {
    const requestedAhead = async (padding: number): Promise<{ requested: number; blockBytes: number; heldBytes: number }> => {
      const s = await new Neardata(60, padding).start();
      try {
        const budget = 1_000_000;
        const source = neardataSource(`neardata:${s.url}`, { readAhead: { floor: 4, ceiling: 64, budgetBytes: budget }, backoff: FAST_BACKOFF });
        const blocks = source.raw({ from: FIRST }, new AbortController().signal)[Symbol.asyncIterator]();
        await blocks.next(); // one taken, then the consumer waits
        // Until the requests stop: every answer in, none started since.
        let seen = -1;
        while (seen !== s.requests() || s.inFlight > 0) {
          seen = s.requests();
          await delay(200);
        }
        const stats = source.stats?.();
        await blocks.return?.();
        expect(stats?.heldBytes).toBeLessThanOrEqual(budget);
        return { requested: s.requests(), blockBytes: s.texts.get(FIRST)!.length, heldBytes: stats?.heldBytes ?? -1 };
      } finally {
        await s.stop();
      }
    };
    const small = await requestedAhead(90_000);
    const large = await requestedAhead(290_000);
    // About 100 kB and 300 kB blocks: the first taken, then at most what fits in 1 MB (the first 4, the floor,
    // go out before any size is known).
    expect(small.blockBytes).toBeGreaterThan(90_000);
    expect(small.requested).toBeLessThanOrEqual(1 + Math.max(4, Math.floor(1_000_000 / small.blockBytes)));
    expect(small.requested).toBeGreaterThanOrEqual(1 + Math.floor(1_000_000 / small.blockBytes) - 1);
    expect(large.requested).toBeLessThanOrEqual(1 + 4);
    expect(large.requested).toBeLessThan(small.requested);
  });

  it('doubles its window while answers come back as fast, and halves it on 429s down to the floor', async () => {
    server = await new Neardata(400).start();
    const s = server;
    s.delayMs = () => 100;
    const limits: number[] = [];
    const source = neardataSource(`neardata:${s.url}`, {
      backoff: FAST_BACKOFF,
      onRetry: () => void limits.push(source.stats!()!.limit),
    });
    const controller = new AbortController();
    const blocks = source.raw({ from: FIRST }, controller.signal)[Symbol.asyncIterator]();
    // Read until the server sees 16 requests at once: the window grew from the floor of 4.
    while (s.maxInFlight < 16 && ((await blocks.next()).value?.height ?? Infinity) < FIRST + 200);
    expect(s.maxInFlight).toBeGreaterThanOrEqual(16);
    // From here every request is refused with a 429 twice.
    for (let h = FIRST; h < FIRST + 400; h++) if (!s.asked.has(h)) s.trouble.set(h, [{ status: 429 }, { status: 429 }]);
    for (let i = 0; i < 40; i++) await blocks.next();
    // Once the requests started before the 429s are done, the server sees at most the floor at once.
    s.maxInFlight = 0;
    for (let i = 0; i < 40; i++) await blocks.next();
    controller.abort();
    await blocks.return?.();
    // The window after each 429 (halved, at most once per round of answers): down to the floor, never below.
    expect(limits.length).toBeGreaterThanOrEqual(80);
    expect(limits).toEqual([...limits].sort((a, b) => b - a));
    expect(limits.at(-1)).toBe(4);
    expect(s.maxInFlight).toBeLessThanOrEqual(4);
  });
});

describe('read-ahead: lake', () => {
  const BUCKET = 'read-ahead';
  const COUNT = 24;
  const pad = (h: number) => String(h).padStart(12, '0');
  let s3rver: S3rver;
  let dir = '';
  let endpoint = '';
  const expected = new Map<number, Block>();
  /**
   * Per object key: what its first GETs get instead: a status with an S3 error code, half of the object, the object
   * cut just after a `}` (its ends look whole), or the object of another key.
   */
  const trouble = new Map<string, Array<{ status: number; code: string } | 'cut' | 'brace' | { key: string }>>();
  const objects = new Map<string, string>();
  const answered: string[] = [];
  const savedEnv = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

  beforeAll(async () => {
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    dir = mkdtempSync(path.join(os.tmpdir(), 'dexlake-read-ahead-'));
    s3rver = new S3rver({ address: '127.0.0.1', port: 0, directory: dir, silent: true, configureBuckets: [{ name: BUCKET }] });
    // s3rver is a Koa app: in front of it, block.json of later heights answers sooner, and some objects fail first.
    type Ctx = { method: string; path: string; status: number; body: unknown; type: string };
    (s3rver as unknown as { middleware: Array<(ctx: Ctx, next: () => Promise<void>) => Promise<void>> }).middleware.unshift(async (ctx, next) => {
      if (ctx.method !== 'GET' || !ctx.path.includes('.json')) return next();
      const key = ctx.path.replace(`/${BUCKET}/`, '');
      const height = Number(key.slice(0, 12));
      if (key.endsWith('block.json')) await delay((3 - ((height - FIRST) % 4)) * 30);
      const instead = trouble.get(key)?.shift();
      if (typeof instead === 'object' && 'key' in instead) {
        ctx.type = 'application/json';
        ctx.body = objects.get(instead.key);
        return;
      }
      if (typeof instead === 'object') {
        ctx.status = instead.status;
        ctx.type = 'application/xml';
        ctx.body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${instead.code}</Code><Message>on purpose</Message></Error>`;
        return;
      }
      await next();
      if ((instead === 'cut' || instead === 'brace') && ctx.body instanceof Readable) {
        const whole = Buffer.concat(await ctx.body.toArray());
        ctx.body = whole.subarray(0, instead === 'cut' ? whole.length >> 1 : whole.lastIndexOf('}', whole.length >> 1) + 1);
        return;
      }
      answered.push(key);
    });
    const { port } = await s3rver.run();
    endpoint = `http://127.0.0.1:${port}`;
    const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true });
    // Real blocks whose block.json lists its chunks (shard ids sparse after resharding), re-labelled.
    const fixtures = ['mainnet/151768255.json', 'testnet/232952651.json', 'testnet/234187695.json'];
    for (let h = FIRST; h < FIRST + COUNT; h++) {
      const message: Message = relabel(readMessage(fixtures[h % fixtures.length]!), h);
      expected.set(h, normalizeStreamerMessage(message));
      await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${pad(h)}/block.json`, Body: JSON.stringify(message.block) }));
      for (const shard of message.shards) {
        const key = `${pad(h)}/shard_${String(shard.shard_id)}.json`;
        objects.set(key, JSON.stringify(shard));
        await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: objects.get(key) }));
      }
    }
    client.destroy();
  });

  afterAll(async () => {
    await s3rver?.close();
    rmSync(dir, { recursive: true, force: true });
    process.env.AWS_ACCESS_KEY_ID = savedEnv.id;
    process.env.AWS_SECRET_ACCESS_KEY = savedEnv.secret;
    if (savedEnv.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    if (savedEnv.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
  });

  it('hands blocks over in height order while objects arrive out of order, some throttled, failing, cut short or of another shard', async () => {
    trouble.set(`${pad(1002)}/block.json`, [{ status: 503, code: 'SlowDown' }]);
    trouble.set(`${pad(1005)}/block.json`, [{ status: 500, code: 'InternalError' }, { status: 500, code: 'InternalError' }]);
    trouble.set(`${pad(1009)}/block.json`, [{ status: 404, code: 'NoSuchKey' }]);
    trouble.set(`${pad(1013)}/block.json`, ['cut']);
    // Shard files whose ends look whole: the parse finds them, and the block is fetched again.
    trouble.set(`${pad(1017)}/shard_9.json`, ['brace']);
    trouble.set(`${pad(1021)}/shard_10.json`, [{ key: `${pad(1021)}/shard_11.json` }]);
    const log = retryLog();
    const source = lakeSource(`lake:s3://${BUCKET}?region=us-east-1&endpoint=${endpoint}`, { backoff: FAST_BACKOFF, onRetry: log.onRetry });
    const blocks = await within(drain(source.blocks({ from: FIRST, to: FIRST + COUNT - 1 }, new AbortController().signal)), 20_000, 'the range');

    expect(blocks.map((b) => b.height)).toEqual([...expected.keys()]);
    for (const block of blocks) expect(block).toEqual(expected.get(block.height));
    const blockJsons = answered.filter((k) => k.endsWith('block.json')).map((k) => Number(k.slice(0, 12)));
    expect(blockJsons).not.toEqual([...blockJsons].sort((a, b) => a - b));
    expect([...log.kinds].sort()).toEqual(['http_429', 'http_4xx', 'http_5xx', 'http_5xx', 'malformed', 'malformed', 'malformed']);
    expect(answered.filter((k) => k === `${pad(1017)}/block.json` || k === `${pad(1021)}/block.json`)).toHaveLength(4);
  });
});
