/// <reference lib="dom" />
// The explorer's pools in Debian's Chromium (playwright-core) over a realnet-backed server: the token page lists the
// token's pools as /pools gives them and links each to its page; the pool page shows the pool's figures, reserves,
// candles through it and its trades, and adds the trades of newly indexed blocks as trades.subscribe pushes them.
// The realnet is seeded ('explorer', fixed genesis): the texts below are the api's values written out by hand, each
// checked beside the value it must read as (as explorer.test.ts does).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, strictPage } from '../harness/browser.ts';
import { indexedRealnetDb } from '../harness/realnet.ts';
import { startSite, type Site } from '../harness/site.ts';

const db = await indexedRealnetDb('explorer', 300);
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

const open = (hash: string) => site.open(page, hash);
const api = (path: string) => site.api(path);
const texts = (selector: string) => page.locator(selector).allTextContents();

describe('the explorer\'s pools', () => {
  it('token page: its pools, deepest first, each linking to its page', async () => {
    await open('#/token/wrap.near');
    await page.waitForSelector('table.pools tbody tr[data-pool]');
    const pools = await api('/pools?token=wrap.near&limit=20');
    // wNEAR and native NEAR are one token in the list (AmmC's pools hold NEAR).
    expect(pools.rows.some((p: { tokens: string[] }) => p.tokens.includes('near'))).toBe(true);
    expect(await page.locator('table.pools tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-pool')))).toEqual(
      pools.rows.map((p: { dex: string; pool_id: string }) => `${p.dex}/${p.pool_id}`),
    );
    // The deepest: Ref's pool 0, wNEAR/USDt, $2,008,836.44... of liquidity ($2.01M), $35,804.836429 traded in the day
    // (the USDt its hops moved, USDt being $1: whole dollars from $10,000 on, $35,805), a 0.3% fee.
    expect([pools.rows[0].dex, pools.rows[0].pool_id, pools.rows[0].liquidity_usd, pools.rows[0].volume_usd_24h, pools.rows[0].fee]).toEqual(['AmmA', '0', '2008836.440233999999876313', '35804.836429', '0.003']);
    expect(await page.locator('table.pools tbody tr').first().locator('td').allTextContents()).toEqual(['wNEAR / USDt', 'AmmA', '$2.01M', '$35,805', '0.3%']);
    // AmmC 0 (hosted): $1,015,663.22... is $1.02M, $5,099.08 is $5,099 (4 significant digits); its fee of 2,001
    // millionths is 0.2001%.
    const ammc = pools.rows.find((p: { dex: string; pool_id: string }) => p.dex === 'AmmC' && p.pool_id === '0');
    expect([ammc.liquidity_usd, ammc.volume_usd_24h, ammc.fee]).toEqual(['1015663.223047298875144608', '5099.079442', '0.002001']);
    expect(await page.locator('table.pools tr[data-pool="AmmC/0"] td').allTextContents()).toEqual(['NEAR / USDt', 'AmmC', '$1.02M', '$5,099', '0.2001%']);

    await page.locator('table.pools tbody tr').first().locator('a').click();
    await page.waitForFunction(() => location.hash === '#/pool/AmmA/0');
    await page.waitForSelector('table.reserves tbody tr');
    expect(await page.locator('h1').textContent()).toBe('wNEAR / USDt AmmA · simple · pool 0');
  });

  it('pool page: price, liquidity, volume, fee, reserves, candles through the pool and its trades', async () => {
    await open('#/pool/AmmA/0');
    await page.waitForSelector('table.trades tbody tr[data-id]');
    await page.waitForFunction(() => Number(document.querySelector<HTMLElement>('.chart')!.dataset.candles) > 0);
    const [pool] = (await api('/pools?dex=AmmA&pool_id=0&precision=6')).rows;
    // 5.08784 USDt per wNEAR; $2,008,840 is $2.01M; $35,804.8 is $35,805; created in block 5, where the realnet's setup
    // adds Ref's simple pools (add_simple_pool, devnet/realnet/market.ts).
    expect([pool.price, pool.liquidity_usd, pool.volume_usd_24h, pool.fee, pool.created_height, pool.updated_height]).toEqual(['5.08784', '2008840', '35804.8', '0.003', 5, 296]);
    expect(await texts('dl.figures dt')).toEqual(['Price', 'Liquidity', 'Volume 24h', 'Fee', 'Created', 'Updated']);
    expect(await texts('dl.figures dd')).toEqual(['1 wNEAR = 5.08784 USDt', '$2.01M', '$35,805', '0.3%', 'block 5', 'block 296']);
    // Reserves: 197,415.415180458399978075145718 wNEAR and 1,004,418.220117 USDt, to 6 significant digits (the whole
    // digits kept), each token linked to its page.
    expect(pool.reserves).toEqual(['197415415180458399978075145718', '1004418220117']);
    expect(await texts('table.reserves td:nth-child(1) a')).toEqual(['wNEAR', 'USDt']);
    expect(await page.locator('table.reserves td:nth-child(1) a').first().getAttribute('href')).toBe('#/token/wrap.near');
    expect(await texts('table.reserves td:nth-child(2)')).toEqual(['197,415', '1,004,418']);
    // The candles of wNEAR through this pool.
    const candles = await api('/candles?token=wrap.near&pool_id=0&dex=AmmA&resolution=1m&count_back=300');
    expect(await page.locator('.chart').getAttribute('data-candles')).toBe(String(candles.candles.length));
    await page.getByRole('button', { name: '5m', exact: true }).click();
    const fiveMinutes = await api('/candles?token=wrap.near&pool_id=0&dex=AmmA&resolution=5m&count_back=300');
    await page.waitForFunction((n) => document.querySelector<HTMLElement>('.chart')!.dataset.candles === String(n), fiveMinutes.candles.length);
    // Its trades, newest first.
    const trades = await api('/trades?pool_id=0&dex=AmmA&limit=25');
    expect(await page.locator('table.trades tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')))).toEqual(trades.rows.map((t: { id: string }) => t.id));
    // Ref's market trades through its pool 0 more than a page of times by block 300.
    expect(trades.rows.length).toBe(25);
  });

  it('pool page: trades of newly indexed blocks arrive over trades.subscribe, newest first', async () => {
    await open('#/pool/AmmA/0');
    await page.waitForSelector('table.trades tbody tr[data-id]');
    const before = await api('/trades?pool_id=0&dex=AmmA&limit=25');
    await site.ingestTo(340);
    const after = await api('/trades?pool_id=0&dex=AmmA&limit=25');
    // Blocks 301..340 traded through the pool: the newest page starts with their trades, then the ones shown before.
    const fresh = after.rows.filter((t: { block_height: number }) => t.block_height > 300);
    expect(fresh.length).toBeGreaterThan(0);
    expect(after.rows.slice(fresh.length)).toEqual(before.rows.slice(0, before.rows.length - fresh.length));
    await page.waitForFunction(() => Number(document.querySelector('main')!.dataset.pushes ?? 0) > 0);
    await page.waitForFunction(
      (want) => JSON.stringify([...document.querySelectorAll('table.trades tbody tr')].map((tr) => tr.getAttribute('data-id'))) === JSON.stringify(want),
      after.rows.map((t: { id: string }) => t.id),
    );
    // The figures are read again: the volume of the day now counts it.
    const [pool] = (await api('/pools?dex=AmmA&pool_id=0&precision=6')).rows;
    await page.waitForFunction((text) => document.querySelectorAll('dl.figures dd')[2]?.textContent === text, `$${Math.round(Number(pool.volume_usd_24h)).toLocaleString('en-US')}`);
  }, 120_000); // the realnet is replayed to the new height

  it('an unknown pool says so', async () => {
    await open('#/pool/AmmA/999');
    await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'Unknown pool AmmA 999');
  });
});
