// The OpenAPI 3.1 document of the token-data HTTP methods, built from the same zod schemas that validate them
// (OpenAPI 3.1 schemas are JSON Schema 2020-12, which z.toJSONSchema writes). GET parameters are listed as the
// query string takes them: lists comma-separated, object keys dotted, keys of `where` without the prefix,
// `sort=-field`, `at=<token>:<timestamp_millis>`.
import { z } from 'zod';
import { CREDIT_COSTS } from './credits.ts';
import { LIMITS, PROTOCOL_VERSION } from './limits.ts';
import type { Method } from './method.ts';

type Json = Record<string, any>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  return rest;
}

/** A GET parameter per leaf of the params schema, named as the query string spells it. */
function queryParameters(method: Method): Json[] {
  const root = jsonSchema(method.params, 'input');
  const required = new Set<string>(root.required ?? []);
  const out: Json[] = [];
  const leaf = (name: string, schema: Json, isRequired: boolean) => {
    const style = schema.type === 'array' ? { style: 'form', explode: false } : {};
    out.push({ name, in: 'query', required: isRequired, schema, ...style, ...(schema.description ? { description: schema.description } : {}) });
  };
  const walk = (prefix: string, schema: Json, isRequired: boolean) => {
    if (schema.type === 'object' && schema.properties) {
      const inner = new Set<string>(schema.required ?? []);
      for (const [key, child] of Object.entries<Json>(schema.properties)) walk(prefix ? `${prefix}.${key}` : key, child, isRequired && inner.has(key));
    } else {
      leaf(prefix, schema, isRequired);
    }
  };
  for (const [key, schema] of Object.entries<Json>(root.properties ?? {})) {
    if (key === 'sort') {
      leaf('sort', { type: 'string', description: 'field to sort by, ascending; `-field` for descending', example: '-liquidity_usd' }, false);
    } else if (key === 'at' && method.name === 'prices.at') {
      leaf('at', { type: 'string', description: '`<token>:<timestamp_millis>`, comma-separated', example: 'wrap.near:1767225600000' }, true);
    } else if (key === 'where') {
      // Keys of where go without the prefix.
      for (const [whereKey, child] of Object.entries<Json>(schema.properties ?? {})) walk(whereKey, child, false);
    } else {
      walk(key, schema, required.has(key));
    }
  }
  return out;
}

const errorSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string', enum: ['bad_request', 'invalid_params', 'too_large', 'rate_limited', 'limit_exceeded', 'not_found', 'unknown_method', 'internal'] }, message: { type: 'string' } },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
};

export function openApiDocument(methods: readonly Method[]): Json {
  const headers = {
    'X-Credits-Used': { description: 'credits this response costs (see the schema method)', schema: { type: 'integer' } },
    'Cache-Control': { description: '`public, max-age=1`; `public, max-age=86400` for purely historical answers; `no-store` when an asked-about token does not exist, and on errors', schema: { type: 'string' } },
  };
  const errors = {
    '400': { description: 'bad_request, invalid_params (an unknown DEX id, a malformed account id), too_large, rate_limited (with Retry-After), limit_exceeded', headers, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    '404': { description: 'not_found, unknown_method', headers, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    '500': { description: 'internal', headers, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
  };
  const paths: Json = {};
  for (const method of methods) {
    if (!method.path) continue;
    const ok = { description: 'the result (the same object the /ws socket replies with)', headers, content: { 'application/json': { schema: jsonSchema(method.result, 'output') } } };
    const cost = CREDIT_COSTS[method.name];
    const description = `${method.summary}${cost ? ` Credits: ${cost.base} + ${cost.per_100_rows} per started 100 rows.` : ''} Socket method: \`${method.name}\`.`;
    paths[method.path] = {
      get: { operationId: `${method.name}.get`, summary: method.summary, description, parameters: queryParameters(method), responses: { '200': ok, ...errors } },
      post: {
        operationId: `${method.name}.post`,
        summary: method.summary,
        description: `${description} The body is the socket's params, at most ${LIMITS.max_message_bytes} bytes.`,
        requestBody: { required: false, content: { 'application/json': { schema: jsonSchema(method.params, 'input') } } },
        responses: { '200': ok, ...errors },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'dexlake token data',
      version: String(PROTOCOL_VERSION),
      description: 'Token records, pools, trades, transfers, activity, candles, prices, balances, holders and positions. The same methods, with subscriptions (the token table, a live trade feed), are on the WebSocket at /ws; the `schema` method describes both.',
    },
    paths,
    components: { schemas: { Error: errorSchema } },
  };
}
