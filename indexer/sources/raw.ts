// Turning a raw block into the normalized Block: the one place that parses what the sources read, on whichever
// thread calls it, and checks that the block holds the height its source announced.
import { isAscii } from 'node:buffer';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { normalizeLakeLayout, normalizeStreamerMessage, type Block } from '../../near/block.ts';
import type { BlockRange, BlockSource, RawBlock } from './source.ts';

const gunzipAsync = promisify(gunzip);

export async function readText(file: string): Promise<string> {
  const read = await readFile(file);
  const data = file.endsWith('.gz') ? await gunzipAsync(read) : read;
  // Block files are nearly always pure ASCII, and then latin1 reads the same text three times faster than UTF-8.
  return isAscii(data) ? data.toString('latin1') : data.toString('utf8');
}

function parse(raw: RawBlock): Promise<Block> | Block {
  switch (raw.kind) {
    case 'message':
      return normalizeStreamerMessage(JSON.parse(raw.text));
    case 'message-file':
      return readText(raw.path).then((text) => normalizeStreamerMessage(JSON.parse(text)));
    case 'lake':
      return normalizeLakeLayout(raw.block, raw.shards.map((text) => JSON.parse(text)));
    case 'lake-dir':
      return (async () => {
        const shardFiles = (await readdir(raw.path)).filter((n) => /^shard_\d+\.json$/.test(n));
        const [block, ...shards] = await Promise.all(['block.json', ...shardFiles].map((n) => readText(path.join(raw.path, n))));
        return normalizeLakeLayout(JSON.parse(block!), shards.map((text) => JSON.parse(text)));
      })();
  }
}

/** Where a raw block came from, for error messages. */
export function describeRaw(raw: RawBlock): string {
  return 'path' in raw ? raw.path : `block ${raw.height}`;
}

export async function loadRawBlock(raw: RawBlock): Promise<Block> {
  let block: Block;
  try {
    block = await parse(raw);
  } catch (error) {
    throw new Error(`${describeRaw(raw)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (block.height !== raw.height) throw new Error(`${describeRaw(raw)}: expected block ${raw.height}, holds block ${block.height}`);
  return block;
}

/** A source from its raw stream: `blocks()` parses each raw block in turn. */
export function rawSource(name: string, sparse: boolean, raw: (range: BlockRange, signal: AbortSignal) => AsyncIterable<RawBlock>): BlockSource {
  return {
    name,
    sparse,
    raw,
    async *blocks(range, signal) {
      for await (const r of raw(range, signal)) yield await loadRawBlock(r);
    },
  };
}
