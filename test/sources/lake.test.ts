import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { normalizeStreamerMessage } from '../../near/block.ts';
import { lakeSource } from '../../indexer/sources/lake.ts';
import type { SourceErrorKind } from '../../indexer/sources/retry.ts';
import { drain, fixturePath, loadBlock, readMessage, relabel, within } from './helpers.ts';
import type { Message } from './helpers.ts';

const BUCKET = 'near-lake';
// Snake_case combined fixtures whose block lists its chunks, as Lake's block.json does; their shard ids are
// sparse after resharding ([0, 1, 8, 9, 6, 7, 4, 5], [10, 11, 1, ...]), so shard files are named by id, not index.
const COMBINED = [
  'mainnet/151768255.json',
  'testnet/190534818-alt.json',
  'testnet/232952651.json',
  'testnet/234187695.json',
];
const LAKE_FOLDER = 'localnet/lake-layout/000000879765';
const HEIGHTS = [879765, 151768255, 190534818, 232952651, 234187695];

const pad = (height: number): string => String(height).padStart(12, '0');

describe('lake: source', () => {
  let s3rver: S3rver;
  let client: S3Client;
  let dir = '';
  let spec = '';
  const savedEnv = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

  /** Writes a combined `{block, shards}` message into the bucket in Lake layout. */
  async function putMessage(message: Message): Promise<void> {
    const folder = pad((message.block.header as { height: number }).height);
    await put(`${folder}/block.json`, JSON.stringify(message.block));
    for (const shard of message.shards) {
      await put(`${folder}/shard_${String(shard.shard_id)}.json`, JSON.stringify(shard));
    }
  }

  async function put(key: string, body: string): Promise<void> {
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
  }

  beforeAll(async () => {
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    dir = mkdtempSync(path.join(os.tmpdir(), 'dexlake-s3rver-'));
    s3rver = new S3rver({
      address: '127.0.0.1',
      port: 0,
      directory: dir,
      silent: true,
      configureBuckets: [{ name: BUCKET }],
    });
    const { port } = await s3rver.run();
    const endpoint = `http://127.0.0.1:${port}`;
    spec = `lake:s3://${BUCKET}?region=us-east-1&endpoint=${endpoint}`;
    client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true });
    for (const rel of COMBINED) await putMessage(readMessage(rel));
    for (const file of readdirSync(fixturePath(LAKE_FOLDER))) {
      await put(`${pad(879765)}/${file}`, readFileSync(path.join(fixturePath(LAKE_FOLDER), file), 'utf8'));
    }
  });

  afterAll(async () => {
    client?.destroy();
    await s3rver?.close();
    rmSync(dir, { recursive: true, force: true });
    process.env.AWS_ACCESS_KEY_ID = savedEnv.id;
    process.env.AWS_SECRET_ACCESS_KEY = savedEnv.secret;
    if (savedEnv.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    if (savedEnv.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
  });

  it('streams the bucket in height order, each block equal to its fixture normalized directly', async () => {
    const source = lakeSource(spec);
    expect(source.sparse).toBe(false);
    const warnings: string[] = [];
    const onWarning = (w: Error): number => warnings.push(w.name);
    process.on('warning', onWarning);
    const all = drain(source.blocks({ from: 1, to: 234187695 }, new AbortController().signal));
    const blocks = await within(all, 20_000, 'the range').finally(() => process.off('warning', onWarning));
    // ~40 requests in flight share one abort signal: no "possible EventTarget memory leak" warning.
    expect(warnings.filter((w) => w === 'MaxListenersExceededWarning')).toEqual([]);
    expect(blocks.map((b) => b.height)).toEqual(HEIGHTS);
    expect(blocks[0]).toEqual(loadBlock(LAKE_FOLDER));
    for (const rel of COMBINED) {
      const expected = loadBlock(rel);
      expect(blocks.find((b) => b.height === expected.height)).toEqual(expected);
    }
  });

  it('stops after to, also when to is a height the bucket does not hold', async () => {
    const source = lakeSource(spec);
    const signal = new AbortController().signal;
    const exact = await within(drain(source.blocks({ from: 151768255, to: 190534818 }, signal)), 10_000, 'to a block');
    expect(exact.map((b) => b.height)).toEqual([151768255, 190534818]);
    const gap = await within(drain(source.blocks({ from: 1, to: 200_000_000 }, signal)), 10_000, 'to a gap');
    expect(gap.map((b) => b.height)).toEqual([879765, 151768255, 190534818]);
    expect(await within(drain(source.blocks({ from: 20, to: 10 }, signal)), 10_000, 'an empty range')).toEqual([]);
  });

  it('without from it starts at the newest block, follows new ones, and abort ends the wait', async () => {
    const controller = new AbortController();
    const blocks = lakeSource(spec, { pollMs: 200 }).blocks({}, controller.signal)[Symbol.asyncIterator]();
    expect((await within(blocks.next(), 10_000, 'the head block')).value?.height).toBe(234187695);

    // A block that appears later (a fixture re-labelled) is picked up by the next listing.
    const later = relabel(readMessage('testnet/232952651.json'), 234187700);
    const next = blocks.next();
    await delay(500);
    await putMessage(later);
    expect((await within(next, 10_000, 'the new block')).value).toEqual(normalizeStreamerMessage(later));

    const waiting = blocks.next();
    await delay(500);
    controller.abort();
    expect(await within(waiting, 2_000, 'the aborted iteration')).toEqual({ done: true, value: undefined });
  });

  it('an object that is not what its key says (block.json not JSON, another shard) is retried as malformed', async () => {
    const message = relabel(readMessage('testnet/232952651.json'), 234187710);
    const shard = message.shards[0]!;
    const blockKey = `${pad(234187710)}/block.json`;
    const shardKey = `${pad(234187710)}/shard_${String(shard.shard_id)}.json`;
    await putMessage(message);
    await put(blockKey, '{"author": "cut short'); // an interrupted upload
    const retries: { kind: SourceErrorKind; message: string }[] = [];
    let wake = (): void => {};
    const retriedOn = async (key: string): Promise<void> => {
      while (!retries.some((r) => r.message.startsWith(key))) await new Promise<void>((resolve) => (wake = resolve));
    };
    const source = lakeSource(spec, {
      backoff: { initialMs: 10, maxMs: 50 },
      onRetry: (error, _attempt, _delayMs, kind) => {
        retries.push({ kind, message: (error as Error).message });
        wake();
      },
    });
    const blocks = drain(source.blocks({ from: 234187710, to: 234187710 }, new AbortController().signal));

    await within(retriedOn(blockKey), 10_000, 'a retry of block.json');
    // Once block.json is right, the shard file holds another shard's content: retried too.
    await put(shardKey, JSON.stringify({ ...shard, shard_id: 99 }));
    await put(blockKey, JSON.stringify(message.block));
    // Its ends look whole: the parse finds it, and the block is fetched again.
    await within(retriedOn('block 234187710'), 10_000, 'a retry of the block');
    await put(shardKey, JSON.stringify(shard));

    expect(await within(blocks, 10_000, 'the block')).toEqual([normalizeStreamerMessage(message)]);
    const about = (key: string) => retries.filter((r) => r.message.startsWith(key));
    expect(about(blockKey)[0]).toEqual({ kind: 'malformed', message: expect.stringMatching(/^000234187710\/block\.json: not JSON \(.+; 21 bytes\)$/) });
    expect(about('block 234187710')[0]).toEqual({ kind: 'malformed', message: 'block 234187710: shard_10.json holds shard 99' });
    expect(new Set([...about(blockKey), ...about('block 234187710')].map((r) => r.kind))).toEqual(new Set(['malformed']));
    // Other retries may be s3rver's own errors when an object is read while being overwritten (S3 replaces objects
    // atomically): they name no key.
  });

  it('against a dead endpoint: no error, no spinning, no console output; abort ends it at once', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const printed = [vi.spyOn(console, 'error'), vi.spyOn(console, 'warn'), vi.spyOn(console, 'log')];
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    try {
      let attempts = 0;
      const controller = new AbortController();
      const dead = lakeSource(`lake:s3://${BUCKET}?region=us-east-1&endpoint=http://127.0.0.1:${port}`, {
        onRetry: () => attempts++,
      });
      const consumer = drain(dead.blocks({ from: 879765 }, controller.signal));
      await delay(2000);
      // Default backoff (250 ms doubling, jittered): a handful of attempts in 2 s, not thousands.
      expect(attempts).toBeGreaterThanOrEqual(2);
      expect(attempts).toBeLessThanOrEqual(8);
      controller.abort();
      expect(await within(consumer, 2_000, 'the aborted iteration')).toEqual([]);
      for (const spy of printed) expect(spy).not.toHaveBeenCalled();
      expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBeLessThanOrEqual(timersBefore);
    } finally {
      for (const spy of printed) spy.mockRestore();
    }
  });

  it('names the real buckets and rejects a spec it does not know', () => {
    expect(lakeSource('lake:mainnet').name).toBe('lake:s3://near-lake-data-mainnet');
    expect(lakeSource('lake:testnet').name).toBe('lake:s3://near-lake-data-testnet');
    expect(() => lakeSource('lake:devnet')).toThrow(/expected lake:mainnet, lake:testnet or lake:s3:\/\/BUCKET/);
  });
});
