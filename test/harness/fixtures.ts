// The real test data in test/fixtures/ (sources and licenses in its SOURCES.md, README.md and LICENSES.md): blocks,
// the Ref pool snapshot and an intents transaction. Each JSON file is stored gzipped (`mainnet/81206675.json` is
// `mainnet/81206675.json.gz`) and read here by the name it had before, gunzipped in memory; the Lake-layout folder is
// kept uncompressed, as the bucket stores it.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readText } from '../../indexer/sources/raw.ts';
import { normalizeLakeLayout, normalizeStreamerMessage, type Block } from '../../near/block.ts';

export const FIXTURES_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');
/** The blocks: `mainnet/`, `testnet/`, `localnet/lake-layout/`, and their SOURCES.md. */
export const FIXTURES_DIR = path.join(FIXTURES_ROOT, 'blocks');

/** Where a file of `root` is stored: as named, else gzipped beside that name. */
function stored(root: string, rel: string): string {
  const plain = path.join(root, rel);
  return existsSync(plain) || !existsSync(`${plain}.gz`) ? plain : `${plain}.gz`;
}

/** The stored path of a block fixture (`mainnet/81206675.json` -> its `.json.gz`), a folder, or SOURCES.md. */
export function fixturePath(rel: string): string {
  return stored(FIXTURES_DIR, rel);
}

export function readFixtureText(rel: string): string {
  return readText(fixturePath(rel));
}

export function readFixture(rel: string): unknown {
  return JSON.parse(readFixtureText(rel));
}

/** The combined-message blocks of one network (`mainnet`), by the names `loadBlock` takes, in name order. */
export function fixtureFiles(net: string): string[] {
  return readdirSync(path.join(FIXTURES_DIR, net))
    .filter((f) => /\.json(\.gz)?$/.test(f))
    .map((f) => `${net}/${f.replace(/\.gz$/, '')}`)
    .sort();
}

/** Any file of test/fixtures (`pools/ref-indexer-pools-2024-04.json`, `truth/quote-a/...`) as text, gunzipped. */
export function readDataText(rel: string): string {
  return readText(stored(FIXTURES_ROOT, rel));
}

const cache = new Map<string, Block>();

/** A combined-message file (`mainnet/114081912.json`) or a Lake-layout folder, normalized directly. */
export function loadBlock(rel: string): Block {
  let block = cache.get(rel);
  if (block === undefined) {
    block = rel.includes('lake-layout') ? loadLakeLayout(rel) : normalizeStreamerMessage(readFixture(rel));
    cache.set(rel, block);
  }
  return block;
}

function loadLakeLayout(rel: string): Block {
  const read = (f: string): unknown => readFixture(path.join(rel, f));
  const shards = readdirSync(fixturePath(rel)).filter((f) => /^shard_\d+\.json$/.test(f));
  return normalizeLakeLayout(read('block.json'), shards.map(read));
}
