/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The explorer in Debian's Chromium (playwright-core) over a devnet-backed server: each page renders with real
// data, a push on /ws updates the token table, the route tester shows the quotes GET /route gives, in the same
// order, and follows /route/subscribe; at phone width nothing overflows the page.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usd } from '../../web/src/format.ts';
import { launchChromium } from '../harness/browser.ts';
import { createMigratedDb } from '../harness/db.ts';
import { startSite, type Site } from '../harness/site.ts';

const db = await createMigratedDb();
let site: Site;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  site = await startSite(db, 'explorer', 300);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (err) => {
    throw err;
  });
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

const api = async (path: string) => (await fetch(`${site.url}${path}`)).json() as Promise<Record<string, any>>;
const texts = (selector: string) => page.locator(selector).allTextContents();

describe('the explorer', () => {
  it('token table: the tokens of /tokens, sortable from the keyboard, searchable, updated by a /ws push', async () => {
    await page.goto(`${site.url}/#/`);
    await page.waitForSelector('table.tokens tbody tr');
    const table = await api('/tokens?fields=symbol&limit=100');
    expect((await page.locator('table.tokens tbody tr').count())).toBe(table.rows.length);
    // Sorted by liquidity, as the api sorts: the same first token.
    expect(await page.locator('table.tokens tbody tr').first().getAttribute('data-token')).toBe(table.rows[0][0]);

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
    await page.waitForFunction(() => Number(document.querySelector('main')!.dataset.pushes ?? 0) > 0);
    await page.waitForFunction((text) => document.querySelector('tr[data-token="wrap.near"] td[data-field=price_usd]')?.textContent === text, usd(price));
  });

  it('token page: figures, a candle chart with a resolution switch, trades, transfers and holders', async () => {
    await page.goto(`${site.url}/#/token/wrap.near`);
    await page.waitForSelector('.chart canvas');
    await page.waitForFunction(() => Number(document.querySelector<HTMLElement>('.chart')!.dataset.candles) > 0);
    expect(await page.locator('h1').textContent()).toContain('wNEAR');
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
  });

  it('account page: balances with USD values, positions, activity', async () => {
    await page.goto(`${site.url}/#/account/alice.near`);
    await page.waitForSelector('table.activity tbody tr td:nth-child(3)');
    const balances = await api('/balances?account_id=alice.near');
    expect(await page.locator('table.balances tbody tr').count()).toBe(balances.rows.length);
    expect(balances.rows.length).toBeGreaterThan(0);
    expect(await page.locator('section', { hasText: 'Balances' }).locator('p.figure').textContent()).toBe(`Total ${usd(balances.total_value_usd)}`);
    const positions = await api('/positions?account_id=alice.near');
    await page.waitForFunction((n) => document.querySelectorAll('table.positions tbody tr').length === n, Math.max(1, positions.rows.length));
    const activity = await api('/activity?account_id=alice.near&limit=50');
    expect(await texts('table.activity tbody tr td:nth-child(2)')).toEqual(activity.rows.map((r: { kind: string }) => r.kind));
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

    // Live: the same query on /route/subscribe; blocks that move the pools bring new quotes.
    await page.check('#f-live');
    await page.locator('button[type=submit]').click();
    await page.waitForFunction(() => document.querySelector('[role=status]')?.textContent?.includes('live'));
    const answers = Number(await page.locator('main').getAttribute('data-route-answers'));
    await site.ingestTo(380);
    await page.waitForFunction((n) => Number(document.querySelector('main')!.dataset.routeAnswers) > n, answers);
  });

  it('indexer page: height, lag, blocks/s and per DEX its pools, trades and undecoded inputs', async () => {
    await page.goto(`${site.url}/#/indexer`);
    await page.waitForSelector('table.dexes tbody tr');
    const status = await api('/indexer');
    expect(await page.locator('dl.figures dd').first().textContent()).toBe(status.height.toLocaleString('en-US'));
    expect(await page.locator('table.dexes tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-dex')))).toEqual(status.dexes.map((d: { dex: string }) => d.dex));
    const amma = page.locator('table.dexes tr[data-dex=AmmA] td');
    const row = status.dexes.find((d: { dex: string }) => d.dex === 'AmmA');
    expect(await amma.allTextContents()).toEqual([row.pools, row.stale_pools, row.trades_24h, row.undecoded].map((n: number) => n.toLocaleString('en-US')));
  });

  it('at phone width every page fits the screen (wide tables scroll within themselves)', async () => {
    const phone = await browser.newPage({ viewport: { width: 360, height: 740 } });
    try {
      for (const [hash, ready] of [['#/', 'table.tokens tbody tr'], ['#/token/wrap.near', '.chart canvas'], ['#/account/alice.near', 'table.balances tbody tr'], ['#/route', 'form'], ['#/indexer', 'table.dexes tbody tr']]) {
        await phone.goto(`${site.url}/${hash}`);
        await phone.waitForSelector(ready!);
        expect(await phone.evaluate(() => document.documentElement.scrollWidth), hash).toBeLessThanOrEqual(360);
      }
    } finally {
      await phone.close();
    }
  });
});
