// QuoteA (NEAR Intents verifier `intents.near`): trades from `token_diff` events. No fixture block touches the
// verifier, so the main cases replay the receipts of one real mainnet `execute_intents` transaction (a solver
// filling a user's SOL -> BNB-on-HOT swap; test/fixtures/truth/quote-a, a public transaction dump) in hand-built
// blocks; its expected values are read off those log lines by hand.
import { describe, expect, it } from 'vitest';
import { normalizeStreamerMessage, type Block } from '../../near/block.ts';
import { blockView, functionCallAction, receiptOutcome, shard, type RawJson, type RawStatus } from '../../near/lake-json.ts';
import { MAINNET_CONTRACTS } from '../../dexes/contracts.ts';
import type { SwapEvent } from '../../dexes/events.ts';
import type { UndecodedEvent } from '../../near/events.ts';
import { decodeQuoteA, intentsTokenId } from '../../dexes/quote-a/decode.ts';
import { tokenDiffFee } from '../../dexes/quote-a/math.ts';
import { fixtureFiles, loadBlock, readDataText } from '../harness/fixtures.ts';

const C = MAINNET_CONTRACTS;
const HEIGHT = 300;

interface Receipt {
  id: string;
  to: string;
  logs: string[];
  failed?: boolean;
}

function outcome(r: Receipt): RawJson {
  const status: RawStatus = r.failed ? { Failure: { ActionError: { index: 0, kind: { FunctionCallError: { ExecutionError: 'Smart contract panicked' } } } } } : { SuccessValue: '' };
  return receiptOutcome({
    blockHash: 'blockhash',
    receiptId: r.id,
    predecessorId: 'solver-relay-v2.near',
    receiverId: r.to,
    signerId: 'solver-relay-v2.near',
    actions: [functionCallAction({ method: 'execute_intents', args: { signed: [] }, gas: 300_000_000_000_000, deposit: 0n })],
    logs: r.logs,
    receiptIds: [],
    status,
  });
}

function blockOf(...receipts: Receipt[]): Block {
  return normalizeStreamerMessage({
    block: blockView({ height: HEIGHT, hash: 'blockhash', prevHash: 'prevhash', timestampNs: 1_700_000_000_123_456_789n, author: 'node.near', chunkHashes: ['chunk0'] }),
    shards: [shard({ shardId: 0, chunkHash: 'chunk0', blockHash: 'blockhash', prevBlockHash: 'prevhash', height: HEIGHT, transactions: [], outcomes: receipts.map(outcome), stateChanges: [] })],
  });
}

const USER = '69307005629debbd360f5a567fe151a96d3d67082bfbe175273ff784e094927f';
const BNB_ON_HOT = 'nep245:v2_1.omni.hot.tg:56_11111111111111111111';

// The six logs of the real receipt, in order (intents.near, dip4 0.3.0/0.3.1, then the NEP-245 moves).
const REAL_LOGS = [
  'EVENT_JSON:{"standard":"dip4","version":"0.3.0","event":"token_diff","data":[{"intent_hash":"B6NsFf8v8T8dCc671uxYWaeHcMdRf8DBn2ZXn2Y18aZz","account_id":"solver-priv-liq.near","diff":{"nep141:sol.omft.near":"18999981","nep245:v2_1.omni.hot.tg:56_11111111111111111111":"-2541553358444100"},"fees_collected":{"nep245:v2_1.omni.hot.tg:56_11111111111111111111":"2541553359"}}]}',
  'EVENT_JSON:{"standard":"dip4","version":"0.3.0","event":"token_diff","data":[{"intent_hash":"DaqjLUF4BMwGPWpYgJbrymGzpb8H82spkTjuapdL8JGX","account_id":"69307005629debbd360f5a567fe151a96d3d67082bfbe175273ff784e094927f","diff":{"nep141:sol.omft.near":"-19000000","nep245:v2_1.omni.hot.tg:56_11111111111111111111":"2541550816890741"},"referral":"1click-rango","fees_collected":{"nep141:sol.omft.near":"19"}}]}',
  'EVENT_JSON:{"standard":"dip4","version":"0.3.0","event":"mt_withdraw","data":[{"intent_hash":"DaqjLUF4BMwGPWpYgJbrymGzpb8H82spkTjuapdL8JGX","account_id":"69307005629debbd360f5a567fe151a96d3d67082bfbe175273ff784e094927f","token":"v2_1.omni.hot.tg","receiver_id":"bridge-refuel.hot.tg","token_ids":["56_11111111111111111111"],"amounts":["2541550816890741"],"msg":"{\\"receiver_id\\":\\"2EXw7ycP6tb4Yyqm6WQxTF1zsLwR\\",\\"amount_native\\":\\"13000000000000\\",\\"block_number\\":95193999}","min_gas":"91300000000000"}]}',
  'EVENT_JSON:{"standard":"dip4","version":"0.3.1","event":"intents_executed","data":[{"intent_hash":"B6NsFf8v8T8dCc671uxYWaeHcMdRf8DBn2ZXn2Y18aZz","account_id":"solver-priv-liq.near","nonce":"qMEK+4Mh5Uy/zuZHenN5ynRu5YVRfb5y8zYjh81HySU="},{"intent_hash":"DaqjLUF4BMwGPWpYgJbrymGzpb8H82spkTjuapdL8JGX","account_id":"69307005629debbd360f5a567fe151a96d3d67082bfbe175273ff784e094927f","nonce":"Vij2xgAlKBKzwKm8+8yOqhiwZo4HPEqXeFltoaUpGr4="}]}',
  'EVENT_JSON:{"standard":"nep245","version":"1.0.0","event":"mt_transfer","data":[{"old_owner_id":"solver-priv-liq.near","new_owner_id":"69307005629debbd360f5a567fe151a96d3d67082bfbe175273ff784e094927f","token_ids":["nep245:v2_1.omni.hot.tg:56_11111111111111111111"],"amounts":["2541550816890741"]},{"old_owner_id":"solver-priv-liq.near","new_owner_id":"7066024d3f20f94de601c003163367873cca78507eeca4df66d9be645f197f05","token_ids":["nep245:v2_1.omni.hot.tg:56_11111111111111111111"],"amounts":["2541553359"]},{"old_owner_id":"69307005629debbd360f5a567fe151a96d3d67082bfbe175273ff784e094927f","new_owner_id":"solver-priv-liq.near","token_ids":["nep141:sol.omft.near"],"amounts":["18999981"]},{"old_owner_id":"69307005629debbd360f5a567fe151a96d3d67082bfbe175273ff784e094927f","new_owner_id":"7066024d3f20f94de601c003163367873cca78507eeca4df66d9be645f197f05","token_ids":["nep141:sol.omft.near"],"amounts":["19"]}]}',
  'EVENT_JSON:{"standard":"nep245","version":"1.0.0","event":"mt_burn","data":[{"owner_id":"69307005629debbd360f5a567fe151a96d3d67082bfbe175273ff784e094927f","token_ids":["nep245:v2_1.omni.hot.tg:56_11111111111111111111"],"amounts":["2541550816890741"],"memo":"withdraw"}]}',
];

function swap(receiptId: string, index: number, s: Pick<SwapEvent, 'trader' | 'tokenIn' | 'tokenOut' | 'amountIn' | 'amountOut' | 'totalFee'>): SwapEvent {
  return { blockHeight: HEIGHT, timestampMs: 1_700_000_000_123, receiptId, txHash: null, index, kind: 'swap', dex: 'QuoteA', contractId: 'intents.near', poolId: null, adminFee: null, ...s };
}

const tokenDiff = (account: string, diff: Record<string, string>, fees?: Record<string, string>): string =>
  `EVENT_JSON:${JSON.stringify({ standard: 'dip4', version: '0.3.0', event: 'token_diff', data: [{ intent_hash: 'H', account_id: account, diff, ...(fees ? { fees_collected: fees } : {}) }] })}`;

describe('QuoteA on hand-built blocks', () => {
  it('a real settlement: one swap per account diff, paid token in, fee of the paid token', () => {
    // Solver: pays 2 541 553 358 444 100 of BNB-on-HOT (fee 2 541 553 359), receives 18 999 981 SOL.
    // User:   pays 19 000 000 SOL (fee 19), receives 2 541 550 816 890 741 BNB-on-HOT.
    // They close: 19 000 000 − 19 = 18 999 981 and 2 541 553 358 444 100 − 2 541 553 359 = 2 541 550 816 890 741.
    expect(decodeQuoteA(blockOf({ id: 'q1', to: 'intents.near', logs: REAL_LOGS }), C)).toEqual([
      swap('q1', 0, { trader: 'solver-priv-liq.near', tokenIn: BNB_ON_HOT, tokenOut: 'sol.omft.near', amountIn: 2_541_553_358_444_100n, amountOut: 18_999_981n, totalFee: 2_541_553_359n }),
      swap('q1', 1, { trader: USER, tokenIn: 'sol.omft.near', tokenOut: BNB_ON_HOT, amountIn: 19_000_000n, amountOut: 2_541_550_816_890_741n, totalFee: 19n }),
    ]);
  });

  it('FAILED receipt with the same logs, and the same logs from another contract: nothing', () => {
    const block = blockOf({ id: 'f1', to: 'intents.near', logs: REAL_LOGS, failed: true }, { id: 'o1', to: 'intents-impostor.near', logs: REAL_LOGS });
    expect(decodeQuoteA(block, C)).toEqual([]);
  });

  it('only diffs of exactly one paid and one received token are trades; NEAR is wNEAR', () => {
    const block = blockOf({
      id: 'q2',
      to: 'intents.near',
      logs: [
        tokenDiff('alice.near', { 'nep141:wrap.near': '-1000', 'nep141:usdt.tether-token.near': '3' }), // no fees_collected
        tokenDiff('bob.near', { 'nep141:wrap.near': '-1', 'nep141:a.near': '-2', 'nep141:b.near': '3' }), // two paid
        tokenDiff('carol.near', { 'nep141:wrap.near': '5' }), // one token
      ],
    });
    expect(decodeQuoteA(block, C)).toEqual([
      swap('q2', 0, { trader: 'alice.near', tokenIn: 'wrap.near', tokenOut: 'usdt.tether-token.near', amountIn: 1000n, amountOut: 3n, totalFee: null }),
    ]);
  });

  it('undecoded: a token_diff we cannot read, a dip4 event the source never had, a line that is no event', () => {
    const notANumber = tokenDiff('dave.near', { 'nep141:wrap.near': '-5', 'nep141:b.near': 'lots' });
    const notAnAccount = tokenDiff('NOT AN ACCOUNT', { 'nep141:wrap.near': '-5', 'nep141:b.near': '5' });
    // The real receipt's token_diff line with the event renamed, in the real format.
    const renamed = REAL_LOGS[0]!.replace('"event":"token_diff"', '"event":"token_swap"');
    const plain = 'Transfer 5 from a.near to b.near';
    // Not QuoteA's: another standard's event (NEP-245 has no mt_lock), and a malformed EVENT_JSON line (the core
    // NEP-297 decoder reports it).
    const others = ['EVENT_JSON:{"standard":"nep245","version":"1.0.0","event":"mt_lock","data":[]}', 'EVENT_JSON:{"standard":"dip4",'];
    const block = blockOf({ id: 'q3', to: 'intents.near', logs: [notANumber, notAnAccount, renamed, plain, ...others, REAL_LOGS[1]!] });
    const undecoded = (index: number, reason: string, raw: string): UndecodedEvent => ({
      blockHeight: HEIGHT,
      timestampMs: 1_700_000_000_123,
      receiptId: 'q3',
      txHash: null,
      index,
      kind: 'undecoded',
      dex: 'QuoteA',
      input: 'log',
      contractId: 'intents.near',
      poolId: null,
      reason,
      raw,
    });
    expect(decodeQuoteA(block, C)).toEqual([
      undecoded(0, 'token_diff item 0: a delta is not a signed integer', notANumber),
      undecoded(1, 'token_diff item 0 has no account_id and diff', notAnAccount),
      undecoded(2, 'unknown dip4 event token_swap', renamed),
      undecoded(3, 'not a NEP-297 event: the verifier logs nothing else', plain),
      // The user's side of the real settlement still reads (see the first test).
      swap('q3', 4, { trader: USER, tokenIn: 'sol.omft.near', tokenOut: BNB_ON_HOT, amountIn: 19_000_000n, amountOut: 2_541_550_816_890_741n, totalFee: 19n }),
    ]);
  });

  it('the whole real transaction: every intents.near receipt of it, and nothing undecoded', () => {
    // Every outcome of the transaction succeeded (statuses SuccessValue / SuccessReceiptId), as the hand-built ones do.
    const tx = JSON.parse(readDataText('truth/quote-a/HoWytDmLdYF4MnmayBSArwxef6Tj6pDYjnuNCVdSEnXe.tx-status.json')) as {
      receipts_outcome: Array<{ id: string; outcome: { executor_id: string; logs: string[] } }>;
    };
    const receipts = tx.receipts_outcome.map((o) => ({ id: o.id, to: o.outcome.executor_id, logs: o.outcome.logs }));
    // 11 outcomes, 6 of them intents.near's; only z6Rx.. logs (the six lines of REAL_LOGS).
    expect(receipts.filter((r) => r.to === 'intents.near').map((r) => r.logs.length)).toEqual([6, 0, 0, 0, 0, 0]);
    const z6 = 'z6RxSWKZD7cgpU2sArqTVUQQRLe2mv8z2sJrMHti1uA';
    expect(decodeQuoteA(blockOf(...receipts), C)).toEqual([
      swap(z6, 0, { trader: 'solver-priv-liq.near', tokenIn: BNB_ON_HOT, tokenOut: 'sol.omft.near', amountIn: 2_541_553_358_444_100n, amountOut: 18_999_981n, totalFee: 2_541_553_359n }),
      swap(z6, 1, { trader: USER, tokenIn: 'sol.omft.near', tokenOut: BNB_ON_HOT, amountIn: 19_000_000n, amountOut: 2_541_550_816_890_741n, totalFee: 19n }),
    ]);
  });

  it('token ids: nep141:x -> x, the others unchanged', () => {
    expect(intentsTokenId('nep141:sol.omft.near')).toBe('sol.omft.near');
    expect(intentsTokenId(BNB_ON_HOT)).toBe(BNB_ON_HOT);
    expect(intentsTokenId('nep171:nft.near:1')).toBe('nep171:nft.near:1');
  });
});

describe('QuoteA math: the verifier fee (no pool math: request for quote)', () => {
  it('reproduces the fees_collected of the real settlement at 1 pip', () => {
    // ceil(19 000 000 · 1 / 10^6) = 19; ceil(2 541 553 358 444 100 / 10^6) = ceil(2 541 553 358.4441) = 2 541 553 359.
    expect(tokenDiffFee('nep141:sol.omft.near', 19_000_000n, 1)).toBe(19n);
    expect(tokenDiffFee(BNB_ON_HOT, 2_541_553_358_444_100n, 1)).toBe(2_541_553_359n);
  });

  it('no fee on NFTs and on multi-token amounts of 1; fee bounds', () => {
    expect(tokenDiffFee('nep171:nft.near:7', 1n, 100)).toBe(0n);
    expect(tokenDiffFee(BNB_ON_HOT, 1n, 100)).toBe(0n);
    expect(tokenDiffFee(BNB_ON_HOT, 2n, 100)).toBe(1n); // ceil(2·100/10^6)
    expect(tokenDiffFee('nep141:a.near', 0n, 100)).toBe(0n);
    expect(() => tokenDiffFee('nep141:a.near', 1n, 1_000_001)).toThrow(RangeError);
  });
});

describe('QuoteA on real blocks', () => {
  it('no fixture holds a receipt of intents.near (checked with python), so none decodes to anything', () => {
    const files = [...fixtureFiles('mainnet'), ...fixtureFiles('testnet')];
    expect(files.length).toBe(32);
    for (const rel of files) expect(decodeQuoteA(loadBlock(rel), C), rel).toEqual([]);
  });
});
