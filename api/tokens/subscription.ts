// tokens.subscribe: params, and the pure diff between the last pushed state and a fresh table: `set` (per token,
// only the fields that changed, and only past their `min_change`), `left` (tokens that dropped out).
import { z } from 'zod';
import { parseScaled } from './decimal.ts';
import { NUMERIC_FIELDS, type TokenField } from './token-fields.ts';
import { tokensGetParams, type TokenTableResult } from './methods/tokens.ts';

const percent = z.string().regex(/^\d+(\.\d+)?%$/, 'a percentage such as 5%');

export const tokensSubscribeParams = tokensGetParams.extend({
  min_change: z
    .strictObject(Object.fromEntries(NUMERIC_FIELDS.map((f) => [f, percent.optional()])) as Record<TokenField, z.ZodOptional<typeof percent>>)
    .optional()
    .describe('per numeric field, the relative move (e.g. "5%") since the last pushed value needed to push it again'),
});
export type TokensSubscribeParams = z.output<typeof tokensSubscribeParams>;

export type Values = Record<string, string | number | null>;
/** What a subscriber was last sent: per token, per field. */
export type Pushed = Map<string, Values>;

export function tableToPushed(table: TokenTableResult): Pushed {
  const pushed: Pushed = new Map();
  for (const row of table.rows) {
    const values: Values = {};
    table.columns.forEach((column, i) => {
      if (i > 0) values[column] = row[i] ?? null;
    });
    pushed.set(String(row[0]), values);
  }
  return pushed;
}

/** Whether `next` moved far enough from `last` (a relative threshold like "5%"); any move without a threshold. */
export function passesMinChange(last: string | number | null, next: string | number | null, threshold: string | undefined): boolean {
  if (last === next) return false;
  if (threshold === undefined || last === null || next === null) return true;
  const old = parseScaled(String(last));
  if (old === 0n) return true;
  const diff = parseScaled(String(next)) - old;
  const abs = (x: bigint) => (x < 0n ? -x : x);
  // |next - last| / |last| >= pct / 100, in integers: |diff| * 100 * 10^18 >= pct * 10^18 * |last|
  return abs(diff) * 100n * 10n ** 18n >= parseScaled(threshold.slice(0, -1)) * abs(old);
}

export interface Diff {
  set: Record<string, Values>;
  left: string[];
}

/**
 * The push for a fresh table, and the state the subscriber has after it. A token entering the list is sent
 * whole; a followed token only with its fields that passed `min_change` (a suppressed field keeps its last sent
 * value, so small moves add up until one passes). Pure.
 */
export function diffTable(last: Pushed, table: TokenTableResult, minChange: Partial<Record<string, string>> = {}): { diff: Diff; next: Pushed } {
  const fresh = tableToPushed(table);
  const next: Pushed = new Map();
  const set: Record<string, Values> = {};
  for (const [token, values] of fresh) {
    const before = last.get(token);
    if (!before) {
      set[token] = values;
      next.set(token, values);
      continue;
    }
    const changed: Values = {};
    const kept: Values = { ...before };
    for (const [field, value] of Object.entries(values)) {
      if (passesMinChange(before[field] ?? null, value, minChange[field])) {
        changed[field] = value;
        kept[field] = value;
      }
    }
    if (Object.keys(changed).length) set[token] = changed;
    next.set(token, kept);
  }
  const left = [...last.keys()].filter((token) => !fresh.has(token));
  return { diff: { set, left }, next };
}
