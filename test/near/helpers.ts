// Shared by the near/ tests: where the real blocks are, and how to read them.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalizeLakeLayout, normalizeStreamerMessage } from '../../near/block.ts';
import type { Block } from '../../near/block.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** ../shared/fixtures/blocks relative to the repository root; never copied into the repo. */
export const FIXTURES_DIR = path.resolve(repoRoot, '../shared/fixtures/blocks');
export const HAVE_FIXTURES = existsSync(FIXTURES_DIR);

let warned = false;
export function noteIfMissing(): void {
  if (!HAVE_FIXTURES && !warned) {
    warned = true;
    console.warn(`[test/near] ${FIXTURES_DIR} is absent: skipping the tests on real blocks`);
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

/** A combined-message file (`mainnet/114081912.json`) or a Lake-layout folder, normalized. */
export function loadBlock(rel: string): Block {
  let block = cache.get(rel);
  if (block === undefined) {
    block = rel.includes('lake-layout') ? loadLakeLayout(rel) : normalizeStreamerMessage(readFixture(rel));
    cache.set(rel, block);
  }
  return block;
}

export function loadLakeLayout(rel: string): Block {
  const dir = fixturePath(rel);
  const shardFiles = readdirSync(dir).filter((f) => /^shard_\d+\.json$/.test(f));
  return normalizeLakeLayout(
    JSON.parse(readFileSync(path.join(dir, 'block.json'), 'utf8')),
    shardFiles.map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8'))),
  );
}

/**
 * JSON.parse the way near-lake-framework 1.0.6 does (dist/utils.js, parseBody): a reviver that
 * rebuilds every non-array object with its keys split on `_` and re-joined with each later
 * word's first letter upper-cased. So keys nested under PascalCase tags are renamed too
 * (`FunctionCall.method_name` -> `methodName`), the tags themselves have no `_` and survive, and
 * string values (`"data_update"`) are untouched. Written here, independent of near/block.ts.
 */
export function parseLikeLakeFramework(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const renamed: Record<string, unknown> = {};
      for (const key in value as Record<string, unknown>) {
        const newKey = key
          .split('_')
          .map((word, i) => (i > 0 ? word.charAt(0).toUpperCase() + word.slice(1) : word))
          .join('');
        renamed[newKey] = (value as Record<string, unknown>)[key];
      }
      return renamed;
    }
    return value;
  });
}

export interface SourceRow {
  height: number;
  net: string;
  file: string;
  casing: 'snake_case' | 'camelCase';
  txs: number;
  outcomes: number;
  eventJsonLogs: number;
  refSwappedLogs: number;
}

/** The table of SOURCES.md, an independent account of each fixture's contents. */
export function readSources(): SourceRow[] {
  const rows: SourceRow[] = [];
  for (const line of readFixtureText('SOURCES.md').split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // | height | net | file | casing | txs | outcomes | EVENT_JSON | Swapped | source | license |
    if (!/^\d+$/.test(cells[1] ?? '')) continue;
    rows.push({
      height: Number(cells[1]),
      net: cells[2] ?? '',
      file: cells[3] ?? '',
      casing: cells[4] as SourceRow['casing'],
      txs: Number(cells[5]),
      outcomes: Number(cells[6]),
      eventJsonLogs: Number(cells[7]),
      refSwappedLogs: Number(cells[8]),
    });
  }
  return rows;
}

/** Serializes with bigints tagged, for cheap equality of big structures. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}
