// `dexlake bootstrap`'s runner over a real local NEAR JSON-RPC server (devnet/rpc.ts, nearcore's shapes), with a small
// DEX whose bootstrap reads one view: the block's row, the events and the checkpoint land in one transaction, a
// failure midway writes nothing, only an empty database is bootstrapped, and a height the node does not keep is
// one clear line. (Each DEX's own read is tested in test/dexes/*-bootstrap.test.ts; the devnet's whole chain in
// test/devnet-bootstrap.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINNET_CONTRACTS } from '../dexes/contracts.ts';
import { PoolsImportError, type Dex } from '../dexes/dex.ts';
import { startNearRpc, type NearRpcServer, type RpcBlock, type RpcChain } from '../devnet/rpc.ts';
import { bootstrap } from '../indexer/bootstrap.ts';
import { createMigratedDb } from './harness/db.ts';

const FINAL = 5_000;
/** Heights below this are garbage-collected on this node, as on a non-archival one. */
const OLDEST = 4_000;
const CONTRACT = 'pools.near';

const blockAt = (height: number): RpcBlock => ({ height, hash: `Hash${height}`, prevHash: `Hash${height - 1}`, timestampNs: BigInt(height) * 1_000_000_000n + 123_456_789n });

/** The node: `list_pools` of pools.near, and `ft_metadata` of one token; `failing` makes that token's metadata fail. */
function node(state: { failing: boolean; asked: string[] }): RpcChain {
  return {
    chainId: 'test',
    final: () => blockAt(FINAL),
    block: (height) => (height >= OLDEST && height <= FINAL ? blockAt(height) : null),
    view(height, contractId, method) {
      state.asked.push(`${height} ${contractId}.${method}`);
      if (contractId === CONTRACT && method === 'list_pools') return { value: [{ id: 'p', tokens: ['a.near', 'near'], amounts: ['5', '7'] }] };
      if (contractId === 'a.near' && method === 'ft_metadata') {
        if (state.failing) return { vmError: 'HostError(GuestPanic { panic_msg: "paused" })' };
        return { value: { spec: 'ft-1.0.0', name: 'A', symbol: 'A', decimals: 6, icon: null, reference: null, reference_hash: null } };
      }
      return null;
    },
    storage: () => null,
  };
}

/** A DEX as small as can be: its state is one view's list of pools. */
const listing: Dex = {
  id: 'Listing',
  contract: () => CONTRACT,
  activity: 'trade',
  decode: () => [],
  bootstrap: {
    async read(at) {
      const list = await at.view(CONTRACT, 'list_pools');
      if (!Array.isArray(list)) throw new PoolsImportError('list_pools: not a list');
      return {
        events: (list as Array<{ id: string; tokens: string[]; amounts: string[] }>).map((p) => ({
          kind: 'pool_state' as const,
          dex: 'Listing',
          contractId: CONTRACT,
          poolId: p.id,
          state: { kind: 'xyk', tokens: p.tokens, amounts: p.amounts.map(BigInt), totalFee: 0 },
          source: 'rpc' as const,
        })),
      };
    },
  },
};

describe('bootstrap', () => {
  const state = { failing: false, asked: [] as string[] };
  let server: NearRpcServer;
  beforeAll(async () => {
    server = await startNearRpc(node(state));
  });
  afterAll(() => server?.close());

  it('writes the block, its state events, the token metadata and the checkpoint at the latest final block', async () => {
    const db = await createMigratedDb();
    const summary = await bootstrap({ db, rpcUrl: server.url, contracts: MAINNET_CONTRACTS, dexes: [listing] });
    expect(summary).toMatchObject({ height: FINAL, hash: `Hash${FINAL}`, dexes: [{ dex: 'Listing', pools: 1, approximate: 0 }], tokens: 1 });
    // Every view at the final block's height; `near` is no token to ask metadata of.
    expect(state.asked).toEqual([`${FINAL} ${CONTRACT}.list_pools`, `${FINAL} a.near.ft_metadata`]);
    const q = async (sql: string) => (await db.pool.query(sql)).rows;
    expect(await q('select height::int, hash, prev_hash, timestamp_ms::text from blocks')).toEqual([
      // 5000 s + 123 456 789 ns -> 5 000 123 ms (floor)
      { height: FINAL, hash: `Hash${FINAL}`, prev_hash: `Hash${FINAL - 1}`, timestamp_ms: '5000123' },
    ]);
    expect(await q('select height::int, hash from checkpoints')).toEqual([{ height: FINAL, hash: `Hash${FINAL}` }]);
    expect(await q(`select receipt_id, index, kind from events order by receipt_id, index`)).toEqual([
      { receipt_id: 'bootstrap:Listing', index: 0, kind: 'pool_state' },
      { receipt_id: 'bootstrap:metadata', index: 0, kind: 'token_metadata' },
    ]);
    expect(await q(`select dex, pool_id, amounts::text[] from pools`)).toEqual([{ dex: 'Listing', pool_id: 'p', amounts: ['5', '7'] }]);
    expect(await q(`select token, decimals from tokens where token = 'a.near'`)).toEqual([{ token: 'a.near', decimals: 6 }]);

    // A database that holds blocks is not bootstrapped again.
    await expect(bootstrap({ db, rpcUrl: server.url, contracts: MAINNET_CONTRACTS, dexes: [listing] })).rejects.toThrow(/already holds indexed blocks/);
  });

  it('asks at --height; a failure midway writes nothing; a height the node does not keep is named', async () => {
    const db = await createMigratedDb();
    state.asked.length = 0;
    state.failing = true;
    await expect(bootstrap({ db, rpcUrl: server.url, contracts: MAINNET_CONTRACTS, dexes: [listing], height: FINAL - 5 })).rejects.toThrow(/a\.near\.ft_metadata/);
    expect(state.asked).toEqual([`${FINAL - 5} ${CONTRACT}.list_pools`, `${FINAL - 5} a.near.ft_metadata`]);
    for (const table of ['blocks', 'events', 'pools', 'checkpoints']) {
      expect((await db.pool.query(`select count(*)::int as n from ${table}`)).rows[0].n, table).toBe(0);
    }
    state.failing = false;
    // A node that does not keep the height: one line naming the node, the call and NEAR's cause.
    await expect(bootstrap({ db, rpcUrl: server.url, contracts: MAINNET_CONTRACTS, dexes: [listing], height: OLDEST - 1 })).rejects.toThrow(
      `${server.url}: view block ${OLDEST - 1}.header: UNKNOWN_BLOCK`,
    );
  });
});
