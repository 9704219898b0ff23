// Where near/vm differed from nearcore (issue 39, point 6), each case on a module assembled here (no release contract
// takes these paths), with what nearcore does. Read from github.com/near/nearcore:
//   - L: runtime/near-vm-runner/src/logic/logic.rs @ 015033ab2bcd716baeb046c1176205397f38af3c (get_utf8_string and
//     get_utf16_string decode with String::from_utf8 / from_utf16, which keep a leading U+FEFF;
//     promise_batch_action_function_call_weight: fees, prepaid gas and deposit before the action is appended;
//     promise_and: promise_idx_count.checked_mul(8) or IntegerOverflow; promise_batch_action_transfer: deduct_balance);
//   - R: runtime/runtime/src/receipt_manager.rs, stored version 003e4f6a5300d52dff71ccf8fa1352945e9413b9
//     (append_action_function_call_weight and append_action_add_key_with_function_call: String::from_utf8 of each
//     method name or InvalidMethodName, when the action is appended);
//   - G: runtime/near-vm-runner/src/logic/gas_counter.rs, stored version 038eef905ed367aeb29d82ca1c2f6026c4754f28
//     (pay_per: num.checked_mul(cost) or IntegerOverflow);
//   - V: runtime/runtime/src/verifier.rs @ 015033ab (validate_actions: DeleteActionMustBeFinal;
//     validate_function_call_action: FunctionCallZeroAttachedGas; validate_stake_action: UnsuitableStakingKey;
//     validate_access_key_permission: AddKeyMethodNameLengthExceeded), the variants printed as Rust's Debug;
//   - E: runtime/near-vm-runner/src/logic/errors.rs (HostError's Display: "Integer overflow.", "VM Logic returned an
//     invalid method name", ContractSizeExceeded's message);
//   - Y: nearcore PR #15461 (one_yocto_on_promise, protocol 85): only promise_batch_action_function_call_weight may
//     attach 1 yoctoNEAR from a zero balance; "transfers, other amounts, and all other promise actions are unaffected".
// Fees and limits are protocol 90's (test/near/params-nearcore.test.ts checks them against nearcore's files).
import { describe, expect, it } from 'vitest';
import { Contract, type Outcome } from '../../near/vm/runtime.ts';
import { assemble, instructions, type HostTable } from './wasm-asm.ts';

const HOST: HostTable = {
  log_utf8: [2, false],
  log_utf16: [2, false],
  promise_batch_create: [2, true],
  promise_batch_action_function_call: [7, false],
  promise_batch_action_function_call_weight: [8, false],
  promise_batch_action_transfer: [2, false],
  promise_batch_action_delete_account: [3, false],
  promise_batch_action_stake: [4, false],
  promise_batch_action_add_key_with_function_call: [9, false],
  promise_batch_action_deploy_contract: [3, false],
  promise_and: [2, true],
};
const { i64, call, DROP } = instructions(HOST);

// Memory: data segments at these addresses; zeros from ZEROS on.
const ACCOUNT = 0; // "a.near"
const AMOUNT0 = 16;
const AMOUNT1 = 32;
const AMOUNT2 = 48;
const AMOUNT_HUGE = 64; // 10^30 yocto, more than the contract has
const BAD_NAME = 96; // 0xff: not UTF-8
const NAME = 104; // "go"
const BENEFICIARY = 112; // "b.near"
const BOM8 = 128; // EF BB BF "hi"
const BOM16 = 144; // FF FE "h" 0 "i" 0
const SECP_KEY = 160; // borsh secp256k1 key: 1 ‖ 64 bytes
const ED_ORDER_2 = 256; // borsh ed25519 key: 0 ‖ (0, -1), a point of order 2
const ED_BASEPOINT = 320; // borsh ed25519 key: 0 ‖ the base point
const LONG_ACCOUNT = 400; // 65 × "a"
const LONG_NAME = 512; // 257 × "m"
const ZEROS = 1 << 20;

const TGAS = 10n ** 12n;
const Y = 10n ** 24n;
const u128le = (v: bigint): Uint8Array => Uint8Array.from({ length: 16 }, (_, i) => Number((v >> BigInt(8 * i)) & 0xffn));
const hex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'));

const create = [...i64(6), ...i64(ACCOUNT), ...call('promise_batch_create'), ...DROP];
const fnCall = (nameLen: number, namePtr: number, amountPtr: number, gas: bigint): number[] => [
  ...i64(0), ...i64(nameLen), ...i64(namePtr), ...i64(0), ...i64(0), ...i64(amountPtr), ...i64(gas), ...call('promise_batch_action_function_call'),
];
const fnCallWeight = (nameLen: number, namePtr: number, gas: bigint, weight: bigint): number[] => [
  ...i64(0), ...i64(nameLen), ...i64(namePtr), ...i64(0), ...i64(0), ...i64(AMOUNT0), ...i64(gas), ...i64(weight),
  ...call('promise_batch_action_function_call_weight'),
];
const transfer = (amountPtr: number): number[] => [...i64(0), ...i64(amountPtr), ...call('promise_batch_action_transfer')];
const deleteAccount = [...i64(0), ...i64(6), ...i64(BENEFICIARY), ...call('promise_batch_action_delete_account')];
const stake = (keyLen: number, keyPtr: number): number[] => [...i64(0), ...i64(AMOUNT0), ...i64(keyLen), ...i64(keyPtr), ...call('promise_batch_action_stake')];
const deploy = (len: number): number[] => [...i64(0), ...i64(len), ...i64(ZEROS), ...call('promise_batch_action_deploy_contract')];
const and = (count: bigint): number[] => [...i64(ZEROS), ...i64(count), ...call('promise_and'), ...DROP];

const METHODS: Record<string, number[]> = {
  log_bom_utf8: [...i64(5), ...i64(BOM8), ...call('log_utf8')],
  log_bom_utf16: [...i64(6), ...i64(BOM16), ...call('log_utf16')],
  bad_name: [...create, ...fnCall(1, BAD_NAME, AMOUNT0, 10n * TGAS)],
  bad_name_weight: [...create, ...fnCallWeight(1, BAD_NAME, 0n, 1n)],
  bad_name_add_key: [
    ...create, ...i64(0), ...i64(33), ...i64(ED_BASEPOINT), ...i64(0), ...i64(AMOUNT0), ...i64(6), ...i64(BENEFICIARY),
    ...i64(1), ...i64(BAD_NAME), ...call('promise_batch_action_add_key_with_function_call'),
  ],
  bad_name_huge_deposit: [...create, ...fnCall(1, BAD_NAME, AMOUNT_HUGE, 10n * TGAS)],
  zero_gas: [...create, ...fnCall(2, NAME, AMOUNT0, 0n)],
  zero_gas_weight: [...create, ...fnCallWeight(2, NAME, 0n, 1n)],
  delete_then_transfer: [...create, ...deleteAccount, ...transfer(AMOUNT0)],
  transfer_then_delete: [...create, ...transfer(AMOUNT0), ...deleteAccount],
  stake_secp256k1: [...create, ...stake(65, SECP_KEY)],
  stake_order_2: [...create, ...stake(33, ED_ORDER_2)],
  stake_basepoint: [...create, ...stake(33, ED_BASEPOINT)],
  add_key_long_method: [
    ...create, ...i64(0), ...i64(33), ...i64(ED_BASEPOINT), ...i64(0), ...i64(AMOUNT0), ...i64(6), ...i64(BENEFICIARY),
    ...i64(257), ...i64(LONG_NAME), ...call('promise_batch_action_add_key_with_function_call'),
  ],
  call_long_method: [...create, ...fnCall(257, LONG_NAME, AMOUNT0, 10n * TGAS)],
  long_account: [...i64(65), ...i64(LONG_ACCOUNT), ...call('promise_batch_create'), ...DROP],
  deploy_4194304: [...create, ...deploy(4_194_304)],
  deploy_4194305: [...create, ...deploy(4_194_305)],
  and_2_61: and(1n << 61n),
  and_2_40: and(1n << 40n),
  and_2_30: and(1n << 30n),
  one_yocto_call: [...create, ...fnCall(2, NAME, AMOUNT1, 10n * TGAS)],
  two_yocto_call: [...create, ...fnCall(2, NAME, AMOUNT2, 10n * TGAS)],
  one_yocto_transfer: [...create, ...transfer(AMOUNT1)],
};

const wasm = assemble(HOST, METHODS, [
  [ACCOUNT, Buffer.from('a.near')],
  [AMOUNT0, u128le(0n)],
  [AMOUNT1, u128le(1n)],
  [AMOUNT2, u128le(2n)],
  [AMOUNT_HUGE, u128le(10n ** 30n)],
  [BAD_NAME, Uint8Array.of(0xff)],
  [NAME, Buffer.from('go')],
  [BENEFICIARY, Buffer.from('b.near')],
  [BOM8, hex('efbbbf6869')],
  [BOM16, hex('fffe68006900')],
  [SECP_KEY, Uint8Array.from({ length: 65 }, (_, i) => (i === 0 ? 1 : i))],
  [ED_ORDER_2, hex('00ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f')],
  [ED_BASEPOINT, hex('005866666666666666666666666666666666666666666666666666666666666666')],
  [LONG_ACCOUNT, Buffer.from('a'.repeat(65))],
  [LONG_NAME, Buffer.from('m'.repeat(257))],
]);

const at = { predecessorId: 'alice.near' };
const rich = (): Contract => new Contract('diffs.near', wasm, { balance: 100n * Y });
const fails = (out: Outcome, kind: string, error: string): void => {
  expect({ ok: out.ok, kind: out.errorKind, error: out.error }).toEqual({ ok: false, kind, error });
};
const ok = (out: Outcome): void => expect(out.error).toBeUndefined();
const receiptError = (what: string): string => `NewReceiptValidationError(ActionsValidation(${what}))`;

describe('near/vm against nearcore: strings keep a leading BOM', () => {
  it('log_utf8 and log_utf16 keep U+FEFF (L: String::from_utf8 / from_utf16), and log_byte counts its 3 bytes', () => {
    const c = rich();
    for (const m of ['log_bom_utf8', 'log_bom_utf16']) {
      const out = c.call(m, '', at);
      ok(out);
      expect(out.logs).toEqual(['\u{feff}hi']);
      // log_byte (13,198,791) × 5 bytes of the String: EF BB BF 68 69.
      expect(out.profile.LOG_BYTE).toBe(5n * 13_198_791n);
    }
  });
});

describe('near/vm against nearcore: a function call action pays before its method name is checked', () => {
  // Send fees to another account: action_function_call 200 Ggas, action_function_call_per_byte 47,683,715 a byte.
  it('an invalid UTF-8 method name is InvalidMethodName after function_call_base and _byte are burnt (L, R)', () => {
    for (const m of ['bad_name', 'bad_name_weight']) {
      const out = rich().call(m, '', at);
      fails(out, 'InvalidMethodName', 'VM Logic returned an invalid method name');
      expect(out.profile.FUNCTION_CALL_BASE).toBe(200_000_000_000n);
      expect(out.profile.FUNCTION_CALL_BYTE).toBe(47_683_715n);
      expect(out.usedGas).toBe(out.burntGas);
    }
  });

  it('so is an AddKey permission\'s method name: InvalidMethodName after add_function_call_key_base and _byte (L, R)', () => {
    // action_add_function_call_key 102,217,625,000; per byte (the name and its terminator) 47,683,715 to another account.
    const out = rich().call('bad_name_add_key', '', at);
    fails(out, 'InvalidMethodName', 'VM Logic returned an invalid method name');
    expect(out.profile.ADD_FUNCTION_CALL_KEY_BASE).toBe(102_217_625_000n);
    expect(out.profile.ADD_FUNCTION_CALL_KEY_BYTE).toBe(2n * 47_683_715n);
  });

  it('with a deposit the account cannot pay, the same call is BalanceExceeded: the deposit is taken before the name is read', () => {
    fails(rich().call('bad_name_huge_deposit', '', at), 'BalanceExceeded', 'Exceeded the account balance.');
  });
});

describe('near/vm against nearcore: the checks of a new receipt (V)', () => {
  it('a function call with no gas is FunctionCallZeroAttachedGas; with a gas weight it gets the unused gas and passes', () => {
    fails(rich().call('zero_gas', '', at), 'NewReceiptValidationError', receiptError('FunctionCallZeroAttachedGas'));
    const out = rich().call('zero_gas_weight', '', at);
    ok(out);
    const action = out.receipts[0]!.actions[0]!;
    expect(action.kind === 'FunctionCall' && action.gas > 0n).toBe(true);
  });

  it('DeleteAccount must be the receipt\'s last action (DeleteActionMustBeFinal)', () => {
    fails(rich().call('delete_then_transfer', '', at), 'NewReceiptValidationError', receiptError('DeleteActionMustBeFinal'));
    ok(rich().call('transfer_then_delete', '', at));
  });

  it('a stake key must be an ed25519 point without torsion (UnsuitableStakingKey)', () => {
    // The keys in base58 (the Debug form near-crypto prints), worked out apart from near/vm.
    fails(
      rich().call('stake_secp256k1', '', at),
      'NewReceiptValidationError',
      receiptError('UnsuitableStakingKey { public_key: secp256k1:2Ana1pUpv2ZbMVkwF5FXapYeBEjdxDatLn7nvJkhgTSXbs59SyZSx866bXirPgj8QQVB57uxHJBG1YFvkRbFj4T }'),
    );
    fails(
      rich().call('stake_order_2', '', at),
      'NewReceiptValidationError',
      receiptError('UnsuitableStakingKey { public_key: ed25519:Gx9dDNxzpALCowVuZb7pBceBLJugLA8sPa6TJDXrpfeW }'),
    );
    const out = rich().call('stake_basepoint', '', at);
    ok(out);
    expect(out.receipts[0]!.actions[0]!.kind).toBe('Stake');
  });

  it('method names: 257 bytes in an AddKey permission or a function call exceed max_length_method_name (256)', () => {
    fails(rich().call('add_key_long_method', '', at), 'NewReceiptValidationError', receiptError('AddKeyMethodNameLengthExceeded { length: 257, limit: 256 }'));
    fails(rich().call('call_long_method', '', at), 'NewReceiptValidationError', receiptError('FunctionCallMethodNameLengthExceeded { length: 257, limit: 256 }'));
  });

  it('an account id of 65 characters is refused when read (L: read_and_parse_account_id, InvalidAccountId)', () => {
    fails(rich().call('long_account', '', at), 'InvalidAccountId', 'VM Logic returned an invalid account id');
  });

  it('code of max_contract_size (4 MiB) deploys, a byte more is ContractSizeExceeded (L, E)', () => {
    ok(rich().call('deploy_4194304', '', { ...at, prepaidGas: 1000n * TGAS }));
    fails(
      rich().call('deploy_4194305', '', { ...at, prepaidGas: 1000n * TGAS }),
      'ContractSizeExceeded',
      'The size of a contract code in DeployContract action 4194305 exceeds the limit 4194304',
    );
  });
});

describe('near/vm against nearcore: promise_and with a count that overflows u64', () => {
  it('count × 8 past u64 is IntegerOverflow (L), and so is count × 8 × promise_and_per_promise (G)', () => {
    fails(rich().call('and_2_61', '', at), 'IntegerOverflow', 'Integer overflow.');
    fails(rich().call('and_2_40', '', at), 'IntegerOverflow', 'Integer overflow.');
    // 2^33 bytes × 5,452,176 fits a u64 but is past max_gas_burnt (1 PGas).
    fails(rich().call('and_2_30', '', at), 'GasLimitExceeded', 'Exceeded the maximum amount of gas allowed to burn per contract.');
  });
});

describe('near/vm against nearcore: the one-yocto subsidy is for function calls only (Y)', () => {
  const broke = (): Contract => new Contract('diffs.near', wasm, { balance: 0n, baseStorageUsage: 100n });

  it('a contract with nothing may attach exactly 1 yoctoNEAR to a function call, and keeps its zero balance', () => {
    const out = broke().call('one_yocto_call', '', at);
    ok(out);
    expect(out.balance).toBe(0n);
    expect(out.receipts[0]!.actions[0]).toMatchObject({ kind: 'FunctionCall', deposit: 1n });
    fails(broke().call('two_yocto_call', '', at), 'BalanceExceeded', 'Exceeded the account balance.');
  });

  it('a transfer of 1 yoctoNEAR from a zero balance is BalanceExceeded', () => {
    fails(broke().call('one_yocto_transfer', '', at), 'BalanceExceeded', 'Exceeded the account balance.');
  });
});
