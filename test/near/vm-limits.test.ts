// Each limit near/vm enforces, hit by a module assembled here byte by byte, and the error nearcore gives for it.
// Expected kinds and messages are nearcore's, read from (github.com/near/nearcore):
//   - runtime/near-vm-runner/src/logic/logic.rs @ 015033ab2bcd716baeb046c1176205397f38af3c (which check, in which
//     order, with which numbers: get_utf8_string, get_utf16_string, log_utf8/16, value_return, storage_*, promise_*);
//     ExecutionResultState::checked_push_log and total_log_length_exceeded are in the same file;
//   - runtime/near-vm-runner/src/logic/vmstate.rs (Registers::check_set_register: all register limits are
//     MemoryAccessViolation), stored version 01f8ee8b1dc63470176eeb7557e576f74fd22e9f;
//   - runtime/near-vm-runner/src/logic/gas_counter.rs (process_gas_limit: GasLimitExceeded when burnt gas passes
//     max_gas_burnt, else GasExceeded), stored version 02e1c929f3eb32e24de656a96e43b5c0f0a7a0b9;
//   - runtime/near-vm-runner/src/logic/errors.rs (HostError's Display), stored version 02e1c929f3eb32e24de656a96e43b5c0f0a7a0b9;
//   - runtime/runtime/src/verifier.rs @ 015033ab (check_storage_stake, ZERO_BALANCE_ACCOUNT_STORAGE_LIMIT = 770) and
//     core/primitives/src/errors.rs (ActionErrorKind::LackBalanceForState's Display).
// The limits' values are nearcore's protocol-90 ones (test/near/params-nearcore.test.ts checks them): written
// here as literals so that a changed parameter shows as a changed error.
import { describe, expect, it } from 'vitest';
import { Contract, type Outcome } from '../../near/vm/runtime.ts';
import { sleb, uleb } from './wasm-asm.ts';

// ---- a tiny wasm assembler ---------------------------------------------------------------------

const str = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s)];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];

// nearcore's host functions used here: name -> (number of i64 params, returns an i64).
const HOST: Record<string, [number, boolean]> = {
  log_utf8: [2, false],
  log_utf16: [2, false],
  write_register: [3, false],
  input: [1, false],
  storage_write: [5, true],
  storage_read: [3, true],
  storage_remove: [3, true],
  storage_has_key: [2, true],
  value_return: [2, false],
  promise_batch_create: [2, true],
  promise_and: [2, true],
  promise_batch_action_transfer: [2, false],
};
const HOST_NAMES = Object.keys(HOST);
const I64 = 0x7e;

// Instructions (i64 arithmetic, one i64 local as a counter).
const i64 = (v: number | bigint): number[] => [0x42, ...sleb(v)];
const call = (name: string): number[] => [0x10, ...uleb(HOST_NAMES.indexOf(name))];
const DROP = [0x1a];
const I = [0x20, 0]; // local.get 0
/** Runs `body` for local 0 = 0 .. n-1. */
const times = (n: number | bigint, body: number[]): number[] => [
  ...i64(0), 0x21, 0,
  0x03, 0x40, ...body, ...I, ...i64(1), 0x7c, 0x22, 0, ...i64(n), 0x54, 0x0d, 0, 0x0b,
];
const SPIN = [0x03, 0x40, 0x0c, 0, 0x0b]; // loop { br 0 }
const GROW_TO_128_MIB = [0x41, ...sleb(1024), 0x40, 0, 0x1a]; // memory.grow(1024 pages), on nearcore's 1024

/** A module importing nearcore's memory (64 MiB, up to 128 MiB) and the host functions above, exporting
 * `methods` (no params, no results) and initialising memory from `data` ([offset, bytes]). */
function module(methods: Record<string, number[]>, data: [number, Uint8Array][]): Uint8Array {
  const hostTypes = HOST_NAMES.map((n) => [0x60, ...vec(Array.from({ length: HOST[n]![0] }, () => [I64])), ...(HOST[n]![1] ? [1, I64] : [0])]);
  const types = section(1, vec([...hostTypes, [0x60, 0, 0]]));
  const voidType = hostTypes.length;
  const imports = section(2, vec([
    ...HOST_NAMES.map((n, i) => [...str('env'), ...str(n), 0, ...uleb(i)]),
    [...str('env'), ...str('memory'), 2, 0, 1],
  ]));
  const names = Object.keys(methods);
  const funcs = section(3, vec(names.map(() => uleb(voidType))));
  const exports = section(7, vec(names.map((n, i) => [...str(n), 0, ...uleb(HOST_NAMES.length + i)])));
  const bodies = names.map((n) => {
    const body = [...vec([[1, I64]]), ...methods[n]!, 0x0b];
    return [...uleb(body.length), ...body];
  });
  const code = section(10, vec(bodies));
  const datas = section(11, vec(data.map(([at, bytes]) => [0, 0x41, ...sleb(at), 0x0b, ...uleb(bytes.length), ...bytes])));
  return new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...types, ...imports, ...funcs, ...exports, ...code, ...datas]);
}

// ---- memory layout and the contract ------------------------------------------------------------

const ACCOUNT = 0; // "a.near", 6 bytes
const AMOUNT = 16; // u128 little-endian
const INDICES = 64; // 129 u64 promise indices 0..128
const CJK = 2048; // 12,000 bytes: U+4848 six thousand times in UTF-16LE (3 bytes each in UTF-8)
const ZEROS = 1 << 20; // zeros from here on (NUL is valid UTF-8)
const Y = 10n ** 24n;
const BALANCE = 100n * Y;
const PGAS = 1_000_000_000_000_000n;

const u128le = (v: bigint): Uint8Array => Uint8Array.from({ length: 16 }, (_, i) => Number((v >> BigInt(8 * i)) & 0xffn));
const indices = new Uint8Array(129 * 8);
for (let i = 0; i < 129; i++) indices[i * 8] = i;

// write_register(0, L, ZEROS) costs read_memory_byte + write_register_byte (7,602,897) a byte: two of them leave
// about 10 TGas of 1 PGas for the spin loop, so the wasm meter, not a host function, runs out.
const BURN_LEN = (PGAS - 10n ** 13n) / 2n / 7_602_897n;

const METHODS: Record<string, number[]> = {
  logs_100: times(100, [...i64(1), ...i64(ACCOUNT), ...call('log_utf8')]),
  logs_101: times(101, [...i64(1), ...i64(ACCOUNT), ...call('log_utf8')]),
  log_16384: [...i64(16384), ...i64(ZEROS), ...call('log_utf8')],
  log_16385: [...i64(16385), ...i64(ZEROS), ...call('log_utf8')],
  log_10000_twice: times(2, [...i64(10000), ...i64(ZEROS), ...call('log_utf8')]),
  log_utf16_cjk: [...i64(12000), ...i64(CJK), ...call('log_utf16')],
  register_100_mib: [...GROW_TO_128_MIB, ...i64(0), ...i64(104_857_600), ...i64(0), ...call('write_register')],
  register_100_mib_plus_1: [...GROW_TO_128_MIB, ...i64(0), ...i64(104_857_601), ...i64(0), ...call('write_register')],
  registers_100: times(100, [...I, ...i64(1), ...i64(0), ...call('write_register')]),
  registers_101: [...times(100, [...I, ...i64(1), ...i64(0), ...call('write_register')]), ...i64(100), ...i64(1), ...i64(0), ...call('write_register')],
  registers_100_replace: [...times(100, [...I, ...i64(1), ...i64(0), ...call('write_register')]), ...i64(0), ...i64(1), ...i64(0), ...call('write_register')],
  input_10: times(10, [...I, ...call('input')]),
  input_11: times(11, [...I, ...call('input')]),
  write_key_2048: [...i64(2048), ...i64(ZEROS), ...i64(1), ...i64(0), ...i64(0), ...call('storage_write'), ...DROP],
  write_key_2049: [...i64(2049), ...i64(ZEROS), ...i64(1), ...i64(0), ...i64(0), ...call('storage_write'), ...DROP],
  read_key_2049: [...i64(2049), ...i64(ZEROS), ...i64(0), ...call('storage_read'), ...DROP],
  remove_key_2049: [...i64(2049), ...i64(ZEROS), ...i64(0), ...call('storage_remove'), ...DROP],
  has_key_2049: [...i64(2049), ...i64(ZEROS), ...call('storage_has_key'), ...DROP],
  write_value_4194304: [...i64(1), ...i64(ACCOUNT), ...i64(4_194_304), ...i64(ZEROS), ...i64(0), ...call('storage_write'), ...DROP],
  write_value_4194305: [...i64(1), ...i64(ACCOUNT), ...i64(4_194_305), ...i64(ZEROS), ...i64(0), ...call('storage_write'), ...DROP],
  write_value_100: [...i64(4), ...i64(ACCOUNT), ...i64(100), ...i64(ZEROS), ...i64(0), ...call('storage_write'), ...DROP],
  write_value_200: [...i64(4), ...i64(ACCOUNT), ...i64(200), ...i64(ZEROS), ...i64(0), ...call('storage_write'), ...DROP],
  return_4194304: [...i64(4_194_304), ...i64(ZEROS), ...call('value_return')],
  return_4194305: [...i64(4_194_305), ...i64(ZEROS), ...call('value_return')],
  promises_1024: times(1024, [...i64(6), ...i64(ACCOUNT), ...call('promise_batch_create'), ...DROP]),
  promises_1025: times(1025, [...i64(6), ...i64(ACCOUNT), ...call('promise_batch_create'), ...DROP]),
  and_128: [...times(129, [...i64(6), ...i64(ACCOUNT), ...call('promise_batch_create'), ...DROP]), ...i64(INDICES), ...i64(128), ...call('promise_and'), ...DROP],
  and_129: [...times(129, [...i64(6), ...i64(ACCOUNT), ...call('promise_batch_create'), ...DROP]), ...i64(INDICES), ...i64(129), ...call('promise_and'), ...DROP],
  transfer: [...i64(6), ...i64(ACCOUNT), ...call('promise_batch_create'), ...DROP, ...i64(0), ...i64(AMOUNT), ...call('promise_batch_action_transfer')],
  spin: SPIN,
  burn_then_spin: [...times(2, [...i64(0), ...i64(BURN_LEN), ...i64(ZEROS), ...call('write_register')]), ...SPIN],
};

function contract(amount: bigint, options: ConstructorParameters<typeof Contract>[2] = {}): Contract {
  const cjk = new Uint8Array(12000).fill(0x48);
  const wasm = module(METHODS, [[ACCOUNT, Buffer.from('a.near')], [AMOUNT, u128le(amount)], [INDICES, indices], [CJK, cjk]]);
  return new Contract('limits.near', wasm, { balance: BALANCE, ...options });
}

const fails = (out: Outcome, kind: string, error: string): void => {
  expect({ ok: out.ok, kind: out.errorKind, error: out.error }).toEqual({ ok: false, kind, error });
};
const ok = (out: Outcome): void => expect(out.error).toBeUndefined();

const c = contract(1n);
const at = { predecessorId: 'alice.near' };

describe('near/vm limits: each one hit, with nearcore\'s error', () => {
  it('logs: 100 lines pass, the 101st is NumberOfLogsExceeded', () => {
    ok(c.call('logs_100', '', at));
    const out = c.call('logs_101', '', at);
    fails(out, 'NumberOfLogsExceeded', 'The number of logs will exceed the limit 100');
    // nearcore keeps the logs of a failed call in its outcome.
    expect(out.logs).toHaveLength(100);
  });

  it('logs: 16,384 bytes pass, 16,385 are TotalLogLengthExceeded, before reading memory', () => {
    ok(c.call('log_16384', '', at));
    fails(c.call('log_16385', '', at), 'TotalLogLengthExceeded', 'The length of a log message 16385 exceeds the limit 16384');
  });

  it('logs: the total counts across logs (get_utf8_string reports total + the new length)', () => {
    fails(c.call('log_10000_twice', '', at), 'TotalLogLengthExceeded', 'The length of a log message 20000 exceeds the limit 16384');
  });

  it('logs: UTF-16 that fits as UTF-16 but not as UTF-8 fails in checked_push_log, which counts the new length twice', () => {
    // 12,000 bytes of UTF-16 pass get_utf16_string (<= 16,384); as a String they are 18,000 bytes; checked_push_log
    // adds them to the total and then reports total + len = 36,000.
    fails(c.call('log_utf16_cjk', '', at), 'TotalLogLengthExceeded', 'The length of a log message 36000 exceeds the limit 16384');
  });

  it('registers: one of max_register_size (100 MiB) passes, a byte more is MemoryAccessViolation', () => {
    // Reading 100 MiB of memory and writing it to a register burns ~797 TGas: the call gets 1 PGas.
    ok(c.call('register_100_mib', '', { ...at, prepaidGas: PGAS }));
    fails(c.call('register_100_mib_plus_1', '', { ...at, prepaidGas: PGAS }), 'MemoryAccessViolation', 'Accessed memory outside the bounds.');
  });

  it('registers: 100 pass, a 101st is MemoryAccessViolation, and so is replacing one at the limit', () => {
    ok(c.call('registers_100', '', at));
    fails(c.call('registers_101', '', at), 'MemoryAccessViolation', 'Accessed memory outside the bounds.');
    fails(c.call('registers_100_replace', '', at), 'MemoryAccessViolation', 'Accessed memory outside the bounds.');
  });

  it('registers: registers_memory_limit (1 GiB, each register counting its length + 8) is MemoryAccessViolation', () => {
    // Only reachable with an input above max_arguments_length (nearcore refuses such a receipt); `input` charges
    // no bytes, so 11 registers of 100 MiB cost little here.
    const input = new Uint8Array(104_857_600);
    ok(c.call('input_10', input, at));
    fails(c.call('input_11', input, at), 'MemoryAccessViolation', 'Accessed memory outside the bounds.');
  });

  it('storage keys: 2,048 bytes pass, 2,049 are KeyLengthExceeded for write, read, remove and has_key', () => {
    ok(c.call('write_key_2048', '', at));
    const message = 'The length of a storage key 2049 exceeds the limit 2048';
    for (const m of ['write_key_2049', 'read_key_2049', 'remove_key_2049', 'has_key_2049']) fails(c.call(m, '', at), 'KeyLengthExceeded', message);
  });

  it('storage values: 4 MiB pass, a byte more is ValueLengthExceeded', () => {
    ok(c.call('write_value_4194304', '', at));
    fails(c.call('write_value_4194305', '', at), 'ValueLengthExceeded', 'The length of a storage value 4194305 exceeds the limit 4194304');
  });

  it('return value: 4 MiB pass, a byte more is ReturnedValueLengthExceeded', () => {
    expect(c.call('return_4194304', '', at).returnValue).toHaveLength(4_194_304);
    fails(c.call('return_4194305', '', at), 'ReturnedValueLengthExceeded', 'The length of a returned value 4194305 exceeds the limit 4194304');
  });

  it('promises: 1,024 pass, the 1,025th is NumberPromisesExceeded', () => {
    expect(c.call('promises_1024', '', at).receipts).toHaveLength(1024);
    fails(c.call('promises_1025', '', at), 'NumberPromisesExceeded', 'The number of promises within a FunctionCall 1025 exceeds the limit 1024');
  });

  it('promise_and: 128 dependencies pass, 129 are NumberInputDataDependenciesExceeded', () => {
    ok(c.call('and_128', '', at));
    fails(c.call('and_129', '', at), 'NumberInputDataDependenciesExceeded', 'The number of input data dependencies 129 exceeds the limit 128');
  });

  it('balance: attaching more than the account has is BalanceExceeded', () => {
    const rich = contract(Y);
    const sent = rich.call('transfer', '', at);
    ok(sent);
    expect(sent.receipts[0]!.actions).toEqual([{ kind: 'Transfer', deposit: Y }]);
    expect(sent.balance).toBe(BALANCE - Y);
    const poor = contract(BALANCE + 1n);
    fails(poor.call('transfer', '', at), 'BalanceExceeded', 'Exceeded the account balance.');
    expect(poor.account.amount).toBe(BALANCE);
  });

  it('storage stake: a write the balance cannot cover is LackBalanceForState, by exactly the missing amount', () => {
    // 1,000 bytes used, balance exactly 1,000 x 10^19; a record of 4 + 100 + 40 bytes needs 144 x 10^19 more.
    const full = contract(1n, { balance: 1000n * 10n ** 19n, baseStorageUsage: 1000n });
    fails(
      full.call('write_value_100', '', at),
      'LackBalanceForState',
      "The account limits.near wouldn't have enough balance to cover storage, required to have 1440000000000000000000 yoctoNEAR more",
    );
    expect(full.account.storageUsage).toBe(1000n);
    expect(full.storage.get('a.ne')).toBeUndefined();
  });

  it('storage stake: up to 770 bytes need no balance (zero-balance accounts), 771 and more do', () => {
    // 600 + 144 = 744 <= 770 passes with nothing; 600 + 244 = 844 needs all of it.
    const zero = contract(1n, { balance: 0n, baseStorageUsage: 600n });
    ok(zero.call('write_value_100', '', at));
    expect(zero.account.storageUsage).toBe(744n);
    const zero2 = contract(1n, { balance: 0n, baseStorageUsage: 600n });
    fails(
      zero2.call('write_value_200', '', at),
      'LackBalanceForState',
      "The account limits.near wouldn't have enough balance to cover storage, required to have 8440000000000000000000 yoctoNEAR more",
    );
  });

  it('prepaid gas: running out of it is GasExceeded, and the call burns exactly its prepaid gas', () => {
    const out = c.call('spin', '', { ...at, prepaidGas: 5n * 10n ** 12n });
    fails(out, 'GasExceeded', 'Exceeded the prepaid gas.');
    expect(out.vmBurntGas).toBe(5n * 10n ** 12n);
    // A host function running out of prepaid gas (the first 500 TGas write_register) says the same.
    fails(c.call('burn_then_spin', '', at), 'GasExceeded', 'Exceeded the prepaid gas.');
  });

  it('max_gas_burnt: with 1 PGas prepaid (= max_gas_burnt), running out is GasLimitExceeded, in a call and in a view', () => {
    // Both limits crossed: nearcore's process_gas_limit prefers GasLimitExceeded (burnt > max_gas_burnt).
    const out = c.call('burn_then_spin', '', { ...at, prepaidGas: PGAS });
    fails(out, 'GasLimitExceeded', 'Exceeded the maximum amount of gas allowed to burn per contract.');
    expect(out.vmBurntGas).toBe(PGAS);
    // A view has no prepaid gas, only max_gas_burnt_view (1 PGas).
    fails(c.view('burn_then_spin'), 'GasLimitExceeded', 'Exceeded the maximum amount of gas allowed to burn per contract.');
  });
});
