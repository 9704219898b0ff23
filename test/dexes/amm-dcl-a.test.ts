// AmmDclA (Ref DCL `dclv2.ref-labs.near`): the integer sqrt-price table, the concentrated-liquidity swap math, and
// decoding on hand-built Lake blocks (no mainnet fixture touches the contract; the formats come from the sources
// graded in dexes/amm-dcl-a/README.md, one swap from a public indexer's test on a real block). Every expected
// number is worked out independently of the code under test: by hand, or with python3's decimal module at 80
// digits as the calculator (the real-number model of a discretized range: a point i holds L*sqrt(p_i) of Y or
// L/sqrt(p_i) of X, p_i = 1.0001^i); the arithmetic is in the comments. Where the contract's integer rounding
// cannot be derived by hand, the comparison is to the real-number result with a stated bound on the rounding.
import { describe, expect, it } from 'vitest';
import { MAINNET_CONTRACTS } from '../../dexes/contracts.ts';
import { decodeAmmDclA, type AmmDclAEvent } from '../../dexes/amm-dcl-a/decode.ts';
import { parseDclLogLine, type AmmDclAPoolStateEvent } from '../../dexes/amm-dcl-a/events.ts';
import { getSqrtPrice, quoteExactIn, quoteExactOut, swapExactIn, swapExactOut } from '../../dexes/amm-dcl-a/math.ts';
import {
  addLiquidity,
  changeOrders,
  dclPoolStateFromJson,
  newDclPoolBook,
  newDclPoolState,
  removeLiquidity,
  type DclPoolState,
} from '../../dexes/amm-dcl-a/state.ts';
import { normalizeStreamerMessage, type Block } from '../../near/block.ts';
import { blockView, functionCallAction, receiptOutcome, shard, type RawJson, type RawStatus } from '../../near/lake-json.ts';

const DCL = 'dclv2.ref-labs.near';
const A = 'a.near';
const B = 'b.near';
const POOL = 'a.near|b.near|2000';
const Q96 = 2n ** 96n;

const abs = (v: bigint): bigint => (v < 0n ? -v : v);

/** Pool a.near|b.near|2000 (fee 0.2%) at point 0 (sqrt price exactly 2^96), no liquidity yet. */
const empty = (): DclPoolState =>
  newDclPoolState({ poolId: POOL, tokenX: A, tokenY: B, fee: 2000, pointDelta: 1, currentPoint: 0 });

describe('getSqrtPrice (LogPowMath table, integers only)', () => {
  // Reference values: python3, decimal with getcontext().prec = 80:
  //   floor((Decimal('1.0001') ** p).sqrt() * Decimal(2) ** 96)
  // The table method multiplies Q128 constants (each product truncated), inverts for p > 0 and rounds up to Q96,
  // so it is not the floor: it may sit a little above or below. Its relative error stays below 1e-17 over
  // +/-800000 (at 0 it is exact).
  const EXACT: Array<[number, bigint]> = [
    [0, 79228162514264337593543950336n],
    [1, 79232123823359799118286999567n],
    [-1, 79224201403219477170569942573n],
    [100_000, 11755562826496067164730007768449n],
    [-800_000, 337263108621n],
    [800_000, 18611883644907511909590716264544095187055148385n],
  ];
  it.each(EXACT)('point %i', (point, exact) => {
    const v = getSqrtPrice(point);
    const bound = exact / 10n ** 17n > 1n ? exact / 10n ** 17n : 1n;
    expect(abs(v - exact) <= bound).toBe(true);
    if (point === 0) expect(v).toBe(Q96);
  });

  it('is increasing and refuses points outside +/-800000', () => {
    expect(getSqrtPrice(1) > getSqrtPrice(0) && getSqrtPrice(0) > getSqrtPrice(-1)).toBe(true);
    expect(() => getSqrtPrice(800_001)).toThrow(/illegal point/);
    expect(() => getSqrtPrice(-800_001)).toThrow(/illegal point/);
  });
});

describe('AmmDclA swap math', () => {
  it('a swap at the current point: price 1, fee taken from the input', () => {
    // Range [-1000, 1000), L = 10^18; at point 0 the new liquidity is all Y (mint deposits Y at the current point).
    const pool = addLiquidity(empty(), -1000, 1000, 10n ** 18n);
    // amountNoFee = floor(10^6 * (10^6 - 2000) / 10^6) = 998 000; at sqrt price 2^96 the point converts 1:1:
    // transform = floor(998000 * 2^96 / 2^96) = 998 000 <= L; cost = ceil(998000) = 998 000 >= amountNoFee,
    // so fee = 10^6 - 998 000 = 2000; out = 998 000; liquidityX at point 0 becomes 998 000.
    const r = swapExactIn(pool, A, 1_000_000n);
    expect([r.complete, r.amountIn, r.amountOut, r.fee]).toEqual([true, 1_000_000n, 998_000n, 2_000n]);
    expect([r.state.currentPoint, r.state.liquidity, r.state.liquidityX]).toEqual([0, 10n ** 18n, 998_000n]);
    expect(r.state.sqrtPrice96).toBe(Q96);
  });

  it('a swap within one range follows x*y=k in sqrt space, point by point', () => {
    const L = 10n ** 18n;
    const pool = addLiquidity(empty(), -1000, 1000, L);
    // Sell 5.5e18 X; 0.2% fee: x = 5.5e18 * 0.998 = 5.489e18 to trade. Points 0, -1, ..., -4 are bought whole:
    // y_i = L*sqrt(p_i), x_i = L/sqrt(p_i), sum x_i = 5.00100...e18 <= x; point -5 costs another 1.00025e18 > rest,
    // so the swap ends in point -5, selling the rest there at p_-5:
    //   out = L * sum_{i=-4..0} sqrt(1.0001^i) + (x - L * sum 1/sqrt(1.0001^i)) * 1.0001^-5
    //       = 5 487 755 873 256 654 919.22 (python decimal, 80 digits)
    // The integer path rounds at most four times by one unit (whole-points Y floor, cost ceil, the partial
    // point's transform floor and its Y floor) at a price near 1: within 4 of the real result.
    const r = swapExactIn(pool, A, 5_500_000_000_000_000_000n);
    expect(r.complete).toBe(true);
    expect(abs(r.amountOut - 5_487_755_873_256_654_919n) <= 4n).toBe(true);
    expect(r.amountIn <= 5_500_000_000_000_000_000n && r.amountIn >= 5_500_000_000_000_000_000n - 4n).toBe(true);
    expect(r.state.currentPoint).toBe(-5);
    expect(r.state.liquidity).toBe(L);

    // The other way, selling 3e18 Y: point 0 has no X (liquidityX 0), so points 1, 2, ... are bought whole at
    // y_i = L*sqrt(p_i) each: y = 2.994e18 covers points 1 and 2 (2.00015e18), not point 3 (1.00015e18 > rest).
    //   out = L * (1/sqrt(p_1) + 1/sqrt(p_2)) + rest / p_3 = 2 993 401 919 619 313 215.54 (python decimal)
    const up = swapExactIn(pool, B, 3_000_000_000_000_000_000n);
    expect(abs(up.amountOut - 2_993_401_919_619_313_215n) <= 4n).toBe(true);
    expect(up.state.currentPoint).toBe(3);
  });

  it('a swap that crosses a range boundary uses the next range liquidity', () => {
    const L1 = 10n ** 18n;
    const L2 = 3n * 10n ** 18n;
    // [-3, 3) with L1 (points -3..2) and [-20, -3) with L2 (points -20..-4); crossing -3 leftwards leaves L2.
    const pool = addLiquidity(addLiquidity(empty(), -3, 3, L1), -20, -3, L2);
    // Sell 1e19 X: x = 9.98e18. Points 0..-3 (L1) cost sum L1/sqrt(p_i) = 4.00060e18; point -4 (L2) costs
    // 3.00060e18, rest 2.97880e18 < 3.00075e18 (point -5): the swap ends in point -5.
    //   out = L1 * sum_{i=-3..0} sqrt(p_i) + L2 * sqrt(p_-4) + rest * p_-5 = 9 976 710 986 761 499 350.86
    // (python decimal). With L1 kept past the boundary the output would be ~6.0e18: far outside the bound of 6
    // (two range steps and the partial point, at most two units each).
    const r = swapExactIn(pool, A, 10n * 10n ** 18n);
    expect(r.complete).toBe(true);
    expect(abs(r.amountOut - 9_976_710_986_761_499_350n) <= 6n).toBe(true);
    expect(r.state.currentPoint).toBe(-5);
    expect(r.state.liquidity).toBe(L2);
  });

  it('exact out returns the least input', () => {
    const pool = addLiquidity(empty(), -1000, 1000, 10n ** 18n);
    // At point 0 (price 1): buying 998 000 Y costs ceil(998000) = 998 000 X plus fee
    // ceil(998000 * 2000 / 998000) = 2000: 1 000 000. One less does not buy it: 999 999 * 0.998 = 997 999.002.
    const r = swapExactOut(pool, B, 998_000n);
    expect([r.complete, r.amountIn, r.amountOut, r.fee]).toEqual([true, 1_000_000n, 998_000n, 2_000n]);
    expect(quoteExactIn(pool, A, 1_000_000n)).toBe(998_000n);
    expect(quoteExactIn(pool, A, 999_999n)).toBe(997_999n);
    expect(quoteExactOut(pool, B, 998_000n)).toBe(1_000_000n);

    // Over several points: buying 4e18 Y takes points 0..-3 whole (sum L*sqrt(p_i) = 3.99940e18) and the rest at
    // p_-4; cost = sum L/sqrt(p_i) + rest / p_-4 = 4.0006000900085002750e18 X, and with the fee on top
    // (x 10^6 / 998000) 4 008 617 324 657 815 906.81 (python decimal). Every integer step rounds the cost up, so
    // the contract asks at least that, and at most a few units more (the same four roundings as above).
    const big = swapExactOut(pool, B, 4n * 10n ** 18n);
    expect(big.complete).toBe(true);
    expect(big.amountOut).toBe(4n * 10n ** 18n);
    expect(big.amountIn >= 4_008_617_324_657_815_907n && big.amountIn <= 4_008_617_324_657_815_907n + 4n).toBe(true);
    expect(big.state.currentPoint).toBe(-4);
  });

  it('limit orders at a point fill before its range liquidity; no liquidity means no quote', () => {
    // An order selling 500 Y at point 0, on top of the range: the swap takes the order first, at price 1:
    // amountNoFee = 998; acquire = min(floor(998), 500) = 500, cost = ceil(500) = 500 < 998: fee =
    // ceil(500 * 2000 / 998000) = 2; the rest 1000 - 502 = 498 goes on: amountNoFee = floor(498 * 0.998) = 497,
    // bought 1:1 from the range at point 0 (fee 498 - 497 = 1). Out = 500 + 497 = 997, the order is gone.
    const pool = changeOrders(addLiquidity(empty(), -1000, 1000, 10n ** 18n), 0, 0n, 500n);
    const r = swapExactIn(pool, A, 1000n);
    expect([r.amountIn, r.amountOut, r.fee]).toEqual([1000n, 997n, 3n]);
    expect(r.state.orders).toEqual([]);
    expect(r.state.liquidityX).toBe(497n);

    expect(quoteExactIn(empty(), A, 1000n)).toBeNull();
    expect(quoteExactOut(empty(), B, 1000n)).toBeNull();
    expect(() => swapExactIn(empty(), 'c.near', 1n)).toThrow(/not in the pool/);
  });

  it('reserves: ranges left of the price are Y, right of it X, the current point split by liquidityX', () => {
    // [-1, 2) with L = 10^18 at point 0: point -1 holds L*sqrt(p_-1) Y, point 0 holds L*1 Y (liquidityX 0),
    // point 1 holds L/sqrt(p_1) X; L/sqrt(1.0001) = 999 950 003 749 687 527.34 (python decimal), floored.
    const pool = addLiquidity(empty(), -1, 2, 10n ** 18n);
    expect(pool.amounts).toEqual([999_950_003_749_687_527n, 1_999_950_003_749_687_527n]);
    // Removing all of it: at the current point the Y part goes first; nothing is left.
    const gone = removeLiquidity(pool, -1, 2, 10n ** 18n);
    expect([gone.points, gone.liquidity, gone.liquidityX, gone.amounts]).toEqual([[], 0n, 0n, [0n, 0n]]);
  });

  it('a state survives its JSON form (amounts as decimal strings)', () => {
    const pool = changeOrders(addLiquidity(empty(), -40, 80, 12_345n), -80, 7n, 0n);
    const json = JSON.parse(JSON.stringify(pool, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as unknown;
    expect(dclPoolStateFromJson(json)).toEqual(pool);
    expect(() => dclPoolStateFromJson({ ...(json as object), kind: 'simple' })).toThrow(/kind/);
  });
});

// ---- decoding ----

const HEIGHT = 150_000_000;
const BLOCK_HASH = 'DcLBLoCk1111111111111111111111111111111111111';
const PREV_HASH = 'DcLPReV11111111111111111111111111111111111111';
/** 1_750_000_000_987_654_321 ns -> 1_750_000_000_987 ms. */
const TIMESTAMP_NS = 1_750_000_000_987_654_321n;
const TIMESTAMP_MS = 1_750_000_000_987;

const OK: RawStatus = { SuccessValue: '' };
const FAILED: RawStatus = {
  Failure: { ActionError: { index: 0, kind: { FunctionCallError: { ExecutionError: 'Smart contract panicked: E204: slippage error' } } } },
};

function blockOf(height: number, outcomes: RawJson[], timestampNs = TIMESTAMP_NS): Block {
  return normalizeStreamerMessage({
    block: blockView({ height, hash: BLOCK_HASH, prevHash: PREV_HASH, timestampNs, author: 'node0.poolv1.near', chunkHashes: ['Chunk0'] }),
    shards: [shard({ shardId: 0, chunkHash: 'Chunk0', blockHash: BLOCK_HASH, prevBlockHash: PREV_HASH, height, transactions: [], outcomes, stateChanges: [] })],
  });
}

function outcome(receiptId: string, logs: string[], options: { status?: RawStatus; executor?: string; txHash?: string } = {}): RawJson {
  return receiptOutcome({
    blockHash: BLOCK_HASH,
    receiptId,
    predecessorId: A,
    receiverId: options.executor ?? DCL,
    signerId: 'alice.near',
    actions: [functionCallAction({ method: 'ft_on_transfer', args: { sender_id: 'alice.near', amount: '1', msg: '' }, gas: 100n * 10n ** 12n, deposit: 0n })],
    logs,
    receiptIds: [],
    status: options.status ?? OK,
    txHash: options.txHash ?? `Tx${receiptId}`,
  });
}

/** A `dcl.ref` event line exactly as the contract's `emit()` writes it: one item in `data`. */
const dcl = (event: string, item: Record<string, unknown>): string =>
  `EVENT_JSON:${JSON.stringify({ standard: 'dcl.ref', version: '1.0.0', event, data: [item] })}`;

const swapLog = (amountIn: string, amountOut: string, pool = POOL, tokens: [string, string] = [A, B]) =>
  dcl('swap', { swapper: 'alice.near', token_in: tokens[0], token_out: tokens[1], amount_in: amountIn, amount_out: amountOut, pool_id: pool, total_fee: '2000', protocol_fee: '400' });

const base = (height: number, receiptId: string, index: number) => ({ blockHeight: height, timestampMs: TIMESTAMP_MS, receiptId, txHash: `Tx${receiptId}`, index });
const AMM = { dex: 'AmmDclA', contractId: DCL } as const;

/** The seed: pool a|b|2000 at point 0 with [-1000, 1000) of L = 10^18 (as if imported from the pools table). */
const seed = (): DclPoolState => addLiquidity(newDclPoolState({ poolId: POOL, tokenX: A, tokenY: B, fee: 2000, pointDelta: 40, currentPoint: 0 }), -1000, 1000, 10n ** 18n);

describe('decodeAmmDclA', () => {
  it('a successful create_pool call opens the pool in the book (tokens sorted, point delta of the fee tier); a failed one does not; one we cannot read is undecoded', () => {
    const createPool = (receiptId: string, args: Record<string, unknown>, status: RawStatus = OK): RawJson =>
      receiptOutcome({
        blockHash: BLOCK_HASH,
        receiptId,
        predecessorId: 'owner.near',
        receiverId: DCL,
        signerId: 'owner.near',
        actions: [functionCallAction({ method: 'create_pool', args, gas: 30n * 10n ** 12n, deposit: 10n ** 23n })],
        logs: [],
        receiptIds: [],
        status,
        txHash: `Tx${receiptId}`,
      });
    const book = newDclPoolBook();
    const events = decodeAmmDclA(
      blockOf(HEIGHT, [
        // b.near > a.near: the pool id puts a.near first.
        createPool('Rc1', { token_a: B, token_b: A, fee: 2000, init_point: -120 }),
        createPool('Rc2', { token_a: A, token_b: 'c.near', fee: 400, init_point: 0 }, FAILED),
        createPool('Rc3', { token_a: A, token_b: 'd.near', fee: 333, init_point: 0 }), // not a fee tier
      ]),
      { ...MAINNET_CONTRACTS },
      book,
    );
    expect([...book.pools.keys()]).toEqual([POOL]);
    const state = book.pools.get(POOL)!;
    expect(state).toMatchObject({ tokens: [A, B], totalFee: 2000, pointDelta: 40, currentPoint: -120, liquidity: 0n, amounts: [0n, 0n] });
    expect(events).toEqual([
      {
        ...base(HEIGHT, 'Rc3', 0),
        kind: 'undecoded',
        ...AMM,
        input: 'args',
        poolId: null,
        reason: 'create_pool args are not {token_a, token_b, fee: a fee tier, init_point}',
        raw: '{"token_a":"a.near","token_b":"d.near","fee":333,"init_point":0}',
      },
      { ...base(HEIGHT, 'Rc1', 0), kind: 'pool_state', ...AMM, poolId: POOL, state, source: 'event' },
    ]);
  });

  it('swaps and liquidity of successful receipts; the pool state after the block from the book', () => {
    const book = newDclPoolBook([seed()]);
    const block = blockOf(HEIGHT, [
      outcome('R1', [swapLog('1000000', '998000')]),
      outcome('R2', [swapLog('5000000', '4990000')], { status: FAILED }),
      outcome('R3', [swapLog('1000000', '998000')], { executor: 'not-dcl.near' }),
      outcome('R4', [
        dcl('liquidity_added', {
          lpt_id: `${POOL}#1`,
          owner_id: 'bob.near',
          pool_id: POOL,
          left_point: -80,
          right_point: 80,
          added_amount: '1000000000000000000',
          cur_amount: '1000000000000000000',
          paid_token_x: '3999000',
          paid_token_y: '4001000',
        }),
      ]),
      outcome('R5', [swapLog('10', '9', 'c.near|d.near|400', ['c.near', 'd.near'])]),
    ]);
    const events = decodeAmmDclA(block, MAINNET_CONTRACTS, book);
    // The swap at point 0 as worked out above: 998 000 out, liquidityX 998 000. The new range [-80, 80) covers
    // point 0: liquidity 10^18 + 10^18; liquidityX unchanged (the deposit at the current point is Y).
    const expectedState = {
      kind: 'dcl',
      poolId: POOL,
      tokens: [A, B],
      totalFee: 2000,
      pointDelta: 40,
      currentPoint: 0,
      sqrtPrice96: Q96,
      liquidity: 2n * 10n ** 18n,
      liquidityX: 998_000n,
      points: [
        { point: -1000, liquiditySum: 10n ** 18n, liquidityDelta: 10n ** 18n },
        { point: -80, liquiditySum: 10n ** 18n, liquidityDelta: 10n ** 18n },
        { point: 80, liquiditySum: 10n ** 18n, liquidityDelta: -(10n ** 18n) },
        { point: 1000, liquiditySum: 10n ** 18n, liquidityDelta: -(10n ** 18n) },
      ],
      orders: [],
      lastSwapCheck: { receiptId: 'R1', mode: 'exact_in', logged: 998_000n, simulated: 998_000n, matched: true },
      unmatchedSwaps: 0,
      unappliedChanges: 0,
    };
    expect(events.map((e) => (e.kind === 'pool_state' ? { ...e, state: { ...e.state, amounts: [] } } : e))).toEqual([
      {
        ...base(HEIGHT, 'R1', 0),
        kind: 'swap',
        ...AMM,
        poolId: POOL,
        trader: 'alice.near',
        tokenIn: A,
        tokenOut: B,
        amountIn: 1_000_000n,
        amountOut: 998_000n,
        totalFee: 2000n,
        adminFee: 400n,
      },
      {
        ...base(HEIGHT, 'R4', 0),
        kind: 'liquidity',
        ...AMM,
        poolId: POOL,
        provider: 'bob.near',
        action: 'add',
        tokens: [A, B],
        amounts: [3_999_000n, 4_001_000n],
        shares: 10n ** 18n,
      },
      {
        ...base(HEIGHT, 'R5', 0),
        kind: 'swap',
        ...AMM,
        poolId: 'c.near|d.near|400',
        trader: 'alice.near',
        tokenIn: 'c.near',
        tokenOut: 'd.near',
        amountIn: 10n,
        amountOut: 9n,
        totalFee: 2000n,
        adminFee: 400n,
      },
      { ...base(HEIGHT, 'R4', 1), kind: 'pool_state', ...AMM, poolId: POOL, state: { ...expectedState, amounts: [] }, source: 'event' },
    ]);
    expect(book.pools.get(POOL)).toBe((events[3] as { state: DclPoolState }).state);
    expect(book.positions.get(`${POOL}#1`)).toEqual({ poolId: POOL, left: -80, right: 80, liquidity: 10n ** 18n });
    expect(book.pools.has('c.near|d.near|400')).toBe(false);

    // The next block goes on from the book.
    const next = blockOf(HEIGHT + 1, [
      outcome('R6', [
        dcl('liquidity_removed', {
          lpt_id: `${POOL}#1`,
          owner_id: 'bob.near',
          pool_id: POOL,
          left_point: -80,
          right_point: 80,
          removed_amount: '400000000000000000',
          cur_amount: '600000000000000000',
          refund_token_x: '1599600',
          refund_token_y: '1600400',
          claim_fee_token_x: '0',
          claim_fee_token_y: '0',
        }),
      ]),
      outcome('R7', [
        dcl('order_added', {
          order_id: `${POOL}#9`,
          created_at: '1750000000987654321',
          owner_id: 'carol.near',
          pool_id: POOL,
          point: -120,
          sell_token: B,
          buy_token: A,
          original_amount: '5000000',
          original_deposit_amount: '5000000',
          swap_earn_amount: '0',
        }),
      ]),
      outcome('R8', [
        dcl('order_cancelled', {
          order_id: `${POOL}#9`,
          created_at: '1750000000987654321',
          cancel_at: '1750000001000000000',
          owner_id: 'carol.near',
          pool_id: POOL,
          point: -120,
          sell_token: B,
          buy_token: A,
          request_cancel_amount: null,
          actual_cancel_amount: '2000000',
          original_amount: '5000000',
          cancel_amount: '2000000',
          remain_amount: '3000000',
          bought_amount: '0',
        }),
      ]),
      // Exact out: 998 000 B at point 0 costs 998 000 + fee 2000 = 1 000 000 (as above); the log says 999 999,
      // so the check records a mismatch. The price still moves as simulated: liquidityX 998 000 + 998 000.
      outcome('R9', [
        dcl('swap_desire', { swapper: 'dave.near', token_in: A, token_out: B, amount_in: '999999', amount_out: '998000', pool_id: POOL, total_fee: '2000', protocol_fee: '400' }),
      ]),
    ]);
    const events2 = decodeAmmDclA(next, MAINNET_CONTRACTS, book);
    // Removing 4e17 of [-80, 80): liquidity 2e18 - 4e17 = 1.6e18; at point 0 the Y part (2e18 - 998 000) covers it,
    // so liquidityX stays; endpoints -80 / 80 keep 6e17. The order: 5e6 placed, 2e6 cancelled: 3e6 Y rests at -120.
    expect(events2.map((e) => (e.kind === 'pool_state' ? { ...e, state: { ...e.state, amounts: [] } } : e))).toEqual([
      {
        ...base(HEIGHT + 1, 'R6', 0),
        kind: 'liquidity',
        ...AMM,
        poolId: POOL,
        provider: 'bob.near',
        action: 'remove',
        tokens: [A, B],
        amounts: [1_599_600n, 1_600_400n],
        shares: 4n * 10n ** 17n,
      },
      {
        ...base(HEIGHT + 1, 'R9', 0),
        kind: 'swap',
        ...AMM,
        poolId: POOL,
        trader: 'dave.near',
        tokenIn: A,
        tokenOut: B,
        amountIn: 999_999n,
        amountOut: 998_000n,
        totalFee: 2000n,
        adminFee: 400n,
      },
      {
        ...base(HEIGHT + 1, 'R9', 1),
        kind: 'pool_state',
        ...AMM,
        poolId: POOL,
        state: {
          ...expectedState,
          amounts: [],
          liquidity: 16n * 10n ** 17n,
          liquidityX: 1_996_000n,
          points: [
            { point: -1000, liquiditySum: 10n ** 18n, liquidityDelta: 10n ** 18n },
            { point: -80, liquiditySum: 6n * 10n ** 17n, liquidityDelta: 6n * 10n ** 17n },
            { point: 80, liquiditySum: 6n * 10n ** 17n, liquidityDelta: -6n * 10n ** 17n },
            { point: 1000, liquiditySum: 10n ** 18n, liquidityDelta: -(10n ** 18n) },
          ],
          orders: [{ point: -120, sellingX: 0n, sellingY: 3_000_000n }],
          lastSwapCheck: { receiptId: 'R9', mode: 'exact_out', logged: 999_999n, simulated: 1_000_000n, matched: false },
          unmatchedSwaps: 1,
        },
        source: 'event',
      },
    ]);
    expect(book.positions.get(`${POOL}#1`)?.liquidity).toBe(6n * 10n ** 17n);
  });

  it('without a book: the swaps and liquidity events, and every line or item it cannot read as undecoded', () => {
    const badAmount = swapLog('1e6', '998000');
    const broken = 'EVENT_JSON:{"standard":"dcl.ref",';
    const block = blockOf(HEIGHT, [
      outcome('R1', [
        swapLog('1000000', '998000'),
        // amount not a decimal string; another standard (out of scope); not JSON; an event with no pool effect
        badAmount,
        `EVENT_JSON:${JSON.stringify({ standard: 'nep141', version: '1.0.0', event: 'ft_transfer', data: [{ old_owner_id: 'a', new_owner_id: 'b', amount: '1' }] })}`,
        broken,
        dcl('lostfound', { user: 'alice.near', token: A, amount: '5', locked: false }),
      ]),
    ]);
    const undecoded = (index: number, poolId: string | null, reason: string, raw: string) => ({ ...base(HEIGHT, 'R1', index), kind: 'undecoded', ...AMM, input: 'log', poolId, reason, raw });
    expect(decodeAmmDclA(block, MAINNET_CONTRACTS)).toEqual([
      {
        ...base(HEIGHT, 'R1', 0),
        kind: 'swap',
        ...AMM,
        poolId: POOL,
        trader: 'alice.near',
        tokenIn: A,
        tokenOut: B,
        amountIn: 1_000_000n,
        amountOut: 998_000n,
        totalFee: 2000n,
        adminFee: 400n,
      },
      undecoded(1, POOL, 'swap item 0: amount_in missing or malformed', badAmount),
      undecoded(2, null, 'malformed EVENT_JSON', broken),
    ]);
    expect(parseDclLogLine(badAmount)).toEqual([{ event: 'undecoded', input: 'log', poolId: POOL, reason: 'swap item 0: amount_in missing or malformed', raw: badAmount }]);
  });
});

// ---- the formats as the chain logs them (grades and sources: dexes/amm-dcl-a/README.md "Formats and evidence") ----

describe('decodeAmmDclA: formats seen on mainnet', () => {
  /** The pool state of `events`' pool_state event for POOL. */
  const stateIn = (events: readonly AmmDclAEvent[]): DclPoolState => events.find((e): e is AmmDclAPoolStateEvent => e.kind === 'pool_state')!.state;
  const item = (event: string, data: Record<string, unknown>) => dcl(event, data);

  it('the current `swap` shape on a real swap (T: INTEARnear/trade-indexer, block 143270326)', () => {
    // Values read off trade-indexer's `detects_refdcl_trades` test: pool, tokens, amounts, trader, receipt, tx, block
    // and its timestamp (ns). serde_json's map sorts keys, so the contract's line lists them alphabetically. The test
    // does not assert the two fee fields: the values below are placeholders and are not checked.
    const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';
    const trader = '5adcddad84c166d8792684c3ad652803df01fac582526dd5c21903b0b5aafe2d';
    const line = `EVENT_JSON:{"data":[{"amount_in":"50287157","amount_out":"19802185927199304105095477","pool_id":"${USDC}|wrap.near|100","protocol_fee":"0","swapper":"${trader}","token_in":"${USDC}","token_out":"wrap.near","total_fee":"0"}],"event":"swap","standard":"dcl.ref","version":"1.0.0"}`;
    const receiptId = '8eznv1M9d33sPDHdUnzTCzduTxujuqG4kmUjU5tWJ3pk';
    const txHash = '5SiQzAwvpfu3dBAao3TuaXhwLTFANDQ3GXNryR1aqdFk';
    const block = blockOf(143_270_326, [outcome(receiptId, [line], { txHash })], 1_743_580_488_884_603_339n);
    const events = decodeAmmDclA(block, MAINNET_CONTRACTS);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      kind: 'swap',
      dex: 'AmmDclA',
      contractId: DCL,
      blockHeight: 143_270_326,
      timestampMs: 1_743_580_488_884,
      receiptId,
      txHash,
      index: 0,
      poolId: `${USDC}|wrap.near|100`,
      trader,
      tokenIn: USDC,
      tokenOut: 'wrap.near',
      amountIn: 50_287_157n,
      amountOut: 19_802_185_927_199_304_105_095_477n,
    });
  });

  it('emergency_liquidity_removed and emergency_order_cancel (C: Ref indexer) change the book like their owners\' removals', () => {
    const book = newDclPoolBook([seed()]);
    const lpt = `${POOL}#1`;
    const events = decodeAmmDclA(
      blockOf(HEIGHT, [
        // The refunds are read as logged (the book does not use them).
        outcome('R1', [
          item('emergency_liquidity_removed', {
            lpt_id: lpt,
            owner_id: 'bob.near',
            pool_id: POOL,
            left_point: -1000,
            right_point: 1000,
            removed_amount: '400000000000000000',
            cur_amount: '600000000000000000',
            refund_token_x: '389774841300000000000',
            refund_token_y: '390555334000000000000',
            claim_fee_token_x: '0',
            claim_fee_token_y: '0',
          }),
        ]),
        outcome('R2', [
          item('order_added', { order_id: `${POOL}#7`, created_at: '1', owner_id: 'carol.near', pool_id: POOL, point: -120, sell_token: B, buy_token: A, original_amount: '5000000', original_deposit_amount: '5000000', swap_earn_amount: '0' }),
        ]),
        // The fields Ref's indexer reads from it: order_completed's and the two `*_this_time` amounts.
        outcome('R3', [
          item('emergency_order_cancel', {
            order_id: `${POOL}#7`,
            created_at: '1',
            completed_at: '2',
            owner_id: 'carol.near',
            pool_id: POOL,
            point: -120,
            sell_token: B,
            buy_token: A,
            original_amount: '5000000',
            original_deposit_amount: '5000000',
            swap_earn_amount: '0',
            cancel_amount: '3000000',
            bought_amount: '0',
            cancel_amount_this_time: '3000000',
            bought_amount_this_time: '0',
          }),
        ]),
      ]),
      MAINNET_CONTRACTS,
      book,
    );
    expect(events.filter((e) => e.kind !== 'pool_state')).toEqual([
      { ...base(HEIGHT, 'R1', 0), kind: 'liquidity', ...AMM, poolId: POOL, provider: 'bob.near', action: 'remove', tokens: [A, B], amounts: [389_774_841_300_000_000_000n, 390_555_334_000_000_000_000n], shares: 4n * 10n ** 17n },
    ]);
    // 4e17 of the seed's 1e18 over [-1000, 1000) gone: 6e17 left at both ends and at point 0 (its Y part, all of it,
    // covers the removal: liquidityX stays 0). 5e6 B placed at -120, 3e6 cancelled: 2e6 rests.
    const state = stateIn(events);
    expect([state.points, state.liquidity, state.liquidityX, state.orders, state.unappliedChanges]).toEqual([
      [
        { point: -1000, liquiditySum: 6n * 10n ** 17n, liquidityDelta: 6n * 10n ** 17n },
        { point: 1000, liquiditySum: 6n * 10n ** 17n, liquidityDelta: -6n * 10n ** 17n },
      ],
      6n * 10n ** 17n,
      0n,
      [{ point: -120, sellingX: 0n, sellingY: 2_000_000n }],
      0,
    ]);
    expect(events.find((e) => e.kind === 'pool_state')).toMatchObject({ receiptId: 'R3', index: 0 });
    expect(book.positions.get(lpt)).toEqual({ poolId: POOL, left: -1000, right: 1000, liquidity: 6n * 10n ** 17n });
  });

  it('older swap and swap_desire shapes (C): a one-pool path is a hop, a longer path or no pool is a trade whose pools go stale', () => {
    const book = newDclPoolBook([seed()]);
    const events = decodeAmmDclA(
      blockOf(HEIGHT, [
        outcome('R1', [item('swap', { swapper: 'alice.near', token_in: A, token_out: B, amount_in: '1000000', amount_out: '998000', pool_ids: [POOL] })]),
        outcome('R2', [item('swap', { swapper: 'alice.near', token_in: A, token_out: 'c.near', amount_in: '500', amount_out: '490', pool_ids: [POOL, 'b.near|c.near|400'] })]),
        outcome('R3', [item('swap_desire', { swapper: 'dave.near', token_in: B, token_out: A, amount_in: '1000', amount_out: '997' })]),
      ]),
      MAINNET_CONTRACTS,
      book,
    );
    const swap = (receiptId: string, poolId: string | null, trader: string, tokenIn: string, tokenOut: string, amountIn: bigint, amountOut: bigint) => ({
      ...base(HEIGHT, receiptId, 0),
      kind: 'swap',
      ...AMM,
      poolId,
      trader,
      tokenIn,
      tokenOut,
      amountIn,
      amountOut,
      totalFee: null,
      adminFee: null,
    });
    expect(events.filter((e) => e.kind === 'swap')).toEqual([
      swap('R1', POOL, 'alice.near', A, B, 1_000_000n, 998_000n),
      swap('R2', null, 'alice.near', A, 'c.near', 500n, 490n),
      swap('R3', null, 'dave.near', B, A, 1000n, 997n),
    ]);
    // R1 re-simulated as the first test's swap (998 000 out at point 0, liquidityX 998 000); R2 moved POOL by an
    // amount the log does not give, R3 moved some pool of a.near/b.near: POOL is the book's only one. Two changes
    // not applied.
    const state = stateIn(events);
    expect([state.liquidityX, state.lastSwapCheck?.matched, state.unmatchedSwaps, state.unappliedChanges]).toEqual([998_000n, true, 0, 2]);
  });

  it('liquidity_merge: the current shape gives remove and add; an older one (no token amounts, C) gives none; both move the book', () => {
    const book = newDclPoolBook([seed()]);
    const added = (n: number) =>
      item('liquidity_added', { lpt_id: `${POOL}#${n}`, owner_id: 'bob.near', pool_id: POOL, left_point: -80, right_point: 80, added_amount: String(10n ** 17n), cur_amount: String(10n ** 17n), paid_token_x: '1', paid_token_y: '1' });
    decodeAmmDclA(blockOf(HEIGHT, [outcome('R1', [added(1), added(2), added(3)])]), MAINNET_CONTRACTS, book);
    const merge = (from: number, addedAmount: bigint, cur: bigint, amounts: Record<string, string>) =>
      item('liquidity_merge', { lpt_id: `${POOL}#1`, merge_lpt_ids: `${POOL}#${from}`, owner_id: 'bob.near', pool_id: POOL, left_point: -80, right_point: 80, added_amount: String(addedAmount), cur_amount: String(cur), ...amounts });
    const events = decodeAmmDclA(
      blockOf(HEIGHT + 1, [
        outcome('R2', [merge(2, 99_999_999_999_999_999n, 199_999_999_999_999_999n, {})]),
        outcome('R3', [
          merge(3, 99_999_999_999_999_998n, 299_999_999_999_999_997n, { remove_token_x: '10', remove_token_y: '20', merge_token_x: '9', merge_token_y: '19', claim_fee_token_x: '0', claim_fee_token_y: '0' }),
        ]),
      ]),
      MAINNET_CONTRACTS,
      book,
    );
    const liquidity = (index: number, action: 'add' | 'remove', amounts: bigint[], shares: bigint) => ({ ...base(HEIGHT + 1, 'R3', index), kind: 'liquidity', ...AMM, poolId: POOL, provider: 'bob.near', action, tokens: [A, B], amounts, shares });
    expect(events.filter((e) => e.kind !== 'pool_state')).toEqual([liquidity(0, 'remove', [10n, 20n], 0n), liquidity(1, 'add', [9n, 19n], 99_999_999_999_999_998n)]);
    // [-80, 80) held 3 x 1e17; #2 and #3 left (2e17), 99 999 999 999 999 999 + 99 999 999 999 999 998 came back.
    const kept = 299_999_999_999_999_997n;
    const state = stateIn(events);
    expect([state.points, state.liquidity, state.unappliedChanges]).toEqual([
      [
        { point: -1000, liquiditySum: 10n ** 18n, liquidityDelta: 10n ** 18n },
        { point: -80, liquiditySum: kept, liquidityDelta: kept },
        { point: 80, liquiditySum: kept, liquidityDelta: -kept },
        { point: 1000, liquiditySum: 10n ** 18n, liquidityDelta: -(10n ** 18n) },
      ],
      10n ** 18n + kept,
      0,
    ]);
    expect([...book.positions.keys()]).toEqual([`${POOL}#1`]);
  });

  it("an order placed across the price (S): its swap is the `swap` just before, re-simulated up to the order's point, and is not applied twice", () => {
    const book = newDclPoolBook([seed()]);
    const events = decodeAmmDclA(
      blockOf(HEIGHT, [
        outcome('R1', [swapLog('1000000', '998000')]),
        // LimitOrderWithSwap: 2e6 B to sell at point 0 (buy A up to price 1.0001^0) while the price is at 0.
        outcome('R2', [
          item('swap', { swapper: 'carol.near', token_in: B, token_out: A, amount_in: '1000000', amount_out: '998000', pool_id: POOL, total_fee: '2000', protocol_fee: '1000' }),
          item('order_added', { order_id: `${POOL}#1`, created_at: '1', owner_id: 'carol.near', pool_id: POOL, point: 0, sell_token: B, buy_token: A, original_amount: '1000000', original_deposit_amount: '2000000', swap_earn_amount: '998000' }),
        ]),
      ]),
      MAINNET_CONTRACTS,
      book,
    );
    expect(events.filter((e) => e.kind === 'swap').map((e) => e.receiptId)).toEqual(['R1', 'R2']);
    // After R1 point 0 holds 998 000 A. The contract swaps the whole 2e6 B up to and including point 0 (stop point
    // 1): amountNoFee = floor(2e6 * 0.998) = 1 996 000 buys the 998 000 A at price 1 for 998 000 B, fee
    // ceil(998 000 * 2000 / 998 000) = 2000: 1 000 000 paid, as logged. Point 0's A is gone, so the price moves to
    // point 1, where the range's liquidity is all A, and stops there. The other 1e6 B rest at point 0.
    const state = stateIn(events);
    expect([state.currentPoint, state.sqrtPrice96, state.liquidity, state.liquidityX, state.orders, state.lastSwapCheck, state.unmatchedSwaps, state.unappliedChanges]).toEqual([
      1,
      getSqrtPrice(1),
      10n ** 18n,
      10n ** 18n,
      [{ point: 0, sellingX: 0n, sellingY: 1_000_000n }],
      { receiptId: 'R2', mode: 'exact_in', logged: 998_000n, simulated: 998_000n, matched: true },
      0,
      0,
    ]);
  });

  it('what it cannot read is undecoded, in log order, and a pool it names goes stale; other standards are out of scope', () => {
    const book = newDclPoolBook([seed()]);
    const good = { swapper: 'alice.near', token_in: A, token_out: B, amount_in: '1000000', amount_out: '998000', pool_id: POOL, total_fee: '2000', protocol_fee: '400' };
    const lines = [
      item('pool_frozen', { pool_id: POOL, operator: 'owner.near' }),
      'Contract paused by owner.near',
      `EVENT_JSON:${JSON.stringify({ standard: 'nep171', version: '1.0.0', event: 'nft_transfer', data: [{ old_owner_id: 'a', new_owner_id: 'b', token_ids: ['1'] }] })}`,
      `EVENT_JSON:${JSON.stringify({ standard: 'dcl.ref', version: '1.0.0', event: 'swap', data: [good, { ...good, token_out: undefined }] })}`,
      `EVENT_JSON:${JSON.stringify({ standard: 'dcl.ref', version: '1.0.0', event: 'swap', data: good })}`,
      item('swap', { ...good, pool_id: 'a.near-b.near' }),
      `EVENT_JSON:${JSON.stringify({ standard: 'dcl.ref', version: '1.0.0', event: 'lostfound', data: [] })}`,
    ];
    const events = decodeAmmDclA(blockOf(HEIGHT, [outcome('R1', lines)]), MAINNET_CONTRACTS, book);
    const undecoded = (index: number, poolId: string | null, reason: string, raw: string) => ({ ...base(HEIGHT, 'R1', index), kind: 'undecoded', ...AMM, input: 'log', poolId, reason, raw });
    expect(events.filter((e) => e.kind !== 'pool_state')).toEqual([
      undecoded(0, POOL, 'pool_frozen item 0: unknown event', lines[0]!),
      undecoded(1, null, 'not an EVENT_JSON line', lines[1]!),
      { ...base(HEIGHT, 'R1', 2), kind: 'swap', ...AMM, poolId: POOL, trader: 'alice.near', tokenIn: A, tokenOut: B, amountIn: 1_000_000n, amountOut: 998_000n, totalFee: 2000n, adminFee: 400n },
      undecoded(3, POOL, 'swap item 1: token_out missing or malformed', lines[3]!),
      undecoded(4, null, 'swap: data is not an array', lines[4]!),
      undecoded(5, 'a.near-b.near', 'swap item 0: pool_id is not token_x|token_y|fee', lines[5]!),
      undecoded(6, null, 'lostfound: no item', lines[6]!),
    ]);
    // The good swap re-simulated (liquidityX 998 000); the unknown event and the unreadable item both named POOL.
    const state = stateIn(events);
    expect([state.liquidityX, state.lastSwapCheck?.matched, state.unappliedChanges]).toEqual([998_000n, true, 2]);
    expect(events.at(-1)).toMatchObject({ kind: 'pool_state', receiptId: 'R1', index: 7 });
  });

  it('the book takes any input without throwing: what it cannot apply is counted; a swap of nothing is no trade', () => {
    const book = newDclPoolBook([seed()]);
    const before = book.pools.get(POOL)!;
    const events = decodeAmmDclA(
      blockOf(HEIGHT, [
        // More liquidity than the book holds; an order in a token not of the pool; a range beyond +/-800000.
        outcome('R1', [
          item('emergency_liquidity_removed', { lpt_id: `${POOL}#1`, owner_id: 'bob.near', pool_id: POOL, left_point: -1000, right_point: 1000, removed_amount: String(2n * 10n ** 18n), cur_amount: '0', refund_token_x: '1', refund_token_y: '1' }),
        ]),
        outcome('R2', [
          item('order_cancelled', { order_id: `${POOL}#7`, created_at: '1', cancel_at: '2', owner_id: 'carol.near', pool_id: POOL, point: -120, sell_token: 'z.near', buy_token: A, request_cancel_amount: null, actual_cancel_amount: '5', original_amount: '5', cancel_amount: '5', remain_amount: '0', bought_amount: '0' }),
        ]),
        outcome('R3', [
          item('liquidity_added', { lpt_id: `${POOL}#2`, owner_id: 'bob.near', pool_id: POOL, left_point: -900_000, right_point: 0, added_amount: '5', cur_amount: '5', paid_token_x: '0', paid_token_y: '5' }),
        ]),
        // SwapByStopPoint when the price is already past the stop: the contract logs a swap of 0 for 0 (S).
        outcome('R4', [item('swap', { swapper: 'alice.near', token_in: A, token_out: B, amount_in: '0', amount_out: '0', pool_id: POOL, total_fee: '0', protocol_fee: '0' })]),
      ]),
      MAINNET_CONTRACTS,
      book,
    );
    expect(events.map((e) => [e.kind, e.receiptId])).toEqual([
      ['liquidity', 'R1'],
      ['liquidity', 'R3'],
      ['pool_state', 'R3'],
    ]);
    expect(book.pools.get(POOL)).toEqual({ ...before, unappliedChanges: 3 });
  });
});
