/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The explorer in Debian's Chromium (playwright-core) over a realnet-backed server: each page renders the api's
// real data; a push on /ws updates the token table and the token page's lists; the route tester shows the quotes
// GET /route gives, in the same order, and follows /route/subscribe; at phone width nothing overflows the page;
// controls are named, text contrast is WCAG AA, the skip link works; nothing is loaded from another host.
// The figures the pages show are written out by hand, not made with web/src/format.ts (the formatter under test; its
// own cases are in format.test.ts): the realnet is seeded ('explorer', fixed genesis), so the api's values below are
// fixed, and each is checked beside the text it must read as; the balances' USD values are worked out again from the
// tables (plain SQL), not taken from the api under test. A realnet change moves them: re-derive both.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, strictPage } from '../harness/browser.ts';
import { createMigratedDb } from '../harness/db.ts';
import { startSite, type Site } from '../harness/site.ts';

const db = await createMigratedDb();
let site: Site;
let browser: Browser;
let page: Page;
/** Every URL the main page asked for, over all the tests. */
const requested: string[] = [];

beforeAll(async () => {
  site = await startSite(db, 'explorer', 300);
  browser = await launchChromium();
  page = await strictPage(browser);
  page.on('request', (request) => requested.push(request.url()));
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

/** Each page, and what shows it is rendered. */
const PAGES = [
  ['#/', 'table.tokens tbody tr'],
  ['#/token/wrap.near', 'table.holders tbody tr'],
  ['#/pool/AmmDclA/usdt.tether-token.near%7Cwrap.near%7C2000', 'table.trades tbody tr[data-id]'],
  ['#/account/alice.near', 'table.activity tbody tr td:nth-child(3)'],
  ['#/route?token_in=near&token_out=usdt.tether-token.near&amount=100&mode=amount_in&max_wait_ms=0&slippage_type=Fixed&slippage=0.005', 'li.quote'],
  ['#/indexer', 'table.dexes tbody tr'],
] as const;

const api = async (path: string) => (await fetch(`${site.url}${path}`)).json() as Promise<Record<string, any>>;
const texts = (selector: string) => page.locator(selector).allTextContents();

/**
 * An account's non-zero balances with their USD values worked out from the tables themselves, not by the api under
 * test: balance × the token's price / 10^decimals in PostgreSQL's exact numeric, rounded to 6 significant digits
 * (half away from zero, as `precision=6` asks), by token; null where the token has no price. And their total.
 */
async function valuesFromTables(account: string): Promise<{ rows: [string, string | null][]; total: string }> {
  const sig6 = (v: string) => `case when ${v} = 0 then '0' else trim_scale(round(${v}, 5 - floor(log(abs(${v})))::int))::text end`;
  const values = `select b.token, b.balance::numeric * m.price_usd / 10::numeric ^ t.decimals as v
    from balances b left join tokens t on t.token = b.token left join token_market m on m.token = b.token
    where b.account = $1 and b.balance <> 0`;
  const { rows } = await db.pool.query<{ token: string; value: string | null }>(`select token, ${sig6('v')} as value from (${values}) x order by token`, [account]);
  const { rows: sum } = await db.pool.query<{ total: string }>(`select ${sig6('coalesce(sum(v), 0)')} as total from (${values}) x`, [account]);
  return { rows: rows.map((r) => [r.token, r.value]), total: sum[0]!.total };
}

describe('the explorer', () => {
  it('token table: the tokens of /tokens, sortable from the keyboard, searchable, updated by a /ws push', async () => {
    await page.goto(`${site.url}/#/`);
    await page.waitForSelector('table.tokens tbody tr');
    const table = await api('/tokens?fields=symbol&limit=100');
    // Less the inner-nep141: ids (AmmA inner balances), which the table leaves out (explorer-account.test.ts).
    const tokens = table.rows.filter((r: string[]) => !r[0]!.startsWith('inner-nep141:'));
    expect((await page.locator('table.tokens tbody tr').count())).toBe(tokens.length);
    // Sorted by liquidity, as the api sorts: the same first token.
    expect(await page.locator('table.tokens tbody tr').first().getAttribute('data-token')).toBe(tokens[0][0]);

    // Keyboard: the Price header's button sorts by price, descending.
    await page.locator('th button', { hasText: 'Price' }).focus();
    await page.keyboard.press('Enter');
    expect(await page.locator('th', { hasText: 'Price' }).getAttribute('aria-sort')).toBe('descending');
    const prices = (await page.locator('tr[data-token] td[data-field=price_usd]').allTextContents()).filter((p) => p !== '-').map((p) => Number(p.replace(/[$,]/g, '')));
    expect(prices).toEqual([...prices].sort((a, b) => b - a));

    await page.fill('#token-search', 'usd');
    const shown = await page.locator('table.tokens tbody tr').evaluateAll((rows) => rows.map((r) => r.textContent!.toLowerCase()));
    expect(shown.length).toBeGreaterThan(0);
    for (const row of shown) expect(row).toContain('usd');
    await page.fill('#token-search', '');

    // Blocks indexed while the page is open reach it as pushes; the wNEAR row then shows the new price.
    await site.ingestTo(340);
    const price = (await api('/tokens?ids=wrap.near&fields=price_usd&precision=6')).rows[0][1];
    expect(price).toBe('5.15749');
    await page.waitForFunction(() => Number(document.querySelector('main')!.dataset.pushes ?? 0) > 0);
    await page.waitForFunction(() => document.querySelector('tr[data-token="wrap.near"] td[data-field=price_usd]')?.textContent === '$5.15749');
  }, 120_000); // the realnet is replayed to each new height

  it('token page: figures, a candle chart with a resolution switch, trades, transfers and holders', async () => {
    await page.goto(`${site.url}/#/token/wrap.near`);
    await page.waitForSelector('.chart canvas');
    await page.waitForFunction(() => Number(document.querySelector<HTMLElement>('.chart')!.dataset.candles) > 0);
    expect(await page.locator('h1').textContent()).toContain('wNEAR');
    // The figures a DexScreener user looks for: changes over 5 m to 24 h, the day's buys, sells and traders, FDV.
    expect(await texts('dl.figures dt')).toEqual(['Price', '5m', '1h', '6h', '24h', 'Volume 24h', 'Txns 24h', 'Traders 24h', 'Liquidity', 'FDV', 'Holders', 'Supply', 'Reputation']);
    const [[, buys, sells, traders, fdv, ...changes]] = (await api('/tokens?ids=wrap.near&fields=buys_24h,sells_24h,traders_24h,fdv_usd,price_change_5m,price_change_1h,price_change_6h,price_change_24h')).rows;
    // The chain has run 340 blocks (5 min 40 s, the test above indexed on): a price stood 5 minutes before, none an
    // hour before, so a 5 m change only, shown as a signed percent; wNEAR's supply is not in the log (w_near logs no
    // mint), so no FDV.
    expect(fdv).toBeNull();
    expect(changes.map((c: string | null) => c === null)).toEqual([false, true, true, true]);
    const shown = await texts('dl.figures dd');
    expect(shown[1]).toMatch(Number(changes[0]) < 0 ? /^-\d+(\.\d+)?%$/ : /^\+\d+(\.\d+)?%$/);
    expect(shown.slice(2, 10)).toEqual(['-', '-', '-', expect.any(String), `${buys} buys / ${sells} sells`, String(traders), expect.any(String), '-']);
    expect([buys, sells, traders].every((n) => n > 0 && n < 1000)).toBe(true);
    const candles = await api('/candles?token=wrap.near&resolution=1m&count_back=300');
    expect(await page.locator('.chart').getAttribute('data-candles')).toBe(String(candles.candles.length));
    await page.getByRole('button', { name: '5m', exact: true }).click();
    const fiveMinutes = await api('/candles?token=wrap.near&resolution=5m&count_back=300');
    await page.waitForFunction((n) => document.querySelector<HTMLElement>('.chart')!.dataset.candles === String(n), fiveMinutes.candles.length);
    expect(await page.locator('.switch button[aria-pressed=true]').textContent()).toBe('5m');

    await page.waitForSelector('table.trades tbody tr td:nth-child(6)');
    const trades = await api('/trades?token=wrap.near&limit=25');
    expect(await page.locator('table.trades tbody tr').count()).toBe(trades.rows.length);
    expect(await page.locator('table.trades tbody tr').first().locator('td').last().textContent()).toBe(trades.rows[0].dex);
    await page.waitForSelector('table.transfers tbody tr td:nth-child(4)');
    expect(await page.locator('table.transfers tbody tr').count()).toBe((await api('/transfers?token=wrap.near&limit=25')).rows.length);
    await page.waitForSelector('table.holders tbody tr');
    const holders = await api('/holders?token=wrap.near&limit=20');
    expect(await texts('table.holders tbody tr td:nth-child(2)')).toEqual(holders.rows.map((r: { account_id: string }) => r.account_id));
    // Each holder's share of the supply: the api knows no total supply of wNEAR here (w_near logs no mint), so none and
    // the page '-'.
    expect(holders.total_supply).toBeNull();
    expect(holders.rows.map((r: { share: string | null }) => r.share)).toEqual(Array(holders.rows.length).fill(null));
    expect(await texts('table.holders tbody tr td:nth-child(4)')).toEqual(Array(holders.rows.length).fill('-'));
  });

  it('token page: trades and transfers update live as blocks are indexed', async () => {
    await page.goto(`${site.url}/#/token/wrap.near`);
    await page.waitForSelector('table.trades tbody tr td:nth-child(6)');
    const before = await api('/trades?token=wrap.near&limit=25');
    const transfersBefore = await api('/transfers?token=wrap.near&limit=25');
    await site.ingestTo(360);
    const trades = await api('/trades?token=wrap.near&limit=25&fields=trader');
    const transfers = await api('/transfers?token=wrap.near&limit=25&fields=from,to');
    // Blocks 341..360 traded wNEAR: the lists the page shows now differ from the ones it first showed.
    expect(trades.latest_id).not.toBe(before.latest_id);
    expect(transfers.latest_id).not.toBe(transfersBefore.latest_id);
    await page.waitForFunction((want) => JSON.stringify([...document.querySelectorAll('table.trades tbody td:nth-child(5)')].map((td) => td.textContent)) === JSON.stringify(want), trades.rows.map((r: { trader: string }) => r.trader));
    await page.waitForFunction(
      (want) => JSON.stringify([...document.querySelectorAll('table.transfers tbody tr')].map((tr) => [tr.children[1]!.textContent, tr.children[2]!.textContent])) === JSON.stringify(want),
      transfers.rows.map((r: { from: string | null; to: string | null }) => [r.from ?? 'mint', r.to ?? 'burn']),
    );
  }, 120_000);

  it('account page: balances with USD values, positions, activity', async () => {
    await page.goto(`${site.url}/#/account/alice.near`);
    await page.waitForSelector('table.activity tbody tr td:nth-child(3)');
    const balances = await api('/balances?account_id=alice.near&precision=6');
    // At height 360 (the tests above indexed on to it). [value_usd, the text shown]: millions to at most 2 decimals; else 4 significant digits (explorer-account.test.ts
    // has the thousands and the unpriced). Alice is Ref's liquidity provider: tens of millions of dollars. The values
    // are the tables' (valuesFromTables), the api's must be the same.
    const fromTables = await valuesFromTables('alice.near');
    const values: [string | null, string][] = [
      ['45302000', '$45.3M'],
      ['7.12952', '$7.13'], // 7.130: the trailing zero dropped
      ['53343200', '$53.34M'],
      ['46429000', '$46.43M'],
      ['2551360', '$2.55M'],
    ];
    expect(fromTables.rows.map(([, v]) => v)).toEqual(values.map(([v]) => v));
    expect(balances.rows.map((r: { token: string; value_usd: string | null }) => [r.token, r.value_usd])).toEqual(fromTables.rows);
    // Shown by value, the largest first (explorer-account.test.ts checks the order token by token).
    expect(await texts('table.balances tbody tr td:nth-child(4)')).toEqual(['$53.34M', '$46.43M', '$45.3M', '$2.55M', '$7.13']);
    expect([...(await texts('table.balances tbody tr td:nth-child(4)'))].sort()).toEqual(values.map(([, shown]) => shown).sort());
    expect(fromTables.total).toBe('147626000');
    expect(balances.total_value_usd).toBe(fromTables.total);
    expect(await page.locator('section', { hasText: 'Balances' }).locator('p.figure').textContent()).toBe('Total $147.63M');
    // Alice's trades are deposits into Ref's exchange and withdrawals from it (inner-nep141:X is X inside it): they
    // move no position, so each row she has is $0 both ways.
    const positions = await api('/positions?account_id=alice.near&precision=6');
    expect(positions.rows.length).toBeGreaterThan(0);
    await page.waitForFunction((n) => document.querySelectorAll('table.positions tbody tr').length === n, positions.rows.length);
    expect(positions.rows.filter((r: { token: string }) => r.token.startsWith('inner-nep141:'))).toEqual([]);
    expect(positions.rows.map((r: { realized_pnl_usd: string; unrealized_pnl_usd: string | null }) => [r.realized_pnl_usd, r.unrealized_pnl_usd])).toEqual(positions.rows.map(() => ['0', '0']));
    const activity = await api('/activity?account_id=alice.near&limit=50');
    expect(await texts('table.activity tbody tr td:nth-child(2)')).toEqual(activity.rows.map((r: { kind: string }) => r.kind));
    // Bob trades: realized and unrealized PnL per token, gains and losses. [api realized, unrealized] and the texts
    // shown: 4 significant digits, whole dollars from $1,000 on.
    // A page of its own, so no row of Alice's can be read as Bob's.
    const bobPage = await strictPage(browser);
    await bobPage.goto(`${site.url}/#/account/bob.near`);
    const bob = await api('/positions?account_id=bob.near&precision=6');
    await bobPage.waitForFunction((n) => document.querySelectorAll('table.positions tbody tr').length === n, bob.rows.length);
    const pnls: [string, string | null, string, string][] = [
      ['606.449', '533.282', '$606.4', '$533.3'],
      ['107.851', '1826.96', '$107.9', '$1,827'],
      ['68.7273', '1087.15', '$68.73', '$1,087'],
      ['29.887', '0', '$29.89', '$0'],
      ['-1325.43', '128.93', '-$1,325', '$128.9'],
    ];
    expect(bob.rows.map((r: { realized_pnl_usd: string | null; unrealized_pnl_usd: string | null }) => [r.realized_pnl_usd, r.unrealized_pnl_usd])).toEqual(pnls.map(([r, u]) => [r, u]));
    const pnl = await bobPage.locator('table.positions tbody tr').evaluateAll((rows) => rows.map((r) => [r.children[3]!.textContent, r.children[4]!.textContent]));
    expect(pnl).toEqual(pnls.map(([, , r, u]) => [r, u]));
    await bobPage.close();
  });

  it('route tester: the quotes of GET /route in its order, with decoded instructions, then live over /route/subscribe', async () => {
    const query = 'token_in=near&token_out=usdt.tether-token.near&max_wait_ms=0&slippage_type=Fixed&slippage=0.005&trader_account_id=alice.near';
    await page.goto(`${site.url}/#/route?${query}&amount=100&mode=amount_in`);
    await page.waitForSelector('li.quote');
    const quotes = (await api(`/route?${query}&amount_in=${100n * 10n ** 24n}`)) as unknown as Array<Record<string, any>>;
    expect(quotes.length).toBeGreaterThan(1);
    expect(await page.locator('li.quote').evaluateAll((items) => items.map((i) => i.getAttribute('data-dex')))).toEqual(quotes.map((q) => q.dex_id));
    // The best quote's first call, decoded: its method and its args as JSON.
    await page.locator('li.quote summary').first().click();
    const call = quotes[0]!.execution_instructions[0].NearTransaction.actions[0].FunctionCall;
    const first = page.locator('li.quote').first();
    expect(await first.locator('.action code').first().textContent()).toBe(call.method_name);
    expect(JSON.parse((await first.locator('.action pre').first().textContent())!)).toEqual(JSON.parse(Buffer.from(call.args, 'base64').toString()));
    // 5·10^12 gas is 5 TGas; 10^26 yoctoNEAR is 100 NEAR.
    expect([call.gas, call.deposit]).toEqual([5_000_000_000_000, '100000000000000000000000000']);
    expect(await first.locator('.action p').first().textContent()).toBe('near_deposit · gas 5 TGas · deposit 100 NEAR');
    // Why it ranks where it does: the gas it burns and its storage costs, and its amount net of them. 21 092 642 403 819
    // gas at 10^8 yocto = 2 109 264 240 381 900 000 000 yoctoNEAR = 0.0021092642403819 NEAR, to 6 significant digits
    // 0.00210926; at most 7 919 264 240 381 900 000 000 yoctoNEAR, 0.00791926 NEAR (58.1 TGas more).
    expect([quotes[0]!.estimated_gas_usage, quotes[0]!.estimated_max_gas_cost, quotes[0]!.storage_deposits]).toEqual(['21092642403819', '7919264240381900000000', '0']);
    const why = await first.locator('.why').textContent();
    expect(why).toContain('Gas 0.00210926 NEAR (at most 0.00791926) + storage 0 NEAR');
    expect(why).toMatch(/net of costs \$/);

    // Live: the same query on /route/subscribe; blocks that move the pools bring new quotes.
    await page.check('#f-live');
    await page.locator('button[type=submit]').click();
    await page.waitForFunction(() => document.querySelector('[role=status]')?.textContent?.includes('live'));
    const answers = Number(await page.locator('main').getAttribute('data-route-answers'));
    await site.ingestTo(380);
    await page.waitForFunction((n) => Number(document.querySelector('main')!.dataset.routeAnswers) > n, answers);
  }, 120_000);

  it('route tester: a query the api refuses shows its plain-text error; an unknown token page says so', async () => {
    const query = 'token_in=near&token_out=usdt.tether-token.near&max_wait_ms=0&slippage_type=Fixed&slippage=lots';
    await page.goto(`${site.url}/#/route?${query}&amount=1&mode=amount_in`);
    const res = await fetch(`${site.url}/route?${query}&amount_in=${10n ** 24n}`);
    const status = page.locator('[role=status]');
    await page.waitForFunction(() => /^\d{3}: /.test(document.querySelector('[role=status]')?.textContent ?? ''));
    expect(await status.textContent()).toBe(`${res.status}: ${await res.text()}`);
    expect(await page.locator('li.quote').count()).toBe(0);

    await page.goto(`${site.url}/#/token/no-such-token.near`);
    await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'Unknown token no-such-token.near');
  });

  it('indexer page: height, lag, blocks/s and per DEX its pools, trades and undecoded inputs', async () => {
    await page.goto(`${site.url}/#/indexer`);
    await page.waitForSelector('table.dexes tbody tr');
    const status = await api('/indexer');
    expect(await page.locator('dl.figures dd').first().textContent()).toBe(status.height.toLocaleString('en-US'));
    // Lag and rate change from one read to the next: their place and form.
    expect(await texts('dl.figures dt')).toEqual(['Height', 'Block time', 'Lag', 'Blocks/s']);
    const [, blockTime, lag, rate] = await texts('dl.figures dd');
    expect(blockTime).toBe(new Date(status.timestamp_millis).toISOString().replace('T', ' ').slice(0, 19));
    expect(lag).toMatch(/^[\d,]+(\.\d+)? s$/);
    expect(rate).toMatch(/^[\d,]+(\.\d+)?$/);
    expect(await page.locator('table.dexes tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-dex')))).toEqual(status.dexes.map((d: { dex: string }) => d.dex));
    const amma = page.locator('table.dexes tr[data-dex=AmmA] td');
    const row = status.dexes.find((d: { dex: string }) => d.dex === 'AmmA');
    expect(await amma.allTextContents()).toEqual([row.pools, row.stale_pools, row.trades_24h, row.undecoded].map((n: number) => n.toLocaleString('en-US')));
  });

  it('at phone width every page fits the screen (wide tables scroll within themselves)', async () => {
    const phone = await browser.newPage({ viewport: { width: 360, height: 740 } });
    try {
      for (const [hash, ready] of PAGES) {
        await phone.goto(`${site.url}/${hash}`);
        await phone.waitForSelector(ready!);
        expect(await phone.evaluate(() => document.documentElement.scrollWidth), hash).toBeLessThanOrEqual(360);
      }
    } finally {
      await phone.close();
    }
  });

  it('accessible: every control is named, text contrast is at least 4.5:1 (WCAG AA), the skip link works from the keyboard', async () => {
    const a11y = await browser.newPage({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    try {
      for (const [hash, ready] of PAGES) {
        await a11y.goto(`${site.url}/${hash}`);
        await a11y.waitForSelector(ready);
        const unnamed = await a11y.evaluate(() =>
          [...document.querySelectorAll<HTMLElement>('a[href], button, input, select, summary')]
            .filter((el) => {
              const labels = (el as HTMLInputElement).labels;
              const name = [...(labels ?? [])].map((l) => l.textContent).join('') || el.getAttribute('aria-label') || el.textContent || el.getAttribute('title') || '';
              return name.trim() === '';
            })
            .map((el) => el.outerHTML.slice(0, 100)),
        );
        expect(unnamed, hash).toEqual([]);
        // Every element with text of its own: its color against the background it is drawn on (the first opaque one
        // among it and its ancestors, with the translucent ones between blended over it).
        const failures = await a11y.evaluate(() => {
          const rgba = (css: string) => {
            const [r = 0, g = 0, b = 0, a = 1] = (css.match(/[\d.]+/g) ?? []).map(Number);
            return { r, g, b, a: css.startsWith('rgba') ? a : 1 };
          };
          const luminance = (c: { r: number; g: number; b: number }) => {
            const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
            return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
          };
          const out: string[] = [];
          for (const el of document.querySelectorAll<HTMLElement>('body *')) {
            const own = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== '');
            if (!own || el.getClientRects().length === 0 || el.closest('.visually-hidden, .skip')) continue;
            const layers: Array<ReturnType<typeof rgba>> = [];
            for (let at: Element | null = el; at; at = at.parentElement) {
              const bg = rgba(getComputedStyle(at).backgroundColor);
              if (bg.a > 0) layers.push(bg);
              if (bg.a === 1) break;
            }
            let back = { r: 255, g: 255, b: 255 };
            for (const layer of layers.reverse()) back = { r: layer.r * layer.a + back.r * (1 - layer.a), g: layer.g * layer.a + back.g * (1 - layer.a), b: layer.b * layer.a + back.b * (1 - layer.a) };
            const [light, dark] = [luminance(rgba(getComputedStyle(el).color)), luminance(back)].sort((x, y) => y - x) as [number, number];
            const ratio = (light + 0.05) / (dark + 0.05);
            if (ratio < 4.5) out.push(`${el.tagName.toLowerCase()}.${el.className} "${el.textContent!.trim().slice(0, 30)}": ${ratio.toFixed(2)}`);
          }
          return out;
        });
        expect(failures, hash).toEqual([]);
      }

      // The first Tab reaches the skip link; Enter moves the focus to the page's content and leaves the page shown.
      await a11y.goto(`${site.url}/#/indexer`);
      await a11y.waitForSelector('table.dexes tbody tr');
      await a11y.keyboard.press('Tab');
      expect(await a11y.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
      await a11y.keyboard.press('Enter');
      expect(await a11y.evaluate(() => document.activeElement?.id)).toBe('main');
      expect(await a11y.locator('h1').textContent()).toBe('Indexer');
    } finally {
      await a11y.close();
    }
  });

  it('the header\'s box opens a token the api knows, else an account; an unknown page says so', async () => {
    await page.goto(`${site.url}/#/indexer`);
    await page.fill('#jump-input', 'wrap.near');
    await page.press('#jump-input', 'Enter');
    await page.waitForFunction(() => location.hash === '#/token/wrap.near');
    await page.waitForSelector('table.holders tbody tr');
    await page.fill('#jump-input', 'alice.near');
    await page.press('#jump-input', 'Enter');
    await page.waitForFunction(() => location.hash === '#/account/alice.near');
    await page.waitForSelector('table.balances tbody tr');
    await page.goto(`${site.url}/#/no-such-page`);
    expect(await page.locator('h1').textContent()).toBe('Not found');
  });

  it('loads nothing from another host (no CDN: it works offline)', () => {
    expect(requested.length).toBeGreaterThan(10);
    expect(requested.filter((url) => !url.startsWith(`${site.url}/`) && !url.startsWith('data:'))).toEqual([]);
  });
});
