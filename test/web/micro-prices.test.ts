/// <reference lib="dom" />
// Micro prices in the explorer (issue 40, point 6): a Launch token's price (some 1e-8 USD) reads in DexScreener's
// subscript-zero form, fits in its place beside the 24h figure, and the candle chart's price axis scales to it
// instead of reading 0.00. In Debian's Chromium over the realnet (`npm start`'s chain); the expected texts are worked
// out here from the api's decimal strings, not with web/src/format.ts.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, strictPage } from '../harness/browser.ts';
import { indexedRealnetDb } from '../harness/realnet.ts';
import { startSite, type Site } from '../harness/site.ts';

const db = await indexedRealnetDb('explorer-realnet', 150);
let site: Site;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  site = await startSite(db, 'explorer-realnet', 150);
  browser = await launchChromium();
  page = await strictPage(browser);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

const SUBSCRIPT = '₀₁₂₃₄₅₆₇₈₉';
/** `$0.0₇1234`: the zeros after the point counted in subscript digits, then up to 4 significant digits. */
const MICRO = /^\$0\.0([₀-₉]+)(\d{1,4})$/;
const count = (subscript: string) => Number([...subscript].map((d) => SUBSCRIPT.indexOf(d)).join(''));

/** Whether `shown` (a MICRO text, less the `$`) stands for the decimal string `price` to 4 significant digits. */
function standsFor(shown: string, price: string): boolean {
  const m = MICRO.exec(`$${shown.replace(/^\$/, '')}`);
  const p = /^0\.(0*)(\d+)$/.exec(price);
  if (!m || !p) return false;
  if (count(m[1]!) !== p[1]!.length) return false;
  // The digits shown, against the price's own significant digits rounded to as many: within half a unit of the last.
  const digits = p[2]!.padEnd(5, '0');
  const exact = Number(`${digits.slice(0, 4)}.${digits.slice(4)}`);
  return Math.abs(Number(m[2]!.padEnd(4, '0')) - exact) <= 0.5;
}

/** The token page's Price figure stays in its own box, at desktop and phone width: no wider than it, and clear of the
 * figure beside it (the 5 m change, first of the changes). */
async function expectPriceInItsBox(): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    const layout = await page.locator('dl.figures').evaluate((dl) => {
      const [priceDt, priceDd, changeDt] = [...dl.children] as HTMLElement[];
      const box = (e: HTMLElement) => e.getBoundingClientRect().toJSON() as DOMRect;
      return { labels: [priceDt!.textContent, changeDt!.textContent], text: priceDd!.textContent, overflow: priceDd!.scrollWidth - priceDd!.clientWidth, dd: box(priceDd!), next: box(changeDt!) };
    });
    expect(layout.labels).toEqual(['Price', '5m']);
    expect(layout.overflow, `${layout.text} at ${width} px`).toBeLessThanOrEqual(0);
    const sameRow = layout.next.top < layout.dd.bottom && layout.dd.top < layout.next.bottom;
    if (sameRow) expect(layout.dd.right, `${layout.text} at ${width} px`).toBeLessThanOrEqual(layout.next.left);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('micro prices in the explorer', () => {
  it("a Launch token's page: its price in the subscript form, clear of the 24h figure, and a chart axis that scales to it", async () => {
    const launch = ((await site.api('/pools?dex=Launch&limit=50')).rows as Array<{ tokens: string[] }>).flatMap((p) => p.tokens);
    const priced = ((await site.api(`/tokens?ids=${[...new Set(launch)].join(',')}&fields=price_usd`)).rows as Array<[string, string | null]>).filter(
      ([, price]) => price !== null && Number(price) > 0 && Number(price) < 0.0001,
    );
    let token: { id: string; price: string; candles: Array<{ low: string; high: string }> } | undefined;
    for (const [id, price] of priced) {
      const { candles } = await site.api(`/candles?token=${encodeURIComponent(id)}&resolution=1m&count_back=300`);
      if (candles.length > 1) {
        token = { id, price: price!, candles };
        break;
      }
    }
    expect(token, `Launch tokens priced below $0.0001: ${JSON.stringify(priced)}`).toBeDefined();
    await site.open(page, `#/token/${encodeURIComponent(token!.id)}`);
    await page.waitForSelector('dl.figures dd');
    await expectPriceInItsBox();
    const priceText = (await page.locator('dl.figures dd').first().textContent())!;
    expect(priceText, `price_usd ${token!.price}`).toMatch(MICRO);
    expect(standsFor(priceText, token!.price), `${priceText} for ${token!.price}`).toBe(true);

    // The chart: its axis's labels of the lowest and highest price, as its own formatter writes them, are micro prices
    // that tell the two apart, where the default format read both as 0.00.
    const chart = page.locator('.chart[data-candles]');
    await page.waitForSelector('.chart[data-candles]:not([data-candles="0"])');
    const [low, high] = [await chart.getAttribute('data-price-low'), await chart.getAttribute('data-price-high')];
    const lowest = token!.candles.map((c) => c.low).sort((a, b) => Number(a) - Number(b))[0]!;
    const highest = token!.candles.map((c) => c.high).sort((a, b) => Number(b) - Number(a))[0]!;
    expect(standsFor(low!, lowest), `${low} for ${lowest}`).toBe(true);
    expect(standsFor(high!, highest), `${high} for ${highest}`).toBe(true);
    if (Number(lowest).toPrecision(4) !== Number(highest).toPrecision(4)) expect(low).not.toBe(high);
  }, 120_000);

  it("the user's price, $0.00000001234: $0.0₇1234, in its box", async () => {
    // The realnet's Launch prices are some 1e-6 USD; the one the user saw is a hundred times smaller. This database is
    // this file's own copy: the token's market row takes that price (the api reads it as it reads the indexer's).
    const [launch] = ((await site.api('/pools?dex=Launch&limit=1')).rows as Array<{ tokens: string[] }>)[0]!.tokens.filter((t) => t !== 'wrap.near');
    await db.pool.query(`update token_market set price_usd = '0.00000001234' where token = $1`, [launch]);
    await site.open(page, `#/token/${encodeURIComponent(launch!)}`);
    await page.waitForSelector('dl.figures dd');
    await expectPriceInItsBox();
    expect(await page.locator('dl.figures dd').first().textContent()).toBe('$0.0₇1234');
  });
});
