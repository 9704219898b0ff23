// GET /route over the devnet's market (200 blocks ingested by the real pipeline): each quote's amount is what the
// pool rows give along the path its instructions name, recomputed here from the rows with the contract formulas,
// and the order is the one the indexed prices give.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../api/server.ts';
import { ingest } from '../../indexer/pipeline.ts';
import { devnetSource } from '../../indexer/sources/devnet.ts';
import { createMigratedDb } from '../harness/db.ts';
import { decodedCalls, getRoute, type Quote } from './helpers.ts';
import { quoteExactIn } from '../../dexes/amm-dcl-a/math.ts';
import { dclPoolStateFromJson } from '../../dexes/amm-dcl-a/state.ts';

const USDT = 'usdt.tether-token.near';
const NEAR = 10n ** 24n;

describe('GET /route over the devnet', () => {
  let app: FastifyInstance;
  let db: Awaited<ReturnType<typeof createMigratedDb>>;

  beforeAll(async () => {
    db = await createMigratedDb();
    await ingest({ db, source: devnetSource({ seed: 'dexlake', speed: 0 }), to: 200, signal: new AbortController().signal });
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
    const quotes = (await getRoute(app, { token_in: 'near', token_out: USDT, amount_in: String(NEAR), max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.005', trader_account_id: 'newcomer.near' })).json();
    const byDex = new Map(quotes.map((q) => [q.dex_id, q]));
    // The devnet's NEAR/USDt pools are on AmmA, AmmC (and, as the simulator grows, other DEXes).
    expect([...byDex.keys()]).toEqual(expect.arrayContaining(['AmmA', 'AmmC']));

    // AmmA: the actions of its ft_transfer_call, each hop out = floor(a·(10000−f)·Y / (10000·X + a·(10000−f))).
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

    // Ranking: output minus (gas cost + storage) in USDt at the indexed prices: cost·p(NEAR)·10^6 / (p(USDt)·10^24).
    const { rows: prices } = await db.pool.query<{ token: string; price_usd: string }>(`select token, price_usd::text from token_market where token in ('near', $1)`, [USDT]);
    const price = (t: string) => BigInt(prices.find((p) => p.token === t)!.price_usd.replace('.', '')); // both have 18 decimals
    const value = (q: Quote) => {
      const cost = BigInt(q.estimated_max_gas_cost) + BigInt(q.storage_deposits);
      return BigInt(q.estimated_amount.amount_out!) - (cost * price('near') * 10n ** 6n) / (price(USDT) * NEAR);
    };
    for (let i = 1; i < quotes.length; i++) expect(value(quotes[i - 1]!) >= value(quotes[i]!)).toBe(true);
    // newcomer.near is registered nowhere: AmmA wraps first (storage_deposit + near_deposit on wrap.near).
    expect(decodedCalls(amma).slice(0, 2).map(([receiver, method]) => [receiver, method])).toEqual([
      ['wrap.near', 'storage_deposit'],
      ['wrap.near', 'near_deposit'],
    ]);
  });

  it('AmmDclA over its indexed pool states: the Swap msg names the pools, whose states give the amount', async () => {
    const { rows: pools } = await db.pool.query<{ pool_id: string; state: unknown }>(`select pool_id, state from pools where dex = 'AmmDclA' order by pool_id`);
    if (pools.length === 0) return; // a devnet without DCL pools
    const [tokenX, tokenY] = pools[0]!.pool_id.split('|') as [string, string];
    const quotes = (await getRoute(app, { token_in: tokenX, token_out: tokenY, amount_in: '1000000', max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.01', dexes: 'AmmDclA' })).json();
    expect(quotes.map((q) => q.dex_id)).toEqual(['AmmDclA']);
    const [receiver, method, args] = decodedCalls(quotes[0]!)[0]!;
    expect([receiver, method]).toEqual([tokenX, 'ft_transfer_call']);
    const swap = JSON.parse((args as { msg: string }).msg).Swap as { pool_ids: string[]; output_token: string };
    expect(swap.output_token).toBe(tokenY);
    // The dexes' own DCL math (tested against real blocks in test/dexes/amm-dcl-a.test.ts), hop by hop over the rows.
    let amount = 1_000_000n;
    let token = tokenX;
    for (const poolId of swap.pool_ids) {
      const state = dclPoolStateFromJson(pools.find((p) => p.pool_id === poolId)!.state);
      amount = quoteExactIn(state, token, amount)!;
      token = state.tokens[0] === token ? state.tokens[1] : state.tokens[0];
    }
    expect(token).toBe(tokenY);
    expect(quotes[0]!.estimated_amount).toEqual({ amount_out: amount.toString() });
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
