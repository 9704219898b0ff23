// COPY's text format, pure: rows can be rendered on any thread (a decode worker renders the rows that are one per
// event) and handed to copyRows as text. A backslash, tab, newline or carriage return inside a value is escaped.

/** COPY text in pieces of whole rows, sent one after another: a batch's text is megabytes, and joining the pieces
 * into one string cost the writer's thread more than sending them. */
export type CopyChunks = readonly string[];

export const isCopyChunks = (value: unknown): value is CopyChunks => Array.isArray(value) && typeof value[0] === 'string';

export type CopyValue = string | number | bigint | boolean | null | readonly (string | number | bigint)[];

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
