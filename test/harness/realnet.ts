// The realnet as tests read it: each block made once, then kept on disk between test files and runs.
//
// The realnet makes its blocks synchronously, some 20-60 ms each (Ref's wasm and the tokens' run receipt by receipt),
// and the suite reads tens of thousands of them over a few dozen seeds. `realnet(seed, release)` makes a chain's
// blocks once, in 20-block chunks written to `~/.cache/dexlake/realnet/<key>/` (XDG_CACHE_HOME or DEXLAKE_TEST_CACHE
// move the root), and every later reader, in this file or another, in this run or the next, reads them back. The key is
// the sha256 of every file the blocks come from: the source, each module it imports (transitively, read off the import
// lines), and the vendored wasm; a change to any of them makes the blocks again. A chunk is written to a temporary
// name and renamed, so a reader never sees half of one, and two workers making the same chunk write the same bytes.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { deserialize, serialize } from 'node:v8';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import { parseRefRelease, type RefRelease } from '../../devnet/realnet/wasm.ts';
import { rawSource, textOf } from '../../indexer/sources/raw.ts';
import type { RpcBlock } from '../../devnet/rpc.ts';
import { realnetSource } from '../../indexer/sources/realnet.ts';
import type { BlockSource, RawBlock } from '../../indexer/sources/source.ts';
import { ingest } from '../../indexer/pipeline.ts';
import type { Db } from '../../db/connect.ts';
import { createMigratedDb, hashFiles, ROOT, tsFilesIn } from './db.ts';

const never = new AbortController().signal;
const CHUNK = 20;

/** The files a module depends on: itself and what its relative imports reach, in path order. */
function importClosure(entries: string[]): string[] {
  const seen = new Set<string>();
  const todo = [...entries];
  while (todo.length) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+\.ts)'/g)) todo.push(path.resolve(path.dirname(file), m[1]!));
  }
  return [...seen].sort();
}

let codeKey: string | undefined;
/** sha256 of the code and the wasm that make the realnet's blocks (16 hex digits). */
export function realnetCodeKey(): string {
  if (codeKey !== undefined) return codeKey;
  const wasmDir = path.join(ROOT, 'near/vm/wasm');
  const files = [
    ...importClosure([path.join(ROOT, 'indexer/sources/realnet.ts'), path.join(ROOT, 'devnet/realnet/wasm.ts')]),
    ...readdirSync(wasmDir).filter((n) => n.endsWith('.wasm.gz')).sort().map((n) => path.join(wasmDir, n)),
  ];
  return (codeKey = hashFiles(files).slice(0, 16));
}

/** Where the tests keep what they make between runs: DEXLAKE_TEST_CACHE, else the user's cache folder (XDG). */
export const testCacheRoot = (): string => process.env.DEXLAKE_TEST_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'dexlake');

type Made = RawBlock & { kind: 'message' };

interface Chain {
  dir: string;
  made: Map<number, Buffer>;
  /** The run that makes the blocks not on disk, from genesis, and the last height it made. */
  run?: { next: () => Promise<Made>; last: number };
}

/** Per source name (release and seed), the blocks read or made so far in this process. */
const chains = new Map<string, Chain>();

const chunkFile = (chain: Chain, chunk: number): string => path.join(chain.dir, `${String(chunk * CHUNK + 1).padStart(8, '0')}.jsonl.gz`);

function readChunk(chain: Chain, chunk: number): boolean {
  let lines: Buffer;
  try {
    lines = gunzipSync(readFileSync(chunkFile(chain, chunk)));
  } catch {
    return false;
  }
  let start = 0;
  for (let h = chunk * CHUNK + 1; h <= (chunk + 1) * CHUNK; h++) {
    const end = lines.indexOf(0x0a, start);
    chain.made.set(h, lines.subarray(start, end));
    start = end + 1;
  }
  return true;
}

function writeChunk(chain: Chain, chunk: number): void {
  const bodies: Buffer[] = [];
  for (let h = chunk * CHUNK + 1; h <= (chunk + 1) * CHUNK; h++) bodies.push(chain.made.get(h)!, Buffer.from('\n'));
  const file = chunkFile(chain, chunk);
  const tmp = `${file}.${process.pid}.tmp`;
  mkdirSync(chain.dir, { recursive: true });
  writeFileSync(tmp, gzipSync(Buffer.concat(bodies), { level: 1 }));
  renameSync(tmp, file);
}

/** The body of block `height` of `chain`: from memory, from disk, or made (with the rest of its chunk, written). */
async function blockOf(name: string, chain: Chain, height: number, make: () => AsyncIterator<RawBlock>): Promise<Buffer> {
  const chunk = Math.floor((height - 1) / CHUNK);
  if (!chain.made.has(height) && !readChunk(chain, chunk)) {
    if (chain.run === undefined) {
      const it = make();
      chain.run = { next: async () => (await it.next()).value as Made, last: 0 };
    }
    const run = chain.run;
    while (run.last < (chunk + 1) * CHUNK) {
      // One turn of the event loop a block: the chain makes blocks synchronously, and seconds without a turn leave
      // the database clients' sockets unread (their connections time out).
      await nextTurn();
      const block = await run.next();
      run.last = block.height;
      chain.made.set(block.height, Buffer.from(block.body));
      if (block.height % CHUNK === 0) writeChunk(chain, block.height / CHUNK - 1);
    }
  }
  const body = chain.made.get(height);
  if (body === undefined) throw new Error(`${name}: no block ${height}`);
  return body;
}

/**
 * realnetSource of `seed` (Ref `release`, default the newest) with its hosted models, each block made once and kept on
 * disk (above). Every run, of any database, is given the blocks it asks for as bytes of its own (a decode worker
 * takes the bytes it is given), one event-loop turn apart.
 */
export function realnet(seed: string, release?: RefRelease): BlockSource {
  const ref = parseRefRelease(release);
  const inner = realnetSource({ seed, speed: 0, release: ref });
  return rawSource(inner.name, inner.sparse, async function* (range, signal) {
    let chain = chains.get(inner.name);
    if (chain === undefined) chains.set(inner.name, (chain = { dir: path.join(testCacheRoot(), 'realnet', realnetCodeKey(), `${ref}-${seed}`), made: new Map() }));
    for (let height = range.from ?? 1; range.to === undefined || height <= range.to; height++) {
      await nextTurn();
      if (signal.aborted) return;
      const body = await blockOf(inner.name, chain, height, () => inner.raw({}, never)[Symbol.asyncIterator]());
      yield { kind: 'message', height, body: Buffer.from(body) };
    }
  });
}

let indexerKey: string | undefined;
/** sha256 of every file that makes the indexer's tables out of blocks (the folders it and its imports live in). */
function indexerCodeKey(): string {
  return (indexerKey ??= hashFiles(tsFilesIn('db', 'dexes', 'indexer', 'migrations', 'near')).slice(0, 16));
}

/**
 * A database holding the realnet of `seed` (Ref `release`) indexed from genesis to `to` (`ingest`, its checkpoint
 * at `to`), closed and dropped when the file ends: a copy of a template made once per server and code (db.ts).
 */
export function indexedRealnetDb(seed: string, to: number, release?: RefRelease): Promise<Db & { url: string }> {
  const ref = parseRefRelease(release);
  return createMigratedDb({
    key: `realnet ${realnetCodeKey()} ${indexerCodeKey()} ${ref}-${seed} to ${to}`,
    make: async (db) => void (await ingest({ db, source: realnet(seed, ref), to, signal: never, workers: 0 })),
  });
}

/** The headers of blocks 1..`to` of `realnet(seed, release)`, by height, as the JSON-RPC's `block` gives them. */
export async function realnetHeaders(seed: string, to: number, release?: RefRelease): Promise<Map<number, RpcBlock>> {
  const out = new Map<number, RpcBlock>();
  for await (const raw of realnet(seed, release).raw({ to }, never)) {
    const { header } = (JSON.parse(textOf((raw as Made).body)) as { block: { header: { height: number; hash: string; prev_hash: string; timestamp_nanosec: string } } }).block;
    out.set(header.height, { height: header.height, hash: header.hash, prevHash: header.prev_hash, timestampNs: BigInt(header.timestamp_nanosec) });
  }
  return out;
}

/**
 * What `compute` finds by running the realnet (a model's record, a contract's state at some height), worked out once
 * and kept on disk beside the blocks, under `name` and the same code key: `name` must say everything `compute` reads.
 * Kept as V8's serialization (bigints, Maps and Sets as they are; class instances come back as plain objects).
 */
export function realnetMemo<T>(name: string, compute: () => T): T {
  const file = path.join(testCacheRoot(), 'memo', realnetCodeKey(), `${createHash('sha256').update(name).digest('hex').slice(0, 20)}.v8`);
  try {
    return deserialize(readFileSync(file)) as T;
  } catch {
    const value = compute();
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(`${file}.${process.pid}.tmp`, serialize(value));
    renameSync(`${file}.${process.pid}.tmp`, file);
    return value;
  }
}

/**
 * Answers worked out by running the realnet, kept on disk under `name` and the code key (as `realnetMemo`), one entry
 * per question: `answer(question, compute)` gives the kept answer, else computes it and keeps it. Another file or
 * run asking the same question reads it back; two processes adding answers at once may each keep only their own,
 * which costs the other's computing them again, never a wrong answer.
 */
export function realnetAnswers(name: string): <T>(question: string, compute: () => T) => T {
  const file = path.join(testCacheRoot(), 'memo', realnetCodeKey(), `${createHash('sha256').update(name).digest('hex').slice(0, 20)}.answers.v8`);
  const read = (): Map<string, unknown> => {
    try {
      return deserialize(readFileSync(file)) as Map<string, unknown>;
    } catch {
      return new Map();
    }
  };
  let kept = read();
  return <T>(question: string, compute: () => T): T => {
    if (kept.has(question)) return kept.get(question) as T;
    const value = compute();
    kept = new Map([...read(), ...kept, [question, value]]);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(`${file}.${process.pid}.tmp`, serialize(kept));
    renameSync(`${file}.${process.pid}.tmp`, file);
    return value;
  };
}

