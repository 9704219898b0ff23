// The indexer decodes with the configured network's contracts everywhere: on the decode workers and in the AmmDclA
// stage that folds its pool book. A devnet chain deployed on the testnet account ids, indexed as testnet, gives the
// pools of every DEX; indexed as mainnet, the same blocks give none of them (no mainnet DEX contract is in them).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAINNET_CONTRACTS, TESTNET_CONTRACTS, type DexContracts } from '../dexes/contracts.ts';
import { ingest } from '../indexer/pipeline.ts';
import { Devnet } from '../devnet/devnet.ts';
import { openSource } from '../indexer/sources/index.ts';
import { createMigratedDb } from './harness/db.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'dexlake-network-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const devnet = new Devnet({ seed: 'testnet-ids', contracts: TESTNET_CONTRACTS });
for (let i = 0; i < 40; i++) {
  const message = devnet.next();
  writeFileSync(path.join(dir, `${(message.block as { header: { height: number } }).header.height}.json`), JSON.stringify(message));
}

/** Pools per DEX id, and the contract ids their pool_state events name. */
async function indexAs(contracts: DexContracts): Promise<{ pools: Record<string, number>; stateContracts: string[] }> {
  const db = await createMigratedDb();
  await ingest({ db, source: await openSource(`files:${dir}`), contracts, workers: 1, signal: new AbortController().signal });
  const { rows } = await db.pool.query<{ dex: string; n: number }>('select dex, count(*)::int as n from pools group by dex order by dex');
  const named = await db.pool.query<{ c: string }>(`select distinct payload->>'contractId' as c from events where kind = 'pool_state' order by 1`);
  return { pools: Object.fromEntries(rows.map((r) => [r.dex, r.n])), stateContracts: named.rows.map((r) => r.c) };
}

describe('the network of the contracts', () => {
  it('testnet blocks indexed as testnet: pools of the testnet contracts, AmmDclA folded by its stage', async () => {
    const { pools, stateContracts } = await indexAs(TESTNET_CONTRACTS);
    for (const dex of ['AmmA', 'AmmDclA', 'AmmC']) expect(pools[dex], dex).toBeGreaterThan(0);
    expect(stateContracts).toContain(TESTNET_CONTRACTS.AmmDclA);
    expect(stateContracts.every((c) => c.endsWith('.testnet')), stateContracts.join(', ')).toBe(true);
  });

  it('the same blocks indexed as mainnet: no DEX pool at all', async () => {
    expect(MAINNET_CONTRACTS.AmmDclA).not.toBe(TESTNET_CONTRACTS.AmmDclA);
    expect(await indexAs(MAINNET_CONTRACTS)).toEqual({ pools: {}, stateContracts: [] });
  });
});
