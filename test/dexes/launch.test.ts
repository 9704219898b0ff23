// Launch (Aidols bonding curve `aidols.near`): decoding on hand-built Lake blocks and the curve math. No mainnet
// fixture holds an aidols receipt, so the blocks are built here with near/lake-json.ts in the `token_swap` shape and
// the curve record layout of dexes/launch/README.md. The curve numbers start from a real state: tganza.aidols.near
// right after its launch, token_hold 10^33 and wnear_hold 5·10^26, not deployed, tradable (INTEARnear/trade-indexer
// @ fd88302 src/tests.rs `detects_aidols_state_changes`, the storage write of receipt
// ErBeAEQyuWyab7ggYrzEZnPBo1sJA4GnJ6PhiCrMnn9y at block 137406981), whose key and value bytes are written out here by
// hand. Every expected number was worked out by hand (python as the calculator); the arithmetic is in the comments.
import { describe, expect, it } from 'vitest';
import { MAINNET_CONTRACTS } from '../../dexes/contracts.ts';
import { decodeLaunch } from '../../dexes/launch/decode.ts';
import type { LaunchPoolState } from '../../dexes/launch/events.ts';
import { launchQuoteExactIn, launchQuoteExactOut } from '../../dexes/launch/math.ts';
import { normalizeStreamerMessage, type Block } from '../../near/block.ts';
import { blockView, dataChange, functionCallAction, receiptOutcome, shard, type RawJson, type RawStatus } from '../../near/lake-json.ts';

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

function blockOf(outcomes: RawJson[], stateChanges: RawJson[] = []): Block {
  return normalizeStreamerMessage({
    block: blockView({ height: HEIGHT, hash: BLOCK_HASH, prevHash: PREV_HASH, timestampNs: TIMESTAMP_NS, author: 'node1.poolv1.near', chunkHashes: ['Chunk0'] }),
    shards: [shard({ shardId: 0, chunkHash: 'Chunk0', blockHash: BLOCK_HASH, prevBlockHash: PREV_HASH, height: HEIGHT, transactions: [], outcomes, stateChanges })],
  });
}

const hex = (text: string) => Buffer.from(text.replaceAll(' ', ''), 'hex');
/** A storage write (or, value null, deletion) of aidols.near by receipt `receiptId`. */
const write = (key: Uint8Array, value: Uint8Array | null, receiptId: string) => dataChange(AIDOLS, key, value, receiptId);

// The curve record of tganza (dexes/launch/README.md): key 0x00 ‖ u32le(18) ‖ "tganza.aidols.near";
// value u128le(10^33 = 0x314dc6448d9338c15b0a00000000) ‖ u128le(5·10^26 = 0x19d971e4fe8401e74000000) ‖
// is_deployed 00 ‖ is_tradable 01.
const TGANZA_KEY = hex('00 12000000 7467616e7a612e6169646f6c732e6e656172');
const TGANZA_LAUNCHED = hex('000000000a5bc138938d44c64d310000 000000741e40e84f1e979d0100000000 00 01');

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
  isDeployed: false,
  isTradable: true,
};

// ---- alice buys tganza for 10 NEAR (wNEAR), written out literally ----
// fee = max(0.01 NEAR, 1% of 10^25) = 10^23; net = 9.9·10^24
// out = floor(10^33·9.9·10^24 / (5·10^26 + 9.9·10^24)) = floor(9.9·10^57 / 5.099·10^26) = 19 415 571 680 721 710 139 242 988 821 337
// holds after: 10^33 − out = 980 584 428 319 278 289 860 757 011 178 663, 5·10^26 + 9.9·10^24 = 509 900 000 000 000 000 000 000 000
const BUY_LOG =
  'EVENT_JSON:{"standard":"aidols","version":"1.0.0","event":"token_swap","data":[{"user_id":"alice.near","input_token":"wrap.near","input_amount":"10000000000000000000000000","output_token":"tganza.aidols.near","output_amount":"19415571680721710139242988821337","referral_id":"dex-aggregator.intear.near","token_hold":"980584428319278289860757011178663","wnear_hold":"509900000000000000000000000","wnear_commission":"100000000000000000000000"}]}';
const BUY_OUT = 19_415_571_680_721_710_139_242_988_821_337n;
/** The state the buy's event gives: its holds; the flags are not in the event. */
const TGANZA_AFTER_BUY: LaunchPoolState = {
  ...TGANZA_START,
  amounts: [980_584_428_319_278_289_860_757_011_178_663n, 509_900_000_000_000_000_000_000_000n],
  isDeployed: null,
  isTradable: null,
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
  it('a buy in a block without the curve record: the swap, then the curve state from the event holds', () => {
    const events = decodeLaunch(blockOf([outcome('B1', [BUY_LOG])]), MAINNET_CONTRACTS);
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

  it('the curve record: the real state right after a launch (block 137406981), from storage', () => {
    const events = decodeLaunch(blockOf([], [write(TGANZA_KEY, TGANZA_LAUNCHED, 'ErBeAEQyuWyab7ggYrzEZnPBo1sJA4GnJ6PhiCrMnn9y')]), MAINNET_CONTRACTS);
    expect(events).toEqual([
      {
        blockHeight: HEIGHT,
        timestampMs: TIMESTAMP_MS,
        receiptId: 'ErBeAEQyuWyab7ggYrzEZnPBo1sJA4GnJ6PhiCrMnn9y',
        txHash: null,
        index: 0,
        kind: 'pool_state',
        ...LAUNCH,
        poolId: TGANZA,
        state: TGANZA_START,
        source: 'storage',
      },
    ]);
  });

  it('storage is the truth: with the record written in the block, its state replaces the event holds', () => {
    // The buy's receipt writes the record: holds as the event says, and (made up here) the curve graduated.
    // 980 584 428 319 278 289 860 757 011 178 663 = 0x3058b72c13bce55da8723bf224a7 -> le a724f23b72a85de5bc132cb758300000;
    // 509 900 000 000 000 000 000 000 000 = 0x1a5c7866334601bc7800000 -> le 000080c71b60346386c7a50100000000.
    const graduated = hex('a724f23b72a85de5bc132cb758300000 000080c71b60346386c7a50100000000 01 00');
    const events = decodeLaunch(blockOf([outcome('B1', [BUY_LOG])], [write(TGANZA_KEY, graduated, 'B1')]), MAINNET_CONTRACTS);
    expect(events.map((e) => [e.receiptId, e.index, e.kind])).toEqual([
      ['B1', 0, 'swap'],
      ['B1', 1, 'pool_state'],
    ]);
    expect(events[1]).toMatchObject({ poolId: TGANZA, source: 'storage', state: { ...TGANZA_AFTER_BUY, isDeployed: true, isTradable: false } });
  });

  it('the last write of a record counts; other keys of the contract are not curve records', () => {
    // token_hold 99, wnear_hold 0: superseded by the second write.
    const ninetyNine = hex('63000000000000000000000000000000 00000000000000000000000000000000 00 01');
    const other = [
      write(Buffer.from('STATE'), hex('01'), 'B1'),
      write(hex('01 12000000 7467616e7a612e6169646f6c732e6e656172'), hex('00'), 'B1'), // another prefix
      write(hex('00 13000000 7467616e7a612e6169646f6c732e6e656172'), hex('00'), 'B1'), // length 19 for 18 bytes
      write(hex('00'), hex('00'), 'B1'), // no string at all
    ];
    const events = decodeLaunch(blockOf([], [write(TGANZA_KEY, ninetyNine, 'B1'), ...other, write(TGANZA_KEY, TGANZA_LAUNCHED, 'B2')]), MAINNET_CONTRACTS);
    expect(events.map((e) => [e.receiptId, e.kind, e.kind === 'pool_state' && e.state.amounts])).toEqual([['B2', 'pool_state', TGANZA_START.amounts]]);
  });

  it('a record that does not decode exactly, or is deleted, is an undecoded write naming the curve', () => {
    const cases: Array<[Uint8Array | null, string]> = [
      [Buffer.concat([TGANZA_LAUNCHED, hex('00')]), 'curve record: 1 leftover byte(s) after offset 34 of 35'],
      [TGANZA_LAUNCHED.subarray(0, 32), 'u8: needs 1 byte(s) at offset 32, only 0 left'],
      [Buffer.concat([TGANZA_LAUNCHED.subarray(0, 33), hex('02')]), 'bool: invalid byte 2 at offset 33'],
      [null, 'curve record deleted'],
    ];
    for (const [value, reason] of cases) {
      const events = decodeLaunch(blockOf([], [write(TGANZA_KEY, value, 'B1')]), MAINNET_CONTRACTS);
      const raw = `${TGANZA_KEY.toString('base64')}=${value === null ? '' : Buffer.from(value).toString('base64')}`;
      expect(events).toEqual([{ ...base('B1', 0), txHash: null, kind: 'undecoded', ...LAUNCH, input: 'state', poolId: TGANZA, reason, raw }]);
    }
  });

  it('any other line of a successful receipt is an undecoded log line; a token_swap is read whole or not at all', () => {
    const noWnear = { ...SELL_ITEM, output_token: 'usdt.tether-token.near' };
    const lines: Array<[string, string]> = [
      [tokenSwap([SELL_ITEM, noWnear]), 'token_swap item 1: not a trade of wrap.near against one token: score.aidols.near -> usdt.tether-token.near'],
      [tokenSwap([{ ...SELL_ITEM, input_amount: '1.5' }]), 'token_swap item 0: input_amount is not a u128'],
      [tokenSwap([{ ...SELL_ITEM, input_token: WNEAR }]), 'token_swap item 0: not a trade of wrap.near against one token: wrap.near -> wrap.near'],
      [tokenSwap([{ ...SELL_ITEM, user_id: 'Bob' }]), 'token_swap item 0: user_id is not an account id'],
      [tokenSwap([{ ...SELL_ITEM, referral_id: 7 }]), 'token_swap item 0: referral_id is not an account id or null'],
      [tokenSwap(['x']), 'token_swap item 0: not an object'],
      ['EVENT_JSON:{"standard":"aidols","event":"token_swap","data":{}}', 'token_swap data is not a list'],
      ['EVENT_JSON:{"event":"token_swap",', 'not a NEP-297 event'],
      ['Transfer 1 from a to b', 'not a NEP-297 event'],
      [`EVENT_JSON:${JSON.stringify({ standard: 'aidols', version: '1.0.0', event: 'token_deploy', data: [{ token_id: TGANZA }] })}`, 'unknown event token_deploy (standard aidols)'],
    ];
    const events = decodeLaunch(blockOf([outcome('B3', lines.map(([line]) => line))]), MAINNET_CONTRACTS);
    expect(events).toEqual(lines.map(([raw, reason], i) => ({ ...base('B3', i), kind: 'undecoded', ...LAUNCH, input: 'log', poolId: null, reason, raw })));
  });

  it('the event is matched by name and fields, whatever its standard', () => {
    const other = BUY_LOG.replace('"standard":"aidols","version":"1.0.0"', '"standard":"nep141","version":"9"');
    expect(decodeLaunch(blockOf([outcome('B1', [other])]), MAINNET_CONTRACTS)).toEqual(decodeLaunch(blockOf([outcome('B1', [BUY_LOG])]), MAINNET_CONTRACTS));
  });
});

describe('Launch curve math', () => {
  it('a curve whose record says it is not tradable is not quoted; one whose flags are unknown (event holds) is', () => {
    const graduated = { ...TGANZA_START, isDeployed: true, isTradable: false };
    expect(launchQuoteExactIn(graduated, WNEAR, TGANZA, 10n * E24)).toBeNull();
    expect(launchQuoteExactIn(graduated, TGANZA, WNEAR, 10n ** 31n)).toBeNull();
    expect(launchQuoteExactOut(graduated, WNEAR, TGANZA, BUY_OUT)).toBeNull();
    expect(launchQuoteExactOut(graduated, TGANZA, WNEAR, E24)).toBeNull();
    expect(launchQuoteExactIn({ ...TGANZA_START, isDeployed: null, isTradable: null }, WNEAR, TGANZA, 10n * E24)?.amountOut).toBe(BUY_OUT);
  });

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
