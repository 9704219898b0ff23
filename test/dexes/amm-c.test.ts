// AmmC (Intear DEX engine `dex.intear.near`, xyk DEX `slimedragon.near/xyk`): decoding on hand-built Lake blocks
// and the xyk quote math. No mainnet fixture touches this contract, so the blocks are built here with
// near/lake-json.ts in the event shapes of dexes/amm-c/README.md. Two kinds of values: the real ones of the mainnet
// blocks INTEARnear/trade-indexer's tests assert (src/tests.rs @ fd88302: a swap and its pool state at 183810122,
// liquidity at 184680178-184680181 and 184680720-184680723), copied by hand into lines of the real format, and
// hand-made pools whose every expected number was worked out by hand (python as the calculator; the arithmetic is
// in the comments).
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

function blockOf(outcomes: RawJson[], { height, timestampNs } = { height: HEIGHT, timestampNs: TIMESTAMP_NS }): Block {
  return normalizeStreamerMessage({
    block: blockView({ height, hash: BLOCK_HASH, prevHash: PREV_HASH, timestampNs, author: 'node0.poolv1.near', chunkHashes: ['Chunk0'] }),
    shards: [shard({ shardId: 0, chunkHash: 'Chunk0', blockHash: BLOCK_HASH, prevBlockHash: PREV_HASH, height, transactions: [], outcomes, stateChanges: [] })],
  });
}

/** A receipt executed by `executor` (the engine unless told) with these logs. */
function outcome(receiptId: string, logs: string[], options: { status?: RawStatus; executor?: string; signer?: string; txHash?: string } = {}): RawJson {
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
    txHash: options.txHash ?? `Tx${receiptId}`,
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
  'EVENT_JSON:{"standard":"inteardex","version":"1.0.0","event":"dex_event","data":{"dex_id":"slimedragon.near/xyk","event":{"standard":"xyk","version":"1.0.0","event":"swap","data":{"pool_id":7,"request":{"message":"BwAAAA==","asset_in":"near","asset_out":"nep141:blackdragon.tkn.near","amount":{"ExactIn":"10000"}},"amount_in":"10000","amount_out":"19743","fees_breakdown":[["Pool","near","20"],[{"Account":"plach.intear.near"},"near","10"]]}},"referrer":null,"user":"alice.near"}}',
  'EVENT_JSON:{"standard":"inteardex","version":"1.0.0","event":"swap","data":{"dex_id":"slimedragon.near/xyk","request":{"message":"BwAAAA==","asset_in":"near","asset_out":"nep141:blackdragon.tkn.near","amount":{"ExactIn":"10000"}},"amount_in":"10000","amount_out":"19743","trader":"alice.near","referrer":null}}',
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
    const hop1Request = { message: POOL_7, asset_in: `nep141:${BD}`, asset_out: 'near', amount: { ExactIn: '50000' } };
    const hop2Request = { message: POOL_9, asset_in: 'near', asset_out: `nep141:${USDT}`, amount: { ExactIn: '24800' } };
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
      // What the engine's source logs besides (INTEARnear/dex src/internal_operations.rs): nothing we index.
      event('inteardex', 'withdraw', { from: { Account: 'bob.near' }, to: 'bob.near', asset_id: `nep141:${USDT}`, amount: '49351' }),
      'Fully authorized: true',
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
    const request = { message: LAST_CREATED, asset_in: 'near', asset_out: `nep141:${CAT}`, amount: { ExactIn: '100000' } };
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

  it('an engine swap alone is the hop (pool id from the request message, fees unknown); a launch sell pays fees in NEAR: unknown too', () => {
    const request9 = { message: POOL_9, asset_in: 'near', asset_out: `nep141:${USDT}`, amount: { ExactIn: '24800' } };
    // A launch-pool sell: account fees converted to the quote asset (NEAR), the Pool fee stays in CAT: no one unit.
    const sell = { message: 'DAAAAA==', asset_in: `nep141:${CAT}`, asset_out: 'near', amount: { ExactIn: '100000' } };
    const logs = [
      engineSwap(request9, '24800', '49351', 'dave.near'),
      xyk('swap', { pool_id: 12, request: sell, amount_in: '100000', amount_out: '10313', fees_breakdown: [[{ Account: 'creator.near' }, 'near', '51'], ['Pool', `nep141:${CAT}`, '200'], [{ Account: PLACH }, 'near', '10']] }, 'dave.near'),
      engineSwap(sell, '100000', '10313', 'dave.near'),
    ];
    const events = decodeAmmC(blockOf([outcome('R7', logs, { signer: 'dave.near' })]), MAINNET_CONTRACTS);
    expect(events).toEqual([
      { ...base('R7', 0), kind: 'swap', ...AMM_C, poolId: 9, trader: 'dave.near', tokenIn: 'near', tokenOut: USDT, amountIn: 24_800n, amountOut: 49_351n, totalFee: null, adminFee: null },
      { ...base('R7', 1), kind: 'swap', ...AMM_C, poolId: 12, trader: 'dave.near', tokenIn: CAT, tokenOut: 'near', amountIn: 100_000n, amountOut: 10_313n, totalFee: null, adminFee: null },
    ]);
  });

  it('an inner swap is the trade: its twin engine line adds nothing, and gives the trader when the wrapper has no user', () => {
    // R1 without the engine line: the same events. With a dex_event of an older engine (no user): the engine's trader.
    const [poolUpdated, innerSwap, engineLine] = R1_LOGS.slice(1, 4) as [string, string, string];
    const expected = decodeAmmC(blockOf([outcome('R1', R1_LOGS)]), MAINNET_CONTRACTS);
    expect(decodeAmmC(blockOf([outcome('R1', [poolUpdated, innerSwap])]), MAINNET_CONTRACTS)).toEqual(expected);
    const noUser = innerSwap.replace(',"referrer":null,"user":"alice.near"}}', '}}');
    expect(decodeAmmC(blockOf([outcome('R1', [poolUpdated, noUser])]), MAINNET_CONTRACTS).map((e) => e.kind === 'swap' && e.trader)).toEqual([false, null]);
    expect(decodeAmmC(blockOf([outcome('R1', [poolUpdated, noUser, engineLine])]), MAINNET_CONTRACTS)).toEqual(expected);
    // Two identical hops in one receipt are two trades: each engine line pairs with one inner swap.
    const twice = decodeAmmC(blockOf([outcome('R1', [innerSwap, engineLine, innerSwap, engineLine])]), MAINNET_CONTRACTS);
    expect(twice.map((e) => [e.kind, e.index])).toEqual([
      ['swap', 0],
      ['swap', 1],
    ]);
  });

  it('what the engine logs and we cannot read is an undecoded event; known lines and other DEXes are skipped; never throws', () => {
    const request = { message: POOL_7, asset_in: 'near', asset_out: `nep141:${BD}`, amount: { ExactIn: '10' } };
    const known = [
      'Fully authorized: false',
      'After withdraw: Ok(())',
      'Refunding to bob.near because withdrawal to bob.near failed: Failed',
      '[someone.near/otc] a plain line of another DEX',
      event('inteardex', 'user_deposit', { account_id: 'alice.near', asset_id: 'near', amount: '10' }),
      event('inteardex', 'dex_balance_update', { dex_id: XYK, asset_id: 'near', balance: '10' }),
      xyk('order_filled', { id: 1 }, 'alice.near', 'someone.near/otc'),
      // a pool and a hop of an asset kind we have no token id for (Intear's indexer skips them too)
      xyk('pool_updated', { pool_id: 5, pool: { Private: { assets: [{ asset_id: 'nep245:intents.near:nep141:btc.omft.near', balance: '1' }, { asset_id: 'near', balance: '2' }], fees: { receivers: [] }, owner_id: 'a.near', locked: false } } }),
      engineSwap({ ...request, asset_in: 'nep245:intents.near:nep141:btc.omft.near' }, '10', '1', 'alice.near'),
    ];
    expect(decodeAmmC(blockOf([outcome('R8', known)]), MAINNET_CONTRACTS)).toEqual([]);

    const unknown: Array<[string, string, string | null]> = [
      ['Withdrawing 1 near to alice.near', 'not a known log line of the engine', null],
      ['[slimedragon.near/xyk] hello', 'a plain-text log of the xyk DEX', null],
      ['EVENT_JSON:{"standard":"inteardex",', 'not a NEP-297 event', null],
      [event('nep141', 'ft_transfer', []), 'unknown event standard nep141', null],
      [event('inteardex', 'pool_created', { dex_id: XYK }), 'unknown inteardex event pool_created', null],
      [event('inteardex', 'swap', null), 'swap data is not an object', null],
      [event('inteardex', 'dex_event', { event: {} }), 'dex_event without a dex_id', null],
      [xyk('fees_withdrawn', { pool_id: 7 }), 'unknown xyk event fees_withdrawn', null],
      [event('inteardex', 'dex_event', { dex_id: XYK, event: { standard: 'nep141', event: 'ft_mint', data: [] }, user: null }), 'unknown xyk DEX event standard nep141', null],
      [xyk('pool_updated', { pool_id: -1, pool: {} }), 'pool_id is not a pool id', null],
      // early xyk builds' flat pool_updated (S): the pool's state is unknown from here on
      [xyk('pool_updated', { pool_id: 3, assets: [], fees: { receivers: [] }, total_shares: null }), 'pool_updated: pool is not an object', '3'],
      [xyk('pool_updated', { pool_id: 4, pool: { Stable: {} } }), 'pool_updated: unknown pool variant Stable', '4'],
      [xyk('swap', { pool_id: 7, request, amount_in: '-1', amount_out: '1' }), 'amount_in is not a u128', null],
      [engineSwap({ ...request, asset_out: 'nep141:' }, '10', '1', 'alice.near'), 'nep141: is not an asset id', null],
      [xyk('liquidity_added', { pool_id: 9, asset_0: 'near', asset_1: `nep141:${USDT}`, added_amount_0: '1', added_amount_1: '1', minted_shares: '1' }), 'new_owned_asset_0 is not a u128', null],
    ];
    const events = decodeAmmC(blockOf([outcome('R8', unknown.map(([line]) => line))]), MAINNET_CONTRACTS);
    expect(events).toEqual(
      unknown.map(([raw, reason, poolId], index) => ({ ...base('R8', index), kind: 'undecoded', ...AMM_C, input: 'log', poolId, reason, raw })),
    );
  });

  it('a swap we cannot read loses no trade when its engine twin follows; unreadable fees are reported beside the hop', () => {
    const request = { message: POOL_7, asset_in: 'near', asset_out: `nep141:${BD}`, amount: { ExactIn: '10000' } };
    const badSwap = xyk('swap', { pool_id: 7, request: 'near->bd', amount_in: '10000', amount_out: '19743' });
    const badFees = xyk('swap', { pool_id: 7, request, amount_in: '10000', amount_out: '19743', fees_breakdown: [['Pool', 'near', '20'], ['Nobody', 'near', '1']] });
    const hop = { kind: 'swap', ...AMM_C, poolId: 7, trader: 'alice.near', tokenIn: 'near', tokenOut: BD, amountIn: 10_000n, amountOut: 19_743n, totalFee: null, adminFee: null };
    expect(decodeAmmC(blockOf([outcome('R9', [badSwap, engineSwap(request, '10000', '19743', 'alice.near')])]), MAINNET_CONTRACTS)).toEqual([
      { ...base('R9', 0), kind: 'undecoded', ...AMM_C, input: 'log', poolId: null, reason: 'swap request is not an object', raw: badSwap },
      { ...base('R9', 1), ...hop },
    ]);
    expect(decodeAmmC(blockOf([outcome('R9', [badFees])]), MAINNET_CONTRACTS)).toEqual([
      { ...base('R9', 0), ...hop },
      { ...base('R9', 1), kind: 'undecoded', ...AMM_C, input: 'log', poolId: null, reason: 'swap fees_breakdown: an item is not [receiver, asset, amount]', raw: badFees },
    ]);
  });

  it("a pool's unreadable state names it only when it is the block's last state of that pool", () => {
    const bad = xyk('pool_updated', { pool_id: 7, pool: { Public: { assets: [] } } });
    const good = R1_LOGS[1]!;
    const undecodedAt = (index: number, poolId: string | null) => ({ ...base('R1', index), kind: 'undecoded', ...AMM_C, input: 'log', poolId, reason: 'pool_updated: assets is not a pair', raw: bad });
    // bad last: the state is unknown after the block (stale); the readable state before it is superseded.
    expect(decodeAmmC(blockOf([outcome('R1', [good, bad])]), MAINNET_CONTRACTS)).toEqual([undecodedAt(0, '7')]);
    // good last: the pool's state is known; the unreadable line is still reported.
    expect(decodeAmmC(blockOf([outcome('R1', [bad, good])]), MAINNET_CONTRACTS)).toEqual([
      undecodedAt(0, null),
      { ...base('R1', 1), kind: 'pool_state', ...AMM_C, poolId: 7, state: POOL_7_AFTER_R1, source: 'event' },
    ]);
  });
});

// ---- Real mainnet values (T): INTEARnear/trade-indexer @ fd88302 src/tests.rs ----
// `detects_intear_plach_trades` / `detects_intear_plach_pool_state_changes`, block 183810122, tx
// FL9mYxVV2Uuo4feSVUN5K1yZu8Y7Rj5j8drsEGFaNZWZ, receipt Ax1HV2jKExzV6uLq8spNpJanCnCcSpxLaRxDpZAKpKr4, timestamp
// 1770042352791768939 ns: trader slimedragon.near (the wrapper's `user`: the indexer takes it as the trader), pool 0,
// 30000000000000000 jambo-1679.meme-cooking.near in, 80128205128205128205 NEAR (yocto) out, and the one pool state
// of the range: Private, assets (nep141:jambo-1679.meme-cooking.near 1950000000000000000, near
// 5128205128205128205130), fees.receivers [], owner slimedragon.near. The lines carry those values in the fields the
// indexer's parser reads (src/intear_plach_trade_detection.rs, src/intear_dex_types.rs: `dex_event {dex_id, event,
// referrer, user}`, inner swap `{pool_id, request {message, asset_in, asset_out, amount}, amount_in, amount_out}`);
// the rest is the xyk source's shape (S): `message` (borsh u32 0), `amount` ExactIn, `fees_breakdown` (empty: the
// pool has no fee receiver), `fee_configuration`, `locked`, the version strings.
const JAMBO = 'jambo-1679.meme-cooking.near';
const REAL = { height: 183_810_122, timestampNs: 1_770_042_352_791_768_939n };
const REAL_RECEIPT = 'Ax1HV2jKExzV6uLq8spNpJanCnCcSpxLaRxDpZAKpKr4';
const REAL_TX = 'FL9mYxVV2Uuo4feSVUN5K1yZu8Y7Rj5j8drsEGFaNZWZ';
const REAL_LOGS = [
  'EVENT_JSON:{"standard":"inteardex","version":"1.0.0","event":"dex_event","data":{"dex_id":"slimedragon.near/xyk","event":{"standard":"xyk","version":"1.0.0","event":"pool_updated","data":{"pool_id":0,"pool":{"Private":{"assets":[{"asset_id":"nep141:jambo-1679.meme-cooking.near","balance":"1950000000000000000"},{"asset_id":"near","balance":"5128205128205128205130"}],"fees":{"receivers":[]},"fee_configuration":{"receivers":[]},"owner_id":"slimedragon.near","locked":false}}}},"referrer":null,"user":"slimedragon.near"}}',
  'EVENT_JSON:{"standard":"inteardex","version":"1.0.0","event":"dex_event","data":{"dex_id":"slimedragon.near/xyk","event":{"standard":"xyk","version":"1.0.0","event":"swap","data":{"pool_id":0,"request":{"message":"AAAAAA==","asset_in":"nep141:jambo-1679.meme-cooking.near","asset_out":"near","amount":{"ExactIn":"30000000000000000"}},"amount_in":"30000000000000000","amount_out":"80128205128205128205","fees_breakdown":[]}},"referrer":null,"user":"slimedragon.near"}}',
];
/** The engine's own line for the hop, as its source writes it (S): whether the deployed engine logs it is unknown. */
const REAL_ENGINE_LINE =
  'EVENT_JSON:{"standard":"inteardex","version":"1.0.0","event":"swap","data":{"dex_id":"slimedragon.near/xyk","request":{"message":"AAAAAA==","asset_in":"nep141:jambo-1679.meme-cooking.near","asset_out":"near","amount":{"ExactIn":"30000000000000000"}},"amount_in":"30000000000000000","amount_out":"80128205128205128205","trader":"slimedragon.near","referrer":null}}';
const REAL_POOL_0: AmmCPoolState = {
  kind: 'xyk',
  poolType: 'private',
  tokens: [JAMBO, 'near'],
  amounts: [1_950_000_000_000_000_000n, 5_128_205_128_205_128_205_130n],
  totalFee: 0,
  feeReceivers: [],
  phantomLiquidity: null,
  totalShares: null,
};

describe('AmmC on the real values of mainnet blocks (T)', () => {
  const realBase = (index: number) => ({ blockHeight: REAL.height, timestampMs: 1_770_042_352_791, receiptId: REAL_RECEIPT, txHash: REAL_TX, index });

  it('block 183810122: one trade and the pool state, with or without the engine line', () => {
    const expected = [
      { ...realBase(0), kind: 'pool_state', ...AMM_C, poolId: 0, state: REAL_POOL_0, source: 'event' },
      {
        ...realBase(1),
        kind: 'swap',
        ...AMM_C,
        poolId: 0,
        trader: 'slimedragon.near',
        tokenIn: JAMBO,
        tokenOut: 'near',
        amountIn: 30_000_000_000_000_000n,
        amountOut: 80_128_205_128_205_128_205n,
        totalFee: 0n,
        adminFee: 0n,
      },
    ];
    const decode = (logs: string[]) => decodeAmmC(blockOf([outcome(REAL_RECEIPT, logs, { signer: 'slimedragon.near', txHash: REAL_TX })], REAL), MAINNET_CONTRACTS);
    expect(decode(REAL_LOGS)).toEqual(expected);
    expect(decode([...REAL_LOGS, REAL_ENGINE_LINE])).toEqual(expected);
  });

  it('the xyk math reproduces that swap to the unit from the state before it', () => {
    // No fee receiver: the reserves before are the ones after, less the input and plus the output:
    // jambo 1 950 000 000 000 000 000 − 30 000 000 000 000 000 = 1 920 000 000 000 000 000,
    // near 5 128 205 128 205 128 205 130 + 80 128 205 128 205 128 205 = 5 208 333 333 333 333 333 335.
    // out = floor(3·10^16 · 5 208 333 333 333 333 333 335 / 1.95·10^18) = floor(5 208 333 333 333 333 333 335 / 65)
    //     = 80 128 205 128 205 128 205 (65 · that = 5 208 333 333 333 333 333 325, remainder 10).
    const before = { ...REAL_POOL_0, amounts: [1_920_000_000_000_000_000n, 5_208_333_333_333_333_333_335n] };
    expect(ammCQuoteExactIn(before, JAMBO, 'near', 30_000_000_000_000_000n)).toEqual({
      amountIn: 30_000_000_000_000_000n,
      amountOut: 80_128_205_128_205_128_205n,
      feeAmounts: [],
      amountsAfter: REAL_POOL_0.amounts,
    });
  });

  // `detects_intear_plach_liquidity_add` (blocks 184680178-184680181) and `..._remove` (184680720-184680723): one
  // event each, provider slimedragon.near, pool 2, near and wrap.near 500000000000000000000 each added, then
  // 5000500000000000000000000 each removed. The test compares a map, so the assets' order is not known; nor are
  // the other nine fields' values: the shares and totals below are placeholders in the 12-field shape that parser
  // requires (src/intear_plach_trade_detection.rs `PlachLiquidityAddedEvent` / `...RemovedEvent`).
  it('blocks 184680178-184680723: liquidity added to and removed from pool 2 by slimedragon.near', () => {
    const totals = { new_owned_asset_0: '1', new_owned_asset_1: '1', new_owned_shares: '1', new_total_asset_0: '1', new_total_asset_1: '1', new_total_shares: '1' };
    const assets = { pool_id: 2, asset_0: 'near', asset_1: 'nep141:wrap.near' };
    const added = xyk('liquidity_added', { ...assets, added_amount_0: '500000000000000000000', added_amount_1: '500000000000000000000', minted_shares: '7', ...totals }, 'slimedragon.near');
    const removed = xyk('liquidity_removed', { ...assets, removed_amount_0: '5000500000000000000000000', removed_amount_1: '5000500000000000000000000', burned_shares: '0', ...totals }, 'slimedragon.near');
    const events = decodeAmmC(blockOf([outcome('L1', [added]), outcome('L2', [removed])]), MAINNET_CONTRACTS);
    const change = { kind: 'liquidity', ...AMM_C, poolId: 2, provider: 'slimedragon.near', tokens: ['near', 'wrap.near'] };
    expect(events).toEqual([
      { ...base('L1', 0), ...change, action: 'add', amounts: [500n * 10n ** 18n, 500n * 10n ** 18n], shares: 7n },
      { ...base('L2', 0), ...change, action: 'remove', amounts: [5_000_500n * 10n ** 18n, 5_000_500n * 10n ** 18n], shares: null },
    ]);
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
