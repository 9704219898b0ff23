// Launch (Aidols bonding curve `aidols.near`): decoding on hand-built Lake blocks and the curve math. No mainnet
// fixture holds an aidols trade, so the blocks are built here with near/lake-json.ts in the `token_swap` shape of
// dexes/launch/README.md. The curve numbers start from a real state: tganza.aidols.near right after its launch,
// token_hold 10^33 and wnear_hold 5·10^26 (INTEARnear/trade-indexer's test at block 137406981). Every expected
// number was worked out by hand (python as the calculator); the arithmetic is in the comments.
import { describe, expect, it } from 'vitest';
import { MAINNET_CONTRACTS } from '../../dexes/contracts.ts';
import { decodeLaunch } from '../../dexes/launch/decode.ts';
import type { LaunchPoolState } from '../../dexes/launch/events.ts';
import { launchQuoteExactIn, launchQuoteExactOut } from '../../dexes/launch/math.ts';
import { normalizeStreamerMessage, type Block } from '../../near/block.ts';
import { blockView, functionCallAction, receiptOutcome, shard, type RawJson, type RawStatus } from '../../near/lake-json.ts';

const AIDOLS = 'aidols.near';
const WNEAR = 'wrap.near';
const TGANZA = 'tganza.aidols.near';
const SCORE = 'score.aidols.near';
const E24 = 10n ** 24n;

const HEIGHT = 171_000_000;
const BLOCK_HASH = 'BLoCkHaSh22222222222222222222222222222222222';
const PREV_HASH = 'PReVHaSh222222222222222222222222222222222222';
/** 1_760_000_100_987_654_321 ns -> 1_760_000_100_987 ms. */
const TIMESTAMP_NS = 1_760_000_100_987_654_321n;
const TIMESTAMP_MS = 1_760_000_100_987;

const OK: RawStatus = { SuccessValue: 'IjAi' };
const FAILED: RawStatus = {
  Failure: { ActionError: { index: 0, kind: { FunctionCallError: { ExecutionError: 'Smart contract panicked: Slippage' } } } },
};

function blockOf(outcomes: RawJson[]): Block {
  return normalizeStreamerMessage({
    block: blockView({ height: HEIGHT, hash: BLOCK_HASH, prevHash: PREV_HASH, timestampNs: TIMESTAMP_NS, author: 'node1.poolv1.near', chunkHashes: ['Chunk0'] }),
    shards: [
      shard({ shardId: 0, chunkHash: 'Chunk0', blockHash: BLOCK_HASH, prevBlockHash: PREV_HASH, height: HEIGHT, transactions: [], outcomes, stateChanges: [] }),
    ],
  });
}

/** The `ft_on_transfer` receipt the contract executes for a trade (wrap.near -> aidols.near for a buy). */
function outcome(receiptId: string, logs: string[], options: { status?: RawStatus; executor?: string } = {}): RawJson {
  return receiptOutcome({
    blockHash: BLOCK_HASH,
    receiptId,
    predecessorId: WNEAR,
    receiverId: options.executor ?? AIDOLS,
    signerId: 'alice.near',
    actions: [functionCallAction({ method: 'ft_on_transfer', args: { sender_id: 'alice.near', amount: '1', msg: '{}' }, gas: 40n * 10n ** 12n, deposit: 0n })],
    logs,
    receiptIds: [],
    status: options.status ?? OK,
    txHash: `Tx${receiptId}`,
  });
}

const base = (receiptId: string, index: number) => ({ blockHeight: HEIGHT, timestampMs: TIMESTAMP_MS, receiptId, txHash: `Tx${receiptId}`, index });
const LAUNCH = { dex: 'Launch', contractId: AIDOLS } as const;

const tokenSwap = (items: unknown[]) => `EVENT_JSON:${JSON.stringify({ standard: 'aidols', version: '1.0.0', event: 'token_swap', data: items })}`;

/** tganza right after its launch. */
const TGANZA_START: LaunchPoolState = {
  kind: 'curve',
  tokens: [TGANZA, WNEAR],
  amounts: [10n ** 33n, 5n * 10n ** 26n],
  totalFee: 10_000,
  minFee: 10n ** 22n,
};

// ---- alice buys tganza for 10 NEAR (wNEAR), written out literally ----
// fee = max(0.01 NEAR, 1% of 10^25) = 10^23; net = 9.9·10^24
// out = floor(10^33·9.9·10^24 / (5·10^26 + 9.9·10^24)) = floor(9.9·10^57 / 5.099·10^26) = 19 415 571 680 721 710 139 242 988 821 337
// holds after: 10^33 − out = 980 584 428 319 278 289 860 757 011 178 663, 5·10^26 + 9.9·10^24 = 509 900 000 000 000 000 000 000 000
const BUY_LOG =
  'EVENT_JSON:{"standard":"aidols","version":"1.0.0","event":"token_swap","data":[{"user_id":"alice.near","input_token":"wrap.near","input_amount":"10000000000000000000000000","output_token":"tganza.aidols.near","output_amount":"19415571680721710139242988821337","referral_id":"dex-aggregator.intear.near","token_hold":"980584428319278289860757011178663","wnear_hold":"509900000000000000000000000","wnear_commission":"100000000000000000000000"}]}';
const BUY_OUT = 19_415_571_680_721_710_139_242_988_821_337n;
const TGANZA_AFTER_BUY: LaunchPoolState = {
  ...TGANZA_START,
  amounts: [980_584_428_319_278_289_860_757_011_178_663n, 509_900_000_000_000_000_000_000_000n],
};

// ---- bob sells 10^31 score (same starting curve) ----
// gross = floor(5·10^26·10^31 / (10^33 + 10^31)) = floor(5·10^57 / 1.01·10^33) = 4 950 495 049 504 950 495 049 504
// fee = floor(gross / 100) = 49 504 950 495 049 504 950 495 (> 10^22); out = 4 900 990 099 009 900 990 099 009
// holds after: 1.01·10^33, 5·10^26 − gross = 495 049 504 950 495 049 504 950 496
const SELL_ITEM = {
  user_id: 'bob.near',
  input_token: SCORE,
  input_amount: '10000000000000000000000000000000',
  output_token: WNEAR,
  output_amount: '4900990099009900990099009',
  referral_id: null,
  token_hold: '1010000000000000000000000000000000',
  wnear_hold: '495049504950495049504950496',
  wnear_commission: '49504950495049504950495',
};

describe('decodeLaunch', () => {
  it('a buy: the swap, then the curve state from the event holds', () => {
    const events = decodeLaunch(blockOf([outcome('B1', ['Transfer 1 from a to b', BUY_LOG])]), MAINNET_CONTRACTS);
    expect(events).toEqual([
      {
        ...base('B1', 0),
        kind: 'swap',
        ...LAUNCH,
        poolId: TGANZA,
        trader: 'alice.near',
        tokenIn: WNEAR,
        tokenOut: TGANZA,
        amountIn: 10n * E24,
        amountOut: BUY_OUT,
        totalFee: 10n ** 23n,
        adminFee: null,
      },
      { ...base('B1', 1), kind: 'pool_state', ...LAUNCH, poolId: TGANZA, state: TGANZA_AFTER_BUY, source: 'event' },
    ]);
  });

  it("a sell; two trades of one curve in a block keep only the last curve state", () => {
    // B2 trades tganza again after B1: B1's pool_state is superseded (its swap keeps index 0).
    const again = { ...SELL_ITEM, input_token: TGANZA, token_hold: '990000000000000000000000000000000', wnear_hold: '505000000000000000000000000' };
    const events = decodeLaunch(
      blockOf([outcome('B1', [BUY_LOG]), outcome('B2', [tokenSwap([SELL_ITEM, again])])]),
      MAINNET_CONTRACTS,
    );
    expect(events.map((e) => [e.receiptId, e.index, e.kind, e.poolId])).toEqual([
      ['B1', 0, 'swap', TGANZA],
      ['B2', 0, 'swap', SCORE],
      ['B2', 1, 'pool_state', SCORE],
      ['B2', 2, 'swap', TGANZA],
      ['B2', 3, 'pool_state', TGANZA],
    ]);
    expect(events[1]).toEqual({
      ...base('B2', 0),
      kind: 'swap',
      ...LAUNCH,
      poolId: SCORE,
      trader: 'bob.near',
      tokenIn: SCORE,
      tokenOut: WNEAR,
      amountIn: 10n ** 31n,
      amountOut: 4_900_990_099_009_900_990_099_009n,
      totalFee: 49_504_950_495_049_504_950_495n,
      adminFee: null,
    });
    expect(events[2]).toMatchObject({ state: { tokens: [SCORE, WNEAR], amounts: [1_010n * 10n ** 30n, 495_049_504_950_495_049_504_950_496n] } });
    expect(events[4]).toMatchObject({ state: { tokens: [TGANZA, WNEAR], amounts: [990n * 10n ** 30n, 505n * 10n ** 24n] } });
  });

  it('a failed receipt with the same logs gives nothing', () => {
    expect(decodeLaunch(blockOf([outcome('B1', [BUY_LOG], { status: FAILED })]), MAINNET_CONTRACTS)).toEqual([]);
  });

  it('the same event from another contract is ignored', () => {
    expect(decodeLaunch(blockOf([outcome('B1', [BUY_LOG], { executor: 'gra-fun.near' })]), MAINNET_CONTRACTS)).toEqual([]);
  });

  it('an event with one bad item is skipped whole; malformed logs never throw', () => {
    const noWnear = { ...SELL_ITEM, output_token: 'usdt.tether-token.near' };
    const logs = [
      tokenSwap([SELL_ITEM, noWnear]),
      tokenSwap([{ ...SELL_ITEM, input_amount: '1.5' }]),
      tokenSwap([{ ...SELL_ITEM, input_token: WNEAR }]),
      'EVENT_JSON:{"event":"token_swap","data":{}}',
      'EVENT_JSON:{"event":"token_swap",',
      'EVENT_JSON:null',
    ];
    expect(decodeLaunch(blockOf([outcome('B3', logs)]), MAINNET_CONTRACTS)).toEqual([]);
  });
});

describe('Launch curve math', () => {
  it('exact in, buys: 1% fee above 1 NEAR, the 0.01 NEAR floor below, refused when the fee takes it all', () => {
    expect(launchQuoteExactIn(TGANZA_START, WNEAR, TGANZA, 10n * E24)).toEqual({
      amountIn: 10n * E24,
      amountOut: BUY_OUT,
      fee: 10n ** 23n,
      amountsAfter: TGANZA_AFTER_BUY.amounts,
    });
    // 0.5 NEAR: 1% = 5·10^21 < 10^22, so fee = 10^22; net = 4.9·10^23;
    // out = floor(10^33·4.9·10^23 / 5.0049·10^26) = 979 040 540 270 534 875 821 694 739 155
    expect(launchQuoteExactIn(TGANZA_START, WNEAR, TGANZA, 5n * 10n ** 23n)).toMatchObject({
      amountOut: 979_040_540_270_534_875_821_694_739_155n,
      fee: 10n ** 22n,
    });
    expect(launchQuoteExactIn(TGANZA_START, WNEAR, TGANZA, 10n ** 22n)).toBeNull();
    // one yocto above the floor: net 1 -> floor(10^33 / (5·10^26 + 1)) = 1 999 999
    expect(launchQuoteExactIn(TGANZA_START, WNEAR, TGANZA, 10n ** 22n + 1n)?.amountOut).toBe(1_999_999n);
    expect(launchQuoteExactIn(TGANZA_START, WNEAR, SCORE, E24)).toBeNull();
    expect(launchQuoteExactIn(TGANZA_START, WNEAR, TGANZA, 0n)).toBeNull();
  });

  it('exact in, sells: the fee comes out of the wNEAR the curve gives', () => {
    const start = { ...TGANZA_START, tokens: [SCORE, WNEAR] };
    expect(launchQuoteExactIn(start, SCORE, WNEAR, 10n ** 31n)).toEqual({
      amountIn: 10n ** 31n,
      amountOut: 4_900_990_099_009_900_990_099_009n,
      fee: 49_504_950_495_049_504_950_495n,
      amountsAfter: [1_010n * 10n ** 30n, 495_049_504_950_495_049_504_950_496n],
    });
    // 2·10^28 tokens: gross = floor(10^55 / (10^33 + 2·10^28)) = 9 999 800 003 999 920 001 599 < the 10^22 floor: refused
    expect(launchQuoteExactIn(start, SCORE, WNEAR, 2n * 10n ** 28n)).toBeNull();
  });

  it('exact out, buys: the least input whose exact-in output covers the amount', () => {
    // BUY_OUT needs net >= ceil(5·10^26·BUY_OUT / (10^33 − BUY_OUT)) = 9.9·10^24. 10 NEAR − 1 yocto already does it:
    // fee = floor((10^25 − 1)/100) = 10^23 − 1, net = 10^25 − 1 − (10^23 − 1) = 9.9·10^24. One yocto less:
    // fee 10^23 − 1 again, net 9.9·10^24 − 1 -> fewer tokens.
    const least = launchQuoteExactOut(TGANZA_START, WNEAR, TGANZA, BUY_OUT);
    expect(least).toMatchObject({ amountIn: 10n * E24 - 1n, amountOut: BUY_OUT, fee: 10n ** 23n - 1n });
    expect(launchQuoteExactIn(TGANZA_START, WNEAR, TGANZA, 10n * E24 - 2n)!.amountOut < BUY_OUT).toBe(true);
    // 10^30 tokens: net = ceil(5·10^56 / 9.99·10^32) = 500 500 500 500 500 500 500 501; in the floor regime
    // (1% of ~0.51 NEAR < 0.01 NEAR): a = net + 10^22 = 510 500 500 500 500 500 500 501
    expect(launchQuoteExactOut(TGANZA_START, WNEAR, TGANZA, 10n ** 30n)?.amountIn).toBe(510_500_500_500_500_500_500_501n);
    expect(launchQuoteExactIn(TGANZA_START, WNEAR, TGANZA, 510_500_500_500_500_500_500_500n)!.amountOut < 10n ** 30n).toBe(true);
    expect(launchQuoteExactOut(TGANZA_START, WNEAR, TGANZA, 10n ** 33n)).toBeNull();
  });

  it('exact out, sells: the least gross wNEAR that leaves the amount after the fee, then the least tokens', () => {
    const start = { ...TGANZA_START, tokens: [SCORE, WNEAR] };
    // 1 NEAR out: least gross v with v − floor(v/100) >= 10^24 is 1 010 101 010 101 010 101 010 101 (fee
    // 10 101 010 101 010 101 010 101); tokens = ceil(10^33·gross / (5·10^26 − gross))
    // = ceil(1.010101…·10^57 / 498 989 898 989 898 989 898 989 899) = 2 024 291 497 975 708 502 024 291 477 692
    expect(launchQuoteExactOut(start, SCORE, WNEAR, E24)).toEqual({
      amountIn: 2_024_291_497_975_708_502_024_291_477_692n,
      amountOut: E24,
      fee: 10_101_010_101_010_101_010_101n,
      amountsAfter: [1_002_024_291_497_975_708_502_024_291_477_692n, 498_989_898_989_898_989_898_989_899n],
    });
    expect(launchQuoteExactIn(start, SCORE, WNEAR, 2_024_291_497_975_708_502_024_291_477_691n)?.amountOut).toBe(E24 - 1n);
    // 0.005 NEAR out, in the floor regime: gross = 5·10^21 + 10^22 = 1.5·10^22;
    // tokens = ceil(1.5·10^55 / 499 985 000 000 000 000 000 000 000) = 30 000 900 027 000 810 024 300 729 022
    expect(launchQuoteExactOut(start, SCORE, WNEAR, 5n * 10n ** 21n)).toMatchObject({
      amountIn: 30_000_900_027_000_810_024_300_729_022n,
      amountOut: 5n * 10n ** 21n,
      fee: 10n ** 22n,
    });
    expect(launchQuoteExactOut(start, SCORE, WNEAR, 5n * 10n ** 26n)).toBeNull();
  });
});
