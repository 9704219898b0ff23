// The real `dexlake index`, `replay` and `rebuild` commands end to end, each against a fresh test database: from
// NEAR Lake (a local s3rver holding real blocks in the Lake layout) and from the fixture files (resume, replay,
// rebuild).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Db } from '../db/connect.ts';
import { normalizeStreamerMessage } from '../near/block.ts';
import { decodeEvents } from '../indexer/decode.ts';
import { runDexlake } from './harness/cli.ts';
import { createTestDatabase, tableChecksums } from './harness/db.ts';
import { FIXTURES_DIR } from './harness/fixtures.ts';
import { readMessage, type Message } from './sources/helpers.ts';

const MAINNET = path.join(FIXTURES_DIR, 'mainnet');

/** Runs `dexlake ARGS` to its end (killed, and failing the test, if it is still running after `ms`). */
async function dexlake(args: string[], env: Record<string, string | undefined>, ms = 60_000): Promise<{ code: number | null; output: string }> {
  // Settings the caller's environment might hold must not leak in: only what the test passes counts.
  const running = runDexlake(args, { LOG_LEVEL: 'info', DEXLAKE_SOURCE: undefined, DEXLAKE_FROM: undefined, DEXLAKE_TO: undefined, ...env });
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      running.child.kill('SIGKILL');
      reject(new Error(`dexlake ${args.join(' ')}: still running after ${ms} ms:\n${running.output()}`));
    }, ms);
  });
  try {
    const { code } = await Promise.race([running.exited, hang]);
    return { code, output: running.output() };
  } finally {
    clearTimeout(timer);
  }
}

/** The JSON log line with this `msg` (pino writes one JSON object per line). */
function logLine(output: string, msg: string): Record<string, unknown> | undefined {
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    const parsed = JSON.parse(line) as Record<string, unknown>;
    if (parsed.msg === msg) return parsed;
  }
  return undefined;
}

async function rows<T>(db: Db, sql: string): Promise<T[]> {
  return (await db.pool.query(sql)).rows as T[];
}

const count = async (db: Db, sql: string): Promise<number> => (await rows<{ n: number }>(db, sql))[0]!.n;

/** A database for one test's `dexlake` runs, and a connection to look into it. */
async function freshDatabase(): Promise<{ url: string; db: Db }> {
  const { url } = await createTestDatabase();
  const db = connect(url);
  afterAll(() => db.close());
  return { url, db };
}

describe('dexlake index from NEAR Lake (s3rver)', () => {
  const BUCKET = 'near-lake';
  // 70834059 -> 70834061 is a stretch of the real chain (70834061's prev_hash is 70834059's hash; the chain skipped
  // 70834060). 70834059 has 2 EVENT_JSON logs, one of them a usn ft_transfer; 70834061 has no chunk at all.
  const FROM = 70834059;
  const TO = 70834061;
  // Blocks outside the range, before and after it, that must not be indexed.
  const FILES = ['mainnet/34834053.json', 'mainnet/70834059.json', 'mainnet/70834061.json', 'mainnet/71771951.json'];
  const IN_RANGE = ['mainnet/70834059.json', 'mainnet/70834061.json'];
  const pad = (height: number): string => String(height).padStart(12, '0');

  let s3rver: S3rver;
  let dir = '';
  let spec = '';

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dexlake-cli-s3rver-'));
    s3rver = new S3rver({ address: '127.0.0.1', port: 0, directory: dir, silent: true, configureBuckets: [{ name: BUCKET }] });
    const { port } = await s3rver.run();
    const endpoint = `http://127.0.0.1:${port}`;
    spec = `lake:s3://${BUCKET}?region=us-east-1&endpoint=${endpoint}`;
    const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    const put = (key: string, body: unknown) => client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: JSON.stringify(body) }));
    try {
      for (const rel of FILES) {
        // The Lake layout: `<height>/block.json`, listing one chunk per shard, and `shard_<id>.json` for each. These
        // old combined messages do not carry the block's chunk list, so it is rebuilt from their shards.
        const { block, shards } = readMessage(rel);
        const height = (block.header as { height: number }).height;
        const chunks = shards.map((s) => (s.chunk as { header?: unknown } | null)?.header ?? { shard_id: s.shard_id });
        await put(`${pad(height)}/block.json`, { ...block, chunks: block.chunks ?? chunks });
        for (const shard of shards) await put(`${pad(height)}/shard_${String(shard.shard_id)}.json`, shard);
      }
    } finally {
      client.destroy();
    }
  });

  afterAll(async () => {
    await s3rver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('index --from --to reads the range into blocks, events, projections and the checkpoint', { timeout: 120_000 }, async () => {
    const { url, db } = await freshDatabase();
    const messages: Message[] = IN_RANGE.map(readMessage);
    const blocks = messages.map(normalizeStreamerMessage);
    const expectedEvents = blocks.reduce((n, b) => n + decodeEvents(b).length, 0);

    const { code, output } = await dexlake(['index', '--source', spec, '--from', String(FROM), '--to', String(TO)], {
      DATABASE_URL: url,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    });

    expect(code, output).toBe(0);
    expect(logLine(output, 'source ended')).toMatchObject({ blocks: 2, events: expectedEvents, height: TO });
    expect(await rows(db, 'select height::int, hash, prev_hash, gap_before::int from blocks order by height')).toEqual([
      { height: FROM, hash: blocks[0]!.hash, prev_hash: blocks[0]!.prevHash, gap_before: 0 },
      { height: TO, hash: blocks[1]!.hash, prev_hash: blocks[0]!.hash, gap_before: 1 },
    ]);
    expect(await rows(db, 'select name, height::int, hash from checkpoints')).toEqual([{ name: 'indexer', height: TO, hash: blocks[1]!.hash }]);

    // The log holds every event the two blocks decode to, all of 70834059 (70834061 has no chunk).
    expect(expectedEvents).toBeGreaterThan(0);
    expect(await count(db, 'select count(*)::int as n from events')).toBe(expectedEvents);
    expect(await count(db, `select count(*)::int as n from events where block_height <> ${FROM}`)).toBe(0);
    // The usn EVENT_JSON of 70834059: {"event":"ft_transfer","data":[{"old_owner_id":"v2.ref-finance.near",
    // "new_owner_id":"apql.near","amount":"96544865136169607564059"}]}, projected into transfers and balances.
    expect(await rows(db, `select block_height::int, sender, receiver, amount::text from transfers where token = 'usn'`)).toEqual([
      { block_height: FROM, sender: 'v2.ref-finance.near', receiver: 'apql.near', amount: '96544865136169607564059' },
    ]);
    expect(await rows(db, `select account, balance::text from balances where token = 'usn' order by account`)).toEqual([
      { account: 'apql.near', balance: '96544865136169607564059' },
      { account: 'v2.ref-finance.near', balance: '-96544865136169607564059' },
    ]);
    // One transfer row per token movement event (NEAR gas refunds from `system` excluded), as ingestion projects them.
    expect(await count(db, 'select count(*)::int as n from transfers')).toBe(
      await count(db, `select count(*)::int as n from events where kind in ('ft_transfer','ft_mint','ft_burn') or (kind = 'near_transfer' and not (payload->>'refund')::bool)`),
    );
  });

  it('index refuses a bucket whose next block does not continue the checkpoint: exit 1, nothing written', { timeout: 120_000 }, async () => {
    const { url, db } = await freshDatabase();
    const env = { DATABASE_URL: url, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
    const first = await dexlake(['index', '--source', spec, '--from', '34834053', '--to', '34834053'], env);
    expect(first.code, first.output).toBe(0);
    const before = await tableChecksums(db);
    const [checkpoint] = await rows<{ hash: string }>(db, 'select hash from checkpoints');

    // Resuming after 34834053, the bucket's next block is 70834059, whose parent is not 34834053.
    const { code, output } = await dexlake(['index', '--source', spec, '--to', String(TO)], env);

    expect(code, output).toBe(1);
    const next = normalizeStreamerMessage(readMessage('mainnet/70834059.json'));
    expect(output).toContain(`dexlake: block ${FROM} (${next.hash}) has prev_hash ${next.prevHash}, but the last indexed block 34834053 has hash ${checkpoint!.hash}`);
    expect(output).toMatch(/dexlake replay.*--from/);
    expect(await tableChecksums(db)).toEqual(before);
  });
});

describe('dexlake index, replay and rebuild from the fixture files', () => {
  const source = `files:${MAINNET}`;
  const FIRST_TO = 89402026;
  const heights = readdirSync(MAINNET)
    .map((name) => /^(\d+)\.json(?:\.gz)?$/.exec(name)?.[1])
    .filter((h) => h !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  const head = heights.at(-1)!;
  const firstRun = heights.filter((h) => h <= FIRST_TO).length;

  let url = '';
  let db: Db;
  let indexed: Record<string, string>;

  beforeAll(async () => {
    ({ url, db } = await freshDatabase());
  });

  it('index --to stops at the height; a second index resumes after its checkpoint', { timeout: 120_000 }, async () => {
    const first = await dexlake(['index', '--source', source, '--to', String(FIRST_TO)], { DATABASE_URL: url });
    expect(first.code, first.output).toBe(0);
    expect(logLine(first.output, 'source ended')).toMatchObject({ blocks: firstRun, height: FIRST_TO });
    expect(await rows(db, 'select height::int from checkpoints')).toEqual([{ height: FIRST_TO }]);
    expect(await count(db, 'select count(*)::int as n from blocks')).toBe(firstRun);
    expect(await count(db, `select count(*)::int as n from blocks where height > ${FIRST_TO}`)).toBe(0);

    const second = await dexlake(['index', '--source', source], { DATABASE_URL: url });
    expect(second.code, second.output).toBe(0);
    // It read only the blocks above the checkpoint: the run's own count says so, and the log has each block once.
    const eventsAbove = await count(db, `select count(*)::int as n from events where block_height > ${FIRST_TO}`);
    expect(logLine(second.output, 'source ended')).toMatchObject({ blocks: heights.length - firstRun, events: eventsAbove, height: head });
    expect(await rows(db, 'select height::int from blocks order by height')).toEqual(heights.map((height) => ({ height })));
    expect(await rows(db, 'select name, height::int from checkpoints')).toEqual([{ name: 'indexer', height: head }]);
    expect(await count(db, 'select count(*)::int as n from transfers')).toBeGreaterThan(0);
    indexed = await tableChecksums(db);
  });

  it('replay --from --to, twice, leaves every table as indexing left it', { timeout: 120_000 }, async () => {
    expect(indexed, 'needs the index test before it').toBeDefined();
    const from = 82654651;
    const to = 114081912;
    const inRange = heights.filter((h) => h >= from && h <= to).length;
    for (let i = 0; i < 2; i++) {
      const { code, output } = await dexlake(['replay', '--source', source, '--from', String(from), '--to', String(to)], { DATABASE_URL: url });
      expect(code, output).toBe(0);
      expect(logLine(output, 'replayed')).toMatchObject({ blocks: inRange, from, to });
      expect(await tableChecksums(db)).toEqual(indexed);
    }
  });

  it('rebuild leaves every table as indexing left it', { timeout: 120_000 }, async () => {
    expect(indexed, 'needs the index test before it').toBeDefined();
    const { code, output } = await dexlake(['rebuild'], { DATABASE_URL: url });
    expect(code, output).toBe(0);
    expect(logLine(output, 'rebuilt every projection from the event log')).toMatchObject({
      events: await count(db, 'select count(*)::int as n from events'),
    });
    expect(await tableChecksums(db)).toEqual(indexed);
  });

  it('replay without --from and --to exits non-zero with a clear message, changing nothing', { timeout: 120_000 }, async () => {
    expect(indexed, 'needs the index test before it').toBeDefined();
    for (const args of [[], ['--from', '82654651'], ['--to', '114081912']]) {
      const { code, output } = await dexlake(['replay', '--source', source, ...args], { DATABASE_URL: url });
      expect(code, output).not.toBe(0);
      expect(output).toContain('dexlake: replay needs --from and --to');
    }
    expect(await tableChecksums(db)).toEqual(indexed);
  });
});

describe('dexlake index on the realnet with a genesis', () => {
  it('stamps block h at genesis + (h - 1) s, keeps that genesis when none is given, and refuses another', { timeout: 120_000 }, async () => {
    const { url, db } = await freshDatabase();
    const env = { DATABASE_URL: url, DEXLAKE_SOURCE: 'realnet', DEXLAKE_DEVNET_SPEED: '0', DEXLAKE_RELAY_PORT: 'off', DEXLAKE_DEVNET_RPC_PORT: 'off' };
    const genesis = Date.UTC(2026, 2, 1);
    const first = await dexlake(['index', '--devnet-genesis', '2026-03-01T00:00:00Z', '--to', '5'], env);
    expect(first.code, first.output).toBe(0);
    expect(logLine(first.output, 'realnet genesis')).toMatchObject({ genesis: '2026-03-01T00:00:00.000Z' });
    // Unset, the genesis is the one the database's chain has.
    const second = await dexlake(['index', '--to', '8'], env);
    expect(second.code, second.output).toBe(0);
    const stamps = [1, 2, 3, 4, 5, 6, 7, 8].map((height) => ({ height, timestamp_ms: genesis + (height - 1) * 1000 }));
    expect(await rows(db, 'select height::int, timestamp_ms::float8 as timestamp_ms from blocks order by height')).toEqual(stamps);

    const other = await dexlake(['index', '--devnet-genesis', '2026-01-01T00:00:00Z', '--to', '10'], env);
    expect(other.code).not.toBe(0);
    expect(other.output).toContain('the database holds a realnet chain with genesis 2026-03-01T00:00:00.000Z');
    expect(await count(db, 'select count(*)::int as n from blocks where height > 8')).toBe(0);
  });
});
