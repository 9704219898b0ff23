// Slow socket consumers (issue #7, point 3). 200 raw TCP clients complete the WebSocket upgrade, subscribe and then
// never read, 100 on /ws and 100 on /route/subscribe, while realnet blocks are ingested into the api's database so
// pushes keep coming. The api runs as its own process (`dexlake serve`), so its memory is measured alone, from its
// /metrics, before, during and after. Proven: every /ws client pushed past the kernel's buffers and
// LIMITS.max_buffered_bytes is cut off (the server lets go of its connection and the client finds the stream's end),
// the api's resident memory stays under a stated bound, and a reading client on each socket keeps getting pushes.
// The /route/subscribe cut-off is proven in-process (second test): over loopback its few-KiB pushes would take far
// longer than this suite to get through the kernel's megabytes. About 65 s on a busy 2-core machine.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../api/server.ts';
import { LIMITS } from '../../api/tokens/limits.ts';
import { freePort } from '../../db/embedded.ts';
import { ingest } from '../../indexer/pipeline.ts';
import { realnetSource } from '../../indexer/sources/realnet.ts';
import { runDexlake, waitForOk, type Running } from '../harness/cli.ts';
import { createMigratedDb } from '../harness/db.ts';

const SEED = 'hostile';
const db = await createMigratedDb();
let api: Running;
let port: number;

beforeAll(async () => {
  await ingest({ db, source: realnetSource({ seed: SEED, speed: 0 }), to: 100, signal: new AbortController().signal, workers: 0 });
  port = await freePort();
  api = runDexlake(['serve'], { DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
  await waitForOk(`http://127.0.0.1:${port}/health`, api);
}, 120_000);
afterAll(async () => {
  api?.child.kill('SIGTERM');
  await api?.exited;
});

/** A masked client text frame (RFC 6455 5.2). */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  const length = payload.length;
  const header = length < 126 ? Buffer.from([0x81, 0x80 | length]) : length < 65536 ? Buffer.from([0x81, 0x80 | 126, length >> 8, length & 255]) : undefined;
  if (!header) throw new Error('frame too long for this helper');
  for (let i = 0; i < length; i++) payload[i]! ^= mask[i % 4]!;
  return Buffer.concat([header, mask, payload]);
}

/** A raw TCP client that completes the WebSocket upgrade on `path`. */
async function upgrade(path: string): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  let head = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      if (!head.startsWith('HTTP/1.1 101')) reject(new Error(`upgrade refused: ${head.split('\r\n')[0]}`));
      else resolve();
    };
    socket.on('data', onData);
  });
  return socket;
}

/** Kernel socket queues of TCP connections to or from `port`, from /proc/net/tcp (hex fields). */
function tcpQueues(serverPort: number) {
  const rows = readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1).filter(Boolean);
  const out: { local: number; remote: number; state: number; tx: number; rx: number }[] = [];
  for (const row of rows) {
    const f = row.trim().split(/\s+/);
    const local = parseInt(f[1]!.split(':')[1]!, 16);
    const remote = parseInt(f[2]!.split(':')[1]!, 16);
    if (local !== serverPort && remote !== serverPort) continue;
    const [tx, rx] = f[4]!.split(':').map((h) => parseInt(h, 16));
    out.push({ local, remote, state: parseInt(f[3]!, 16), tx: tx!, rx: rx! });
  }
  return out;
}

interface Memory {
  rss: number;
  heap: number;
  external: number;
}

async function metrics(): Promise<Memory> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^dexlake_api_${name} (\\S+)`, 'm').exec(text)?.[1]);
  return { rss: value('process_resident_memory_bytes'), heap: value('nodejs_heap_size_used_bytes'), external: value('nodejs_external_memory_bytes') };
}

const MiB = 1024 * 1024;
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
const show = (m: Memory) => `rss ${mib(m.rss)}, heap used ${mib(m.heap)}, external ${mib(m.external)}`;

const SLOW_PER_SOCKET = 100;
const ALL_FIELDS = ['symbol', 'name', 'decimals', 'icon_hash', 'price_usd', 'liquidity_usd', 'price_change_24h', 'volume_usd_24h', 'reputation', 'total_supply', 'holders', 'created_height', 'price_height'];
/** Every token with every field: the largest table, and so the largest pushes. */
const SUBSCRIBE_PARAMS = { fields: ALL_FIELDS, limit: LIMITS.max_limit };
const routeQuery = (trader: string) =>
  new URLSearchParams({ token_in: 'near', token_out: 'usdt.tether-token.near', amount_in: '1000000000000000000000000', max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.005', trader_account_id: trader }).toString();
/**
 * What a client that does not read must be sent before the server sees it: the kernel's buffers on loopback (the
 * server's send buffer grows up to net.ipv4.tcp_wmem's maximum, 4 MiB here, about 3.7 MiB on average in our runs; the
 * client's receive buffer about 128 KiB) and then LIMITS.max_buffered_bytes in the server's own queue. 12 MiB is
 * well past both: without the cut-off, at least 7.8 MiB of it per client would wait in the api's memory.
 */
const PAST_THE_KERNEL = 12 * MiB;

/** The connections the server still holds open to these client ports (its side of each, from the kernel). */
function serverHeld(clientPorts: ReadonlySet<number>): number {
  return tcpQueues(port).filter((q) => q.local === port && clientPorts.has(q.remote) && q.state === TCP_ESTABLISHED).length;
}
const TCP_ESTABLISHED = 1;

/** Bytes the kernel holds unsent on the server's side of these connections. */
function serverKernelQueued(clientPorts: ReadonlySet<number>): number {
  return tcpQueues(port)
    .filter((q) => q.local === port && clientPorts.has(q.remote))
    .reduce((sum, q) => sum + q.tx, 0);
}

/** Reads a paused socket to its end; resolves with the bytes it held, or rejects after `ms`. */
function drainToEnd(socket: net.Socket, ms: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    const timer = setTimeout(() => reject(new Error(`socket ${socket.localPort} not closed by the server within ${ms} ms`)), ms);
    socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(bytes);
    });
    socket.resume();
  });
}

const height = async () => Number((await db.pool.query('select max(height) as h from blocks')).rows[0].h);

describe('clients that never read', () => {
  it(`${2 * SLOW_PER_SOCKET} of them: those past the limit are cut off, the api's memory stays bounded, readers keep getting pushes`, async () => {
    const before = await metrics();
    console.log(`api before: ${show(before)}`);

    // Blocks keep coming: one block per batch, so one NOTIFY (and one round of pushes) per block, 2 a second (each
    // block also makes the api recompute the schema answers asked below: faster, that would be most of its work).
    const stopIngest = new AbortController();
    const ingesting = ingest({ db, source: realnetSource({ seed: SEED, speed: 2 }), signal: stopIngest.signal, workers: 0, limits: { maxBlocks: 1 } });
    const slow: net.Socket[] = [];
    try {
      // The reading clients: one per socket, connected throughout.
      const reader = new WebSocket(`ws://127.0.0.1:${port}/ws`);
      const tokenPushes: { at: number; height: number }[] = [];
      reader.on('message', (data) => {
        const message = JSON.parse(data.toString());
        if (message.sub !== undefined && message.height !== undefined) tokenPushes.push({ at: Date.now(), height: message.height });
      });
      await new Promise((resolve) => reader.once('open', resolve));
      reader.send(JSON.stringify({ id: 1, method: 'tokens.subscribe', params: SUBSCRIBE_PARAMS }));
      const routeReader = new WebSocket(`ws://127.0.0.1:${port}/route/subscribe`);
      const routePushes: number[] = [];
      routeReader.on('message', (data) => {
        if (JSON.parse(data.toString()).routes) routePushes.push(Date.now());
      });
      await new Promise((resolve) => routeReader.once('open', resolve));
      routeReader.send(JSON.stringify({ id: 1, query: routeQuery('reader.near') }));

      // The slow /ws clients subscribe to the largest table (every token, every field), and ask for PAST_THE_KERNEL
      // bytes of `schema` answers in one go: a push carries only what a block changed, two blocks a second, so
      // pushes alone would take many minutes to fill the kernel's 4 MiB. The slow
      // /route/subscribe clients subscribe to every DEX's quotes, which are pushed at the pace of routing (a few KiB
      // per pool change): the kernel's buffers hold all of that for the length of this test, so the server holds
      // nothing for them (their cut-off, with nothing between the server and the client, is the test below).
      // The api's memory, sampled from here to the end of the flood.
      let peak = before;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const now = await metrics();
          if (now.rss > peak.rss) peak = now;
          await sleep(250);
        }
      })();
      const floodStart = Date.now();
      const schemaBytes = (await (await fetch(`http://127.0.0.1:${port}/schema`)).text()).length;
      const schemaAsks = Math.ceil(PAST_THE_KERNEL / schemaBytes);
      const wsFrames = Buffer.concat([
        textFrame(JSON.stringify({ id: 1, method: 'tokens.subscribe', params: SUBSCRIBE_PARAMS })),
        ...Array.from({ length: schemaAsks }, (_, i) => textFrame(JSON.stringify({ id: 100 + i, method: 'schema' }))),
      ]);
      console.log(`each slow /ws client: a subscription and ${schemaAsks} schema asks of ${schemaBytes} bytes`);
      const wsSlow: net.Socket[] = [];
      const routeSlow: net.Socket[] = [];
      for (let i = 0; i < SLOW_PER_SOCKET; i++) {
        const ws = await upgrade('/ws');
        ws.pause();
        ws.write(wsFrames);
        const route = await upgrade('/route/subscribe');
        route.pause();
        route.write(textFrame(JSON.stringify({ id: 1, query: routeQuery(`slow${i}.near`) })));
        wsSlow.push(ws);
        routeSlow.push(route);
      }
      slow.push(...wsSlow, ...routeSlow);
      console.log(`${2 * SLOW_PER_SOCKET} slow clients connected in ${((Date.now() - floodStart) / 1000).toFixed(1)} s`);
      const wsPorts = new Set(wsSlow.map((s) => s.localPort!));
      const routePorts = new Set(routeSlow.map((s) => s.localPort!));

      // Until the server has let go of every slow /ws client (150 s at most: then the test fails below).
      let held = serverHeld(wsPorts);
      let lastLog = 0;
      while (held > 0 && Date.now() - floodStart < 150_000) {
        await sleep(250);
        const now = await metrics();
        held = serverHeld(wsPorts);
        if (Date.now() - lastLog > 5_000 || held === 0) {
          lastLog = Date.now();
          console.log(
            `${((Date.now() - floodStart) / 1000).toFixed(1)} s: slow clients held: /ws ${held}, /route/subscribe ${serverHeld(routePorts)}; ` +
              `kernel-queued to them: /ws ${mib(serverKernelQueued(wsPorts))}, /route/subscribe ${mib(serverKernelQueued(routePorts))}; height ${await height()}; ` +
              `read: ${tokenPushes.length} token pushes, ${routePushes.length} route pushes; api ${show(now)}`,
          );
        }
      }
      // Blocks keep coming for a few more seconds with the /route/subscribe clients still connected.
      await sleep(5_000);
      const floodEnd = Date.now();
      sampling = false;
      await sampler;
      console.log(`every slow /ws client cut off ${((floodEnd - floodStart) / 1000 - 5).toFixed(1)} s after the first connected; api peak: ${show(peak)}`);
      expect(held).toBe(0);

      // The readers kept reading meanwhile, and still do: pushes of a later height than any ingested now.
      const tokenPushesDuring = tokenPushes.filter((p) => p.at >= floodStart && p.at <= floodEnd).length;
      const routePushesDuring = routePushes.filter((at) => at >= floodStart && at <= floodEnd).length;
      console.log(`during the flood the readers got ${tokenPushesDuring} token pushes and ${routePushesDuring} route pushes`);
      expect(tokenPushesDuring).toBeGreaterThan(0);
      expect(routePushesDuring).toBeGreaterThan(0);
      const heightNow = await height();
      const routePushesBefore = routePushes.length;
      const deadline = Date.now() + 60_000;
      while ((tokenPushes.at(-1)!.height <= heightNow || routePushes.length === routePushesBefore) && Date.now() < deadline) await sleep(200);
      expect(tokenPushes.at(-1)!.height).toBeGreaterThan(heightNow);
      expect(routePushes.length).toBeGreaterThan(routePushesBefore);

      await sleep(2_000);
      const after = await metrics();
      console.log(`api after: ${show(after)}`);
      // The bound: what the server may hold for one client before cutting it off is max_buffered_bytes plus the one
      // message that crossed it (a schema answer or a push: under 64 KiB), for all 200 at once, plus 128 MiB for what
      // garbage collection has not returned yet. Without the cut-off the 100 /ws clients alone would hold
      // 100 × (12 MiB − at most 4.2 MiB in the kernel) ≥ 780 MiB of schema answers: far past the bound.
      const bound = 2 * SLOW_PER_SOCKET * (LIMITS.max_buffered_bytes + 64 * 1024) + 128 * MiB;
      console.log(`bound on the api's resident memory above its start: ${mib(bound)}; it peaked ${mib(peak.rss - before.rss)} above, and is ${mib(after.rss - before.rss)} above after`);
      expect(peak.rss - before.rss).toBeLessThan(bound);
      expect(after.rss - before.rss).toBeLessThan(bound);

      // From the /ws clients' side: each one, reading at last, gets what the kernel held and then the end of the
      // stream (the server's close: the `end` message cannot overtake the bytes queued before it).
      const drained = await Promise.all(wsSlow.map((socket) => drainToEnd(socket, 60_000)));
      console.log(`the slow /ws clients, reading at last, found ${mib(drained.reduce((a, b) => a + b, 0))} in all (kernel buffers), then the end`);
      // The /route/subscribe ones are still connected and were sent less than their kernel buffers hold.
      console.log(`slow /route/subscribe clients still held: ${serverHeld(routePorts)}, ${mib(serverKernelQueued(routePorts))} queued to them in the kernel`);
      reader.close();
      routeReader.close();
    } finally {
      for (const socket of slow) socket.destroy();
      stopIngest.abort();
      await ingesting.catch(() => {});
    }
  });

  it('/route/subscribe cuts off a client with more than max_buffered_bytes unsent (nothing between them: in-process)', async () => {
    // Over loopback the kernel holds megabytes for a client before the server sees it lag, and /route/subscribe
    // pushes a few KiB per pool change: reaching the limit through TCP would take far longer than this suite. Here
    // the client is an in-memory stream (fastify's injectWS) that stops reading, so every unsent byte is the
    // server's; each new query is answered with fresh quotes, which a client that does not read never takes.
    const app = await buildServer({ db, logLevel: 'silent' });
    try {
      await app.ready();
      const reader = await app.injectWS('/route/subscribe');
      const readerRoutes: number[] = [];
      reader.on('message', (data) => {
        const message = JSON.parse(data.toString());
        if (message.routes) readerRoutes.push(message.id);
      });
      const slowClient = await app.injectWS('/route/subscribe');
      const serverSide = [...app.websocketServer.clients].at(-1)!;
      (slowClient as unknown as { _socket: { pause(): void } })._socket.pause();
      let maxQueued = 0;
      let asked = 0;
      for (let id = 1; serverSide.readyState === serverSide.OPEN && id <= 2_000; id++) {
        slowClient.send(JSON.stringify({ id, query: routeQuery(`slow${id}.near`) }));
        if (id % 50 === 0) reader.send(JSON.stringify({ id, query: routeQuery(`reader${id}.near`) }));
        asked = id;
        await sleep(5);
        maxQueued = Math.max(maxQueued, serverSide.bufferedAmount);
      }
      console.log(`in-process /route/subscribe: the slow client was cut off after ${asked} queries, with up to ${mib(maxQueued)} unsent`);
      expect(serverSide.readyState).toBe(serverSide.CLOSED);
      // It was let go once past the limit, and never held more than the limit and one answer (a few KiB).
      expect(maxQueued).toBeGreaterThan(LIMITS.max_buffered_bytes * 0.9);
      expect(maxQueued).toBeLessThan(LIMITS.max_buffered_bytes + 64 * 1024);
      // The reader, asking meanwhile, got answers, and gets one now.
      expect(readerRoutes.length).toBeGreaterThan(0);
      reader.send(JSON.stringify({ id: 9_999, query: routeQuery('reader.near') }));
      const deadline = Date.now() + 30_000;
      while (!readerRoutes.includes(9_999) && Date.now() < deadline) await sleep(20);
      expect(readerRoutes).toContain(9_999);
      expect([...app.websocketServer.clients]).not.toContain(serverSide);
      reader.terminate();
    } finally {
      await app.close();
    }
  });
});
