// AmmC (Intear DEX engine `dex.intear.near`, xyk DEX `slimedragon.near/xyk`): decoding on hand-built Lake blocks
// and the xyk quote math. No mainnet fixture touches this contract, so the blocks are built here with
// near/lake-json.ts in the event shapes of INTEARnear/dex (see dexes/amm-c/README.md). Every expected number was
// worked out by hand (python as the calculator); the arithmetic is in the comments.
import { describe, expect, it } from 'vitest';
import { decodeAmmC } from '../../dexes/amm-c/decode.ts';
import type { AmmCPoolState } from '../../dexes/amm-c/events.ts';
import { ammCContractExactOut, ammCQuoteExactIn, ammCQuoteExactOut } from '../../dexes/amm-c/math.ts';
import { MAINNET_CONTRACTS } from '../../dexes/contracts.ts';
import { normalizeStreamerMessage, type Block } from '../../near/block.ts';
import { blockView, functionCallAction, receiptOutcome, shard, type RawJson, type RawStatus } from '../../near/lake-json.ts';

const ENGINE = 'dex.intear.near';
const XYK = 'slimedragon.near/xyk';
const BD = 'blackdragon.tkn.near';
const USDT = 'usdt.tether-token.near';
const CAT = 'catcoin.tkn.near';
const PLACH = 'plach.intear.near';

const HEIGHT = 170_000_000;
const BLOCK_HASH = 'BLoCkHaSh11111111111111111111111111111111111';
const PREV_HASH = 'PReVHaSh111111111111111111111111111111111111';
/** 1_760_000_000_123_456_789 ns -> 1_760_000_000_123 ms. */
const TIMESTAMP_NS = 1_760_000_000_123_456_789n;
const TIMESTAMP_MS = 1_760_000_000_123;

const OK: RawStatus = { SuccessValue: '' };
const FAILED: RawStatus = {
  Failure: { ActionError: { index: 0, kind: { FunctionCallError: { ExecutionError: 'Smart contract panicked: Slippage error' } } } },
};

function blockOf(outcomes: RawJson[]): Block {
  return normalizeStreamerMessage({
    block: blockView({ height: HEIGHT, hash: BLOCK_HASH, prevHash: PREV_HASH, timestampNs: TIMESTAMP_NS, author: 'node0.poolv1.near', chunkHashes: ['Chunk0'] }),
    shards: [
      shard({ shardId: 0, chunkHash: 'Chunk0', blockHash: BLOCK_HASH, prevBlockHash: PREV_HASH, height: HEIGHT, transactions: [], outcomes, stateChanges: [] }),
    ],
  });
}

/** A receipt executed by `executor` (the engine unless told) with these logs. */
function outcome(receiptId: string, logs: string[], options: { status?: RawStatus; executor?: string; signer?: string } = {}): RawJson {
  const signer = options.signer ?? 'alice.near';
  return receiptOutcome({
    blockHash: BLOCK_HASH,
    receiptId,
    predecessorId: signer,
    receiverId: options.executor ?? ENGINE,
    signerId: signer,
    actions: [functionCallAction({ method: 'execute_operations', args: { operations: [] }, gas: 280n * 10n ** 12n, deposit: 1n })],
    logs,
    receiptIds: [],
    status: options.status ?? OK,
    txHash: `Tx${receiptId}`,
  });
}

const base = (receiptId: string, index: number) => ({ blockHeight: HEIGHT, timestampMs: TIMESTAMP_MS, receiptId, txHash: `Tx${receiptId}`, index });
const AMM_C = { dex: 'AmmC', contractId: ENGINE } as const;

const event = (standard: string, name: string, data: unknown) =>
  `EVENT_JSON:${JSON.stringify({ standard, version: '1.0.0', event: name, data })}`;
/** An xyk DEX event as the engine re-emits it. */
const xyk = (name: string, data: unknown, user: string | null = 'alice.near', dexId = XYK) =>
  event('inteardex', 'dex_event', { dex_id: dexId, event: { standard: 'xyk', version: '1.0.0', event: name, data }, referrer: null, user });
/** The engine's own per-hop swap event. */
const engineSwap = (request: unknown, amountIn: string, amountOut: string, trader: string, dexId = XYK) =>
  event('inteardex', 'swap', { dex_id: dexId, request, amount_in: amountIn, amount_out: amountOut, trader, referrer: null });

/** base64 of the borsh `SwapArgs {pool_id: u32}`: 7 -> 07 00 00 00. */
const POOL_7 = 'BwAAAA==';
const POOL_9 = 'CQAAAA==';
/** u32::MAX: "the pool created last". */
const LAST_CREATED = '/////w==';

const PLACH_FEE = [{ Account: PLACH }, 1000];

// ---- R1: alice swaps 10 000 (yocto) NEAR for blackdragon in public pool 7, written out literally ----
// Pool 7 before: [near 1 000 000, BD 2 000 000], fees Pool 2000 + plach 1000 millionths.
// fees: floor(10000·2000/10^6) = 20, floor(10000·1000/10^6) = 10; a' = 10000 − 30 = 9970
// out = floor(9970·2 000 000 / (1 000 000 + 9970)) = floor(19 940 000 000 / 1 009 970) = 19 743
// after: near 1 000 000 + 9970 + 20 (pool fee) = 1 009 990; BD 2 000 000 − 19 743 = 1 980 257
const R1_LOGS = [
  'EVENT_JSON:{"standard":"inteardex","version":"1.0.0","event":"user_balance_update","data":{"account_id":"alice.near","asset_id":"near","balance":"10000"}}',
  'EVENT_JSON:{"standard":"inteardex","version":"1.0.0","event":"dex_event","data":{"dex_id":"slimedragon.near/xyk","event":{"standard":"xyk","version":"1.0.0","event":"pool_updated","data":{"pool_id":7,"pool":{"Public":{"assets":[{"asset_id":"near","balance":"1009990"},{"asset_id":"nep141:blackdragon.tkn.near","balance":"1980257"}],"fees":{"receivers":[["Pool",2000],[{"Account":"plach.intear.near"},1000]]},"fee_configuration":{"receivers":[["Pool",2000]]},"total_shares":"1000000000000000000"}}}},"referrer":null,"user":"alice.near"}}',
  'EVENT_JSON:{"standard":"inteardex","version":"1.0.0","event":"dex_event","data":{"dex_id":"slimedragon.near/xyk","event":{"standard":"xyk","version":"1.0.0","event":"swap","data":{"pool_id":7,"request":{"message":"BwAAAA==","asset_in":"near","asset_out":"nep141:blackdragon.tkn.near","amount":{"ExactIn":"10000"},"referrer":null},"amount_in":"10000","amount_out":"19743","fees_breakdown":[["Pool","near","20"],[{"Account":"plach.intear.near"},"near","10"]]}},"referrer":null,"user":"alice.near"}}',
  'EVENT_JSON:{"standard":"inteardex","version":"1.0.0","event":"swap","data":{"dex_id":"slimedragon.near/xyk","request":{"message":"BwAAAA==","asset_in":"near","asset_out":"nep141:blackdragon.tkn.near","amount":{"ExactIn":"10000"},"referrer":null},"amount_in":"10000","amount_out":"19743","trader":"alice.near","referrer":null}}',
  'EVENT_JSON:{"standard":"inteardex","version":"1.0.0","event":"user_balance_update","data":{"account_id":"alice.near","asset_id":"nep141:blackdragon.tkn.near","balance":"19743"}}',
];

const POOL_7_BEFORE: AmmCPoolState = {
  kind: 'xyk',
  poolType: 'public',
  tokens: ['near', BD],
  amounts: [1_000_000n, 2_000_000n],
  totalFee: 3000,
  feeReceivers: [
    { kind: 'pool', accountId: null, fee: 2000 },
    { kind: 'account', accountId: PLACH, fee: 1000 },
  ],
  phantomLiquidity: null,
  totalShares: 10n ** 18n,
};
const POOL_7_AFTER_R1: AmmCPoolState = { ...POOL_7_BEFORE, amounts: [1_009_990n, 1_980_257n] };

/** A launch pool (v1): 50 000 real NEAR on top of the 1 000 000 phantom, fees creator 0.5%, Pool 0.2%, plach 0.1%. */
const LAUNCH: AmmCPoolState = {
  kind: 'xyk',
  poolType: 'launch',
  tokens: ['near', CAT],
  amounts: [1_050_000n, 10_000_000n],
  totalFee: 8000,
  feeReceivers: [
    { kind: 'account', accountId: 'creator.near', fee: 5000 },
    { kind: 'pool', accountId: null, fee: 2000 },
    { kind: 'account', accountId: PLACH, fee: 1000 },
  ],
  phantomLiquidity: 1_000_000n,
  totalShares: null,
};

describe('decodeAmmC', () => {
  it('a swap: the pool state after it, then the hop with its fees', () => {
    const events = decodeAmmC(blockOf([outcome('R1', R1_LOGS)]), MAINNET_CONTRACTS);
    expect(events).toEqual([
      { ...base('R1', 0), kind: 'pool_state', ...AMM_C, poolId: 7, state: POOL_7_AFTER_R1, source: 'event' },
      {
        ...base('R1', 1),
        kind: 'swap',
        ...AMM_C,
        poolId: 7,
        trader: 'alice.near',
        tokenIn: 'near',
        tokenOut: BD,
        amountIn: 10_000n,
        amountOut: 19_743n,
        totalFee: 30n, // 20 + 10, all in the input asset
        adminFee: 10n, // the plach part leaves the pool; the Pool part stays
      },
    ]);
  });

  it('a multi-hop swap: one swap per hop, in log order, with each pool state', () => {
    // bob: 50 000 BD -> NEAR in pool 7 (state after R1), then all of it -> USDT in private pool 9.
    // hop 1: fees floor(50000·0.002) = 100, floor(50000·0.001) = 50; a' = 49 850;
    //   out = floor(49 850·1 009 990 / (1 980 257 + 49 850)) = floor(50 348 001 500 / 2 030 107) = 24 800
    //   pool 7 after: BD 1 980 257 + 49 850 + 100 = 2 030 207; near 1 009 990 − 24 800 = 985 190
    // hop 2 (pool 9 [near 5 000 000, USDT 10 000 000], fees Pool 100 + plach 1, the reduced protocol fee):
    //   fees floor(24 800·100/10^6) = 2, floor(24 800·1/10^6) = 0; a' = 24 798;
    //   out = floor(24 798·10 000 000 / 5 024 798) = 49 351; pool 9 after: near 5 024 800, USDT 9 950 649
    const hop1Request = { message: POOL_7, asset_in: `nep141:${BD}`, asset_out: 'near', amount: { ExactIn: '50000' }, referrer: null };
    const hop2Request = { message: POOL_9, asset_in: 'near', asset_out: `nep141:${USDT}`, amount: { ExactIn: '24800' }, referrer: null };
    const pool9 = {
      Private: {
        assets: [
          { asset_id: 'near', balance: '5024800' },
          { asset_id: `nep141:${USDT}`, balance: '9950649' },
        ],
        fees: { receivers: [['Pool', 100], [{ Account: PLACH }, 1]] },
        fee_configuration: { receivers: [['Pool', 100]] },
        owner_id: 'carol.near',
        locked: true,
      },
    };
    const pool7 = {
      Public: {
        assets: [
          { asset_id: 'near', balance: '985190' },
          { asset_id: `nep141:${BD}`, balance: '2030207' },
        ],
        fees: { receivers: [['Pool', 2000], PLACH_FEE] },
        fee_configuration: { receivers: [['Pool', 2000]] },
        total_shares: '1000000000000000000',
      },
    };
    const logs = [
      xyk('pool_updated', { pool_id: 7, pool: pool7 }, 'bob.near'),
      xyk('swap', { pool_id: 7, request: hop1Request, amount_in: '50000', amount_out: '24800', fees_breakdown: [['Pool', `nep141:${BD}`, '100'], [{ Account: PLACH }, `nep141:${BD}`, '50']] }, 'bob.near'),
      engineSwap(hop1Request, '50000', '24800', 'bob.near'),
      xyk('pool_updated', { pool_id: 9, pool: pool9 }, 'bob.near'),
      xyk('swap', { pool_id: 9, request: hop2Request, amount_in: '24800', amount_out: '49351', fees_breakdown: [['Pool', 'near', '2'], [{ Account: PLACH }, 'near', '0']] }, 'bob.near'),
      engineSwap(hop2Request, '24800', '49351', 'bob.near'),
      'Withdrawing 49351 of nep141:usdt.tether-token.near to bob.near',
    ];
    const events = decodeAmmC(blockOf([outcome('R2', logs, { signer: 'bob.near' })]), MAINNET_CONTRACTS);
    expect(events).toEqual([
      { ...base('R2', 0), kind: 'pool_state', ...AMM_C, poolId: 7, state: { ...POOL_7_BEFORE, amounts: [985_190n, 2_030_207n] }, source: 'event' },
      { ...base('R2', 1), kind: 'swap', ...AMM_C, poolId: 7, trader: 'bob.near', tokenIn: BD, tokenOut: 'near', amountIn: 50_000n, amountOut: 24_800n, totalFee: 150n, adminFee: 50n },
      {
        ...base('R2', 2),
        kind: 'pool_state',
        ...AMM_C,
        poolId: 9,
        state: {
          kind: 'xyk',
          poolType: 'private',
          tokens: ['near', USDT],
          amounts: [5_024_800n, 9_950_649n],
          totalFee: 101,
          feeReceivers: [
            { kind: 'pool', accountId: null, fee: 100 },
            { kind: 'account', accountId: PLACH, fee: 1 },
          ],
          phantomLiquidity: null,
          totalShares: null,
        },
        source: 'event',
      },
      { ...base('R2', 3), kind: 'swap', ...AMM_C, poolId: 9, trader: 'bob.near', tokenIn: 'near', tokenOut: USDT, amountIn: 24_800n, amountOut: 49_351n, totalFee: 2n, adminFee: 0n },
    ]);
  });

  it('liquidity added to a public pool and removed from a private one', () => {
    const added = {
      pool_id: 9,
      asset_0: 'near',
      asset_1: `nep141:${USDT}`,
      added_amount_0: '500001',
      added_amount_1: '1000001',
      minted_shares: '100000000000000000',
      new_owned_asset_0: '500000',
      new_owned_asset_1: '1000000',
      new_owned_shares: '100000000000000000',
      new_total_asset_0: '5500001',
      new_total_asset_1: '11000001',
      new_total_shares: '1100000000000000000',
    };
    const removed = {
      pool_id: 4,
      asset_0: `nep141:${CAT}`,
      asset_1: 'near',
      removed_amount_0: '700',
      removed_amount_1: '30',
      burned_shares: '0',
      new_owned_asset_0: '0',
      new_owned_asset_1: '0',
      new_owned_shares: '0',
      new_total_asset_0: '0',
      new_total_asset_1: '0',
      new_total_shares: '0',
    };
    const events = decodeAmmC(
      blockOf([
        outcome('R3', [xyk('liquidity_added', added, 'bob.near')], { signer: 'bob.near' }),
        outcome('R4', [xyk('liquidity_removed', removed, 'carol.near')], { signer: 'carol.near' }),
      ]),
      MAINNET_CONTRACTS,
    );
    expect(events).toEqual([
      {
        ...base('R3', 0),
        kind: 'liquidity',
        ...AMM_C,
        poolId: 9,
        provider: 'bob.near',
        action: 'add',
        tokens: ['near', USDT],
        amounts: [500_001n, 1_000_001n],
        shares: 100_000_000_000_000_000n,
      },
      // a private pool has no shares: the contract reports 0
      { ...base('R4', 0), kind: 'liquidity', ...AMM_C, poolId: 4, provider: 'carol.near', action: 'remove', tokens: [CAT, 'near'], amounts: [700n, 30n], shares: null },
    ]);
  });

  it('a failed receipt with the same logs gives nothing', () => {
    expect(decodeAmmC(blockOf([outcome('R1', R1_LOGS, { status: FAILED })]), MAINNET_CONTRACTS)).toEqual([]);
  });

  it('the same logs from another contract, and events of another DEX inside the engine, are ignored', () => {
    expect(decodeAmmC(blockOf([outcome('R1', R1_LOGS, { executor: 'v2.ref-finance.near' })]), MAINNET_CONTRACTS)).toEqual([]);
    const otc = R1_LOGS.map((l) => l.replaceAll('slimedragon.near/xyk', 'someone.near/otc'));
    expect(decodeAmmC(blockOf([outcome('R1', otc)]), MAINNET_CONTRACTS)).toEqual([]);
  });

  it("keeps only the block's last state of a pool, numbering the rest per receipt", () => {
    // R1's pool 7 state is superseded by R5's: R1 keeps only its swap, now index 0.
    const r5 = [xyk('pool_updated', { pool_id: 7, pool: { Public: { assets: [{ asset_id: 'near', balance: '1' }, { asset_id: `nep141:${BD}`, balance: '2' }], fees: { receivers: [] }, fee_configuration: { receivers: [] }, total_shares: null } } })];
    const events = decodeAmmC(blockOf([outcome('R1', R1_LOGS), outcome('R5', r5)]), MAINNET_CONTRACTS);
    expect(events.map((e) => [e.receiptId, e.index, e.kind, e.poolId])).toEqual([
      ['R1', 0, 'swap', 7],
      ['R5', 0, 'pool_state', 7],
    ]);
    expect(events[1]).toMatchObject({ state: { amounts: [1n, 2n], totalFee: 0, feeReceivers: [], totalShares: null } });
  });

  it('a launch pool created and bought in one receipt: the real pool id behind the "last created" marker', () => {
    // Pool 12, Launch v1, created with near_amount = the phantom 1 000 000 and 10 000 000 CAT; fees creator 5000,
    // Pool 2000, plach 1000. Buy 100 000 NEAR: fees 500, 200, 100; a' = 99 200;
    // out = floor(99 200·10 000 000 / (1 000 000 + 99 200)) = floor(992 000 000 000 / 1 099 200) = 902 474;
    // after: near 1 000 000 + 99 200 + 200 = 1 099 400, CAT 10 000 000 − 902 474 = 9 097 526.
    // The creation state is superseded by the post-buy state of the same receipt: one pool_state.
    const launch = (near: string, cat: string) => ({
      Launch: {
        near_amount: near,
        launched_asset: { asset_id: `nep141:${CAT}`, balance: cat },
        fees: { receivers: [[{ Account: 'creator.near' }, 5000], ['Pool', 2000], PLACH_FEE] },
        fee_configuration: { receivers: [[{ Account: 'creator.near' }, { Fixed: 5000 }], ['Pool', { Fixed: 2000 }]] },
        phantom_liquidity_near: '1000000',
      },
    });
    const request = { message: LAST_CREATED, asset_in: 'near', asset_out: `nep141:${CAT}`, amount: { ExactIn: '100000' }, referrer: null };
    const logs = [
      xyk('pool_updated', { pool_id: 12, pool: launch('1000000', '10000000') }),
      xyk('pool_updated', { pool_id: 12, pool: launch('1099400', '9097526') }),
      xyk('swap', { pool_id: 12, request, amount_in: '100000', amount_out: '902474', fees_breakdown: [[{ Account: 'creator.near' }, 'near', '500'], ['Pool', 'near', '200'], [{ Account: PLACH }, 'near', '100']] }),
      engineSwap(request, '100000', '902474', 'alice.near'),
    ];
    const events = decodeAmmC(blockOf([outcome('R6', logs)]), MAINNET_CONTRACTS);
    expect(events).toEqual([
      {
        ...base('R6', 0),
        kind: 'pool_state',
        ...AMM_C,
        poolId: 12,
        state: { ...LAUNCH, amounts: [1_099_400n, 9_097_526n] },
        source: 'event',
      },
      { ...base('R6', 1), kind: 'swap', ...AMM_C, poolId: 12, trader: 'alice.near', tokenIn: 'near', tokenOut: CAT, amountIn: 100_000n, amountOut: 902_474n, totalFee: 800n, adminFee: 600n },
    ]);
  });

  it('without a matching inner swap: pool id from the request message, fees unknown; launch sells pay fees in NEAR', () => {
    const request9 = { message: POOL_9, asset_in: 'near', asset_out: `nep141:${USDT}`, amount: { ExactIn: '24800' }, referrer: null };
    // A launch-pool sell: account fees converted to the quote asset (NEAR), the Pool fee stays in CAT: no one unit.
    const sell = { message: 'DAAAAA==', asset_in: `nep141:${CAT}`, asset_out: 'near', amount: { ExactIn: '100000' }, referrer: null };
    const logs = [
      engineSwap(request9, '24800', '49351', 'dave.near'),
      xyk('swap', { pool_id: 12, request: sell, amount_in: '100000', amount_out: '10313', fees_breakdown: [[{ Account: 'creator.near' }, 'near', '51'], ['Pool', `nep141:${CAT}`, '200'], [{ Account: PLACH }, 'near', '10']] }),
      engineSwap(sell, '100000', '10313', 'dave.near'),
    ];
    const events = decodeAmmC(blockOf([outcome('R7', logs, { signer: 'dave.near' })]), MAINNET_CONTRACTS);
    expect(events).toEqual([
      { ...base('R7', 0), kind: 'swap', ...AMM_C, poolId: 9, trader: 'dave.near', tokenIn: 'near', tokenOut: USDT, amountIn: 24_800n, amountOut: 49_351n, totalFee: null, adminFee: null },
      { ...base('R7', 1), kind: 'swap', ...AMM_C, poolId: 12, trader: 'dave.near', tokenIn: CAT, tokenOut: 'near', amountIn: 100_000n, amountOut: 10_313n, totalFee: null, adminFee: null },
    ]);
  });

  it('skips what does not parse, never throws', () => {
    const logs = [
      'EVENT_JSON:{"standard":"inteardex",',
      'EVENT_JSON:null',
      event('inteardex', 'swap', null),
      engineSwap({ message: POOL_7, asset_in: 'nep245:mt.near:1', asset_out: 'near', amount: { ExactIn: '1' } }, '1', '1', 'alice.near'),
      engineSwap({ message: POOL_7, asset_in: 'near', asset_out: `nep141:${BD}`, amount: { ExactIn: '1' } }, '-1', '1', 'alice.near'),
      xyk('pool_updated', { pool_id: -1, pool: {} }),
      xyk('pool_updated', { pool_id: 3, pool: { Public: { assets: [], fees: { receivers: [] }, total_shares: null } } }),
      xyk('pool_updated', { pool_id: 3, pool: { Stable: {} } }),
    ];
    expect(decodeAmmC(blockOf([outcome('R8', logs)]), MAINNET_CONTRACTS)).toEqual([]);
  });
});

describe('AmmC xyk math', () => {
  it('exact in: fees per receiver floored, output floored, reserves as the contract leaves them', () => {
    // R1's swap, from the state before it (arithmetic above).
    expect(ammCQuoteExactIn(POOL_7_BEFORE, 'near', BD, 10_000n)).toEqual({
      amountIn: 10_000n,
      amountOut: 19_743n,
      feeAmounts: [20n, 10n],
      amountsAfter: [1_009_990n, 1_980_257n],
    });
    // the other way: 1 BD -> fees 0 and 0 (floors), out = floor(1·1 000 000 / 2 000 001) = 0
    expect(ammCQuoteExactIn(POOL_7_BEFORE, BD, 'near', 1n)).toEqual({ amountIn: 1n, amountOut: 0n, feeAmounts: [0n, 0n], amountsAfter: [1_000_000n, 2_000_001n] });
    expect(ammCQuoteExactIn(POOL_7_BEFORE, 'near', USDT, 10n)).toBeNull();
    expect(ammCQuoteExactIn(POOL_7_BEFORE, 'near', 'near', 10n)).toBeNull();
    expect(ammCQuoteExactIn(POOL_7_BEFORE, 'near', BD, 0n)).toBeNull();
    expect(ammCQuoteExactIn({ ...POOL_7_BEFORE, amounts: [0n, 5n] }, 'near', BD, 10n)).toBeNull();
  });

  it('exact out: the least input whose exact-in output covers the amount; the contract charges a bit more', () => {
    // b = 19 743 BD: a' must reach m = ceil(1 000 000·19 743 / (2 000 000 − 19 743)) = ceil(9969.918…) = 9970.
    // a = 9998: fees floor(19.996) = 19, floor(9.998) = 9 -> a' = 9970 ✓ (out = 19 743 as in R1)
    // a = 9997: fees 19, 9 -> a' = 9969 -> out = floor(19 938 000 000 / 1 009 969) = 19 741 < 19 743 ✗
    const least = ammCQuoteExactOut(POOL_7_BEFORE, 'near', BD, 19_743n);
    expect(least).toEqual({ amountIn: 9_998n, amountOut: 19_743n, feeAmounts: [19n, 9n], amountsAfter: [1_009_989n, 1_980_257n] });
    expect(ammCQuoteExactIn(POOL_7_BEFORE, 'near', BD, 9_997n)?.amountOut).toBe(19_741n);
    // the pool never loses: 1 009 989·1 980 257 = 2 000 037 787 173 >= 1 000 000·2 000 000
    const [near, bd] = least!.amountsAfter as [bigint, bigint];
    expect(near * bd >= 1_000_000n * 2_000_000n).toBe(true);
    // The contract's ExactOut: in0 = floor(9969.918…) + 1 = 9970, in = ceil(9970·10^6 / 997 000) = 10 000.
    expect(ammCContractExactOut(POOL_7_BEFORE, 'near', BD, 19_743n)).toEqual({
      amountIn: 10_000n,
      amountOut: 19_743n,
      feeAmounts: [20n, 10n],
      amountsAfter: [1_009_990n, 1_980_257n],
    });
    // b = 20 000: m = ceil(20 000 000 000 / 1 980 000) = ceil(10 101.01…) = 10 102; a = 10 132: fees floor(20.264) = 20,
    // floor(10.132) = 10 -> 10 102 ✓; a = 10 131: 20, 10 -> 10 101 ✗. Contract: in0 = 10 102,
    // in = ceil(10 102 000 000 / 997 000) = ceil(10 132.397…) = 10 133.
    expect(ammCQuoteExactOut(POOL_7_BEFORE, 'near', BD, 20_000n)?.amountIn).toBe(10_132n);
    expect(ammCQuoteExactIn(POOL_7_BEFORE, 'near', BD, 10_131n)!.amountOut < 20_000n).toBe(true);
    expect(ammCContractExactOut(POOL_7_BEFORE, 'near', BD, 20_000n)?.amountIn).toBe(10_133n);
    expect(ammCQuoteExactOut(POOL_7_BEFORE, 'near', BD, 2_000_000n)).toBeNull();
    expect(ammCContractExactOut(POOL_7_BEFORE, 'near', BD, 2_000_000n)).toBeNull();
  });

  it('launch pool: a buy keeps fees in NEAR; a sell converts the account fees to NEAR through the pool', () => {
    // buy 100 000 NEAR: fees 500, 200, 100; a' = 99 200; out = floor(99 200·10 000 000 / 1 149 200) = 863 209;
    // after: near 1 050 000 + 99 200 + 200 = 1 149 400; CAT 9 136 791
    expect(ammCQuoteExactIn(LAUNCH, 'near', CAT, 100_000n)).toEqual({
      amountIn: 100_000n,
      amountOut: 863_209n,
      feeAmounts: [500n, 200n, 100n],
      amountsAfter: [1_149_400n, 9_136_791n],
    });
    // sell 100 000 CAT: fees 500, 200, 100; a' = 99 200; out = floor(99 200·1 050 000 / 10 099 200) = 10 313;
    // CAT 10 000 000 + 99 200 + 200 = 10 099 400, near 1 050 000 − 10 313 = 1 039 687; then the fees:
    // creator 500 CAT -> floor(500·1 039 687 / 10 099 900) = 51 NEAR: CAT 10 099 900, near 1 039 636;
    // plach 100 CAT -> floor(100·1 039 636 / 10 100 000) = 10 NEAR: CAT 10 100 000, near 1 039 626 (>= 1 000 000)
    expect(ammCQuoteExactIn(LAUNCH, CAT, 'near', 100_000n)).toEqual({
      amountIn: 100_000n,
      amountOut: 10_313n,
      feeAmounts: [500n, 200n, 100n],
      amountsAfter: [1_039_626n, 10_100_000n],
    });
  });

  it('launch pool: a swap that would take the real NEAR below the phantom liquidity is refused', () => {
    // sell 600 000 CAT: fees 3000, 1200, 600; a' = 595 200; out = floor(595 200·1 050 000 / 10 595 200) = 58 985
    // > the 50 000 real NEAR: near would be 991 015 (then 990 679 after the fee conversion) < 1 000 000.
    expect(ammCQuoteExactIn(LAUNCH, CAT, 'near', 600_000n)).toBeNull();
    expect(ammCQuoteExactOut(LAUNCH, CAT, 'near', 60_000n)).toBeNull();
    expect(ammCContractExactOut(LAUNCH, CAT, 'near', 60_000n)).toBeNull();
    // buying never takes NEAR out
    expect(ammCQuoteExactIn(LAUNCH, 'near', CAT, 1_000_000n)).not.toBeNull();
  });
});
