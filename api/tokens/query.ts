// HTTP GET parameters -> the params object a method takes (the same object a POST body or a socket request
// carries). Pure; guided by the method's zod schema, so every method follows the spec's rules the same way:
//   lists are comma-separated; object keys are dotted (`min_change.price_usd=5%25`); keys of `where` go without
//   the prefix (`min_reputation=NotFake`, `min.liquidity_usd=1000`); `sort=-field` sorts descending;
//   `prices.at` takes `at=<token>:<timestamp_millis>,...`; a key given twice or not taken is `bad_request`.
import type { z } from 'zod';
import { badRequest } from './errors.ts';

type AnySchema = z.ZodType;

interface Def {
  type: string;
  innerType?: AnySchema;
  element?: AnySchema;
  shape?: Record<string, AnySchema>;
  in?: AnySchema;
}

const defOf = (schema: AnySchema) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under optional/default/nullable/pipe wrappers. */
export function unwrap(schema: AnySchema): AnySchema {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if ((def.type === 'optional' || def.type === 'default' || def.type === 'nullable' || def.type === 'prefault') && def.innerType) {
      current = def.innerType;
    } else if (def.type === 'pipe' && def.in) {
      current = def.in;
    } else {
      return current;
    }
  }
}

export function objectShape(schema: AnySchema): Record<string, AnySchema> | undefined {
  const inner = unwrap(schema);
  const def = defOf(inner);
  return def.type === 'object' ? (inner as unknown as { shape: Record<string, AnySchema> }).shape : undefined;
}

/** Parses one query value for a leaf of the schema: lists split on commas, numbers and booleans from their text. */
function coerce(schema: AnySchema, raw: string): unknown {
  const inner = unwrap(schema);
  const def = defOf(inner);
  switch (def.type) {
    case 'array':
      return raw === '' ? [] : raw.split(',').map((item) => coerce(def.element!, item));
    case 'number':
    case 'int':
      return /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(raw) ? Number(raw) : raw;
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : raw;
    default:
      return raw;
  }
}

/** Special forms of one top-level key (`sort=-f`, `at=token:ms`): the raw text to the value. */
export type QueryOverrides = Record<string, (raw: string) => unknown>;

export const sortFromQuery = (raw: string) => (raw.startsWith('-') ? { by: raw.slice(1), desc: true } : { by: raw, desc: false });

export function pricesAtFromQuery(raw: string): unknown {
  return raw.split(',').map((item) => {
    const colon = item.lastIndexOf(':');
    if (colon <= 0) throw badRequest(`at: "${item}" is not <token>:<timestamp_millis>`);
    const millis = item.slice(colon + 1);
    return { token: item.slice(0, colon), timestamp_millis: /^\d+$/.test(millis) ? Number(millis) : millis };
  });
}

/**
 * The params object of a GET query string (without the `?`). Throws `bad_request` for a duplicate key, a key the
 * schema does not take, or a dotted key into something that is not an object. Values are not validated here:
 * the method's schema does that next, for GET, POST and the socket alike.
 */
export function paramsFromQuery(query: string, schema: AnySchema, overrides: QueryOverrides = {}): Record<string, unknown> {
  const shape = objectShape(schema) ?? {};
  const whereShape = shape.where ? objectShape(shape.where) : undefined;
  const params: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const [key, raw] of new URLSearchParams(query)) {
    if (seen.has(key)) throw badRequest(`parameter "${key}" is given twice`);
    seen.add(key);
    // Own keys only: `__proto__`, `constructor` or `toString` name no parameter (and no override) of any object.
    const override = Object.hasOwn(overrides, key) ? overrides[key] : undefined;
    if (override) {
      params[key] = override(raw);
      continue;
    }
    let path = key.split('.');
    const head = path[0]!;
    if (head === 'where' && whereShape) throw badRequest(`unknown parameter "${key}": keys of where go without the prefix`);
    if (!Object.hasOwn(shape, head) && whereShape && Object.hasOwn(whereShape, head)) path = ['where', ...path];
    else if (!Object.hasOwn(shape, head)) throw badRequest(`unknown parameter "${key}"`);
    setPath(params, path, raw, shape, key);
  }
  return params;
}

function setPath(target: Record<string, unknown>, path: string[], raw: string, shape: Record<string, AnySchema>, key: string): void {
  let node = target;
  let nodeShape = shape;
  for (let i = 0; i < path.length; i++) {
    const part = path[i]!;
    const schema = Object.hasOwn(nodeShape, part) ? nodeShape[part] : undefined;
    if (!schema) throw badRequest(`unknown parameter "${key}"`);
    if (i === path.length - 1) {
      node[part] = coerce(schema, raw);
      return;
    }
    const childShape = objectShape(schema);
    if (!childShape) throw badRequest(`parameter "${key}": "${path.slice(0, i + 1).join('.')}" takes no dotted keys`);
    const child = node[part];
    if (child !== undefined && (typeof child !== 'object' || child === null || Array.isArray(child))) {
      throw badRequest(`parameter "${key}" conflicts with "${path.slice(0, i + 1).join('.')}"`);
    }
    node = (child as Record<string, unknown> | undefined) ?? (node[part] = {} as Record<string, unknown>) as Record<string, unknown>;
    nodeShape = childShape;
  }
}

/** Zod issues as one line: `limit: Too big: expected number to be <=1000; fields.0: Invalid option`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
      return `${where}${issue.message}`;
    })
    .join('; ');
}
