// Hostile and bad input (issue #7, points 2-4), the quick checks: limits that test/tokens does not already cover
// (the 64 KiB boundary, too many ids, subscriptions raced past their limit, oversized and deeply nested messages
// on both sockets and in POST bodies), allow-listed sort and field names, a scan of the code for SQL built from
// strings, and credits per minute per client address (token HTTP, both sockets, GET /route). The server is the
// real one over a database filled by ingesting devnet blocks.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routing, ROUTE_CREDITS } from '../api/routing/plugin.ts';
import { buildServer } from '../api/server.ts';
import { LIMITS } from '../api/tokens/limits.ts';
import { tokenDataRoutes } from '../api/tokens/plugin.ts';
import { objectShape } from '../api/tokens/query.ts';
import { CreditBudget } from '../api/tokens/rate-limit.ts';
import { METHODS } from '../api/tokens/registry.ts';
import { ApiError } from '../api/tokens/errors.ts';
import { createMigratedDb } from './harness/db.ts';
import { ingestTo, SocketClient, startServer, type Message } from './tokens/harness.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const db = await createMigratedDb();
let app: FastifyInstance;
let wsUrl: string;
let routeUrl: string;
const sockets: { close(): void }[] = [];

beforeAll(async () => {
  await ingestTo(db, 100);
  ({ app, wsUrl } = await startServer(db));
  routeUrl = wsUrl.replace(/\/ws$/, '/route/subscribe');
}, 120_000);
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await app?.close();
});

async function openTokenSocket(): Promise<SocketClient> {
  const client = await SocketClient.open(wsUrl);
  sockets.push(client);
  await client.next(); // hello
  return client;
}

/** A raw socket on `url`: its text messages in order, and its close code. */
async function openRaw(url: string) {
  const ws = new WebSocket(url);
  sockets.push({ close: () => ws.terminate() });
  const messages: string[] = [];
  const waiting: ((text: string) => void)[] = [];
  ws.on('message', (data) => {
    const waiter = waiting.shift();
    if (waiter) waiter(data.toString());
    else messages.push(data.toString());
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, closed, next: () => new Promise<string>((resolve) => (messages.length ? resolve(messages.shift()!) : waiting.push(resolve))) };
}

async function post(url: string, body: string, remoteAddress?: string) {
  const res = await app.inject({ method: 'POST', url, payload: body, headers: { 'content-type': 'application/json' }, ...(remoteAddress ? { remoteAddress } : {}) });
  return { status: res.statusCode, json: JSON.parse(res.body) as Message, headers: res.headers };
}
async function get(url: string) {
  const res = await app.inject({ url });
  return { status: res.statusCode, json: JSON.parse(res.body) as Message };
}

const tokenCount = async () => Number((await db.pool.query('select count(*) as n from tokens')).rows[0].n);

// 10,000 levels of nesting, as arrays and as objects (20,000 and 60,001 bytes: under the 64 KiB message limit).
const DEPTH = 10_000;
const DEEP_ARRAY = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const DEEP_OBJECT = '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH);
// `__proto__` keys make the body parser walk the value: 4,000 levels (56,000 bytes).
const DEEP_PROTO = '{"__proto__":'.repeat(4_000) + '1' + '}'.repeat(4_000);

describe('limits', () => {
  it('a POST body of exactly 64 KiB is read; one byte more is too_large', async () => {
    const json = '{"limit":1}';
    // JSON allows any whitespace before the closing brace: 65,536 − 11 spaces make the body exactly 64 KiB.
    const exact = `${json.slice(0, -1)}${' '.repeat(LIMITS.max_message_bytes - json.length)}}`;
    expect(Buffer.byteLength(exact)).toBe(65_536);
    const taken = await post('/tokens', exact);
    expect(taken.status).toBe(200);
    expect(taken.json.rows.length).toBe(1);
    const over = await post('/tokens', ` ${exact}`);
    expect([over.status, over.json.error.code]).toEqual([400, 'too_large']);
  });

  it(`${LIMITS.max_ids} ids are taken, one more is bad_request: tokens.get (GET, POST, socket), balances.get, prices.at`, async () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `t${i}.near`);
    const socket = await openTokenSocket();
    for (const n of [LIMITS.max_ids, LIMITS.max_ids + 1]) {
      const ok = n <= LIMITS.max_ids;
      const viaGet = await get(`/tokens?ids=${ids(n).join(',')}`);
      const viaPost = await post('/tokens', JSON.stringify({ ids: ids(n) }));
      const viaSocket = await socket.request('tokens.get', { ids: ids(n) });
      const balances = await post('/balances', JSON.stringify({ account_id: 'trent.near', tokens: ids(n) }));
      const prices = await post('/prices/at', JSON.stringify({ at: ids(n).map((token) => ({ token, timestamp_millis: 1 })) }));
      const subscribe = await socket.request('tokens.subscribe', { ids: ids(n) });
      if (ok) {
        // None of t0.near..t499.near exists: every one is missing.
        expect(viaGet.json.missing.length).toBe(n);
        expect(viaPost.json.missing.length).toBe(n);
        expect(viaSocket.result.missing.length).toBe(n);
        expect(balances.status).toBe(200);
        expect(prices.status).toBe(200);
        expect(subscribe.result.missing.length).toBe(n);
      } else {
        expect([viaGet.status, viaGet.json.error.code]).toEqual([400, 'bad_request']);
        expect([viaPost.status, viaPost.json.error.code]).toEqual([400, 'bad_request']);
        expect(viaSocket.error.code).toBe('bad_request');
        expect([balances.status, balances.json.error.code]).toEqual([400, 'bad_request']);
        expect([prices.status, prices.json.error.code]).toEqual([400, 'bad_request']);
        expect(subscribe.error.code).toBe('bad_request');
      }
    }
  });

  it('subscribe requests sent all at once still stop at the per-connection limit', async () => {
    const socket = await openTokenSocket();
    const extra = 5;
    const replies = await Promise.all(
      Array.from({ length: LIMITS.max_subscriptions_per_connection + extra }, (_, i) => socket.request('tokens.subscribe', { ids: ['wrap.near'] }, i + 1)),
    );
    expect(replies.filter((r) => r.result !== undefined).length).toBe(LIMITS.max_subscriptions_per_connection);
    expect(replies.filter((r) => r.error?.code === 'limit_exceeded').length).toBe(extra);
  });

  it('oversized socket frames: /route/subscribe closes over 64 KiB (1009), /ws over 1 MiB (1009)', async () => {
    // /route/subscribe: a frame of exactly 64 KiB is read (`{"id":1}` padded with spaces: it stops nothing and
    // answers nothing); the next, invalid query is answered, so the socket was kept open. One byte more closes it.
    const route = await openRaw(routeUrl);
    route.ws.send(`{"id":1${' '.repeat(LIMITS.max_message_bytes - 8)}}`);
    route.ws.send('{"id":2,"query":"token_in=near"}');
    expect(JSON.parse(await route.next()).id).toBe(2);
    route.ws.send(`{"id":3${' '.repeat(LIMITS.max_message_bytes - 7)}}`);
    expect(await route.closed).toBe(1009);

    // /ws: over 64 KiB is answered too_large (test/tokens/ws.test.ts); over 1 MiB the socket layer refuses the frame
    // before buffering it whole.
    const token = await openRaw(wsUrl);
    await token.next(); // hello
    token.ws.send(`{"id":1,"method":"schema"${' '.repeat(1 << 20)}}`);
    expect(await token.closed).toBe(1009);
  });

  it('10,000 levels of nesting in a POST body, under any key of any method: bad_request, never 500', async () => {
    for (const body of [DEEP_ARRAY, DEEP_OBJECT, DEEP_PROTO]) {
      const res = await post('/tokens', body);
      expect([res.status, res.json.error.code], body.slice(0, 20)).toEqual([400, 'bad_request']);
    }
    let cases = 0;
    for (const method of METHODS) {
      if (!method.path) continue;
      for (const key of Object.keys(objectShape(method.params) ?? {})) {
        for (const deep of [DEEP_ARRAY, DEEP_OBJECT]) {
          const res = await post(method.path, `{"${key}":${deep}}`, '10.0.0.1');
          expect([res.status, res.json.error.code], `${method.name} ${key}`).toEqual([400, 'bad_request']);
          cases++;
        }
      }
    }
    expect(cases).toBeGreaterThan(50);
    // And a dotted GET key thousands deep.
    const dotted = await get(`/tokens?${'min.'.repeat(2000)}x=1`);
    expect([dotted.status, dotted.json.error.code]).toEqual([400, 'bad_request']);
  });

  it('10,000 levels of nesting in a socket message: /ws answers bad_request and stays open; /route/subscribe closes (1008)', async () => {
    const socket = await openTokenSocket();
    for (const deep of [DEEP_ARRAY, DEEP_OBJECT, DEEP_PROTO]) {
      socket.sendRaw(`{"id":7,"method":"tokens.get","params":{"ids":${deep}}}`);
      socket.sendRaw(`{"id":8,"method":"tokens.subscribe","params":${deep}}`);
      socket.sendRaw(deep);
    }
    const replies = [];
    for (let i = 0; i < 9; i++) replies.push(await socket.next());
    expect(replies.map((r) => r.error?.code)).toEqual(Array(9).fill('bad_request'));
    expect((await socket.request('tokens.get', { limit: 1 })).result.rows.length).toBe(1);

    for (const frame of [DEEP_ARRAY, DEEP_OBJECT, `{"id":1,"query":${DEEP_ARRAY}}`]) {
      const route = await openRaw(routeUrl);
      route.ws.send(frame);
      expect(await route.closed).toBe(1008);
    }
  });

  it('sort, fields and where names outside the token fields are bad_request, SQL-looking ones included', async () => {
    const before = await tokenCount();
    const hostile = ['price_usd;drop table tokens', 'price_usd desc; drop table tokens --', 'tok.price_usd', '(select 1)', 'holders"', 'nope'];
    const socket = await openTokenSocket();
    for (const name of hostile) {
      const encoded = encodeURIComponent(name);
      const urls = [`/tokens?sort=${encoded}`, `/tokens?sort=-${encoded}`, `/tokens?fields=symbol,${encoded}`, `/tokens/search?q=usd&fields=${encoded}`];
      urls.push(`/tokens?min.${encoded}=1`, `/tokens?max.${encoded}=1`, `/activity?account_id=trent.near&fields.trade=${encoded}`);
      for (const url of urls) {
        const res = await get(url);
        expect([res.status, res.json.error.code], url).toEqual([400, 'bad_request']);
      }
      const bodies = [{ sort: { by: name } }, { fields: [name] }, { where: { min: { [name]: 1 } } }];
      for (const body of bodies) {
        const res = await post('/tokens', JSON.stringify(body));
        expect([res.status, res.json.error.code], JSON.stringify(body)).toEqual([400, 'bad_request']);
        expect((await socket.request('tokens.get', body)).error.code).toBe('bad_request');
      }
      expect((await socket.request('tokens.subscribe', { min_change: { [name]: '1%' } })).error.code).toBe('bad_request');
    }
    expect(await tokenCount()).toBe(before);
    expect(before).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// SQL built from strings. Kysely's sql`...` parameterizes its ${} values and is fine; these are not:
//   sql.raw / sql.lit / sql.id / sql.ref / sql.table / CompiledQuery.raw with anything but a constant (a string
//   literal, or a condition choosing between two), `.query(` / `.unsafe(` with anything but a string literal, and
//   an untagged template literal that starts like an SQL statement and interpolates.

interface Finding {
  file: string;
  line: number;
  kind: string;
  text: string;
}

interface Lexed {
  /** Each character of the source as code, string (inside quotes or a template's text) or comment. */
  kinds: ('code' | 'string' | 'comment')[];
  /** Template literals: the indexes of their opening and closing backticks. */
  templates: { start: number; end: number }[];
}

/** A slash starts a regular expression (not a division) after an operator, an opening bracket or a keyword. */
function regexMayStart(source: string, slash: number): boolean {
  const before = source.slice(Math.max(0, slash - 20), slash).trimEnd();
  return before === '' || /[(,=:[!&|?{};+\-*%<>~^]$/.test(before) || /\b(?:return|typeof|case|in|of|void)$/.test(before);
}

/** Just enough of a TypeScript lexer to tell code from strings and comments. Pure. */
function lex(source: string): Lexed {
  const kinds: Lexed['kinds'] = new Array(source.length).fill('code');
  const templates: Lexed['templates'] = [];
  // What we are inside: template literals (from their start) and the `${` code within them (counting braces).
  const stack: ({ in: 'template'; start: number } | { in: 'interp'; depth: number })[] = [];
  let i = 0;
  while (i < source.length) {
    const top = stack[stack.length - 1];
    const c = source[i]!;
    if (top?.in === 'template') {
      if (c === '\\') {
        kinds[i] = kinds[i + 1] = 'string';
        i += 2;
      } else if (c === '`') {
        kinds[i] = 'string';
        templates.push({ start: top.start, end: i++ });
        stack.pop();
      } else if (c === '$' && source[i + 1] === '{') {
        kinds[i] = kinds[i + 1] = 'string';
        i += 2;
        stack.push({ in: 'interp', depth: 0 });
      } else kinds[i++] = 'string';
      continue;
    }
    if (c === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') kinds[i++] = 'comment';
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? source.length : end + 2;
      while (i < stop) kinds[i++] = 'comment';
    } else if (c === '/' && regexMayStart(source, i)) {
      // A regular expression literal: to its closing slash, over escapes and character classes.
      let inClass = false;
      kinds[i++] = 'string';
      while (i < source.length && source[i] !== '\n' && (inClass || source[i] !== '/')) {
        if (source[i] === '\\') kinds[i++] = 'string';
        else if (source[i] === '[') inClass = true;
        else if (source[i] === ']') inClass = false;
        kinds[i++] = 'string';
      }
      kinds[i++] = 'string';
    } else if (c === "'" || c === '"') {
      kinds[i++] = 'string';
      while (i < source.length && source[i] !== c && source[i] !== '\n') {
        if (source[i] === '\\') kinds[i++] = 'string';
        kinds[i++] = 'string';
      }
      kinds[i++] = 'string';
    } else if (c === '`') {
      kinds[i] = 'string';
      stack.push({ in: 'template', start: i++ });
    } else if (top?.in === 'interp' && c === '{') {
      top.depth++;
      i++;
    } else if (top?.in === 'interp' && c === '}') {
      if (top.depth === 0) {
        kinds[i++] = 'string';
        stack.pop();
      } else {
        top.depth--;
        i++;
      }
    } else i++;
  }
  return { kinds, templates };
}

/** The text of a call's arguments from its `(` to the matching `)` (strings and comments skipped over). */
function callArguments(source: string, kinds: readonly string[], open: number): string {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    if (kinds[i] !== 'code') continue;
    if (source[i] === '(' || source[i] === '[' || source[i] === '{') depth++;
    else if (source[i] === ')' || source[i] === ']' || source[i] === '}') {
      depth--;
      if (depth === 0) return source.slice(open + 1, i);
    }
  }
  return source.slice(open + 1);
}

const LITERAL = String.raw`(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|\x60[^\x60$]*\x60)`;
/** A string literal without interpolation, or `cond ? 'a' : 'b'` choosing between two. */
const CONSTANT_ARGUMENT = new RegExp(String.raw`^\s*(?:${LITERAL}|[\w.!]+\s*\?\s*${LITERAL}\s*:\s*${LITERAL})\s*$`);
/** A first argument that is a string literal (more arguments, e.g. the values, may follow). */
const LITERAL_FIRST_ARGUMENT = new RegExp(String.raw`^\s*${LITERAL}\s*(?:,|$)`);
const IDENTIFIER_CALLS = /\b(?:sql\.(?:raw|lit|id|ref|table)|CompiledQuery\.raw)\s*\(/g;
const QUERY_CALLS = /\.(?:query|unsafe)\s*\(/g;
/** The start of a statement (a select needs its from: "select a token: ${name}" is English). */
const SQL_START = /^\s*(?:select\s[\s\S]*\bfrom\s|insert\s+into\s|update\s+\S+\s+set\s|delete\s+from\s|with\s+\w+\s+as\s|(?:copy|create|drop|alter|truncate|listen|notify|grant)\s)/i;

/** String-built SQL in one file's source. Pure. */
function findStringBuiltSql(file: string, source: string): Finding[] {
  const { kinds, templates } = lex(source);
  const findings: Finding[] = [];
  const lines = source.split('\n');
  const lineOf = (index: number) => source.slice(0, index).split('\n').length;
  const report = (index: number, kind: string) => findings.push({ file, line: lineOf(index), kind, text: lines[lineOf(index) - 1]!.trim() });
  for (const match of source.matchAll(IDENTIFIER_CALLS)) {
    if (kinds[match.index] !== 'code') continue;
    const args = callArguments(source, kinds, match.index + match[0].length - 1);
    if (!CONSTANT_ARGUMENT.test(args)) report(match.index, match[0].replace(/\s*\($/, ''));
  }
  for (const match of source.matchAll(QUERY_CALLS)) {
    if (kinds[match.index] !== 'code') continue;
    const args = callArguments(source, kinds, match.index + match[0].length - 1);
    if (!LITERAL_FIRST_ARGUMENT.test(args)) report(match.index, match[0].replace(/\s*\($/, ''));
  }
  // Untagged templates (a tag is an expression right before the backtick: `sql`, `sql<T>`) that start like a
  // statement and interpolate: SQL built into a string.
  for (const { start, end } of templates) {
    const before = source.slice(Math.max(0, start - 40), start).trimEnd();
    const tagged = /[\w$)\]>]$/.test(before) && !/(?:=>|\b(?:return|await|yield|case|typeof|in|of))$/.test(before);
    const body = source.slice(start + 1, end);
    if (!tagged && SQL_START.test(body) && body.includes('${')) report(start, 'untagged SQL template');
  }
  return findings;
}

/**
 * String-built SQL that is there on purpose: the interpolated part is an identifier or keyword from our own
 * constants, never from a request. `pattern` must occur in the reported line. A new finding fails the test, and so
 * does an entry that no longer matches anything (it must be removed).
 */
const ALLOWED: { file: string; pattern: string; reason: string }[] = [
  { file: 'api/tokens/listen.ts', pattern: 'client.query(`listen ${NOTIFY_CHANNEL}`)', reason: 'the channel name is a constant of db/notify.ts' },
  { file: 'api/tokens/methods/tokens.ts', pattern: "sql.ref(`tok.${field}`)", reason: 'field is a TokenField: the params schema allows only TOKEN_FIELD_NAMES (tested above), and sql.ref quotes it' },
  { file: 'api/tokens/methods/tokens.ts', pattern: 'sql.raw(op)', reason: "op is '>=' or '<=' from a literal tuple beside it" },
  { file: 'api/tokens/methods/activity.ts', pattern: 'from ${sql.table(arm.from)}', reason: "arm.from is 'trades', 'transfers' or 'events', from the literal list of arms beside it" },
  { file: 'api/tokens/methods/history.ts', pattern: 'sql.table(table)', reason: "table is 'trades' or 'transfers', chosen by the method, not the request" },
  { file: 'indexer/replay.ts', pattern: 'sql.table(t)', reason: 'PROJECTIONS, our own list of tables' },
  { file: 'indexer/projections/tokens.ts', pattern: 'sql.raw(`${column} = case', reason: 'column from a literal list of metadata columns beside it' },
  { file: 'db/copy.ts', pattern: 'client.query(copyFrom(sql))', reason: 'COPY of a table and columns named by our own code, each through quoteIdent' },
  { file: 'db/copy.ts', pattern: 'const sql = `copy ${quoteIdent(table)}', reason: 'the same COPY statement: identifiers through quoteIdent' },
  { file: 'db/connect.ts', pattern: 'admin.query(`create database ${quoteIdent(name)}`)', reason: 'the database name of DATABASE_URL (configuration), through quoteIdent' },
  { file: 'indexer/bulk-load.ts', pattern: '`drop index ${ident(r.name)}`', reason: 'an index named in BULK_LOAD_INDEXES (our own list), read back from pg_class, through ident' },
  { file: 'indexer/bulk-load.ts', pattern: '`alter table ${ident(r.table_name)} drop constraint ${ident(r.name)}`', reason: 'the same, for a primary key: table and constraint names from the catalog, through ident; the definition is pg_get_constraintdef' },
  { file: 'indexer/bulk-load.ts', pattern: 'await client.query(drop);', reason: 'the drop statement built just above from catalog names through ident' },
  { file: 'indexer/partitions.ts', pattern: 'const create = `create table if not exists ${ident(partitionName(table, start))}', reason: 'a partition of a table of PARTITIONED (our own list), named from it and a height computed here, through ident; the bounds are numbers' },
  { file: 'indexer/partitions.ts', pattern: 'await client.query(create);', reason: 'the CREATE built just above from our own names and numbers' },
  { file: 'indexer/replay.ts', pattern: "sql.table(partitionName('events', p.from))", reason: "a partition of 'events' named from a bound read from the catalog (a number), quoted by sql.table" },
  { file: 'indexer/projections/prices.ts', pattern: 'sql.ref(window.column)', reason: 'a column of PRICE_CHANGE_WINDOWS, our own list of token_market columns, quoted by sql.ref' },
  { file: 'indexer/bulk-load.ts', pattern: 'await client.query(definition);', reason: "deferred_indexes.definition: PostgreSQL's own pg_get_indexdef / pg_get_constraintdef text, saved by dropIndexes" },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(REPO, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(REPO, path.join(entry.parentPath, entry.name)));
}

describe('no SQL built from request strings', () => {
  it('the detector finds planted string-built SQL and passes parameterized SQL', () => {
    const planted = [
      'const q = sql.raw(userInput);',
      'const q = sql.raw(`order by ${column}`);',
      "const q = sql.raw('order by ' + column);",
      'sql.lit(name)',
      'sql.id(params.column)',
      'sql.ref(request.query.sort)',
      'CompiledQuery.raw(text)',
      'await client.query(`select * from tokens where token = ${token}`);',
      "await pool.query('select * from tokens where token = ' + token);",
      'await pool.query(text);',
      'await db.unsafe(`delete from t where id = ${id}`);',
      'const text = `select * from ${table} where a = 1`;',
      '  const text = `\n    update tokens set symbol = ${symbol}`;',
    ];
    for (const code of planted) expect(findStringBuiltSql('x.ts', code).length, code).toBeGreaterThan(0);
    const fine = [
      'await sql`select * from tokens where token = ${token}`.execute(db);',
      "sql.raw('desc')",
      "sql.raw(newest ? 'desc' : 'asc')",
      "await client.query('select 1 from t where a = $1', [a]);",
      '// sql.raw(userInput) in a comment',
      '/* client.query(`select ${x}`) */',
      "const message = 'sql.raw(userInput)';",
      "const quoted = text.replace(/[\\\\\"']/g, ''); sql.raw('asc');",
      'const ratio = a / b; const other = c / d;',
      'const message = `select a token: ${name}`.length;',
      'log(`fetched ${n} rows`);',
      'await db.selectFrom("tokens").where("token", "=", token).execute();',
    ];
    for (const code of fine) expect(findStringBuiltSql('x.ts', code), code).toEqual([]);
    // Line numbers point at the call.
    expect(findStringBuiltSql('x.ts', 'a;\nb;\n  sql.raw(x);')[0]).toMatchObject({ line: 3, kind: 'sql.raw', text: 'sql.raw(x);' });
  });

  it('api/, indexer/, devnet/, db/ and cli/ build no SQL from strings but the allow-listed constants', () => {
    const files = ['api', 'indexer', 'devnet', 'db', 'cli'].flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(50);
    const findings = files.flatMap((file) => findStringBuiltSql(file, readFileSync(path.join(REPO, file), 'utf8')));
    const used = new Set<number>();
    const unexplained = findings.filter((finding) => {
      const entry = ALLOWED.findIndex((allowed) => allowed.file === finding.file && finding.text.includes(allowed.pattern));
      if (entry >= 0) used.add(entry);
      return entry < 0;
    });
    expect(unexplained, 'string-built SQL: parameterize it with sql`...`, or allow-list a constant with its reason').toEqual([]);
    expect(ALLOWED.filter((_, i) => !used.has(i)), 'allow-list entries that match nothing any more').toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('credits per minute per client', () => {
  it('CreditBudget: a fixed one-minute window per client; Retry-After is the seconds left in it', () => {
    const budget = new CreditBudget(10);
    budget.spend('a', 9, 0);
    expect(() => budget.check('a', 1_000)).not.toThrow(); // 9 < 10
    budget.spend('a', 1, 1_000);
    const refusal = (client: string, now: number) => {
      try {
        budget.check(client, now);
        return undefined;
      } catch (err) {
        return err as ApiError;
      }
    };
    // 10 spent in the window that began at 0: refused until 60,000, Retry-After = ceil((60,000 − now) / 1000).
    expect(refusal('a', 1_000)).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 59 });
    expect(refusal('a', 59_001)?.retryAfterSeconds).toBe(1); // ceil(0.999)
    expect(refusal('a', 59_999)?.retryAfterSeconds).toBe(1); // never 0
    expect(refusal('b', 1_000)).toBeUndefined(); // another client, its own window
    expect(refusal('a', 60_000)).toBeUndefined(); // a new window
  });

  it('token HTTP: each client address has its own budget; under it never refused; errors count', async () => {
    const bare = Fastify();
    await bare.register(async (scope) => tokenDataRoutes(scope, { db, httpCreditsPerMinute: 5 }));
    const from = (remoteAddress: string, url = '/tokens?limit=1') => bare.inject({ url, remoteAddress });
    try {
      // tokens.get of one row costs 1 + 1 = 2 credits. Client A: 0 → 2 → 4 spent, each checked below 5; then 4 + 1
      // (a bad request costs 1) = 5, and the next one is refused.
      const a = [await from('10.1.0.1'), await from('10.1.0.1'), await from('10.1.0.1', '/tokens?limit=0')];
      expect(a.map((r) => r.statusCode)).toEqual([200, 200, 400]);
      expect(a.map((r) => r.headers['x-credits-used'])).toEqual(['2', '2', '1']);
      const refused = await from('10.1.0.1');
      expect(JSON.parse(refused.body).error.code).toBe('rate_limited');
      expect(refused.headers['x-credits-used']).toBe('1');
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // Client B, meanwhile: its own 5 credits, 2 + 2 spent and never refused.
      expect((await from('10.1.0.2')).statusCode).toBe(200);
      expect((await from('10.1.0.2')).statusCode).toBe(200);
      // schema costs 0: a client under its budget is never refused, however often it asks.
      for (let i = 0; i < 50; i++) expect((await from('10.1.0.3', '/schema')).statusCode).toBe(200);
      // A stays refused within the minute.
      expect(JSON.parse((await from('10.1.0.1')).body).error.code).toBe('rate_limited');
    } finally {
      await bare.close();
    }
  });

  it('behind a trusted proxy (DEXLAKE_TRUST_PROXY) credits are counted per client X-Forwarded-For names; otherwise the header is ignored', async () => {
    // The api of `dexlake serve`, as behind HAProxy: every request comes from the proxy's address.
    const spend = async (app: FastifyInstance, remoteAddress: string, client: string) => {
      for (let i = 0; i < 10; i++) {
        const res = await app.inject({ url: '/tokens?limit=1', remoteAddress, headers: { 'x-forwarded-for': client } });
        if (res.statusCode === 429 || JSON.parse(res.body).error?.code === 'rate_limited') return i;
      }
      return -1;
    };
    const status = async (app: FastifyInstance, remoteAddress: string, client: string) =>
      JSON.parse((await app.inject({ url: '/tokens?limit=1', remoteAddress, headers: { 'x-forwarded-for': client } })).body).error?.code ?? 'ok';
    const trusting = await buildServer({ db, logLevel: 'silent', httpCreditsPerMinute: 5, trustProxy: ['10.4.0.0/16'] });
    const plain = await buildServer({ db, logLevel: 'silent', httpCreditsPerMinute: 5 });
    try {
      // Trusted proxy: client A spends its budget; client B, through the same proxy, has its own.
      expect(await spend(trusting, '10.4.0.9', '198.51.100.1')).toBeGreaterThan(0);
      expect(await status(trusting, '10.4.0.9', '198.51.100.1')).toBe('rate_limited');
      expect(await status(trusting, '10.4.0.9', '198.51.100.2')).toBe('ok');
      // A peer outside the trusted range is its own client, whatever it claims.
      expect(await spend(trusting, '203.0.113.7', '198.51.100.3')).toBeGreaterThan(0);
      expect(await status(trusting, '203.0.113.7', '198.51.100.4')).toBe('rate_limited');
      // No trusted proxy: X-Forwarded-For cannot buy a new budget.
      expect(await spend(plain, '10.4.0.9', '198.51.100.1')).toBeGreaterThan(0);
      expect(await status(plain, '10.4.0.9', '198.51.100.2')).toBe('rate_limited');
    } finally {
      await trusting.close();
      await plain.close();
    }
  });

  it('GET /route: credits per client address, 429 with Retry-After past them', async () => {
    const bare = Fastify();
    await bare.register(websocket);
    routing(bare, { db, network: 'mainnet', creditsPerMinute: 3 });
    try {
      const route = (remoteAddress: string) =>
        bare.inject({ url: '/route?token_in=near&token_out=usdt.tether-token.near&amount_in=1000000000000000000000000&max_wait_ms=1000&slippage_type=Fixed&slippage=0.005', remoteAddress });
      const bad = (remoteAddress: string) => bare.inject({ url: '/route?token_in=near', remoteAddress });
      // ROUTE_CREDITS (1) per request, answered or not: A's 3 credits are 3 requests (200, 200, 400), then 429.
      expect(ROUTE_CREDITS).toBe(1);
      expect([(await route('10.2.0.1')).statusCode, (await route('10.2.0.1')).statusCode, (await bad('10.2.0.1')).statusCode]).toEqual([200, 200, 400]);
      const refused = await route('10.2.0.1');
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(refused.body).toMatch(/^Rate limited: more than 3 credits in a minute; retry in \d+ s$/);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // B has its own budget.
      expect((await route('10.2.0.2')).statusCode).toBe(200);
    } finally {
      await bare.close();
    }
  });

  it('sockets: credits per connection on /ws and /route/subscribe; another connection is not refused', async () => {
    // /ws: an unknown method is an error of 1 credit: 6000 of them spend the minute, the next is rate_limited.
    const spender = await openTokenSocket();
    const errors = await Promise.all(Array.from({ length: LIMITS.credits_per_minute }, (_, i) => spender.request('no.such.method', {}, i + 1)));
    expect(errors.every((e) => e.error.code === 'unknown_method')).toBe(true);
    expect((await spender.request('schema', {}, 0)).error.code).toBe('rate_limited');
    expect((await (await openTokenSocket()).request('schema', {})).result).toBeDefined();

    // /route/subscribe: 1 credit per frame; an invalid query is answered with its error text, frame 6001 with
    // the rate-limit text, and the connection stays open.
    const route = await openRaw(routeUrl);
    for (let id = 1; id <= LIMITS.credits_per_minute + 1; id++) route.ws.send(`{"id":${id},"query":"token_in=near"}`);
    const replies: Message[] = [];
    for (let i = 0; i <= LIMITS.credits_per_minute; i++) replies.push(JSON.parse(await route.next()));
    expect(replies.slice(0, -1).every((r) => !String(r.error).startsWith('Rate limited'))).toBe(true);
    expect(replies.at(-1)).toMatchObject({ id: LIMITS.credits_per_minute + 1, error: expect.stringMatching(/^Rate limited: more than 6000 credits in a minute/) });
    const fresh = await openRaw(routeUrl);
    fresh.ws.send('{"id":1,"query":"token_in=near"}');
    expect(String(JSON.parse(await fresh.next()).error)).not.toMatch(/^Rate limited/);
  }, 60_000);
});
