// Turning a raw block into the normalized Block: the one place that parses what the sources read, on whichever
// thread calls it, and checks that the block holds the height its source announced.
import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { normalizeLakeLayout, normalizeStreamerMessage, type Block } from '../../near/block.ts';
import type { BlockRange, BlockSource, RawBlock, SourceStats } from './source.ts';

/** A block file's text. Synchronous on purpose: it runs where the text is parsed next, and the parse holds the thread
 * far longer than the read (from the page cache, one read of the whole file is 3x faster than fs/promises'
 * readFile, which reads 512 KiB at a time). */
export function readText(file: string): string {
  if (file.endsWith('.gz')) return textOf(gunzipSync(readFileSync(file)));
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (scratch.length < size) scratch = Buffer.allocUnsafe(size);
    let read = 0;
    for (let n; read < size && (n = readSync(fd, scratch, read, size - read, null)) > 0; ) read += n;
    return textOf(scratch.subarray(0, read));
  } finally {
    closeSync(fd);
  }
}

/** readText's bytes, kept for the next file (one per thread): a new buffer of a block's size for each file, and its
 * pages faulted in again, cost about as much as the read itself. The text is a copy, so nothing keeps it. */
let scratch = Buffer.alloc(0);

/** UTF-8 bytes as text. Block files are nearly always pure ASCII, and then latin1 reads the same text three times
 * faster than UTF-8. */
export function textOf(bytes: Uint8Array): string {
  const data = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return isAscii(data) ? data.toString('latin1') : data.toString('utf8');
}

function parse(raw: RawBlock): Block {
  switch (raw.kind) {
    case 'message':
      return normalizeStreamerMessage(JSON.parse(textOf(raw.body)));
    case 'message-file':
      return normalizeStreamerMessage(JSON.parse(readText(raw.path)));
    case 'lake': {
      // The source fetched one shard file per chunk, by the chunk's shard id: each must hold that shard (R: in the
      // fixture blocks mainnet 151768255 and testnet 232952651 and 234187695, each shard's `shard_id` is its chunk's).
      const shards = raw.shards.map((body) => JSON.parse(textOf(body)) as { shard_id?: unknown } | null);
      const chunks = (raw.block as { chunks: { shard_id: number }[] }).chunks;
      shards.forEach((shard, i) => {
        if (shard?.shard_id !== chunks[i]?.shard_id) throw new Error(`shard_${chunks[i]?.shard_id}.json holds shard ${String(shard?.shard_id)}`);
      });
      return normalizeLakeLayout(raw.block, shards);
    }
    case 'lake-dir': {
      const shardFiles = readdirSync(raw.path).filter((n) => /^shard_\d+\.json$/.test(n));
      const [block, ...shards] = ['block.json', ...shardFiles].map((n) => JSON.parse(readText(path.join(raw.path, n))));
      return normalizeLakeLayout(block, shards);
    }
  }
}

/** Where a raw block came from, for error messages. */
export function describeRaw(raw: RawBlock): string {
  return 'path' in raw ? raw.path : `block ${raw.height}`;
}

/** Whether a JSON answer's bytes run from `{` to `}` (whitespace aside): the cheap check of a network answer's ends,
 * which a proxy's page and most bodies cut short fail; the full parse on a decode worker finds the rest. */
export const looksLikeObject = (body: Uint8Array): boolean => {
  const [first, last] = ends(body);
  return first < last && body[first] === 0x7b && body[last] === 0x7d; // { }
};

/** Whether a JSON answer's bytes are `null` (whitespace aside). */
export const isNullJson = (body: Uint8Array): boolean => {
  const [first, last] = ends(body);
  return last - first === 3 && textOf(body.subarray(first, last + 1)) === 'null';
};

/** JSON's whitespace: space, tab, line feed, carriage return. */
const isSpace = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/** The first and last non-whitespace byte's index (first > last when there is none). */
function ends(body: Uint8Array): [number, number] {
  let first = 0;
  let last = body.length - 1;
  while (first <= last && isSpace(body[first]!)) first++;
  while (last >= first && isSpace(body[last]!)) last--;
  return [first, last];
}

/** A raw block that is not the block it should be: not JSON, not a block, or another height. A network source
 * fetches it again (`BlockSource.refetch`). */
export class MalformedBlockError extends Error {}

export async function loadRawBlock(raw: RawBlock): Promise<Block> {
  let block: Block;
  try {
    block = parse(raw);
  } catch (error) {
    throw new MalformedBlockError(`${describeRaw(raw)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (block.height !== raw.height) throw new MalformedBlockError(`${describeRaw(raw)}: expected block ${raw.height}, holds block ${block.height}`);
  return block;
}

/**
 * `decode(raw)`, with a malformed raw block fetched again from `source` (when it can) until it decodes; null when
 * the source now reads the height as skipped.
 */
export async function decodeRefetching<T>(
  source: Pick<BlockSource, 'refetch'>,
  raw: RawBlock,
  decode: (raw: RawBlock) => Promise<T>,
  signal: AbortSignal,
): Promise<T | null> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await decode(raw);
    } catch (error) {
      if (!(error instanceof MalformedBlockError) || source.refetch === undefined || signal.aborted) throw error;
      const again = await source.refetch(raw.height, error, attempt, signal);
      if (again === null) return null;
      raw = again;
    }
  }
}

/** A source from its raw stream: `blocks()` parses each raw block in turn. */
export function rawSource(
  name: string,
  sparse: boolean,
  raw: (range: BlockRange, signal: AbortSignal) => AsyncIterable<RawBlock>,
  extra: Pick<BlockSource, 'stats' | 'refetch'> = {},
): BlockSource {
  const source: BlockSource = {
    name,
    sparse,
    raw,
    ...extra,
    async *blocks(range, signal) {
      for await (const r of raw(range, signal)) {
        const block = await decodeRefetching(source, r, loadRawBlock, signal);
        if (block !== null) yield block;
      }
    },
  };
  return source;
}
