// The AmmDclA model emits the contract's emergency liquidity removal (`emergency_liquidity_removed`, the fields Ref's
// own indexer reads, C), and the decoder's book follows it: by hand on a bare world (the model's own chain and
// tokens), and on the seeded realnet, where the hosted model now and then removes a user's position.
import { describe, expect, it } from 'vitest';
import { decodeAmmDclA } from '../../dexes/amm-dcl-a/decode.ts';
import { newDclPoolBook, type DclPoolState } from '../../dexes/amm-dcl-a/state.ts';
import { MAINNET_CONTRACTS } from '../../dexes/contracts.ts';
import type { LiquidityEvent, SwapEvent } from '../../dexes/events.ts';
import { normalizeStreamerMessage } from '../../near/block.ts';
import { AmmDclADevnet } from '../../devnet/amm-dcl-a.ts';
import { Chain } from '../../devnet/chain.ts';
import { realnetMarket } from '../../devnet/realnet/wasm.ts';
import { Rng } from '../../devnet/rng.ts';
import { Tokens } from '../../devnet/tokens.ts';
import type { World } from '../../devnet/world.ts';

const C = MAINNET_CONTRACTS;
const TREASURY = 'treasury.near';
const ALICE = 'alice.near';
const X = 'alpha.tkn.near';
const Y = 'beta.tkn.near';
const POOL = `${X}|${Y}|2000`;
/** The pool state without the decoder's record of its last re-simulation (the model keeps none). */
const core = ({ lastSwapCheck: _check, ...rest }: DclPoolState) => rest;

describe('AmmDclA model: emergency liquidity removal', () => {
  it("removes a user's whole position, logs emergency_liquidity_removed and credits the refund; the book follows", () => {
    const rng = new Rng('dcl-emergency');
    const chain = new Chain({ seed: 'dcl-emergency', genesisHeight: 1, genesisMs: Date.UTC(2026, 0, 1), blockMs: 1_000, rng });
    const world: World<Chain, Tokens> = { chain, tokens: new Tokens(chain), rng, contracts: C, treasury: TREASURY, wallets: [ALICE], trades: [] };
    for (const contractId of [X, Y]) {
      world.tokens.deploy({ contractId, symbol: contractId, name: contractId, decimals: 0 }, TREASURY, 10n ** 22n);
      world.tokens.register(ALICE, contractId);
      world.tokens.register(TREASURY, contractId, C.AmmDclA);
      world.tokens.send(TREASURY, contractId, ALICE, 10n ** 20n);
    }
    const dcl = new AmmDclADevnet();
    dcl.storageDeposit(world, TREASURY);
    dcl.storageDeposit(world, ALICE);
    dcl.createPool(world, TREASURY, [X, Y], 2_000, 0);
    dcl.addPosition(world, TREASURY, POOL, -1_000, 1_000, [10n ** 21n, 10n ** 21n]);
    const lptId = dcl.addPosition(world, ALICE, POOL, -400, 400, [10n ** 18n, 10n ** 18n])!;
    const book = newDclPoolBook();
    const added = decodeAmmDclA(normalizeStreamerMessage(chain.seal()), C, book).filter((e): e is LiquidityEvent => e.kind === 'liquidity' && e.provider === ALICE);
    const [paidX, paidY] = added[0]!.amounts as [bigint, bigint];
    const L = added[0]!.shares!;

    dcl.emergencyRemove(world, lptId);
    const block = normalizeStreamerMessage(chain.seal());
    const logs = block.shards.flatMap((s) => s.receiptOutcomes).filter((o) => o.executorId === C.AmmDclA).flatMap((o) => o.logs);
    expect(logs.map((l) => JSON.parse(l.slice('EVENT_JSON:'.length)).event)).toEqual(['emergency_liquidity_removed']);
    const events = decodeAmmDclA(block, C, book);
    const removed = events.filter((e): e is LiquidityEvent => e.kind === 'liquidity');
    expect(removed.map((e) => [e.action, e.provider, e.poolId, e.shares])).toEqual([['remove', ALICE, POOL, L]]);
    // Nothing moved since the deposit (point 0, sqrt price 2^96, no X at the point), so per token the refund is the
    // deposit's one range term rounded down instead of up (the point's own share, L·2^96/2^96 of Y, is exact):
    // paid - 2 < refund <= paid.
    const [refundX, refundY] = removed[0]!.amounts as [bigint, bigint];
    for (const [paid, refund] of [[paidX, refundX], [paidY, refundY]] as const) expect(refund <= paid && refund > paid - 2n, `${paid} ${refund}`).toBe(true);
    // The refund stays in alice's inner balance at the contract; the position is gone, in the model and the book.
    expect([dcl.deposit(ALICE, X), dcl.deposit(ALICE, Y)]).toEqual([refundX, refundY]);
    expect([dcl.positions.has(lptId), book.positions.has(lptId)]).toEqual([false, false]);
    expect(core(book.pools.get(POOL)!)).toEqual(core(dcl.pool(POOL)));
  });

  // The seeded run of the hosted model (it was the devnet's, test/devnet-dexes.test.ts): hops per block are also the
  // realnet judge's (test/harness/judge.ts); the book's points and orders, block by block, only here.
  it('the seeded realnet: emergencies and users\' liquidity decode, the book follows every pool to the unit, each block decodes to its hops', () => {
    const market = realnetMarket(undefined, { seed: 'dcl-emergency', models: true, recordTrades: true, history: false });
    const model = market.models!.dexes.find((d): d is AmmDclADevnet => d instanceof AmmDclADevnet)!;
    const book = newDclPoolBook();
    const hop = (t: { receiptId: string; poolId: string | number | null; trader: string | null; tokenIn: string; tokenOut: string; amountIn: bigint; amountOut: bigint }) =>
      [t.receiptId, String(t.poolId), t.trader, t.tokenIn, t.tokenOut, String(t.amountIn), String(t.amountOut)].join(' ');
    const liquidity: LiquidityEvent[] = [];
    let emergencies = 0;
    let hops = 0;
    let payoutFailures = 0;
    for (let i = 0; i < 320; i++) {
      const from = market.models!.trades.length;
      const block = normalizeStreamerMessage(market.next());
      const outcomes = block.shards.flatMap((s) => s.receiptOutcomes);
      emergencies += outcomes.filter((o) => o.executorId === C.AmmDclA && o.logs.some((l) => l.includes('"emergency_liquidity_removed"'))).length;
      payoutFailures += outcomes.filter((o) => o.predecessorId === C.AmmDclA && o.status.kind === 'Failure').length;
      const events = decodeAmmDclA(block, C, book);
      liquidity.push(...events.filter((e): e is LiquidityEvent => e.kind === 'liquidity'));
      const recorded = market.models!.trades.slice(from).filter((t) => t.dex === 'AmmDclA');
      hops += recorded.length;
      expect(events.filter((e): e is SwapEvent => e.kind === 'swap').map(hop), `block ${block.height}`).toEqual(recorded.map(hop));
      for (const [id, state] of model.pools) expect(core(book.pools.get(id)!), `${id} at ${block.height}`).toEqual(core(state));
    }
    expect(emergencies).toBeGreaterThan(0);
    expect(hops).toBeGreaterThan(20);
    expect([...book.pools.values()].map((s) => [s.unmatchedSwaps, s.unappliedChanges])).toEqual([...model.pools.keys()].map(() => [0, 0]));
    expect(book.pools.size).toBe(3);
    expect(liquidity.some((e) => e.action === 'remove') && liquidity.some((e) => e.action === 'add' && e.provider !== market.models!.world.treasury)).toBe(true);
    // No payout of the contract failed, and it holds at least what its pools' reserves add up to per token (the
    // rest is fees and inner balances): its balances are the real tokens' own ft_balance_of.
    expect(payoutFailures).toBe(0);
    const held = new Map<string, bigint>();
    for (const [id, amounts] of model.reserves()) model.pool(id).tokens.forEach((t, k) => held.set(t, (held.get(t) ?? 0n) + amounts[k]!));
    for (const [token, reserves] of held) expect(BigInt(market.chain.view<string>(token, 'ft_balance_of', { account_id: C.AmmDclA })) >= reserves, token).toBe(true);
  }, 120_000);
});
