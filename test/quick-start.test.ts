// The mainnet quick start, against local servers: `dexlake start --source neardata:URL --rpc URL` with an empty
// database bootstraps every DEX at the node's latest final block, then follows the chain from the next one, and
// answers routes on every DEX id that has pools. The chain is the realnet's (Ref's exchange, wNEAR and the tokens on
// their own wasm, the hosted models of the other DEXes), served the ways mainnet's is: blocks by a neardata-style
// HTTP server, state by the realnet's NEAR JSON-RPC (its contracts' own views and storage, over devnet/rpc.ts).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '../db/connect.ts';
import { freePort } from '../db/embedded.ts';
import { realnetMarket, realnetRpc } from '../devnet/realnet/wasm.ts';
import { startSolverRelay } from '../devnet/relay.ts';
import { startNearRpc } from '../devnet/rpc.ts';
import { runDexlake, waitForOk } from './harness/cli.ts';
import { createTestDatabase } from './harness/db.ts';

const SEED = 'dexlake';
/** The chain's head when the indexer starts, and how far it then moves. */
const FIRST_HEAD = 320;
const LAST = 360;

/** neardata's protocol (indexer/sources/neardata.ts): `/v0/block/{h}` up to the head, `/v0/last_block/final` a 302 to it. */
async function neardata(texts: Map<number, string>, head: { value: number }): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url === '/v0/last_block/final') return void res.writeHead(302, { location: `/v0/block/${head.value}` }).end();
    const height = Number(/^\/v0\/block\/(\d+)$/.exec(req.url ?? '')?.[1] ?? NaN);
    if (!texts.has(height) || height > head.value) {
      return void res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'BLOCK_DOES_NOT_EXIST' }));
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(texts.get(height));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('mainnet quick start', () => {
  const closers: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
  });

  it('an empty database bootstraps at the latest final block, follows the chain, and routes on every DEX with pools', { timeout: 240_000 }, async () => {
    const market = realnetMarket(undefined, { seed: SEED, history: false, models: true });
    const texts = new Map<number, string>();
    for (let i = 0; i < LAST; i++) {
      const message = market.next() as { block: { header: { height: number } } };
      texts.set(message.block.header.height, JSON.stringify(message));
    }
    const head = { value: FIRST_HEAD };
    const blocks = await neardata(texts, head);
    closers.push(() => new Promise((resolve) => blocks.server.close(resolve)));
    const rpc = await startNearRpc(realnetRpc(undefined, { seed: SEED }, () => head.value));
    closers.push(() => rpc.close());
    const { url } = await createTestDatabase();
    // QuoteA's solver: the local relay over this database (it prices from the indexed AmmA pools).
    const db = connect(url);
    closers.push(() => db.close());
    const relay = await startSolverRelay({ db, host: '127.0.0.1', port: 0 });
    closers.push(() => relay.close());

    const port = await freePort();
    const running = runDexlake(['start'], {
      DATABASE_URL: url,
      DEXLAKE_SOURCE: `neardata:${blocks.url}`,
      NEAR_RPC_URL: rpc.url,
      QUOTE_RELAY_URL: relay.url,
      PORT: String(port),
      DEXLAKE_RELAY_PORT: 'off',
      DEXLAKE_DEVNET_RPC_PORT: 'off',
      LOG_LEVEL: 'info',
    });
    closers.push(async () => {
      running.child.kill('SIGTERM');
      await running.exited;
    });
    await waitForOk(`http://127.0.0.1:${port}/health`, running, 120_000);
    const indexedHeight = async () => Number((await db.pool.query(`select coalesce(max(height), 0)::int as h from blocks`)).rows[0].h);
    const until = async (height: number) => {
      for (let i = 0; i < 600 && (await indexedHeight()) < height; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await indexedHeight(), running.output()).toBeGreaterThanOrEqual(height);
    };
    await until(FIRST_HEAD);
    // The first block is the bootstrapped one: no block before it, its events are the bootstrap's.
    const first = await db.pool.query(`select min(height)::int as h from blocks`);
    expect(first.rows[0].h).toBe(FIRST_HEAD);
    const boot = await db.pool.query(`select distinct receipt_id from events where block_height = $1 and receipt_id like 'bootstrap:%' order by 1`, [FIRST_HEAD]);
    expect(boot.rows.map((r) => r.receipt_id)).toContain('bootstrap:AmmA');

    // The chain moves on: the indexer follows from the next block.
    head.value = LAST;
    await until(LAST);
    expect((await db.pool.query(`select count(*)::int as n from blocks`)).rows[0].n).toBe(LAST - FIRST_HEAD + 1);

    // Every DEX with pools answers a route over one of its pools' token pairs (a hundredth of the pool's first
    // reserve), Wrap a wrap, QuoteA a quote of the solver relay.
    const route = async (dex: string, tokenIn: string, tokenOut: string, amount: string) => {
      const query = new URLSearchParams({ token_in: tokenIn, token_out: tokenOut, amount_in: amount, max_wait_ms: '3000', slippage_type: 'Fixed', slippage: '0.05', dexes: dex, trader_account_id: 'alice.near' });
      const res = await fetch(`http://127.0.0.1:${port}/route?${query}`);
      return ((await res.json()) as Array<{ dex_id: string }>).map((q) => q.dex_id);
    };
    const { rows } = await db.pool.query(`select distinct on (dex) dex, tokens, amounts::text[] from pools where not stale order by dex, pool_id`);
    const routed = new Set<string>();
    for (const { dex, tokens, amounts } of rows as Array<{ dex: string; tokens: string[]; amounts: string[] }>) {
      expect(await route(dex, tokens[0]!, tokens[1]!, String(BigInt(amounts[0]!) / 100n)), `${dex} ${tokens[0]} -> ${tokens[1]}`).toEqual([dex]);
      routed.add(dex);
    }
    expect(await route('Wrap', 'near', 'wrap.near', '1000000000000000000000000')).toEqual(['Wrap']);
    expect(await route('QuoteA', 'wrap.near', 'usdt.tether-token.near', '1000000000000000000000000')).toEqual(['QuoteA']);
    expect([...routed].sort()).toEqual(['AmmA', 'AmmC', 'AmmDclA', 'Launch', 'StakeA', 'StakeB', 'StakeC', 'StakeD']);
  });
});
