// Token API throughput and push latency, against a database filled from the realnet (BENCH_API_BLOCKS blocks,
// default 10,000) and the real server (buildServer) listening on a port:
// 1. autocannon (in a child process, so it does not share the server's event loop) against /tokens (top 100 by
//    liquidity), /candles (1m, one week), /trades (newest 100) and /holders, each answered from the response cache
//    after its first request, and against a bare Fastify route in the same process as the server: req/s and p50/p99
//    latency, and each ratio to the bare route (target: cached reads within 3x). A second peer, a bare route
//    sending the very bytes and headers of the path's answer, shows what the response alone costs (autocannon
//    parsing it on the other core included): same/path is the part our code (and the server's hooks) adds.
// 2. BENCH_API_SUBSCRIBERS sockets (default 1,000, in a child process) each with one `tokens.subscribe` (three
//    kinds of params); the realnet goes on at one block per second (the indexer in this process, as `npm start`
//    paces it) and each committed block is announced with NOTIFY: the time from the notification reaching a
//    LISTEN connection of the child process to the last push of that height reaching its subscriber there, p50/p99
//    over the notifications that brought pushes (target: p99 under 100 ms).
// 3. The same with one `trades.subscribe` per socket (the live trade feed: five kinds of params, by token, pool,
//    minimum USD value, and every trade), the realnet going on from where 2. left it.
// The credit budget per IP is raised for the run: every autocannon request comes from 127.0.0.1.
import { execFile, fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import pg from 'pg';
import WebSocket from 'ws';

const role = process.argv[2];
if (role === 'clients') await runSubscribers();
else await main();

/** Absolute milliseconds with sub-millisecond resolution, comparable across processes. */
function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function main(): Promise<void> {
  const BLOCKS = Number(process.env.BENCH_API_BLOCKS ?? 10_000);
  const SUBSCRIBERS = Number(process.env.BENCH_API_SUBSCRIBERS ?? 1000);
  const DURATION_S = Number(process.env.BENCH_API_SECONDS ?? 10);
  const CONNECTIONS = 10;
  const NOTIFICATIONS = Number(process.env.BENCH_API_NOTIFICATIONS ?? 60);

  // Imported here so the subscribers' child process loads none of the server.
  const { connect, ensureDatabase, withDatabase } = await import('../db/connect.ts');
  const { startEmbeddedPostgres } = await import('../db/embedded.ts');
  const { migrateToLatest } = await import('../db/migrate.ts');
    const { ingest } = await import('../indexer/pipeline.ts');
  const { realnetSource } = await import('../indexer/sources/realnet.ts');
  const { buildServer } = await import('../api/server.ts');

  const work = path.join(tmpdir(), `dexlake-bench-api-${randomBytes(6).toString('hex')}`);
  let url = process.env.DATABASE_URL;
  let stopPg = async () => {};
  if (!url) {
    const server = await startEmbeddedPostgres({ dir: path.join(work, 'pg'), port: 0 });
    url = server.url;
    stopPg = server.stop;
  }
  const dbUrl = withDatabase(url, `dexlake_bench_api_${randomBytes(4).toString('hex')}`);
  await ensureDatabase(dbUrl);
  const db = connect(dbUrl);
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  try {
    await migrateToLatest(db.kysely);
    let started = performance.now();
    const filled = await ingest({ db, source: realnetSource({ seed: 'dexlake', speed: 0 }), to: BLOCKS, signal: new AbortController().signal });
    console.log(`fill      realnet ${filled.blocks} blocks  ${filled.events} events  in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const app = await buildServer({ db, logLevel: 'warn', httpCreditsPerMinute: Number.MAX_SAFE_INTEGER });
    cleanups.push(() => app.close());
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const bare = Fastify();
    bare.get('/bare', async () => ({ hello: 'world' }));
    // The answer of the path being measured, as it was sent: its body and its headers.
    let same = { body: Buffer.alloc(0), headers: {} as Record<string, string> };
    bare.get('/same', (_request, reply) => reply.headers(same.headers).send(same.body));
    cleanups.push(() => bare.close());
    const bareBase = await bare.listen({ port: 0, host: '127.0.0.1' });

    // The parameters: the realnet's head time for the candle week, its most-held token for /holders.
    const head = (await (await fetch(`${base}/tokens?limit=1`)).json()) as { height: number; timestamp_millis: number };
    const mostHeld = await db.kysely.selectFrom('tokens').select('token').orderBy('holders', 'desc').orderBy('token').limit(1).executeTakeFirstOrThrow();
    const week = 7 * 86_400_000;
    const trades = `${base}/trades?order=newest&limit=100`;
    // [name, url, Accept-Encoding]: identity bodies, and once gzip as browsers and most clients ask.
    const paths: [string, string, string?][] = [
      ['/tokens', `${base}/tokens?sort=-liquidity_usd&limit=100`],
      ['/candles', `${base}/candles?token=wrap.near&resolution=1m&from_millis=${head.timestamp_millis - week}&to_millis=${head.timestamp_millis}`],
      ['/trades', trades],
      ['/holders', `${base}/holders?token=${mostHeld.token}&limit=100`],
      ['/trades gzip', trades, 'gzip'],
    ];
    console.log(`server    height ${head.height}; autocannon ${CONNECTIONS} connections x ${DURATION_S} s per run, no Accept-Encoding (identity bodies) unless named; latencies in whole ms (autocannon's resolution)`);

    const autocannonCli = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
    const run = async (target: string, encoding?: string) => {
      const header = encoding ? ['-H', `accept-encoding=${encoding}`] : [];
      // Asynchronously: the server answers from this process's event loop.
      const { stdout } = await promisify(execFile)(process.execPath, [autocannonCli, '-c', String(CONNECTIONS), '-d', String(DURATION_S), '-n', '-j', ...header, target], { maxBuffer: 1 << 26 });
      const result = JSON.parse(stdout) as { duration: number; requests: { total: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number; timeouts: number };
      return { rps: result.requests.total / result.duration, p50: result.latency.p50, p99: result.latency.p99, problems: result.non2xx + result.errors + result.timeouts };
    };
    const figures = (r: Awaited<ReturnType<typeof run>>) =>
      `${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${String(r.p99).padStart(2)} ms${r.problems ? ` (${r.problems} non-2xx/errors/timeouts)` : ''}`;
    // Each path right after its own bare run: the machine's load drifts, so a ratio compares neighbours.
    for (const [name, target, encoding] of paths) {
      // The first answer fills the response cache; its size says what each cached request sends.
      const first = await fetch(target, { headers: { 'accept-encoding': encoding ?? 'identity' } });
      const sent = Buffer.from(await first.arrayBuffer());
      if (first.status !== 200) throw new Error(`${name}: ${first.status} ${sent.toString().slice(0, 200)}`);
      // fetch has already decoded a gzip body: the bytes on the wire are made again for the peer.
      const headers = Object.fromEntries([...first.headers].filter(([name]) => !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name)));
      same = { body: encoding === 'gzip' ? gzipSync(sent) : sent, headers };
      const rows = rowCount(sent.toString());
      const bareRun = await run(`${bareBase}/bare`, encoding);
      const sameRun = await run(`${bareBase}/same`, encoding);
      const pathRun = await run(target, encoding);
      console.log(`http      bare         ${figures(bareRun)}  (17 bytes)`);
      console.log(`http      same body    ${figures(sameRun)}  (${first.headers.get('content-length')} bytes: ${name}'s answer from a bare route)`);
      console.log(
        `http      ${name.padEnd(12)} ${figures(pathRun)}  (${first.headers.get('content-length')} bytes${rows === undefined ? '' : `, ${rows} rows`})` +
          `  bare/path req/s ${(bareRun.rps / pathRun.rps).toFixed(2)}  same/path ${(sameRun.rps / pathRun.rps).toFixed(2)}`,
      );
    }
    console.log(`target    cached reads within 3x of the bare route (bare/path req/s <= 3)`);

    const wsUrl = `${base.replace('http', 'ws')}/ws`;
    for (const method of ['tokens.subscribe', 'trades.subscribe'] as const) await pushRun(method, wsUrl);
  } finally {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => {});
    await db.close();
    await stopPg();
    await rm(work, { recursive: true, force: true });
  }

  /** SUBSCRIBERS sockets with one `method` subscription each while the realnet goes on: notification to last push. */
  async function pushRun(method: 'tokens.subscribe' | 'trades.subscribe', wsUrl: string): Promise<void> {
    // Subscribers: a child process opens the sockets and records when each push arrives.
    const clients = fork(fileURLToPath(import.meta.url), ['clients'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    cleanups.push(() => clients.kill());
    const started = performance.now();
    const ready = await ask<{ subscribed: number; failed: number }>(clients, { type: 'open', wsUrl, dbUrl, count: SUBSCRIBERS, method });
    console.log(`sockets   ${ready.subscribed} ${method} subscribers (${ready.failed} failed) in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // The realnet goes on at its production pace, one block per second, one batch and one NOTIFY per block.
    const stop = new AbortController();
    let batches = 0;
    const indexing = ingest({ db, source: realnetSource({ seed: 'dexlake', speed: 1 }), signal: stop.signal, workers: 0, onBatch: () => batches++ });
    while (batches < NOTIFICATIONS) await new Promise((resolve) => setTimeout(resolve, 200));
    stop.abort();
    await indexing;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const { notified, pushes, trades } = await ask<{ notified: Record<string, number>; pushes: Record<string, { clients: number; last: number }>; trades: number }>(clients, { type: 'report' });

    const latencies: number[] = [];
    const reached: number[] = [];
    let unchanged = 0;
    for (const [height, at] of Object.entries(notified)) {
      const push = pushes[height];
      if (!push) {
        unchanged++;
        continue;
      }
      latencies.push(push.last - at);
      reached.push(push.clients);
    }
    latencies.sort((a, b) => a - b);
    if (latencies.length) {
      console.log(
        `push      ${SUBSCRIBERS} ${method} subscribers: notification -> last push p50 ${percentile(latencies, 50).toFixed(1)} ms  p99 ${percentile(latencies, 99).toFixed(1)} ms  max ${latencies.at(-1)!.toFixed(1)} ms` +
          `  over ${latencies.length} notifications (${unchanged} more brought no push of their height), ${Math.min(...reached)}..${Math.max(...reached)} subscribers pushed each` +
          (method === 'trades.subscribe' ? `, ${trades} trades delivered` : ''),
      );
    } else {
      console.log(`push      no notification brought a ${method} push (${unchanged} notifications)`);
    }
    console.log(`target    last push p99 under 100 ms: ratio p99/100 ms ${latencies.length ? (percentile(latencies, 99) / 100).toFixed(2) : 'n/a'}`);
  }
}

/** Rows of a result (`rows` or `candles`), for the size line. */
function rowCount(body: string): number | undefined {
  const result = JSON.parse(body) as { rows?: unknown[]; candles?: unknown[] };
  return (result.rows ?? result.candles)?.length;
}

function ask<T>(child: ChildProcess, message: object): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once('message', (reply) => resolve(reply as T));
    child.once('exit', (code) => reject(new Error(`the subscribers' process exited with ${code}`)));
    child.send(message);
  });
}

// The subscribers' process: opens the sockets, subscribes each once, and records per pushed height how many
// subscribers got it and when the last one did.
async function runSubscribers(): Promise<void> {
  const { NOTIFY_CHANNEL, parseBlocksNotification } = await import('../db/notify.ts');
  const sockets: WebSocket[] = [];
  // When each notification reaches this process, on a LISTEN connection of its own: here rather than in the
  // server's process, whose event loop may be busy when it arrives (which would hide part of the latency).
  const notified: Record<string, number> = {};
  let listener: pg.Client | undefined;
  const pushes: Record<string, { clients: number; last: number }> = {};
  let trades = 0;
  // A few distinct subscriptions, as real clients would have: the default table, a short one, fixed ids; a token's
  // trades, a pool's, the large ones, every one.
  const variants = {
    'tokens.subscribe': [{}, { limit: 10, fields: ['price_usd', 'liquidity_usd'] }, { ids: ['wrap.near', 'usdt.tether-token.near', 'token.v2.ref-finance.near'] }],
    'trades.subscribe': [{ token: 'wrap.near' }, { token: 'usdt.tether-token.near' }, { pool_id: '0', dex: 'AmmA' }, { min_usd: 100 }, {}],
  };

  const open = (wsUrl: string, index: number, method: keyof typeof variants) =>
    new Promise<boolean>((resolve) => {
      const ws = new WebSocket(wsUrl);
      sockets.push(ws);
      ws.on('error', () => resolve(false));
      ws.on('message', (data) => {
        const at = nowMs();
        const message = JSON.parse(data.toString()) as { hello?: unknown; id?: number; result?: unknown; error?: unknown; sub?: number; height?: number; trades?: unknown[] };
        if (message.hello) {
          ws.send(JSON.stringify({ id: 1, method, params: variants[method][index % variants[method].length] }));
        } else if (message.id === 1 && message.sub === undefined) {
          resolve(message.result !== undefined);
        } else if (message.sub !== undefined && message.height !== undefined) {
          const entry = (pushes[message.height] ??= { clients: 0, last: 0 });
          entry.clients++;
          entry.last = Math.max(entry.last, at);
          trades += message.trades?.length ?? 0;
        }
      });
    });

  process.on('message', (message: { type: string; wsUrl: string; dbUrl: string; count: number; method: keyof typeof variants }) => {
    void (async () => {
      if (message.type === 'open') {
        listener = new pg.Client({ connectionString: message.dbUrl });
        await listener.connect();
        listener.on('notification', (notification) => {
          const at = nowMs();
          const height = notification.channel === NOTIFY_CHANNEL ? parseBlocksNotification(notification.payload ?? '')?.height : undefined;
          if (height !== undefined) notified[height] ??= at;
        });
        await listener.query(`listen ${NOTIFY_CHANNEL}`);
        let subscribed = 0;
        // In groups of 100, so the server is not asked for a thousand handshakes at once.
        for (let i = 0; i < message.count; i += 100) {
          const group = await Promise.all(Array.from({ length: Math.min(100, message.count - i) }, (_, j) => open(message.wsUrl, i + j, message.method)));
          subscribed += group.filter(Boolean).length;
        }
        process.send!({ subscribed, failed: message.count - subscribed });
      } else if (message.type === 'report') {
        process.send!({ notified, pushes, trades });
        for (const ws of sockets) ws.terminate();
        await listener?.end();
        process.disconnect();
      }
    })();
  });
}
