// The models of the DEXes whose code is not public (the ones the realnet hosts) against the decoders, without a
// database, each on a bare world of the models' own chain and tokens: a block the model built decodes (through
// normalizeStreamerMessage and the DEX's own decoder) to exactly the hops the model recorded, and a failed swap's
// receipt keeps its logs, has status Failure and decodes to nothing. Hand-sized trades check the amounts against
// arithmetic written out in the comments. Their seeded runs are the realnet's: test/harness/judge.ts
// holds every hop of every hosted model to what the model executed, and test/dexes/amm-dcl-a-devnet.test.ts follows
// AmmDclA's book block by block.
import { describe, expect, it } from 'vitest';
import type { AmmCPoolStateEvent } from '../dexes/amm-c/events.ts';
import { decodeAmmC } from '../dexes/amm-c/decode.ts';
import { decodeAmmDclA } from '../dexes/amm-dcl-a/decode.ts';
import { newDclPoolBook, type DclPoolState } from '../dexes/amm-dcl-a/state.ts';
import { MAINNET_CONTRACTS } from '../dexes/contracts.ts';
import type { LiquidityEvent, SwapEvent } from '../dexes/events.ts';
import type { DecodedDexEvent } from '../dexes/index.ts';
import { decodeLaunch } from '../dexes/launch/decode.ts';
import type { LaunchPoolStateEvent } from '../dexes/launch/events.ts';
import { normalizeStreamerMessage, type Block } from '../near/block.ts';
import { AmmCDevnet } from '../devnet/amm-c.ts';
import { AmmDclADevnet } from '../devnet/amm-dcl-a.ts';
import { Chain } from '../devnet/chain.ts';
import { LaunchDevnet, UNREGISTERED_REFERRER } from '../devnet/launch.ts';
import { Rng } from '../devnet/rng.ts';
import { Tokens, type TokenSpec } from '../devnet/tokens.ts';
import type { TruthTrade, World } from '../devnet/world.ts';
import type { PoolStateEvent } from '../dexes/events.ts';
import { decodeStakeA } from '../dexes/stake-a/decode.ts';
import { decodeStakeB } from '../dexes/stake-b/decode.ts';
import { decodeStakeC } from '../dexes/stake-c/decode.ts';
import { decodeStakeD } from '../dexes/stake-d/decode.ts';
import { StakeADevnet } from '../devnet/stake-a.ts';
import { StakeBDevnet } from '../devnet/stake-b.ts';
import { StakeCDevnet } from '../devnet/stake-c.ts';
import { StakeDDevnet } from '../devnet/stake-d.ts';

const C = MAINNET_CONTRACTS;
const NEAR = 10n ** 24n;
const TREASURY = 'treasury.near';
const ALICE = 'alice.near';
const BOB = 'bob.near';

/** A bare world: no tokens, no pools, trades recorded. */
function bareWorld(): World<Chain, Tokens> {
  const rng = new Rng('devnet-dexes');
  const chain = new Chain({ seed: 'devnet-dexes', genesisHeight: 1, genesisMs: Date.UTC(2026, 0, 1), blockMs: 1_000, rng });
  return { chain, tokens: new Tokens(chain), rng, contracts: C, treasury: TREASURY, wallets: [ALICE, BOB], trades: [] };
}

/** Seals the block being built: its normalized form and the hops recorded in it. */
function seal(world: World<Chain, Tokens>): { block: Block; hops: TruthTrade[] } {
  const height = world.chain.height;
  const block = normalizeStreamerMessage(world.chain.seal());
  return { block, hops: (world.trades ?? []).filter((t) => t.height === height) };
}

const swapsOf = (events: readonly DecodedDexEvent[]) => events.filter((e): e is SwapEvent => e.kind === 'swap');
const outcomesOf = (block: Block, executor: string) => block.shards.flatMap((s) => s.receiptOutcomes).filter((o) => o.executorId === executor);
const asHop = (e: SwapEvent) => ({ receiptId: e.receiptId, poolId: e.poolId === null ? null : String(e.poolId), trader: e.trader, tokenIn: e.tokenIn, tokenOut: e.tokenOut, amountIn: e.amountIn, amountOut: e.amountOut });
const truthHop = (t: TruthTrade) => ({ receiptId: t.receiptId, poolId: t.poolId, trader: t.trader, tokenIn: t.tokenIn, tokenOut: t.tokenOut, amountIn: t.amountIn, amountOut: t.amountOut });

describe('AmmC (Intear engine, xyk DEX) model', () => {
  const ALPHA: TokenSpec = { contractId: 'alpha.tkn.near', symbol: 'ALPHA', name: 'Alpha', decimals: 0 };
  const BETA: TokenSpec = { contractId: 'beta.tkn.near', symbol: 'BETA', name: 'Beta', decimals: 0 };

  /** Genesis: ALPHA/BETA public pool 0 with 1,000,000 / 2,000,000 units, pool fee 2000 millionths; alice holds
   * 100,000 ALPHA and is registered with the engine. */
  function setUp() {
    const world = bareWorld();
    for (const spec of [ALPHA, BETA]) {
      world.tokens.deploy(spec, TREASURY, 10_000_000n);
      world.tokens.register(ALICE, spec.contractId);
    }
    world.tokens.send(TREASURY, ALPHA.contractId, ALICE, 100_000n);
    const amm = new AmmCDevnet([{ type: 'public', tokens: [ALPHA.contractId, BETA.contractId], liquidity: [1_000_000n, 2_000_000n], poolFee: 2_000 }]);
    amm.genesis(world);
    amm.register(world, ALICE);
    seal(world);
    return { world, amm, pool: amm.pools[0]! };
  }

  it('a swap block decodes to exactly the hop the model recorded, at the contract\'s amounts', () => {
    const { world, amm, pool } = setUp();
    // Fees on 10,000 ALPHA: pool floor(10,000·2,000/10^6) = 20, protocol (neither asset is "stable": 1,000
    // millionths) floor(10,000·1,000/10^6) = 10; a' = 10,000 − 30 = 9,970.
    // out = floor(9,970·2,000,000 / (1,000,000 + 9,970)) = floor(19,940,000,000 / 1,009,970) = 19,743
    // (1,009,970·19,743 = 19,939,837,710; remainder 162,290). Reserves after: ALPHA 1,000,000 + 9,970 + 20 (the
    // pool's fee stays) = 1,009,990; BETA 2,000,000 − 19,743 = 1,980,257.
    amm.swap(world, ALICE, [{ pool, tokenIn: ALPHA.contractId, tokenOut: BETA.contractId }], 10_000n, 19_743n);
    const { block, hops } = seal(world);

    expect(hops.map(truthHop)).toEqual([
      { receiptId: hops[0]?.receiptId, poolId: '0', trader: ALICE, tokenIn: ALPHA.contractId, tokenOut: BETA.contractId, amountIn: 10_000n, amountOut: 19_743n },
    ]);
    const engineReceipt = outcomesOf(block, C.AmmC).find((o) => o.receiptId === hops[0]!.receiptId);
    expect(engineReceipt?.status.kind).toBe('SuccessValue');

    const events = decodeAmmC(block, C);
    expect(swapsOf(events).map(asHop)).toEqual(hops.map(truthHop));
    // totalFee 20 + 10 = 30; adminFee: what leaves the pool, the protocol's 10.
    expect(swapsOf(events).map((e) => [e.totalFee, e.adminFee])).toEqual([[30n, 10n]]);
    const states = events.filter((e): e is AmmCPoolStateEvent => e.kind === 'pool_state');
    expect(states.map((e) => [e.poolId, e.state.amounts, e.state.totalFee, e.state.totalShares])).toEqual([[0, [1_009_990n, 1_980_257n], 3_000, 10n ** 18n]]);
    expect(amm.reserves()).toEqual(new Map([['0', [1_009_990n, 1_980_257n]]]));
    // The output reached alice's wallet; 100,000 − 10,000 ALPHA are left.
    expect([world.tokens.balance(BETA.contractId, ALICE), world.tokens.balance(ALPHA.contractId, ALICE)]).toEqual([19_743n, 90_000n]);
  });

  it('a swap whose output misses its minimum fails: its receipt keeps the swap logs, has status Failure and decodes to nothing', () => {
    const { world, amm, pool } = setUp();
    // The same swap asking for one unit more than its 19,743.
    amm.swap(world, ALICE, [{ pool, tokenIn: ALPHA.contractId, tokenOut: BETA.contractId }], 10_000n, 19_744n);
    const { block, hops } = seal(world);

    expect(hops).toEqual([]);
    const engine = outcomesOf(block, C.AmmC);
    expect(engine.map((o) => o.status.kind)).toEqual(['Failure']);
    expect(engine[0]!.logs.filter((l) => l.includes('"event":"swap"'))).toHaveLength(2); // the xyk swap and the engine's
    expect(decodeAmmC(block, C)).toEqual([]);
    // Nothing moved: the pool is as it was, ft_resolve_transfer gave alice her 10,000 ALPHA back.
    expect(amm.reserves()).toEqual(new Map([['0', [1_000_000n, 2_000_000n]]]));
    expect([world.tokens.balance(ALPHA.contractId, ALICE), world.tokens.balance(BETA.contractId, ALICE)]).toEqual([100_000n, 0n]);
  });
});

describe('Launch (Aidols) model', () => {
  const TGANZA: TokenSpec = { contractId: 'tganza.aidols.near', symbol: 'TGANZA', name: 'Tganza', decimals: 24 };

  /** Genesis: wNEAR (here a plain NEP-141 token); alice with 100 wNEAR, bob registered with wrap.near; aidols.near
   * launches TGANZA. */
  function setUp() {
    const world = bareWorld();
    world.tokens.deploy({ contractId: C.Wrap, symbol: 'wNEAR', name: 'Wrapped NEAR fungible token', decimals: 24 }, TREASURY, 1_000n * NEAR);
    world.tokens.register(ALICE, C.Wrap);
    world.tokens.register(BOB, C.Wrap);
    world.tokens.send(TREASURY, C.Wrap, ALICE, 100n * NEAR);
    world.tokens.register(C.Launch, C.Wrap);
    const launch = new LaunchDevnet([TGANZA]);
    launch.launch(world, TGANZA);
    world.tokens.register(ALICE, TGANZA.contractId);
    seal(world);
    return { world, launch };
  }

  // A buy of 10 wNEAR on the fresh curve [T, W] = [10^33, 5·10^26]:
  // fee = max(10^22, floor(10^25·10,000/10^6)) = 10^23; net = 10^25 − 10^23 = 9.9·10^24;
  // out = floor(10^33·9.9·10^24 / (5·10^26 + 9.9·10^24)) = floor(9.9·10^57 / 5.099·10^26)
  //     = 19,415,571,680,721,710,139,242,988,821,337 (the tganza example of dexes/launch/README.md);
  // holds after: 10^33 − out = 980,584,428,319,278,289,860,757,011,178,663 and 5·10^26 + 9.9·10^24 = 5.099·10^26.
  const OUT = 19_415_571_680_721_710_139_242_988_821_337n;
  const HOLDS = [980_584_428_319_278_289_860_757_011_178_663n, 509_900_000_000_000_000_000_000_000n];

  it('a buy block decodes to exactly the hop the model recorded; the referrer gets 1% of the fee in wNEAR', () => {
    const { world, launch } = setUp();
    launch.buy(world, ALICE, TGANZA.contractId, 10n * NEAR, OUT, BOB);
    const { block, hops } = seal(world);

    expect(hops.map(truthHop)).toEqual([
      { receiptId: hops[0]?.receiptId, poolId: TGANZA.contractId, trader: ALICE, tokenIn: C.Wrap, tokenOut: TGANZA.contractId, amountIn: 10n * NEAR, amountOut: OUT },
    ]);
    const events = decodeLaunch(block, C);
    expect(swapsOf(events).map(asHop)).toEqual(hops.map(truthHop));
    expect(swapsOf(events).map((e) => e.totalFee)).toEqual([10n ** 23n]);
    const states = events.filter((e): e is LaunchPoolStateEvent => e.kind === 'pool_state');
    expect(states.map((e) => [e.poolId, e.state.amounts])).toEqual([[TGANZA.contractId, HOLDS]]);
    expect(launch.reserves()).toEqual(new Map([[TGANZA.contractId, HOLDS]]));
    // bob: floor(10^23 / 100) = 10^21 wNEAR; aidols.near keeps 10^25 − 10^21; alice got her tokens.
    expect(world.tokens.balance(C.Wrap, BOB)).toBe(10n ** 21n);
    expect(world.tokens.balance(C.Wrap, C.Launch)).toBe(10n ** 25n - 10n ** 21n);
    expect(world.tokens.balance(TGANZA.contractId, ALICE)).toBe(OUT);
  });

  it('a referrer without a wrap.near storage deposit loses its share: that ft_transfer fails, the trade stands', () => {
    const { world, launch } = setUp();
    launch.buy(world, ALICE, TGANZA.contractId, 10n * NEAR, OUT, UNREGISTERED_REFERRER);
    const { block, hops } = seal(world);

    expect(hops.map((h) => h.amountOut)).toEqual([OUT]);
    const feeTransfer = outcomesOf(block, C.Wrap).filter((o) => o.predecessorId === C.Launch);
    expect(feeTransfer.map((o) => o.status.kind)).toEqual(['Failure']);
    expect(world.tokens.balance(C.Wrap, C.Launch)).toBe(10n ** 25n);
    expect(swapsOf(decodeLaunch(block, C)).map(asHop)).toEqual(hops.map(truthHop));
  });

  it('a buy whose output misses min_swap_amount fails: status Failure, decodes to nothing, the wNEAR is refunded', () => {
    const { world, launch } = setUp();
    launch.buy(world, ALICE, TGANZA.contractId, 10n * NEAR, OUT + 1n, null);
    const { block, hops } = seal(world);

    expect(hops).toEqual([]);
    expect(outcomesOf(block, C.Launch).map((o) => o.status.kind)).toEqual(['Failure']);
    expect(decodeLaunch(block, C)).toEqual([]);
    expect(world.tokens.balance(C.Wrap, ALICE)).toBe(100n * NEAR);
    expect(launch.curve(TGANZA.contractId).state.amounts).toEqual([10n ** 33n, 5n * 10n ** 26n]);
    expect(launch.reserves()).toEqual(new Map([[TGANZA.contractId, [10n ** 33n, 5n * 10n ** 26n]]])); // as launched
  });
});

describe('AmmDclA', () => {
  const ALPHA: TokenSpec = { contractId: 'alpha.tkn.near', symbol: 'ALPHA', name: 'Alpha', decimals: 0 };
  const BETA: TokenSpec = { contractId: 'beta.tkn.near', symbol: 'BETA', name: 'Beta', decimals: 0 };
  // 'alpha.tkn.near' < 'beta.tkn.near': ALPHA is token X.
  const POOL = 'alpha.tkn.near|beta.tkn.near|2000';
  const BUDGET = 10n ** 21n;
  /** The pool state without the decoder's record of its last re-simulation (the model does not keep one). */
  const core = ({ lastSwapCheck: _check, ...rest }: DclPoolState) => rest;

  /** Genesis: pool ALPHA|BETA (fee tier 2000) created at point 0 (price 1); the treasury's position over
   * [-1000, 1000) taking at most 10^21 of each token; alice holds 10^7 ALPHA and made her storage deposit.
   * The book is fresh and fed the genesis block. */
  function setUp() {
    const world = bareWorld();
    for (const spec of [ALPHA, BETA]) {
      world.tokens.deploy(spec, TREASURY, 10n ** 22n);
      world.tokens.register(ALICE, spec.contractId);
      world.tokens.register(TREASURY, spec.contractId, C.AmmDclA);
    }
    world.tokens.send(TREASURY, ALPHA.contractId, ALICE, 10_000_000n);
    const dcl = new AmmDclADevnet();
    dcl.storageDeposit(world, TREASURY);
    dcl.storageDeposit(world, ALICE);
    const poolId = dcl.createPool(world, TREASURY, [ALPHA.contractId, BETA.contractId], 2_000, 0);
    const lptId = dcl.addPosition(world, TREASURY, poolId, -1_000, 1_000, [BUDGET, BUDGET]);
    const genesis = seal(world);
    const book = newDclPoolBook();
    const genesisEvents = decodeAmmDclA(genesis.block, C, book);
    return { world, dcl, poolId, lptId, book, genesisEvents };
  }

  it('the genesis block gives the book the pool and the position the model made', () => {
    const { dcl, poolId, lptId, book, genesisEvents } = setUp();
    expect(poolId).toBe(POOL);
    expect(lptId).toBe(`${POOL}#1`);
    const added = genesisEvents.filter((e): e is LiquidityEvent => e.kind === 'liquidity');
    expect(added.map((e) => [e.poolId, e.provider, e.action, e.tokens])).toEqual([[POOL, TREASURY, 'add', [ALPHA.contractId, BETA.contractId]]]);
    // At point 0 a position over [-1000, 1000) costs, per unit of liquidity, sum_{i=-1000..0} 1.0001^(i/2) =
    // 976.3883351... of Y (the current point, sqrt price 1, takes Y only) and sum_{i=1..999} 1.0001^(-i/2) =
    // 974.4371033... of X (python3 decimal, 60 digits). Y binds: L = 10^21 / 976.3883351... =
    // 1,024,182,657,694,725,008.6, paying about L·974.4371033 = 998,001,582,226,820,325,655 X. The contract's
    // integers (a table of sqrt prices good to 1e-17, deposits rounded up) move these by far less than 1e-12.
    const [event] = added;
    const L = event!.shares ?? -1n;
    expect(Math.abs(Number(L - 1_024_182_657_694_725_008n))).toBeLessThan(1e6);
    const [paidX, paidY] = event!.amounts as [bigint, bigint];
    expect(Math.abs(Number(paidX - 998_001_582_226_820_325_655n))).toBeLessThan(1e9);
    // The most liquidity the budget affords: one more unit of L would cost about 976.4 more Y (up to 978 with the rounding).
    expect(paidY <= BUDGET && paidY > BUDGET - 978n).toBe(true);
    // The state the book rebuilt from create_pool and liquidity_added is the model's.
    const state = book.pools.get(POOL);
    expect(state && core(state)).toEqual(core(dcl.pool(POOL)));
    expect([state?.currentPoint, state?.liquidity, state?.liquidityX]).toEqual([0, L, 0n]);
  });

  it("a swap block decodes to exactly the hop the model recorded, and the book's state after it is the model's", () => {
    const { world, dcl, book } = setUp();
    const before = dcl.reserves().get(POOL)!;
    const L = dcl.pool(POOL).liquidity;
    dcl.swap(world, ALICE, [POOL], ALPHA.contractId, 1_000_000n, 997_000n);
    const { block, hops } = seal(world);

    // 10^6 ALPHA (X) in at point 0, fee 2000 millionths: amountNoFee = floor(10^6·998,000/10^6) = 998,000. At sqrt
    // price exactly 2^96 the point trades 1:1 and all its liquidity L (about 10^18 > 998,000) is Y, so 998,000 X
    // buy 998,000 Y and the price stays at point 0; the step used the whole amountNoFee, so the fee is
    // 10^6 − 998,000 = 2,000, the protocol's 20% of it 400.
    expect(hops.map(truthHop)).toEqual([
      { receiptId: hops[0]?.receiptId, poolId: POOL, trader: ALICE, tokenIn: ALPHA.contractId, tokenOut: BETA.contractId, amountIn: 1_000_000n, amountOut: 998_000n },
    ]);
    expect(outcomesOf(block, C.AmmDclA).find((o) => o.receiptId === hops[0]!.receiptId)?.status.kind).toBe('SuccessValue');
    const decoded = decodeAmmDclA(block, C, book);
    expect(swapsOf(decoded).map(asHop)).toEqual(hops.map(truthHop));
    expect(swapsOf(decoded).map((e) => [e.totalFee, e.adminFee])).toEqual([[2_000n, 400n]]);
    const state = book.pools.get(POOL)!;
    expect(core(state)).toEqual(core(dcl.pool(POOL)));
    expect(state.lastSwapCheck?.matched).toBe(true);
    // Point 0 now holds 998,000 of its liquidity as X; every other point is as it was. At sqrt price 2^96 the point
    // holds liquidityX·2^96/2^96 = 998,000 X (was 0) and (L − 998,000)·2^96/2^96 Y (was L): reserves move by
    // +998,000 X and −998,000 Y exactly.
    expect([state.currentPoint, state.liquidity, state.liquidityX]).toEqual([0, L, 998_000n]);
    expect(dcl.reserves()).toEqual(new Map([[POOL, [before[0]! + 998_000n, before[1]! - 998_000n]]]));
    expect([world.tokens.balance(ALPHA.contractId, ALICE), world.tokens.balance(BETA.contractId, ALICE)]).toEqual([9_000_000n, 998_000n]);
  });

  it('a swap asking one unit more than the pool gives fails: its receipt keeps the swap log, has status Failure and decodes to nothing', () => {
    const { world, dcl, book } = setUp();
    const stateBefore = dcl.pool(POOL);
    dcl.swap(world, ALICE, [POOL], ALPHA.contractId, 1_000_000n, 998_001n);
    const { block, hops } = seal(world);

    expect(hops).toEqual([]);
    const contract = outcomesOf(block, C.AmmDclA);
    expect(contract.map((o) => o.status.kind)).toEqual(['Failure']);
    expect(contract[0]!.logs.filter((l) => l.includes('"event":"swap"'))).toHaveLength(1);
    expect(decodeAmmDclA(block, C, book)).toEqual([]);
    expect(dcl.pool(POOL)).toBe(stateBefore);
    expect(core(book.pools.get(POOL)!)).toEqual(core(stateBefore));
    // ft_resolve_transfer gave alice her ALPHA back.
    expect([world.tokens.balance(ALPHA.contractId, ALICE), world.tokens.balance(BETA.contractId, ALICE)]).toEqual([10_000_000n, 0n]);
  });

  it('removing half a position logs liquidity_removed with the refunds, withdrawn to the owner; the book follows', () => {
    const { world, dcl, lptId, book, genesisEvents } = setUp();
    const added = genesisEvents.find((e): e is LiquidityEvent => e.kind === 'liquidity')!;
    const [paidX, paidY] = added.amounts as [bigint, bigint];
    const L = added.shares ?? -1n;
    const half = L / 2n;
    const treasuryBefore = [ALPHA, BETA].map((t) => world.tokens.balance(t.contractId, TREASURY));
    dcl.removePosition(world, TREASURY, lptId!, half);
    const { block } = seal(world);

    const removed = decodeAmmDclA(block, C, book).filter((e): e is LiquidityEvent => e.kind === 'liquidity');
    expect(removed.map((e) => [e.action, e.provider, e.shares])).toEqual([['remove', TREASURY, half]]);
    const [refundX, refundY] = removed[0]!.amounts as [bigint, bigint];
    // Nothing moved since the deposit (point 0, sqrt price 2^96, no X at the point), so refund and deposit are
    // the same rationals a, b per unit of liquidity, rounded the other way: the deposit is ceil(L·a) + L of Y and
    // ceil(L·b) of X, the refund of h = L/2 (floored) is floor(h·a) + h and floor(h·b). Hence
    // paid·h/L − refund lies in [0, 2): 0 <= paid·h − refund·L < 2L.
    for (const [paid, refund] of [[paidX, refundX], [paidY, refundY]] as const) {
      const gap = paid * half - refund * L;
      expect(gap >= 0n && gap < 2n * L, `${paid} ${refund}`).toBe(true);
    }
    expect([ALPHA, BETA].map((t, i) => world.tokens.balance(t.contractId, TREASURY) - treasuryBefore[i]!)).toEqual([refundX, refundY]);
    expect(dcl.positions.get(lptId!)?.liquidity).toBe(L - half);
    expect(core(book.pools.get(POOL)!)).toEqual(core(dcl.pool(POOL)));
    expect(book.positions.get(lptId!)?.liquidity).toBe(L - half);
  });
});

// ---- StakeA..StakeD ----
// Each world below is a bare one with the model's genesis: the amounts after it are the models' genesis constants
// (stake-a.ts, stake-b.ts, stake-d.ts, stake-c.ts), so every figure here is worked out by hand.

const stateOf = (events: readonly DecodedDexEvent[]) => events.filter((e): e is PoolStateEvent => e.kind === 'pool_state').map((e) => [e.poolId, e.state.amounts, e.source]);

describe('StakeA (Meta Pool) model', () => {
  /** Genesis: NSLP liquidity 15,000 NEAR (the treasury is new: 0.00125 NEAR kept), the treasury stakes 100,000
   * NEAR at 1:1, then 25 % rewards: N = 125,000 NEAR, S = 100,000 stNEAR; the NSLP has 14,999.99875 NEAR. */
  function setUp() {
    const world = bareWorld();
    const model = new StakeADevnet();
    model.genesis(world);
    const genesis = seal(world);
    return { world, model, genesis };
  }

  it('genesis writes the rate the decoder reads from STATE: [125,000 NEAR, 100,000 stNEAR]', () => {
    const { model, genesis } = setUp();
    expect(stateOf(decodeStakeA(genesis.block, C))).toEqual([[C.StakeA, [125_000n * NEAR, 100_000n * NEAR], 'storage']]);
    expect(model.reserves()).toEqual(new Map([[C.StakeA, [125_000n * NEAR, 100_000n * NEAR]]]));
  });

  it('a stake, a liquid unstake and a stake that clears the NSLP decode to exactly the hops recorded, at the contract\'s amounts', () => {
    const { world, model } = setUp();
    // alice (new account) deposits 10 NEAR: 0.00125 NEAR is kept for storage, a = 9.99875 NEAR;
    // shares = floor(a·S/N) = floor(9.99875·100,000/125,000) NEAR = 7.999 stNEAR. N = 125,009.99875, S = 100,007.999.
    model.stake(world, ALICE, 10n * NEAR);
    const first = seal(world);
    const staked = 9_998_750n * 10n ** 18n;
    expect(first.hops.map(truthHop)).toEqual([
      { receiptId: first.hops[0]!.receiptId, poolId: C.StakeA, trader: ALICE, tokenIn: 'near', tokenOut: C.StakeA, amountIn: staked, amountOut: 7_999n * 10n ** 21n },
    ]);
    const firstEvents = decodeStakeA(first.block, C);
    expect(swapsOf(firstEvents).map(asHop)).toEqual(first.hops.map(truthHop));
    expect(stateOf(firstEvents)).toEqual([[C.StakeA, [125_009_998_750n * 10n ** 18n, 100_007_999n * 10n ** 21n], 'storage']]);

    // alice liquid-unstakes 4 stNEAR: nears = floor(4·N/S) = 5 NEAR (N/S is 1.25 exactly); the NSLP keeps
    // 14,999.99875 − 5 >= the 10,000 NEAR target, so the fee is the minimum 25 bps: floor(5·25/10,000) = 0.0125 NEAR;
    // out = 4.9875 NEAR. Fee in stNEAR floor(0.0125·S/N) = 0.01; cuts 25 % + 3 % + 2 % = 0.003 stNEAR (admin fee).
    model.liquidUnstake(world, ALICE, 4n * NEAR, 4n * NEAR);
    const second = seal(world);
    expect(second.hops.map(truthHop)).toEqual([
      { receiptId: second.hops[0]!.receiptId, poolId: C.StakeA, trader: ALICE, tokenIn: C.StakeA, tokenOut: 'near', amountIn: 4n * NEAR, amountOut: 49_875n * 10n ** 20n },
    ]);
    const unstakeSwaps = swapsOf(decodeStakeA(second.block, C));
    expect(unstakeSwaps.map(asHop)).toEqual(second.hops.map(truthHop));
    expect(unstakeSwaps.map((e) => [e.totalFee, e.adminFee])).toEqual([[10n ** 22n, 3n * 10n ** 21n]]);
    // Like mainnet, no NEP-141 event moves alice's stNEAR: the contract's ledger alone shows 7.999 − 4.
    expect(second.block.shards[0]!.receiptOutcomes.flatMap((o) => o.logs).some((l) => l.includes('"nep141"'))).toBe(false);
    expect(model.stNearOf(ALICE)).toBe(3_999n * 10n ** 21n);

    // bob (new) stakes 10 NEAR: 7.999 stNEAR minted as alice's were; then the NSLP, holding 4 − 0.003 = 3.997
    // stNEAR worth floor(3.997·1.25) = 4.99625 NEAR <= 9.99875, sells all of it at par and burns it:
    // N = 125,009.99875 + 9.99875 − 4.99625 = 125,015.00125, S = 100,007.999 + 7.999 − 3.997 = 100,012.001.
    model.stake(world, BOB, 10n * NEAR);
    const third = seal(world);
    const thirdEvents = decodeStakeA(third.block, C);
    expect(swapsOf(thirdEvents).map(asHop)).toEqual(third.hops.map(truthHop));
    expect(third.hops.map((h) => [h.trader, h.amountIn, h.amountOut])).toEqual([[BOB, staked, 7_999n * 10n ** 21n]]);
    expect(outcomesOf(third.block, C.StakeA)[0]!.logs).toContain(`NSLP clearing ${3_997n * 10n ** 21n} ${4_996_250n * 10n ** 18n}`);
    expect(stateOf(thirdEvents)).toEqual([[C.StakeA, [125_015_001_250n * 10n ** 18n, 100_012_001n * 10n ** 21n], 'storage']]);
    expect(model.reserves()).toEqual(new Map([[C.StakeA, [125_015_001_250n * 10n ** 18n, 100_012_001n * 10n ** 21n]]]));
  });

  it('the liquid-unstake pool\'s NEAR folded from the blocks\' nslp events is the model\'s, block by block', () => {
    const { world, model, genesis } = setUp();
    // The latest figure, moved by the deltas after it (what the router reads).
    let nslp: bigint | null = null;
    const fold = (block: Block) => {
      for (const e of decodeStakeA(block, C)) if (e.kind === 'nslp') nslp = e.available ?? (nslp === null ? null : nslp + e.delta);
      return nslp;
    };
    // Genesis: `new` (an empty pool), then 15,000 NEAR added by a new account (0.00125 NEAR kept for storage).
    expect(fold(genesis.block)).toBe(14_999_998_750n * 10n ** 18n);
    model.stake(world, ALICE, 10n * NEAR); // the pool holds no stNEAR yet: no clearing, no move
    expect(fold(seal(world).block)).toBe(14_999_998_750n * 10n ** 18n);
    model.liquidUnstake(world, ALICE, 4n * NEAR, 4n * NEAR); // pays 4.9875 NEAR (above)
    expect(fold(seal(world).block)).toBe(14_995_011_250n * 10n ** 18n);
    model.stake(world, BOB, 10n * NEAR); // clears the pool's 3.997 stNEAR for 4.99625 NEAR (above)
    expect(fold(seal(world).block)).toBe(15_000_007_500n * 10n ** 18n);
    expect(model.nslpAvailable()).toBe(15_000_007_500n * 10n ** 18n);
  });

  it('failed actions decode to nothing: a liquid unstake below its minimum (logs kept), a deposit below 1 NEAR', () => {
    const { world, model } = setUp();
    model.stake(world, ALICE, 10n * NEAR);
    seal(world);
    // 4 stNEAR pay 4.9875 NEAR (above); asking one yocto more fails after the first two log lines.
    model.liquidUnstake(world, ALICE, 4n * NEAR, 49_875n * 10n ** 20n + 1n);
    model.stake(world, BOB, NEAR - 1n);
    const { block, hops } = seal(world);
    expect(hops).toEqual([]);
    const outcomes = outcomesOf(block, C.StakeA);
    expect(outcomes.map((o) => o.status.kind)).toEqual(['Failure', 'Failure']);
    expect(outcomes[0]!.logs.map((l) => l.split(/[ :=]/)[0])).toEqual(['st_near', 'get_discount_basis_points']);
    expect(outcomes[1]!.logs).toEqual([]);
    expect(decodeStakeA(block, C)).toEqual([]);
    expect(model.stNearOf(ALICE)).toBe(7_999n * 10n ** 21n);
  });
});

describe('StakeB (LiNEAR) model', () => {
  /** Genesis: the contract's own 10 NEAR seed (N = S = 10), the treasury stakes 100,000 NEAR (1:1, N = S = 100,010),
   * then 30 % rewards: N = 100,010 + 30,003 = 130,013 NEAR, S = 100,010 LiNEAR: one LiNEAR is 1.3 NEAR. */
  function setUp() {
    const world = bareWorld();
    const model = new StakeBDevnet();
    model.genesis(world);
    const genesis = seal(world);
    return { world, model, genesis };
  }

  it('a stake decodes to exactly the hop recorded: LiNEAR charges floor(shares·N/S), the yocto left stays unstaked', () => {
    const { world, model, genesis } = setUp();
    // The genesis rate comes from STATE (the reward logged no totals line, STATE caught it).
    expect(stateOf(decodeStakeB(genesis.block, C))).toEqual([[C.StakeB, [130_013n * NEAR, 100_010n * NEAR], 'storage']]);
    // alice deposits 1 NEAR: shares = floor(10^24·100,010/130,013) = floor(10^24/1.3) = 769,230,769,230,769,230,769,230;
    // charged = floor(shares·1.3) = floor(9,999,999,999,999,999,999,999,990/10) = 10^24 − 1; N += ceil(shares·1.3),
    // the same (the product is whole), S += shares.
    model.stake(world, ALICE, NEAR);
    const { block, hops } = seal(world);
    const shares = 769_230_769_230_769_230_769_230n;
    expect(hops.map(truthHop)).toEqual([
      { receiptId: hops[0]!.receiptId, poolId: C.StakeB, trader: ALICE, tokenIn: 'near', tokenOut: C.StakeB, amountIn: NEAR - 1n, amountOut: shares },
    ]);
    const events = decodeStakeB(block, C);
    expect(swapsOf(events).map(asHop)).toEqual(hops.map(truthHop));
    expect(stateOf(events)).toEqual([[C.StakeB, [130_013n * NEAR + NEAR - 1n, 100_010n * NEAR + shares], 'storage']]);
    expect(outcomesOf(block, C.StakeB)[0]!.logs[1]).toContain('"new_unstaked_balance":"1"');
    expect(world.tokens.balance(C.StakeB, ALICE)).toBe(shares);
  });

  it('a deposit of 1 yocto mints no share: the receipt fails after its deposit event and decodes to nothing', () => {
    const { world, model } = setUp();
    model.stake(world, ALICE, 1n);
    const { block, hops } = seal(world);
    expect(hops).toEqual([]);
    const outcomes = outcomesOf(block, C.StakeB);
    expect(outcomes.map((o) => [o.status.kind, o.logs.length])).toEqual([['Failure', 1]]);
    expect(decodeStakeB(block, C)).toEqual([]);
    expect(model.reserves()).toEqual(new Map([[C.StakeB, [130_013n * NEAR, 100_010n * NEAR]]]));
  });
});

describe('StakeD (rNEAR) model', () => {
  /** Genesis: seed 10 NEAR, the treasury's 100,000 NEAR at 1:1 (N = S = 100,010, logged), then 2 % rewards:
   * N = 100,010 + 2,000.2 = 102,010.2 NEAR, logged nowhere. */
  function setUp() {
    const world = bareWorld();
    const model = new StakeDDevnet();
    model.genesis(world);
    const genesis = seal(world);
    return { world, model, genesis };
  }

  it('its pools row follows the totals line: the reward shows at the next stake, which decodes to the hop recorded', () => {
    const { world, model, genesis } = setUp();
    expect(stateOf(decodeStakeD(genesis.block, C))).toEqual([[C.StakeD, [100_010n * NEAR, 100_010n * NEAR], 'event']]);
    expect(model.reserves()).toEqual(new Map([[C.StakeD, [100_010n * NEAR, 100_010n * NEAR]]]));
    // alice deposits 1 NEAR, all of it charged: shares = floor(10^24·100,010/102,010.2) = floor(10^24/1.02)
    // = 980,392,156,862,745,098,039,215; N = 102,011.2 NEAR, S = 100,010 + shares.
    model.stake(world, ALICE, NEAR);
    const { block, hops } = seal(world);
    const shares = 980_392_156_862_745_098_039_215n;
    expect(hops.map(truthHop)).toEqual([
      { receiptId: hops[0]!.receiptId, poolId: C.StakeD, trader: ALICE, tokenIn: 'near', tokenOut: C.StakeD, amountIn: NEAR, amountOut: shares },
    ]);
    const events = decodeStakeD(block, C);
    expect(swapsOf(events).map(asHop)).toEqual(hops.map(truthHop));
    expect(stateOf(events)).toEqual([[C.StakeD, [1_020_112n * 10n ** 23n, 100_010n * NEAR + shares], 'event']]);
    expect(model.reserves()).toEqual(new Map([[C.StakeD, [1_020_112n * 10n ** 23n, 100_010n * NEAR + shares]]]));
  });

  it('a deposit of 1 yocto fails and decodes to nothing', () => {
    const { world, model } = setUp();
    model.stake(world, ALICE, 1n);
    const { block, hops } = seal(world);
    expect(hops).toEqual([]);
    expect(outcomesOf(block, C.StakeD).map((o) => o.status.kind)).toEqual(['Failure']);
    expect(decodeStakeD(block, C)).toEqual([]);
  });
});

describe('StakeC (xRHEA) model', () => {
  const RHEA_UNIT = 10n ** 18n;
  /** Genesis (block 1, one timestamp): RHEA; xRHEA's 1 xRHEA seed backed by 1 RHEA; 1 RHEA/s of reward; the
   * treasury stakes 100,000 RHEA at 1:1 (L = X = 100,001); a 1,000,000 RHEA reward fund. alice gets RHEA. */
  function setUp() {
    const world = bareWorld();
    const model = new StakeCDevnet();
    model.genesis(world);
    world.tokens.register(ALICE, C.StakeC);
    seal(world);
    return { world, model };
  }

  it('a stake one second later decodes to exactly the hop recorded, the reward streamed in first', () => {
    const { world, model } = setUp();
    // One second of reward: L = 100,002 RHEA. minted = floor(1,000·10^18 · 100,001 / 100,002)
    // = floor(999.99000019999600007999840...·10^18) = 999,990,000,199,996,000,079.
    model.stake(world, ALICE, 1_000n * RHEA_UNIT);
    const { block, hops } = seal(world);
    const minted = 999_990_000_199_996_000_079n;
    expect(hops.map(truthHop)).toEqual([
      { receiptId: hops[0]!.receiptId, poolId: C.StakeC, trader: ALICE, tokenIn: C.StakeCUnderlying, tokenOut: C.StakeC, amountIn: 1_000n * RHEA_UNIT, amountOut: minted },
    ]);
    const events = decodeStakeC(block, C);
    expect(swapsOf(events).map(asHop)).toEqual(hops.map(truthHop));
    // No log gives the rate: the decoder takes the block's last stake for it, and so does the model.
    expect(stateOf(events)).toEqual([[C.StakeC, [1_000n * RHEA_UNIT, minted], 'event']]);
    expect(model.reserves()).toEqual(new Map([[C.StakeC, [1_000n * RHEA_UNIT, minted]]]));
    expect(world.tokens.balance(C.StakeC, ALICE)).toBe(minted);
  });

  it('a stake of 1 unit mints nothing: ft_on_transfer fails (ERR_STAKE_TOO_SMALL), is refunded and decodes to nothing', () => {
    const { world, model } = setUp();
    const before = world.tokens.balance(C.StakeCUnderlying, ALICE);
    model.stake(world, ALICE, 1n);
    const { block, hops } = seal(world);
    expect(hops).toEqual([]);
    expect(outcomesOf(block, C.StakeC).map((o) => o.status.kind)).toEqual(['Failure']);
    expect(decodeStakeC(block, C)).toEqual([]);
    expect(world.tokens.balance(C.StakeCUnderlying, ALICE)).toBe(before);
  });
});
