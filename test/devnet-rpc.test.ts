// The real `dexlake devnet rpc` and `dexlake bootstrap` commands: the realnet's NEAR JSON-RPC over its first 300
// blocks (Ref's and the tokens' own views, the hosted models' answers), a bootstrap from it at block 250 into an empty database, and the one line a height the node has not produced gives.
import { afterAll, describe, expect, it } from 'vitest';
import { transactionGasCeiling } from '../cli/serve.ts';
import { connect } from '../db/connect.ts';
import { protocolLimits } from '../indexer/near-rpc.ts';
import { runDexlake, type Running } from './harness/cli.ts';
import { createTestDatabase } from './harness/db.ts';

async function rpc(url: string, method: string, params: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await res.json()) as Record<string, unknown>;
}

describe('dexlake devnet rpc and dexlake bootstrap', () => {
  let server: Running | undefined;
  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
  });

  it('serves the realnet, and bootstraps a database from it', { timeout: 180_000 }, async () => {
    server = runDexlake(['devnet', 'rpc', '--port', '0', '--blocks', '300'], { LOG_LEVEL: 'warn' });
    let url = '';
    for (let i = 0; i < 600 && url === ''; i++) {
      url = /at (http:\/\/\S+)/.exec(server.output())?.[1] ?? '';
      if (url === '') await new Promise((r) => setTimeout(r, 100));
    }
    expect(url, server.output()).not.toBe('');
    const status = await rpc(url, 'status', []);
    expect(status.result).toMatchObject({ chain_id: 'realnet', sync_info: { latest_block_height: 300, syncing: false } });

    // The chain's prepaid gas per transaction: the realnet answers EXPERIMENTAL_protocol_config with the limits its
    // contracts run under (protocol 90: 1 PGas since version 83's raise), and `serve` takes it unless overridden.
    expect(await protocolLimits(url)).toEqual({ protocolVersion: 90, maxTotalPrepaidGas: 10n ** 15n });
    const warnings: string[] = [];
    const log = { info: () => {}, warn: (_: object, message: string) => void warnings.push(message) };
    const TGAS = 10n ** 12n;
    expect(await transactionGasCeiling({ nearRpcUrl: url, maxTransactionTgas: undefined }, log)).toBe(1000n * TGAS);
    expect(await transactionGasCeiling({ nearRpcUrl: url, maxTransactionTgas: 300 }, log)).toBe(300n * TGAS);
    expect(await transactionGasCeiling({ nearRpcUrl: undefined, maxTransactionTgas: undefined }, log)).toBe(300n * TGAS);
    expect(warnings).toEqual([]);
    // A node that does not answer: 300 TGas, and the log says why.
    expect(await transactionGasCeiling({ nearRpcUrl: 'http://127.0.0.1:9', maxTransactionTgas: undefined }, log)).toBe(300n * TGAS);
    expect(warnings).toEqual(['EXPERIMENTAL_protocol_config did not answer: swaps attach at most 300 TGas']);

    const { url: dbUrl } = await createTestDatabase();
    const boot = runDexlake(['bootstrap', '--rpc', url, '--height', '250'], { DATABASE_URL: dbUrl, LOG_LEVEL: 'warn' });
    const { code } = await boot.exited;
    expect(code, boot.output()).toBe(0);
    expect(boot.output()).toContain('bootstrapped at block 250');
    const db = connect(dbUrl);
    try {
      const { rows } = await db.pool.query(`select (select height::int from checkpoints) as checkpoint, (select count(distinct dex)::int from pools) as dexes`);
      // Every DEX with pools on the realnet: AmmA (Ref's own), AmmDclA, AmmC, Launch and the four stakes (hosted models).
      expect(rows[0]).toEqual({ checkpoint: 250, dexes: 8 });
    } finally {
      await db.close();
    }

    // A height the node has not produced: one line naming the node, the call and NEAR's cause; exit 1.
    const { url: otherUrl } = await createTestDatabase();
    const ahead = runDexlake(['bootstrap', '--rpc', url, '--height', '400'], { DATABASE_URL: otherUrl, LOG_LEVEL: 'warn' });
    expect((await ahead.exited).code).toBe(1);
    expect(ahead.output()).toContain(`dexlake: ${url}: view block 400.header: UNKNOWN_BLOCK`);

    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
    server = undefined;
  });
});
