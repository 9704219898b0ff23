// Bulk writes with COPY FROM STDIN (pg-copy-streams): several times faster than INSERT ... unnest for the
// append-only tables, because PostgreSQL parses no array literals and plans no statement per batch.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { quoteIdent } from './connect.ts';

export type CopyValue = string | number | bigint | boolean | null;

// COPY's text format: a backslash, tab, newline or carriage return inside a value must be escaped.
const SPECIAL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function field(value: CopyValue): string {
  if (value === null) return '\\N';
  if (typeof value === 'string') return value.replace(SPECIAL, (c) => ESCAPES[c]!);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return String(value);
}

/** Appends rows (each an array in `columns` order) to `table`; the client's transaction covers it. */
export async function copyRows(client: pg.ClientBase, table: string, columns: readonly string[], rows: Iterable<readonly CopyValue[]>): Promise<number> {
  const chunks: string[] = [];
  let count = 0;
  let chunk = '';
  for (const row of rows) {
    chunk += `${row.map(field).join('\t')}\n`;
    count++;
    // Hand the stream chunks of about 1 MB: big enough to be cheap, small enough not to hold one huge string.
    if (chunk.length > 1 << 20) {
      chunks.push(chunk);
      chunk = '';
    }
  }
  if (!count) return 0;
  chunks.push(chunk);
  const sql = `copy ${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')}) from stdin`;
  await pipeline(Readable.from(chunks), client.query(copyFrom(sql)));
  return count;
}
