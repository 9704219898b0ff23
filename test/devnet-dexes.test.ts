// The devnet's DEX models against the decoders, without a database: a block the model built decodes (through
// normalizeStreamerMessage and the DEX's own decoder) to exactly the hops the model recorded, and a failed swap's
// receipt keeps its logs, has status Failure and decodes to nothing. Hand-sized trades check the amounts against
// arithmetic written out in the comments; a seeded run checks every block of a few hundred.
import { describe, expect, it } from 'vitest';
import type { AmmCPoolStateEvent } from '../dexes/amm-c/events.ts';
import { decodeAmmC } from '../dexes/amm-c/decode.ts';
import { MAINNET_CONTRACTS } from '../dexes/contracts.ts';
import type { DexEvent, DexId, SwapEvent } from '../dexes/events.ts';
import { decodeLaunch } from '../dexes/launch/decode.ts';
import type { LaunchPoolStateEvent } from '../dexes/launch/events.ts';
import { normalizeStreamerMessage, type Block } from '../near/block.ts';
import { AmmCDevnet } from '../indexer/sources/devnet/amm-c.ts';
import { Chain } from '../indexer/sources/devnet/chain.ts';
import { Devnet } from '../indexer/sources/devnet/devnet.ts';
import { LaunchDevnet, UNREGISTERED_REFERRER } from '../indexer/sources/devnet/launch.ts';
import { Rng } from '../indexer/sources/devnet/rng.ts';
import { Tokens, type TokenSpec } from '../indexer/sources/devnet/tokens.ts';
import { WrapDevnet } from '../indexer/sources/devnet/wrap.ts';
import type { TruthTrade, World } from '../indexer/sources/devnet/world.ts';

const C = MAINNET_CONTRACTS;
const NEAR = 10n ** 24n;
const TREASURY = 'treasury.near';
const ALICE = 'alice.near';
const BOB = 'bob.near';

/** A bare world: no tokens, no pools, trades recorded. */
function bareWorld(): World {
  const rng = new Rng('devnet-dexes');
  const chain = new Chain({ seed: 'devnet-dexes', genesisHeight: 1, genesisMs: Date.UTC(2026, 0, 1), blockMs: 1_000, rng });
  return { chain, tokens: new Tokens(chain), rng, contracts: C, treasury: TREASURY, wallets: [ALICE, BOB], trades: [] };
}

/** Seals the block being built: its normalized form and the hops recorded in it. */
function seal(world: World): { block: Block; hops: TruthTrade[] } {
  const height = world.chain.height;
  const block = normalizeStreamerMessage(world.chain.seal());
  return { block, hops: (world.trades ?? []).filter((t) => t.height === height) };
}

const swapsOf = (events: DexEvent[]) => events.filter((e): e is SwapEvent => e.kind === 'swap');
const outcomesOf = (block: Block, executor: string) => block.shards.flatMap((s) => s.receiptOutcomes).filter((o) => o.executorId === executor);
const asHop = (e: SwapEvent) => ({ receiptId: e.receiptId, poolId: e.poolId === null ? null : String(e.poolId), trader: e.trader, tokenIn: e.tokenIn, tokenOut: e.tokenOut, amountIn: e.amountIn, amountOut: e.amountOut });
const truthHop = (t: TruthTrade) => ({ receiptId: t.receiptId, poolId: t.poolId, trader: t.trader, tokenIn: t.tokenIn, tokenOut: t.tokenOut, amountIn: t.amountIn, amountOut: t.amountOut });

/** Runs the seeded devnet and compares, block by block, `dex`'s decoded hops with the recorded ones. */
function seededRun(dex: DexId, decode: (block: Block) => DexEvent[], blocks: number) {
  const devnet = new Devnet({ recordTrades: true });
  const mismatches: number[] = [];
  const hops: TruthTrade[] = [];
  let failedReceipts = 0;
  for (let i = 0; i < blocks; i++) {
    const from = devnet.trades.length;
    const block = normalizeStreamerMessage(devnet.next());
    const recorded = devnet.trades.slice(from).filter((t) => t.dex === dex);
    hops.push(...recorded);
    if (JSON.stringify(swapsOf(decode(block)).map(asHop), bigints) !== JSON.stringify(recorded.map(truthHop), bigints)) mismatches.push(block.height);
    const contract = dex === 'AmmC' ? C.AmmC : C.Launch;
    failedReceipts += outcomesOf(block, contract).filter((o) => o.status.kind === 'Failure').length;
  }
  return { mismatches, hops, failedReceipts };
}

const bigints = (_key: string, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value);

describe('devnet AmmC (Intear engine, xyk DEX) model', () => {
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

  it('over 300 seeded blocks, every block decodes to exactly the AmmC hops recorded in it (NEAR, two hops, the launch pool, failures)', () => {
    const { mismatches, hops, failedReceipts } = seededRun('AmmC', (b) => decodeAmmC(b, C), 300);
    expect(mismatches).toEqual([]);
    expect(hops.length).toBeGreaterThan(50);
    const perReceipt = new Map<string, number>();
    for (const h of hops) perReceipt.set(h.receiptId, (perReceipt.get(h.receiptId) ?? 0) + 1);
    expect([...perReceipt.values()].some((n) => n === 2)).toBe(true);
    expect(hops.some((h) => h.tokenIn === 'near') && hops.some((h) => h.tokenOut === 'near')).toBe(true);
    expect(hops.some((h) => h.poolId === '3')).toBe(true); // the launch pool
    expect(failedReceipts).toBeGreaterThan(0);
  });
});

describe('devnet Launch (Aidols) model', () => {
  const TGANZA: TokenSpec = { contractId: 'tganza.aidols.near', symbol: 'TGANZA', name: 'Tganza', decimals: 24 };

  /** Genesis: wNEAR; alice with 100 wNEAR, bob registered with wrap.near; aidols.near launches TGANZA. */
  function setUp() {
    const world = bareWorld();
    world.tokens.deploy({ contractId: C.Wrap, symbol: 'wNEAR', name: 'Wrapped NEAR fungible token', decimals: 24, legacy: true }, TREASURY, 0n);
    world.tokens.register(ALICE, C.Wrap);
    world.tokens.register(BOB, C.Wrap);
    new WrapDevnet().wrap(world, ALICE, 100n * NEAR);
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
    expect(launch.reserves()).toEqual(new Map());
  });

  it('over 300 seeded blocks, every block decodes to exactly the Launch hops recorded in it (buys, sells, failures)', () => {
    const { mismatches, hops, failedReceipts } = seededRun('Launch', (b) => decodeLaunch(b, C), 300);
    expect(mismatches).toEqual([]);
    expect(hops.length).toBeGreaterThan(50);
    expect(hops.some((h) => h.tokenIn === C.Wrap) && hops.some((h) => h.tokenOut === C.Wrap)).toBe(true);
    expect(failedReceipts).toBeGreaterThan(0);
  });
});
