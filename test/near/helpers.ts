// Shared by the near/ tests: where the real blocks are, and how to read them.
import { readFixtureText } from '../harness/fixtures.ts';

export { FIXTURES_DIR, fixturePath, loadBlock, readFixture, readFixtureText } from '../harness/fixtures.ts';

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
