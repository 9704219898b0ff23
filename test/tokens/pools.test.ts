// pools.get over HTTP and /ws, and candles.get and trades.query by pool, against a database filled by ingesting the
// realnet's first 300 blocks (Ref's exchange on its own wasm, the hosted models of the other DEXes). Expected values are read from the tables with SQL written here and worked out
// in bigints here (the pool formulas from each DEX's contract: reserve ratios, a DCL pool's sqrt price), never by
// calling the method under test a second time.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexedDb, ingestTo, SocketClient, startServer, type Message } from './harness.ts';

const db = await indexedDb(300);
let app: FastifyInstance;
let socket: SocketClient;
let head: { height: number; timestamp_ms: number };

const WNEAR = 'wrap.near';
const USDT = 'usdt.tether-token.near';
const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';
const DAY = 86_400_000;
const SCALE = 10n ** 18n;

interface PoolRow {
  dex: string;
  pool_id: string;
  kind: string;
  tokens: string[];
  amounts: string[];
  total_fee: number;
  updated_height: number;
  stale: boolean;
  state: Record<string, any>;
}
let pools: PoolRow[];
let prices: Map<string, string>;
let decimals: Map<string, number>;

beforeAll(async () => {
  const server = await startServer(db);
  app = server.app;
  socket = await SocketClient.open(server.wsUrl);
  await socket.next(); // hello
  head = (await query('select height, timestamp_ms::int8 as timestamp_ms from blocks order by height desc limit 1'))[0];
  head.timestamp_ms = Number(head.timestamp_ms);
  pools = await query<PoolRow>('select dex, pool_id, kind, tokens, amounts::text[] as amounts, total_fee, updated_height::int as updated_height, stale, state from pools');
  prices = new Map((await query('select token, price_usd::text as price from token_market where price_usd is not null')).map((r) => [r.token, r.price]));
  decimals = new Map((await query('select token, decimals from tokens where decimals is not null')).map((r) => [r.token, r.decimals]));
}, 120_000);
afterAll(async () => {
  socket?.close();
  await app?.close();
});

const query = async <T = any>(text: string, values: unknown[] = []) => (await db.pool.query(text, values)).rows as T[];

async function get(url: string) {
  const res = await app.inject({ url });
  return { status: res.statusCode, headers: res.headers, json: JSON.parse(res.body) as Message };
}

/** 10^-18 units of a decimal text, exactly. */
const scaled = (text: string) => {
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole!) * SCALE + BigInt(fraction.padEnd(18, '0').slice(0, 18));
};
/** 10^-18 units as the api prints decimals: trailing zeros dropped. */
const decimal = (units: bigint) => {
  const fraction = (units % SCALE).toString().padStart(18, '0').replace(/0+$/, '');
  return fraction ? `${units / SCALE}.${fraction}` : `${units / SCALE}`;
};
const key = (p: Record<string, any>) => `${p.dex} ${p.pool_id}`;
const pool = (dex: string, id: string) => pools.find((p) => p.dex === dex && p.pool_id === id)!;

/** A pool's liquidity by hand: each token's reserve at its price (floored to 10^-18 USD), rate pools none; an AmmC
 * launch pool holds its first reserve less the phantom liquidity its curve counts. */
function liquidity(p: PoolRow): string | null {
  if (p.kind === 'stake') return null;
  let total: bigint | null = null;
  p.tokens.forEach((token, i) => {
    const price = prices.get(token);
    const d = decimals.get(token);
    if (price === undefined || d === undefined) return;
    const held = BigInt(p.amounts[i]!) - (i === 0 && p.state.phantomLiquidity ? BigInt(p.state.phantomLiquidity) : 0n);
    total = (total ?? 0n) + (held * scaled(price)) / 10n ** BigInt(d);
  });
  return total === null ? null : decimal(total);
}

/** Whole tokens[1] per whole tokens[0] at a reserve ratio, floored to 10^-18. */
const ratio = (p: PoolRow) => {
  const [d0, d1] = p.tokens.map((t) => BigInt(decimals.get(t)!)) as [bigint, bigint];
  return decimal((BigInt(p.amounts[1]!) * 10n ** d0 * SCALE) / (BigInt(p.amounts[0]!) * 10n ** d1));
};

describe('pools.get', () => {
  it('every pool of the table with its reserves, fee, price, liquidity, 24 h volume and height, deepest first', async () => {
    const { status, headers, json } = await get('/pools?limit=1000');
    expect(status).toBe(200);
    expect(headers['cache-control']).toBe('public, max-age=1');
    expect([json.height, json.timestamp_millis, json.total]).toEqual([head.height, head.timestamp_ms, pools.length]);
    expect(json.rows.map(key).sort()).toEqual(pools.map(key).sort());
    for (const row of json.rows) {
      const p = pool(row.dex, row.pool_id);
      expect([row.kind, row.tokens, row.reserves, row.updated_height, row.stale], key(row)).toEqual([p.kind, p.tokens, p.amounts, p.updated_height, p.stale]);
      expect(row.liquidity_usd, key(row)).toBe(liquidity(p));
      // The pool's hops of the day up to the head, each at its own USD value (a two-hop trade's other hop is
      // another pool's); conversions have none.
      const [volume] = await query(
        `select coalesce(sum(volume_usd), 0)::text as sum from trade_hops where dex = $1 and pool_id = $2 and timestamp_ms > $3`,
        [p.dex, p.pool_id, head.timestamp_ms - DAY],
      );
      expect(row.volume_usd_24h, key(row)).toBe(decimal(scaled(volume.sum)));
    }
    // Deepest first, the pools without a liquidity (the stakes: rates, not reserves) last.
    const depths = json.rows.map((r: Message) => (r.liquidity_usd === null ? -1n : scaled(r.liquidity_usd)));
    expect(depths).toEqual([...depths].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    expect(json.rows.filter((r: Message) => r.kind === 'stake').map((r: Message) => r.liquidity_usd)).toEqual([null, null, null, null]);
    // One pool worked out in full: AmmA 0, wNEAR/USDt, as Ref's own `get_pool {pool_id: 0}` answers after block 300
    // (read off the realnet market of SEED): 203,119.672452992260517476494518 wNEAR at $4.962043935336959883 (this
    // pool's ratio prices wNEAR) and 1,007,888.738843 USDt at $1.
    const amma0 = json.rows.find((r: Message) => key(r) === 'AmmA 0');
    expect(amma0.reserves).toEqual(['203119672452992260517476494518', '1007888738843']);
    expect(prices.get(WNEAR)).toBe('4.962043935336959883');
    expect(amma0.liquidity_usd).toBe('2015777.477685999999967442'); // 1007888.738842999999967442 + 1007888.738843
    expect(amma0.price).toBe('4.962043935336959883'); // 1007888.738843 / 203119.672452992260517476494518, floored
    // Its volume from the hops' amounts alone: USDt is an anchor (1 USD, 6 decimals) and prices every hop of the
    // pool, so the volume is the USDt that went in or out, whatever the hop's trade did before or after.
    const [usdt] = await query(
      `select sum(case when token_in = $1 then amount_in else amount_out end)::text as units from trade_hops where dex = 'AmmA' and pool_id = '0' and timestamp_ms > $2`,
      [USDT, head.timestamp_ms - DAY],
    );
    expect(scaled(amma0.volume_usd_24h)).toBe(BigInt(usdt.units) * 10n ** 12n);
  });

  it('fees in each DEX\'s unit, prices from each DEX\'s own curve', async () => {
    const { json } = await get('/pools?limit=1000');
    const byKey = new Map<string, Message>(json.rows.map((r: Message) => [key(r), r]));
    // AmmA: basis points; AmmC, AmmDclA and Launch: millionths; the stakes charge nothing.
    const units: Record<string, bigint> = { AmmA: 10_000n, AmmC: 1_000_000n, AmmDclA: 1_000_000n, Launch: 1_000_000n };
    for (const p of pools) expect(byKey.get(key(p))!.fee, key(p)).toBe(p.total_fee === 0 ? '0' : decimal((BigInt(p.total_fee) * SCALE) / units[p.dex]!));
    expect(byKey.get('AmmA 0')!.fee).toBe('0.003');
    expect(byKey.get('AmmC 0')!.fee).toBe('0.002001');
    expect(byKey.get(`AmmDclA ${USDC}|${USDT}|100`)!.fee).toBe('0.0001');
    // Constant-product pools, bonding curves and stakes (amounts the two sides of the rate): the reserve ratio.
    for (const p of pools.filter((p) => ['simple', 'xyk', 'curve', 'stake'].includes(p.kind))) expect(byKey.get(key(p))!.price, key(p)).toBe(ratio(p));
    // A DCL pool: (sqrt_price / 2^96)^2 tokens y per token x, in smallest units.
    for (const p of pools.filter((p) => p.kind === 'dcl')) {
      const sqrt = BigInt(p.state.sqrtPrice96);
      const [d0, d1] = p.tokens.map((t) => BigInt(decimals.get(t)!)) as [bigint, bigint];
      expect(byKey.get(key(p))!.price, key(p)).toBe(decimal((sqrt * sqrt * 10n ** d0 * SCALE) / ((1n << 192n) * 10n ** d1)));
    }
    // At point 1 (the model's `get_pool` current_point after block 300): 1.0001^1.
    expect(byKey.get(`AmmDclA ${USDC}|${USDT}|100`)!.price).toBe('1.0001');
    // The stable pool (USDt/USDC, amp 240, nearly balanced): close to 1.
    const stable = json.rows.find((r: Message) => r.kind === 'stable');
    expect(Math.abs(Number(stable.price) - 1)).toBeLessThan(0.001);
    expect(json.rows.every((r: Message) => r.price !== null)).toBe(true);
  });

  it('filters by token, DEX, pool id and liquidity; sorts by liquidity or volume; pages with limit and offset', async () => {
    const all = (await get('/pools?limit=1000')).json.rows as Message[];
    const keys = async (url: string) => ((await get(url)).json.rows as Message[]).map(key);
    const sameOrder = (filter: (r: Message) => boolean) => all.filter(filter).map(key);
    expect(await keys(`/pools?token=${USDT}`)).toEqual(sameOrder((r) => r.tokens.includes(USDT)));
    expect((await keys(`/pools?token=${USDT}`)).length).toBe(pools.filter((p) => p.tokens.includes(USDT)).length);
    // NEAR and wNEAR are one token here (AmmA holds wNEAR, AmmC native NEAR).
    expect(await keys('/pools?token=near')).toEqual(sameOrder((r) => r.tokens.includes('near') || r.tokens.includes(WNEAR)));
    expect(await keys(`/pools?token=${WNEAR}`)).toEqual(await keys('/pools?token=near'));
    expect(await keys('/pools?dex=AmmC')).toEqual(sameOrder((r) => r.dex === 'AmmC'));
    expect(await keys('/pools?pool_id=0')).toEqual(['AmmA 0', 'AmmC 0']);
    expect(await keys('/pools?pool_id=0&dex=AmmC')).toEqual(['AmmC 0']);
    expect(await keys('/pools?min_liquidity_usd=500000')).toEqual(sameOrder((r) => r.liquidity_usd !== null && scaled(r.liquidity_usd) >= 500_000n * SCALE));
    expect((await keys('/pools?min_liquidity_usd=500000')).length).toBeGreaterThan(3);

    const byVolume = (await get('/pools?sort=-volume_usd_24h&limit=1000')).json.rows as Message[];
    const volumes = byVolume.map((r) => scaled(r.volume_usd_24h));
    expect(volumes).toEqual([...volumes].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    expect(volumes[0]).toBeGreaterThan(0n);
    const ascending = (await get('/pools?sort=liquidity_usd&limit=1000')).json.rows as Message[];
    expect(ascending.map(key)).toEqual([...all.filter((r) => r.liquidity_usd !== null).reverse(), ...all.filter((r) => r.liquidity_usd === null)].map(key));

    const page = (await get('/pools?limit=3&offset=2')).json;
    expect([page.rows.map(key), page.total]).toEqual([all.slice(2, 5).map(key), pools.length]);
    const past = (await get('/pools?offset=500')).json;
    expect([past.rows, past.total]).toEqual([[], pools.length]);
  });

  it('refuses what it does not take; an unknown token is not cached', async () => {
    for (const url of ['/pools?sort=-price', '/pools?min_liquidity_usd=-1', '/pools?limit=0', '/pools?pools=1']) {
      const { status, json } = await get(url);
      expect([status, json.error.code], url).toEqual([400, 'bad_request']);
    }
    // A DEX id outside the registry (its error code is the token API's rule for ids).
    expect((await get('/pools?dex=Nope')).status).toBe(400);
    const unknown = await get('/pools?token=no-such-token.near');
    expect([unknown.status, unknown.json.rows, unknown.json.total, unknown.headers['cache-control']]).toEqual([200, [], 0, 'no-store']);
  });

  it('the same answer over GET, POST and the socket', async () => {
    const viaGet = (await get(`/pools?token=${USDT}&sort=-volume_usd_24h&limit=4&precision=6`)).json;
    const params = { token: USDT, sort: { by: 'volume_usd_24h', desc: true }, limit: 4, precision: 6 };
    const viaPost = JSON.parse((await app.inject({ method: 'POST', url: '/pools', payload: params })).body);
    const viaSocket = (await socket.request('pools.get', params)).result;
    expect(viaPost).toEqual(viaGet);
    expect(viaSocket).toEqual(viaGet);
    // Six significant digits: what is left without the point and the zeros on either end (2015780 is 201578).
    expect(viaGet.rows[0].liquidity_usd.replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length).toBeLessThanOrEqual(6);
  });
});

describe('trades and candles of a pool', () => {
  it('trades.query by pool_id: the trades through the pool of that DEX, any hop', async () => {
    const expected = await query(
      `select block_height || ':' || receipt_id || ':' || index as id from trades where dex = 'AmmA' and '0' = any(pool_ids)
       order by block_height desc, receipt_id desc, index desc`,
    );
    expect(expected.length).toBeGreaterThan(3);
    const { json } = await get('/trades?pool_id=0&dex=AmmA&limit=1000&fields=dex,pool_ids');
    expect(json.rows.map((r: Message) => r.id)).toEqual(expected.map((r) => r.id));
    // A multi-hop trade through it is there too.
    expect(json.rows.some((r: Message) => r.pool_ids.length > 1)).toBe(true);
    // An id of one DEX alone needs no dex; `0` is AmmA's and AmmC's.
    const launch = await query(`select count(*)::int as n from trades where dex = 'Launch' and 'lumen.aidols.near' = any(pool_ids)`);
    expect((await get('/trades?pool_id=lumen.aidols.near&limit=1000')).json.rows.length).toBe(launch[0].n);
    expect((await get('/trades?pool_id=0')).json.error).toEqual({ code: 'bad_request', message: 'pool_id "0" is a pool of AmmA, AmmC: give dex too' });
    const unknown = await get('/trades?pool_id=no-such-pool');
    expect([unknown.status, unknown.json.rows, unknown.headers['cache-control']]).toEqual([200, [], 'no-store']);
  });

  it("candles.get by pool_id: a tick per hop through the pool, at the hop's own rate", async () => {
    // wNEAR through AmmA 0 (wNEAR/USDt), by hand: each hop's USDt (an anchor: its USD value, 6 decimals) over its
    // wNEAR amount (24 decimals), the price this pool paid, read off the hops' amounts alone.
    const hops = await query(
      `select timestamp_ms::int8 as ms, case when token_in = 'wrap.near' then amount_in else amount_out end::text as amount,
         (case when token_in = $1 then amount_in else amount_out end * 0.000001)::text as value
       from trade_hops where dex = 'AmmA' and pool_id = '0' order by block_height, receipt_id, index`,
      [USDT],
    );
    expect(hops.length).toBeGreaterThan(3);
    const buckets = new Map<number, { open: bigint; high: bigint; low: bigint; close: bigint; volume_quote: bigint; volume: bigint; trades: number }>();
    for (const hop of hops) {
      const time = Math.floor(Number(hop.ms) / 60_000) * 60_000;
      const price = (scaled(hop.value) * 10n ** 24n) / BigInt(hop.amount);
      const b = buckets.get(time);
      if (!b) buckets.set(time, { open: price, high: price, low: price, close: price, volume_quote: scaled(hop.value), volume: BigInt(hop.amount), trades: 1 });
      else Object.assign(b, { high: b.high > price ? b.high : price, low: b.low < price ? b.low : price, close: price, volume_quote: b.volume_quote + scaled(hop.value), volume: b.volume + BigInt(hop.amount), trades: b.trades + 1 });
    }
    const expected = [...buckets].map(([time, b]) => ({ time_millis: time, open: decimal(b.open), high: decimal(b.high), low: decimal(b.low), close: decimal(b.close), volume_quote: decimal(b.volume_quote), volume: String(b.volume), trades: b.trades }));
    const { json } = await get(`/candles?token=${WNEAR}&pool_id=0&dex=AmmA&resolution=1m&count_back=300&fill=false`);
    expect(json.candles).toEqual(expected);
    // Filled: the five minutes after the head repeat the last close.
    const filled = (await get(`/candles?token=${WNEAR}&pool_id=0&dex=AmmA&resolution=1m&count_back=300&to_millis=${head.timestamp_ms + 300_000}`)).json.candles as Message[];
    const close = expected.at(-1)!.close;
    expect(filled).toEqual([...expected, ...[1, 2, 3, 4, 5].map((n) => ({ time_millis: expected.at(-1)!.time_millis + n * 60_000, open: close, high: close, low: close, close, volume_quote: '0', volume: '0', trades: 0 }))]);
    // From a later minute: the hop before it gives the fill its previous close (a row of its own, read apart).
    const later = await get(`/candles?token=${WNEAR}&pool_id=0&dex=AmmA&resolution=1m&from_millis=${expected[1]!.time_millis}&to_millis=${expected.at(-1)!.time_millis}&fill=false`);
    expect(later.status).toBe(200);
    expect(later.json.candles).toEqual(expected.slice(1));
    // Not the token's own candles, which count every pool's trades.
    expect((await get(`/candles?token=${WNEAR}&resolution=1m&count_back=300&fill=false`)).json.candles).not.toEqual(expected);
  });

  it('candles.get by pool_id refuses a token the pool does not hold, an id of several DEXes, and dex alone', async () => {
    const error = async (url: string) => (await get(url)).json.error;
    expect(await error(`/candles?token=${USDC}&pool_id=0&dex=AmmA&resolution=1m`)).toEqual({ code: 'bad_request', message: `token ${USDC} is not in pool AmmA 0 (${WNEAR}, ${USDT})` });
    expect(await error(`/candles?token=${WNEAR}&pool_id=0&resolution=1m`)).toEqual({ code: 'bad_request', message: 'pool_id "0" is a pool of AmmA, AmmC: give dex too' });
    expect(await error(`/candles?token=${WNEAR}&dex=AmmA&resolution=1m`)).toEqual({ code: 'bad_request', message: 'dex needs pool_id' });
  });
});
