// Token-data latency as history grows (issue #22, point 4): the same methods over 1x, 10x and 100x of 10,000
// realnet blocks, three databases side by side, measured in the same minutes.
// 1. 1x: the real indexer ingests the realnet's first 10,000 blocks (seed `dexlake`) into a fresh database whose
//    history partitions are BENCH_SCALE_WIDTH blocks wide (50,000: 1x fits one partition, 100x twenty).
// 2. 10x, 100x: a database copied from the size before (CREATE DATABASE ... TEMPLATE) grows by copies of that 1x
//    history, added with COPY (rows made here, in Node): copy k is the 1x history shifted up by k·10,000 heights
//    and k·3 hours (10,000 one-second blocks and a pause, so minute to hour candles keep their bucket bounds), its
//    wallets renamed (`alice.near` -> `alice-c7.near`: 100 times as many at 100x) and every contract, pool
//    and token kept (the DEX contracts and the busiest tokens grow a hundredfold).
//    Copied: blocks, events (payloads renamed too), transfers, balance_history, trades, trade_hops, pool_history,
//    prices and the 1m..1h candles. Derived again with SQL after each step: the 4h, 1d and 1w candles (from the
//    hour candles), balances (each account's last balance_history row per token), tokens' holders and supply (the
//    sum of positive balances), token_market's price height, the checkpoint and market clock; then VACUUM (ANALYZE)
//    and CHECKPOINT, so that autovacuum and checkpoints stay out of the measurement.
// 3. Each size has its own real server (buildServer), answering through app.inject, one request at a time, every
//    token-data GET method, the sizes interleaved (a request to each in turn, the order turning each round, so that
//    the machine's other work falls on all three alike): BENCH_SCALE_REQUESTS (3,000) requests per size after 20
//    warm-up ones, every request's parameters drawn with a seeded generator (devnet/rng.ts) from the data of that
//    size (busy contracts and tokens, and the wallets of any copy; times and heights anywhere in the history) and
//    never repeated, so the response cache never answers (the server cannot turn it off; /metrics' hit counter is
//    printed to show it). A method stops early after BENCH_SCALE_METHOD_SECONDS (30) of requests per size, or when
//    its parameters run out (1,000 draws in a row without a new one: current balances at 1x). p50 and
//    p99 per method and size, each with its ratio to 1x; for the five methods that read by an index the target:
//    p99 at 100x within 1.5x of 1x. Per size, the share of the block reads that PostgreSQL found in shared_buffers
//    (BENCH_SCALE_SHARED_BUFFERS, 2 GB).
// 4. At 100x, EXPLAIN (ANALYZE, BUFFERS) of the main query of those five methods, captured from the server's own
//    Kysely (its query log) on the request that was at the method's p99, asked again.
// The credit budget per IP is raised for the run: every request comes from the same address.
import type { FastifyInstance } from 'fastify';
import type { CompiledQuery } from 'kysely';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { buildServer } from '../api/server.ts';
import type { Db } from '../db/connect.ts';
import { copyRows } from '../db/copy.ts';
import { Kysely, PostgresDialect } from '../db/kysely.ts';
import type { Database } from '../db/schema.ts';
import { Rng } from '../devnet/rng.ts';
import { ensurePartitions, partitions, PARTITIONED } from '../indexer/partitions.ts';
import { ingest } from '../indexer/pipeline.ts';
import { realnetSource } from '../indexer/sources/realnet.ts';
import { startBenchPostgres } from './harness.ts';

const BLOCKS = 10_000;
const SIZES = [1, 10, 100] as const;
const WIDTH = Number(process.env.BENCH_SCALE_WIDTH ?? 50_000);
const REQUESTS = Number(process.env.BENCH_SCALE_REQUESTS ?? 3000);
const WARMUP = 20;
const METHOD_SECONDS = Number(process.env.BENCH_SCALE_METHOD_SECONDS ?? 30);
/** Time between the starts of two copies: 10,000 s of blocks and 800 s of pause, a whole number of hours. */
const COPY_SHIFT_MS = 3 * 3_600_000;
const TARGET_P99_RATIO = 1.5;

/** A history table copied row by row: its columns, and which of them hold heights and times (shifted per copy). */
interface CopiedTable {
  table: string;
  columns: readonly string[];
  heights: readonly string[];
  times: readonly string[];
  /** Rows of the 1x history to copy (the coarse candles are derived, not copied). */
  where?: string;
}

const COPIED: readonly CopiedTable[] = [
  { table: 'blocks', columns: ['height', 'hash', 'prev_hash', 'timestamp_ms', 'gap_before'], heights: ['height'], times: ['timestamp_ms'] },
  { table: 'events', columns: ['block_height', 'receipt_id', 'index', 'kind', 'timestamp_ms', 'tx_hash', 'payload'], heights: ['block_height'], times: ['timestamp_ms'] },
  { table: 'transfers', columns: ['block_height', 'receipt_id', 'index', 'timestamp_ms', 'tx_hash', 'token', 'sender', 'receiver', 'amount', 'memo'], heights: ['block_height'], times: ['timestamp_ms'] },
  { table: 'balance_history', columns: ['token', 'account', 'block_height', 'balance'], heights: ['block_height'], times: [] },
  {
    table: 'trades',
    columns: ['block_height', 'receipt_id', 'dex', 'index', 'timestamp_ms', 'tx_hash', 'trader', 'token_in', 'token_out', 'amount_in', 'amount_out', 'hops', 'pool_ids', 'value_usd', 'receipt_ids'],
    heights: ['block_height'],
    times: ['timestamp_ms'],
  },
  {
    table: 'trade_hops',
    columns: ['block_height', 'receipt_id', 'index', 'timestamp_ms', 'tx_hash', 'dex', 'pool_id', 'trader', 'token_in', 'token_out', 'amount_in', 'amount_out'],
    heights: ['block_height'],
    times: ['timestamp_ms'],
  },
  { table: 'pool_history', columns: ['dex', 'pool_id', 'block_height', 'kind', 'tokens', 'amounts', 'total_fee', 'state'], heights: ['block_height'], times: [] },
  { table: 'prices', columns: ['token', 'block_height', 'timestamp_ms', 'price_usd'], heights: ['block_height'], times: ['timestamp_ms'] },
  {
    table: 'candles',
    columns: ['token', 'resolution', 'bucket_start_ms', 'open_usd', 'high_usd', 'low_usd', 'close_usd', 'volume_usd', 'volume', 'trades'],
    heights: [],
    times: ['bucket_start_ms'],
    where: `resolution in ('1m', '5m', '15m', '1h')`,
  },
];

/** The tables whose rows and size are printed at each size. */
const SHOWN = ['blocks', 'events', 'transfers', 'balance_history', 'balances', 'trades', 'trade_hops', 'pool_history', 'prices', 'candles'] as const;

/** The 1x history of one table as COPY text fields, and how to make copy k of a row. */
interface Template {
  spec: CopiedTable;
  rows: string[][];
  heightAt: number[];
  timeAt: number[];
}

interface Sample {
  url: string;
  ms: number;
  rows: number;
}

/** One method's latencies at one size, sorted, the mean rows per answer, and the request at p99 (for EXPLAIN). */
interface Measured {
  sorted: number[];
  rows: number;
  p99Url: string;
}

/** What the draws of one size come from. */
interface Population {
  size: number;
  head: { height: number; timestamp_ms: number };
  firstMs: number;
  busyAccounts: readonly string[];
  wallets: readonly string[];
  busyTokens: readonly string[];
  tokens: readonly string[];
}

interface Probe {
  name: string;
  /** For the methods that read by an index: what it reads, and the table its main query names (for EXPLAIN). */
  indexed?: { reads: string; marker: string };
  url(rng: Rng, p: Population): string;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** A wallet's name in copy k (copy 0 keeps the realnet's). */
const walletIn = (wallet: string, k: number) => (k === 0 ? wallet : wallet.replace(/\.near$/, `-c${k}.near`));

const between = (rng: Rng, lo: number, hi: number) => lo + rng.int(hi - lo + 1);
/** Busy (contracts, the most traded tokens) three times in ten, else anyone of this size. */
const account = (rng: Rng, p: Population) => (rng.chance(0.3) ? rng.pick(p.busyAccounts) : rng.pick(p.wallets));
const token = (rng: Rng, p: Population) => (rng.chance(0.3) ? rng.pick(p.busyTokens) : rng.pick(p.tokens));
const anyTime = (rng: Rng, p: Population) => between(rng, p.firstMs, p.head.timestamp_ms);
/** Half the history pages are the newest, half go back to a time anywhere in the history. */
const pageBack = (rng: Rng, p: Population) => (rng.chance(0.5) ? `&before_millis=${anyTime(rng, p)}` : '');
const e = encodeURIComponent;

const RESOLUTIONS = [['1m', 60_000], ['5m', 300_000], ['15m', 900_000], ['1h', 3_600_000], ['4h', 14_400_000], ['1d', 86_400_000]] as const;
const TOKEN_SORTS = ['-liquidity_usd', '-volume_usd_24h', '-holders', '-price_change_24h', 'account_id', '-price_usd'];

const PROBES: readonly Probe[] = [
  { name: 'tokens', url: (rng) => `/tokens?sort=${rng.pick(TOKEN_SORTS)}&limit=${between(rng, 10, 100)}&offset=${rng.int(30)}` },
  {
    name: 'tokens/search',
    url: (rng, p) => {
      const id = rng.pick(p.tokens);
      const from = rng.int(Math.max(1, id.length - 3));
      return `/tokens/search?q=${e(id.slice(from, from + between(rng, 2, 5)))}&limit=${between(rng, 5, 20)}`;
    },
  },
  { name: 'trades', indexed: { reads: 'trades by token', marker: 'from "trades"' }, url: (rng, p) => `/trades?token=${e(token(rng, p))}&limit=${between(rng, 20, 100)}${pageBack(rng, p)}` },
  { name: 'transfers', indexed: { reads: 'transfers by account', marker: 'from "transfers"' }, url: (rng, p) => `/transfers?account=${e(account(rng, p))}&limit=${between(rng, 20, 100)}${pageBack(rng, p)}` },
  { name: 'activity', url: (rng, p) => `/activity?account_id=${e(account(rng, p))}&limit=${between(rng, 20, 100)}${pageBack(rng, p)}` },
  {
    name: 'candles',
    indexed: { reads: 'candles range', marker: 'from candles c' },
    url: (rng, p) => {
      const [resolution, step] = rng.pick(RESOLUTIONS);
      const count = between(rng, 50, 300);
      const from = between(rng, p.firstMs, Math.max(p.firstMs, p.head.timestamp_ms - count * step));
      return `/candles?token=${e(token(rng, p))}&resolution=${resolution}&from_millis=${from}&to_millis=${from + (count - 1) * step}`;
    },
  },
  { name: 'prices/at', url: (rng, p) => `/prices/at?at=${Array.from({ length: between(rng, 1, 5) }, () => `${e(token(rng, p))}:${anyTime(rng, p)}`).join(',')}` },
  { name: 'balances', url: (rng, p) => `/balances?account_id=${e(account(rng, p))}&precision=${between(rng, 1, 40)}` },
  {
    name: 'balances at height',
    indexed: { reads: 'balances at height', marker: 'from balance_history' },
    url: (rng, p) => `/balances?account_id=${e(account(rng, p))}&at_height=${between(rng, 1, p.head.height - 1)}`,
  },
  { name: 'holders', indexed: { reads: 'holders top-N', marker: 'from balances where token' }, url: (rng, p) => `/holders?token=${e(token(rng, p))}&limit=${between(rng, 10, 100)}` },
  { name: 'positions', url: (rng, p) => `/positions?account_id=${e(account(rng, p))}&precision=${between(rng, 1, 40)}` },
];

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

async function readCopyText(client: pg.PoolClient, sql: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of client.query(copyTo(sql))) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

/** The 1x history of every copied table, as fields of COPY text. */
async function readTemplates(db: Db): Promise<Template[]> {
  const client = await db.pool.connect();
  try {
    const templates: Template[] = [];
    for (const spec of COPIED) {
      const text = await readCopyText(client, `copy (select ${spec.columns.join(', ')} from ${spec.table} ${spec.where ? `where ${spec.where}` : ''}) to stdout`);
      const rows = text.split('\n').filter((line) => line !== '').map((line) => line.split('\t'));
      templates.push({ spec, rows, heightAt: spec.heights.map((c) => spec.columns.indexOf(c)), timeAt: spec.times.map((c) => spec.columns.indexOf(c)) });
    }
    return templates;
  } finally {
    client.release();
  }
}

/** Copy k of a table's 1x rows as COPY text: heights and times shifted, wallets renamed (in payloads too), block
 * hashes made unique and chained to the previous copy's last block. */
function copyOf(template: Template, k: number, wallets: RegExp, lastHash: string): string {
  const { spec, rows, heightAt, timeAt } = template;
  const isBlocks = spec.table === 'blocks';
  let text = '';
  for (const row of rows) {
    const out = row.slice();
    for (const i of heightAt) out[i] = String(Number(out[i]) + k * BLOCKS);
    for (const i of timeAt) out[i] = String(Number(out[i]) + k * COPY_SHIFT_MS);
    if (isBlocks) {
      out[2] = out[0] === String(k * BLOCKS + 1) ? (k === 1 ? lastHash : `${lastHash}-c${k - 1}`) : `${out[2]}-c${k}`;
      out[1] = `${out[1]}-c${k}`;
    }
    text += `${out.join('\t').replace(wallets, (name: string) => walletIn(name, k))}\n`;
  }
  return text;
}

/** Adds copies [from, to) of the 1x history, two COPY streams at a time (one is made while the other is written). */
async function addCopies(db: Db, templates: readonly Template[], wallets: readonly string[], from: number, to: number): Promise<void> {
  await ensurePartitions(db.pool, [{ from: from * BLOCKS + 1, to: to * BLOCKS }]);
  const names = new RegExp(`(?<![\\w.-])(?:${wallets.map((w) => w.replace(/\.near$/, '').replace(/[.-]/g, '\\$&')).join('|')})\\.near(?![\\w.-])`, 'g');
  const blocks = templates.find((t) => t.spec.table === 'blocks')!;
  const lastHash = blocks.rows.find((r) => r[0] === String(BLOCKS))![1]!;
  const jobs: { k: number; template: Template }[] = [];
  for (let k = from; k < to; k++) for (const template of templates) jobs.push({ k, template });
  const writer = async () => {
    const client = await db.pool.connect();
    try {
      for (let job = jobs.shift(); job; job = jobs.shift()) {
        await copyRows(client, job.template.spec.table, job.template.spec.columns, copyOf(job.template, job.k, names, lastHash));
      }
    } finally {
      client.release();
    }
  };
  await Promise.all([writer(), writer()]);
}

/** What follows from the copied history: coarse candles, current balances, holders and supply, the head. */
async function deriveCurrent(db: Db, previousHead: number): Promise<void> {
  await db.pool.query(`delete from candles where resolution in ('4h', '1d', '1w')`);
  // Weeks start on Monday 00:00 UTC (1970-01-05), as the indexer's buckets.
  await db.pool.query(`
    insert into candles (token, resolution, bucket_start_ms, open_usd, high_usd, low_usd, close_usd, volume_usd, volume, trades)
    select c.token, r.resolution, (c.bucket_start_ms - r.origin) / r.length * r.length + r.origin as bucket,
      (array_agg(c.open_usd order by c.bucket_start_ms))[1], max(c.high_usd), min(c.low_usd),
      (array_agg(c.close_usd order by c.bucket_start_ms desc))[1], sum(c.volume_usd), sum(c.volume), sum(c.trades)::int
    from candles c cross join (values ('4h', 14400000::bigint, 0::bigint), ('1d', 86400000, 0), ('1w', 604800000, 345600000)) r(resolution, length, origin)
    where c.resolution = '1h'
    group by c.token, r.resolution, bucket`);
  await db.pool.query(
    `insert into balances (token, account, balance, first_height, updated_height)
     select distinct on (token, account) token, account, balance, min(block_height) over (partition by token, account), block_height
     from balance_history where block_height > $1
     order by token, account, block_height desc
     on conflict (token, account) do update set balance = excluded.balance, updated_height = excluded.updated_height`,
    [previousHead],
  );
  await db.pool.query(`
    update tokens t set holders = h.holders, total_supply = case when t.total_supply is null then null else h.supply end
    from (select token, count(*) filter (where balance > 0)::int as holders, coalesce(sum(balance) filter (where balance > 0), 0) as supply from balances group by token) h
    where h.token = t.token`);
  await db.pool.query(`update token_market m set price_height = p.height from (select token, max(block_height) as height from prices group by token) p where p.token = m.token`);
  await db.pool.query(`
    with head as (select height, hash, timestamp_ms from blocks order by height desc limit 1)
    update checkpoints c set height = head.height, hash = head.hash from head where c.name = 'indexer'`);
  await db.pool.query(`update market_clock set (block_height, timestamp_ms) = (select height, timestamp_ms from blocks order by height desc limit 1)`);
}

/** Statistics and visibility maps up to date and the written pages flushed, so that neither autovacuum nor a
 * checkpoint runs during the measurement; returns the seconds it took. */
async function settle(db: Db): Promise<string> {
  const started = performance.now();
  await db.pool.query('vacuum (analyze)');
  await db.pool.query('checkpoint');
  return seconds(started);
}

async function printSize(db: Db, size: number): Promise<void> {
  const counts: string[] = [];
  let total = 0;
  for (const table of SHOWN) {
    const partitioned = (PARTITIONED as readonly string[]).includes(table);
    const { rows } = await db.pool.query<{ n: string; bytes: string }>(
      partitioned
        ? `select (select count(*) from ${table}) as n, (select sum(pg_total_relation_size(relid)) from pg_partition_tree('${table}')) as bytes`
        : `select (select count(*) from ${table}) as n, pg_total_relation_size('${table}') as bytes`,
    );
    total += Number(rows[0]!.bytes);
    counts.push(`${table} ${Number(rows[0]!.n).toLocaleString('en-US')}`);
  }
  const { rows: who } = await db.pool.query<{ accounts: number; tokens: number; db: string }>(
    `select (select count(distinct account)::int from balances) as accounts, (select count(*)::int from tokens) as tokens, pg_database_size(current_database()) as db`,
  );
  const made = await partitions(db.pool);
  const { rows: used } = await db.pool.query<{ n: number }>(`select count(distinct block_height / $1)::int as n from events`, [WIDTH]);
  console.log(`rows      ${size}x: ${counts.join(', ')}`);
  console.log(
    `size      ${size}x: ${who[0]!.accounts.toLocaleString('en-US')} accounts with balances, ${who[0]!.tokens} tokens; these tables ${mb(total)} MB, database ${mb(Number(who[0]!.db))} MB;` +
      ` partitions of ${WIDTH.toLocaleString('en-US')} blocks holding rows ${used[0]!.n} (${made.length} made, the next one ahead included)`,
  );
}

async function population(db: Db, size: number, busyAccounts: readonly string[], busyTokens: readonly string[], wallets: readonly string[]): Promise<Population> {
  const { rows: head } = await db.pool.query<{ height: string; timestamp_ms: string }>(`select height, timestamp_ms from blocks order by height desc limit 1`);
  const { rows: first } = await db.pool.query<{ timestamp_ms: string }>(`select timestamp_ms from blocks order by height limit 1`);
  const { rows: tokens } = await db.pool.query<{ token: string }>(`select token from tokens union select token from token_market order by token`);
  return {
    size,
    head: { height: Number(head[0]!.height), timestamp_ms: Number(head[0]!.timestamp_ms) },
    firstMs: Number(first[0]!.timestamp_ms),
    busyAccounts,
    wallets: Array.from({ length: size }, (_, k) => wallets.map((w) => walletIn(w, k))).flat(),
    busyTokens,
    tokens: tokens.map((t) => t.token),
  };
}

async function get(app: FastifyInstance, url: string): Promise<Sample> {
  const started = performance.now();
  const response = await app.inject({ method: 'GET', url });
  const ms = performance.now() - started;
  if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 300)}`);
  const body = response.json() as { rows?: unknown[]; candles?: unknown[]; prices?: unknown[] };
  return { url, ms, rows: (body.rows ?? body.candles ?? body.prices ?? []).length };
}

async function cacheHits(app: FastifyInstance): Promise<number> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  return Number(/^dexlake_api_cache_hits_total (\d+)/m.exec(text)?.[1] ?? NaN);
}

/** A size as measured: its server and the population its parameters are drawn from. */
interface Measurable {
  app: FastifyInstance;
  db: Db;
  population: Population;
}

/** Blocks the database's queries found in shared_buffers, and those read from outside (the OS cache or disk). */
async function bufferReads(db: Db): Promise<{ hit: number; read: number }> {
  const { rows } = await db.pool.query<{ hit: string; read: string }>('select blks_hit as hit, blks_read as read from pg_stat_database where datname = current_database()');
  return { hit: Number(rows[0]!.hit), read: Number(rows[0]!.read) };
}

/**
 * Each probe's latencies at every size, interleaved: round after round, one request to each size (the order turning
 * each round), so that whatever else the machine does at a moment falls on every size alike and the ratios compare
 * like with like. Per size: warm-up, then distinct requests until REQUESTS or the time budget.
 */
async function measure(sizes: ReadonlyMap<number, Measurable>): Promise<Map<number, Map<string, Measured>>> {
  const out = new Map<number, Map<string, Measured>>([...sizes.keys()].map((size) => [size, new Map()]));
  const entries = [...sizes.entries()];
  const hitsBefore = new Map<number, number>();
  const buffersBefore = new Map<number, { hit: number; read: number }>();
  for (const [size, { app, db }] of entries) {
    hitsBefore.set(size, await cacheHits(app));
    buffersBefore.set(size, await bufferReads(db));
  }
  for (const probe of PROBES) {
    const draws = new Map(
      entries.map(([size, { population }]) => {
        const rng = new Rng(`scale:${probe.name}:${size}`);
        const seen = new Set<string>();
        // A new URL, or undefined once 1,000 draws in a row found none (a small method's parameters are used up).
        const draw = (): string | undefined => {
          for (let tries = 0; tries < 1000; tries++) {
            const url = probe.url(rng, population);
            if (!seen.has(url)) {
              seen.add(url);
              return url;
            }
          }
          return undefined;
        };
        return [size, draw];
      }),
    );
    const next = (size: number): string => {
      const url = draws.get(size)!();
      if (url === undefined) throw new Error(`${probe.name}: no new parameters left to draw at ${size}x`);
      return url;
    };
    for (const [size, { app }] of entries) for (let i = 0; i < WARMUP; i++) await get(app, next(size));
    const samples = new Map<number, Sample[]>(entries.map(([size]) => [size, []]));
    const started = performance.now();
    for (let round = 0; round < REQUESTS && (round < WARMUP || performance.now() - started < METHOD_SECONDS * entries.length * 1000); round++) {
      // Every size gets the round's request, or none does: a method whose parameters run out stops for all sizes.
      const urls = entries.map(([size]) => draws.get(size)!());
      if (urls.some((url) => url === undefined)) break;
      for (let i = 0; i < entries.length; i++) {
        const at = (round + i) % entries.length;
        samples.get(entries[at]![0])!.push(await get(entries[at]![1].app, urls[at]!));
      }
    }
    for (const [size] of entries) {
      const taken = samples.get(size)!;
      const bySpeed = taken.slice().sort((x, y) => x.ms - y.ms);
      const sorted = bySpeed.map((t) => t.ms);
      const rows = taken.reduce((sum, t) => sum + t.rows, 0) / taken.length;
      out.get(size)!.set(probe.name, { sorted, rows, p99Url: bySpeed[sorted.indexOf(percentile(sorted, 99))]!.url });
      console.log(
        `measure   ${`${size}x`.padEnd(5)}${probe.name.padEnd(20)} n ${String(taken.length).padStart(3)}  p50 ${percentile(sorted, 50).toFixed(2).padStart(7)} ms  p99 ${percentile(sorted, 99).toFixed(2).padStart(8)} ms  max ${sorted.at(-1)!.toFixed(1).padStart(7)} ms  rows/answer ${rows.toFixed(1)}`,
      );
    }
  }
  // The statistics reach pg_stat_database within a second of each query.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  for (const [size, { app, db }] of entries) {
    console.log(`cache     ${size}x: ${(await cacheHits(app)) - hitsBefore.get(size)!} answers from the response cache (every request's parameters were new)`);
    const [before, after] = [buffersBefore.get(size)!, await bufferReads(db)];
    const [hit, read] = [after.hit - before.hit, after.read - before.read];
    console.log(`buffers   ${size}x: ${(hit + read).toLocaleString('en-US')} block reads, ${((100 * hit) / (hit + read)).toFixed(2)}% in shared_buffers, ${read.toLocaleString('en-US')} from outside (the OS cache or the disk)`);
  }
  return out;
}

/** The server over `db`, with its Kysely logging the queries it compiles while `capture` is on. */
async function serverWithQueryLog(db: Db): Promise<{ app: FastifyInstance; captured: CompiledQuery[]; capture: (on: boolean) => void }> {
  const captured: CompiledQuery[] = [];
  let capturing = false;
  const kysely = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: db.pool }),
    log: (event) => {
      if (capturing && event.level === 'query') captured.push(event.query);
    },
  });
  const app = await buildServer({ db: { ...db, kysely }, logLevel: 'warn', httpCreditsPerMinute: Number.MAX_SAFE_INTEGER });
  return { app, captured, capture: (on) => void (capturing = on) };
}

/** EXPLAIN (ANALYZE, BUFFERS) of each indexed method's main query, for the request that was at its p99 (asked
 * again of a new server, whose response cache is empty). */
async function explainIndexed(db: Db, size: number, measured: Map<string, Measured>): Promise<void> {
  const server = await serverWithQueryLog(db);
  try {
    for (const probe of PROBES) {
      if (!probe.indexed) continue;
      const url = measured.get(probe.name)!.p99Url;
      server.captured.length = 0;
      server.capture(true);
      const again = await get(server.app, url);
      server.capture(false);
      const query = server.captured.find((q) => q.sql.includes(probe.indexed!.marker));
      if (!query) throw new Error(`${probe.name}: no query naming "${probe.indexed.marker}" was run`);
      const { rows } = await db.pool.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${query.sql}`, [...query.parameters]);
      console.log(`plan      ${size}x ${probe.indexed.reads}, the request at p99: GET ${url} (${again.ms.toFixed(1)} ms asked again)`);
      console.log(`          ${query.sql.replace(/\s+/g, ' ').trim()}`);
      console.log(`          parameters ${JSON.stringify(query.parameters)}`);
      for (const row of rows) console.log(`          ${row['QUERY PLAN']}`);
    }
  } finally {
    await server.app.close();
  }
}

/**
 * PostgreSQL's shared_buffers (BENCH_SCALE_SHARED_BUFFERS, 2 GB): a server holding 8 GB of history is given a share
 * of its memory for its pages (PostgreSQL's guidance: a quarter of the RAM), not initdb's 128 MB; `128MB` measures
 * that default.
 */
const SHARED_BUFFERS = process.env.BENCH_SCALE_SHARED_BUFFERS ?? '2GB';
const postgres = await startBenchPostgres('scale', { shared_buffers: SHARED_BUFFERS });
const db = await postgres.freshDb();
const dbs = new Map<number, Db>([[1, db]]);
try {
  await db.pool.query('update history_partitioning set width_blocks = $1', [WIDTH]);
  const { rows: buffers } = await db.pool.query<{ shared_buffers: string }>('show shared_buffers');
  console.log(`server    PostgreSQL shared_buffers ${buffers[0]!.shared_buffers} (BENCH_SCALE_SHARED_BUFFERS)`);
  let started = performance.now();
  const filled = await ingest({ db, source: realnetSource({ seed: 'dexlake', speed: 0 }), to: BLOCKS, signal: new AbortController().signal });
  const ingested = seconds(started);
  console.log(`fill      1x: realnet ${filled.blocks} blocks, ${filled.events} events, by the indexer in ${ingested} s; VACUUM (ANALYZE) and CHECKPOINT ${await settle(db)} s`);

  // The realnet's wallets: every trader but the models' treasury and the arbitrageur (`*devnet.near`).
  const { rows: walletRows } = await db.pool.query<{ trader: string }>(`select distinct trader from trades where trader is not null and trader !~ 'devnet\\.near$' order by trader`);
  const wallets = walletRows.map((r) => r.trader);
  // Busy: the contracts with the most transfers, the tokens with the most trades (the same at every size).
  const { rows: busyAccountRows } = await db.pool.query<{ account: string }>(`
    select account from (select sender as account from transfers union all select receiver from transfers) a
    where account is not null and account <> all($1) group by account order by count(*) desc, account limit 6`, [wallets]);
  const { rows: busyTokenRows } = await db.pool.query<{ token: string }>(`
    select token from (select token_in as token from trades union all select token_out from trades) t group by token order by count(*) desc, token limit 5`);
  const busyAccounts = busyAccountRows.map((r) => r.account);
  const busyTokens = busyTokenRows.map((r) => r.token);
  console.log(`draws     ${wallets.length} wallets per copy; busy accounts ${busyAccounts.join(', ')}; busy tokens ${busyTokens.join(', ')}; ${REQUESTS} requests per method (after ${WARMUP} warm-up), at most ${METHOD_SECONDS} s each`);
  const templates = await readTemplates(db);

  // Each size is a database of its own, copied from the one before and grown with COPY, so that all three are
  // measured side by side.
  await printSize(db, 1);
  let copies = 1;
  for (const size of SIZES.slice(1)) {
    started = performance.now();
    const [previous, grown] = await postgres.cloneDb(dbs.get(copies)!);
    dbs.set(copies, previous);
    dbs.set(size, grown);
    const cloned = seconds(started);
    started = performance.now();
    await addCopies(grown, templates, wallets, copies, size);
    const copied = seconds(started);
    started = performance.now();
    await deriveCurrent(grown, copies * BLOCKS);
    const derived = seconds(started);
    console.log(
      `fill      ${size}x: the ${copies}x database copied in ${cloned} s; copies ${copies}..${size - 1} by COPY in ${copied} s; balances, holders, candles ${derived} s; VACUUM (ANALYZE) and CHECKPOINT ${await settle(grown)} s`,
    );
    await printSize(grown, size);
    copies = size;
  }
  const sizes = new Map<number, Measurable>();
  for (const [size, sized] of dbs) {
    const app = await buildServer({ db: sized, logLevel: 'warn', httpCreditsPerMinute: Number.MAX_SAFE_INTEGER });
    sizes.set(size, { app, db: sized, population: await population(sized, size, busyAccounts, busyTokens, wallets) });
  }
  let results: Map<number, Map<string, Measured>>;
  try {
    results = await measure(sizes);
  } finally {
    for (const { app } of sizes.values()) await app.close();
  }
  const largest = SIZES.at(-1)!;
  await explainIndexed(dbs.get(largest)!, largest, results.get(largest)!);

  console.log('summary   p50 / p99 in ms, and each ratio to 1x');
  const base = results.get(1)!;
  for (const probe of PROBES) {
    const one = base.get(probe.name)!;
    const cells = SIZES.map((size) => {
      const r = results.get(size)!.get(probe.name)!;
      const [p50, p99] = [percentile(r.sorted, 50), percentile(r.sorted, 99)];
      const ratio = size === 1 ? '' : ` (x${(p50 / percentile(one.sorted, 50)).toFixed(2)} / x${(p99 / percentile(one.sorted, 99)).toFixed(2)})`;
      return `${size}x ${p50.toFixed(2)} / ${p99.toFixed(2)}${ratio}`;
    });
    console.log(`summary   ${probe.name.padEnd(20)} ${cells.join('   ')}`);
  }
  const last = results.get(SIZES.at(-1)!)!;
  for (const probe of PROBES) {
    if (!probe.indexed) continue;
    const ratio = percentile(last.get(probe.name)!.sorted, 99) / percentile(base.get(probe.name)!.sorted, 99);
    console.log(`target    ${probe.indexed.reads.padEnd(22)} target p99 100x/1x <= ${TARGET_P99_RATIO}: ${ratio.toFixed(2)} ${ratio <= TARGET_P99_RATIO ? 'met' : 'NOT met'}`);
  }
} finally {
  for (const sized of dbs.values()) await sized.close();
  await postgres.stop();
}
