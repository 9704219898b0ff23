// The router's AmmA path against real mainnet swaps: each fixture block's pool states (the contract's storage
// writes, decoded) are the state AFTER its swaps; taking the logged swap back out (X = x' − a, Y = y' + out) gives
// the state the swap met. Written through the store, that state must make GET /route reproduce the logged output
// to the unit, on one hop and on two.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../api/server.ts';
import { decodeAmmA } from '../../dexes/amm-a/decode.ts';
import type { AmmAPoolStateEvent, AmmASwapEvent } from '../../dexes/amm-a/events.ts';
import { createMigratedDb } from '../harness/db.ts';
import { loadBlock } from '../harness/fixtures.ts';
import { BlockWriter, decodedCalls, getRoute, type PoolWrite } from './helpers.ts';

const REF = 'v2.ref-finance.near';
const AURORA = 'aaaaaa20d9e0e2461697782ef11675f668207961.factory.bridge.near';

/** Pool states before the block's swaps, and the swaps, of one fixture block. */
function beforeSwaps(rel: string): { pools: PoolWrite[]; swaps: AmmASwapEvent[] } {
  const events = decodeAmmA(loadBlock(rel));
  const swaps = events.filter((e): e is AmmASwapEvent => e.kind === 'swap');
  const pools = events
    .filter((e): e is AmmAPoolStateEvent => e.kind === 'pool_state')
    .map((e) => {
      const amounts = [...e.state.amounts];
      for (const swap of swaps.filter((s) => s.poolId === e.poolId)) {
        const i = e.state.tokens.indexOf(swap.tokenIn);
        const o = e.state.tokens.indexOf(swap.tokenOut);
        amounts[i] = amounts[i]! - swap.amountIn;
        amounts[o] = amounts[o]! + swap.amountOut;
      }
      return { dex: 'AmmA' as const, contractId: REF, poolId: e.poolId, state: { ...e.state, amounts } };
    });
  return { pools, swaps };
}

describe('AmmA routes over the real pool states of the fixture blocks', () => {
  let app: FastifyInstance;
  const blocks = ['mainnet/55905793.json', 'mainnet/81206675.json', 'mainnet/151768255.json'];

  beforeAll(async () => {
    const db = await createMigratedDb();
    const writer = new BlockWriter(db);
    for (const rel of blocks) await writer.write(beforeSwaps(rel).pools);
    app = await buildServer({ db, logLevel: 'silent' });
    await app.ready();
  });
  afterAll(() => app?.close());

  const route = async (tokenIn: string, tokenOut: string, amountIn: bigint) => {
    const quotes = (
      await getRoute(app, { token_in: tokenIn, token_out: tokenOut, amount_in: amountIn.toString(), max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0', dexes: 'AmmA' })
    ).json();
    expect(quotes).toHaveLength(1);
    const msg = JSON.parse((decodedCalls(quotes[0]!)[0]![2] as { msg: string }).msg) as { actions: { pool_id: number }[] };
    return { amountOut: quotes[0]!.estimated_amount.amount_out, pools: msg.actions.map((a) => a.pool_id) };
  };

  it('55905793: 15 000 000 000 v3.oin_finance.near -> wNEAR over pool 2043', async () => {
    const { swaps } = beforeSwaps('mainnet/55905793.json');
    // The Swapped log: "Swapped 15000000000 v3.oin_finance.near for 9254425403101710706083291 wrap.near".
    expect(swaps.map((s) => [s.poolId, s.amountIn, s.amountOut])).toEqual([[2043, 15000000000n, 9254425403101710706083291n]]);
    expect(await route('v3.oin_finance.near', 'wrap.near', 15000000000n)).toEqual({ amountOut: '9254425403101710706083291', pools: [2043] });
  });

  it('81206675: token.sweat -> wNEAR -> Aurora over pools 3667 and 1395, as one route of two hops', async () => {
    const { swaps } = beforeSwaps('mainnet/81206675.json');
    expect(swaps.map((s) => [s.poolId, s.amountIn, s.amountOut])).toEqual([
      [3667, 27070000000000000000n, 208762475255939868571059n],
      [1395, 208762475255939868571059n, 1241475781908817737n],
    ]);
    expect(await route('token.sweat', AURORA, 27070000000000000000n)).toEqual({ amountOut: '1241475781908817737', pools: [3667, 1395] });
  });

  it('151768255: token.0xshitzu.near -> wNEAR over pool 4369, asked for native NEAR', async () => {
    const quotes = (
      await getRoute(app, { token_in: 'token.0xshitzu.near', token_out: 'near', amount_in: '869362846900140300000', max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0', dexes: 'AmmA' })
    ).json();
    // Logged: 869362846900140300000 shitzu for 641881789924959952116119 wrap.near.
    expect(quotes.map((q) => [q.estimated_amount.amount_out, q.token_output, q.needs_unwrap])).toEqual([['641881789924959952116119', 'nep141:wrap.near', true]]);
  });
});
