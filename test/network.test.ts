// The indexer decodes with the configured network's contracts everywhere: on the decode workers and in the AmmDclA
// stage that folds its pool book. The realnet's first blocks with every DEX contract's account id rewritten to its
// testnet one (as if the same contracts were deployed there: receipts, logs and function-call args alike), indexed as
// testnet, give the pools the original blocks give indexed as mainnet; indexed as mainnet, the rewritten blocks give
// none of them (no mainnet DEX contract is in them).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAINNET_CONTRACTS, TESTNET_CONTRACTS, type DexContracts } from '../dexes/contracts.ts';
import { realnetMarket } from '../devnet/realnet/wasm.ts';
import { ingest } from '../indexer/pipeline.ts';
import { openSource } from '../indexer/sources/index.ts';
import { createMigratedDb } from './harness/db.ts';

/** Each mainnet DEX account id and its testnet one, matched as a whole id (`v2.ref-finance.near` is not rewritten
 * inside `token.v2.ref-finance.near`, the REF token). */
const IDS = (Object.keys(MAINNET_CONTRACTS) as (keyof DexContracts)[]).map((k) => [new RegExp(`(?<![A-Za-z0-9_.-])${MAINNET_CONTRACTS[k].replaceAll('.', '\\.')}(?![A-Za-z0-9_.-])`, 'g'), TESTNET_CONTRACTS[k]] as const);
const toTestnet = (text: string) => IDS.reduce((t, [mainnet, testnet]) => t.replace(mainnet, testnet), text);

/** A block message with its ids rewritten, within function-call args (base64 JSON) too; binary args stay as they are. */
function rewrite(value: unknown, key = ''): unknown {
  if (typeof value === 'string') {
    if (key !== 'args') return toTestnet(value);
    const text = Buffer.from(value, 'base64').toString('utf8');
    return Buffer.from(text, 'utf8').toString('base64') === value ? Buffer.from(toTestnet(text)).toString('base64') : value;
  }
  if (Array.isArray(value)) return value.map((v) => rewrite(v));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [toTestnet(k), rewrite(v, k)]));
  return value;
}

const mainnetDir = mkdtempSync(path.join(os.tmpdir(), 'dexlake-network-'));
const testnetDir = mkdtempSync(path.join(os.tmpdir(), 'dexlake-network-'));
afterAll(() => {
  rmSync(mainnetDir, { recursive: true, force: true });
  rmSync(testnetDir, { recursive: true, force: true });
});
// Past the setup: Ref's pools (blocks 5-6) and the hosted models' (the first trading block), then some trading.
const market = realnetMarket(undefined, { seed: 'testnet-ids', history: false, models: true });
for (let i = 0; i < 40; i++) {
  const message = market.next();
  const file = `${(message.block as { header: { height: number } }).header.height}.json`;
  writeFileSync(path.join(mainnetDir, file), JSON.stringify(message));
  writeFileSync(path.join(testnetDir, file), JSON.stringify(rewrite(message)));
}

/** Pools per DEX id, and the contract ids their pool_state events name. */
async function indexAs(dir: string, contracts: DexContracts): Promise<{ pools: Record<string, number>; stateContracts: string[] }> {
  const db = await createMigratedDb();
  await ingest({ db, source: await openSource(`files:${dir}`), contracts, workers: 1, signal: new AbortController().signal });
  const { rows } = await db.pool.query<{ dex: string; n: number }>('select dex, count(*)::int as n from pools group by dex order by dex');
  const named = await db.pool.query<{ c: string }>(`select distinct payload->>'contractId' as c from events where kind = 'pool_state' order by 1`);
  return { pools: Object.fromEntries(rows.map((r) => [r.dex, r.n])), stateContracts: named.rows.map((r) => r.c) };
}

describe('the network of the contracts', () => {
  it('testnet blocks indexed as testnet: the pools the same blocks at the mainnet ids give, AmmDclA folded by its stage', async () => {
    const mainnet = await indexAs(mainnetDir, MAINNET_CONTRACTS);
    for (const dex of ['AmmA', 'AmmDclA', 'AmmC']) expect(mainnet.pools[dex], dex).toBeGreaterThan(0);
    const { pools, stateContracts } = await indexAs(testnetDir, TESTNET_CONTRACTS);
    expect(pools).toEqual(mainnet.pools);
    expect(stateContracts).toContain(TESTNET_CONTRACTS.AmmDclA);
    expect(stateContracts.every((c) => c.endsWith('.testnet')), stateContracts.join(', ')).toBe(true);
  });

  it('the same blocks indexed as mainnet: no DEX pool at all', async () => {
    expect(MAINNET_CONTRACTS.AmmDclA).not.toBe(TESTNET_CONTRACTS.AmmDclA);
    expect(await indexAs(testnetDir, MAINNET_CONTRACTS)).toEqual({ pools: {}, stateContracts: [] });
  });
});
