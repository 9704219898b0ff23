// files:PATH: blocks from local files, for tests and replays. PATH is one combined `{block, shards}` file (`.json`
// or `.json.gz`) or a folder searched recursively for such files and for Lake-layout height folders
// (`<height>/block.json` + `shard_N.json`). Nothing is read until iteration starts, then one block at a time.
//
// Heights come from names that are all digits (`000000879765`, `100596707.json`), so files outside the range are
// never opened; a file with any other name (`190534818-alt.json`) is read first to learn its height. Two files of
// the same height give the block once: the first by path in plain code-unit order. That order is deterministic and
// needs no rule about which copy is "better"; note it puts `190534818-alt.json` before `190534818.json` ('-' < '.').

import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { rawSource, readText } from './raw.ts';
import type { BlockRange, BlockSource, RawBlock } from './source.ts';

interface Entry {
  /** `combined`: one `{block, shards}` file; `lake`: a folder with block.json and its shard files. */
  kind: 'combined' | 'lake';
  path: string;
  height: number;
}

type Found = Omit<Entry, 'height'> & { height: number | null };

export function filesSource(root: string): BlockSource {
  // The last block of the set is this source's head (for the progress line's ETA and the bulk-load mode).
  let head: number | undefined;
  return rawSource(
    `files:${root}`,
    true,
    (range, signal) => listBlocks(root, range, signal, (last) => (head = last)),
    { stats: () => (head === undefined ? undefined : { inFlight: 0, limit: 0, heldBytes: 0, head }) },
  );
}

/** The files themselves are read where the blocks are decoded: here only their names and heights. */
async function* listBlocks(root: string, range: BlockRange, signal: AbortSignal, onHead: (height: number) => void): AsyncGenerator<RawBlock> {
  try {
    const entries = await plan(root, range, signal);
    const last = entries.at(-1);
    if (last !== undefined) onHead(last.height);
    for (const entry of entries) {
      if (signal.aborted) return;
      yield entry.kind === 'combined'
        ? { kind: 'message-file', height: entry.height, path: entry.path }
        : { kind: 'lake-dir', height: entry.height, path: entry.path };
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}

/** The entries of the range in height order, one per height. */
async function plan(root: string, range: BlockRange, signal: AbortSignal): Promise<Entry[]> {
  const found: Found[] = [];
  await collect(root, true, found);
  const entries: Entry[] = [];
  for (const f of found) {
    signal.throwIfAborted();
    const height = f.height ?? (await readHeight(f, signal));
    if (range.from !== undefined && height < range.from) continue;
    if (range.to !== undefined && height > range.to) continue;
    entries.push({ ...f, height });
  }
  entries.sort((a, b) => a.height - b.height || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return entries.filter((e, i) => i === 0 || entries[i - 1]?.height !== e.height);
}

async function collect(p: string, isRoot: boolean, out: Found[]): Promise<void> {
  const st = await stat(p);
  if (st.isFile()) {
    if (isRoot || /\.json(\.gz)?$/.test(p)) out.push({ kind: 'combined', path: p, height: heightFromName(p) });
    return;
  }
  if (!st.isDirectory()) return;
  const children = await readdir(p, { withFileTypes: true });
  if (children.some((c) => c.name === 'block.json' && !c.isDirectory())) {
    out.push({ kind: 'lake', path: p, height: heightFromName(p) });
    return;
  }
  for (const child of children) await collect(path.join(p, child.name), false, out);
}

function heightFromName(p: string): number | null {
  const name = path.basename(p).replace(/\.json(\.gz)?$/, '');
  return /^\d+$/.test(name) && Number.isSafeInteger(Number(name)) ? Number(name) : null;
}

/** For a name that does not say it: the header height (`header.height` in either casing). */
function readHeight(f: Found, signal: AbortSignal): Promise<number> {
  type Header = { header?: { height?: unknown } } | null | undefined;
  return naming(f.path, signal, async () => {
    const file = f.kind === 'lake' ? path.join(f.path, 'block.json') : f.path;
    const json = JSON.parse(readText(file)) as Header & { block?: Header };
    // A Lake block.json is the block itself; a combined message holds it under `block`.
    const height = (f.kind === 'lake' ? json : json?.block)?.header?.height;
    if (typeof height === 'number' && Number.isSafeInteger(height)) return height;
    throw new Error('not a NEAR block (no header.height)');
  });
}

/** Puts the file or folder in the message of any error but an abort. */
async function naming<T>(p: string, signal: AbortSignal, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (signal.aborted) throw error;
    throw new Error(`${p}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

