/// <reference lib="dom" />
// The explorer's token search finds a token by its symbol and by its name among every token the api knows, not only
// the 100 the table follows (issue 32, point 3). The realnet's tokens all fit in the table, so 120 more, minted with
// their metadata in one block written through the real store, push a token with no market figures out of it.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, strictPage } from '../harness/browser.ts';
import { indexedRealnetDb } from '../harness/realnet.ts';
import { startSite, type Site } from '../harness/site.ts';
import { BlockWriter } from '../routing/helpers.ts';

const HEIGHT = 60;
const NEEDLE = 'zz-needle.near';
const metadata = (contractId: string, symbol: string, name: string) => ({ kind: 'token_metadata', contractId, spec: 'ft-1.0.0', name, symbol, icon: null, reference: null, decimals: 18, source: 'init' });

const db = await indexedRealnetDb('search', HEIGHT);
let site: Site;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  site = await startSite(db, 'search', HEIGHT);
  // Tokens without prices sort last, by account id: 120 fillers before the needle leave it out of the first 100.
  const fillers = Array.from({ length: 120 }, (_, i) => metadata(`filler-${String(i).padStart(3, '0')}.near`, `FIL${i}`, `Filler ${i}`));
  await new BlockWriter(db, HEIGHT + 1).write([], [], [...fillers, metadata(NEEDLE, 'NDL', 'Needle in a Haystack')]);
  browser = await launchChromium();
  page = await strictPage(browser);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

/** The tokens the table shows once the api answered a search for `text` (a page that does not ask the api is read
 * as it is after a while, so that it fails on what it shows rather than on the wait). */
async function search(text: string): Promise<(string | null)[]> {
  await page.fill('#token-search', text);
  await page.waitForFunction((q) => document.querySelector('main')!.dataset.searched === q, text, { timeout: 5_000 }).catch(() => {});
  return page.locator('table.tokens tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-token')));
}

describe('the token search', () => {
  it('finds a token outside the table by symbol and by name, case-insensitively', async () => {
    const table = (await (await fetch(`${site.url}/tokens?fields=symbol&limit=100`)).json()) as { rows: unknown[][]; total: number };
    expect(table.total).toBeGreaterThan(100);
    expect(table.rows.map((r) => r[0])).not.toContain(NEEDLE);

    await page.goto(`${site.url}/#/`);
    await page.waitForSelector('table.tokens tbody tr');
    expect(await search('ndl')).toEqual([NEEDLE]);
    expect(await search('Haystack')).toEqual([NEEDLE]);
    expect(await page.locator(`tr[data-token="${NEEDLE}"]`).textContent()).toContain('Needle in a Haystack');
    // A realnet token by its name (Miko the Cat, a Launch token of the hosted model), and by id as before.
    expect(await search('the cat')).toEqual(['miko.aidols.near']);
    expect(await search('wrap.near')).toContain('wrap.near');
    expect(await search('no such token')).toEqual([]);
    expect(await page.locator('[role=status]').first().textContent()).toBe('No token matches "no such token"');
  });
});
