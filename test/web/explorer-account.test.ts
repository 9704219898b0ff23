/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Issue 32 point 6 in the browser: an account's stakes and wraps read as actions with decimal amounts, its balances
// sort by value (unpriced last), the token table leaves out `inner-nep141:` ids (X held inside Ref, not a token of
// its own) and at phone width shows each token's price and 24 h change on screen. The devnet is seeded ('explorer', fixed genesis): the api's values below are fixed, and each is written
// out by hand beside the text it must read as (not made with web/src/format.ts, the formatter under test).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, strictPage } from '../harness/browser.ts';
import { createMigratedDb } from '../harness/db.ts';
import { startSite, type Site } from '../harness/site.ts';

const db = await createMigratedDb();
let site: Site;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  site = await startSite(db, 'explorer', 300);
  browser = await launchChromium();
  page = await strictPage(browser);
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

const api = async (path: string) => (await fetch(`${site.url}${path}`)).json() as Promise<Record<string, any>>;

describe('the explorer, issue 32 point 6', () => {
  it('account activity: a stake or a wrap reads as the action, with decimal amounts', async () => {
    await page.goto(`${site.url}/#/account/alice.near`);
    await page.waitForSelector('table.activity tbody tr td:nth-child(3)');
    const activity = await api('/activity?account_id=alice.near&limit=50');
    // [id, api token_in, amount_in, token_out, amount_out, the text shown]: 24 decimals each, 6 significant digits.
    const cases: [string, string, string, string, string, string][] = [
      ['stake:257:5e4T51bMJCWRfGsaRhgC6JKJ5bRxnRG2RYYkCbnQCDYs:StakeD', 'near', '217835764958669287761595140', 'lst.rhealab.near', '213521768960665949518726112', 'Staked 217.836 NEAR for 213.522 rNEAR on StakeD'],
      ['wrap:193:DbpB1Tc63hVe42a37FPWCPtREb5CSRZJm9pBat7LjatD:Wrap', 'wrap.near', '19469875517880733836624237', 'near', '19469875517880733836624237', 'Unwrapped 19.4699 wNEAR'],
      ['stake:134:DxzuxQvdHWm4XegxS9cysrtXYXzD8i6kCKY84auTJdiJ:StakeA', 'meta-pool.near', '4909056678013543518996488', 'near', '6121592143402676888956271', 'Unstaked 4.90906 STNEAR for 6.12159 NEAR on StakeA'],
    ];
    const shown = await page.locator('table.activity tbody tr').evaluateAll((rows) => rows.map((r) => r.children[2]!.textContent));
    for (const [id, tokenIn, amountIn, tokenOut, amountOut, text] of cases) {
      const at = activity.rows.findIndex((r: { id: string }) => r.id === id);
      expect(at, id).toBeGreaterThanOrEqual(0);
      const r = activity.rows[at];
      expect([r.token_in, r.amount_in, r.token_out, r.amount_out]).toEqual([tokenIn, amountIn, tokenOut, amountOut]);
      expect(shown[at]).toBe(text);
    }
    // Every stake and wrap row reads as an action: no raw field names.
    const actions = shown.filter((_, i) => ['stake', 'wrap'].includes(activity.rows[i].kind));
    expect(actions.length).toBe(activity.rows.filter((r: { kind: string }) => ['stake', 'wrap'].includes(r.kind)).length);
    for (const text of actions) expect(text).toMatch(/^(Staked|Unstaked|Wrapped|Unwrapped) [\d,.]+ \S+( for [\d,.]+ \S+ on \S+)?$/);
  });

  it('account balances: by USD value, the largest first, the unpriced last', async () => {
    await page.goto(`${site.url}/#/account/alice.near`);
    await page.waitForSelector('table.balances tbody tr td:nth-child(4)');
    const balances = await api('/balances?account_id=alice.near&precision=6');
    // [token, api value_usd, the text shown], in the order the page must show them.
    const rows: [string, string | null, string][] = [
      ['17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1', '40944.4', '$40,944'],
      ['a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48.factory.bridge.near', '39031', '$39,031'],
      ['usdt.tether-token.near', '4445.67', '$4,446'],
      ['wrap.near', '3572.18', '$3,572'],
      ['token.v2.ref-finance.near', '3276.15', '$3,276'],
      ['lst.rhealab.near', '2442.44', '$2,442'],
      ['meta-pool.near', '890.345', '$890.3'],
      ['aaaaaa20d9e0e2461697782ef11675f668207961.factory.bridge.near', '698.374', '$698.4'],
      ['lumen.aidols.near', '130.699', '$130.7'],
      ['near', '128.301', '$128.3'],
      ['miko.aidols.near', '29.1111', '$29.11'],
      ['6b175474e89094c44da98b954eedeac495271d0f.factory.bridge.near', null, '-'],
      ['token.rhealab.near', null, '-'],
    ];
    const byToken = new Map(balances.rows.map((r: { token: string; value_usd: string | null }) => [r.token, r.value_usd]));
    expect(byToken.size).toBe(rows.length);
    for (const [token, value] of rows) expect(byToken.get(token), token).toBe(value);
    const shown = await page.locator('table.balances tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.querySelector('a')!.getAttribute('href'), tr.children[3]!.textContent]));
    expect(shown).toEqual(rows.map(([token, , text]) => [`#/token/${encodeURIComponent(token)}`, text]));
  });

  it('token table: no inner-nep141: row (the api lists them, nameless and unpriced); every other token is shown, searched too', async () => {
    await page.goto(`${site.url}/#/`);
    await page.waitForSelector('table.tokens tbody tr');
    const table = await api('/tokens?fields=symbol,price_usd&limit=100');
    const inner = table.rows.filter((r: unknown[]) => String(r[0]).startsWith('inner-nep141:'));
    // The devnet's AmmA inner balances at height 300: six, none with a symbol or a price.
    expect(inner.map((r: unknown[]) => r[0])).toContain('inner-nep141:wrap.near');
    expect(inner.length).toBe(6);
    for (const r of inner) expect([r[1], r[2]]).toEqual([null, null]);
    const shown = await page.locator('table.tokens tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-token')));
    expect(shown.filter((id) => id!.startsWith('inner-nep141:'))).toEqual([]);
    expect([...shown].sort()).toEqual(table.rows.map((r: unknown[]) => r[0]).filter((id: string) => !id.startsWith('inner-nep141:')).sort());
    // A search over every token the api knows: wNEAR, not its inner balance.
    await page.fill('#token-search', 'wrap.near');
    await page.waitForFunction(() => document.querySelector('main')!.dataset.searched === 'wrap.near');
    const found = await page.locator('table.tokens tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-token')));
    expect(found).toContain('wrap.near');
    expect(found.filter((id) => id!.startsWith('inner-nep141:'))).toEqual([]);
  });

  it('token table at phone width (390 px): each row\'s price and 24 h change are on screen', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      await phone.goto(`${site.url}/#/`);
      await phone.waitForSelector('table.tokens tbody tr td[data-field=price_usd]');
      const cells = await phone.locator('table.tokens tbody tr').evaluateAll((trs) =>
        trs.flatMap((tr) =>
          ['price_usd', 'price_change_24h'].map((field) => {
            const td = tr.querySelector<HTMLElement>(`td[data-field=${field}]`)!;
            const box = td.getBoundingClientRect();
            return { at: `${tr.getAttribute('data-token')} ${field}`, text: td.textContent, display: getComputedStyle(td).display, left: Math.round(box.left), right: Math.round(box.right) };
          }),
        ),
      );
      expect(cells.length).toBeGreaterThan(10);
      for (const cell of cells) {
        expect(cell.display, cell.at).not.toBe('none');
        expect(cell.text, cell.at).not.toBe('');
        // Within the screen, without scrolling the table sideways.
        expect(cell.left, cell.at).toBeGreaterThanOrEqual(0);
        expect(cell.right, cell.at).toBeLessThanOrEqual(390);
      }
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    } finally {
      await phone.close();
    }
  });
});
