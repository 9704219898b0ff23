/// <reference lib="dom" />
// `npm run screenshots`: every explorer page over real realnet data, in Debian's Chromium, written to
// docs/screenshots/ (linked from the README); then each page's first paint and the moment its data shows. An
// embedded PostgreSQL in a temp dir, 1,200 realnet blocks indexed by the real pipeline, the real api; the explorer
// must be built (npm run build:web).
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from '../db/connect.ts';
import { startEmbeddedPostgres } from '../db/embedded.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { launchChromium } from '../test/harness/browser.ts';
import { startSite } from '../test/harness/site.ts';

const OUT = path.resolve(import.meta.dirname, '../docs/screenshots');
// The committed images are then reduced to 256 colours (`pngquant --quality 80-100`, Debian's package): a third of
// the size, the same picture.
const MAX_HEIGHT = 1800;
const BLOCKS = 1_200;

/** The pages, each with what shows it is rendered. */
export const PAGES = [
  { name: 'tokens', hash: '#/', ready: 'table.tokens tbody tr' },
  { name: 'token', hash: '#/token/wrap.near', ready: '.chart canvas' },
  { name: 'account', hash: '#/account/alice.near', ready: 'table.activity tbody tr' },
  {
    name: 'route',
    hash: '#/route?token_in=near&token_out=usdt.tether-token.near&amount=100&mode=amount_in&max_wait_ms=1000&slippage_type=Fixed&slippage=0.005&trader_account_id=alice.near',
    ready: 'li.quote',
  },
  { name: 'indexer', hash: '#/indexer', ready: 'table.dexes tbody tr' },
] as const;

const home = path.join(tmpdir(), `dexlake-screenshots-${randomBytes(6).toString('hex')}`);
const pg = await startEmbeddedPostgres({ dir: path.join(home, 'pg'), port: 0 });
const db = connect(pg.url);
const browser = await launchChromium();
try {
  await migrateToLatest(db.kysely);
  const site = await startSite(db, 'dexlake', BLOCKS);
  await mkdir(OUT, { recursive: true });
  for (const [suffix, viewport] of [['', { width: 1280, height: 900 }], ['-phone', { width: 390, height: 844 }]] as const) {
    const page = await browser.newPage({ viewport, deviceScaleFactor: 1 });
    for (const { name, hash, ready } of PAGES) {
      if (suffix && name !== 'tokens' && name !== 'token') continue;
      await page.goto(`${site.url}/${hash}`);
      await page.waitForSelector(ready);
      // The first route quotes open their instructions.
      if (name === 'route') await page.locator('li.quote details').first().evaluate((d) => ((d as HTMLDetailsElement).open = true));
      await page.waitForLoadState('networkidle');
      const file = path.join(OUT, `${name}${suffix}.png`);
      // Long pages (an account's activity) are cut at MAX_HEIGHT: the picture shows the page, not every row.
      const height = Math.min(MAX_HEIGHT, await page.evaluate(() => document.documentElement.scrollHeight));
      const full = name !== 'token' && name !== 'route';
      await page.screenshot({ path: file, ...(full ? { fullPage: true, clip: { x: 0, y: 0, width: viewport.width, height } } : {}) });
      console.log(`wrote ${path.relative(process.cwd(), file)}`);
    }
    await page.close();
  }
  // How fast each page shows: a fresh tab each, so each is a first load (printed, not asserted).
  for (const { name, hash, ready } of PAGES) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${site.url}/${hash}`);
    await page.waitForSelector(ready);
    const [paint, shown] = await page.evaluate(() => [performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN, performance.now()]);
    console.log(`${name}: first paint ${Math.round(paint!)} ms, data shown ${Math.round(shown!)} ms`);
    await page.close();
  }
  await site.close();
} finally {
  await browser.close();
  await db.close();
  await pg.stop();
  await rm(home, { recursive: true, force: true });
}
