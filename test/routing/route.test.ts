// GET /route end to end over small hand-made pools written through the real store: the amounts of each DEX against
// arithmetic done by hand (in the comments), the instructions decoded field by field against near-facts.md, the
// dexes filter, exact out, determinism, and the refresh on NOTIFY. The pools:
//   AmmA 1: alpha/beta 1 000 000 / 2 000 000, fee 30 bps     AmmA 2: beta/gamma 3 000 000 / 1 000 000, fee 25 bps
//   AmmA 3: wrap.near/beta 10^27 / 5 000 000, fee 30 bps     AmmC 7: alpha/beta 1 000 000 / 2 000 000, pool fee 2000 ppm
//   AmmC 8: beta/gamma 2 000 000 / 1 000 000, pool fee 2000 ppm     StakeA: meta-pool.near at 1100 per 1000
//   AmmA 4 and 5: alpha/delta 1 000 000 / 1 000 000, fee 30 bps each (two parallel pools)
//   AmmDclA xray.near|yank.near|2000: liquidity 10^18 over points [-1000, 1000), price point 0
//   StakeB: linear-protocol.near at 1100 NEAR-yocto per 1000 shares
// No token has a price, so quotes rank by amount alone (spec A1 rule 2).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../api/server.ts';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/connect.ts';
import { rank } from '../../api/routing/route.ts';
import type { BuiltQuote } from '../../api/routing/quote.ts';
import { parseRouteQuery } from '../../api/routing/params.ts';
import { createMigratedDb } from '../harness/db.ts';
import { addLiquidity, newDclPoolState } from '../../dexes/amm-dcl-a/state.ts';
import { LISTENER_NAME } from '../../api/routing/graph.ts';
import { BlockWriter, decodedCalls, eventually, getRoute, type Quote } from './helpers.ts';

const REF = 'v2.ref-finance.near';
const ENGINE = 'dex.intear.near';
const TGAS = 1_000_000_000_000;
const simple = (tokens: string[], amounts: bigint[], totalFee: number) => ({ kind: 'simple', tokens, amounts, totalFee, exchangeFee: 0, referralFee: 0 });
const xyk = (tokens: string[], amounts: bigint[], poolFee: number) => ({
  kind: 'xyk',
  poolType: 'public',
  tokens,
  amounts,
  totalFee: poolFee,
  feeReceivers: [{ kind: 'pool', accountId: null, fee: poolFee }],
  phantomLiquidity: null,
  totalShares: 10n ** 18n,
});

const BASE = { max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.01' };

describe('GET /route', () => {
  let app: FastifyInstance;
  let writer: BlockWriter;
  let db: Db;

  beforeAll(async () => {
    db = await createMigratedDb();
    writer = new BlockWriter(db);
    await writer.write(
      [
        { dex: 'AmmA', contractId: REF, poolId: 1, state: simple(['alpha.near', 'beta.near'], [1_000_000n, 2_000_000n], 30) },
        { dex: 'AmmA', contractId: REF, poolId: 2, state: simple(['beta.near', 'gamma.near'], [3_000_000n, 1_000_000n], 25) },
        { dex: 'AmmA', contractId: REF, poolId: 3, state: simple(['wrap.near', 'beta.near'], [10n ** 27n, 5_000_000n], 30) },
        { dex: 'AmmA', contractId: REF, poolId: 4, state: simple(['alpha.near', 'delta.near'], [1_000_000n, 1_000_000n], 30) },
        { dex: 'AmmA', contractId: REF, poolId: 5, state: simple(['alpha.near', 'delta.near'], [1_000_000n, 1_000_000n], 30) },
        { dex: 'AmmC', contractId: ENGINE, poolId: 7, state: xyk(['alpha.near', 'beta.near'], [1_000_000n, 2_000_000n], 2000) },
        { dex: 'AmmC', contractId: ENGINE, poolId: 8, state: xyk(['beta.near', 'gamma.near'], [2_000_000n, 1_000_000n], 2000) },
        {
          dex: 'StakeA',
          contractId: 'meta-pool.near',
          poolId: 'meta-pool.near',
          state: { kind: 'stake', tokens: ['near', 'meta-pool.near'], amounts: [1100n, 1000n], totalFee: 0, rateOrigin: 'test' },
        },
        {
          dex: 'AmmDclA',
          contractId: 'dclv2.ref-labs.near',
          poolId: 'xray.near|yank.near|2000',
          state: addLiquidity(
            newDclPoolState({ poolId: 'xray.near|yank.near|2000', tokenX: 'xray.near', tokenY: 'yank.near', fee: 2000, pointDelta: 1, currentPoint: 0 }),
            -1000,
            1000,
            10n ** 18n,
          ) as never,
        },
        {
          dex: 'StakeB',
          contractId: 'linear-protocol.near',
          poolId: 'linear-protocol.near',
          state: { kind: 'stake', tokens: ['near', 'linear-protocol.near'], amounts: [1100n, 1000n], totalFee: 0, rateOrigin: 'test' },
        },
      ],
      [
        { contractId: 'beta.near', accountId: 'alice.near' },
        { contractId: 'meta-pool.near', accountId: 'alice.near' },
      ],
    );
    // AmmA 6: zeta/eta, 1 000 000 / 1 000 000 then, a block later, 1 000 000 / 1 100 000 (its price moved 10%).
    await writer.write([{ dex: 'AmmA', contractId: REF, poolId: 6, state: simple(['zeta.near', 'eta.near'], [1_000_000n, 1_000_000n], 30) }]);
    await writer.write([{ dex: 'AmmA', contractId: REF, poolId: 6, state: simple(['zeta.near', 'eta.near'], [1_000_000n, 1_100_000n], 30) }]);
    app = await buildServer({ db, logLevel: 'silent' });
    await app.ready();
  });
  afterAll(() => app?.close());

  it('exact in: one quote per DEX, each amount as computed by hand, best first', async () => {
    const res = await getRoute(app, { ...BASE, token_in: 'alpha.near', token_out: 'beta.near', amount_in: '1000' });
    expect(res.status).toBe(200);
    const quotes = res.json();
    // AmmC: fee floor(1000·2000/10^6) = 2, a' = 998, out = floor(998·2 000 000 / (1 000 000 + 998)) = 1994
    // AmmA: floor(1000·9970·2 000 000 / (10000·1 000 000 + 1000·9970)) = floor(19 940 000 000 000 / 10 009 970 000) = 1992
    // worst cases at 1%: floor(1994·99/100) = 1974, floor(1992·99/100) = 1972
    expect(quotes.map((q) => [q.dex_id, q.estimated_amount, q.worst_case_amount])).toEqual([
      ['AmmC', { amount_out: '1994' }, { amount_out: '1974' }],
      ['AmmA', { amount_out: '1992' }, { amount_out: '1972' }],
    ]);
    for (const q of quotes) {
      expect(q).toMatchObject({ deadline: null, has_slippage: true, token_output: 'nep141:beta.near', needs_unwrap: false, storage_deposits: '0', max_storage_deposits: '0' });
    }
  });

  it('AmmA instructions: ft_transfer_call to the exchange with the swap actions (near-facts.md "AmmA")', async () => {
    const [quote] = (await getRoute(app, { ...BASE, token_in: 'alpha.near', token_out: 'gamma.near', amount_in: '1000', dexes: 'AmmA', referrer_id: 'ref.near' })).json();
    // Two hops: 1992 beta (above), then floor(1992·9975·1 000 000 / (10000·3 000 000 + 1992·9975)) =
    // floor(19 870 200 000 000 / 30 019 870 200) = 661; worst floor(661·99/100) = 654.
    expect(quote!.estimated_amount).toEqual({ amount_out: '661' });
    const calls = decodedCalls(quote!);
    expect(calls).toHaveLength(1);
    const [receiver, method, args, gas, deposit] = calls[0]!;
    // Two actions' metered gas (dexes/amm-a/instructions.ts): 30 TGas for the token, ceil(1.2 · (5 + 2·3.2 + 26.8)) = 46.
    expect([receiver, method, gas, deposit]).toEqual(['alpha.near', 'ft_transfer_call', 76 * TGAS, '1']);
    const { msg, ...rest } = args as { msg: string };
    expect(rest).toEqual({ receiver_id: REF, amount: '1000' });
    expect(JSON.parse(msg)).toEqual({
      force: 0,
      actions: [
        { pool_id: 1, token_in: 'alpha.near', token_out: 'beta.near', amount_in: '1000', min_amount_out: '0' },
        { pool_id: 2, token_in: 'beta.near', token_out: 'gamma.near', min_amount_out: '654' },
      ],
      referral_id: 'ref.near',
      skip_unwrap_near: true,
    });
  });

  it('AmmC instructions: ft_transfer_call to the engine with SwapSimple + Withdraw, and its registration', async () => {
    const [quote] = (await getRoute(app, { ...BASE, token_in: 'alpha.near', token_out: 'beta.near', amount_in: '1000', dexes: 'AmmC', trader_account_id: 'bob.near' })).json();
    // bob is registered nowhere: beta storage (0.00125 NEAR), then the engine's storage_deposit (0.005 NEAR) and
    // register_assets, one transaction; then the swap from alpha.near.
    expect(quote!.storage_deposits).toBe(String(1_250_000_000_000_000_000_000n + 5_000_000_000_000_000_000_000n));
    expect(quote!.execution_instructions.map((i) => [i.NearTransaction?.receiver_id, i.NearTransaction?.actions.length])).toEqual([
      ['beta.near', 1],
      [ENGINE, 2],
      ['alpha.near', 1],
    ]);
    const calls = decodedCalls(quote!);
    expect(calls.slice(0, 3)).toEqual([
      ['beta.near', 'storage_deposit', { account_id: 'bob.near', registration_only: true }, 10 * TGAS, '1250000000000000000000'],
      [ENGINE, 'storage_deposit', {}, 10 * TGAS, '5000000000000000000000'],
      [ENGINE, 'register_assets', { asset_ids: ['nep141:alpha.near', 'nep141:beta.near'] }, 10 * TGAS, '1'],
    ]);
    const [receiver, method, args, gas, deposit] = calls[3]!;
    expect([receiver, method, gas, deposit]).toEqual(['alpha.near', 'ft_transfer_call', 280 * TGAS, '1']);
    const { msg, ...rest } = args as { msg: string };
    expect(rest).toEqual({ receiver_id: ENGINE, amount: '1000' });
    expect(JSON.parse(msg)).toEqual({
      operations: [
        // message: borsh u32 7 = 07 00 00 00 -> base64 "BwAAAA=="
        { SwapSimple: { dex_id: 'slimedragon.near/xyk', message: 'BwAAAA==', asset_in: 'nep141:alpha.near', asset_out: 'nep141:beta.near', amount: { Amount: { ExactIn: '1000' } } } },
        { Withdraw: { asset_id: 'nep141:beta.near', amount: { Full: { at_least: '1974' } }, to: null, rescue_address: null } },
      ],
      referrer: null,
    });
  });

  it('AmmA splits an amount across parallel pools when that gives more', async () => {
    const [quote] = (await getRoute(app, { ...BASE, token_in: 'alpha.near', token_out: 'delta.near', amount_in: '100000' })).json();
    // One pool: floor(100 000·9970·10^6 / (10^10 + 100 000·9970)) = 90 661. Half in each of two equal pools:
    // floor(50 000·9970·10^6 / (10^10 + 50 000·9970)) = floor(498 500 000 000 000 / 10 498 500 000) = 47 482, twice:
    // 94 964. Each path's worst case at 1%: floor(47 482·99/100) = 47 007, together 94 014.
    expect(quote).toMatchObject({ dex_id: 'AmmA', estimated_amount: { amount_out: '94964' }, worst_case_amount: { amount_out: '94014' } });
    const [, , args] = decodedCalls(quote!)[0]!;
    expect((args as { amount: string }).amount).toBe('100000');
    expect(JSON.parse((args as { msg: string }).msg).actions).toEqual([
      { pool_id: 4, token_in: 'alpha.near', token_out: 'delta.near', amount_in: '50000', min_amount_out: '47007' },
      { pool_id: 5, token_in: 'alpha.near', token_out: 'delta.near', amount_in: '50000', min_amount_out: '47007' },
    ]);
  });

  it('AmmDclA: exact in and out over concentrated liquidity, Swap and SwapByOutput msgs', async () => {
    const [sell] = (await getRoute(app, { ...BASE, token_in: 'xray.near', token_out: 'yank.near', amount_in: '1000000' })).json();
    // At point 0 the price is 1: amountNoFee = floor(10^6·(10^6 − 2000)/10^6) = 998 000 X buys 998 000 Y (within
    // the point's liquidity 10^18); worst floor(998 000·99/100) = 988 020.
    expect(sell).toMatchObject({ dex_id: 'AmmDclA', estimated_amount: { amount_out: '998000' }, worst_case_amount: { amount_out: '988020' } });
    const [receiver, method, args, gas, deposit] = decodedCalls(sell!)[0]!;
    expect([receiver, method, gas, deposit]).toEqual(['xray.near', 'ft_transfer_call', 100 * TGAS, '1']); // 50 + 50·1 hop
    const { msg, ...rest } = args as { msg: string };
    expect(rest).toEqual({ receiver_id: 'dclv2.ref-labs.near', amount: '1000000' });
    expect(JSON.parse(msg)).toEqual({ Swap: { pool_ids: ['xray.near|yank.near|2000'], output_token: 'yank.near', min_output_amount: '988020', skip_unwrap_near: true } });

    const [buy] = (await getRoute(app, { ...BASE, token_in: 'xray.near', token_out: 'yank.near', amount_out: '998000' })).json();
    // 998 000 Y cost 998 000 X at price 1, plus the fee ceil(998 000·2000/998 000) = 2000: 1 000 000; worst
    // ceil(1 000 000·101/100) = 1 010 000, which is sent.
    expect(buy).toMatchObject({ dex_id: 'AmmDclA', estimated_amount: { amount_in: '1000000' }, worst_case_amount: { amount_in: '1010000' } });
    const buyArgs = decodedCalls(buy!)[0]![2] as { msg: string; amount: string };
    expect(buyArgs.amount).toBe('1010000');
    expect(JSON.parse(buyArgs.msg)).toEqual({ SwapByOutput: { pool_ids: ['xray.near|yank.near|2000'], output_token: 'yank.near', output_amount: '998000', skip_unwrap_near: true } });
  });

  it('AmmC over two pools: OutputOfLastIn for the second hop', async () => {
    const [quote] = (await getRoute(app, { ...BASE, token_in: 'alpha.near', token_out: 'gamma.near', amount_in: '1000', dexes: 'AmmC' })).json();
    // 1994 beta (above), then fee floor(1994·2000/10^6) = 3, out = floor(1991·1 000 000 / (2 000 000 + 1991)) = 994;
    // worst floor(994·99/100) = 984.
    expect(quote!.estimated_amount).toEqual({ amount_out: '994' });
    const msg = JSON.parse((decodedCalls(quote!)[0]![2] as { msg: string }).msg) as { operations: Record<string, Record<string, unknown>>[] };
    expect(msg.operations.map((op) => Object.keys(op)[0])).toEqual(['SwapSimple', 'SwapSimple', 'Withdraw']);
    expect(msg.operations[0]!.SwapSimple).toMatchObject({ message: 'BwAAAA==', asset_out: 'nep141:beta.near', amount: { Amount: { ExactIn: '1000' } } });
    // borsh u32 8 = 08 00 00 00 -> "CAAAAA=="
    expect(msg.operations[1]!.SwapSimple).toEqual({ dex_id: 'slimedragon.near/xyk', message: 'CAAAAA==', asset_in: 'nep141:beta.near', asset_out: 'nep141:gamma.near', amount: 'OutputOfLastIn' });
    expect(msg.operations[2]!.Withdraw).toMatchObject({ asset_id: 'nep141:gamma.near', amount: { Full: { at_least: '984' } } });
  });

  it('StakeA: a trader Meta Pool does not know pays its storage out of the deposit', async () => {
    const stake = async (trader: string) =>
      (await getRoute(app, { ...BASE, token_in: 'near', token_out: 'meta-pool.near', amount_in: String(10n ** 24n), trader_account_id: trader })).json()[0]!;
    // Registered (alice, after a storage_deposit on meta-pool.near): floor(10^24·1000/1100) = 909 090 909 090 909 090 909 090.
    // Unknown (bob): floor((10^24 − 1.25·10^21)·1000/1100) = 907 954 545 454 545 454 545 454.
    expect((await stake('alice.near')).estimated_amount).toEqual({ amount_out: '909090909090909090909090' });
    expect((await stake('bob.near')).estimated_amount).toEqual({ amount_out: '907954545454545454545454' });
    expect(decodedCalls(await stake('bob.near'))).toEqual([['meta-pool.near', 'deposit_and_stake', {}, 50 * TGAS, String(10n ** 24n)]]);
  });

  it('StakeA liquid unstake (stNEAR -> NEAR, exact in only), once the liquidity pool\'s NEAR and the fee curve are indexed', async () => {
    const unstake = async (amountIn: string) =>
      (await getRoute(app, { ...BASE, token_in: 'meta-pool.near', token_out: 'near', amount_in: amountIn, trader_account_id: 'alice.near' })).body;
    expect(await unstake('1000')).toBe('[]');
    const state = { kind: 'stake', tokens: ['near', 'meta-pool.near'], amounts: [1100n, 1000n], totalFee: 0, rateOrigin: 'test' };
    const curve = { nslpLiquidityTarget: 10_000n, nslpMinDiscountBps: 25, nslpMaxDiscountBps: 180 };
    const metaPool = { dex: 'StakeA' as const, contractId: 'meta-pool.near', poolId: 'meta-pool.near', state: { ...state, ...curve } };
    const nslp = (available: bigint | null, delta: bigint) => ({ kind: 'nslp', dex: 'StakeA', contractId: 'meta-pool.near', available, delta });
    // The figure without the curve (a STATE that did not read that far), at a rate of 1200 per 1000: once the
    // stake quote shows the new rate (floor(1000·1000/1200) = 833), there is still no way back.
    await writer.write([{ ...metaPool, state: { ...state, amounts: [1200n, 1000n] } }], [], [nslp(4_000n, -50n)]);
    const staked = async () => (await getRoute(app, { ...BASE, token_in: 'near', token_out: 'meta-pool.near', amount_in: '1000', trader_account_id: 'alice.near' })).json()[0];
    await eventually(async () => ((await staked())?.estimated_amount.amount_out === '833' ? true : undefined));
    expect(await unstake('1000')).toBe('[]');
    // A block later the curve, and 1 000 yocto cleared into the pool: it holds 4 000 + 1 000 = 5 000.
    await writer.write([metaPool], [], [nslp(null, 1_000n)]);
    const body = await eventually(async () => ((await unstake('1000')) === '[]' ? undefined : await unstake('1000')));
    const [quote] = JSON.parse(body) as Quote[];
    // nears = floor(1000·1100/1000) = 1100; 5 000 − 1 100 = 3 900 left, below the 10 000 target: the fee is
    // 180 − floor(155·3900/10000) = 180 − 60 = 120 bps, floor(120·1100/10000) = 13; out 1087; worst floor(1087·99/100) = 1076.
    expect(quote).toMatchObject({ dex_id: 'StakeA', estimated_amount: { amount_out: '1087' }, worst_case_amount: { amount_out: '1076' }, token_output: 'near', needs_unwrap: false, storage_deposits: '0' });
    expect(decodedCalls(quote!)).toEqual([['meta-pool.near', 'liquid_unstake', { st_near_to_burn: '1000', min_expected_near: '1076' }, 75 * TGAS, '0']]);
    // 10 000 stNEAR are 11 000 NEAR: at the maximum 180 bps the pool would pay 10 802, more than its 5 000.
    expect(await unstake('10000')).toBe('[]');
    // No exact-out form: the fee steps up with the amount.
    expect((await getRoute(app, { ...BASE, token_in: 'meta-pool.near', token_out: 'near', amount_out: '1000' })).body).toBe('[]');
  });

  it('exact out: no AmmA quote; AmmC charges what its ExactOut request costs', async () => {
    const quotes = (await getRoute(app, { ...BASE, token_in: 'alpha.near', token_out: 'beta.near', amount_out: '1000' })).json();
    // in0 = floor(1 000 000·1000 / (2 000 000 − 1000)) + 1 = 500 + 1 = 501; in = ceil(501·10^6 / (10^6 − 2000)) =
    // ceil(502.004) = 503; worst ceil(503·101/100) = ceil(508.03) = 509.
    expect(quotes.map((q) => [q.dex_id, q.estimated_amount, q.worst_case_amount])).toEqual([
      ['AmmC', { amount_in: '503' }, { amount_in: '509' }],
    ]);
    const msg = JSON.parse((decodedCalls(quotes[0]!)[0]![2] as { msg: string; amount: string }).msg);
    expect((decodedCalls(quotes[0]!)[0]![2] as { amount: string }).amount).toBe('509');
    expect(msg.operations[0].SwapSimple.amount).toEqual({ Amount: { ExactOut: '1000' } });
    expect(msg.operations[1].Withdraw.amount).toEqual({ Full: { at_least: '1000' } });
  });

  it('the dexes filter', async () => {
    const only = (await getRoute(app, { ...BASE, token_in: 'alpha.near', token_out: 'beta.near', amount_in: '1000', dexes: 'AmmA' })).json();
    expect(only.map((q) => q.dex_id)).toEqual(['AmmA']);
    const none = await getRoute(app, { ...BASE, token_in: 'alpha.near', token_out: 'beta.near', amount_in: '1000', dexes: 'Wrap,StakeA' });
    expect(none.body).toBe('[]');
  });

  it('from native NEAR: wrap first (storage on wrap.near, near_deposit), one transaction with the AmmA swap', async () => {
    const [quote] = (await getRoute(app, { ...BASE, token_in: 'near', token_out: 'beta.near', amount_in: String(10n ** 24n), trader_account_id: 'alice.near' })).json();
    // floor(10^24·9970·5 000 000 / (10000·10^27 + 10^24·9970)) = 4980; alice is registered on beta.near.
    expect(quote).toMatchObject({ dex_id: 'AmmA', estimated_amount: { amount_out: '4980' }, storage_deposits: '1250000000000000000000' });
    expect(quote!.execution_instructions.map((i) => i.NearTransaction?.receiver_id)).toEqual(['wrap.near']);
    const calls = decodedCalls(quote!);
    expect(calls.map(([, method, args, gas, deposit]) => [method, method === 'ft_transfer_call' ? null : args, gas, deposit])).toEqual([
      ['storage_deposit', { account_id: 'alice.near', registration_only: true }, 10 * TGAS, '1250000000000000000000'],
      ['near_deposit', {}, 5 * TGAS, String(10n ** 24n)],
      // One action: 30 TGas for the token, ceil(1.2 · (5 + 3.2 + 26.8)) = 42 for the exchange.
      ['ft_transfer_call', null, 72 * TGAS, '1'],
    ]);
  });

  it('from native NEAR without a trader: every wNEAR DEX still wraps first (near_deposit of the amount sent)', async () => {
    // kilo.near against wNEAR on the three DEXes that trade wNEAR: an AmmA pool, an AmmDclA pool and a Launch curve.
    const kilo = 'kilo.near';
    await writer.write([
      { dex: 'AmmA', contractId: REF, poolId: 9, state: simple(['wrap.near', kilo], [10n ** 27n, 10n ** 27n], 30) },
      {
        dex: 'AmmDclA',
        contractId: 'dclv2.ref-labs.near',
        poolId: `${kilo}|wrap.near|2000`,
        state: addLiquidity(newDclPoolState({ poolId: `${kilo}|wrap.near|2000`, tokenX: kilo, tokenY: 'wrap.near', fee: 2000, pointDelta: 1, currentPoint: 0 }), -1000, 1000, 10n ** 27n) as never,
      },
      {
        dex: 'Launch',
        contractId: 'aidols.near',
        poolId: kilo,
        state: { kind: 'curve', tokens: [kilo, 'wrap.near'], amounts: [10n ** 33n, 5n * 10n ** 26n], totalFee: 10_000, minFee: 10n ** 22n, isDeployed: false, isTradable: true },
      },
    ]);
    const amount = String(10n ** 24n);
    const quotes = await eventually(async () => {
      // 400 Unknown token until the graph has read the block.
      const res = await getRoute(app, { ...BASE, token_in: 'near', token_out: kilo, amount_in: amount });
      return res.status === 200 && res.json().length === 3 ? res.json() : undefined;
    });
    expect(quotes.map((q) => q.dex_id).sort()).toEqual(['AmmA', 'AmmDclA', 'Launch']);
    for (const quote of quotes) {
      // No trader, so no registration is known to be missing: the wrap is the one helper step, in the first transaction.
      const calls = decodedCalls(quote);
      expect(calls[0], quote.dex_id).toEqual(['wrap.near', 'near_deposit', {}, 5 * TGAS, amount]);
      expect(calls.slice(1).map(([receiver, method]) => [receiver, method]), quote.dex_id).toEqual([['wrap.near', 'ft_transfer_call']]);
      expect(quote.storage_deposits).toBe('0');
    }
  });

  it('to native NEAR: AmmA pays wNEAR and says needs_unwrap', async () => {
    const [quote] = (await getRoute(app, { ...BASE, token_in: 'beta.near', token_out: 'near', amount_in: '1000', dexes: 'AmmA' })).json();
    expect(quote).toMatchObject({ token_output: 'nep141:wrap.near', needs_unwrap: true });
  });

  it('Wrap: 1:1 without slippage; its calls and the gas model checked by hand', async () => {
    const [plain] = (await getRoute(app, { ...BASE, token_in: 'near', token_out: 'wrap.near', amount_in: '1000' })).json();
    expect(plain).toMatchObject({ dex_id: 'Wrap', has_slippage: false, estimated_amount: { amount_out: '1000' }, worst_case_amount: { amount_out: '1000' } });
    expect(decodedCalls(plain!)).toEqual([['wrap.near', 'near_deposit', {}, 5 * TGAS, '1000']]);
    // One transaction, one call of "near_deposit" (12 bytes) with args "{}" (2 bytes):
    // 216 119 000 000 + 980 000 000 000 + 49 919 649·14 = 1 196 817 875 086 gas, plus what near_deposit burns (1.7
    // TGas, w_near's wasm metered: dexes/burn.ts) = 2 896 817 875 086, or its 5 TGas attached at most = 6 196 817 875 086,
    // ×10^8 yocto per gas.
    expect(plain!.estimated_gas_usage).toBe('2896817875086');
    expect(plain!.estimated_max_gas_cost).toBe('619681787508600000000');

    const [inner] = (await getRoute(app, { ...BASE, token_in: 'alpha.near', token_out: 'inner-nep141:alpha.near', amount_in: '77', trader_account_id: 'carol.near' })).json();
    expect(inner!.token_output).toBe('inner-nep141:alpha.near');
    expect(decodedCalls(inner!)).toEqual([
      [REF, 'storage_deposit', { account_id: 'carol.near' }, 10 * TGAS, '10000000000000000000000'],
      [REF, 'register_tokens', { token_ids: ['alpha.near'] }, 10 * TGAS, '1'],
      ['alpha.near', 'ft_transfer_call', { receiver_id: REF, amount: '77', msg: '' }, 50 * TGAS, '1'],
    ]);
    const [withdraw] = (await getRoute(app, { ...BASE, token_in: 'inner-nep141:alpha.near', token_out: 'alpha.near', amount_out: '77' })).json();
    expect(withdraw!.estimated_amount).toEqual({ amount_in: '77' });
    expect(decodedCalls(withdraw!)).toEqual([[REF, 'withdraw', { token_id: 'alpha.near', amount: '77', skip_unwrap_near: true }, 50 * TGAS, '1']]);
  });

  it('StakeB: stake at the indexed rate, exact in and out', async () => {
    const [stake] = (await getRoute(app, { ...BASE, token_in: 'near', token_out: 'linear-protocol.near', amount_in: '1000' })).json();
    // floor(1000·1000/1100) = 909
    expect(stake).toMatchObject({ dex_id: 'StakeB', estimated_amount: { amount_out: '909' } });
    expect(decodedCalls(stake!)).toEqual([['linear-protocol.near', 'deposit_and_stake', {}, 50 * TGAS, '1000']]);
    const [exactOut] = (await getRoute(app, { ...BASE, token_in: 'near', token_out: 'linear-protocol.near', amount_out: '909' })).json();
    // ceil(909·1100/1000) = ceil(999.9) = 1000; worst ceil(1000·101/100) = 1010, which the call deposits.
    expect(exactOut).toMatchObject({ estimated_amount: { amount_in: '1000' }, worst_case_amount: { amount_in: '1010' } });
    expect(decodedCalls(exactOut!)[0]![4]).toBe('1010');
    // No unstake route: LiNEAR has no liquid unstake.
    expect((await getRoute(app, { ...BASE, token_in: 'linear-protocol.near', token_out: 'near', amount_in: '1000' })).body).toBe('[]');
  });

  it('Auto slippage: the price impact, within [min, max]', async () => {
    const worst = async (min: string, max: string) => {
      const query = { ...BASE, slippage_type: 'Auto', min_slippage: min, max_slippage: max, token_in: 'alpha.near', token_out: 'beta.near', amount_in: '1000', dexes: 'AmmA' };
      delete (query as Record<string, string>).slippage;
      return (await getRoute(app, query)).json()[0]!.worst_case_amount;
    };
    // Marginal rate 2 000 000 / 1 000 000 = 2: ideal 2000, got 1992, impact 8/2000 = 0.004.
    expect(await worst('0.001', '0.5')).toEqual({ amount_out: '1984' }); // floor(1992·0.996) = floor(1984.03)
    expect(await worst('0', '0.001')).toEqual({ amount_out: '1990' }); // capped: floor(1992·0.999) = floor(1990.008)
    expect(await worst('0.01', '0.5')).toEqual({ amount_out: '1972' }); // floored: floor(1992·0.99)
  });

  it('Auto slippage adds the pools\' recent volatility (pool_history) to the price impact', async () => {
    const query = { ...BASE, slippage_type: 'Auto', min_slippage: '0', max_slippage: '0.5', token_in: 'zeta.near', token_out: 'eta.near', amount_in: '1000' };
    delete (query as Record<string, string>).slippage;
    const [quote] = (await getRoute(app, query)).json();
    // out = floor(1000·9970·1 100 000 / (10000·1 000 000 + 1000·9970)) = 1095; marginal rate 1.1: ideal 1100, impact
    // floor(5·10^6/1100) = 4545 ppm; the price went 1.0 -> 1.1 in the last two states: 100 000 ppm. Slippage
    // 104 545 ppm: worst floor(1095·895 455/10^6) = floor(980.5) = 980.
    expect([quote!.estimated_amount, quote!.worst_case_amount]).toEqual([{ amount_out: '1095' }, { amount_out: '980' }]);
  });

  it('the same request twice gives the same bytes, also from a second server over the same pools', async () => {
    const params = { ...BASE, token_in: 'alpha.near', token_out: 'beta.near', amount_in: '12345', trader_account_id: 'dave.near', referrer_id: 'ref.near' };
    const first = await getRoute(app, params);
    const second = await getRoute(app, params);
    expect(first.json().map((q) => q.dex_id)).toEqual(['AmmC', 'AmmA']);
    expect(second.body).toBe(first.body);
    // The router shares equal queries' answers for a moment: a server of its own routes this one afresh.
    const other = await buildServer({ db, logLevel: 'silent' });
    try {
      await other.ready();
      expect((await getRoute(other, params)).body).toBe(first.body);
    } finally {
      await other.close();
    }
  });

  it('a NOTIFY naming a pool refreshes it: the next answer uses the new reserves', async () => {
    const params = { ...BASE, token_in: 'alpha.near', token_out: 'beta.near', amount_in: '1000', dexes: 'AmmA' };
    const before = (await getRoute(app, params)).json()[0]!.estimated_amount;
    expect(before).toEqual({ amount_out: '1992' });
    await writer.write([{ dex: 'AmmA', contractId: REF, poolId: 1, state: simple(['alpha.near', 'beta.near'], [2_000_000n, 2_000_000n], 30) }]);
    // floor(1000·9970·2 000 000 / (10000·2 000 000 + 1000·9970)) = floor(19 940 000 000 000 / 20 009 970 000) = 996
    const after = await eventually(async () => {
      const amount = (await getRoute(app, params)).json()[0]!.estimated_amount;
      return amount.amount_out === before.amount_out ? undefined : amount;
    });
    expect(after).toEqual({ amount_out: '996' });
  });
});

describe('ranking', () => {
  const built = (dex: 'AmmA' | 'AmmC', amount: bigint, costYocto: bigint) => ({ dex, quote: { amount, costYocto, json: {} } as unknown as BuiltQuote });
  const parsed = parseRouteQuery({ token_in: 'near', token_out: 'usdt.tether-token.near', amount_in: '1', ...BASE }, 'mainnet');
  if (!parsed.ok) throw new Error(parsed.error);

  it('by value net of costs when prices are known, by amount otherwise', () => {
    const quotes = [built('AmmA', 1_000_000n, 10n ** 21n), built('AmmC', 996_000n, 0n)];
    const prices = (token: string) =>
      token === 'near' ? { decimals: 24, priceUsd: '5.000000000000000000' } : token === 'usdt.tether-token.near' ? { decimals: 6, priceUsd: '1.0' } : undefined;
    // AmmA's cost: 10^21 yocto = 0.001 NEAR = $0.005 = 5000 units of a 6-decimal $1 token: value 995 000 < 996 000.
    expect(rank(quotes, parsed.query, prices).map((q) => q.dex)).toEqual(['AmmC', 'AmmA']);
    // Without the output token's price: amounts alone.
    expect(rank(quotes, parsed.query, (t) => (t === 'near' ? prices(t) : undefined)).map((q) => q.dex)).toEqual(['AmmA', 'AmmC']);
    // Equal values: the DEX ids' order.
    expect(rank([built('AmmC', 5n, 0n), built('AmmA', 5n, 0n)], parsed.query, () => undefined).map((q) => q.dex)).toEqual(['AmmA', 'AmmC']);
  });
});

describe('the LISTEN connection', () => {
  it('re-reads every pool after a reconnect, so a notification lost meanwhile costs nothing', async () => {
    const db = await createMigratedDb();
    const writer = new BlockWriter(db);
    await writer.write([{ dex: 'AmmA', contractId: REF, poolId: 1, state: simple(['alpha.near', 'beta.near'], [1_000_000n, 2_000_000n], 30) }]);
    const app = await buildServer({ db, logLevel: 'silent' });
    await app.ready();
    try {
      const params = { ...BASE, token_in: 'alpha.near', token_out: 'beta.near', amount_in: '1000' };
      expect((await getRoute(app, params)).json()[0]!.estimated_amount).toEqual({ amount_out: '1992' });
      // A change no notification announces (as if it had been lost), then the listener's connection drops.
      await db.pool.query(`update pools set state = jsonb_set(state::jsonb, '{amounts}', '["2000000", "2000000"]')::json where dex = 'AmmA' and pool_id = '1'`);
      const { rows } = await db.pool.query(`select pg_terminate_backend(pid) as ok from pg_stat_activity where application_name = $1 and datname = current_database()`, [LISTENER_NAME]);
      expect(rows.map((r) => r.ok)).toEqual([true]);
      // floor(1000·9970·2 000 000 / (10000·2 000 000 + 1000·9970)) = 996, from the re-read row.
      const after = await eventually(async () => {
        const [quote] = (await getRoute(app, params)).json();
        return quote?.estimated_amount.amount_out === '1992' ? undefined : quote?.estimated_amount;
      });
      expect(after).toEqual({ amount_out: '996' });
    } finally {
      await app.close();
    }
  });
});
