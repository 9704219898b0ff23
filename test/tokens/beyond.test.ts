// Issue 40.7 through the api, against a database filled by ingesting the realnet's first 300 blocks: FDV and market cap,
// the 24 h buys, sells and traders, the price changes, pools' creation heights and the newest-pools sort, and symbols
// where token ids go. Expected values come from SQL written here over the raw tables (trades, pool_history, tokens,
// token_market) and bigint arithmetic, never from calling the method under test a second time.
// test/prices-candles.test.ts works the same figures out by hand on a scripted market.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexedDb, ingestTo, SocketClient, startServer, type Message } from './harness.ts';

const db = await indexedDb(300);
let app: FastifyInstance;
let socket: SocketClient;
let head: { height: number; timestamp_ms: number };

const REF = 'token.v2.ref-finance.near';
const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';
const SCALE = 10n ** 18n;
const DAY = 86_400_000;

beforeAll(async () => {
  const server = await startServer(db);
  app = server.app;
  socket = await SocketClient.open(server.wsUrl);
  await socket.next(); // hello
  const row = (await query('select height, timestamp_ms::int8 as timestamp_ms from blocks order by height desc limit 1'))[0];
  head = { height: Number(row.height), timestamp_ms: Number(row.timestamp_ms) };
}, 120_000);
afterAll(async () => {
  socket?.close();
  await app?.close();
});

const query = async <T = any>(text: string, values: unknown[] = []) => (await db.pool.query(text, values)).rows as T[];

async function get(url: string) {
  const res = await app.inject({ url });
  return { status: res.statusCode, json: JSON.parse(res.body) as Message };
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
/** tokens.get's rows as objects by account_id. */
const table = (json: Message) => new Map<string, Record<string, unknown>>(json.rows.map((r: unknown[]) => [r[0], Object.fromEntries(json.columns.map((c: string, i: number) => [c, r[i]]))]));

describe('tokens.get: FDV, market cap, price changes, buys, sells and traders', () => {
  it('fdv_usd is total supply at price, floored to 10^-18 USD; market_cap_usd is null (no circulating supply is indexed)', async () => {
    const rows = await query<{ token: string; supply: string | null; decimals: number | null; price: string | null }>(
      `select coalesce(t.token, m.token) as token, t.total_supply::text as supply, t.decimals, m.price_usd::text as price
       from tokens t full join token_market m on m.token = t.token`,
    );
    const res = await get('/tokens?fields=fdv_usd,market_cap_usd,total_supply,price_usd&limit=1000');
    expect(res.status).toBe(200);
    const got = table(res.json);
    expect(got.size).toBe(rows.length);
    let known = 0;
    for (const r of rows) {
      const fdv = r.supply === null || r.price === null || r.decimals === null ? null : decimal((BigInt(r.supply) * scaled(r.price)) / 10n ** BigInt(r.decimals));
      if (fdv !== null) known++;
      expect(got.get(r.token), r.token).toMatchObject({ fdv_usd: fdv, market_cap_usd: null });
    }
    // LINEAR, REF, the launch tokens...: most tokens' supply is in the log here.
    expect(known).toBeGreaterThan(5);
    // By hand for REF: its supply 10^30 (10^12 whole REF) at its price.
    const ref = (await query(`select price_usd::text as price from token_market where token = $1`, [REF]))[0];
    expect(got.get(REF)!.fdv_usd).toBe(decimal(10n ** 12n * scaled(ref.price)));
  });

  it('buys, sells and unique traders: the trades of (head - 24 h, head] whose token_out / token_in is the token, conversions left out', async () => {
    // Conversions, written out here: Wrap's trades, and a stake DEX's unless it pays native NEAR (a liquid unstake).
    const expected = await query<{ token: string; buys: number; sells: number; traders: number }>(
      `with w as (
         select * from trades
         where timestamp_ms > $1 and timestamp_ms <= $2
           and dex <> 'Wrap' and not (dex in ('StakeA', 'StakeB', 'StakeC', 'StakeD') and token_out <> 'near')
       ), s as (select token_out as token, 1 as buy, trader from w union all select token_in, 0, trader from w)
       select token, sum(buy)::int as buys, count(*)::int - sum(buy)::int as sells, count(distinct trader)::int as traders from s group by token`,
      [head.timestamp_ms - DAY, head.timestamp_ms],
    );
    const res = await get('/tokens?fields=buys_24h,sells_24h,traders_24h&limit=1000');
    const got = table(res.json);
    const counts = (token: string) => {
      const r = got.get(token)!;
      return { token, buys: r.buys_24h, sells: r.sells_24h, traders: r.traders_24h };
    };
    expect(expected.map((e) => counts(e.token))).toEqual(expected);
    expect(expected.length).toBeGreaterThan(5);
    // Tokens with no such trade have zeros.
    for (const [token, row] of got) {
      if (!expected.some((e) => e.token === token)) expect(row, token).toMatchObject({ buys_24h: 0, sells_24h: 0, traders_24h: 0 });
    }
    // Sortable like any numeric field: the most bought first.
    const top = await get('/tokens?fields=buys_24h&sort=-buys_24h&limit=1');
    expect(top.json.rows[0]).toEqual([...expected].sort((a, b) => b.buys - a.buys || (a.token < b.token ? -1 : 1)).map((e) => [e.token, e.buys])[0]);
  });

  it('price changes over 5 m, 1 h and 6 h: null where no price stood that long before the clock (the chain runs 5 minutes)', async () => {
    const first = (await query(`select min(timestamp_ms)::int8 as t from prices`))[0];
    // Every price is younger than 5 minutes at the head: nothing to compare with.
    expect(head.timestamp_ms - Number(first.t)).toBeLessThan(5 * 60_000);
    const res = await get('/tokens?fields=price_usd,price_change_5m,price_change_1h,price_change_6h,price_change_24h&limit=1000');
    for (const row of table(res.json).values()) {
      expect(row).toMatchObject({ price_change_5m: null, price_change_1h: null, price_change_6h: null, price_change_24h: null });
    }
  });
});

describe('pools.get: creation height and the newest pools first', () => {
  it("created_height is the block of the pool's first pool_history row; sort=-created_height lists the newest first", async () => {
    const expected = await query<{ dex: string; pool_id: string; created: number }>(
      `select dex, pool_id, min(block_height)::int as created from pool_history
       where (dex, pool_id) in (select dex, pool_id from pools) group by dex, pool_id
       order by created desc, dex, pool_id`,
    );
    const res = await get('/pools?sort=-created_height&limit=1000');
    expect(res.status).toBe(200);
    expect(res.json.rows.map((p: Message) => ({ dex: p.dex, pool_id: p.pool_id, created: p.created_height }))).toEqual(expected);
    // Pools made after genesis exist here (Ref's later pools), so the order is not the listing's.
    expect(new Set(expected.map((e) => e.created)).size).toBeGreaterThan(2);
    const oldest = await get('/pools?sort=created_height&limit=1');
    expect(oldest.json.rows[0].created_height).toBe(expected.at(-1)!.created);
  });
});

describe('symbols where a token id goes', () => {
  it('a unique symbol (any case) answers as its token, in every method that takes a token', async () => {
    const same = async (bySymbol: string, byId: string) => {
      const [a, b] = [await get(bySymbol), await get(byId)];
      expect(a.status, bySymbol).toBe(200);
      expect(a.json, bySymbol).toEqual(b.json);
    };
    await same('/tokens?ids=REF,usdc,NEAR&fields=symbol,price_usd', `/tokens?ids=${REF},${USDC},near&fields=symbol,price_usd`);
    await same('/pools?token=Ref', `/pools?token=${REF}`);
    await same('/trades?token=USDC&limit=5', `/trades?token=${USDC}&limit=5`);
    await same('/candles?token=wNEAR&resolution=1m&count_back=3', '/candles?token=wrap.near&resolution=1m&count_back=3');
    await same(`/prices/at?at=REF:${head.timestamp_ms}`, `/prices/at?at=${REF}:${head.timestamp_ms}`);
    await same('/holders?token=linear&limit=3', '/holders?token=linear-protocol.near&limit=3');
    // A token id is itself, even where a symbol could read it otherwise; an unknown text stays as given.
    const unknown = await get('/tokens?ids=NOPE&fields=symbol');
    expect(unknown.json.missing).toEqual(['NOPE']);
    // The socket's subscriptions too: a feed of REF's trades by its symbol.
    const reply = await socket.request('tokens.subscribe', { ids: ['REF'], fields: ['symbol'] });
    expect(reply.result.rows).toEqual([[REF, 'REF']]);
  });

  it('an ambiguous symbol is a 400 that lists its tokens', async () => {
    // A second token calling itself REF (an impersonator, as on mainnet).
    await query(`insert into tokens (token, symbol, name, decimals, metadata_source, created_height, updated_height) values ('ref.fake.near', 'REF', 'Ref', 18, 'rpc', 1, 1)`);
    try {
      const res = await get('/pools?token=ref&limit=7');
      expect(res.status).toBe(400);
      expect(res.json.error).toEqual({ code: 'bad_request', message: `"ref" is the symbol of 2 tokens: ref.fake.near, ${REF}; give the token id` });
      const reply = await socket.request('trades.subscribe', { token: 'REF' });
      expect(reply.error).toEqual({ code: 'bad_request', message: `"REF" is the symbol of 2 tokens: ref.fake.near, ${REF}; give the token id` });
      // The id still names the token.
      expect((await get(`/pools?token=${REF}&limit=7`)).status).toBe(200);
    } finally {
      await query(`delete from tokens where token = 'ref.fake.near'`);
    }
  });
});

describe('price changes once the chain has run past 5 minutes', () => {
  it('price_change_5m: price now over the last prices row at or before (clock - 5 min), minus 1, truncated toward 0', async () => {
    await ingestTo(db, 330);
    const clock = Number((await query(`select timestamp_ms::int8 as t from market_clock`))[0].t);
    const rows = await query<{ token: string; now: string | null; before: string | null; has_before: boolean }>(
      `select m.token, m.price_usd::text as now, b.price_usd::text as before, b.token is not null as has_before
       from token_market m
       left join lateral (select token, price_usd from prices p where p.token = m.token and p.timestamp_ms <= $1
                          order by p.timestamp_ms desc, p.block_height desc limit 1) b on true`,
      [clock - 5 * 60_000],
    );
    const res = await get('/tokens?fields=price_change_5m,price_change_1h&limit=1000');
    const got = table(res.json);
    let moved = 0;
    for (const r of rows) {
      let change: string | null = null;
      if (r.now !== null && r.before !== null && scaled(r.before) !== 0n) {
        const units = ((scaled(r.now) - scaled(r.before)) * SCALE) / scaled(r.before);
        change = units < 0n ? `-${decimal(-units)}` : decimal(units);
        if (units !== 0n) moved++;
      }
      expect(got.get(r.token), r.token).toMatchObject({ price_change_5m: change, price_change_1h: null });
    }
    // Prices moved in those 5 minutes: the check compares real changes, not only zeros.
    expect(moved).toBeGreaterThan(3);
  });
});
