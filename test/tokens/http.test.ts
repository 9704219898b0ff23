// The token-data methods over HTTP GET, POST and the /ws socket, against a database filled by ingesting the
// realnet's first 300 blocks (the real contracts and the hosted models). Expected values are read from the tables
// with SQL written here (or worked out by hand), never by calling the method under test a second time.
import { gunzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { decompress as zstdDecompress } from 'fzstd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../db/connect.ts';
import { MethodCaller } from '../../api/tokens/call.ts';
import { initCompression } from '../../api/tokens/compress.ts';
import { tokenHttpRoutes } from '../../api/tokens/http.ts';
import { tokenDataRoutes } from '../../api/tokens/plugin.ts';
import { paramsFromQuery } from '../../api/tokens/query.ts';
import { CreditBudget } from '../../api/tokens/rate-limit.ts';
import { METHODS, METHODS_BY_NAME } from '../../api/tokens/registry.ts';
import { indexedDb, ingestTo, SocketClient, startServer, type Message } from './harness.ts';

const db = await indexedDb(300);
let app: FastifyInstance;
let socket: SocketClient;
let head: { height: number; timestamp_ms: number };

const WNEAR = 'wrap.near';
const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';
// A staked token (StakeB's model): its whole supply is minted by logged stakes, so the indexer knows it. The realnet's
// USDC, USDt and REF mint their supply at `new` without a log line: no supply is known for them, and no shares.
const LINEAR = 'linear-protocol.near';

beforeAll(async () => {
  const server = await startServer(db);
  app = server.app;
  socket = await SocketClient.open(server.wsUrl);
  await socket.next(); // hello
  head = (await db.pool.query('select height, timestamp_ms from blocks order by height desc limit 1')).rows[0];
}, 120_000);
afterAll(async () => {
  socket?.close();
  await app?.close();
});

const query = async <T = any>(text: string, values: unknown[] = []) => (await db.pool.query(text, values)).rows as T[];
/** A stored USD decimal as the API prints it without precision: trailing zeros (and a bare point) dropped. */
const trimmed = (text: string | null) => (text === null ? null : text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text);

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url, headers });
  const json = res.body && !res.headers['content-encoding'] ? (JSON.parse(res.body) as Message) : undefined;
  return { status: res.statusCode, headers: res.headers, json, res };
}
async function post(url: string, body: unknown) {
  const res = await app.inject({ method: 'POST', url, payload: body as object, headers: { 'content-type': 'application/json' } });
  return { status: res.statusCode, headers: res.headers, json: JSON.parse(res.body) as Message };
}

// One case per method: the GET query and the params object it stands for.
const CASES: { method: string; path: string; query: string; params: Record<string, unknown> }[] = [
  {
    method: 'tokens.get',
    path: '/tokens',
    query: 'fields=symbol,price_usd,holders,reputation&min_reputation=NotFake&min.liquidity_usd=1000&sort=-holders&limit=5&precision=6',
    params: { fields: ['symbol', 'price_usd', 'holders', 'reputation'], where: { min_reputation: 'NotFake', min: { liquidity_usd: 1000 } }, sort: { by: 'holders', desc: true }, limit: 5, precision: 6 },
  },
  { method: 'tokens.search', path: '/tokens/search', query: 'q=usd&fields=symbol,liquidity_usd&limit=3', params: { q: 'usd', fields: ['symbol', 'liquidity_usd'], limit: 3 } },
  { method: 'trades.query', path: '/trades', query: `token=${WNEAR}&side=sell&limit=4&order=oldest`, params: { token: WNEAR, side: 'sell', limit: 4, order: 'oldest' } },
  { method: 'transfers.query', path: '/transfers', query: `token=${USDC}&min_amount=1000000&limit=3`, params: { token: USDC, min_amount: '1000000', limit: 3 } },
  { method: 'candles.get', path: '/candles', query: `token=${WNEAR}&resolution=1m&count_back=4&quote=near`, params: { token: WNEAR, resolution: '1m', count_back: 4, quote: 'near' } },
  { method: 'prices.at', path: '/prices/at', query: `at=${WNEAR}:1767225700000,${USDC}:1767225800000`, params: { at: [{ token: WNEAR, timestamp_millis: 1767225700000 }, { token: USDC, timestamp_millis: 1767225800000 }] } },
  { method: 'balances.get', path: '/balances', query: 'account_id=trent.near&at_height=150', params: { account_id: 'trent.near', at_height: 150 } },
  { method: 'holders.get', path: '/holders', query: `token=${USDC}&limit=3`, params: { token: USDC, limit: 3 } },
  {
    method: 'activity.query',
    path: '/activity',
    query: 'account_id=trent.near&kinds=trade,transfer,wrap&fields.trade=dex,value_usd&fields.transfer=token,amount&limit=20',
    params: { account_id: 'trent.near', kinds: ['trade', 'transfer', 'wrap'], fields: { trade: ['dex', 'value_usd'], transfer: ['token', 'amount'] }, limit: 20 },
  },
  { method: 'positions.get', path: '/positions', query: 'account_id=trent.near&precision=8', params: { account_id: 'trent.near', precision: 8 } },
  { method: 'schema', path: '/schema', query: '', params: {} },
];

describe('every method over GET, POST and the socket', () => {
  it.each(CASES)('$method gives the same result three ways', async ({ method, path, query: q, params }) => {
    const viaGet = await get(q ? `${path}?${q}` : path);
    const viaPost = await post(path, params);
    const viaSocket = await socket.request(method, params);
    expect(viaGet.status).toBe(200);
    expect(viaPost.status).toBe(200);
    expect(viaSocket.error).toBeUndefined();
    expect(viaPost.json).toEqual(viaGet.json);
    expect(viaSocket.result).toEqual(viaGet.json);
    expect(viaGet.json!.height).toBe(300);
    expect(viaGet.json!.timestamp_millis).toBe(head.timestamp_ms);
    expect(Number(viaGet.headers['x-credits-used'])).toBeGreaterThanOrEqual(method === 'schema' ? 0 : 1);
  });
});

describe('tokens.get', () => {
  it('columns, rows and total from the tokens and token_market tables', async () => {
    const { json } = await get(`/tokens?ids=${WNEAR},${USDC},nobody.near&fields=symbol,decimals,price_usd,liquidity_usd,holders,total_supply,created_height,reputation`);
    expect(json!.columns).toEqual(['account_id', 'symbol', 'decimals', 'price_usd', 'liquidity_usd', 'holders', 'total_supply', 'created_height', 'reputation']);
    expect(json!.total).toBe(2);
    expect(json!.missing).toEqual(['nobody.near']);
    const expected = await query(
      `select t.token, t.symbol, t.decimals, m.price_usd::text, m.liquidity_usd::text, t.holders, t.total_supply::text, t.created_height
       from tokens t join token_market m on m.token = t.token where t.token = any($1) order by m.liquidity_usd desc`,
      [[WNEAR, USDC]],
    );
    expect(json!.rows).toEqual(
      expected.map((r) => [r.token, r.symbol, r.decimals, trimmed(r.price_usd), trimmed(r.liquidity_usd), r.holders, r.total_supply, Number(r.created_height), 'Reputable']),
    );
  });

  it('where, sort, limit, offset and precision', async () => {
    const [{ n }] = await query(`select count(*)::int as n from token_market where liquidity_usd >= 1000`);
    const top = await get('/tokens?fields=liquidity_usd&min.liquidity_usd=1000&limit=2&offset=1');
    expect(top.json!.total).toBe(n);
    const expected = await query(`select token, liquidity_usd::text as liquidity from token_market where liquidity_usd >= 1000 order by liquidity_usd desc, token limit 2 offset 1`);
    expect(top.json!.rows).toEqual(expected.map((r) => [r.token, trimmed(r.liquidity)]));

    const byHolders = await get('/tokens?fields=holders&sort=holders&limit=1000');
    const holders = byHolders.json!.rows.map((r: unknown[]) => r[1]);
    expect(holders).toEqual([...holders].sort((a: number, b: number) => a - b));

    const [{ price_usd }] = await query(`select price_usd::text from token_market where token = $1`, [WNEAR]);
    const rounded = await get(`/tokens?ids=${WNEAR}&fields=price_usd&precision=3`);
    // three significant digits of the stored price (a floating check is fine for this oracle at 3 digits)
    expect(Number(rounded.json!.rows[0][1])).toBe(Number(Number(price_usd).toPrecision(3)));
    expect(rounded.json!.rows[0][1].replace('.', '').replace(/^0+/, '').length).toBeLessThanOrEqual(3);
  });

  it('reputation: the bundled list is Reputable; min_reputation filters by the order', async () => {
    const reputable = await get('/tokens?fields=reputation&min_reputation=Reputable&limit=1000');
    for (const row of reputable.json!.rows) expect(row[1]).toBe('Reputable');
    expect(reputable.json!.rows.map((r: unknown[]) => r[0])).toContain(WNEAR);
    const all = await get('/tokens?fields=reputation&limit=1000');
    const [{ n }] = await query(`select count(*)::int as n from (select token from tokens union select token from token_market) u`);
    expect(all.json!.total).toBe(n);
    expect(all.json!.rows.length).toBe(n);
  });
});

describe('tokens.search', () => {
  it('exact symbol first, every match counted', async () => {
    const { json } = await get('/tokens/search?q=ref&fields=symbol');
    expect(json!.rows[0]).toEqual(['token.v2.ref-finance.near', 'REF']);
    const [{ n }] = await query(
      `select count(*)::int as n from (select token, symbol, name from tokens union select token, null, null from token_market where token not in (select token from tokens)) u
       where lower(token) like '%ref%' or lower(symbol) like '%ref%' or lower(name) like '%ref%'`,
    );
    expect(json!.total).toBe(n);
  });
});

describe('trades.query and transfers.query', () => {
  it('newest first, pages by cursor, latest_id, and cache headers per rule', async () => {
    const expected = await query(`select block_height, receipt_id, index, value_usd::text from trades order by block_height desc, receipt_id desc, index desc limit 10`);
    const ids = expected.map((r) => `${r.block_height}:${r.receipt_id}:${r.index}`);
    const first = await get('/trades?limit=5');
    expect(first.json!.rows.map((r: Message) => r.id)).toEqual(ids.slice(0, 5));
    expect(first.json!.latest_id).toBe(ids[0]);
    expect(first.json!.next_cursor).toBe(ids[4]);
    expect(first.headers['cache-control']).toBe('public, max-age=1');
    const second = await get(`/trades?limit=5&cursor=${first.json!.next_cursor}`);
    expect(second.json!.rows.map((r: Message) => r.id)).toEqual(ids.slice(5, 10));
    expect(second.json!.latest_id).toBe(ids[0]);
    // newest first after a cursor: purely historical
    expect(second.headers['cache-control']).toBe('public, max-age=86400');
  });

  it('filters: side relative to token, min_usd, trader, time bounds', async () => {
    const sells = await get(`/trades?token=${WNEAR}&side=sell&limit=1000`);
    const [{ n }] = await query(`select count(*)::int as n from trades where token_in = $1`, [WNEAR]);
    expect(sells.json!.rows.length).toBe(Math.min(n, 1000));
    for (const row of sells.json!.rows) {
      expect(row.token_in).toBe(WNEAR);
      expect(row.side).toBe('sell');
    }
    const big = await get('/trades?min_usd=1000&limit=1000');
    const [{ m }] = await query(`select count(*)::int as m from trades where value_usd >= 1000`);
    expect(big.json!.rows.length).toBe(m);
    const [{ trader }] = await query(`select trader from trades where trader is not null group by trader order by count(*) desc, trader limit 1`);
    const mine = await get(`/trades?trader=${trader}&limit=1000`);
    const [{ k }] = await query(`select count(*)::int as k from trades where trader = $1`, [trader]);
    expect(mine.json!.rows.length).toBe(k);
    const bounded = await get(`/trades?after_millis=${head.timestamp_ms - 60_000}&before_millis=${head.timestamp_ms - 30_000}&limit=1000`);
    const [{ j }] = await query(`select count(*)::int as j from trades where timestamp_ms > $1 and timestamp_ms < $2`, [head.timestamp_ms - 60_000, head.timestamp_ms - 30_000]);
    expect(bounded.json!.rows.length).toBe(j);
    // before_millis already passed by the latest block: historical
    expect(bounded.headers['cache-control']).toBe('public, max-age=86400');
  });

  it('oldest first: a full page is historical, the last page is not', async () => {
    const [{ n }] = await query(`select count(*)::int as n from transfers where token = $1`, [USDC]);
    const full = await get(`/transfers?token=${USDC}&order=oldest&limit=2`);
    expect(full.json!.next_cursor).not.toBeNull();
    expect(full.headers['cache-control']).toBe('public, max-age=86400');
    const all = await get(`/transfers?token=${USDC}&order=oldest&limit=1000`);
    expect(all.json!.rows.length).toBe(n);
    expect(all.json!.next_cursor).toBeNull();
    expect(all.headers['cache-control']).toBe('public, max-age=1');
    const expected = await query(`select block_height, receipt_id, index, sender, receiver, amount::text from transfers where token = $1 order by block_height, receipt_id, index limit 2`, [USDC]);
    expect(full.json!.rows.map((r: Message) => [r.id, r.from, r.to, r.amount])).toEqual(
      expected.map((r) => [`${r.block_height}:${r.receipt_id}:${r.index}`, r.sender, r.receiver, r.amount]),
    );
  });

  it('fields: the default leaves out the receipt-level fields; fields picks any, in the order asked', async () => {
    const [t] = await query(
      `select block_height, receipt_id, index, tx_hash, dex, trader, token_in, token_out, amount_in::text, amount_out::text, hops, pool_ids, receipt_ids
       from trades order by block_height desc, receipt_id desc, index desc limit 1`,
    );
    const id = `${t.block_height}:${t.receipt_id}:${t.index}`;
    const plain = (await get('/trades?limit=1')).json!.rows[0];
    expect(Object.keys(plain)).toEqual(['id', 'block_height', 'timestamp_millis', 'tx_hash', 'dex', 'trader', 'token_in', 'token_out', 'amount_in', 'amount_out', 'pool_ids', 'value_usd']);
    expect([plain.id, plain.dex, plain.trader, plain.amount_in, plain.amount_out, plain.pool_ids]).toEqual([id, t.dex, t.trader, t.amount_in, t.amount_out, t.pool_ids]);
    const picked = (await get('/trades?limit=1&fields=receipt_ids,hops,receipt_id')).json!.rows[0];
    expect(picked).toEqual({ id, receipt_ids: t.receipt_ids, hops: t.hops, receipt_id: t.receipt_id });
    // side belongs to token: in the default with it, refused without it
    const withToken = (await get(`/trades?limit=1&token=${t.token_in}`)).json!.rows[0];
    expect(Object.keys(withToken).at(-1)).toBe('side');
    expect((await get('/trades?fields=side')).json!.error.code).toBe('bad_request');

    const [x] = await query(`select block_height, receipt_id, index, token, amount::text from transfers order by block_height desc, receipt_id desc, index desc limit 1`);
    const transfer = (await get('/transfers?limit=1')).json!.rows[0];
    expect(Object.keys(transfer)).toEqual(['id', 'block_height', 'timestamp_millis', 'tx_hash', 'token', 'from', 'to', 'amount', 'memo']);
    expect((await get('/transfers?limit=1&fields=amount,receipt_id')).json!.rows[0]).toEqual({ id: `${x.block_height}:${x.receipt_id}:${x.index}`, amount: x.amount, receipt_id: x.receipt_id });
    for (const bad of ['/trades?fields=', '/trades?fields=index', '/transfers?fields=side']) expect((await get(bad)).json!.error.code, bad).toBe('bad_request');
  });

  it('account, from and to', async () => {
    const mine = await get('/transfers?account=trent.near&limit=1000');
    const [{ n }] = await query(`select count(*)::int as n from transfers where sender = 'trent.near' or receiver = 'trent.near'`);
    expect(mine.json!.rows.length).toBe(Math.min(n, 1000));
    const sent = await get('/transfers?from=trent.near&limit=1000');
    for (const row of sent.json!.rows) expect(row.from).toBe('trent.near');
  });

  it('no caching when the token asked about does not exist', async () => {
    const res = await get('/trades?token=nobody.near&cursor=1:x:0');
    expect(res.status).toBe(200);
    expect(res.json!.rows).toEqual([]);
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('candles.get', () => {
  it('candles from the table, gaps filled with the previous close', async () => {
    // Every token of the realnet's first 300 blocks trades each minute; a pool does not. A pool, one of its tokens
    // and a minute with no hop after one that has one, all closed by the latest block.
    const [gap] = await query(
      `with ticks as (
         select dex, pool_id, token_in as token, (timestamp_ms / 60000) * 60000 as bucket from trade_hops where volume_usd is not null and pool_id is not null
         union select dex, pool_id, token_out, (timestamp_ms / 60000) * 60000 from trade_hops where volume_usd is not null and pool_id is not null)
       select t.dex, t.pool_id, t.token, t.bucket + 60000 as missing from ticks t join tokens k on k.token = t.token and k.decimals is not null
       where not exists (select 1 from ticks u where (u.dex, u.pool_id, u.token) = (t.dex, t.pool_id, t.token) and u.bucket = t.bucket + 60000)
         and t.bucket + 180000 <= $1
       order by t.dex, t.pool_id, t.token, t.bucket limit 1`,
      [head.timestamp_ms],
    );
    expect(gap, 'the realnet has a pool with a gap in its 1m candles').toBeDefined();
    const from = Number(gap.missing) - 60_000;
    const to = Number(gap.missing) + 60_000;
    // The hops' own rates (USD value over the token's amount, floored to 10^-18), computed here from trade_hops.
    const stored = await query(
      `select (h.timestamp_ms / 60000) * 60000 as bucket_start_ms,
         (array_agg(div(h.volume_usd * power(10::numeric, 18 + k.decimals), case when h.token_in = $3 then h.amount_in else h.amount_out end) * 0.000000000000000001
           order by h.block_height desc, h.receipt_id desc, h.index desc))[1]::text as close_usd
       from trade_hops h join tokens k on k.token = $3
       where h.dex = $1 and h.pool_id = $2 and $3 in (h.token_in, h.token_out) and h.volume_usd is not null and h.timestamp_ms >= $4::bigint and h.timestamp_ms < $5::bigint + 60000
       group by 1 order by 1`,
      [gap.dex, gap.pool_id, gap.token, from, to],
    );
    const url = `/candles?token=${gap.token}&pool_id=${gap.pool_id}&dex=${gap.dex}&resolution=1m&from_millis=${from}&to_millis=${to}`;
    const filled = await get(url);
    const candles = filled.json!.candles as Message[];
    expect(candles.map((c) => c.time_millis)).toEqual([from, from + 60_000, to]);
    expect(candles[0]!.close).toBe(trimmed(stored[0].close_usd));
    const previousClose = trimmed(stored[0].close_usd);
    expect(candles[1]).toEqual({ time_millis: from + 60_000, open: previousClose, high: previousClose, low: previousClose, close: previousClose, volume_quote: '0', volume: '0', trades: 0 });
    // to_millis's candle has closed: historical
    expect(filled.headers['cache-control']).toBe('public, max-age=86400');
    const unfilled = await get(`${url}&fill=false`);
    expect(unfilled.json!.candles.map((c: Message) => c.time_millis)).toEqual(stored.map((r) => Number(r.bucket_start_ms)));
  });

  it('quote=near divides by the NEAR price in force at each bucket end', async () => {
    // the latest closed minute of USDC
    const [candle] = await query(
      `select bucket_start_ms, close_usd::text from candles where token = $1 and resolution = '1m' and bucket_start_ms + 60000 <= $2 order by bucket_start_ms desc limit 1`,
      [USDC, head.timestamp_ms],
    );
    const t = Number(candle.bucket_start_ms);
    const [near] = await query(`select price_usd::text from prices where token = 'wrap.near' and timestamp_ms < $1 order by timestamp_ms desc, block_height desc limit 1`, [t + 60_000]);
    const res = await get(`/candles?token=${USDC}&resolution=1m&from_millis=${t}&to_millis=${t}&quote=near`);
    // close_near = close_usd / near_usd, both with 18 decimals: (close * 10^18 * 10^18 / 10^18) / near in units of 10^-18
    const scaled = (s: string) => BigInt(s.replace('.', ''));
    const expected = (scaled(candle.close_usd) * 10n ** 18n) / scaled(near.price_usd);
    const text = expected.toString().padStart(19, '0');
    expect(res.json!.candles[0].close).toBe(trimmed(`${text.slice(0, -18)}.${text.slice(-18)}`));
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
  });

  it('without to_millis the last bucket is live', async () => {
    const res = await get(`/candles?token=${WNEAR}&resolution=5m&count_back=2`);
    expect(res.headers['cache-control']).toBe('public, max-age=1');
    expect(res.json!.candles.at(-1).time_millis).toBe(Math.floor(head.timestamp_ms / 300_000) * 300_000);
  });
});

describe('prices.at', () => {
  it('the last price at or before each time; null before any', async () => {
    const t = head.timestamp_ms - 100_000;
    const [expected] = await query(`select price_usd::text, block_height from prices where token = $1 and timestamp_ms <= $2 order by timestamp_ms desc, block_height desc limit 1`, [WNEAR, t]);
    const res = await get(`/prices/at?at=${WNEAR}:${t},${WNEAR}:0`);
    expect(res.json!.prices).toEqual([
      { token: WNEAR, timestamp_millis: t, price_usd: trimmed(expected.price_usd), block_height: Number(expected.block_height) },
      { token: WNEAR, timestamp_millis: 0, price_usd: null, block_height: null },
    ]);
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
  });

  it('live for a time the latest block has not passed; no-store for an unknown token', async () => {
    expect((await get(`/prices/at?at=${WNEAR}:${head.timestamp_ms + 5_000}`)).headers['cache-control']).toBe('public, max-age=1');
    expect((await get(`/prices/at?at=nobody.near:1`)).headers['cache-control']).toBe('no-store');
  });
});

describe('balances.get and holders.get', () => {
  it('current balances with exact USD values', async () => {
    const res = await get('/balances?account_id=trent.near');
    const expected = await query(
      `select b.token, b.balance::text, t.decimals, m.price_usd::text from balances b left join tokens t using (token) left join token_market m on m.token = b.token
       where account = 'trent.near' and balance <> 0 order by b.token`,
    );
    expect(res.json!.rows.map((r: Message) => [r.token, r.amount])).toEqual(expected.map((r) => [r.token, r.balance]));
    const usdc = expected.find((r) => r.token === USDC)!;
    // USDC has 6 decimals at 1 USD: value = balance / 10^6
    const row = res.json!.rows.find((r: Message) => r.token === USDC);
    const whole = BigInt(usdc.balance) / 10n ** 6n;
    const fraction = (BigInt(usdc.balance) % 10n ** 6n).toString().padStart(6, '0');
    expect(trimmed(usdc.price_usd)).toBe('1');
    expect(row.value_usd).toBe(trimmed(`${whole}.${fraction}`));
  });

  it('at_height reads balance_history', async () => {
    const res = await get('/balances?account_id=trent.near&at_height=150');
    const expected = await query(
      `select token, balance::text from (select distinct on (token) token, balance from balance_history where account = 'trent.near' and block_height <= 150 order by token, block_height desc) b where balance <> 0 order by token`,
    );
    expect(res.json!.at_height).toBe(150);
    expect(res.json!.rows.map((r: Message) => [r.token, r.amount])).toEqual(expected.map((r) => [r.token, r.balance]));
    // no caching when a token asked about does not exist
    expect((await get('/balances?account_id=trent.near&tokens=nobody.near')).headers['cache-control']).toBe('no-store');
    expect((await get(`/balances?account_id=trent.near&tokens=${USDC}`)).headers['cache-control']).toBe('public, max-age=1');
    const future = await get('/balances?account_id=trent.near&at_height=301');
    expect(future.json!.error.code).toBe('bad_request');
  });

  it('at_height around the heights where an account first and last changed each token', async () => {
    // At each token's first and last height and the block before each: held from its first block on, and unchanged
    // from its last block on (where the current balance answers).
    const ends = await query(`select token, min(block_height)::int as first, max(block_height)::int as last from balance_history where account = 'trent.near' group by token order by 2, 1`);
    expect(new Set(ends.map((f) => f.first)).size).toBeGreaterThan(1);
    expect(ends.some((f) => f.last > f.first)).toBe(true);
    for (const at of [...new Set(ends.flatMap((f) => [f.first - 1, f.first, f.last - 1, f.last]))].filter((h) => h >= 0)) {
      const expected = await query(
        `select token, balance::text from (select distinct on (token) token, balance from balance_history where account = 'trent.near' and block_height <= $1 order by token, block_height desc) b where balance <> 0 order by token`,
        [at],
      );
      const res = await get(`/balances?account_id=trent.near&at_height=${at}`);
      expect(res.json!.rows.map((r: Message) => [r.token, r.amount]), `at ${at}`).toEqual(expected.map((r) => [r.token, r.balance]));
    }
  });

  it('holders largest first, with count, share of supply and a cursor', async () => {
    const expected = await query(`select account, balance::text as amount from balances where token = $1 and balance > 0 order by balance desc, account limit 4`, [LINEAR]);
    const [{ total_supply, holders }] = await query(`select total_supply::text, holders from tokens where token = $1`, [LINEAR]);
    expect(BigInt(total_supply)).toBeGreaterThan(0n);
    const first = await get(`/holders?token=${LINEAR}&limit=2`);
    expect(first.json!.holders).toBe(holders);
    expect(first.json!.total_supply).toBe(total_supply);
    expect(first.json!.rows.map((r: Message) => [r.account_id, r.amount])).toEqual(expected.slice(0, 2).map((r) => [r.account, r.amount]));
    // share = amount / supply to 18 digits
    const top = BigInt(expected[0].amount);
    const shareScaled = (top * 10n ** 18n) / BigInt(total_supply);
    expect(first.json!.rows[0].share).toBe(trimmed(`${shareScaled / 10n ** 18n}.${(shareScaled % 10n ** 18n).toString().padStart(18, '0')}`));
    const second = await get(`/holders?token=${LINEAR}&limit=2&cursor=${first.json!.next_cursor}`);
    expect(second.json!.rows.map((r: Message) => [r.account_id, r.amount])).toEqual(expected.slice(2, 4).map((r) => [r.account, r.amount]));
  });
});

describe('activity.query and positions.get', () => {
  it("one account's trades, transfers, stakes, wraps and liquidity changes, merged", async () => {
    const account = 'dexlake-devnet.near';
    const [{ trades, stakes, wraps, transfers, liquidity }] = await query(
      `select (select count(*)::int from trades where trader = $1 and dex <> 'Wrap' and dex not like 'Stake%') as trades,
              (select count(*)::int from trades where trader = $1 and dex like 'Stake%') as stakes,
              (select count(*)::int from trades where trader = $1 and dex = 'Wrap') as wraps,
              (select count(*)::int from transfers where sender = $1 or receiver = $1) as transfers,
              (select count(*)::int from events where kind = 'liquidity' and payload->>'provider' = $1) as liquidity`,
      [account],
    );
    expect(liquidity, "the hosted models' treasury adds liquidity").toBeGreaterThan(0);
    const all = await get(`/activity?account_id=${account}&limit=1000`);
    const count = (kind: string) => all.json!.rows.filter((r: Message) => r.kind === kind).length;
    expect([count('trade'), count('stake'), count('wrap'), count('transfer'), count('liquidity')]).toEqual([trades, stakes, wraps, transfers, liquidity].map((n) => Math.min(n, 1000)));
    const heights = all.json!.rows.map((r: Message) => r.block_height);
    expect(heights).toEqual([...heights].sort((a: number, b: number) => b - a));
    expect(all.json!.latest_id).toBe(all.json!.rows[0].id);

    const onlyLiquidity = await get(`/activity?account_id=${account}&kinds=liquidity&fields.liquidity=action,tokens&order=oldest&limit=1`);
    const [first] = await query(`select payload from events where kind = 'liquidity' and payload->>'provider' = $1 order by block_height, receipt_id, index limit 1`, [account]);
    const row = onlyLiquidity.json!.rows[0];
    expect(Object.keys(row).sort()).toEqual(['action', 'block_height', 'id', 'kind', 'timestamp_millis', 'tokens', 'tx_hash']);
    expect([row.action, row.tokens]).toEqual([first.payload.action, first.payload.tokens]);
    const next = await get(`/activity?account_id=${account}&kinds=liquidity&order=oldest&limit=1000&cursor=${encodeURIComponent(onlyLiquidity.json!.next_cursor)}`);
    expect(next.json!.rows.length).toBe(liquidity - 1);
  });

  it('positions: current amounts and traded totals from the tables', async () => {
    const res = await get('/positions?account_id=trent.near');
    const balances = await query(`select token, balance::text from balances where account = 'trent.near' and balance <> 0`);
    const bought = await query(`select token_out as token, sum(amount_out)::text as bought from trades where trader = 'trent.near' group by 1`);
    for (const b of balances) expect(res.json!.rows.find((r: Message) => r.token === b.token)?.amount, b.token).toBe(b.balance);
    for (const b of bought) expect(res.json!.rows.find((r: Message) => r.token === b.token)?.bought, b.token).toBe(b.bought);
    const tokens = new Set([...balances.map((b) => b.token), ...bought.map((b) => b.token)]);
    const [{ sold }] = await query(`select count(distinct token_in)::int as sold from trades where trader = 'trent.near' and token_in <> all($1)`, [[...tokens]]);
    expect(res.json!.rows.length).toBe(tokens.size + sold);
  });
});

describe('schema', () => {
  it('every method with JSON Schema params and result, the token fields, credits and limits', async () => {
    const { json } = await get('/schema');
    const names = json!.methods.map((m: Message) => m.name);
    for (const name of ['tokens.get', 'tokens.search', 'trades.query', 'transfers.query', 'activity.query', 'candles.get', 'prices.at', 'balances.get', 'holders.get', 'positions.get', 'schema', 'tokens.subscribe', 'unsubscribe']) {
      expect(names).toContain(name);
    }
    const tokensGet = json!.methods.find((m: Message) => m.name === 'tokens.get');
    expect(tokensGet.params.properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000, default: 100 });
    expect(tokensGet.params.additionalProperties).toBe(false);
    expect(tokensGet.result.properties.columns.type).toBe('array');
    expect(json!.token_fields.price_usd.type).toEqual(['string', 'null']);
    expect(json!.credits.costs['tokens.get']).toEqual({ base: 1, per_100_rows: 1 });
    expect(json!.limits.max_message_bytes).toBe(65536);
  });
});

describe('OpenAPI document', () => {
  it('documents every HTTP method, GET and POST, with parameters the query parser takes', async () => {
    const res = await get('/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.json!;
    expect(doc.openapi).toBe('3.1.0');
    for (const method of METHODS.filter((m) => m.path)) {
      const path = doc.paths[method.path!];
      expect(path, method.path).toBeDefined();
      expect(path.post.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
      // Every documented GET parameter is one the parser accepts (its value is checked later, by the schema).
      for (const parameter of path.get.parameters) {
        expect(() => paramsFromQuery(`${encodeURIComponent(parameter.name)}=1`, method.params, method.overrides === undefined ? {} : { ...method.overrides, at: () => [] })).not.toThrow();
      }
    }
    const names = doc.paths['/tokens'].get.parameters.map((p: Message) => p.name);
    for (const name of ['ids', 'fields', 'min_reputation', 'min.liquidity_usd', 'max.price_usd', 'sort', 'limit', 'offset', 'precision']) expect(names).toContain(name);
    expect(doc.paths['/tokens'].get.parameters.find((p: Message) => p.name === 'fields')).toMatchObject({ style: 'form', explode: false });
    expect(doc.paths['/activity'].get.parameters.map((p: Message) => p.name)).toContain('fields.trade');
  });
});

describe('errors, headers and transport', () => {
  it('bad_request for a duplicate, an unknown or an invalid parameter, with credits and no caching', async () => {
    for (const url of ['/tokens?limit=1&limit=2', '/tokens?colour=red', '/tokens?limit=0', '/trades?side=buy', '/holders']) {
      const res = await get(url);
      expect(res.status, url).toBe(400);
      expect(res.json!.error.code, url).toBe('bad_request');
      expect(typeof res.json!.error.message).toBe('string');
      expect(res.headers['x-credits-used']).toBe('1');
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const unknownKey = await post('/tokens', { limit: 1, colour: 'red' });
    expect([unknownKey.status, unknownKey.json.error.code]).toEqual([400, 'bad_request']);
    const notJson = await app.inject({ method: 'POST', url: '/tokens', payload: '{nope', headers: { 'content-type': 'application/json' } });
    expect([notJson.statusCode, JSON.parse(notJson.body).error.code]).toEqual([400, 'bad_request']);
  });

  it('too_large for a POST body over 64 KiB', async () => {
    const ids = Array.from({ length: 6000 }, (_, i) => `token-${String(i).padStart(6, '0')}.near`); // 6000 * ~20 bytes > 64 KiB
    const body = JSON.stringify({ ids });
    expect(body.length).toBeGreaterThan(65_536);
    const res = await app.inject({ method: 'POST', url: '/tokens', payload: body, headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe('too_large');
    expect(res.headers['x-credits-used']).toBe('1');
  });

  it('404 unknown_method for a path under the token API that serves nothing', async () => {
    for (const url of ['/tokens/nope', '/prices', '/prices/now', '/candles/x/y']) {
      const res = await get(url);
      expect(res.status, url).toBe(404);
      expect(res.json!.error.code, url).toBe('unknown_method');
    }
  });

  it('400 bad_request, in the token API\'s JSON, for a path that does not percent-decode; plain text under /route', async () => {
    for (const url of ['/tokens/%', '/trades/%zz', '/%']) {
      const res = await get(url);
      expect(res.status, url).toBe(400);
      expect(res.json, url).toEqual({ error: { code: 'bad_request', message: 'the URL is not valid percent-encoding' } });
      expect(res.headers['x-credits-used'], url).toBe('1');
    }
    const route = await app.inject({ method: 'GET', url: '/route/%' });
    expect([route.statusCode, route.headers['content-type'], route.body]).toEqual([400, 'text/plain; charset=utf-8', 'Invalid URL: the URL is not valid percent-encoding']);
  });

  it('500 internal without the cause when the database fails', async () => {
    const broken = connect(db.url.replace(/\/[^/]*$/, '/dexlake_no_such_database'), { connectTimeoutMs: 2_000 });
    const bare = Fastify();
    await bare.register(async (scope) => tokenDataRoutes(scope, { db: broken }));
    try {
      const res = await bare.inject({ url: '/tokens' });
      expect(res.statusCode).toBe(500);
      expect(JSON.parse(res.body)).toEqual({ error: { code: 'internal', message: 'internal error' } });
      expect(res.headers['x-credits-used']).toBe('1');
    } finally {
      await bare.close();
      await broken.close();
    }
  });

  it('rate_limited with Retry-After once the credits of the minute are spent', async () => {
    const bare = Fastify();
    await bare.register(async (scope) => tokenDataRoutes(scope, { db, httpCreditsPerMinute: 3 }));
    try {
      // tokens.get of 1 row costs 1 + 1 = 2 credits: the first spends 2, the second 2 more (4 >= 3), the third is refused
      expect((await bare.inject({ url: '/tokens?limit=1' })).statusCode).toBe(200);
      expect((await bare.inject({ url: '/tokens?limit=1' })).statusCode).toBe(200);
      const refused = await bare.inject({ url: '/tokens?limit=1' });
      expect(refused.statusCode).toBe(400);
      expect(JSON.parse(refused.body).error.code).toBe('rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    } finally {
      await bare.close();
    }
  });

  it('CORS for any origin, preflights included', async () => {
    const res = await get('/tokens?limit=1', { origin: 'https://example.org' });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    for (const url of ['/prices/at', '/tokens/search', '/tokens']) {
      const preflight = await app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: 'https://example.org', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(preflight.statusCode, url).toBe(204);
      expect(preflight.headers['access-control-allow-origin'], url).toBe('*');
    }
  });

  it('gzip and zstd round trips', async () => {
    const plain = await get('/tokens?limit=20&fields=symbol,name,price_usd');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gz = await get('/tokens?limit=20&fields=symbol,name,price_usd', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.res.rawPayload).toString()).toBe(plain.res.body);
    const zs = await app.inject({ url: '/tokens?limit=20&fields=symbol,name,price_usd', headers: { 'accept-encoding': 'gzip, zstd' } });
    expect(zs.headers['content-encoding']).toBe('zstd');
    expect(zs.rawPayload.length).toBeLessThan(plain.res.rawPayload.length);
    expect(Buffer.from(zstdDecompress(zs.rawPayload)).toString()).toBe(plain.res.body);
    expect(zs.headers.vary).toContain('Accept-Encoding');
  });

  it('a cached answer keeps each compressed body it was sent with, made on the first request that asks', async () => {
    await initCompression();
    const caller = new MethodCaller(db);
    const bare = Fastify();
    await bare.register(async (scope) => tokenHttpRoutes(scope, { caller, methods: METHODS, budget: new CreditBudget(1_000_000) }));
    try {
      // A page after a cursor: historical, so kept for a day (a live one could expire between the requests).
      const { next_cursor: cursor } = JSON.parse((await bare.inject({ url: '/trades?limit=5' })).body) as { next_cursor: string };
      const url = `/trades?limit=50&cursor=${encodeURIComponent(cursor)}`;
      const plain = await bare.inject({ url });
      expect(plain.headers['cache-control']).toBe('public, max-age=86400');
      const gz = await bare.inject({ url, headers: { 'accept-encoding': 'gzip' } });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
      // The same params: the cached answer, holding the gzip body just sent and no zstd one yet.
      const answer = await caller.call(METHODS_BY_NAME.get('trades.query')!, { limit: 50, cursor });
      expect(answer.json).toBe(plain.body);
      expect(answer.compressed.gzip?.equals(gz.rawPayload)).toBe(true);
      expect(answer.compressed.zstd).toBeUndefined();
      const zs = await bare.inject({ url, headers: { 'accept-encoding': 'zstd' } });
      expect(answer.compressed.zstd?.equals(zs.rawPayload)).toBe(true);
      expect(Buffer.from(zstdDecompress(zs.rawPayload)).toString()).toBe(plain.body);
    } finally {
      await bare.close();
    }
  });
});
