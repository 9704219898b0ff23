// Reads on a real streaming replica (DATABASE_READ_URL): the api's answers come from the standby and equal the
// primary's; after a notification for height H nothing is answered or pushed from a standby that has not replayed H
// (replay paused, then resumed); one still behind after the wait bound, or stopped, is left out (reads fall back to
// the primary) and taken back once caught up; /health and /metrics show each replica's lag; with the primary stopped,
// reads keep coming from the standby. The chain is the realnet's (tokens/harness.ts).
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../api/server.ts';
import type { ReadsStatus } from '../api/replicas.ts';
import { connect } from '../db/connect.ts';
import { sql } from '../db/kysely.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { ingest } from '../indexer/pipeline.ts';
import { startReplicatedPostgres } from './harness/replica.ts';
import { realnet } from './harness/realnet.ts';
import { ingestTo, SEED, SocketClient, type Message } from './tokens/harness.ts';

const { primary, standby } = await startReplicatedPostgres();
const db = connect(primary.url);
afterAll(() => db.close());
const standbyName = `127.0.0.1:${standby.port}/dexlake`;

/** The api on the standby: a read waits as long as it takes for the standby to replay a notification. */
let app: FastifyInstance;
/** The api on the primary alone, for the expected answers. */
let direct: FastifyInstance;
let wsUrl: string;
const clients: SocketClient[] = [];

beforeAll(async () => {
  await migrateToLatest(db.kysely);
  await ingestTo(db, 150);
  await standby.caughtUp();
  app = await buildServer({ db, logLevel: 'silent', readUrls: [standby.url], replicaWaitMs: 600_000 });
  direct = await buildServer({ db, logLevel: 'silent' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as { port: number };
  wsUrl = `ws://127.0.0.1:${address.port}/ws`;
}, 180_000);
afterAll(async () => {
  for (const client of clients) client.close();
  await app?.close();
  await direct?.close();
});

const URLS = ['/tokens?limit=20', '/trades?limit=20', '/holders?token=wrap.near&limit=20', '/transfers?limit=20', '/candles?token=wrap.near&resolution=1m&count_back=20'];

const body = async (server: FastifyInstance, url: string): Promise<Message> => {
  const res = await server.inject({ url });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return JSON.parse(res.body) as Message;
};
const health = async (): Promise<{ status: number; body: Message & { reads: ReadsStatus } }> => {
  const res = await app.inject({ url: '/health' });
  return { status: res.statusCode, body: JSON.parse(res.body) };
};
const replica = async () => (await health()).body.reads.replicas[0]!;
const metrics = async () => (await app.inject({ url: '/metrics' })).body;
const metric = (text: string, name: string, label: string) => Number(text.match(new RegExp(`^${name}\\{${label}\\} (\\S+)$`, 'm'))?.[1]);
const reads = async (server: string) => metric(await metrics(), 'dexlake_api_reads', `server="${server}"`);

/** ingestTo, written as one batch: one notification, at `to`. */
const ingestInOneBatch = (to: number) =>
  ingest({ db, source: realnet(SEED), to, signal: new AbortController().signal, workers: 0, limits: { maxBlocks: 1_000, maxEvents: 1e9, idleMs: 600_000 } });

async function until<T>(what: string, get: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  for (let tries = 0; ; tries++) {
    const value = await get();
    if (ok(value)) return value;
    if (tries > 1_500) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('reads on a streaming replica', () => {
  it('answers read from the standby equal the primary\'s', async () => {
    for (const url of URLS) expect(await body(app, url), url).toEqual(await body(direct, url));
    // Every read went to the standby (the LISTEN and the position queries are the primary's own connections).
    expect(await reads(standbyName)).toBeGreaterThan(0);
    expect(await reads('primary')).toBe(0);
    expect(await replica()).toMatchObject({ name: standbyName, state: 'ok', lag_blocks: 0 });
  });

  it('after a notification for H, neither an answer nor a push comes from a standby that has not replayed H', async () => {
    const client = await SocketClient.open(wsUrl);
    clients.push(client);
    await client.next(); // hello
    const params = { fields: ['price_height'], sort: { by: 'price_height', desc: true }, limit: 3 };
    const subscribed = await client.request('tokens.subscribe', params, 1);
    expect(subscribed.result.height).toBe(150);
    const top = (subscribed.result.rows as unknown[][])[0]!;

    // A change the api is not told of (no NOTIFY), replayed by the standby before it pauses: the paused standby's
    // table then differs from what the subscriber holds, so a read from it before it replays 180 would be pushed
    // (at height 150), not silently equal.
    await sql`update token_market set price_height = 0 where token = ${String(top[0])}`.execute(db.kysely);
    await standby.caughtUp();
    await standby.pauseReplay();
    await ingestInOneBatch(180);
    // The api has heard of block 180 and taken the primary's position then: it waits for the standby to reach it.
    await until('the api to hear of block 180', health, (h) => h.body.reads.notified?.height === 180);
    // Meanwhile /health and /metrics report the standby's lag (they probe it; they do not wait for it).
    const behind = await replica();
    expect(behind.state).toBe('ok');
    expect(behind.lag_blocks).toBe(30);
    expect(behind.lag_bytes).toBeGreaterThan(0);
    const text = await metrics();
    expect(metric(text, 'dexlake_api_replica_lag_blocks', `replica="${standbyName}"`)).toBe(30);
    expect(metric(text, 'dexlake_api_replica_lag_bytes', `replica="${standbyName}"`)).toBeGreaterThan(0);
    expect(metric(text, 'dexlake_api_replica_in_use', `replica="${standbyName}"`)).toBe(1);
    // A request made now: the paused standby would answer it at 150.
    const answer = body(app, '/tokens?fields=price_height&sort=-price_height&limit=3');

    await standby.resumeReplay();
    // The sentinel: 180's push must come once the standby has replayed it. Socket messages arrive in order, so a
    // push read from the paused standby (height 150) would be received before it.
    const first = await client.next();
    expect(first.height, `the first push after block 180 is 180's, nothing read from the paused standby: ${JSON.stringify(first)}`).toBe(180);
    // It carries the new blocks' data: the subscriber's view ends equal to the primary's table at 180.
    const view = new Map((subscribed.result.rows as unknown[][]).map((row) => [String(row[0]), row[1]]));
    for (const [token, fields] of Object.entries(first.set ?? {})) view.set(token, (fields as Message).price_height);
    for (const token of first.left ?? []) view.delete(token);
    const expected = await body(direct, '/tokens?fields=price_height&sort=-price_height&limit=3');
    expect([...view].sort()).toEqual((expected.rows as unknown[][]).map((row) => [String(row[0]), row[1]]).sort());
    expect((await answer).height).toBe(180);
    expect(await answer).toEqual(expected);
    expect(await until('the lag to clear', replica, (r) => r.lag_blocks === 0)).toMatchObject({ state: 'ok' });
  });

  it('a standby still behind after the wait bound is left out (reads go to the primary) until it has caught up', async () => {
    // A second api whose reads wait 100 ms at most: replay stays paused until the bound has passed.
    const impatient = await buildServer({ db, logLevel: 'silent', readUrls: [standby.url], replicaWaitMs: 100 });
    try {
      const status = async () => JSON.parse((await impatient.inject({ url: '/health' })).body).reads as ReadsStatus;
      await until('the standby to be in use', status, (s) => s.replicas[0]!.state === 'ok');
      await standby.pauseReplay();
      await ingestTo(db, 185);
      await until('the api to hear of block 185', status, (s) => s.notified?.height === 185);
      // Answered from the primary once the bound has passed, at 185; the standby is then left out.
      expect((await body(impatient, '/tokens?limit=1')).height).toBe(185);
      expect((await status()).replicas[0]).toMatchObject({ state: 'behind', lag_blocks: 5 });
      await standby.resumeReplay();
      await until('the standby to be taken back', status, (s) => s.replicas[0]!.state === 'ok');
      expect((await status()).replicas[0]!.lag_blocks).toBe(0);
    } finally {
      await impatient.close();
    }
  });

  it('a stopped standby is left out (reads go to the primary) and taken back when it returns', async () => {
    await standby.stop();
    const primaryReads = await reads('primary');
    for (const url of URLS) expect(await body(app, url), url).toEqual(await body(direct, url));
    expect(await reads('primary')).toBeGreaterThan(primaryReads);
    expect(await replica()).toMatchObject({ state: 'down', lag_bytes: null, lag_blocks: null });
    expect(metric(await metrics(), 'dexlake_api_replica_in_use', `replica="${standbyName}"`)).toBe(0);

    await ingestTo(db, 190); // written while it is away: it must catch up before it is taken back
    await standby.start();
    await until('the standby to be taken back', replica, (r) => r.state === 'ok');
    const [standbyBefore, primaryBefore] = [await reads(standbyName), await reads('primary')];
    for (const url of URLS) expect(await body(app, url), url).toEqual(await body(direct, url));
    expect((await body(app, '/tokens?limit=1')).height).toBe(190);
    expect(await reads(standbyName)).toBeGreaterThan(standbyBefore);
    expect(await reads('primary')).toBe(primaryBefore);
  });

  it('with the primary stopped, reads keep coming from the standby and /health says so', async () => {
    const before = await body(app, URLS[0]!);
    await primary.stop();
    expect(await body(app, URLS[0]!)).toEqual(before);
    const { status, body: h } = await health();
    expect(status, JSON.stringify(h)).toBe(200);
    expect(h).toMatchObject({ db: 'ok', height: 190, reads: { primary: 'down', replicas: [{ name: standbyName, state: 'ok' }] } });
  });
});
