// Turning a raw block into the normalized Block: the one place that parses what the sources read, on whichever
// thread calls it, and checks that the block holds the height its source announced.
import { isAscii } from 'node:buffer';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { normalizeLakeLayout, normalizeStreamerMessage, type Block } from '../../near/block.ts';
import type { BlockRange, BlockSource, RawBlock, SourceStats } from './source.ts';

/** A block file's text. Synchronous on purpose: it runs where the text is parsed next, and the parse holds the thread
 * far longer than the read (from the page cache, one read of the whole file is 3x faster than fs/promises'
 * readFile, which reads 512 KiB at a time). */
export function readText(file: string): string {
  const read = readFileSync(file);
  const data = file.endsWith('.gz') ? gunzipSync(read) : read;
  // Block files are nearly always pure ASCII, and then latin1 reads the same text three times faster than UTF-8.
  return isAscii(data) ? data.toString('latin1') : data.toString('utf8');
}

function parse(raw: RawBlock): Block {
  switch (raw.kind) {
    case 'message':
      return normalizeStreamerMessage(JSON.parse(raw.text));
    case 'message-file':
      return normalizeStreamerMessage(JSON.parse(readText(raw.path)));
    case 'lake':
      return normalizeLakeLayout(raw.block, raw.shards.map((text) => JSON.parse(text)));
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

export async function loadRawBlock(raw: RawBlock): Promise<Block> {
  let block: Block;
  try {
    block = parse(raw);
  } catch (error) {
    throw new Error(`${describeRaw(raw)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (block.height !== raw.height) throw new Error(`${describeRaw(raw)}: expected block ${raw.height}, holds block ${block.height}`);
  return block;
}

/** A source from its raw stream: `blocks()` parses each raw block in turn. */
export function rawSource(
  name: string,
  sparse: boolean,
  raw: (range: BlockRange, signal: AbortSignal) => AsyncIterable<RawBlock>,
  stats: () => SourceStats | undefined = () => undefined,
): BlockSource {
  return {
    name,
    sparse,
    raw,
    stats,
    async *blocks(range, signal) {
      for await (const r of raw(range, signal)) yield await loadRawBlock(r);
    },
  };
}
