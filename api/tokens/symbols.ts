// Symbols where a token id goes: every `tokenIdParam` of a method's params (ids.ts) may be given as a token's
// symbol. A text that names a known token (a `tokens` or `token_market` row) is that token; otherwise, a symbol
// (compared case-insensitively) that exactly one token carries names that token, one that several carry is a
// bad_request listing them, and anything else stays as given (a token the index does not know yet).
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import { sql } from '../../db/kysely.ts';
import type { Database } from '../../db/schema.ts';
import { badRequest } from './errors.ts';
import { tokenIdParam } from './ids.ts';

/** A place in a params value that holds a token id. */
interface Slot {
  text: string;
  set(value: string): void;
}

/** The token-id slots of `value` as `schema` validated it (objects, arrays and their optional or default forms). */
function slots(schema: z.ZodType, value: unknown, set: (v: string) => void, out: Slot[]): void {
  if (value === undefined || value === null) return;
  if (schema === (tokenIdParam as z.ZodType)) {
    if (typeof value === 'string') out.push({ text: value, set });
    return;
  }
  const def = (schema as unknown as { _zod: { def: Record<string, any> } })._zod.def;
  if (def.type === 'object' && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const [key, inner] of Object.entries(def.shape as Record<string, z.ZodType>)) {
      slots(inner, record[key], (v) => (record[key] = v), out);
    }
  } else if (def.type === 'array' && Array.isArray(value)) {
    value.forEach((item, i) => slots(def.element, item, (v) => (value[i] = v), out));
  } else if (def.innerType) {
    slots(def.innerType, value, set, out);
  }
}

/** `params` (validated by `schema`) with each token id given as a unique symbol replaced by its token. */
export async function resolveTokenParams<P>(db: Kysely<Database>, schema: z.ZodType, params: P): Promise<P> {
  const found: Slot[] = [];
  slots(schema, params, () => {}, found);
  if (!found.length) return params;
  const texts = [...new Set(found.map((s) => s.text))];
  const { rows } = await sql<{ text: string; token: string | null; candidates: string[] | null }>`
    select k.text, k.token,
      -- Symbols are looked up (tokens_symbol, migration 0016) only for texts that are no known token.
      case when k.token is null then (select array_agg(t.token order by t.token) from tokens t
        where lower(t.symbol) = lower(k.text) and t.token not like 'inner-nep141:%') end as candidates
    from (
      select q.text, (select q.text where exists (select 1 from tokens where token = q.text) or exists (select 1 from token_market where token = q.text)) as token
      from unnest(${texts}::text[]) as q(text)
    ) k`.execute(db);
  const resolved = new Map<string, string>();
  for (const r of rows) {
    if (r.token !== null || !r.candidates?.length) continue;
    if (r.candidates.length > 1) {
      throw badRequest(`${JSON.stringify(r.text)} is the symbol of ${r.candidates.length} tokens: ${r.candidates.join(', ')}; give the token id`);
    }
    resolved.set(r.text, r.candidates[0]!);
  }
  if (!resolved.size) return params;
  // The validated params may be cached or shared with equal requests: the resolved ones are a copy.
  const copy = structuredClone(params);
  const inCopy: Slot[] = [];
  slots(schema, copy, () => {}, inCopy);
  for (const slot of inCopy) {
    const token = resolved.get(slot.text);
    if (token !== undefined) slot.set(token);
  }
  return copy;
}
