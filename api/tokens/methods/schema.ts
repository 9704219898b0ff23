// schema: every method with its params and result as JSON Schema (from the same zod schemas that validate
// them), the token fields and their types, the credit costs and the limits.
import { z } from 'zod';
import { CREDIT_COSTS, ERROR_CREDITS } from '../credits.ts';
import { LIMITS, PROTOCOL_VERSION } from '../limits.ts';
import { defineMethod, type Method } from '../method.ts';
import { NOT_FAKE_MIN_LIQUIDITY_USD, REPUTATIONS, TOKEN_FIELDS } from '../token-fields.ts';

const FIELD_JSON_TYPES = {
  text: { type: ['string', 'null'] },
  integer: { type: ['integer', 'null'] },
  usd: { type: ['string', 'null'], format: 'decimal' },
  amount: { type: ['string', 'null'], format: 'integer' },
  reputation: { type: 'string', enum: REPUTATIONS },
} as const;

export interface MethodDoc {
  name: string;
  path: string | null;
  summary: string;
  params: unknown;
  result: unknown;
}

export function methodDoc(method: Method): MethodDoc {
  return {
    name: method.name,
    path: method.path ?? null,
    summary: method.summary,
    params: z.toJSONSchema(method.params, { io: 'input', unrepresentable: 'any' }),
    result: z.toJSONSchema(method.result, { io: 'output', unrepresentable: 'any' }),
  };
}

/** The schema method over a list of methods (the registry passes itself, so this file needs no import of it). */
export function schemaMethod(methods: () => readonly Method[]): Method {
  let docs: MethodDoc[] | undefined;
  return defineMethod({
    name: 'schema',
    path: '/schema',
    summary: 'This document: every method, the token fields, the credit costs, the limits.',
    params: z.strictObject({}),
    result: z.object({}).loose(),
    async run({ head }) {
      // The documents depend on the code only: built once, not after every block.
      docs ??= methods().map(methodDoc);
      const result = {
        height: head.height,
        timestamp_millis: head.timestamp_millis,
        version: PROTOCOL_VERSION,
        methods: docs,
        token_fields: Object.fromEntries(
          Object.entries(TOKEN_FIELDS).map(([name, f]) => [name, { ...FIELD_JSON_TYPES[f.kind], description: f.description }]),
        ),
        reputation: { order: REPUTATIONS, not_fake_min_liquidity_usd: NOT_FAKE_MIN_LIQUIDITY_USD },
        credits: { rule: 'base + per_100_rows for every started hundred rows returned; an error costs error', costs: CREDIT_COSTS, error: ERROR_CREDITS },
        limits: LIMITS,
        errors: { 400: 'bad_request, too_large, rate_limited, limit_exceeded', 404: 'not_found, unknown_method', 500: 'internal' },
      };
      return { result, cache: 'live', rows: 0 };
    },
  });
}
