// Bulk writes with COPY FROM STDIN (pg-copy-streams): several times faster than INSERT ... unnest for the
// append-only tables, because PostgreSQL parses no array literals and plans no statement per batch.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { quoteIdent } from './connect.ts';

export type CopyValue = string | number | bigint | boolean | null | readonly (string | number | bigint)[];

// COPY's text format: a backslash, tab, newline or carriage return inside a value must be escaped.
const SPECIAL = /[\\\t\n\r]/g;
const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A PostgreSQL array literal, every element quoted. */
function arrayLiteral(values: readonly (string | number | bigint)[]): string {
  return `{${values.map((v) => `"${String(v).replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}

function field(value: CopyValue): string {
  if (value === null) return '\\N';
  if (Array.isArray(value)) value = arrayLiteral(value);
  if (typeof value === 'string') return NEEDS_ESCAPE.test(value) ? value.replace(SPECIAL, (c) => ESCAPES[c]!) : value;
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return String(value);
}

/** Rows (each an array of values in column order) as COPY text: pure, so it can be built ahead of the write. */
export function copyText(rows: Iterable<readonly CopyValue[]>): string {
  let text = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) text += i === 0 ? field(row[i]!) : `\t${field(row[i]!)}`;
    text += '\n';
  }
  return text;
}

/** Appends COPY text (or rows) to `table`; the client's transaction covers it. */
export async function copyRows(client: pg.ClientBase, table: string, columns: readonly string[], rows: string | Iterable<readonly CopyValue[]>): Promise<void> {
  const text = typeof rows === 'string' ? rows : copyText(rows);
  if (!text) return;
  const sql = `copy ${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')}) from stdin`;
  await pipeline(Readable.from([text]), client.query(copyFrom(sql)));
}
