// The real blocks in ../shared/fixtures/blocks (relative to the repository root): read from there, never copied
// into the repository. Tests that need them skip, with one note, when the folder is absent.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalizeLakeLayout, normalizeStreamerMessage, type Block } from '../../near/block.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const FIXTURES_DIR = path.resolve(repoRoot, '../shared/fixtures/blocks');
export const HAVE_FIXTURES = existsSync(FIXTURES_DIR);
export const SKIP_MESSAGE = `${FIXTURES_DIR} is absent: skipping the tests on real blocks`;

let warned = false;
export function noteIfMissing(): void {
  if (!HAVE_FIXTURES && !warned) {
    warned = true;
    console.warn(SKIP_MESSAGE);
  }
}

export function fixturePath(rel: string): string {
  return path.join(FIXTURES_DIR, rel);
}

export function readFixtureText(rel: string): string {
  return readFileSync(fixturePath(rel), 'utf8');
}

export function readFixture(rel: string): unknown {
  return JSON.parse(readFixtureText(rel));
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
  const dir = fixturePath(rel);
  const read = (f: string): unknown => JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
  const shards = readdirSync(dir).filter((f) => /^shard_\d+\.json$/.test(f));
  return normalizeLakeLayout(read('block.json'), shards.map(read));
}
