// AmmA (Ref `v2.ref-finance.near`) log lines beyond the fixtures' `Swapped`: exact-output swaps, the liquidity lines
// of stable, rated and degen pools, and what the decoder cannot read. Receipts are built in the real format (a
// FunctionCall receipt of the exchange, JSON args as the contract deserializes them, log lines as its format strings
// write them: ref-finance/ref-contracts @ 1800d26, ref-exchange/src). Every expected value is read by hand off the
// line or the args written here, or, for the two exact-output swaps, off the public indexer test that asserts them
// on real blocks (INTEARnear/trade-indexer @ fd88302 : src/tests.rs, `detects_ref_swap_by_output` and
// `detects_ref_swap_by_output_transfer`).
import { describe, expect, it } from 'vitest';
import type { Block, ReceiptOutcome, StateChange } from '../../near/block.ts';
import { BorshWriter } from '../../near/borsh.ts';
import { decodeAmmA } from '../../dexes/amm-a/decode.ts';
import type { AmmAEvent } from '../../dexes/amm-a/events.ts';

const REF = 'v2.ref-finance.near';
const WNEAR = 'wrap.near';
const USDT = 'usdt.tether-token.near';
const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';

interface Call {
  method: string;
  args: Record<string, unknown>;
}

/** A receipt executed by the exchange: its function calls, logs and status. */
function receipt(id: string, predecessor: string, calls: Call[], logs: string[], success = true): ReceiptOutcome {
  return {
    receiptId: id,
    executorId: REF,
    predecessorId: predecessor,
    receiverId: REF,
    status: success ? { kind: 'SuccessValue', value: '' } : { kind: 'Failure', error: { ActionError: {} } },
    logs,
    receiptIds: [],
    gasBurnt: 0,
    tokensBurnt: 0n,
    txHash: null,
    receipt: {
      kind: 'Action',
      signerId: predecessor,
      signerPublicKey: null,
      gasPrice: null,
      actions: calls.map((c) => ({ kind: 'FunctionCall', methodName: c.method, argsBase64: Buffer.from(JSON.stringify(c.args)).toString('base64'), gas: 0n, deposit: 1n })),
    },
  };
}

function blockOf(outcomes: ReceiptOutcome[], stateChanges: StateChange[] = [], height = 1, timestampMs = 1): Block {
  return {
    height,
    hash: 'h',
    prevHash: 'p',
    author: 'a',
    timestampNs: BigInt(timestampMs) * 1_000_000n,
    timestampMs,
    shards: [{ shardId: 0, chunk: null, receiptOutcomes: outcomes, stateChanges }],
  };
}

/** The write of a 2-token StableSwapPool (Pool variant 1) by receipt `receiptId`, laid out field by field as
 * ref-storage-layout.md §2 gives it: tokens, decimals, c_amounts, volumes, total_fee, shares prefix, supply, amp. */
function stablePoolWrite(poolId: number, tokens: [string, string], receiptId: string): StateChange {
  const w = new BorshWriter().u8(1);
  w.vec(tokens, (x, t) => x.string(t));
  w.vec([6, 6], (x, d) => x.u8(d));
  w.vec([10n ** 24n, 10n ** 24n], (x, a) => x.u128(a));
  w.vec(tokens, (x) => x.u128(0n).u128(0n));
  w.u32(5).bytesVec(Uint8Array.from([2, poolId, 0, 0, 0])).u128(2n * 10n ** 24n);
  w.u128(240n).u128(240n).u64(0n).u64(0n);
  const key = new BorshWriter().u8(0).u64(BigInt(poolId)).bytes();
  return {
    type: 'data_update',
    cause: { type: 'receipt_processing', receiptHash: receiptId, txHash: null },
    change: { accountId: REF, keyBase64: Buffer.from(key).toString('base64'), valueBase64: Buffer.from(w.bytes()).toString('base64') },
  };
}

const ofKind = <K extends AmmAEvent['kind']>(events: AmmAEvent[], kind: K) => events.filter((e): e is Extract<AmmAEvent, { kind: K }> => e.kind === kind);

describe('AmmA exact-output swaps (Swap_by_output)', () => {
  it('block 131092278: a swap_by_output call on pool 4663 gives the hop Intear asserts (T)', () => {
    // Intear's test: trader fiery_drone.user.intear.near (the receipt's predecessor: a direct call), pool REF-4663,
    // wrap.near 706788683547272399546037 in, intel.tkn.near 14932514982037617660395520 out, receipt AeUZ7w79...,
    // tx 39rFvuH..., block timestamp 1729777813518885252 ns. max_amount_in is not in the test: a stand-in above the
    // amount spent.
    const r = receipt(
      'AeUZ7w79WAFjoJkAKogWWU8HSPo9rwjY6yhyjumM7Md5',
      'fiery_drone.user.intear.near',
      [{ method: 'swap_by_output', args: { actions: [{ pool_id: 4663, token_in: WNEAR, token_out: 'intel.tkn.near', amount_out: '14932514982037617660395520', max_amount_in: '710000000000000000000000' }] } }],
      ['Swap_by_output 706788683547272399546037 wrap.near for 14932514982037617660395520 intel.tkn.near'],
    );
    r.txHash = '39rFvuHaD7BXgteZHjPxkzxPmXN7ffmhhP3NKn6EjHoj';
    expect(decodeAmmA(blockOf([r], [], 131092278, 1729777813518))).toEqual([
      {
        blockHeight: 131092278,
        timestampMs: 1729777813518,
        receiptId: 'AeUZ7w79WAFjoJkAKogWWU8HSPo9rwjY6yhyjumM7Md5',
        txHash: '39rFvuHaD7BXgteZHjPxkzxPmXN7ffmhhP3NKn6EjHoj',
        index: 0,
        kind: 'swap',
        dex: 'AmmA',
        contractId: REF,
        poolId: 4663,
        trader: 'fiery_drone.user.intear.near',
        tokenIn: WNEAR,
        tokenOut: 'intel.tkn.near',
        amountIn: 706788683547272399546037n,
        amountOut: 14932514982037617660395520n,
        totalFee: null,
        adminFee: null,
      },
    ]);
  });

  it('block 142760528: an instant swap by output (ft_on_transfer) on pool 6031, trader the sender (T)', () => {
    // Intear's test: trader d0ebc7d8...3e7e (the ft_transfer_call's sender), pool REF-6031, end.aidols.near
    // 3696035670585457669556649429 in, wrap.near 78838174273858921161827 out, receipt 8hPEQfwh.... The transferred
    // amount is not in the test: a stand-in above the amount spent (the rest goes back to the sender).
    const sender = 'd0ebc7d872d5e3ee9281e9492aa5aca606cbc829c7dfc915a168ac75ccc23e7e';
    const msg = JSON.stringify({ actions: [{ pool_id: 6031, token_in: 'end.aidols.near', token_out: WNEAR, amount_out: '78838174273858921161827' }], skip_unwrap_near: false });
    const r = receipt(
      '8hPEQfwhxU1zt1grxiLHysTb5fwk6VJMEC17cnA5oLRZ',
      'end.aidols.near',
      [{ method: 'ft_on_transfer', args: { sender_id: sender, amount: '3700000000000000000000000000', msg } }],
      ['Swap_by_output 3696035670585457669556649429 end.aidols.near for 78838174273858921161827 wrap.near'],
    );
    const [swap, ...rest] = decodeAmmA(blockOf([r], [], 142760528, 1743008136820));
    expect(rest).toEqual([]);
    expect(swap).toMatchObject({
      blockHeight: 142760528,
      timestampMs: 1743008136820,
      receiptId: '8hPEQfwhxU1zt1grxiLHysTb5fwk6VJMEC17cnA5oLRZ',
      kind: 'swap',
      poolId: 6031,
      trader: sender,
      tokenIn: 'end.aidols.near',
      tokenOut: WNEAR,
      amountIn: 3696035670585457669556649429n,
      amountOut: 78838174273858921161827n,
    });
  });

  // Two by-output actions (lib.rs internal_execute_actions): the first asks 1000 C from pool 1 (B in), the second has
  // no amount_out, so it asks pool 2 for the B the first one spent (A in). Lines in action order.
  const chain = (secondOut: string) =>
    receipt(
      'r',
      'alice.near',
      [{ method: 'execute_actions', args: { actions: [{ pool_id: 1, token_in: 'b.near', token_out: 'c.near', amount_out: '1000' }, { pool_id: 2, token_in: 'a.near', token_out: 'b.near' }] } }],
      ['Swap_by_output 2000 b.near for 1000 c.near', `Swap_by_output 3000 a.near for ${secondOut} b.near`],
    );

  it("a chain by output: an action without amount_out takes the previous action's amount in", () => {
    const swaps = ofKind(decodeAmmA(blockOf([chain('2000')])), 'swap');
    expect(swaps.map((s) => [s.index, s.poolId, s.trader, s.tokenIn, s.amountIn, s.tokenOut, s.amountOut])).toEqual([
      [0, 1, 'alice.near', 'b.near', 2000n, 'c.near', 1000n],
      [1, 2, 'alice.near', 'a.near', 3000n, 'b.near', 2000n],
    ]);
  });

  it('lines that do not follow the actions keep their amounts but no pool', () => {
    // The second line's 1999 B out is not the 2000 B the first one spent.
    const swaps = ofKind(decodeAmmA(blockOf([chain('1999')])), 'swap');
    expect(swaps.map((s) => [s.poolId, s.amountIn, s.amountOut])).toEqual([
      [null, 2000n, 1000n],
      [null, 3000n, 1999n],
    ]);
  });

  it('execute_actions: an action with min_amount_out is a SwapAction even when it also has amount_out (untagged enum, Swap first)', () => {
    const r = receipt(
      'r',
      'alice.near',
      [{ method: 'execute_actions', args: { actions: [{ pool_id: 9, token_in: 'a.near', token_out: 'b.near', amount_in: '10', amount_out: '5', min_amount_out: '1' }] } }],
      ['Swapped 10 a.near for 7 b.near'],
    );
    expect(ofKind(decodeAmmA(blockOf([r])), 'swap').map((s) => [s.poolId, s.amountIn, s.amountOut])).toEqual([[9, 10n, 7n]]);
  });
});

describe('AmmA liquidity of stable, rated and degen pools', () => {
  // Pool 7 is a USDT/USDC stable pool written by the same receipt (every liquidity call writes its pool).
  const write = stablePoolWrite(7, [USDT, USDC], 'r');

  it('add_stable_liquidity: Mint {shares} shares for {lp}, fee is {fee} shares; amounts from the call, tokens from the pool', () => {
    const r = receipt(
      'r',
      'alice.near',
      [{ method: 'add_stable_liquidity', args: { pool_id: 7, amounts: ['1500000', '0'], min_shares: '1' } }],
      ['Mint 1498763204921 shares for alice.near, fee is 712 shares', 'Exchange v2.ref-finance.near got 142 shares, No referral fee, from add_liquidity'],
    );
    const events = decodeAmmA(blockOf([r], [write]));
    expect(ofKind(events, 'liquidity')).toEqual([
      {
        blockHeight: 1,
        timestampMs: 1,
        receiptId: 'r',
        txHash: null,
        index: 0,
        kind: 'liquidity',
        dex: 'AmmA',
        contractId: REF,
        poolId: 7,
        provider: 'alice.near',
        action: 'add',
        tokens: [USDT, USDC],
        amounts: [1500000n, 0n],
        shares: 1498763204921n,
      },
    ]);
    // The pool's own state follows the log-derived event; the fee-share line gives nothing.
    expect(events.map((e) => [e.kind, e.index])).toEqual([
      ['liquidity', 0],
      ['pool_state', 1],
    ]);
  });

  it('remove_liquidity: LP {lp} remove {shares} shares to gain tokens [..]; amounts from the line', () => {
    const r = receipt('r', 'bob.near', [{ method: 'remove_liquidity', args: { pool_id: 7, shares: '500000', min_amounts: ['0', '0'] } }], ['LP bob.near remove 500000 shares to gain tokens [250, 261]']);
    expect(ofKind(decodeAmmA(blockOf([r], [write])), 'liquidity')).toEqual([
      expect.objectContaining({ poolId: 7, provider: 'bob.near', action: 'remove', tokens: [USDT, USDC], amounts: [250n, 261n], shares: 500000n }),
    ]);
  });

  it('remove_liquidity_by_tokens: LP {lp} removed {shares} shares by given tokens, and fee is {fee} shares; amounts from the call', () => {
    const r = receipt(
      'r',
      'bob.near',
      [{ method: 'remove_liquidity_by_tokens', args: { pool_id: 7, amounts: ['0', '100'], max_burn_shares: '1000' } }],
      ['LP bob.near removed 101 shares by given tokens, and fee is 3 shares'],
    );
    expect(ofKind(decodeAmmA(blockOf([r], [write])), 'liquidity')).toEqual([
      expect.objectContaining({ poolId: 7, provider: 'bob.near', action: 'remove', tokens: [USDT, USDC], amounts: [0n, 100n], shares: 101n }),
    ]);
  });

  it('HotZap (ft_on_transfer): the swap of hot_zap_actions, then the Mint of add_liquidity_infos; provider the sender', () => {
    const msg = JSON.stringify({
      hot_zap_actions: [{ pool_id: 3, token_in: WNEAR, token_out: USDT, amount_in: '1000', min_amount_out: '0' }],
      add_liquidity_infos: [{ pool_id: 7, amounts: ['40', '0'], min_shares: '1' }],
    });
    const r = receipt(
      'r',
      WNEAR,
      [{ method: 'ft_on_transfer', args: { sender_id: 'carol.near', amount: '1000', msg } }],
      ['Swapped 1000 wrap.near for 41 usdt.tether-token.near', 'Mint 39 shares for carol.near, fee is 0 shares', 'HotZap remain internal account assets: {"usdt.tether-token.near": 1}'],
    );
    const events = decodeAmmA(blockOf([r], [write]));
    expect(events.map((e) => [e.kind, e.index, 'poolId' in e ? e.poolId : null])).toEqual([
      ['swap', 0, 3],
      ['liquidity', 1, 7],
      ['pool_state', 2, 7],
    ]);
    expect(ofKind(events, 'swap')[0]?.trader).toBe('carol.near');
    expect(ofKind(events, 'liquidity')[0]).toMatchObject({ provider: 'carol.near', action: 'add', tokens: [USDT, USDC], amounts: [40n, 0n], shares: 39n });
  });

  it('a liquidity line no call answers, or of another kind than its call, is undecoded', () => {
    const mint = 'Mint 5 shares for bob.near, fee is 0 shares';
    const alone = receipt('r1', 'bob.near', [{ method: 'storage_deposit', args: {} }], [mint]);
    const crossed = receipt('r2', 'bob.near', [{ method: 'remove_liquidity_by_tokens', args: { pool_id: 7, amounts: ['1', '1'], max_burn_shares: '9' } }], [mint]);
    expect(ofKind(decodeAmmA(blockOf([alone, crossed], [write])), 'undecoded').map((e) => [e.receiptId, e.poolId, e.reason])).toEqual([
      ['r1', null, 'no liquidity call of the receipt for this line'],
      ['r2', '7', 'a stable_add line for a remove_liquidity_by_tokens call'],
    ]);
  });

  it('a liquidity line whose pool has no readable write in the block is undecoded, with its pool', () => {
    const r = receipt('r', 'bob.near', [{ method: 'remove_liquidity', args: { pool_id: 7, shares: '5', min_amounts: ['0', '0'] } }], ['LP bob.near remove 5 shares to gain tokens [2, 2]']);
    expect(decodeAmmA(blockOf([r]))).toEqual([
      {
        blockHeight: 1,
        timestampMs: 1,
        receiptId: 'r',
        txHash: null,
        index: 0,
        kind: 'undecoded',
        dex: 'AmmA',
        input: 'log',
        contractId: REF,
        poolId: '7',
        reason: 'tokens of pool 7 unknown: no readable write of it in the block',
        raw: 'LP bob.near remove 5 shares to gain tokens [2, 2]',
      },
    ]);
  });
});

describe('AmmA log lines it cannot read', () => {
  const swapCall: Call = { method: 'swap', args: { actions: [{ pool_id: 4663, token_in: WNEAR, token_out: 'intel.tkn.near', amount_in: '5', min_amount_out: '0' }] } };
  const undecodedOf = (events: AmmAEvent[]) => ofKind(events, 'undecoded').map((e) => [e.index, e.input, e.poolId, e.reason, e.raw]);

  it('a line in none of the contract formats is undecoded; its pool is the one the call names', () => {
    const r = receipt('r', 'alice.near', [swapCall], ['Swapped 5 wrap.near for 9 intel.tkn.near', 'Swap volume recorded: 5']);
    expect(undecodedOf(decodeAmmA(blockOf([r])))).toEqual([[1, 'log', '4663', 'unknown log line', 'Swap volume recorded: 5']]);
  });

  it('a known format whose values do not parse is undecoded too', () => {
    const lines = ['Swapped 5x wrap.near for 9 intel.tkn.near', 'Swapped 5 wrap.near for 9 intel.tkn.near, total fee x, admin fee 1', 'Mint 12 shares for alice.near, fee is some shares'];
    const events = decodeAmmA(blockOf([receipt('r', 'alice.near', [{ method: 'storage_deposit', args: {} }], lines)]));
    expect(undecodedOf(events)).toEqual([
      [0, 'log', null, 'unreadable "Swapped {} {} for {} {}" line', lines[0]],
      [1, 'log', null, 'unreadable "Swapped {} {} for {} {}, total fee {}, admin fee {}" line', lines[1]],
      [2, 'log', null, 'unreadable "Mint {} shares for {}, fee is {} shares" line', lines[2]],
    ]);
  });

  it("the lines the source logs that we ignore give nothing (one per format group, written from the source's format strings)", () => {
    const lines = [
      'Exchange v2.ref-finance.near got 35616520434314459346 shares, Referral owner.herewallet.near got 8904130108578614836 shares',
      'Exchange v2.ref-finance.near got 1 shares, No referral fee, from remove_liquidity_by_tokens',
      'Referral ref.near got 3 shares from usdt.tether-token.near 10',
      'Transfer shares 79 pool: 100 from alice.near to bob.near',
      'Transfer wrap.near: 100 from alice.near to bob.near',
      'Memo: thanks',
      'Account alice.near is not registered. Depositing to owner or user lostfound account.',
      'Depositing to user lostfound account.',
      'Not enough free NEAR for user lostfound. Total: 3, Storage locked: 2. Depositing to owner.',
      'ERR_ACC_REGISTERED',
      'Caller alice.near invokes token linear-protocol.near rait async-update.',
      'Token linear-protocol.near got new rate 1234 from cross-contract call.',
      'Insert referral ref.near with fee_bps 2000',
      'Modify total_fee pool_id 79 from 30 to 25',
      'New PriceOracle { decimals: 18 } typed degen token a.near registered by ref.near',
      'HotZap remain internal account assets: {}',
      'pool_id 79, alice.near remove 10 farming seed successful',
      'EVENT_JSON:{"standard":"exchange.ref","version":"1.0.0","event":"donation_share","data":[{"account_id":"alice.near","pool_id":79,"amount":"10"}]}',
      'EVENT_JSON:{"standard":"exchange.ref","version":"1.0.0","event":"donation_token","data":[{"account_id":"alice.near","token_id":"wrap.near","amount":"10"}]}',
    ];
    expect(decodeAmmA(blockOf([receipt('r', 'alice.near', [{ method: 'storage_deposit', args: {} }], lines)]))).toEqual([]);
  });

  it('EVENT_JSON: an unknown event of exchange.ref, a known one of another shape, another standard, bad JSON: undecoded', () => {
    const lines = [
      'EVENT_JSON:{"standard":"exchange.ref","version":"1.0.0","event":"pool_created","data":[{"pool_id":80}]}',
      'EVENT_JSON:{"standard":"exchange.ref","version":"1.0.0","event":"donation_share","data":[{"account_id":"alice.near","pool_id":"79","amount":"10"}]}',
      'EVENT_JSON:{"standard":"nep141","version":"1.0.0","event":"ft_transfer","data":[]}',
      'EVENT_JSON:{"standard":',
    ];
    const events = decodeAmmA(blockOf([receipt('r', 'alice.near', [{ method: 'donation_share', args: { pool_id: 79 } }], lines)]));
    expect(undecodedOf(events).map(([, , poolId, reason]) => [poolId, reason])).toEqual([
      ['79', 'unknown event pool_created'],
      ['79', 'unreadable donation_share event'],
      ['79', 'unknown standard nep141'],
      ['79', 'malformed EVENT_JSON'],
    ]);
  });

  it('a failed receipt gives nothing, whatever it logs', () => {
    const r = receipt('r', 'alice.near', [swapCall], ['Swap volume recorded: 5', 'Swapped 5 wrap.near for 9 intel.tkn.near'], false);
    expect(decodeAmmA(blockOf([r]))).toEqual([]);
  });
});
