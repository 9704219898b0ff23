// Bulk writes with COPY FROM STDIN (pg-copy-streams): several times faster than INSERT ... unnest for the
// append-only tables, because PostgreSQL parses no array literals and plans no statement per batch.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { quoteIdent } from './connect.ts';
import { copyText, isCopyChunks, type CopyChunks, type CopyValue } from './copy-text.ts';

/** Appends COPY text (whole or in chunks) or rows to `table`; the client's transaction covers it. */
export async function copyRows(client: pg.ClientBase, table: string, columns: readonly string[], rows: string | CopyChunks | Iterable<readonly CopyValue[]>): Promise<void> {
  const chunks = (typeof rows === 'string' ? [rows] : isCopyChunks(rows) ? rows : [copyText(rows)]).filter((chunk) => chunk !== '');
  if (!chunks.length) return;
  const sql = `copy ${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')}) from stdin`;
  await pipeline(Readable.from(chunks), client.query(copyFrom(sql)));
}
