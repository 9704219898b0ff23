// Issue #7, hostile and bad input: property-based fuzzing of every HTTP parameter and every socket message.
//
// One in-process server (buildServer) over a database filled by ingesting the devnet's first 300 blocks. Inputs
// mix valid values (token ids, accounts, pools, cursors read from that database), near-valid ones (boundaries,
// 2^128 and beyond, signs, decimals, exponents, whitespace, unicode, NUL, empty and very long texts, duplicate and
// unknown parameters, wrong JSON types, deep nesting) and random text. The properties:
//   - HTTP: every answer is a valid 200 result or a well-formed 4xx: the token API's `{error: {code, message}}`
//     with a documented code and the spec's status (404 not_found/unknown_method, 400 the rest), /route's 400 with
//     a plain-text body. Never a 5xx, never a dropped request.
//   - /ws: every message gets exactly one reply, `{id, result}` or `{id, error}`, with the request's id (null when
//     it has none); other connections keep being served.
//   - /route/subscribe: a frame of the `{id, query?}` shape with a query is answered as GET /route answers that
//     query (same routes, same error text); one without a query stops and gets nothing; binary frames are
//     ignored; anything else closes the connection (spec A2; 1009 for a frame over the 64 KiB message limit),
//     and the server keeps serving other connections.
//   - Nothing is logged at warn or above, and no promise rejection goes unhandled.
// Rate limiting is set out of the way over HTTP (tested elsewhere); on /ws each connection serves a few hundred
// messages, well under its per-connection budget, then a new one is opened.
import { gunzipSync } from 'node:zlib';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { decompress as zstdDecompress } from 'fzstd';
import pino from 'pino';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../api/server.ts';
import { objectShape } from '../../api/tokens/query.ts';
import { LIMITS } from '../../api/tokens/limits.ts';
import { METHODS, METHODS_BY_NAME } from '../../api/tokens/registry.ts';
import { ACTIVITY_FIELDS, ACTIVITY_KINDS } from '../../api/tokens/methods/activity.ts';
import { RESOLUTION_MS } from '../../api/tokens/methods/market.ts';
import { POOL_SORT_FIELDS } from '../../api/tokens/methods/pools.ts';
import { NUMERIC_FIELDS, REPUTATIONS, TOKEN_FIELD_NAMES } from '../../api/tokens/token-fields.ts';
import { TRADE_FIELDS, TRANSFER_FIELDS } from '../../api/tokens/methods/history.ts';
import { DEX_IDS } from '../../dexes/index.ts';
import { indexedDb } from '../tokens/harness.ts';

/** Generated inputs per surface (10,500 in all). */
const RUNS = {
  routeGet: 2000,
  tokenGet: 2600,
  tokenPost: 2800,
  tokenPaths: 300,
  ws: 2000,
  routeSocket: 800,
};
const REPLY_TIMEOUT_MS = 20_000;
/** /ws messages per connection before a fresh one (the socket's budget is 6000 credits a minute; a message costs at most 15). */
const WS_MESSAGES_PER_CONNECTION = 250;

// ---------------------------------------------------------------------------------------------------------------
// Server, data, and the watchers of crashes and logged failures.

const db = await indexedDb(300);
let app: FastifyInstance;
let port = 0;
const counts: Record<string, number> = {};
const count = (surface: string) => (counts[surface] = (counts[surface] ?? 0) + 1);
/** Inputs answered with a result (200, `{id, result}`, `{id, routes}`): the share that reached the methods' queries. */
const answered: Record<string, number> = {};
const succeeded = (surface: string) => (answered[surface] = (answered[surface] ?? 0) + 1);
const rejections: unknown[] = [];
const uncaught: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);
const onUncaught = (err: unknown) => uncaught.push(err);
/** Log lines at warn (40) or above: an `internal` error, a failed routing round, a failed socket request. */
const loggedFailures: string[] = [];

interface Data {
  head: { height: number; timestamp_ms: number };
  genesisMs: number;
  tokens: string[];
  poolTokens: string[];
  accounts: string[];
  traders: string[];
  pools: string[];
  tradeIds: string[];
  transferIds: string[];
  activityIds: string[];
  holderCursors: string[];
}
let data: Data;

beforeAll(async () => {
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onUncaught);
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) {
        if (line && (JSON.parse(line) as { level: number }).level >= 40) loggedFailures.push(line);
      }
      done();
    },
  });
  app = await buildServer({ db, logger: pino({ level: 'warn' }, sink), httpCreditsPerMinute: 1e12 });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  port = address.port;
  data = await readData();
}, 180_000);

afterAll(async () => {
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onUncaught);
  await app?.close();
});

const rows = async <T>(text: string) => (await db.pool.query(text)).rows as T[];
const column = async (text: string) => (await rows<{ v: string }>(text)).map((r) => String(r.v));

async function readData(): Promise<Data> {
  const [head] = await rows<{ height: string; timestamp_ms: string }>('select height, timestamp_ms from blocks order by height desc limit 1');
  const [genesis] = await rows<{ timestamp_ms: string }>('select timestamp_ms from blocks order by height limit 1');
  return {
    head: { height: Number(head!.height), timestamp_ms: Number(head!.timestamp_ms) },
    genesisMs: Number(genesis!.timestamp_ms),
    tokens: await column('select token as v from tokens union select token from token_market order by 1'),
    poolTokens: await column('select distinct unnest(tokens) as v from pools order by 1'),
    accounts: await column('select distinct account as v from balances order by 1 limit 60'),
    traders: await column('select distinct trader as v from trades where trader is not null order by 1 limit 30'),
    pools: await column('select distinct unnest(pool_ids) as v from trades order by 1 limit 40'),
    tradeIds: await column(`select block_height || ':' || receipt_id || ':' || index as v from trades order by random() limit 40`),
    transferIds: await column(`select block_height || ':' || receipt_id || ':' || index as v from transfers order by random() limit 40`),
    activityIds: [
      ...(await column(`select 'transfer:' || block_height || ':' || receipt_id || ':' || index as v from transfers order by random() limit 20`)),
      ...(await column(
        `select (case when dex = 'Wrap' then 'wrap' when dex like 'Stake%' then 'stake' else 'trade' end) || ':' || block_height || ':' || receipt_id || ':' || dex as v from trades order by random() limit 20`,
      )),
    ],
    holderCursors: await column(`select balance || ':' || account as v from balances where balance > 0 order by random() limit 30`),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Value generators. Each is built lazily: the real ids are known only once the database is filled.

const U128_MAX = (1n << 128n) - 1n;

/** Texts near the edges of every parser: numbers at and past their bounds, signs, exponents, blanks, unicode. */
const EDGE_TEXTS = [
  '', ' ', '  1', '1 ', '\t1', '1\n', '0', '-0', '00', '01', '1', '-1', '+1', '2', '0.0', '.5', '5.', '1.5', '-1.5', '0.005', '1.0000001',
  '1e3', '1E3', '1e-3', '1e400', '-1e400', '1e+21', 'NaN', 'Infinity', '-Infinity', '0x10', '0b1', '1_000', '1,000',
  String(2 ** 31), String(2 ** 31 - 1), String(2 ** 53), String(2 ** 53 + 1), String(Number.MAX_SAFE_INTEGER), String(2n ** 63n), String(2n ** 64n),
  String(U128_MAX), String(U128_MAX + 1n), String(2n ** 256n), '9'.repeat(80), '9'.repeat(400), `0.${'1'.repeat(300)}`,
  'true', 'false', 'null', 'undefined', '[]', '{}', '[1]', '{"a":1}', '"x"', '%', '%%', '%00', '%zz', '%E2%82', '\u0000', 'a\u0000b', '\u0001',
  '\ud800', '\udfff', '\u200b', '\ufeff', '١٢٣', '１２３', '😀', 'near\u0000', 'Ω', 'é', 'ｎｅａｒ', ',', ',,', ',a,', ':', '::', 'a:1', 'near:',
  ':1', 'a:b:c:d', '1:2:3:4', 'x:1:y:z', '-', '--', '-near', '.', '..', 'a..b', 'a.b.', '*', '?', '&', '=', '#', '/', '\\', "'", '"', '`',
  "' or 1=1 --", '%_', '\\%', '$1', '${x}', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'x'.repeat(65), 'x'.repeat(78),
  'x'.repeat(201), 'a'.repeat(5000), '\u0000'.repeat(50),
];

const anyText = () =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...EDGE_TEXTS) },
    { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
    { weight: 2, arbitrary: fc.integer().map(String) },
    { weight: 2, arbitrary: fc.bigInt({ min: -(2n ** 140n), max: 2n ** 140n }).map(String) },
    { weight: 1, arbitrary: fc.double().map(String) },
    { weight: 1, arbitrary: fc.string({ minLength: 200, maxLength: 3000 }) },
  );

/** Any JSON value a hostile client may put anywhere: wrong types, huge and fractional numbers, deep structures. */
const anyJson = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom<unknown>(null, true, false, 0, -1, 1, 1.5, -0.5, 1e308, -1e308, 2 ** 53, 2 ** 53 + 2, 2 ** 64, 1e21, 5e-324, '', [], {}, [[]], { a: {} }) },
    { weight: 3, arbitrary: anyText() },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
    { weight: 1, arbitrary: fc.array(anyText(), { maxLength: 5 }) },
    { weight: 1, arbitrary: fc.dictionary(anyText(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }).map((depth) => nest(depth)) },
  );

function nest(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);
/** null mostly; one time in `oneIn`, a value of `arbitrary`. */
const rarely = <T>(arbitrary: fc.Arbitrary<T>, oneIn: number) => fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });
/** Mostly the given valid arbitrary, sometimes anything. */
const mostly = <T>(valid: fc.Arbitrary<T>, hostile: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: hostile });

const tokenText = () =>
  fc.oneof(
    { weight: 6, arbitrary: pick(data.tokens) },
    { weight: 1, arbitrary: pick(['near', 'wrap.near', 'nep141:wrap.near', 'inner-nep141:wrap.near', 'unknown-token.near', 'NEAR', 'Wrap.Near']) },
    { weight: 1, arbitrary: pick(data.accounts) },
  );
const accountText = () => fc.oneof({ weight: 4, arbitrary: pick([...data.accounts, ...data.traders]) }, { weight: 1, arbitrary: pick(['nobody.near', 'a', 'UPPER.near', 'x'.repeat(64)]) });
/** Mostly `valid`, one time in nine an edge (a bound, one past it): most requests should reach the queries. */
const usually = <T>(valid: fc.Arbitrary<T>, edge: fc.Arbitrary<T>) => fc.oneof({ weight: 8, arbitrary: valid }, { weight: 1, arbitrary: edge });
const millisText = () =>
  usually(
    fc.integer({ min: data.genesisMs - 120_000, max: data.head.timestamp_ms + 120_000 }).map(String),
    pick(['0', '1', String(data.genesisMs), String(data.head.timestamp_ms), String(Number.MAX_SAFE_INTEGER), '-1', '1767225600000.5']),
  );
const intText = (min: number, max: number) =>
  usually(fc.integer({ min, max }).map(String), pick([String(min), String(max), String(min - 1), String(max + 1), '0', '-1']));
const listText = <T extends string>(values: readonly T[], max = values.length) =>
  usually(fc.array(pick(values), { minLength: 1, maxLength: max }).map((list) => list.join(',')), pick(['', ',', `${values[0]},`, `${values[0]},${values[0]}`]));
const cursorText = (valid: () => string[]) => usually(fc.constantFrom(...valid()),  pick(['99999999999999999999:x:0', '1:x:99999999999', '1:x:-1', '0:a:0', 'trade:1:x:y', 'trade:99999999999999999999:x:AmmA', `${'9'.repeat(150)}:a`, '1:2']));

/** The names a method's `fields` list takes (activity.query's per kind aside). */
const fieldNames = (method: string): readonly string[] =>
  method === 'trades.query' ? TRADE_FIELDS : method === 'transfers.query' ? TRANSFER_FIELDS : TOKEN_FIELD_NAMES;

/**
 * Valid (or nearly) text of one GET parameter of a method, by its key; dotted keys of objects (`min.price_usd`,
 * `fields.trade`) included. Keys the switch does not know get random text: the coverage test below fails when a
 * method gains a parameter no generator knows.
 */
function validText(method: string, key: string): fc.Arbitrary<string> | undefined {
  const [head, sub] = key.split('.') as [string, string | undefined];
  if (head === 'min' || head === 'max') return fc.oneof(fc.integer({ min: -10, max: 10 ** 7 }).map(String), pick(['0', '0.5', '1000', '-1', '1e3', '0.000001', '1000000000000000000000000000000']));
  if (method === 'activity.query' && head === 'fields' && sub) return listText(ACTIVITY_FIELDS[sub as keyof typeof ACTIVITY_FIELDS] ?? ['x']);
  switch (key) {
    case 'ids':
    case 'tokens':
      return fc.array(tokenText(), { maxLength: 6 }).map((list) => list.join(','));
    case 'fields':
      return listText(fieldNames(method));
    case 'min_reputation':
      return pick([...REPUTATIONS, 'notfake', '']);
    case 'sort':
      return fc.tuple(fc.boolean(), pick(method === 'pools.get' ? [...POOL_SORT_FIELDS, 'price_usd'] : ['account_id', ...TOKEN_FIELD_NAMES, 'nope'])).map(([desc, by]) => (desc ? `-${by}` : by));
    case 'limit':
      return intText(1, method === 'tokens.search' ? 100 : 1000);
    case 'offset':
      return intText(0, 200);
    case 'precision':
      return intText(1, 40);
    case 'q':
      return fc.oneof(pick(['usd', 'near', 'wrap', 'a', '%', '_', '\\', 'USDC', 'x'.repeat(100), 'x'.repeat(101)]), fc.string({ minLength: 1, maxLength: 12 }));
    case 'token':
      return tokenText();
    case 'pool_id':
      return fc.oneof(pick(data.pools), pick(['0', 'lumen.aidols.near', '', 'x'.repeat(201)]));
    case 'min_liquidity_usd':
      return pick(['0', '0.5', '1000', '1000000', '-1', '1e3', '9'.repeat(30)]);
    case 'dex':
      return pick([...DEX_IDS, 'amma', 'x'.repeat(21)]);
    case 'trader':
    case 'account':
    case 'from':
    case 'to':
    case 'account_id':
      return accountText();
    case 'side':
      return pick(['buy', 'sell', 'Buy']);
    case 'min_usd':
      return pick(['0', '0.01', '1', '1000', '-1', '1e3', '1e400']);
    case 'min_amount':
      return fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String), pick(['-1', '1.5', String(U128_MAX + 1n)]));
    case 'after_millis':
    case 'before_millis':
    case 'from_millis':
    case 'to_millis':
    case 'at_millis':
      return millisText();
    case 'order':
      return pick(['newest', 'oldest', 'Newest']);
    case 'cursor':
      return method === 'holders.get'
        ? cursorText(() => data.holderCursors)
        : method === 'activity.query'
          ? cursorText(() => data.activityIds)
          : cursorText(() => (method === 'trades.query' ? data.tradeIds : data.transferIds));
    case 'kinds':
      return listText(ACTIVITY_KINDS);
    case 'resolution':
      return pick([...Object.keys(RESOLUTION_MS), '2m', '1M']);
    case 'count_back':
      return intText(1, 20_000);
    case 'quote':
      return pick(['usd', 'near', 'eur']);
    case 'fill':
      return pick(['true', 'false', '1', '']);
    case 'at':
      return fc
        .array(fc.tuple(tokenText(), millisText()), { minLength: 1, maxLength: 5 })
        .map((items) => items.map(([token, ms]) => `${token}:${ms}`).join(','));
    case 'at_height':
      return intText(0, data.head.height + 2);
    default:
      return undefined;
  }
}

/** Valid (or nearly) JSON of one POST parameter, by its key. */
function validJson(method: string, key: string): fc.Arbitrary<unknown> | undefined {
  const tokenList = fc.array(tokenText(), { maxLength: 6 });
  const int = (min: number, max: number) => usually(fc.integer({ min, max }), pick([min, max, min - 1, max + 1]));
  const millis = () => millisText().map(Number);
  const bound = fc.oneof(fc.integer({ min: -10, max: 10 ** 7 }), pick(['0', '0.5', '1000', '-1', '1e3', `0.${'1'.repeat(20_000)}`, '9'.repeat(30)]), fc.double({ noNaN: true }));
  const bounds = fc.dictionary(pick([...NUMERIC_FIELDS, 'symbol']), bound, { maxKeys: 3 });
  switch (key) {
    case 'ids':
    case 'tokens':
      return tokenList;
    case 'fields':
      return method === 'activity.query'
        ? fc.record(
            Object.fromEntries(ACTIVITY_KINDS.map((kind) => [kind, fc.array(pick(ACTIVITY_FIELDS[kind] as readonly string[]), { maxLength: 4 })])),
            { requiredKeys: [] },
          )
        : fc.array(pick(fieldNames(method)), { maxLength: 6 });
    case 'where':
      return fc.record({ min_reputation: pick([...REPUTATIONS, 'x']), min: bounds, max: bounds }, { requiredKeys: [] });
    case 'sort':
      return fc.record({ by: pick(method === 'pools.get' ? [...POOL_SORT_FIELDS, 'fee'] : ['account_id', ...TOKEN_FIELD_NAMES]), desc: fc.boolean() }, { requiredKeys: ['by'] });
    case 'min_liquidity_usd':
      return fc.oneof(fc.double({ min: -1, max: 1e7, noNaN: true }), pick(['1000', '0.5', '-1', '1e3']));
    case 'min_change':
      return fc.dictionary(pick(NUMERIC_FIELDS), pick(['1%', '0.5%', '0%', '5', '-1%', '1e3%']), { maxKeys: 3 });
    case 'limit':
      return int(1, method === 'tokens.search' ? 100 : 1000);
    case 'offset':
      return int(0, 200);
    case 'precision':
      return int(1, 40);
    case 'count_back':
      return int(1, 20_000);
    case 'at_height':
      return int(0, data.head.height + 2);
    case 'after_millis':
    case 'before_millis':
    case 'from_millis':
    case 'to_millis':
    case 'at_millis':
      return millis();
    case 'fill':
      return fc.boolean();
    case 'min_usd':
      return fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), pick([0, 1e308, 5e-324]));
    case 'kinds':
      return fc.array(pick(ACTIVITY_KINDS), { maxLength: 5 });
    case 'at':
      return fc.array(fc.record({ token: tokenText(), timestamp_millis: millis() }), { minLength: 1, maxLength: 5 });
    case 'sub':
      return int(0, 30);
    default:
      return validText(method, key);
  }
}

/** A method's GET keys: its params' keys, objects as dotted keys, `where` keys without the prefix. */
function getKeys(method: (typeof METHODS)[number]): { key: string; required: boolean }[] {
  const shape = objectShape(method.params) ?? {};
  const keys: { key: string; required: boolean }[] = [];
  for (const [key, schema] of Object.entries(shape)) {
    const required = !schema.safeParse(undefined).success;
    const inner = method.overrides?.[key] ? undefined : objectShape(schema);
    if (!inner) {
      keys.push({ key, required });
    } else if (key === 'where') {
      for (const [whereKey, whereSchema] of Object.entries(inner)) {
        const nested = objectShape(whereSchema);
        if (nested) for (const field of Object.keys(nested)) keys.push({ key: `${whereKey}.${field}`, required: false });
        else keys.push({ key: whereKey, required: false });
      }
    } else {
      for (const sub of Object.keys(inner)) keys.push({ key: `${key}.${sub}`, required: false });
    }
  }
  return keys;
}

// ---------------------------------------------------------------------------------------------------------------
// Query strings: a base of valid pairs, then mutations (drop, replace with anything, repeat, add an unknown or
// hostile key, leave a key bare), each value percent-encoded from its UTF-8 bytes or, when printable, sent raw.

type Pair = [key: string, value: string | null];

type Mutation =
  | { op: 'drop'; at: number }
  | { op: 'replace'; at: number; value: string }
  | { op: 'twist'; at: number; twist: number }
  | { op: 'repeat'; at: number; value: string }
  | { op: 'extra'; key: string; value: string }
  | { op: 'bare'; key: string };

const HOSTILE_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'where', 'where.min', 'min', 'min.', 'min.__proto__', 'min.constructor', 'max.toString', 'fields.', 'fields.__proto__', 'a.b.c', '.', '', ' ', 'LIMIT', 'limit ', 'id', 'method', 'params', 'at.token', 'sort.by', 'ids.0', '😀', 'x'.repeat(300)];

const mutations = (keys: string[]): fc.Arbitrary<Mutation[]> => {
  const change: fc.Arbitrary<Mutation> = fc.oneof(
    { weight: 2, arbitrary: fc.record({ op: fc.constant('drop' as const), at: fc.nat() }) },
    { weight: 4, arbitrary: fc.record({ op: fc.constant('replace' as const), at: fc.nat(), value: anyText() }) },
    { weight: 4, arbitrary: fc.record({ op: fc.constant('twist' as const), at: fc.nat(), twist: fc.nat({ max: 1_000_000 }) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('repeat' as const), at: fc.nat(), value: anyText() }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('extra' as const), key: fc.oneof(pick([...HOSTILE_KEYS, ...keys]), fc.string({ maxLength: 12 })), value: anyText() }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('bare' as const), key: fc.oneof(pick([...HOSTILE_KEYS, ...keys])) }) },
  );
  // A third of the queries as they are, most of the others with one thing wrong.
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant<Mutation[]>([]) },
    { weight: 3, arbitrary: change.map((one) => [one]) },
    { weight: 1, arbitrary: fc.array(change, { minLength: 2, maxLength: 3 }) },
  );
};

function mutate(pairs: Pair[], changes: Mutation[]): Pair[] {
  const out = [...pairs];
  for (const change of changes) {
    if (change.op === 'extra') out.push([change.key, change.value]);
    else if (change.op === 'bare') out.push([change.key, null]);
    else if (out.length) {
      const at = change.at % out.length;
      if (change.op === 'drop') out.splice(at, 1);
      else if (change.op === 'replace') out[at] = [out[at]![0], change.value];
      else if (change.op === 'twist') out[at] = [out[at]![0], twistText(out[at]![1] ?? '', change.twist)];
      else out.push([out[at]![0], change.value]);
    }
  }
  return out;
}

/** A valid text bent one way: a NUL, blanks, case, sign, exponent, size, unicode digits, separators. */
const TEXT_TWISTS: ((v: string) => string)[] = [
  (v) => `${v}\u0000`,
  (v) => `\u0000${v}`,
  (v) => ` ${v}`,
  (v) => `${v} `,
  (v) => `${v}\n`,
  (v) => v.toUpperCase(),
  (v) => `${v}${v}`,
  (v) => v.repeat(60),
  (v) => `-${v}`,
  (v) => `+${v}`,
  (v) => `${v}${'9'.repeat(30)}`,
  (v) => `${v}${'9'.repeat(400)}`,
  (v) => `${v}.5`,
  (v) => `${v}.${'1'.repeat(20_000)}`,
  (v) => `${v}e3`,
  (v) => `${v}e-400`,
  (v) => v.replace(/\d/g, '٣'),
  (v) => v.replace(/\d/g, '３'),
  (v) => `${v},`,
  (v) => `,${v}`,
  (v) => `${v},${v}`,
  (v) => v.slice(0, -1),
  (v) => v.slice(1),
  (v) => `${v}:`,
  (v) => `${v}:1`,
  (v) => `${v}:-1`,
  (v) => `${v}:99999999999999999999`,
  (v) => v.replace(/:/g, '::'),
  (v) => v.replace(/\d+/, '99999999999999999999'),
  (v) => v.replace(/\d+/, '2147483648'),
  (v) => v.replace(/\d+/, '-1'),
  (v) => `${v}😀`,
  (v) => `${v}\ud800`,
  (v) => `${v}%`,
  (v) => `${v}_`,
  (v) => `${v}\\`,
  (v) => `${v}'`,
  (v) => `${v}"`,
  (v) => `${v}.`,
  (v) => `.${v}`,
  (v) => '',
];
const twistText = (value: string, which: number) => TEXT_TWISTS[which % TEXT_TWISTS.length]!(value);

/** A valid JSON value bent one way: its text twisted, a number past its range or fractional, a type changed. */
function twistJson(value: unknown, which: number): unknown {
  if (typeof value === 'string') return twistText(value, which);
  if (typeof value === 'number') {
    const twists = [value + 0.5, -value - 1, value * 1e20, 2 ** 53 + value, -0, String(value), [value], { value }, null, value === 0 ? 1e-7 : value / 3];
    return twists[which % twists.length];
  }
  if (typeof value === 'boolean') return [String(value), value ? 1 : 0, null][which % 3];
  if (Array.isArray(value)) {
    const twists = [() => [...value, ...value], () => [value], () => (value.length ? [twistJson(value[0], Math.floor(which / 4)), ...value.slice(1)] : [null]), () => value.map((item) => JSON.stringify(item)).join(','), () => Array.from({ length: 600 }, () => value[0] ?? 'x')];
    return twists[which % twists.length]!();
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    const at = which % Math.max(1, entries.length);
    if (!entries.length || which % 5 === 4) return [value];
    return Object.fromEntries(entries.map(([k, v], i) => [k, i === at ? twistJson(v, Math.floor(which / 5)) : v]));
  }
  return value;
}

type JsonMutation =
  | { op: 'drop'; key: string }
  | { op: 'replace'; key: string; value: unknown }
  | { op: 'twist'; key: string; twist: number }
  | { op: 'extra'; key: string; value: unknown };

/** A method's params: valid ones with at most two things wrong (a value bent or replaced, a key dropped or added). */
function paramsArb(method: (typeof METHODS)[number]): fc.Arbitrary<Record<string, unknown>> {
  const shape = objectShape(method.params) ?? {};
  const keys = Object.keys(shape);
  // Each optional key present half the time; required ones always.
  const valid = fc
    .tuple(...keys.map((key) => (shape[key]!.safeParse(undefined).success ? fc.option(validJson(method.name, key)!, { nil: undefined, freq: 2 }) : validJson(method.name, key)!)))
    .map((values) => Object.fromEntries(keys.flatMap((key, i) => (values[i] === undefined ? [] : [[key, values[i]]]))) as Record<string, unknown>);
  const keyArb = pick(keys.length ? keys : ['x']);
  const change: fc.Arbitrary<JsonMutation> = fc.oneof(
    { weight: 1, arbitrary: fc.record({ op: fc.constant('drop' as const), key: keyArb }) },
    { weight: 3, arbitrary: fc.record({ op: fc.constant('replace' as const), key: keyArb, value: anyJson() }) },
    { weight: 5, arbitrary: fc.record({ op: fc.constant('twist' as const), key: keyArb, twist: fc.nat({ max: 1_000_000 }) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('extra' as const), key: fc.oneof(pick(HOSTILE_KEYS), fc.string({ maxLength: 10 })), value: anyJson() }) },
  );
  const changes = fc.oneof({ weight: 2, arbitrary: fc.constant([]) }, { weight: 3, arbitrary: fc.tuple(change) }, { weight: 1, arbitrary: fc.tuple(change, change) });
  return fc.tuple(valid, changes).map(([params, changes]) => {
    const out: Record<string, unknown> = { ...params };
    for (const c of changes) {
      if (c.op === 'drop') delete out[c.key];
      else if (c.op === 'twist') out[c.key] = twistJson(out[c.key] ?? validExample(method.name, c.key), c.twist);
      // defineProperty: a key such as `__proto__` becomes an own key, as JSON.parse makes it.
      else Object.defineProperty(out, c.key, { value: c.value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  });
}

/** Something to twist when the key was left out. */
const validExample = (method: string, key: string): unknown => (key === 'limit' || key.endsWith('millis') || key === 'precision' ? 1 : method === 'tokens.get' && key === 'ids' ? ['wrap.near'] : 'wrap.near');

/** RFC 3986 percent-encoding of the UTF-8 bytes (a lone surrogate becomes U+FFFD, as any UTF-8 client sends it). */
function encode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
const printable = (text: string) => /^[\x21-\x7e]*$/.test(text) && !text.includes('#');

function queryText(pairs: Pair[], raw: boolean): string {
  const part = (text: string) => (raw && printable(text) ? text : encode(text));
  return pairs.map(([key, value]) => (value === null ? part(key) : `${part(key)}=${part(value)}`)).join('&');
}

const queryArb = (base: fc.Arbitrary<Pair[]>, keys: string[]) =>
  fc.tuple(base, mutations(keys), fc.boolean()).map(([pairs, changes, raw]) => queryText(mutate(pairs, changes), raw));

// ---------------------------------------------------------------------------------------------------------------
// GET /route queries.

const routeTokenText = () =>
  fc.oneof(
    { weight: 8, arbitrary: pick(['near', ...data.poolTokens]) },
    { weight: 1, arbitrary: pick(data.poolTokens).map((t) => `nep141:${t}`) },
    { weight: 1, arbitrary: pick(data.poolTokens).map((t) => `inner-nep141:${t}`) },
  );
const amountText = () =>
  fc.oneof(
    fc.bigInt({ min: 1n, max: 10n ** 27n }).map(String),
    fc.bigInt({ min: 1n, max: U128_MAX }).map(String),
    pick(['1', '1000', '1000000000000000000000000', String(U128_MAX), String(U128_MAX - 1n)]),
  );
const fractionText = () => fc.oneof(pick(['0', '1', '0.005', '0.01', '0.5', '1.0', '0.999999']), fc.integer({ min: 0, max: 10_000 }).map((n) => (n / 10_000).toString()));

const ROUTE_KEYS = ['token_in', 'token_out', 'amount_in', 'amount_out', 'max_wait_ms', 'slippage_type', 'slippage', 'min_slippage', 'max_slippage', 'trader_account_id', 'referrer_id', 'dexes', 'signing_public_key'];

const routeBase = () =>
  fc
    .record({
      tokenIn: routeTokenText(),
      tokenOut: routeTokenText(),
      amountKey: pick(['amount_in', 'amount_out']),
      amount: amountText(),
      maxWait: pick(['0', '1', '1000', '2000', '60000']),
      fixed: fc.boolean(),
      slippage: fractionText(),
      min: fractionText(),
      max: fractionText(),
      trader: fc.option(accountText(), { nil: undefined }),
      referrer: fc.option(accountText(), { nil: undefined }),
      dexes: fc.option(fc.subarray([...DEX_IDS], { minLength: 1 }).map((ids) => ids.join(',')), { nil: undefined, freq: 2 }),
      key: fc.option(pick(['ed25519:6E8sCci9badyRkXb3JoRpBj5p8C6Tw41ELDZoiihKEtp']), { nil: undefined }),
    })
    .map((q) => {
      const pairs: Pair[] = [
        ['token_in', q.tokenIn],
        ['token_out', q.tokenOut],
        [q.amountKey, q.amount],
        ['max_wait_ms', q.maxWait],
        ['slippage_type', q.fixed ? 'Fixed' : 'Auto'],
        // Auto: the smaller as min (min > max is a mutation's business).
        ...(q.fixed ? [['slippage', q.slippage] as Pair] : [['min_slippage', Number(q.min) <= Number(q.max) ? q.min : q.max] as Pair, ['max_slippage', Number(q.min) <= Number(q.max) ? q.max : q.min] as Pair]),
      ];
      if (q.trader !== undefined) pairs.push(['trader_account_id', q.trader]);
      if (q.referrer !== undefined) pairs.push(['referrer_id', q.referrer]);
      if (q.dexes !== undefined) pairs.push(['dexes', q.dexes]);
      if (q.key !== undefined) pairs.push(['signing_public_key', q.key]);
      return pairs;
    });

const routeQuery = () =>
  fc.oneof(
    { weight: 12, arbitrary: queryArb(routeBase(), ROUTE_KEYS) },
    // Anything at all, and one key at a time with anything.
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
    { weight: 1, arbitrary: fc.array(fc.tuple(pick(ROUTE_KEYS), anyText()), { maxLength: 14 }).map((pairs) => queryText(pairs, false)) },
  );

const DIGITS = /^\d+$/;

/** A GET /route answer: 200 with a JSON array of well-formed quotes of the asked DEXes, or 400 with plain text. */
function expectRouteAnswer(status: number, contentType: string | undefined, body: string, context: string): void {
  if (status === 400) {
    expect(contentType, context).toMatch(/^text\/plain/);
    expect(body.length, context).toBeGreaterThan(0);
    expect(body, context).not.toMatch(/[\r\n]/);
    return;
  }
  expect(status, `${context}: ${body.slice(0, 300)}`).toBe(200);
  expect(contentType, context).toMatch(/^application\/json/);
  const quotes = JSON.parse(body) as Record<string, any>[];
  expect(Array.isArray(quotes), context).toBe(true);
  for (const quote of quotes) {
    expect(DEX_IDS, context).toContain(quote.dex_id);
    for (const amounts of [quote.estimated_amount, quote.worst_case_amount]) {
      expect(Object.keys(amounts).length, context).toBe(1);
      for (const value of Object.values(amounts)) expect(value, context).toMatch(DIGITS);
    }
    for (const field of ['estimated_max_gas_cost', 'estimated_gas_usage', 'storage_deposits', 'max_storage_deposits']) expect(quote[field], context).toMatch(DIGITS);
    expect(Array.isArray(quote.execution_instructions), context).toBe(true);
    expect(typeof quote.token_output, context).toBe('string');
    expect(typeof quote.has_slippage, context).toBe('boolean');
    expect(typeof quote.needs_unwrap, context).toBe('boolean');
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Token API answers.

const ERROR_STATUS: Record<string, number> = { bad_request: 400, invalid_params: 400, too_large: 400, limit_exceeded: 400, not_found: 404, unknown_method: 404 };

function decodeBody(res: { rawPayload: Buffer; headers: Record<string, unknown> }): string {
  const encoding = res.headers['content-encoding'];
  if (encoding === 'gzip') return gunzipSync(res.rawPayload).toString('utf8');
  if (encoding === 'zstd') return Buffer.from(zstdDecompress(res.rawPayload)).toString('utf8');
  return res.rawPayload.toString('utf8');
}

/** The `{error: {code, message}}` body of a documented code with its status (never internal, never rate_limited). */
function expectTokenError(status: number, body: any, context: string): void {
  expect(Object.keys(body), context).toEqual(['error']);
  expect(Object.keys(body.error).sort(), context).toEqual(['code', 'message']);
  expect(Object.keys(ERROR_STATUS), `${context}: ${JSON.stringify(body)}`).toContain(body.error.code);
  expect(status, context).toBe(ERROR_STATUS[body.error.code]);
  expect(typeof body.error.message, context).toBe('string');
  expect(body.error.message.length, context).toBeGreaterThan(0);
}

/** A method's result: valid against the method's published result schema, computed at the indexed head. */
function expectTokenResult(methodName: string, result: any, context: string): void {
  const method = METHODS_BY_NAME.get(methodName)!;
  const parsed = method.result.safeParse(result);
  expect(parsed.success, `${context}: ${parsed.success ? '' : parsed.error.message}`).toBe(true);
  if (methodName !== 'unsubscribe') {
    expect(result.height, context).toBe(data.head.height);
    expect(result.timestamp_millis, context).toBe(data.head.timestamp_ms);
  }
}

async function expectTokenHttp(res: Awaited<ReturnType<FastifyInstance['inject']>>, methodName: string | undefined, context: string): Promise<void> {
  expect(res.statusCode, `${context}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
  expect(res.headers['x-credits-used'], context).toMatch(DIGITS);
  expect(res.headers['cache-control'], context).toBeTypeOf('string');
  expect(res.headers['content-type'], context).toMatch(/^application\/json/);
  const body = JSON.parse(decodeBody(res)) as any;
  if (res.statusCode === 200 && methodName) expectTokenResult(methodName, body, context);
  else expectTokenError(res.statusCode, body, context);
}

const ACCEPT_ENCODINGS = [undefined, undefined, undefined, 'gzip', 'zstd', 'br', 'gzip;q=0, zstd', '*', 'identity', 'x'.repeat(100), ',,;q=', 'gzip;q=abc'];

const HTTP_METHODS = METHODS.filter((m) => m.path !== undefined);

// ---------------------------------------------------------------------------------------------------------------
// WebSocket clients: one message at a time, its reply awaited with a deadline.

class Inbox {
  readonly #messages: { text: string; binary: boolean }[] = [];
  #waiter: (() => void) | undefined;
  closed: { code: number; reason: string } | undefined;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (raw, binary) => {
      this.#messages.push({ text: raw.toString(), binary });
      this.#waiter?.();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.#waiter?.();
    });
  }

  static async open(path: string): Promise<Inbox> {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`);
    const inbox = new Inbox(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return inbox;
  }

  /** The next message, or `closed` when the server closed the connection first. */
  async next(context: string): Promise<string | 'closed'> {
    const deadline = Date.now() + REPLY_TIMEOUT_MS;
    for (;;) {
      const message = this.#messages.shift();
      if (message) return message.text;
      if (this.closed) return 'closed';
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no answer within ${REPLY_TIMEOUT_MS} ms: ${context}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#waiter = undefined;
    }
  }

  pending(): number {
    return this.#messages.length;
  }

  close(): void {
    this.ws.terminate();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The properties.

const fcOptions = (numRuns: number) => ({ numRuns, endOnFailure: false });

describe('fuzzing every HTTP parameter and socket message', () => {
  it('every token-data GET parameter has a generator', () => {
    const missing: string[] = [];
    for (const method of HTTP_METHODS) {
      for (const { key } of getKeys(method)) if (!validText(method.name, key)) missing.push(`${method.name} ${key}`);
      for (const key of Object.keys(objectShape(method.params) ?? {})) if (!validJson(method.name, key)) missing.push(`${method.name} POST ${key}`);
    }
    expect(missing).toEqual([]);
  });

  it('GET /route: a 200 array of quotes or a plain-text 400, never anything else', async () => {
    await fc.assert(
      fc.asyncProperty(routeQuery(), async (query) => {
        count('GET /route');
        const res = await app.inject({ method: 'GET', url: `/route?${query}` });
        expectRouteAnswer(res.statusCode, res.headers['content-type'] as string | undefined, res.body, `GET /route?${query}`);
        if (res.statusCode === 200) succeeded('GET /route');
      }),
      fcOptions(RUNS.routeGet),
    );
  });

  it('token data over GET: a valid result or a documented error, for every method and parameter', async () => {
    const perMethod = HTTP_METHODS.map((method) => {
      const keys = getKeys(method);
      const base = fc
        .tuple(...keys.map(({ key, required }) => (required ? validText(method.name, key)!.map((v) => [key, v] as Pair) : fc.option(validText(method.name, key)!.map((v) => [key, v] as Pair), { nil: undefined, freq: 2 }))))
        .map((pairs) => pairs.filter((p): p is Pair => p !== undefined));
      return fc.tuple(fc.constant(method), queryArb(base, keys.map((k) => k.key)), pick(ACCEPT_ENCODINGS));
    });
    await fc.assert(
      fc.asyncProperty(fc.oneof(...perMethod), async ([method, query, acceptEncoding]) => {
        count(`GET ${method.path}`);
        const url = `${method.path}?${query}`;
        const res = await app.inject({ method: 'GET', url, headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } });
        await expectTokenHttp(res, method.name, `GET ${url}`);
        if (res.statusCode === 200) succeeded(`GET ${method.path}`);
      }),
      fcOptions(RUNS.tokenGet),
    );
  });

  it('token data over POST: a valid result or a documented error, whatever the body', async () => {
    const perMethod = HTTP_METHODS.map((method) => {
      const keys = Object.keys(objectShape(method.params) ?? {});
      const valid = paramsArb(method);
      const body: fc.Arbitrary<string> = fc.oneof(
        { weight: 10, arbitrary: valid.map((params) => JSON.stringify(params)) },
        { weight: 1, arbitrary: anyJson().map((value) => JSON.stringify(value) ?? 'null') },
        { weight: 1, arbitrary: anyText() },
        { weight: 1, arbitrary: fc.tuple(pick(keys.length ? keys : ['x']), fc.integer({ min: 100, max: 20_000 }), pick(['[', '{"a":'])).map(([key, depth, open]) => `{"${key}":${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}}`) },
        { weight: 1, arbitrary: fc.tuple(valid, fc.integer({ min: 60_000, max: 70_000 })).map(([params, size]) => JSON.stringify({ ...params, q: 'x'.repeat(size) })) },
        { weight: 1, arbitrary: pick(['{"__proto__":{"limit":5}}', '{"constructor":{"prototype":{}}}', '{"limit":1,"limit":2}', '{', '{}x', '[]', 'null', '""', '1', '{"limit":1e999}', '\ufeff{}', '{"q":"\\ud800"}', '{"q":"\\u0000"}']) },
      );
      const contentType = fc.oneof(
        { weight: 12, arbitrary: pick(['application/json', 'application/json; charset=utf-8']) },
        { weight: 1, arbitrary: pick(['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', 'application/json; charset=latin1', '']) },
      );
      return fc.tuple(fc.constant(method), body, contentType, rarely(anyText(), 10), pick(ACCEPT_ENCODINGS));
    });
    await fc.assert(
      fc.asyncProperty(fc.oneof(...perMethod), async ([method, body, contentType, query, acceptEncoding]) => {
        count(`POST ${method.path}`);
        const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
        if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding;
        const url = query === null ? method.path! : `${method.path}?${encode(query)}`;
        const res = await app.inject({ method: 'POST', url, payload: body, headers });
        await expectTokenHttp(res, method.name, `POST ${url} (${contentType}) ${body.slice(0, 300)}`);
        if (res.statusCode === 200) succeeded(`POST ${method.path}`);
      }),
      fcOptions(RUNS.tokenPost),
    );
  });

  it('token data paths and verbs that name no method: unknown_method, never a crash', async () => {
    const prefixes = [...new Set(HTTP_METHODS.map((m) => m.path!))];
    const pathArb = fc.oneof(
      pick(prefixes),
      fc.tuple(pick(prefixes), fc.oneof(anyText(), pick(['/', '//', '/..', '/%2e%2e', '/search/x', '/at/x']))).map(([prefix, tail]) => `${prefix}${tail.startsWith('/') ? tail : `/${encode(tail)}`}`),
    );
    await fc.assert(
      fc.asyncProperty(pathArb, pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const), async (path, verb) => {
        count('token paths');
        const res = await app.inject({ method: verb, url: path, ...(verb === 'POST' || verb === 'PUT' || verb === 'PATCH' ? { payload: '{}', headers: { 'content-type': 'application/json' } } : {}) });
        const context = `${verb} ${path}`;
        expect(res.statusCode, `${context}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
        // `/tokens/..` is `/` once normalized: not a token API path (Fastify's own 404 answers it).
        const normalized = new URL(path, 'http://host').pathname;
        if (verb === 'HEAD' || verb === 'OPTIONS' || !prefixes.some((prefix) => normalized.startsWith(`/${prefix.split('/')[1]}`))) return;
        const method = HTTP_METHODS.find((m) => m.path === path.split('?')[0]);
        await expectTokenHttp(res, method && (verb === 'GET' || verb === 'POST') ? method.name : undefined, context);
      }),
      fcOptions(RUNS.tokenPaths),
    );
  });

  it('/ws: every message gets exactly one well-formed reply with its id, and other connections keep being served', async () => {
    const witness = await openTokenSocket();
    let client = await openTokenSocket();
    let sent = 0;
    const methodNames = [...METHODS_BY_NAME.keys()];
    // chain, not a nested oneof: fast-check's oneof favours its first option when nested, and every method is wanted.
    const request = pick([...METHODS_BY_NAME.values()]).chain((method) => paramsArb(method).map((params) => ({ method: method.name, params })));
    const frame = fc.oneof(
      {
        weight: 12,
        arbitrary: fc
          .tuple(request, mostly(fc.integer({ min: 0, max: 1_000_000 }) as fc.Arbitrary<unknown>, anyJson()), rarely(pick([...methodNames, 'tokens.nope', '', 'constructor', '__proto__']), 8), rarely(fc.tuple(anyText(), anyJson()), 10), rarely(anyJson(), 10))
          .map(([req, id, otherMethod, extra, otherParams]) => {
            const message: Record<string, unknown> = { id, method: otherMethod ?? req.method, params: otherParams ?? req.params };
            if (extra) message[extra[0]] = extra[1];
            return { text: JSON.stringify(message), binary: false };
          }),
      },
      { weight: 1, arbitrary: anyJson().map((value) => ({ text: JSON.stringify(value) ?? 'null', binary: false })) },
      { weight: 1, arbitrary: anyText().map((text) => ({ text, binary: false })) },
      { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((text) => ({ text, binary: true })) },
      { weight: 1, arbitrary: fc.integer({ min: 65_000, max: 70_000 }).map((size) => ({ text: JSON.stringify({ id: 7, method: 'tokens.search', params: { q: 'x'.repeat(size) } }), binary: false })) },
      { weight: 1, arbitrary: fc.integer({ min: 100, max: 20_000 }).map((depth) => ({ text: `{"id":3,"method":"tokens.get","params":${'['.repeat(depth)}${']'.repeat(depth)}}`, binary: false })) },
    );
    try {
      await fc.assert(
        fc.asyncProperty(frame, async ({ text, binary }) => {
          count('/ws');
          if (++sent % WS_MESSAGES_PER_CONNECTION === 0) {
            client.close();
            client = await openTokenSocket();
            await expectWitnessAnswers(witness);
          }
          client.ws.send(binary ? Buffer.from(text) : text);
          const context = `/ws ${binary ? 'binary ' : ''}${text.slice(0, 300)}`;
          const reply = await client.next(context);
          expect(reply, context).not.toBe('closed');
          const message = JSON.parse(reply) as Record<string, any>;
          expect(message.id, context).toBe(expectedSocketId(text, binary));
          if ('result' in message) {
            expect(Object.keys(message).sort(), context).toEqual(['id', 'result']);
            const method = (JSON.parse(text) as { method: string }).method;
            expectTokenResult(method, message.result, context);
            succeeded('/ws');
          } else {
            expect(Object.keys(message).sort(), context).toEqual(['error', 'id']);
            const { id: _id, ...body } = message;
            expectTokenError(ERROR_STATUS[message.error.code] ?? 500, body, context);
          }
          // Exactly one reply: nothing else is waiting.
          expect(client.pending(), context).toBe(0);
        }),
        fcOptions(RUNS.ws),
      );
      await expectWitnessAnswers(witness);
    } finally {
      client.close();
      witness.close();
    }
  });

  it('/route/subscribe: answers as GET /route does, stops without a query, closes on a frame of another shape, keeps serving others', async () => {
    const validQuery = queryText(
      [
        ['token_in', 'near'],
        ['token_out', data.poolTokens.find((t) => t !== 'near' && t !== 'wrap.near') ?? 'wrap.near'],
        ['amount_in', '1000000000000000000000000'],
        ['max_wait_ms', '1000'],
        ['slippage_type', 'Fixed'],
        ['slippage', '0.01'],
      ],
      false,
    );
    const expectedProbe = (id: number) => routeAnswerOf(validQuery).then((answer) => answerText(id, answer));
    const witness = await Inbox.open('/route/subscribe');
    const probe = async (inbox: Inbox, id: number, context: string) => {
      inbox.ws.send(JSON.stringify({ id, query: validQuery }));
      expect(await inbox.next(`${context} (probe)`), context).toBe(await expectedProbe(id));
    };
    let client = await Inbox.open('/route/subscribe');
    let probes = 0;
    const frame = fc.oneof(
      { weight: 10, arbitrary: fc.record({ id: fc.oneof(fc.nat(), pick([0, Number.MAX_SAFE_INTEGER])), query: routeQuery() }).map((m) => ({ text: JSON.stringify(m), binary: false })) },
      { weight: 1, arbitrary: fc.nat().map((id) => ({ text: JSON.stringify({ id }), binary: false })) },
      {
        weight: 2,
        arbitrary: fc
          .record({ id: anyJson(), query: fc.option(fc.oneof(anyJson(), routeQuery()), { nil: undefined }), extra: fc.option(fc.tuple(anyText(), anyJson()), { nil: undefined }) }, { requiredKeys: [] })
          .map(({ id, query, extra }) => {
            const message: Record<string, unknown> = {};
            if (id !== undefined) message.id = id;
            if (query !== undefined) message.query = query;
            if (extra) message[extra[0]] = extra[1];
            return { text: JSON.stringify(message), binary: false };
          }),
      },
      { weight: 1, arbitrary: anyText().map((text) => ({ text, binary: false })) },
      { weight: 1, arbitrary: anyJson().map((value) => ({ text: JSON.stringify(value) ?? 'null', binary: false })) },
      { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((text) => ({ text, binary: true })) },
      { weight: 1, arbitrary: fc.integer({ min: 65_000, max: 67_000 }).map((size) => ({ text: JSON.stringify({ id: 1, query: `token_in=${'x'.repeat(size)}` }), binary: false })) },
    );
    try {
      await fc.assert(
        fc.asyncProperty(frame, async ({ text, binary }) => {
          count('/route/subscribe');
          const context = `/route/subscribe ${binary ? 'binary ' : ''}${text.slice(0, 300)}`;
          client.ws.send(binary ? Buffer.from(text) : text);
          const shape = binary ? 'ignored' : Buffer.byteLength(text) > LIMITS.max_message_bytes ? 'too_large' : subscribeShape(text);
          if (shape === 'close' || shape === 'too_large') {
            expect(await client.next(context), context).toBe('closed');
            // 1008 policy violation for the shape; 1009 for a frame over the token API's message limit.
            expect(client.closed?.code, context).toBe(shape === 'close' ? 1008 : 1009);
            client = await Inbox.open('/route/subscribe');
          } else if (shape === 'ignored' || shape.query === undefined) {
            // Nothing comes back: the next message is the probe's answer.
            await probe(client, 424242, context);
          } else {
            const answer = await routeAnswerOf(shape.query);
            expect(await client.next(context), context).toBe(answerText(shape.id, answer));
            if ('routes' in answer) succeeded('/route/subscribe');
          }
          expect(client.pending(), context).toBe(0);
          if (++probes % 100 === 0) await probe(witness, 7, 'witness');
        }),
        fcOptions(RUNS.routeSocket),
      );
      await probe(witness, 8, 'witness at the end');
    } finally {
      client.close();
      witness.close();
    }
  });

  it(`at least 10,000 inputs in all; no unhandled rejection, no uncaught exception, nothing logged at warn or above`, () => {
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const lines = Object.entries(counts).map(([surface, n]) => `  ${surface}: ${n} inputs, ${answered[surface] ?? 0} answered with a result`);
    console.log(`fuzz inputs per surface (the rest answered with a well-formed error):\n${lines.join('\n')}\n  total: ${total} inputs`);
    expect(total).toBeGreaterThanOrEqual(10_000);
    expect(rejections.map(String)).toEqual([]);
    expect(uncaught.map(String)).toEqual([]);
    expect(loggedFailures).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Socket helpers.

async function openTokenSocket(): Promise<Inbox> {
  const inbox = await Inbox.open('/ws');
  const hello = JSON.parse((await inbox.next('hello')) as string) as Record<string, any>;
  expect(hello.hello.height).toBe(data.head.height);
  return inbox;
}

async function expectWitnessAnswers(witness: Inbox): Promise<void> {
  witness.ws.send(JSON.stringify({ id: 1, method: 'tokens.get', params: { limit: 1 } }));
  const reply = JSON.parse((await witness.next('witness')) as string) as Record<string, any>;
  expect(reply.id).toBe(1);
  expectTokenResult('tokens.get', reply.result, 'witness');
}

/** The id a /ws reply must carry: the request's integer id, else null (spec B2; ws.ts takes safe integers). */
function expectedSocketId(text: string, binary: boolean): number | null {
  if (binary || Buffer.byteLength(text) > LIMITS.max_message_bytes) return null;
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    const id = (value as { id?: unknown }).id;
    return typeof id === 'number' && Number.isSafeInteger(id) ? id : null;
  } catch {
    return null;
  }
}

/** Spec A2: JSON of the shape `{id: <unsigned integer>, query?: <string>}`, or 'close'. */
function subscribeShape(text: string): { id: number; query?: string } | 'close' {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'close';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'close';
  const { id, query, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length) return 'close';
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) return 'close';
  if (query !== undefined && typeof query !== 'string') return 'close';
  return query === undefined ? { id } : { id, query };
}

/** What GET /route answers for a query: the routes JSON, or the error text. */
async function routeAnswerOf(query: string): Promise<{ routes: string; height: string } | { error: string }> {
  // As a client sends the query string in a URL: white space, control characters and `#` percent-encoded (a URL
  // parser would otherwise trim, drop or cut at them before the api sees them).
  const sent = (query.startsWith('?') ? query.slice(1) : query).replace(/[\s\x00-\x1f\x7f#]/g, (c) => encodeURIComponent(c));
  const res = await app.inject({ method: 'GET', url: `/route?${sent}` });
  expectRouteAnswer(res.statusCode, res.headers['content-type'] as string | undefined, res.body, `GET /route?${query}`);
  return res.statusCode === 200 ? { routes: res.body, height: String(res.headers['x-dexlake-height']) } : { error: res.body };
}

function answerText(id: number, answer: { routes: string; height: string } | { error: string }): string {
  return 'routes' in answer ? `{"id":${id},"routes":${answer.routes},"height":${answer.height}}` : JSON.stringify({ id, error: answer.error });
}
