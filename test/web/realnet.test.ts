/// <reference lib="dom" />
// The explorer over the chain `npm start` runs (the realnet: Ref's exchange, the intents verifier, wNEAR and the
// NEP-141 builds on their own wasm, the hosted models of the other DEXes), in Debian's Chromium: every page renders
// what the api says of that chain, with no page error (strictPage). Nothing below is a figure written by hand: each
// is read off the api beside the page.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEXES } from '../../dexes/index.ts';
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

const open = (hash: string) => site.open(page, hash);
const api = (path: string) => site.api(path);

describe('the explorer over the realnet (npm start\'s chain)', () => {
  it('token table: every token of /tokens, each page titled with its symbol', async () => {
    await open('#/');
    await page.waitForSelector('table.tokens tbody tr');
    const tokens = ((await api('/tokens?fields=symbol&limit=100')).rows as string[][]).filter((r) => !r[0]!.startsWith('inner-nep141:'));
    expect(await page.locator('table.tokens tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-token')))).toEqual(tokens.map((r) => r[0]));
    // The real tokens and the hosted models' own: wNEAR, USDt, USDC, REF, RHEA, the staked tokens, the aidols tokens.
    expect(tokens.length).toBeGreaterThanOrEqual(10);
    for (const [id, symbol] of tokens) {
      await open(`#/token/${encodeURIComponent(id!)}`);
      await page.waitForFunction((s) => document.querySelector('h1')?.textContent?.includes(s) ?? false, symbol!);
    }
  }, 120_000);

  it('every DEX that holds pools: its deepest pool page shows its reserves', async () => {
    const pools = (await api('/pools?limit=200')).rows as Array<{ dex: string; pool_id: string; tokens: string[] }>;
    const dexes = [...new Set(pools.map((p) => p.dex))].sort();
    expect(dexes).toEqual(['AmmA', 'AmmC', 'AmmDclA', 'Launch', 'StakeA', 'StakeB', 'StakeC', 'StakeD']);
    for (const dex of dexes) {
      const pool = pools.find((p) => p.dex === dex)!;
      await open(`#/pool/${dex}/${encodeURIComponent(pool.pool_id)}`);
      await page.waitForSelector('table.reserves tbody tr');
      const title = await page.locator('h1').textContent();
      expect(title, dex).toContain(dex);
      expect(title, dex).toContain(`pool ${pool.pool_id}`);
      expect(await page.locator('table.reserves tbody tr').count(), dex).toBe(pool.tokens.length);
    }
  }, 120_000);

  it('indexer page: a row per DEX id, as /indexer gives them', async () => {
    await open('#/indexer');
    await page.waitForSelector('table.dexes tbody tr');
    const status = await api('/indexer');
    const shown = await page.locator('table.dexes tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-dex')));
    expect(shown).toEqual(status.dexes.map((d: { dex: string }) => d.dex));
    expect([...shown].sort()).toEqual(DEXES.map((d) => d.id).sort());
  });

  it('route page: near to USDt, the quotes of /route, one per DEX', async () => {
    const query = 'token_in=near&token_out=usdt.tether-token.near&amount=100&mode=amount_in&max_wait_ms=0&slippage_type=Fixed&slippage=0.005';
    await open(`#/route?${query}`);
    await page.waitForSelector('li.quote');
    const quotes = await api(`/route?token_in=near&token_out=usdt.tether-token.near&amount_in=${10n ** 26n}&max_wait_ms=0&slippage_type=Fixed&slippage=0.005`);
    const shown = await page.locator('li.quote').evaluateAll((items) => items.map((i) => i.getAttribute('data-dex')));
    expect(shown).toEqual((quotes as unknown as Array<{ dex_id: string }>).map((q) => q.dex_id));
    // Ref's exchange (real) and the hosted AmmC and AmmDclA all quote it.
    expect(new Set(shown)).toEqual(new Set(['AmmA', 'AmmC', 'AmmDclA']));
  });

  it('account pages: a market trader and a hosted model\'s wallet, their balances as /balances gives them', async () => {
    for (const account of ['bob.near', 'erin.near']) {
      await open(`#/account/${account}`);
      await page.waitForSelector('table.balances tbody tr');
      const balances = (await api(`/balances?account_id=${account}`)).rows as unknown[];
      expect(balances.length, account).toBeGreaterThan(2);
      expect(await page.locator('table.balances tbody tr').count(), account).toBe(balances.length);
    }
  });
});
