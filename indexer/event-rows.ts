// Domain events <-> rows of the `events` log. The row keeps the key and base fields in columns and the rest as
// a JSON payload with amounts as decimal strings; reading a row back gives the same event, bigint and all.
import { NEAR_TOKEN_ID } from '../near/token-id.ts';
import { jsonWithBigints } from '../near/units.ts';
import type { DecodedDexEvent } from '../dexes/index.ts';
import type { CoreEvent } from '../near/events.ts';
import type { Database } from '../db/schema.ts';
import type { Selectable } from 'kysely';
import { copyText, type CopyValue } from '../db/copy-text.ts';

export type DomainEvent = CoreEvent | DecodedDexEvent;

const BASE = new Set(['blockHeight', 'timestampMs', 'receiptId', 'txHash', 'index', 'kind']);
/** Top-level payload fields that hold amounts (or arrays of amounts), read back as bigint. Amounts nested deeper
 * (a pool's state) stay decimal strings: the projections copy them as they are. */
const AMOUNTS = new Set(['amount', 'deposit', 'amountIn', 'amountOut', 'totalFee', 'adminFee', 'amounts', 'shares', 'available', 'delta']);

/** JSON with every bigint, at any depth, as a decimal string. */
export const jsonWithAmounts = jsonWithBigints;

export const EVENT_COLUMNS = ['block_height', 'receipt_id', 'index', 'kind', 'timestamp_ms', 'tx_hash', 'payload'] as const;

/** An event as a row of `events`, in EVENT_COLUMNS order. */
export function eventRow(event: DomainEvent): CopyValue[] {
  // The payload's JSON written field by field: no payload object to build, copy and walk (the log's hottest path).
  let payload = '';
  for (const key in event) {
    const value = (event as unknown as Record<string, unknown>)[key];
    if (BASE.has(key) || value === undefined) continue;
    payload += `${payload === '' ? '{' : ','}"${key}":${typeof value === 'bigint' ? `"${value}"` : jsonWithAmounts(value)}`;
  }
  return [event.blockHeight, event.receiptId, event.index, event.kind, event.timestampMs, event.txHash, payload === '' ? '{}' : `${payload}}`];
}

/** The `transfers` projection's columns: one row per token or NEAR move. */
export const TRANSFER_COLUMNS = ['block_height', 'receipt_id', 'index', 'timestamp_ms', 'tx_hash', 'token', 'sender', 'receiver', 'amount', 'memo'] as const;

/** An event's row of `transfers` (a mint has no sender, a burn no receiver), or null for any other event. Gas and
 * deposit refunds from `system` are no transfer: counting them would credit money that no event debited. */
export function transferRow(e: DomainEvent): CopyValue[] | null {
  switch (e.kind) {
    case 'ft_transfer':
      return [e.blockHeight, e.receiptId, e.index, e.timestampMs, e.txHash, e.contractId, e.from, e.to, e.amount, e.memo];
    case 'ft_mint':
      return [e.blockHeight, e.receiptId, e.index, e.timestampMs, e.txHash, e.contractId, null, e.owner, e.amount, null];
    case 'ft_burn':
      return [e.blockHeight, e.receiptId, e.index, e.timestampMs, e.txHash, e.contractId, e.owner, null, e.amount, null];
    case 'near_transfer':
      if (e.refund) return null;
      return [e.blockHeight, e.receiptId, e.index, e.timestampMs, e.txHash, NEAR_TOKEN_ID, e.from, e.to, e.amount, null];
    default:
      return null;
  }
}

/** The COPY text of the rows that are one per event: the log's and the transfers'. */
export interface EventRowsText {
  events: string;
  transfers: string;
}

/** Rendered where the events are made (a decode worker, per block), so the writer only joins text. */
export function eventRowsText(events: readonly DomainEvent[]): EventRowsText {
  return { events: copyText(events.map(eventRow)), transfers: transfersText(events) };
}

export function transfersText(events: readonly DomainEvent[]): string {
  const rows: CopyValue[][] = [];
  for (const e of events) {
    const row = transferRow(e);
    if (row !== null) rows.push(row);
  }
  return copyText(rows);
}

export function fromRow(row: Selectable<Database['events']>): DomainEvent {
  const event: Record<string, unknown> = {
    blockHeight: row.block_height,
    timestampMs: row.timestamp_ms,
    receiptId: row.receipt_id,
    txHash: row.tx_hash,
    index: row.index,
    kind: row.kind,
  };
  for (const [key, value] of Object.entries(row.payload as Record<string, unknown>)) {
    event[key] = AMOUNTS.has(key) ? reviveAmount(value) : value;
  }
  return event as unknown as DomainEvent;
}

function reviveAmount(value: unknown): unknown {
  if (typeof value === 'string') return BigInt(value);
  if (Array.isArray(value)) return value.map(reviveAmount);
  return value;
}

/** The order every projection sees events in, live and in rebuilds alike. */
export function compareEvents(a: DomainEvent, b: DomainEvent): number {
  return a.blockHeight - b.blockHeight || (a.receiptId < b.receiptId ? -1 : a.receiptId > b.receiptId ? 1 : 0) || a.index - b.index;
}
