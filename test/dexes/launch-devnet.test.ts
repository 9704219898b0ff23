// Launch's curve records: the model writes them in the real layout (dexes/launch/README.md), the decoder reads them
// back as the model holds them (by hand on a bare world, the model's own chain and tokens; and on the seeded
// realnet, where the model is hosted), and a curve that graduated is refused by the router's hops
// (api/routing/hops.ts over dexes/launch/math.ts, on the state as a `pools` row keeps and the router revives it)
// while the others are quoted. Amounts in the comments are worked out by hand.
import { describe, expect, it } from 'vitest';
import { hopsOfPool } from '../../api/routing/hops.ts';
import { reviveState } from '../../api/routing/graph.ts';
import { MAINNET_CONTRACTS } from '../../dexes/contracts.ts';
import { decodeLaunch } from '../../dexes/launch/decode.ts';
import type { LaunchPoolState, LaunchPoolStateEvent } from '../../dexes/launch/events.ts';
import { normalizeStreamerMessage, type Block } from '../../near/block.ts';
import { jsonWithBigints } from '../../near/units.ts';
import { Chain } from '../../devnet/chain.ts';
import { LaunchDevnet } from '../../devnet/launch.ts';
import { realnetMarket } from '../../devnet/realnet/wasm.ts';
import { Rng } from '../../devnet/rng.ts';
import { Tokens, type TokenSpec } from '../../devnet/tokens.ts';
import type { World } from '../../devnet/world.ts';

const C = MAINNET_CONTRACTS;
const NEAR = 10n ** 24n;
const ALICE = 'alice.near';
const TGANZA: TokenSpec = { contractId: 'tganza.aidols.near', symbol: 'TGANZA', name: 'Tganza', decimals: 24 };
const MIKO: TokenSpec = { contractId: 'miko.aidols.near', symbol: 'MIKO', name: 'Miko', decimals: 24 };

const states = (block: Block) => decodeLaunch(block, C).filter((e): e is LaunchPoolStateEvent => e.kind === 'pool_state');
/** The router's hops of a curve, its state through the `pools` row's JSON as the indexer writes and the router reads it. */
const hops = (state: LaunchPoolState) =>
  hopsOfPool({ dex: 'Launch', poolId: state.tokens[0]!, state: reviveState(JSON.parse(jsonWithBigints(state))), updatedHeight: 1 }, { contracts: C, registrations: null });

describe('Launch curve records', () => {
  /** alice holds 400 wNEAR (here a plain NEP-141 token); aidols.near launches TGANZA and MIKO (their records written
   * in this first block). */
  function setUp() {
    const rng = new Rng('launch-devnet');
    const chain = new Chain({ seed: 'launch-devnet', genesisHeight: 1, genesisMs: Date.UTC(2026, 0, 1), blockMs: 1_000, rng });
    const world: World<Chain, Tokens> = { chain, tokens: new Tokens(chain), rng, contracts: C, treasury: 'treasury.near', wallets: [ALICE], trades: [] };
    world.tokens.deploy({ contractId: C.Wrap, symbol: 'wNEAR', name: 'Wrapped NEAR fungible token', decimals: 24 }, world.treasury, 1_000n * NEAR);
    world.tokens.register(ALICE, C.Wrap);
    world.tokens.send(world.treasury, C.Wrap, ALICE, 400n * NEAR);
    world.tokens.register(C.Launch, C.Wrap);
    const launch = new LaunchDevnet([TGANZA, MIKO]);
    launch.launch(world, TGANZA);
    launch.launch(world, MIKO);
    world.tokens.register(ALICE, TGANZA.contractId);
    const launched = states(normalizeStreamerMessage(chain.seal()));
    return { world, launch, launched };
  }

  it('a launch writes the record: 10^33 tokens against 500 virtual wNEAR, not deployed, tradable', () => {
    const { launched } = setUp();
    expect(launched.map((e) => [e.poolId, e.source, e.state.amounts, e.state.isDeployed, e.state.isTradable])).toEqual([
      [TGANZA.contractId, 'storage', [10n ** 33n, 500n * NEAR], false, true],
      [MIKO.contractId, 'storage', [10n ** 33n, 500n * NEAR], false, true],
    ]);
  });

  it('the buy that brings the wNEAR hold to 800 NEAR graduates the curve: the router refuses it, quotes the others', () => {
    const { world, launch, launched } = setUp();
    // 310 NEAR: fee floor(3.1·10^26) = 3.1 NEAR, net 306.9 NEAR; the hold becomes 806.9 NEAR >= 800.
    // out = floor(10^33·306.9 / 806.9) = 380 344 528 442 186 144 503 655 967 282 191 (306.9·10^57 / 806.9·10^24).
    launch.buy(world, ALICE, TGANZA.contractId, 310n * NEAR, 1n, null);
    const block = normalizeStreamerMessage(world.chain.seal());
    const [graduated] = states(block);
    expect(graduated?.state).toEqual({
      ...launched[0]!.state,
      amounts: [10n ** 33n - 380_344_528_442_186_144_503_655_967_282_191n, 8069n * 10n ** 23n],
      isDeployed: true,
      isTradable: false,
    });
    expect(graduated?.state).toEqual(launch.curve(TGANZA.contractId).state);

    expect(hops(graduated!.state).map((h) => [h.tokenIn, h.out(NEAR), h.in?.(10n ** 20n)])).toEqual([
      [C.Wrap, null, null],
      [TGANZA.contractId, null, null],
    ]);
    // MIKO, as launched: 1 NEAR buys floor(10^33·0.99 / 500.99) = 1 976 087 347 052 835 385 935 847 022 894 tokens.
    expect(hops(launched[1]!.state)[0]!.out(NEAR)).toBe(1_976_087_347_052_835_385_935_847_022_894n);

    // The contract takes no more trades on it: the receipt fails and decodes to nothing.
    launch.buy(world, ALICE, TGANZA.contractId, NEAR, 1n, null);
    const refused = normalizeStreamerMessage(world.chain.seal());
    expect(refused.shards.flatMap((s) => s.receiptOutcomes).filter((o) => o.executorId === C.Launch).map((o) => o.status.kind)).toEqual(['Failure']);
    expect(decodeLaunch(refused, C)).toEqual([]);
  });

  // On the seed 'realnet-bootstrap' the first curve graduates at block 554, the last of the first three at 685.
  it("over 720 seeded realnet blocks, every decoded curve state is the model's; curves graduate and their successors trade", () => {
    const market = realnetMarket(undefined, { seed: 'realnet-bootstrap', models: true, history: false });
    const model = market.models!.dexes.find((d): d is LaunchDevnet => d instanceof LaunchDevnet)!;
    const mismatches: string[] = [];
    const graduated = new Set<string>();
    const traded = new Set<string>();
    let undecodedRecords = 0;
    for (let i = 0; i < 720; i++) {
      const events = decodeLaunch(normalizeStreamerMessage(market.next()), C);
      for (const e of events) {
        if (e.kind === 'undecoded' && e.input === 'state') undecodedRecords++;
        if (e.kind === 'swap') traded.add(String(e.poolId));
        if (e.kind !== 'pool_state') continue;
        const state = e.state as LaunchPoolState;
        if (e.source !== 'storage' || JSON.stringify(state, bigints) !== JSON.stringify(model.curve(String(e.poolId)).state, bigints)) {
          mismatches.push(`${e.blockHeight} ${e.poolId}`);
        }
        if (state.isTradable === false) graduated.add(String(e.poolId));
      }
    }
    expect(mismatches).toEqual([]);
    expect(undecodedRecords).toBe(0);
    expect(graduated.size).toBeGreaterThan(0);
    // A successor (`<name>2.aidols.near` ...) traded.
    expect([...traded].some((t) => /\d\.aidols\.near$/.test(t))).toBe(true);
  }, 120_000);
});

const bigints = (_key: string, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value);
