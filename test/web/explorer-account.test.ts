/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Issue 32 point 6 in the browser: an account's stakes and wraps read as actions with decimal amounts, its balances
// sort by value (unpriced last), the token table leaves out `inner-nep141:` ids (X held inside Ref, not a token of
// its own) and at phone width shows each token's price and 24 h change on screen. The realnet is seeded ('explorer',
// fixed genesis): the api's values below are fixed, and each is written out by hand beside the text it must read as
// (not made with web/src/format.ts, the formatter under test); the USD values are worked out again from the tables
// (plain SQL), not taken from the api under test. The stakes are a hosted model's wallet's (peggy.near),
// the wraps a Ref trader's (bob.near).
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
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

const api = async (path: string) => (await fetch(`${site.url}${path}`)).json() as Promise<Record<string, any>>;

/**
 * An account's non-zero balances with their USD values worked out from the tables themselves, not by the api under
 * test: balance × the token's price / 10^decimals in PostgreSQL's exact numeric, rounded to 6 significant digits
 * (half away from zero, as `precision=6` asks), by token; null where the token has no price.
 */
async function valuesFromTables(account: string): Promise<Map<string, string | null>> {
  const { rows } = await db.pool.query<{ token: string; value: string | null }>(
    `select token, case when v = 0 then '0' else trim_scale(round(v, 5 - floor(log(abs(v)))::int))::text end as value
     from (select b.token, b.balance::numeric * m.price_usd / 10::numeric ^ t.decimals as v
       from balances b left join tokens t on t.token = b.token left join token_market m on m.token = b.token
       where b.account = $1 and b.balance <> 0) x`,
    [account],
  );
  return new Map(rows.map((r) => [r.token, r.value]));
}

describe('the explorer, issue 32 point 6', () => {
  it('account activity: a stake, a wrap or a liquidity change reads as the action, with decimal amounts', async () => {
    // [account, id, api token_in, amount_in, token_out, amount_out, the text shown]: 24 decimals each, 6 significant
    // digits (14.4200 is 14.42).
    const cases: [string, string, string, string, string, string, string][] = [
      ['peggy.near', 'stake:268:2PRKcym9pPHFqWoapxrMuL11J9TRMsSy6oQjTK86LNDm:StakeD', 'near', '14420040228331202701572213', 'lst.rhealab.near', '14131641261047522278851235', 'Staked 14.42 NEAR for 14.1316 rNEAR on StakeD'],
      ['peggy.near', 'stake:227:GmGJXyucC8mH7kJpKrfpQTdG1oA7KLdSKx666E7Z6EY6:StakeA', 'meta-pool.near', '1140890344105015400333911', 'near', '1422974440551235815733354', 'Unstaked 1.14089 STNEAR for 1.42297 NEAR on StakeA'],
      ['bob.near', 'wrap:279:H5CZT3TukXcB8ybZo6rQSWVf4LJUGtxXDEMj5wpNGja9:Wrap', 'near', '237000000000000000000000000', 'wrap.near', '237000000000000000000000000', 'Wrapped 237 NEAR'],
      ['bob.near', 'wrap:265:6xTWLJEw4rNoRSALeJLbQY5dgkScBwCocyjXqcAhMxc3:Wrap', 'wrap.near', '3554019903405427306377829846', 'near', '3554019903405427306377829846', 'Unwrapped 3,554.02 wNEAR'],
      // RHEA in for xRHEA is a stake (18 decimals each); a token into or out of Ref's inner balance a deposit or a
      // withdrawal, counted in the token's own decimals.
      ['peggy.near', 'stake:291:8TkY1emMtmQad43tJnVDXR8jPAek1FjpPar9KZcU7hNd:StakeC', 'token.rhealab.near', '840116303502509101157', 'xtoken.rhealab.near', '838433802685063868638', 'Staked 840.116 RHEA for 838.434 xRHEA on StakeC'],
      ['alice.near', 'wrap:264:AdJzseLnTfE9pLXUksgxhWmZzjuNRxtoPbYPnZbgriAH:Wrap', 'wrap.near', '500800000000000000000000000', 'inner-nep141:wrap.near', '500800000000000000000000000', 'Deposited 500.8 wNEAR into AmmA'],
      ['alice.near', 'wrap:296:2JC7rQbELzVDcwqvNVfcZKpxo5wpL2zYudjLuJUY4Sji:Wrap', 'inner-nep141:wrap.near', '61224617983852275186283467381', 'wrap.near', '61224617983852275186283467381', 'Withdrew 61,224.6 wNEAR from AmmA'],
    ];
    for (const account of ['peggy.near', 'bob.near', 'alice.near']) {
      await page.goto(`${site.url}/#/account/${account}`);
      await page.waitForSelector('table.activity tbody tr td:nth-child(3)');
      const activity = await api(`/activity?account_id=${account}&limit=50`);
      const shown = await page.locator('table.activity tbody tr').evaluateAll((rows) => rows.map((r) => r.children[2]!.textContent));
      for (const [, id, tokenIn, amountIn, tokenOut, amountOut, text] of cases.filter(([a]) => a === account)) {
        const at = activity.rows.findIndex((r: { id: string }) => r.id === id);
        expect(at, id).toBeGreaterThanOrEqual(0);
        const r = activity.rows[at];
        expect([r.token_in, r.amount_in, r.token_out, r.amount_out]).toEqual([tokenIn, amountIn, tokenOut, amountOut]);
        expect(shown[at]).toBe(text);
      }
      // Every stake and wrap row reads as an action: no raw field names.
      const actions = shown.filter((_, i) => ['stake', 'wrap'].includes(activity.rows[i].kind));
      expect(actions.length).toBe(activity.rows.filter((r: { kind: string }) => ['stake', 'wrap'].includes(r.kind)).length);
      expect(actions.length, account).toBeGreaterThanOrEqual(2);
      for (const text of actions) expect(text).toMatch(/^((Staked|Unstaked) [\d,.]+ \S+ for [\d,.]+ \S+ on \S+|(Wrapped|Unwrapped) [\d,.]+ \S+|Deposited [\d,.]+ \S+ into AmmA|Withdrew [\d,.]+ \S+ from AmmA)$/);
      // So does every liquidity change: the amounts in each token's decimals, not the raw fields.
      const liquidity = shown.filter((_, i) => activity.rows[i].kind === 'liquidity');
      for (const text of liquidity) expect(text).toMatch(/^(Added|Removed) [\d,.]+ \S+( \+ [\d,.]+ \S+)* (to|from) \S+ pool \S+$/);
      if (account === 'alice.near') {
        // Her removal from pool 4 at 296: amounts 1328000000 USDt and 418000000 USDC, 6 decimals each.
        const at = activity.rows.findIndex((r: { id: string }) => r.id === 'liquidity:296:H3kJ9s6JjKzoKNf5RShAqcHjKUgdVNELaTFwQKmTfSbb:0');
        expect(activity.rows[at].amounts).toEqual(['1328000000', '418000000']);
        expect(shown[at]).toBe('Removed 1,328 USDt + 418 USDC from AmmA pool 4');
      }
    }
  });

  it('account balances: by USD value, the largest first, the unpriced last', async () => {
    await page.goto(`${site.url}/#/account/peggy.near`);
    await page.waitForSelector('table.balances tbody tr td:nth-child(4)');
    const balances = await api('/balances?account_id=peggy.near&precision=6');
    // [token, value_usd, the text shown], in the order the page must show them: 4 significant digits, whole
    // dollars from $1,000 on (thousands separated), the whole number from $10,000 on; RHEA and xRHEA have no price.
    // The values are the tables' (valuesFromTables), the api's must be the same.
    const rows: [string, string | null, string][] = [
      ['17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1', '16826.7', '$16,827'],
      ['usdt.tether-token.near', '13842.6', '$13,843'],
      ['wrap.near', '8892.08', '$8,892'],
      ['linear-protocol.near', '5793.06', '$5,793'],
      ['lst.rhealab.near', '1423.76', '$1,424'],
      ['token.v2.ref-finance.near', '633.513', '$633.5'],
      ['miko.aidols.near', '109.77', '$109.8'],
      ['meta-pool.near', '76.7474', '$76.75'],
      ['near', '55.9193', '$55.92'],
      ['token.rhealab.near', null, '-'],
      ['xtoken.rhealab.near', null, '-'],
    ];
    const fromTables = await valuesFromTables('peggy.near');
    expect(fromTables.size).toBe(rows.length);
    for (const [token, value] of rows) expect(fromTables.get(token), token).toBe(value);
    const byToken = new Map(balances.rows.map((r: { token: string; value_usd: string | null }) => [r.token, r.value_usd]));
    expect(byToken).toEqual(fromTables);
    const shown = await page.locator('table.balances tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.querySelector('a')!.getAttribute('href'), tr.children[3]!.textContent]));
    expect(shown).toEqual(rows.map(([token, , text]) => [`#/token/${encodeURIComponent(token)}`, text]));
  });

  it('token table: no inner-nep141: row, in the api or the page; every other token is shown, searched too', async () => {
    await page.goto(`${site.url}/#/`);
    await page.waitForSelector('table.tokens tbody tr');
    const table = await api('/tokens?fields=symbol,price_usd&limit=100');
    // Ref's inner balances (deposits in the exchange) are their tokens held inside it, not tokens of their own
    // (docs/methodology.md), though the realnet's traders deposit and withdraw by height 300.
    const { rows: deposits } = await db.pool.query(`select count(*)::int as n from trades where token_out like 'inner-nep141:%' or token_in like 'inner-nep141:%'`);
    expect(deposits[0].n).toBeGreaterThan(0);
    expect(table.rows.filter((r: unknown[]) => String(r[0]).startsWith('inner-nep141:'))).toEqual([]);
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
