// Backfill throughput over a network: the 2,000-block real-fixture chain of bench:ingest (the mainnet fixture blocks
// re-labelled to consecutive heights) ingested from files, from a local neardata-style HTTP server and from a local
// S3 (s3rver) in the NEAR Lake layout, the two servers behind a slow link (BENCH_DELAY_MS per read request, default
// 100; BENCH_MBIT megabits per second in all, default 2000) in a process of their own; each into a fresh database,
// without and with bulk-load mode. Prints blocks/s per source and mode, each network source's ratio to files in the
// same mode (target >= 0.8), and files with bulk-load mode against files without (target >= 1.15). Best of
// BENCH_ROUNDS interleaved rounds (default 3).
import { fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mergeBackfill, planBackfill, splitRange } from '../indexer/backfill.ts';
import { ingest } from '../indexer/pipeline.ts';
import { filesSource } from '../indexer/sources/files.ts';
import { lakeSource } from '../indexer/sources/lake.ts';
import { neardataSource } from '../indexer/sources/neardata.ts';
import { readText } from '../indexer/sources/raw.ts';
import type { BlockSource } from '../indexer/sources/source.ts';
import { ownCpuS, startBenchPostgres, writeFixtureChain } from './harness.ts';

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 2000);
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 100);
const MBIT = Number(process.env.BENCH_MBIT ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Bulk-load mode builds the indexes this many blocks before the end, as `--bulk-load-distance` would. */
const BULK_DISTANCE = 100;
const FIRST = 200_000_000;
const LAST = FIRST + BLOCKS - 1;
const BUCKET = 'near-lake-bench';
const never = new AbortController().signal;

const pg = await startBenchPostgres('backfill');
const { freshDb, work } = pg;
const postgresCpuS = pg.cpuS;
const blocksDir = path.join(work, 'blocks');

type Message = { block: { header: Record<string, unknown>; chunks?: unknown[] }; shards: Record<string, unknown>[] };

/**
 * The same blocks in the Lake layout: `block.json` with its chunk list (which some fixtures leave out) and one
 * `shard_<id>.json` per shard.
 */
async function fillBucket(endpoint: string): Promise<void> {
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  const pad = (h: number) => String(h).padStart(12, '0');
  const put = (key: string, body: string) => client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
  const heights = Array.from({ length: BLOCKS }, (_, i) => FIRST + i);
  const worker = async () => {
    for (let height = heights.shift(); height !== undefined; height = heights.shift()) {
      const message = JSON.parse(readText(path.join(blocksDir, `${height}.json`))) as Message;
      // Lake's files name the shard `shard_id`, first; fixtures saved by the JS framework say `shardId`.
      const snake = ({ shard_id, shardId, ...rest }: Record<string, unknown>) => ({ shard_id: shard_id ?? shardId, ...rest });
      const shards = message.shards.map(snake);
      const block = { ...message.block, chunks: (message.block.chunks as Record<string, unknown>[] | undefined)?.map(snake) ?? shards.map((s) => ({ shard_id: s.shard_id })) };
      await put(`${pad(height)}/block.json`, JSON.stringify(block));
      for (const shard of shards) await put(`${pad(height)}/shard_${String(shard.shard_id)}.json`, JSON.stringify(shard));
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  client.destroy();
}

interface Run {
  s: number;
  blocks: number;
  events: number;
  cpu: { own: number; pg: number | undefined; servers: number };
  /** The read-ahead's window, sampled every 100 ms: its largest, and the mean of blocks in flight. */
  peakLimit: number;
  meanInFlight: number;
}

const servers = fork(fileURLToPath(new URL('./backfill-servers.ts', import.meta.url)), [
  JSON.stringify({ BLOCKS_DIR: blocksDir, S3_DIR: path.join(work, 's3'), BUCKET, FIRST, LAST, DELAY_MS, MBIT }),
], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const ask = <T>(message?: string): Promise<T> =>
  new Promise((resolve) => {
    servers.once('message', (answer) => resolve(answer as T));
    if (message !== undefined) servers.send(message);
  });

// The SDK's notice that later versions will need Node 22 (see indexer/sources/index.ts).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
try {
  const endpoints = ask<{ neardata: string; s3: string }>();
  const bytes = await writeFixtureChain(blocksDir, FIRST, BLOCKS);
  const { neardata, s3 } = await endpoints;
  await fillBucket(s3);
  process.env.AWS_ACCESS_KEY_ID ??= 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'S3RVER';
  const sources: Record<string, () => BlockSource> = {
    files: () => filesSource(blocksDir),
    neardata: () => neardataSource(`neardata:${neardata}`),
    lake: () => lakeSource(`lake:s3://${BUCKET}?region=us-east-1&endpoint=${s3}`),
  };
  const modes = { normal: undefined, bulk: { distance: BULK_DISTANCE } };
  // BENCH_SOURCES (e.g. `neardata`) narrows the run for profiling; the targets need all three.
  const only = process.env.BENCH_SOURCES?.split(',');
  for (const name of Object.keys(sources)) if (only !== undefined && !only.includes(name)) delete sources[name];
  const runs = new Map<string, Run[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [mode, bulkLoad] of Object.entries(modes)) {
      for (const [name, open] of Object.entries(sources)) {
        const db = await freshDb();
        try {
          const source = open();
          const samples: { limit: number; inFlight: number }[] = [];
          const sampler = setInterval(() => {
            const stats = source.stats?.();
            if (stats) samples.push(stats);
          }, 100);
          const before = { own: ownCpuS(), pg: postgresCpuS(), servers: (await ask<{ cpuS: number }>('cpu')).cpuS };
          const t = performance.now();
          const result = await ingest({ db, source, from: FIRST, to: LAST, signal: never, bulkLoad });
          const s = (performance.now() - t) / 1000;
          clearInterval(sampler);
          const pgAfter = postgresCpuS();
          const cpu = {
            own: ownCpuS() - before.own,
            pg: pgAfter === undefined || before.pg === undefined ? undefined : pgAfter - before.pg,
            servers: (await ask<{ cpuS: number }>('cpu')).cpuS - before.servers,
          };
          const peakLimit = Math.max(0, ...samples.map((x) => x.limit));
          const meanInFlight = samples.length ? samples.reduce((sum, x) => sum + x.inFlight, 0) / samples.length : 0;
          const key = `${name} ${mode}`;
          if (process.env.BENCH_VERBOSE) console.log(key, s.toFixed(2), result.blocks);
          runs.set(key, [...(runs.get(key) ?? []), { s, blocks: result.blocks, events: result.events, cpu, peakLimit, meanInFlight }]);
        } finally {
          await db.close();
        }
      }
    }
  }

  const best = (key: string) => runs.get(key)!.reduce((a, b) => (b.s < a.s ? b : a));
  const rate = (key: string) => best(key).blocks / best(key).s;
  const events = new Set([...runs.values()].flat().map((r) => `${r.blocks} blocks ${r.events} events`));
  console.log(
    `chain    ${BLOCKS} blocks  ${(bytes / 1e6).toFixed(0)} MB  ${[...events].join(' / ')}  link: ${DELAY_MS} ms per request, ${MBIT} Mbit/s ` +
      `(at most ${((MBIT * 1e6) / 8 / (bytes / BLOCKS)).toFixed(0)} blocks/s of these)`,
  );
  for (const mode of Object.keys(modes)) {
    for (const name of Object.keys(sources)) {
      const key = `${name} ${mode}`;
      const r = best(key);
      const ratio = !runs.has(`files ${mode}`) ? '' : name === 'files' ? (mode === 'normal' ? '' : `  ${(rate(key) / rate('files normal')).toFixed(2)}x files normal`) : `  ${(rate(key) / rate(`files ${mode}`)).toFixed(2)} of files`;
      const window = name === 'files' ? '' : `  window peak ${r.peakLimit}, mean in flight ${r.meanInFlight.toFixed(1)}`;
      // The shortest wall this much CPU allows on this machine's cores (the servers share them here, unlike a real link).
      const floor = (r.cpu.own + (r.cpu.pg ?? 0) + r.cpu.servers) / availableParallelism();
      const cpu = `cpu: indexer ${r.cpu.own.toFixed(1)} s, PostgreSQL ${r.cpu.pg?.toFixed(1) ?? '?'} s, servers ${r.cpu.servers.toFixed(1)} s; cpu floor ${floor.toFixed(1)} s on ${availableParallelism()} cores`;
      console.log(
        `${name.padEnd(8)} ${mode.padEnd(6)} ${rate(key).toFixed(0).padStart(4)} blocks/s${ratio}${window}  (best of ${ROUNDS}: ${runs.get(key)!.map((x) => x.s.toFixed(2)).join(', ')} s; ${cpu})`,
      );
    }
  }
  const verdict = (value: number, target: number) => `${value.toFixed(2)} (target >= ${target}: ${value >= target ? 'met' : 'not met'})`;
  if (only === undefined) console.log(
    `targets  neardata/files ${verdict(rate('neardata normal') / rate('files normal'), 0.8)}, lake/files ${verdict(rate('lake normal') / rate('files normal'), 0.8)}; ` +
      `bulk-load: neardata/files ${verdict(rate('neardata bulk') / rate('files bulk'), 0.8)}, lake/files ${verdict(rate('lake bulk') / rate('files bulk'), 0.8)}, ` +
      `files bulk/normal ${verdict(rate('files bulk') / rate('files normal'), 1.15)}`,
  );
  await parallelPhase(bytes);
} finally {
  servers.disconnect();
  await pg.stop();
}

/**
 * The parallel backfill (indexer/backfill.ts) on the files: one sequential ingest for the CPU a block, then the split
 * run with 1 and with 2 range workers, each a process of its own (bench/backfill-range.ts), and the merge here; the
 * serial share is the merge's part of the 1-worker run's wall. Amdahl's law projects a year on 16 cores from it.
 */
async function parallelPhase(bytes: number): Promise<void> {
  const seq = await freshDb();
  let cpu: { own: number; pg: number | undefined };
  let seqS: number;
  try {
    const before = { own: ownCpuS(), pg: postgresCpuS() };
    const t = performance.now();
    await ingest({ db: seq, source: filesSource(blocksDir), from: FIRST, to: LAST, signal: never });
    seqS = (performance.now() - t) / 1000;
    const pgAfter = postgresCpuS();
    cpu = { own: ownCpuS() - before.own, pg: pgAfter === undefined || before.pg === undefined ? undefined : pgAfter - before.pg };
  } finally {
    await seq.close();
  }
  const ms = (s: number | undefined) => (s === undefined ? '?' : ((s * 1000) / BLOCKS).toFixed(2));
  const total = cpu.pg === undefined ? undefined : cpu.own + cpu.pg;
  console.log(
    `cpu      sequential ingest from files: ${ms(total)} CPU-ms a block (indexer ${ms(cpu.own)}, PostgreSQL ${ms(cpu.pg)}; target <= 4: ` +
      `${total === undefined ? '?' : (total * 1000) / BLOCKS <= 4 ? 'met' : 'not met'}); ${(BLOCKS / seqS).toFixed(0)} blocks/s`,
  );

  const split = async (workers: number) => {
    const db = await freshDb();
    try {
      const ranges = splitRange(FIRST, LAST, workers);
      await planBackfill(db, ranges);
      const pgBefore = postgresCpuS();
      const answers = await Promise.all(ranges.map((range) => new Promise<{ s: number; cpuS: number }>((resolve, reject) => {
        const child = fork(fileURLToPath(new URL('./backfill-range.ts', import.meta.url)), [JSON.stringify({ url: db.pool.options.connectionString, dir: blocksDir, ...range })], {
          execArgv: ['--import', 'tsx'],
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        });
        child.once('message', (m) => resolve(m as { s: number; cpuS: number }));
        child.once('exit', (code) => code !== 0 && reject(new Error(`range worker exited with ${code}`)));
      })));
      // The slowest range's ingest, without the processes' start (once a run, not a cost a block).
      const rangesS = Math.max(...answers.map((a) => a.s));
      const pgMid = postgresCpuS();
      const ownBefore = ownCpuS();
      const m = performance.now();
      const merged = await mergeBackfill({ db });
      const mergeS = (performance.now() - m) / 1000;
      const pgEnd = postgresCpuS();
      if (!merged.merged) throw new Error('bench: the merge found ranges not done');
      const pgOf = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : b - a);
      return {
        rangesS,
        mergeS,
        rangeCpu: { own: answers.reduce((sum, a) => sum + a.cpuS, 0), pg: pgOf(pgBefore, pgMid) },
        mergeCpu: { own: ownCpuS() - ownBefore, pg: pgOf(pgMid, pgEnd) },
      };
    } finally {
      await db.close();
    }
  };
  const one = await split(1);
  const two = await split(2);
  const rate = (r: typeof one) => BLOCKS / (r.rangesS + r.mergeS);
  for (const [n, r] of [[1, one], [2, two]] as const) {
    console.log(
      `parallel ${n} worker${n > 1 ? 's' : ' '} ${rate(r).toFixed(0).padStart(4)} blocks/s  (ranges ${r.rangesS.toFixed(2)} s: ${ms(r.rangeCpu.own)} + ${ms(r.rangeCpu.pg)} CPU-ms a block ` +
        `indexer + PostgreSQL; merge ${r.mergeS.toFixed(2)} s: ${ms(r.mergeCpu.own)} + ${ms(r.mergeCpu.pg)} CPU-ms a block)`,
    );
  }
  // Amdahl: T(n) = T(1)·(s + (1 − s)/n), s the serial share of the 1-worker run (the merge's wall over the whole).
  const YEAR = 31_500_000;
  const CORES = 16;
  const t1 = (one.rangesS + one.mergeS) / BLOCKS;
  const serial = one.mergeS / (one.rangesS + one.mergeS);
  const hours = (YEAR * t1 * (serial + (1 - serial) / CORES)) / 3600;
  console.log(
    `serial   share s = merge / (ranges + merge) of the 1-worker run = ${(serial * 100).toFixed(0)}% (merge ${one.mergeS.toFixed(2)} s of ${(one.rangesS + one.mergeS).toFixed(2)} s); ` +
      `2 workers ${(rate(two) / rate(one)).toFixed(2)}x 1 worker on ${availableParallelism()} cores`,
  );
  // A check that does not take one worker for one core (here one worker's decode threads already use both): the
  // merge's wall a block plus the ranges' CPU a block (indexer and PostgreSQL) spread over the cores.
  const rangeCpu = one.rangeCpu.pg === undefined ? undefined : (one.rangeCpu.own + one.rangeCpu.pg) / BLOCKS;
  const byCpu = rangeCpu === undefined ? undefined : (YEAR * (one.mergeS / BLOCKS + rangeCpu / CORES)) / 3600;
  console.log(
    `year     ${YEAR.toLocaleString('en')} blocks x T1 ${(t1 * 1000).toFixed(2)} ms a block x (s + (1 - s)/${CORES}) = ${hours.toFixed(1)} h on ${CORES} cores ` +
      `(target <= 24: ${hours <= 24 ? 'met' : 'not met'}); the merge alone ${((YEAR * t1 * serial) / 3600).toFixed(1)} h; ` +
      `by CPU, blocks x (merge wall + ranges' CPU / ${CORES}) a block = ${byCpu?.toFixed(1) ?? '?'} h`,
  );
  const perBlock = bytes / BLOCKS;
  console.log(
    `network  ${(perBlock / 1e3).toFixed(0)} kB a block as JSON (these fixtures); a year ${((YEAR * perBlock) / 1e12).toFixed(1)} TB, ` +
      `${((YEAR * perBlock * 8) / 1e9 / 3600).toFixed(1)} h at 1 Gbit/s`,
  );
}
