/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Issue 32 point 4 in the browser: on a database bootstrapped at H (`dexlake bootstrap` from the realnet's own
// JSON-RPC, then indexed on), the token and account pages say their history starts at block H, and the holders
// table gives no shares; on a database indexed from the first block the note stays hidden.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINNET_CONTRACTS } from '../../dexes/contracts.ts';
import { DEXES } from '../../dexes/index.ts';
import { realnetRpc } from '../../devnet/realnet/wasm.ts';
import { startNearRpc } from '../../devnet/rpc.ts';
import { bootstrap } from '../../indexer/bootstrap.ts';
import { launchChromium, strictPage } from '../harness/browser.ts';
import { createMigratedDb } from '../harness/db.ts';
import { startSite, type Site } from '../harness/site.ts';

const SEED = 'explorer';
const H = 150;
const N = 300;
const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';
const NOTE = 'History from block 150 on: the database was bootstrapped there, so balances, holders, positions, activity and candles count only what happened since (holders\' shares are left out).';

let booted: Site;
let genesis: Site;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const b = await createMigratedDb();
  const node = await startNearRpc(realnetRpc(undefined, { seed: SEED }, () => N));
  try {
    await bootstrap({ db: b, rpcUrl: node.url, contracts: MAINNET_CONTRACTS, height: H, dexes: DEXES });
  } finally {
    await node.close();
  }
  booted = await startSite(b, SEED, N); // indexes on from H + 1
  genesis = await startSite(await createMigratedDb(), SEED, N);
  browser = await launchChromium();
  page = await strictPage(browser);
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await booted?.close();
  await genesis?.close();
});

const noteOf = async () => {
  const note = page.locator('p.history-note');
  return { visible: await note.isVisible(), text: await note.textContent() };
};

describe('the explorer, issue 32 point 4', () => {
  it('a bootstrapped database: the token page says where history starts and shows no holder shares', async () => {
    await page.goto(`${booted.url}/#/token/${USDC}`);
    await page.waitForSelector('table.holders tbody tr td:nth-child(4)');
    expect(await noteOf()).toEqual({ visible: true, text: NOTE });
    expect(await page.locator('table.holders tbody tr td:nth-child(4)').allTextContents()).toEqual(
      (await page.locator('table.holders tbody tr').allTextContents()).map(() => '-'),
    );
  });

  it('a bootstrapped database: the account page says where history starts', async () => {
    await page.goto(`${booted.url}/#/account/alice.near`);
    await page.waitForSelector('table.balances tbody tr td');
    await page.waitForSelector('p.history-note:not([hidden])');
    expect(await noteOf()).toEqual({ visible: true, text: NOTE });
  });

  it('a database indexed from the first block: no note on either page', async () => {
    await page.goto(`${genesis.url}/#/token/${USDC}`);
    await page.waitForSelector('table.holders tbody tr td:nth-child(4)');
    expect((await noteOf()).visible).toBe(false);
    await page.goto(`${genesis.url}/#/account/alice.near`);
    await page.waitForSelector('table.balances tbody tr td:nth-child(4)');
    expect((await noteOf()).visible).toBe(false);
  });
});
