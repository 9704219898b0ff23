// Bulk writes with COPY FROM STDIN (pg-copy-streams): several times faster than INSERT ... unnest for the
// append-only tables, because PostgreSQL parses no array literals and plans no statement per batch.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { quoteIdent } from './connect.ts';
import { copyText, type CopyValue } from './copy-text.ts';

/** Appends COPY text (or rows) to `table`; the client's transaction covers it. */
export async function copyRows(client: pg.ClientBase, table: string, columns: readonly string[], rows: string | Iterable<readonly CopyValue[]>): Promise<void> {
  const text = typeof rows === 'string' ? rows : copyText(rows);
  if (!text) return;
  const sql = `copy ${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')}) from stdin`;
  await pipeline(Readable.from([text]), client.query(copyFrom(sql)));
}
