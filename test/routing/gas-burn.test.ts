// Ranking on one basis: every DEX's `estimated_gas_usage` is what its calls are expected to burn, never the gas they
// attach, and ranking charges that. The expected burns are taken from outside the code under test:
//   - the contracts' own release wasm run in near/vm: Ref's exchange with near-sdk 4.1's token
//     (test/harness/ref-exchange.ts runs a whole swap transaction receipt by receipt) and wrap.near's w_near;
//   - the gas_burnt of comparable real receipts in the mainnet fixture blocks, chosen here by receiver and method, for
//     the contracts whose code is not public here (AmmC's engine, the DCL, aidols, intents, the stakes).
// Each DEX's calls are built by the real buildQuote over routes of the real DEX registry; the ranking by the real rank.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildQuote, GAS_PRICE_YOCTO, type BuiltQuote, type QuoteJson } from '../../api/routing/quote.ts';
import { parseRouteQuery } from '../../api/routing/params.ts';
import { rank } from '../../api/routing/route.ts';
import { MAINNET_CONTRACTS as C } from '../../dexes/contracts.ts';
import type { DexRoute, Hop, RoutingPool } from '../../dexes/dex.ts';
import { addLiquidity, newDclPoolState } from '../../dexes/amm-dcl-a/state.ts';
import { DEXES, dexOf } from '../../dexes/index.ts';
import type { ReceiptOutcome } from '../../near/block.ts';
import { Contract } from '../../near/vm/runtime.ts';
import { fixtureFiles, loadBlock } from '../harness/fixtures.ts';
import { RefExchange } from '../harness/ref-exchange.ts';

const TGAS = 10n ** 12n;
const Y = 10n ** 24n;
const USDT = 'usdt.tether-token.near';

// ---- the evidence: real receipts ----
const receipts: ReceiptOutcome[] = fixtureFiles('mainnet').flatMap((f) => loadBlock(f).shards.flatMap((s) => s.receiptOutcomes));
const method = (o: ReceiptOutcome): string | null => {
  if (o.receipt.kind !== 'Action' || o.receipt.actions.length !== 1) return null;
  const a = o.receipt.actions[0]!;
  return a.kind === 'FunctionCall' ? a.methodName : a.kind;
};
const argsOf = (o: ReceiptOutcome): Record<string, unknown> => {
  const a = o.receipt.kind === 'Action' ? o.receipt.actions[0] : undefined;
  return a?.kind === 'FunctionCall' ? (JSON.parse(Buffer.from(a.argsBase64, 'base64').toString()) as Record<string, unknown>) : {};
};
const succeeded = (o: ReceiptOutcome) => o.status.kind === 'SuccessValue' || o.status.kind === 'SuccessReceiptId';
/** The largest burn of the successful receipts that `pick` keeps (each weighted by `per`), in gas. */
function largest(what: string, pick: (o: ReceiptOutcome) => boolean, per: (o: ReceiptOutcome) => number = () => 1): bigint {
  const burns = receipts.filter((o) => succeeded(o) && pick(o)).map((o) => BigInt(o.gasBurnt) / BigInt(per(o)));
  if (burns.length === 0) throw new Error(`no real receipt of ${what}`);
  return burns.reduce((a, b) => (a > b ? a : b));
}
const swapActions = (o: ReceiptOutcome) => (JSON.parse(String(argsOf(o).msg)) as { actions: unknown[] }).actions.length;

const real = {
  /** NEP-145 registrations, on any contract. */
  storageDeposit: largest('storage_deposit', (o) => method(o) === 'storage_deposit'),
  /** A NEAR transfer to a named account (an implicit one that does not exist yet is created, and costs more). */
  transfer: largest('Transfer', (o) => method(o) === 'Transfer' && o.predecessorId !== 'system' && !/^([0-9a-f]{64}|0x[0-9a-f]{40})$/.test(o.receiverId)),
  /** Ref and its fork Jumbo running swap actions in `ft_on_transfer`, per action. */
  swapPerPool: largest('a swap', (o) => method(o) === 'ft_on_transfer' && ['v2.ref-finance.near', 'v1.jumbo_exchange.near'].includes(o.receiverId) && String(argsOf(o).msg).includes('"actions"'), swapActions),
  /** Ref crediting a deposit (`ft_on_transfer` with msg ""). */
  deposit: largest('a deposit', (o) => method(o) === 'ft_on_transfer' && o.receiverId === 'v2.ref-finance.near' && argsOf(o).msg === ''),
  /** Ref's callback after paying a token out. */
  payoutCallback: largest('a payout callback', (o) => method(o) === 'exchange_callback_post_withdraw'),
  /** Sweat's jars staking a token through `ft_on_transfer`. */
  stakeOnTransfer: largest('a token stake', (o) => method(o) === 'ft_on_transfer' && o.receiverId === 'jars.sweat'),
  /** Payable calls that record what was paid in as shares or a mint. */
  payableMint: largest('a payable mint', (o) => method(o) === 'add_liquidity' || method(o) === 'ft_mint'),
};

// ---- the evidence: the contracts' wasm in near/vm ----
const wasm = (name: string) => new Uint8Array(gunzipSync(readFileSync(new URL(`../../near/vm/wasm/${name}.wasm.gz`, import.meta.url))));
function ok<T extends { ok: boolean; error?: string }>(o: T): T {
  if (!o.ok) throw new Error(o.error);
  return o;
}
const wrap = new Contract(C.Wrap, wasm('w_near'), { balance: 1000n * Y });
ok(wrap.call('new', {}, { predecessorId: C.Wrap }));
ok(wrap.call('storage_deposit', { account_id: 'alice.near' }, { predecessorId: 'alice.near', attachedDeposit: Y / 800n }));
const wrapped = [
  ok(wrap.call('near_deposit', {}, { predecessorId: 'alice.near', attachedDeposit: Y })).burntGas,
  // An account wNEAR does not know yet: it is registered out of the deposit.
  ok(wrap.call('near_deposit', {}, { predecessorId: 'bob.near', attachedDeposit: Y })).burntGas,
];
// Ref's 3-action swap of one near-sdk token, receipt by receipt: the token side every ft_transfer_call DEX shares.
const ref = RefExchange.withPools([
  { id: 0, tokens: ['token.near', 'b.near'], amounts: [10n ** 24n, 10n ** 24n], fee: 30 },
  { id: 1, tokens: ['b.near', 'c.near'], amounts: [10n ** 24n, 10n ** 24n], fee: 30 },
  { id: 2, tokens: ['c.near', 'd.near'], amounts: [10n ** 24n, 10n ** 24n], fee: 30 },
]);
const refSwap = (actions: number) => {
  const hops = [['token.near', 'b.near'], ['b.near', 'c.near'], ['c.near', 'd.near']].slice(0, actions);
  const msg = JSON.stringify({ force: 0, actions: hops.map(([i, o], n) => ({ pool_id: n, token_in: i, token_out: o, ...(n === 0 ? { amount_in: '1000000' } : {}), min_amount_out: '0' })), referral_id: 'a-long-referrer-account.near', skip_unwrap_near: true });
  const tx = ref.swapTransaction('trader.near', 'token.near', 1_000_000n, msg, 300n * TGAS);
  for (const r of tx.receipts) ok(r.outcome);
  return tx;
};
const burntOf = (tx: ReturnType<typeof refSwap>, m: string) => tx.receipts.find((r) => r.method === m)!.outcome.burntGas;
const threeActions = refSwap(3);
const metered = {
  nearDeposit: wrapped.reduce((a, b) => (a > b ? a : b)),
  nearWithdraw: ok(wrap.call('near_withdraw', { amount: '1000' }, { predecessorId: 'alice.near', attachedDeposit: 1n })).burntGas,
  tokenCall: burntOf(threeActions, 'ft_transfer_call'),
  tokenTransfer: burntOf(threeActions, 'ft_transfer'),
  tokenResolve: burntOf(threeActions, 'ft_resolve_transfer'),
};

// ---- quotes of every DEX ----
const parsed = parseRouteQuery({ token_in: 'near', token_out: USDT, amount_in: '1', max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.01' }, 'mainnet');
if (!parsed.ok) throw new Error(parsed.error);
const query = parsed.query;
const hop = (dex: string, poolId: string, tokenIn: string, tokenOut: string): Hop => ({ dex, poolId, tokenIn, tokenOut, out: (a) => a, spot: { numerator: 1n, denominator: 1n } });
/** An exact-in route of `hops` moving 10^24 through each, as a DEX's router hands it to buildQuote. */
function route(dex: string, hops: Hop[], options: Partial<DexRoute> = {}): DexRoute {
  const amount = 10n ** 24n;
  return { dex, mode: 'exact_in', paths: [{ hops, amounts: hops.map(() => amount).concat(amount) }], amountIn: amount, amountOut: amount, wrapsInput: false, unwrapsOutput: false, ...options };
}
const quote = (r: DexRoute): BuiltQuote => buildQuote(r, query, { contracts: C, registrations: null });
/** What a quote says its calls burn: its gas usage less the transactions' own conversion (its maximum less the gas
 * its calls attach). */
function callsBurn(json: QuoteJson): bigint {
  const attached = json.execution_instructions.flatMap((i) => ('NearTransaction' in i ? i.NearTransaction.actions : [])).reduce((s, a) => s + BigInt(a.FunctionCall.gas), 0n);
  const conversion = BigInt(json.estimated_max_gas_cost) / GAS_PRICE_YOCTO - attached;
  return BigInt(json.estimated_gas_usage) - conversion;
}
const attachedOf = (json: QuoteJson) => BigInt(json.estimated_max_gas_cost) / GAS_PRICE_YOCTO - (BigInt(json.estimated_gas_usage) - callsBurn(json));

const swapAround = [metered.tokenCall, metered.tokenTransfer, real.payoutCallback, metered.tokenResolve];
/** Per case: the route, and the receipts its calls make, each by its evidence. */
const cases: [string, DexRoute, bigint[]][] = [
  ['AmmC, a token in, 1 pool', route('AmmC', [hop('AmmC', '7', 'alpha.near', USDT)]), [real.swapPerPool, ...swapAround]],
  ['AmmC, native NEAR in (deposit_near), 2 pools', route('AmmC', [hop('AmmC', '7', 'near', 'alpha.near'), hop('AmmC', '8', 'alpha.near', USDT)]), [real.swapPerPool, real.swapPerPool, metered.tokenTransfer, real.payoutCallback]],
  ['AmmDclA, wrapping first, 1 pool', route('AmmDclA', [hop('AmmDclA', `${USDT}|wrap.near|100`, C.Wrap, USDT)], { wrapsInput: true }), [metered.nearDeposit, real.swapPerPool, ...swapAround]],
  ['Launch, wrapping first', route('Launch', [hop('Launch', 'tganza.aidols.near', C.Wrap, 'tganza.aidols.near')], { wrapsInput: true }), [metered.nearDeposit, real.swapPerPool, ...swapAround]],
  ['QuoteA, the deposit into the verifier', route('QuoteA', [hop('QuoteA', 'rfq', USDT, 'alpha.near')]), [metered.tokenCall, real.deposit, metered.tokenResolve]],
  ['Wrap, near_deposit', route('Wrap', [hop('Wrap', 'wrap', 'near', C.Wrap)]), [metered.nearDeposit]],
  ['Wrap, near_withdraw', route('Wrap', [hop('Wrap', 'wrap', C.Wrap, 'near')]), [metered.nearWithdraw, real.transfer]],
  ['Wrap, into the AmmA inner balance', route('Wrap', [hop('Wrap', 'wrap', USDT, `inner-nep141:${USDT}`)]), [metered.tokenCall, real.deposit, metered.tokenResolve]],
  ['Wrap, out of the AmmA inner balance', route('Wrap', [hop('Wrap', 'wrap', `inner-nep141:${USDT}`, USDT)]), [real.deposit, metered.tokenTransfer, real.payoutCallback]],
  ['StakeA, deposit_and_stake', route('StakeA', [hop('StakeA', C.StakeA, 'near', C.StakeA)]), [real.payableMint]],
  ['StakeA, liquid_unstake', route('StakeA', [hop('StakeA', C.StakeA, C.StakeA, 'near')]), [real.swapPerPool, real.transfer]],
  ['StakeB, deposit_and_stake', route('StakeB', [hop('StakeB', C.StakeB, 'near', C.StakeB)]), [real.payableMint]],
  ['StakeC, RHEA staked by ft_transfer_call', route('StakeC', [hop('StakeC', C.StakeC, C.StakeCUnderlying, C.StakeC)]), [metered.tokenCall, real.stakeOnTransfer, metered.tokenResolve]],
  ['StakeD, deposit_and_stake', route('StakeD', [hop('StakeD', C.StakeD, 'near', C.StakeD)]), [real.payableMint]],
];
/** Each figure is its evidence rounded up to 0.1 TGas, or (the token's call) the most near/vm meters across token
 * builds and msg lengths: at most this far above what is measured here. */
const ROUNDING = 100_000_000_000n;
const TOKEN_CALL_MARGIN = 1n * TGAS;

describe('estimated_gas_usage is the expected burn, for every DEX alike', () => {
  it('the evidence is what it is: real receipts of every kind, and the wasm runs', () => {
    // So a filter that matched nothing cannot pass: the figures as read, gas.
    expect(real).toEqual({
      storageDeposit: 3_648_174_876_909n, // usdt.tether-token.near, 114158749
      transfer: 223_182_562_500n,
      swapPerPool: 8_034_817_656_292n, // Ref's two actions at 81206675, 16.07 TGas
      deposit: 3_285_227_503_420n, // Ref, 125229395
      payoutCallback: 3_006_964_774_031n, // Ref, 105089746
      stakeOnTransfer: 8_381_994_485_544n, // jars.sweat, 114081912
      payableMint: 10_463_959_103_840n, // Ref's add_liquidity, 55905793
    });
    expect(metered).toEqual({
      nearDeposit: 1_648_838_913_878n,
      nearWithdraw: 1_767_663_986_418n,
      tokenCall: 2_673_550_388_514n,
      tokenTransfer: 1_812_550_964_348n,
      tokenResolve: 1_371_681_565_219n,
    });
  });

  it.each(cases)('%s: its calls burn what their receipts do, not what they attach', (_, r, evidence) => {
    expect(dexOf(r.dex, DEXES)).toBeDefined();
    const built = quote(r);
    const burn = callsBurn(built.json);
    const expected = evidence.reduce((a, b) => a + b, 0n);
    const slack = BigInt(evidence.length) * ROUNDING + (evidence.includes(metered.tokenCall) ? TOKEN_CALL_MARGIN : 0n);
    expect(burn, `${burn} against ${expected}`).toBeGreaterThanOrEqual(expected);
    expect(burn - expected, `${burn} against ${expected}`).toBeLessThanOrEqual(slack);
    // Ranking charges exactly that (and the storage deposits), whatever the calls attach.
    expect(built.costYocto).toBe(BigInt(built.json.estimated_gas_usage) * GAS_PRICE_YOCTO + BigInt(built.json.storage_deposits));
  });

  it('AmmA: the quote burns at least what Ref\'s wasm burns for the whole swap, and no more than 2.5 TGas above it', () => {
    for (const actions of [1, 2, 3]) {
      const hops = [hop('AmmA', '0', 'token.near', 'b.near'), hop('AmmA', '1', 'b.near', 'c.near'), hop('AmmA', '2', 'c.near', 'd.near')].slice(0, actions);
      const burn = callsBurn(quote(route('AmmA', hops)).json);
      const tx = refSwap(actions);
      expect(burn).toBeGreaterThanOrEqual(tx.burnt);
      // The exchange's own budget is the envelope of routes over the real snapshot, whose trie is deeper than here.
      expect(burn - tx.burnt).toBeLessThanOrEqual(2_500_000_000_000n);
    }
  });
});

describe('ranking charges the burn, not the attached gas', () => {
  // NEAR -> USDt, as the issue had it: AmmC's engine takes native NEAR and attaches 280 TGas, the DCL wraps first and
  // attaches 5 + 100 TGas. AmmC gives a little more USDt.
  const ctx = { contracts: C, registrations: null };
  const pool = (dex: string, poolId: string, state: Record<string, unknown>): RoutingPool => ({ dex, poolId, state: state as RoutingPool['state'], updatedHeight: 1 });
  const ammC = dexOf('AmmC', DEXES)!.routing!.hops!(
    pool('AmmC', '7', {
      kind: 'xyk',
      poolType: 'public',
      tokens: ['near', USDT],
      amounts: [10n ** 30n, 5_004_900_000_000n],
      totalFee: 2000,
      feeReceivers: [{ kind: 'pool', accountId: null, fee: 2000 }],
      phantomLiquidity: null,
      totalShares: 10n ** 18n,
    }),
    ctx,
  ).find((h) => h.tokenIn === 'near')!;
  // Point 398 410: 1.0001^p ≈ 10^24 / 4.99·10^6 wNEAR units a USDt unit, about 4.99 USDt a NEAR; fee 0.01%.
  const dclId = `${USDT}|wrap.near|100`;
  const dclState = addLiquidity(newDclPoolState({ poolId: dclId, tokenX: USDT, tokenY: C.Wrap, fee: 100, pointDelta: 1, currentPoint: 398_410 }), 396_000, 401_000, 10n ** 24n);
  const dcl = dexOf('AmmDclA', DEXES)!.routing!.hops!(pool('AmmDclA', dclId, dclState as never), ctx).find((h) => h.tokenIn === C.Wrap)!;
  const amount = Y;
  const routeOf = (h: Hop, wrapsInput: boolean): DexRoute => {
    const out = h.out(amount)!;
    return { dex: h.dex, mode: 'exact_in', paths: [{ hops: [h], amounts: [amount, out] }], amountIn: amount, amountOut: out, wrapsInput, unwrapsOutput: false };
  };
  const built = [
    { dex: 'AmmDclA' as const, quote: quote(routeOf(dcl, true)) },
    { dex: 'AmmC' as const, quote: quote(routeOf(ammC, false)) },
  ];
  // $5 a NEAR, $1 a USDt (6 decimals).
  const prices = (t: string) => (t === 'near' || t === C.Wrap ? { decimals: 24, priceUsd: '5' } : t === USDT ? { decimals: 6, priceUsd: '1' } : undefined);
  /** USDt units of `gas` at 10^8 yocto a gas and $5 a NEAR. */
  const usdtOf = (gas: bigint) => (gas * GAS_PRICE_YOCTO * 5n * 10n ** 6n) / 10n ** 24n;

  it('AmmC, whose attached gas is large but burn small, ranks above the DCL it out-trades', () => {
    const [dclQuote, ammCQuote] = built.map((b) => b.quote);
    // The case is the issue's: AmmC's edge in USDt is smaller than its extra attached gas, larger than its extra burn.
    const edge = ammCQuote!.amount - dclQuote!.amount;
    expect(edge).toBeGreaterThan(0n);
    expect(usdtOf(attachedOf(ammCQuote!.json) - attachedOf(dclQuote!.json))).toBeGreaterThan(edge);
    expect(rank(built, query, prices).map((b) => b.dex)).toEqual(['AmmC', 'AmmDclA']);
    // Their burns from the evidence alone, and what each quote says its calls burn.
    const ammCBurn = real.swapPerPool + metered.tokenTransfer + real.payoutCallback;
    const dclBurn = metered.nearDeposit + real.swapPerPool + swapAround.reduce((a, b) => a + b, 0n);
    expect(callsBurn(ammCQuote!.json) - ammCBurn).toBeLessThanOrEqual(3n * ROUNDING);
    expect(callsBurn(dclQuote!.json) - dclBurn).toBeLessThanOrEqual(6n * ROUNDING + TOKEN_CALL_MARGIN);
    expect(attachedOf(ammCQuote!.json)).toBeGreaterThan(10n * callsBurn(ammCQuote!.json));
  });
});
