// Wrap (wNEAR wrap/unwrap, token <-> its AmmA inner balance). Expected values on the real blocks were read off the
// fixture JSON with python3 (every receipt executed by wrap.near with a near_deposit/near_withdraw call and its
// `Deposit/Withdraw <n> NEAR` log; every v2.ref-finance.near `ft_on_transfer` with msg "" and every `withdraw`),
// never produced by the code under test. Hand-built blocks use near/lake-json.ts.
import { describe, expect, it } from 'vitest';
import { normalizeStreamerMessage, type Block } from '../../near/block.ts';
import { blockView, functionCallAction, receiptOutcome, shard, type RawJson, type RawStatus } from '../../near/lake-json.ts';
import { MAINNET_CONTRACTS, TESTNET_CONTRACTS } from '../../dexes/contracts.ts';
import type { SwapEvent } from '../../dexes/events.ts';
import { decodeWrap } from '../../dexes/wrap/decode.ts';
import { WNEAR_STORAGE_MINIMUM, wnearMintedByDeposit, wrapAmountIn, wrapAmountOut } from '../../dexes/wrap/math.ts';
import { fixtureFiles, loadBlock } from '../harness/fixtures.ts';

const C = MAINNET_CONTRACTS;
const NEAR = 10n ** 24n;

// ---- hand-built blocks ----------------------------------------------------------------------------------------

const HEIGHT = 100;
const TIMESTAMP_NS = 1_700_000_000_123_456_789n; // timestampMs 1_700_000_000_123

interface Call {
  id: string;
  from: string;
  to: string;
  calls: Array<{ method: string; args: unknown; deposit?: bigint }>;
  logs: string[];
  failed?: boolean;
}

function outcome(c: Call): RawJson {
  const status: RawStatus = c.failed ? { Failure: { ActionError: { index: 0, kind: { FunctionCallError: { ExecutionError: 'Smart contract panicked' } } } } } : { SuccessValue: '' };
  return receiptOutcome({
    blockHash: 'blockhash',
    receiptId: c.id,
    predecessorId: c.from,
    receiverId: c.to,
    signerId: c.from,
    actions: c.calls.map((x) => functionCallAction({ method: x.method, args: x.args, gas: 30_000_000_000_000, deposit: x.deposit ?? 0n })),
    logs: c.logs,
    receiptIds: [],
    status,
  });
}

function blockOf(...calls: Call[]): Block {
  return normalizeStreamerMessage({
    block: blockView({ height: HEIGHT, hash: 'blockhash', prevHash: 'prevhash', timestampNs: TIMESTAMP_NS, author: 'node.near', chunkHashes: ['chunk0'] }),
    shards: [shard({ shardId: 0, chunkHash: 'chunk0', blockHash: 'blockhash', prevBlockHash: 'prevhash', height: HEIGHT, transactions: [], outcomes: calls.map(outcome), stateChanges: [] })],
  });
}

function swap(receiptId: string, index: number, s: Pick<SwapEvent, 'contractId' | 'trader' | 'tokenIn' | 'tokenOut' | 'amountIn'>): SwapEvent {
  return {
    blockHeight: HEIGHT,
    timestampMs: 1_700_000_000_123,
    receiptId,
    txHash: null,
    index,
    kind: 'swap',
    dex: 'Wrap',
    poolId: null,
    ...s,
    amountOut: s.amountIn,
    totalFee: null,
    adminFee: null,
  };
}

describe('Wrap on hand-built blocks', () => {
  it('near_deposit: NEAR -> wNEAR for the minted amount', () => {
    const block = blockOf({
      id: 'r1',
      from: 'alice.near',
      to: 'wrap.near',
      calls: [{ method: 'near_deposit', args: {}, deposit: NEAR }],
      logs: ['Deposit 1000000000000000000000000 NEAR to alice.near'],
    });
    expect(decodeWrap(block, C)).toEqual([
      swap('r1', 0, { contractId: 'wrap.near', trader: 'alice.near', tokenIn: 'near', tokenOut: 'wrap.near', amountIn: NEAR }),
    ]);
  });

  it('an unregistered account gets the deposit minus the storage minimum: the mint is the amount', () => {
    // 1 NEAR − 0.00125 NEAR = 1_000_000 − 1_250 = 998_750 (× 10^18 yocto)
    const block = blockOf({
      id: 'r2',
      from: 'dave.near',
      to: 'wrap.near',
      calls: [{ method: 'near_deposit', args: {}, deposit: NEAR }],
      logs: ['Deposit 998750000000000000000000 NEAR to dave.near'],
    });
    const [ev] = decodeWrap(block, C) as SwapEvent[];
    expect(ev?.amountIn).toBe(998_750_000_000_000_000_000_000n);
    expect(ev?.amountOut).toBe(998_750_000_000_000_000_000_000n);
  });

  it('near_withdraw: wNEAR -> NEAR', () => {
    const block = blockOf({
      id: 'r3',
      from: 'bob.near',
      to: 'wrap.near',
      calls: [{ method: 'near_withdraw', args: { amount: '5' }, deposit: 1n }],
      logs: ['Withdraw 5 NEAR from bob.near'],
    });
    expect(decodeWrap(block, C)).toEqual([
      swap('r3', 0, { contractId: 'wrap.near', trader: 'bob.near', tokenIn: 'wrap.near', tokenOut: 'near', amountIn: 5n }),
    ]);
  });

  it('a batch numbers its conversions in log order', () => {
    const block = blockOf({
      id: 'r4',
      from: 'bob.near',
      to: 'wrap.near',
      calls: [
        { method: 'near_deposit', args: {}, deposit: 7n },
        { method: 'near_withdraw', args: { amount: '3' }, deposit: 1n },
      ],
      logs: ['Deposit 7 NEAR to bob.near', 'Withdraw 3 NEAR from bob.near'],
    });
    expect(decodeWrap(block, C)).toEqual([
      swap('r4', 0, { contractId: 'wrap.near', trader: 'bob.near', tokenIn: 'near', tokenOut: 'wrap.near', amountIn: 7n }),
      swap('r4', 1, { contractId: 'wrap.near', trader: 'bob.near', tokenIn: 'wrap.near', tokenOut: 'near', amountIn: 3n }),
    ]);
  });

  it('token -> inner balance: AmmA ft_on_transfer with msg ""; and back with withdraw', () => {
    const block = blockOf(
      {
        id: 'r5',
        from: 'usdt.tether-token.near',
        to: 'v2.ref-finance.near',
        calls: [{ method: 'ft_on_transfer', args: { sender_id: 'carol.near', amount: '1000000', msg: '' } }],
        logs: [],
      },
      {
        id: 'r6',
        from: 'carol.near',
        to: 'v2.ref-finance.near',
        calls: [{ method: 'withdraw', args: { token_id: 'usdt.tether-token.near', amount: '250', skip_unwrap_near: false }, deposit: 1n }],
        logs: [],
      },
    );
    expect(decodeWrap(block, C)).toEqual([
      swap('r5', 0, {
        contractId: 'v2.ref-finance.near',
        trader: 'carol.near',
        tokenIn: 'usdt.tether-token.near',
        tokenOut: 'inner-nep141:usdt.tether-token.near',
        amountIn: 1_000_000n,
      }),
      swap('r6', 0, {
        contractId: 'v2.ref-finance.near',
        trader: 'carol.near',
        tokenIn: 'inner-nep141:usdt.tether-token.near',
        tokenOut: 'usdt.tether-token.near',
        amountIn: 250n,
      }),
    ]);
  });

  it('FAILED receipts with the same calls and logs give nothing', () => {
    const block = blockOf(
      { id: 'f1', from: 'alice.near', to: 'wrap.near', calls: [{ method: 'near_deposit', args: {}, deposit: NEAR }], logs: ['Deposit 1000000000000000000000000 NEAR to alice.near'], failed: true },
      { id: 'f2', from: 'bob.near', to: 'wrap.near', calls: [{ method: 'near_withdraw', args: { amount: '5' }, deposit: 1n }], logs: ['Withdraw 5 NEAR from bob.near'], failed: true },
      { id: 'f3', from: 'usdt.tether-token.near', to: 'v2.ref-finance.near', calls: [{ method: 'ft_on_transfer', args: { sender_id: 'carol.near', amount: '9', msg: '' } }], logs: [], failed: true },
      { id: 'f4', from: 'carol.near', to: 'v2.ref-finance.near', calls: [{ method: 'withdraw', args: { token_id: 'usdt.tether-token.near', amount: '9' } }], logs: [], failed: true },
    );
    expect(decodeWrap(block, C)).toEqual([]);
  });

  it('ignores other contracts, swap messages and Deposit lines outside near_deposit', () => {
    const block = blockOf(
      // Same call and log on another contract.
      { id: 'o1', from: 'alice.near', to: 'fake-wrap.near', calls: [{ method: 'near_deposit', args: {}, deposit: NEAR }], logs: ['Deposit 1000000000000000000000000 NEAR to alice.near'] },
      // An AmmA swap through ft_transfer_call is AmmA's, not Wrap's.
      {
        id: 'o2',
        from: 'wrap.near',
        to: 'v2.ref-finance.near',
        calls: [{ method: 'ft_on_transfer', args: { sender_id: 'carol.near', amount: '9', msg: '{"actions":[{"pool_id":1,"token_in":"wrap.near","token_out":"usdt.tether-token.near","min_amount_out":"1"}]}' } }],
        logs: ['Swapped 9 wrap.near for 1 usdt.tether-token.near'],
      },
      // wrap.near's ft_transfer does not mint, whatever it logs.
      { id: 'o3', from: 'alice.near', to: 'wrap.near', calls: [{ method: 'ft_transfer', args: { receiver_id: 'bob.near', amount: '1' }, deposit: 1n }], logs: ['Transfer 1 from alice.near to bob.near', 'Deposit 1 NEAR to bob.near'] },
      // The same inner-balance calls on another exchange.
      { id: 'o4', from: 'carol.near', to: 'v1.ref-finance.near', calls: [{ method: 'withdraw', args: { token_id: 'usdt.tether-token.near', amount: '9' } }], logs: [] },
    );
    expect(decodeWrap(block, C)).toEqual([]);
  });

  it('a near_deposit / near_withdraw that yields no mint / burn is undecoded; a line the core reports is the core\'s', () => {
    const undecoded = (receiptId: string, reason: string, raw: string) => ({
      blockHeight: HEIGHT,
      timestampMs: 1_700_000_000_123,
      receiptId,
      txHash: null,
      index: 0,
      kind: 'undecoded',
      dex: 'Wrap',
      input: 'log',
      contractId: 'wrap.near',
      poolId: null,
      reason,
      raw,
    });
    const block = blockOf(
      // Another wording (w_near.rs writes `Deposit {} NEAR to {}`): no reader takes it, so no mint.
      { id: 'u1', from: 'alice.near', to: 'wrap.near', calls: [{ method: 'near_deposit', args: {}, deposit: 7n }], logs: ['Deposited 7 yocto for alice.near'] },
      // No line at all.
      { id: 'u2', from: 'bob.near', to: 'wrap.near', calls: [{ method: 'near_withdraw', args: { amount: '5' }, deposit: 1n }], logs: [] },
      // The real wording with an account id that is none: the core decoder reports the line (NEP-141), Wrap adds nothing.
      { id: 'u3', from: 'carol.near', to: 'wrap.near', calls: [{ method: 'near_deposit', args: {}, deposit: 7n }], logs: ['Deposit 7 NEAR to NOT_AN_ACCOUNT'] },
    );
    expect(decodeWrap(block, C)).toEqual([
      undecoded('u1', 'near_deposit without a readable mint', 'Deposited 7 yocto for alice.near'),
      undecoded('u2', 'near_withdraw without a readable burn', ''),
    ]);
  });

  it('takes contract ids from the config it is given', () => {
    const block = blockOf({ id: 't1', from: 'alice.testnet', to: 'wrap.testnet', calls: [{ method: 'near_deposit', args: {}, deposit: 2n }], logs: ['Deposit 2 NEAR to alice.testnet'] });
    expect(decodeWrap(block, C)).toEqual([]);
    expect(decodeWrap(block, TESTNET_CONTRACTS)).toEqual([
      swap('t1', 0, { contractId: 'wrap.testnet', trader: 'alice.testnet', tokenIn: 'near', tokenOut: 'wrap.testnet', amountIn: 2n }),
    ]);
  });
});

describe('Wrap math', () => {
  it('is 1:1 both ways', () => {
    expect(wrapAmountOut(123n)).toBe(123n);
    expect(wrapAmountIn(456n)).toBe(456n);
    expect(() => wrapAmountOut(-1n)).toThrow(RangeError);
  });

  it('a first deposit of an unregistered account pays the storage minimum', () => {
    expect(WNEAR_STORAGE_MINIMUM).toBe(NEAR / 800n); // 0.00125 NEAR = 1/800 NEAR
    // 1 NEAR − 0.00125 NEAR = 0.99875 NEAR
    expect(wnearMintedByDeposit(NEAR, { registered: false })).toBe(998_750_000_000_000_000_000_000n);
    expect(wnearMintedByDeposit(NEAR)).toBe(NEAR);
    expect(() => wnearMintedByDeposit(1n, { registered: false })).toThrow(/ERR_DEPOSIT_TOO_SMALL/);
  });
});

// ---- real blocks ------------------------------------------------------------------------------------------------

describe('Wrap on real blocks', () => {
  // Every Wrap conversion in every fixture, found with python over the raw JSON (see the header). None of these
  // receipts comes from a transaction of its own block, so txHash is null.
  const EXPECTED: Record<string, Array<Omit<SwapEvent, 'kind' | 'dex' | 'poolId' | 'amountOut' | 'totalFee' | 'adminFee' | 'blockHeight'>>> = {
    'mainnet/55905793.json': [
      { timestampMs: 1640371535003, receiptId: '4gTBrrFqhw6NGiHUqVtuocKwzbC4r28WUPJSgno6zRZK', txHash: null, index: 0, contractId: 'wrap.near', trader: 'dill1_1.near', tokenIn: 'wrap.near', tokenOut: 'near', amountIn: 100_000_000_000_000_000_000_000_000n },
    ],
    'mainnet/82654651.json': [
      {
        timestampMs: 1673380740949,
        receiptId: '5DL2S2jacA7AAxgKXG5vYQeVbLiePDAPLAuw9kJMAbJc',
        txHash: null,
        index: 0,
        contractId: 'wrap.near',
        trader: 'da83664638923621cb01b687c5162d8e49fb5fcb54696571af411207ba7b8bd7',
        tokenIn: 'wrap.near',
        tokenOut: 'near',
        amountIn: 44_048_152_682_002_559_526_986_371n,
      },
    ],
    // A batch receipt: storage_deposit, near_deposit, ft_transfer_call; only the mint is a wrap.
    'mainnet/114081912.json': [
      { timestampMs: 1709562242261, receiptId: '9KaNjFv1Q7uzUbAPH419eg97nEUyTMRmvXc3EKoqQkoR', txHash: null, index: 0, contractId: 'wrap.near', trader: 'iqbalkhan70.tg', tokenIn: 'near', tokenOut: 'wrap.near', amountIn: 250_000_000_000_000_000_000_000n },
    ],
    'mainnet/117969098.json': [
      {
        timestampMs: 1714504934898,
        receiptId: '2Tp34DX6g7cT9y1L8VJkqgMFtdctHoVACRcdch3kqvLi',
        txHash: null,
        index: 0,
        contractId: 'wrap.near',
        trader: '62d58968a2ce5294708ea37bfbe9d9e9451548fc846298039671c96b3a73e56c',
        tokenIn: 'wrap.near',
        tokenOut: 'near',
        amountIn: 532_100_000_000_000_000_000_000n,
      },
    ],
    // ref.hot.tg deposits wNEAR into its AmmA inner balance (ft_transfer_call with msg "").
    'mainnet/125229395.json': [
      {
        timestampMs: 1723036851873,
        receiptId: '9rmv6igbyuQp2evkdiTqmPnbDTVMymzF1YTy6SARvsFx',
        txHash: null,
        index: 0,
        contractId: 'v2.ref-finance.near',
        trader: 'ref.hot.tg',
        tokenIn: 'wrap.near',
        tokenOut: 'inner-nep141:wrap.near',
        amountIn: 2_171_947_399_999_999_901_432_090n,
      },
    ],
  };

  it('finds exactly the conversions of every fixture, and only those (nothing undecoded)', () => {
    const files = [...fixtureFiles('mainnet'), ...fixtureFiles('testnet')];
    expect(files.length).toBe(32);
    let found = 0;
    for (const rel of files) {
      const block = loadBlock(rel);
      const expected = (EXPECTED[rel] ?? []).map((e) => ({ ...e, blockHeight: block.height, kind: 'swap', dex: 'Wrap', poolId: null, amountOut: e.amountIn, totalFee: null, adminFee: null }));
      expect(decodeWrap(block, C), rel).toEqual(expected);
      found += expected.length;
    }
    expect(found).toBe(5);
  });
});
