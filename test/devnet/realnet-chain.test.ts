// devnet/realnet/chain.ts's receipt flow on a contract assembled here byte by byte (`relay.near`), for the paths
// the Ref script does not take: a receipt that returns a promise hands the receipts waiting on it to that promise
// (nearcore's output data receivers), `promise_and` joins two results into one callback, a failed dependency reaches
// the callback as `failed`, a call to an account without code fails and refunds, and the order receipts run in.
// And `save()` on the market with its hosted models: a restore undoes a model's change.
import { describe, expect, it } from 'vitest';
import { normalizeStreamerMessage } from '../../near/block.ts';
import { RealnetChain, type ExecutedReceipt } from '../../devnet/realnet/chain.ts';
import { WRAP } from '../../devnet/realnet/market.ts';
import { realnetMarket } from '../../devnet/realnet/wasm.ts';
import type { AmmDclADevnet } from '../../devnet/amm-dcl-a.ts';
import type { StakeBDevnet } from '../../devnet/stake-b.ts';

const TGAS = 10n ** 12n;
const Y = 10n ** 24n;

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}
function sleb(v: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
}
const vec = (items: number[][]): number[] => [...leb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...leb(body.length), ...body];
const str = (s: string): number[] => [...leb(s.length), ...Buffer.from(s)];
const I64 = 0x7e;
const c = (n: bigint | number): number[] => [0x42, ...sleb(BigInt(n))];
const call = (f: number): number[] => [0x10, f];

// Memory: the account, method names, a zero amount, "failed", and the promise indices for promise_and.
const ACCOUNT = [0, 'relay.near'] as const;
const LEAF = [16, 'leaf'] as const;
const FORWARD = [24, 'forward'] as const;
const CALLBACK = [32, 'callback'] as const;
const AMOUNT = 48;
const FAILED = [64, 'failed'] as const;
const FAIL = [72, 'fail'] as const;
const JOIN = 80;
const CALLBACK_ONE = [96, 'callback_one'] as const;
const BUFFER = 1024;

// Imports, by index.
const [CREATE, FUNCTION_CALL, AND, THEN, RETURN, RESULT, REGISTER_LEN, READ_REGISTER, LOG, VALUE_RETURN] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

/** `relay.near`: leaf returns "leaf"; forward returns a promise of leaf; start (or start_fail) calls forward (or
 * fail) and leaf, joins them, and calls callback with both results; callback logs each result ("failed" for a
 * failure); fail traps. */
function relayModule(): Uint8Array {
  const types = [
    [[], []],
    [[I64], []],
    [[I64, I64], []],
    [[I64, I64], [I64]],
    [Array(7).fill(I64), []],
    [Array(9).fill(I64), [I64]],
    [[], [I64]],
    [[I64], [I64]],
  ] as [number[], number[]][];
  const imports: [string, number][] = [
    ['promise_batch_create', 3],
    ['promise_batch_action_function_call', 4],
    ['promise_and', 3],
    ['promise_then', 5],
    ['promise_return', 1],
    ['promise_result', 3],
    ['register_len', 7],
    ['read_register', 2],
    ['log_utf8', 2],
    ['value_return', 2],
  ];
  const create = (): number[] => [...c(ACCOUNT[1].length), ...c(ACCOUNT[0]), ...call(CREATE)];
  const fnCall = (local: number, [at, name]: readonly [number, string], gas: bigint): number[] => [
    0x20, local, ...c(name.length), ...c(at), ...c(0), ...c(0), ...c(AMOUNT), ...c(gas), ...call(FUNCTION_CALL),
  ];
  const start = (first: readonly [number, string]): number[] => [
    ...create(), 0x21, 0, ...fnCall(0, first, 40n * TGAS),
    ...create(), 0x21, 1, ...fnCall(1, LEAF, 10n * TGAS),
    0x41, ...sleb(BigInt(JOIN)), 0x20, 0, 0x37, 3, 0,
    0x41, ...sleb(BigInt(JOIN + 8)), 0x20, 1, 0x37, 3, 0,
    ...c(JOIN), ...c(2), ...call(AND),
    ...c(ACCOUNT[1].length), ...c(ACCOUNT[0]), ...c(CALLBACK[1].length), ...c(CALLBACK[0]), ...c(0), ...c(0), ...c(AMOUNT), ...c(10n * TGAS), ...call(THEN),
    0x1a, 0x0b,
  ];
  // One receipt of two leaf calls, with callback_one waiting on it.
  const startTwo = [
    ...create(), 0x21, 0, ...fnCall(0, LEAF, 10n * TGAS), ...fnCall(0, LEAF, 10n * TGAS),
    0x20, 0, ...c(ACCOUNT[1].length), ...c(ACCOUNT[0]), ...c(CALLBACK_ONE[1].length), ...c(CALLBACK_ONE[0]), ...c(0), ...c(0), ...c(AMOUNT), ...c(10n * TGAS), ...call(THEN),
    0x1a, 0x0b,
  ];
  const logResult = (i: number): number[] => [
    ...c(i), ...c(0), ...call(RESULT), ...c(1), 0x51, 0x04, 0x40,
    ...c(0), ...c(BUFFER), ...call(READ_REGISTER), ...c(0), ...call(REGISTER_LEN), ...c(BUFFER), ...call(LOG),
    0x05, ...c(FAILED[1].length), ...c(FAILED[0]), ...call(LOG), 0x0b,
  ];
  const funcs: { name: string; locals: number; code: number[] }[] = [
    { name: 'leaf', locals: 0, code: [...c(LEAF[1].length), ...c(LEAF[0]), ...call(VALUE_RETURN), 0x0b] },
    { name: 'forward', locals: 1, code: [...create(), 0x21, 0, ...fnCall(0, LEAF, 10n * TGAS), 0x20, 0, ...call(RETURN), 0x0b] },
    { name: 'start', locals: 2, code: start(FORWARD) },
    { name: 'start_fail', locals: 2, code: start(FAIL) },
    { name: 'callback', locals: 0, code: [...logResult(0), ...logResult(1), 0x0b] },
    { name: 'fail', locals: 0, code: [0x00, 0x0b] },
    { name: 'start_two', locals: 1, code: startTwo },
    { name: 'callback_one', locals: 0, code: [...logResult(0), 0x0b] },
  ];
  const data = [ACCOUNT, LEAF, FORWARD, CALLBACK, FAILED, FAIL, CALLBACK_ONE].map(([at, text]) => [0, 0x41, ...sleb(BigInt(at)), 0x0b, ...str(text)]);
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec(types.map(([p, r]) => [0x60, ...vec(p.map((t) => [t])), ...vec(r.map((t) => [t]))]))),
    ...section(2, vec(imports.map(([n, t]) => [...str('env'), ...str(n), 0x00, t]))),
    ...section(3, vec(funcs.map(() => [0]))),
    ...section(5, vec([[0x00, 0x01]])),
    ...section(7, vec([[...str('memory'), 0x02, 0], ...funcs.map((f, i) => [...str(f.name), 0x00, ...leb(imports.length + i)])])),
    ...section(10, vec(funcs.map((f) => {
      const body = [...vec(f.locals ? [[f.locals, I64]] : []), ...f.code];
      return [...leb(body.length), ...body];
    }))),
    ...section(11, vec(data)),
  ]);
}

const method = (r: ExecutedReceipt): string => {
  const a = r.receipt.actions[0]!;
  return a.kind === 'FunctionCall' ? a.method : a.kind;
};

function setUp() {
  const chain = new RealnetChain({ seed: 'relay' });
  chain.deploy('relay.near', relayModule(), 100n * Y);
  chain.createAccount('alice.near', 100n * Y);
  chain.createAccount('plain.near', 1n * Y);
  return chain;
}

/** Produces blocks until nothing is pending; the executed receipts with their height relative to the first. */
function runAll(chain: RealnetChain) {
  const start = chain.height;
  const blocks = [];
  do blocks.push(normalizeStreamerMessage(chain.produceBlock()));
  while (chain.pendingReceipts() > 0);
  return { blocks, receipts: chain.executed.map((r) => ({ method: method(r), at: r.height - start, status: Object.keys(r.status)[0], logs: r.logs, r })) };
}

describe('realnet chain: promises on a hand-assembled contract', () => {
  it('a returned promise takes over the callback: the callback runs after the promise it returned, with both values', () => {
    const chain = setUp();
    chain.call('alice.near', 'relay.near', 'start', {}, 0n, 150n * TGAS);
    const { receipts, blocks } = runAll(chain);
    expect(receipts.map(({ method, at, status, logs }) => [method, at, status, logs])).toEqual([
      ['start', 0, 'SuccessValue', []],
      ['forward', 1, 'SuccessReceiptId', []],
      ['leaf', 1, 'SuccessValue', []],
      // forward's own leaf: it produces the data the callback waits for from forward.
      ['leaf', 2, 'SuccessValue', []],
      ['callback', 3, 'SuccessValue', ['leaf', 'leaf']],
    ]);
    const [start, forward, leaf, forwardedLeaf, callback] = receipts.map((x) => x.r) as ExecutedReceipt[];
    expect(forward!.status).toEqual({ SuccessReceiptId: forwardedLeaf!.receipt.id });
    expect(start!.created).toEqual([forward!.receipt.id, leaf!.receipt.id, callback!.receipt.id]);
    // The callback waits on two data ids: forward's (handed to its leaf) and the leaf's.
    expect(callback!.receipt.inputDataIds).toHaveLength(2);
    expect(forwardedLeaf!.receipt.outputs.map((o) => o.dataId)).toEqual([callback!.receipt.inputDataIds[0]]);
    expect(leaf!.receipt.outputs.map((o) => o.dataId)).toEqual([callback!.receipt.inputDataIds[1]]);
    expect(forward!.receipt.outputs).toEqual(forwardedLeaf!.receipt.outputs);
    // The last block holds the callback alone.
    expect(blocks.at(-1)!.shards[0]!.receiptOutcomes.map((o) => o.receiptId)).toEqual([callback!.receipt.id]);
  });

  it('a failed dependency reaches the callback as failed; the other result still arrives', () => {
    const chain = setUp();
    chain.call('alice.near', 'relay.near', 'start_fail', {}, 0n, 150n * TGAS);
    const { receipts } = runAll(chain);
    expect(receipts.map(({ method, at, status, logs }) => [method, at, status, logs])).toEqual([
      ['start_fail', 0, 'SuccessValue', []],
      ['fail', 1, 'Failure', []],
      ['leaf', 1, 'SuccessValue', []],
      ['callback', 2, 'SuccessValue', ['failed', 'leaf']],
    ]);
    expect(receipts[3]!.r.promiseResults[0]).toEqual({ status: 'failed' });
  });

  it('a call to an account without code fails with CodeDoesNotExist and its deposit comes back from system', () => {
    const chain = setUp();
    const before = chain.balance('alice.near');
    chain.call('alice.near', 'plain.near', 'anything', {}, 5n * Y);
    chain.call('alice.near', 'nobody.near', 'anything', {}, 2n * Y);
    const { receipts } = runAll(chain);
    expect(receipts.map(({ method, at, status, r }) => [method, r.receipt.predecessorId, r.receipt.receiverId, at, status])).toEqual([
      ['anything', 'alice.near', 'plain.near', 0, 'Failure'],
      ['anything', 'alice.near', 'nobody.near', 0, 'Failure'],
      ['Transfer', 'system', 'alice.near', 1, 'SuccessValue'],
      ['Transfer', 'system', 'alice.near', 1, 'SuccessValue'],
    ]);
    expect(JSON.stringify(receipts[0]!.r.status)).toContain('CodeDoesNotExist');
    expect(JSON.stringify(receipts[1]!.r.status)).toContain('AccountDoesNotExist');
    expect(chain.balance('alice.near')).toBe(before);
    expect(chain.balance('plain.near')).toBe(1n * Y);
  });

  it('a receipt of two calls whose second fails rolls back as one: the first call\'s deposit comes back, logs and value dropped', () => {
    const chain = setUp();
    const before = { alice: chain.balance('alice.near'), relay: chain.balance('relay.near') };
    chain.submit('alice.near', 'relay.near', [
      { kind: 'FunctionCall', method: 'leaf', args: {}, deposit: 2n * Y, gas: 10n * TGAS },
      { kind: 'FunctionCall', method: 'fail', args: {}, deposit: 3n * Y, gas: 10n * TGAS },
    ]);
    const { receipts } = runAll(chain);
    expect(receipts.map(({ method, at, status }) => [method, at, status])).toEqual([
      ['leaf', 0, 'Failure'],
      ['Transfer', 1, 'SuccessValue'],
    ]);
    // The failure names the second action; both calls ran (the first succeeded inside the receipt).
    expect(JSON.stringify(receipts[0]!.r.status)).toContain('"index":1');
    expect(receipts[0]!.r.calls.map((c) => c.ok)).toEqual([true, false]);
    expect(receipts[1]!.r.receipt.actions).toEqual([{ kind: 'Transfer', deposit: 5n * Y }]);
    expect(chain.balance('relay.near')).toBe(before.relay);
    expect(chain.balance('alice.near')).toBe(before.alice);
  });

  it('a receipt of two calls gives its value to the receipt waiting on it from the last call only', () => {
    // nearcore's execute_function_call (runtime/runtime/src/function_call.rs, stored version
    // 0b6e1f3c3a5f5266a0e41c7b744403ba30d54780): "Output data receipts are ignored if the function call is not the
    // last action in the batch", so only the last call's value_return pays data_receipt_creation_per_byte.
    const chain = setUp();
    chain.call('alice.near', 'relay.near', 'start_two', {}, 0n, 150n * TGAS);
    const { receipts } = runAll(chain);
    expect(receipts.map(({ method, at, status, logs }) => [method, at, status, logs])).toEqual([
      ['start_two', 0, 'SuccessValue', []],
      ['leaf', 1, 'SuccessValue', []],
      ['callback_one', 2, 'SuccessValue', ['leaf']],
    ]);
    const [first, last] = receipts[1]!.r.calls;
    expect(first!.profile.NEW_DATA_RECEIPT_BYTE).toBeUndefined();
    // "leaf" is 4 bytes to relay.near itself: (send_sir 17,212,011 + execution 17,212,011) a byte.
    expect(last!.profile.NEW_DATA_RECEIPT_BYTE).toBe(4n * (17_212_011n + 17_212_011n));
  });

  it('transactions run first in their block, then the receipts sent to it, in the order they were sent', () => {
    const chain = setUp();
    chain.call('alice.near', 'relay.near', 'start', {}, 0n, 150n * TGAS);
    chain.produceBlock();
    chain.call('alice.near', 'relay.near', 'leaf', {});
    const block = normalizeStreamerMessage(chain.produceBlock());
    const methods = block.shards[0]!.receiptOutcomes.map((o) => (o.receipt.kind === 'Action' && o.receipt.actions[0]!.kind === 'FunctionCall' ? o.receipt.actions[0]!.methodName : ''));
    expect(methods).toEqual(['leaf', 'forward', 'leaf']);
    expect(block.shards[0]!.chunk!.transactions).toHaveLength(1);
  });
});

describe("realnet chain: txReceipts 'nearcore'", () => {
  it("a transaction's receipt to another account runs in the next block, a local one in its own; the rest follows one block later", () => {
    const chain = new RealnetChain({ seed: 'relay', txReceipts: 'nearcore' });
    chain.deploy('relay.near', relayModule(), 100n * Y);
    chain.createAccount('alice.near', 100n * Y);
    chain.call('alice.near', 'relay.near', 'start', {}, 0n, 150n * TGAS);
    chain.call('relay.near', 'relay.near', 'leaf', {});
    const { receipts, blocks } = runAll(chain);
    expect(receipts.map(({ method, at }) => [method, at])).toEqual([
      ['leaf', 0],
      ['start', 1],
      ['forward', 2],
      ['leaf', 2],
      ['leaf', 3],
      ['callback', 4],
    ]);
    // Both transactions are in the first block; start's receipt is not.
    expect(blocks[0]!.shards[0]!.chunk!.transactions).toHaveLength(2);
    expect(blocks[1]!.shards[0]!.receiptOutcomes[0]!.txHash).toBe(blocks[0]!.shards[0]!.chunk!.transactions[0]!.hash);
  });
});

describe('realnet chain: save() with the hosted models', () => {
  it("a restore undoes a hosted model's change: its JavaScript state, its storage, the real tokens, the block being built", () => {
    const market = realnetMarket(undefined, { seed: 'save-models', models: true, recordTrades: true });
    while (!market.trading) market.next(); // the models set up in the first block that trades
    for (let i = 0; i < 3; i++) market.next();
    const { chain } = market;
    const models = market.models!;
    const dcl = models.dexes.find((d) => d.id === 'AmmDclA') as AmmDclADevnet;
    // StakeB (LiNEAR's model) keeps its state in its storage too.
    const stake = models.dexes.find((d) => d.id === 'StakeB') as StakeBDevnet;
    const poolId = [...dcl.pools.keys()].find((id) => id.split('|').includes(WRAP))!;
    const trader = 'erin.near';
    const text = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x instanceof Uint8Array ? Buffer.from(x).toString('base64') : x instanceof Map ? [...x] : x));
    const look = () => ({
      pool: text(dcl.pools.get(poolId)),
      model: text([[...dcl.pools], [...dcl.positions], dcl.reserves(), stake.rate()]),
      storage: text(chain.storageOf(models.world.contracts.StakeB)),
      trades: models.trades.length,
      rng: text(models.world.rng),
      wnear: chain.view<string>(WRAP, 'ft_balance_of', { account_id: trader }),
      near: chain.balance(trader),
      height: chain.height,
    });
    // Saved in the middle of a block: a model's transaction already in it (a model's runs at once).
    dcl.swap(models.world, trader, [poolId], WRAP, 10n ** 24n, 0n);
    const before = look();
    const restore = chain.save();
    // The models' change: a wallet's swap on AmmDclA (the real wNEAR's ft_transfer_call to the model) and its stake on
    // StakeB, then a block of the models' seeded actions.
    const act = (): string => {
      dcl.swap(models.world, trader, [poolId], WRAP, 10n ** 24n, 0n);
      stake.stake(models.world, trader, 10n * 10n ** 24n);
      models.act();
      return text(chain.produceBlock());
    };
    const block = act();
    const after = look();
    for (const key of ['pool', 'model', 'storage', 'trades', 'rng', 'wnear', 'near', 'height'] as const) expect(after[key], key).not.toEqual(before[key]);
    restore();
    expect(look()).toEqual(before);
    // The same actions on the restored chain make the same block, byte for byte.
    expect(act()).toBe(block);
    expect(look()).toEqual(after);
    restore();
    expect(look()).toEqual(before);
  }, 120_000);
});
