// GET /route over the realnet's market (200 blocks ingested by the real pipeline: Ref's exchange on its own wasm, the
// hosted models of AmmC, AmmDclA and Launch): each quote's amount is what the pool rows give along the path its
// instructions name, recomputed here from the rows with the contract formulas, and the order is the one the indexed
// prices give. (realnet-routes.test.ts executes the quotes on the chain itself.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../api/server.ts';
import { ingest } from '../../indexer/pipeline.ts';
import { realnetSource } from '../../indexer/sources/realnet.ts';
import { createMigratedDb } from '../harness/db.ts';
import { decodedCalls, getRoute, type Quote } from './helpers.ts';
import { dclPoolStateFromJson } from '../../dexes/amm-dcl-a/state.ts';

const USDT = 'usdt.tether-token.near';
const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';
const NEAR = 10n ** 24n;

describe('GET /route over the realnet', () => {
  let app: FastifyInstance;
  let db: Awaited<ReturnType<typeof createMigratedDb>>;

  beforeAll(async () => {
    db = await createMigratedDb();
    await ingest({ db, source: realnetSource({ seed: 'dexlake', speed: 0 }), to: 200, signal: new AbortController().signal });
    app = await buildServer({ db, logLevel: 'silent' });
    await app.ready();
  }, 120_000);
  afterAll(() => app?.close());

  async function poolRow(dex: string, poolId: number) {
    const { rows } = await db.pool.query<{ tokens: string[]; amounts: string[]; total_fee: number; state: { feeReceivers?: { fee: number }[] } }>(
      'select tokens, amounts, total_fee, state from pools where dex = $1 and pool_id = $2',
      [dex, String(poolId)],
    );
    return rows[0]!;
  }

  it('NEAR -> USDt: AmmA and AmmC amounts as the pool rows give them, ranked by value net of costs', async () => {
    const answer = await getRoute(app, { token_in: 'near', token_out: USDT, amount_in: String(NEAR), max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.005', trader_account_id: 'newcomer.near' });
    const quotes = answer.json();
    // The answer names the state it was computed on: the indexed head (not the newest pool write), as /health's
    // route_height says.
    const { rows: head } = await db.pool.query<{ height: number }>('select max(height)::int as height from blocks');
    expect(head[0]!.height).toBe(200);
    expect(answer.height).toBe('200');
    expect((await app.inject('/health')).json()).toMatchObject({ height: 200, route_height: 200 });
    const byDex = new Map(quotes.map((q) => [q.dex_id, q]));
    // The realnet's NEAR/USDt pools are on AmmA (Ref), AmmC and AmmDclA.
    expect([...byDex.keys()]).toEqual(expect.arrayContaining(['AmmA', 'AmmC', 'AmmDclA']));

    // AmmA: the actions of its ft_transfer_call (here two hops, wNEAR -> USDC -> USDt through Ref's pools 6 and 5), each
    // hop out = floor(a·(10000−f)·Y / (10000·X + a·(10000−f))).
    const amma = byDex.get('AmmA')!;
    const swap = decodedCalls(amma).find(([, method]) => method === 'ft_transfer_call')!;
    expect(swap[0]).toBe('wrap.near');
    const actions = (JSON.parse((swap[2] as { msg: string }).msg) as { actions: { pool_id: number; token_in: string; token_out: string }[] }).actions;
    let amount = NEAR;
    for (const action of actions) {
      const row = await poolRow('AmmA', action.pool_id);
      const x = BigInt(row.amounts[row.tokens.indexOf(action.token_in)]!);
      const y = BigInt(row.amounts[row.tokens.indexOf(action.token_out)]!);
      const withFee = amount * BigInt(10_000 - row.total_fee);
      amount = (withFee * y) / (10_000n * x + withFee);
    }
    expect(actions[0]!.token_in).toBe('wrap.near');
    expect(actions.at(-1)!.token_out).toBe(USDT);
    expect(amma.estimated_amount).toEqual({ amount_out: amount.toString() });

    // AmmC pool 0 (near/USDt): fees floor(a·f_i/10^6) per receiver, a' = a − Σ, out = floor(a'·Y / (X + a')).
    const row = await poolRow('AmmC', 0);
    expect(row.tokens).toEqual(['near', USDT]);
    const fees = row.state.feeReceivers!.reduce((sum, r) => sum + (NEAR * BigInt(r.fee)) / 1_000_000n, 0n);
    const net = NEAR - fees;
    const ammcOut = (net * BigInt(row.amounts[1]!)) / (BigInt(row.amounts[0]!) + net);
    expect(byDex.get('AmmC')!.estimated_amount).toEqual({ amount_out: ammcOut.toString() });

    // Ranking: output minus (gas burnt at 10^8 yocto + storage) in USDt at the indexed prices:
    // cost·p(NEAR)·10^6 / (p(USDt)·10^24).
    const { rows: prices } = await db.pool.query<{ token: string; price_usd: string }>(`select token, price_usd::text from token_market where token in ('near', $1)`, [USDT]);
    const price = (t: string) => BigInt(prices.find((p) => p.token === t)!.price_usd.replace('.', '')); // both have 18 decimals
    const value = (q: Quote) => {
      const cost = BigInt(q.estimated_gas_usage) * 100_000_000n + BigInt(q.storage_deposits);
      return BigInt(q.estimated_amount.amount_out!) - (cost * price('near') * 10n ** 6n) / (price(USDT) * NEAR);
    };
    for (let i = 1; i < quotes.length; i++) expect(value(quotes[i - 1]!) >= value(quotes[i]!)).toBe(true);
    // newcomer.near is registered nowhere: AmmA wraps first (storage_deposit + near_deposit on wrap.near).
    expect(decodedCalls(amma).slice(0, 2).map(([receiver, method]) => [receiver, method])).toEqual([
      ['wrap.near', 'storage_deposit'],
      ['wrap.near', 'near_deposit'],
    ]);
  });

  it('AmmDclA over its indexed pool state: the Swap msg names the pool, and the amounts are what its liquidity gives', async () => {
    const { rows: pools } = await db.pool.query<{ pool_id: string; state: unknown }>(`select pool_id, state from pools where dex = 'AmmDclA' order by pool_id`);
    // The hosted model seeds three DCL pools (devnet/amm-dcl-a.ts devnetDclPools): none indexed is a failure, not a pass.
    expect(pools.length).toBeGreaterThan(0);
    const poolId = `${USDC}|${USDT}|100`;
    const row = pools.find((p) => p.pool_id === poolId);
    expect(row).toBeDefined();
    const state = dclPoolStateFromJson(row!.state);
    expect(state.orders).toEqual([]); // the model places no limit orders: liquidity alone fills the swap

    const route = async (amountIn: bigint) => {
      const quotes = (await getRoute(app, { token_in: USDC, token_out: USDT, amount_in: String(amountIn), max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.01', dexes: 'AmmDclA' })).json();
      expect(quotes.map((q) => q.dex_id)).toEqual(['AmmDclA']);
      const [receiver, method, args] = decodedCalls(quotes[0]!)[0]!;
      expect([receiver, method]).toEqual([USDC, 'ft_transfer_call']);
      const swap = JSON.parse((args as { msg: string }).msg).Swap as { pool_ids: string[]; output_token: string };
      expect(swap).toMatchObject({ pool_ids: [poolId], output_token: USDT });
      return BigInt(quotes[0]!.estimated_amount.amount_out!);
    };

    // Checked without dexes/amm-dcl-a's math (which the hosted model's own swaps also run, so executing one there would
    // prove nothing): the whitepaper's model, written here. Liquidity L at point i holds L·√p Y and L/√p X, p =
    // 1.0001^i; a range [left, right) adds its L from left to right - 1, so L at i is the sum of the deltas at points
    // <= i. Selling X (USDC) takes the fee (100 ppm) off the input, then buys each point's Y at its price, from the
    // current point (only its Y part, L - liquidityX) down.
    const at = (i: number) => state.points.filter((x) => x.point <= i).reduce((sum, x) => sum + x.liquidityDelta, 0n);
    expect(at(state.currentPoint)).toBe(state.liquidity);
    const FEE = 100n;
    const Q96 = 2n ** 96n;
    // The state's sqrt price is √(1.0001^point) in Q96.
    expect(Number(state.sqrtPrice96) / Number(Q96)).toBeCloseTo(1.0001 ** (state.currentPoint / 2), 12);

    // 1 USDC fits in the current point's Y: one exchange at √p, to the unit as the contract rounds it (iZiSwap
    // x2YAtPriceLiquidity: the Y liquidity used is floor(a·√p), the Y paid floor(that·√p)). With the realnet's state
    // at 200 (point 1, √p = 1.00005): a = 999 900, floor(999 900·1.00005) = 999 949, floor(999 949·1.00005) = 999 998.
    const small = 1_000_000n;
    const net = (small * (1_000_000n - FEE)) / 1_000_000n;
    const used = (net * state.sqrtPrice96) / Q96;
    expect(used).toBeLessThanOrEqual(state.liquidity - state.liquidityX);
    expect(await route(small)).toBe((used * state.sqrtPrice96) / Q96);

    // 300 000 USDC moves the price from point 1 down past -10, where the narrowest range's liquidity ends: point by
    // point in floating point. The contract sums each range in closed form, rounding every step in the pool's favour,
    // so it pays at most the ideal and a few units less (here 4.8); a wrong fee, price or crossing is off by far more.
    const large = 300_000_000_000n;
    let rest = Number(large) * (1 - Number(FEE) / 1e6);
    let ideal = 0;
    let point = state.currentPoint;
    let liquidityY = Number(state.liquidity - state.liquidityX);
    for (;;) {
      const sqrtP = 1.0001 ** (point / 2);
      if (rest <= liquidityY / sqrtP) {
        ideal += rest * sqrtP * sqrtP;
        break;
      }
      ideal += liquidityY * sqrtP;
      rest -= liquidityY / sqrtP;
      point -= 1;
      liquidityY = Number(at(point));
      expect(liquidityY).toBeGreaterThan(0); // still within the pool's liquidity
    }
    expect(point).toBeLessThan(-10);
    const out = Number(await route(large));
    expect(out).toBeLessThanOrEqual(ideal);
    expect(ideal - out).toBeLessThan(10);
  });

  it('a Launch buy: the curve gives the amount; the call goes to aidols.near', async () => {
    const quotes = (await getRoute(app, { token_in: 'wrap.near', token_out: 'miko.aidols.near', amount_in: String(NEAR), max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.01', dexes: 'Launch' })).json();
    const { rows } = await db.pool.query<{ amounts: string[] }>(`select amounts from pools where dex = 'Launch' and pool_id = 'miko.aidols.near'`);
    const [tokenHold, wnearHold] = rows[0]!.amounts.map(BigInt) as [bigint, bigint];
    // fee = max(0.01 NEAR, floor(1 NEAR·10000/10^6)) = 0.01 NEAR; net = a − fee; out = floor(T·net / (W + net)).
    const net = NEAR - 10n ** 22n;
    expect(quotes[0]!.estimated_amount).toEqual({ amount_out: ((tokenHold * net) / (wnearHold + net)).toString() });
    const [receiver, method, args] = decodedCalls(quotes[0]!)[0]!;
    expect([receiver, method]).toEqual(['wrap.near', 'ft_transfer_call']);
    const { msg, ...rest } = args as { msg: string };
    expect(rest).toEqual({ receiver_id: 'aidols.near', amount: String(NEAR) });
    expect(JSON.parse(msg)).toEqual({ token: 'miko.aidols.near', min_swap_amount: quotes[0]!.worst_case_amount.amount_out, referral: null });
  });
});
