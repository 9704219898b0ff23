// Ingest throughput on real blocks: the mainnet fixture blocks, re-labelled to consecutive heights and repeated
// to BLOCKS blocks, ingested from files into a fresh database. The ceiling is bare `readFile` + `JSON.parse` of
// the same files in the same process: the ratio says how much of the parse-bound maximum the indexer keeps.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, ensureDatabase, withDatabase } from '../db/connect.ts';
import { startEmbeddedPostgres } from '../db/embedded.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { ingest } from '../indexer/pipeline.ts';
import { filesSource } from '../indexer/sources/files.ts';

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 2000);
const FIRST = 200_000_000;
const fixtures = fileURLToPath(new URL('../../shared/fixtures/blocks/mainnet/', import.meta.url));
if (!existsSync(fixtures)) {
  console.log(`bench:ingest skipped: ${fixtures} is absent`);
  process.exit(0);
}

const work = path.join(tmpdir(), `dexlake-bench-ingest-${randomBytes(6).toString('hex')}`);
const blocksDir = path.join(work, 'blocks');
await mkdir(blocksDir, { recursive: true });

// Re-label: height H gets hash `bench-H` and prev_hash `bench-(H-1)`, in whichever casing the file uses.
const originals = readdirSync(fixtures)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(path.join(fixtures, f), 'utf8')) as { block: { header: Record<string, unknown> } });
let bytes = 0;
for (let i = 0; i < BLOCKS; i++) {
  const message = originals[i % originals.length]!;
  const header = message.block.header;
  const height = FIRST + i;
  header.height = height;
  header.hash = `bench-${height}`;
  header['prev_hash' in header ? 'prev_hash' : 'prevHash'] = `bench-${height - 1}`;
  const text = JSON.stringify(message);
  bytes += Buffer.byteLength(text);
  await writeFile(path.join(blocksDir, `${height}.json`), text);
}
const files = readdirSync(blocksDir).map((f) => path.join(blocksDir, f));

// The ceiling: read and parse every file, nothing else; the best of three passes, so noise cannot flatter the ratio.
let ceilingS = Infinity;
for (let pass = 0; pass < 3; pass++) {
  const started = performance.now();
  for (const file of files) JSON.parse(await readFile(file, 'utf8'));
  ceilingS = Math.min(ceilingS, (performance.now() - started) / 1000);
}

let url = process.env.DATABASE_URL;
let stop = async () => {};
if (url) {
  url = withDatabase(url, `dexlake_bench_${randomBytes(4).toString('hex')}`);
  await ensureDatabase(url);
} else {
  const pg = await startEmbeddedPostgres({ dir: path.join(work, 'pg'), port: 0 });
  url = pg.url;
  stop = pg.stop;
}
const db = connect(url);
try {
  await migrateToLatest(db.kysely);
  const t = performance.now();
  const result = await ingest({ db, source: filesSource(blocksDir), signal: new AbortController().signal });
  const ingestS = (performance.now() - t) / 1000;
  const mb = bytes / 1e6;
  console.log(`ingest   ${result.blocks} blocks  ${result.events} events  ${mb.toFixed(0)} MB  in ${ingestS.toFixed(2)} s`);
  console.log(`ingest   ${(result.blocks / ingestS).toFixed(0)} blocks/s  ${(result.events / ingestS).toFixed(0)} events/s  ${(mb / ingestS).toFixed(1)} MB/s`);
  console.log(`ceiling  ${(files.length / ceilingS).toFixed(0)} blocks/s  ${(mb / ceilingS).toFixed(1)} MB/s  (readFile + JSON.parse of the same files, same process, best of 3)`);
  console.log(`ratio    ingest/ceiling ${(ceilingS / ingestS).toFixed(2)}  (target >= 0.70)`);
} finally {
  await db.close();
  await stop();
  await rm(work, { recursive: true, force: true });
}
