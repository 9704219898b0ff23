// near/vm/params.ts against nearcore's own parameter files, at the commits params.ts cites. Every number below was
// copied BY HAND from those files (github.com/near/nearcore), not from params.ts:
//   - A: core/parameters/src/snapshots/near_parameters__config_store__tests__85.json.snap
//        @ 056688902d8ba4f1b34fe5386f4beeb6ef1309f8 (the full runtime config at protocol 85)
//   - B: core/parameters/res/runtime_configs/parameters.snap @ 00fc9501c83c5fe1197bc0bc80958bf1e7cb7a5a
//        (the base at protocol 84: flags and max_gas_burnt_view, which A does not show)
//   - C: the diffs 86.yaml @ 890e1b08b5ac0cd0b8009e11944bf6627f847c60, 87.yaml @ 0d8e7e07f19fcea9bc39aaa51cb97ce8730c7383,
//        88.yaml @ 570ec03313740d13cf81b636c57c3498dbc10c46, 90.yaml @ 85c607c4a0b20cde614e231d83f8e2a10d02cd0c
//        (the keys they change, listed below: none of them is a parameter near/vm uses, so A + C = protocol 90)
//   - D: constants in code: ZERO_BALANCE_ACCOUNT_STORAGE_LIMIT = 770 in runtime/runtime/src/verifier.rs
//        @ 015033ab2bcd716baeb046c1176205397f38af3c; INLINE_DISK_VALUE_THRESHOLD = 4000 in
//        core/primitives-core/src/config.rs (stored version f0f99dc10c7e1f648b46970fdbd50a3ad2b39278).
import { describe, expect, it } from 'vitest';
import { type ActionFees, type ExtCosts, type LimitConfig, PARAMS_V90 } from '../../near/vm/params.ts';

// A: wasm_config.ext_costs (only the costs near/vm charges; contract_compile_*, alt_bn128, bls12381, yield, p256
// are left out: near/vm does not implement those host functions).
const A_EXT_COSTS: Record<string, bigint> = {
  base: 264768111n,
  contract_loading_base: 35445963n,
  contract_loading_bytes: 1089295n,
  read_memory_base: 2609863200n,
  read_memory_byte: 3801333n,
  write_memory_base: 2803794861n,
  write_memory_byte: 2723772n,
  read_register_base: 2517165186n,
  read_register_byte: 98562n,
  write_register_base: 2865522486n,
  write_register_byte: 3801564n,
  utf8_decoding_base: 3111779061n,
  utf8_decoding_byte: 291580479n,
  utf16_decoding_base: 3543313050n,
  utf16_decoding_byte: 163577493n,
  sha256_base: 4540970250n,
  sha256_byte: 24117351n,
  keccak256_base: 5879491275n,
  keccak256_byte: 21471105n,
  keccak512_base: 5811388236n,
  keccak512_byte: 36649701n,
  sha3_256_base: 5879491275n,
  sha3_256_byte: 21471105n,
  ripemd160_base: 853675086n,
  ripemd160_block: 680107584n,
  ed25519_verify_base: 210000000000n,
  ed25519_verify_byte: 9000000n,
  ecrecover_base: 278821988457n,
  log_base: 3543313050n,
  log_byte: 13198791n,
  storage_write_base: 64196736000n,
  storage_write_key_byte: 70482867n,
  storage_write_value_byte: 31018539n,
  storage_write_evicted_byte: 32117307n,
  storage_read_base: 56356845749n,
  storage_read_key_byte: 30952533n,
  storage_read_value_byte: 5611004n,
  storage_large_read_overhead_base: 1n,
  storage_large_read_overhead_byte: 1n,
  storage_remove_base: 53473030500n,
  storage_remove_key_byte: 38220384n,
  storage_remove_ret_value_byte: 11531556n,
  storage_has_key_base: 54039896625n,
  storage_has_key_byte: 30790845n,
  touching_trie_node: 2280000000n,
  read_cached_trie_node: 2280000000n,
  promise_and_base: 1465013400n,
  promise_and_per_promise: 5452176n,
  promise_return: 560152386n,
  validator_stake_base: 911834726400n,
  validator_total_stake_base: 911834726400n,
};

// A: transaction_costs, as [send_sir, send_not_sir, execution], under nearcore's JSON names.
type Triple = [bigint, bigint, bigint];
const A_FEES: Record<string, Triple> = {
  action_receipt_creation_config: [108059500000n, 108059500000n, 108059500000n],
  'data_receipt_creation_config.base_cost': [36486732312n, 36486732312n, 36486732312n],
  'data_receipt_creation_config.cost_per_byte': [17212011n, 47683715n, 17212011n],
  create_account_cost: [500000000000n, 500000000000n, 7200000000000n],
  deploy_contract_cost: [184765750000n, 184765750000n, 184765750000n],
  deploy_contract_cost_per_byte: [6812999n, 47683715n, 64572944n],
  function_call_cost: [200000000000n, 200000000000n, 780000000000n],
  function_call_cost_per_byte: [2235934n, 47683715n, 2235934n],
  transfer_cost: [115123062500n, 115123062500n, 115123062500n],
  stake_cost: [141715687500n, 141715687500n, 102217625000n],
  'add_key_cost.full_access_cost': [101765125000n, 101765125000n, 101765125000n],
  'add_key_cost.function_call_cost': [102217625000n, 102217625000n, 102217625000n],
  'add_key_cost.function_call_cost_per_byte': [1925331n, 47683715n, 1925331n],
  delete_key_cost: [94946625000n, 94946625000n, 94946625000n],
  delete_account_cost: [147489000000n, 147489000000n, 147489000000n],
};

// Which of ours each nearcore fee is (the only naming that is ours in this file).
const FEE_NAMES: Record<keyof ActionFees, string> = {
  new_action_receipt: 'action_receipt_creation_config',
  new_data_receipt_base: 'data_receipt_creation_config.base_cost',
  new_data_receipt_byte: 'data_receipt_creation_config.cost_per_byte',
  create_account: 'create_account_cost',
  deploy_contract_base: 'deploy_contract_cost',
  deploy_contract_byte: 'deploy_contract_cost_per_byte',
  function_call_base: 'function_call_cost',
  function_call_byte: 'function_call_cost_per_byte',
  transfer: 'transfer_cost',
  stake: 'stake_cost',
  add_full_access_key: 'add_key_cost.full_access_cost',
  add_function_call_key_base: 'add_key_cost.function_call_cost',
  add_function_call_key_byte: 'add_key_cost.function_call_cost_per_byte',
  delete_key: 'delete_key_cost',
  delete_account: 'delete_account_cost',
};

// A: wasm_config.limit_config (the ones near/vm enforces), and B's max_gas_burnt_view.
const A_LIMITS: Record<string, bigint> = {
  max_gas_burnt: 1000000000000000n,
  max_total_prepaid_gas: 1000000000000000n,
  initial_memory_pages: 1024n,
  max_memory_pages: 2048n,
  registers_memory_limit: 1073741824n,
  max_register_size: 104857600n,
  max_number_registers: 100n,
  max_number_logs: 100n,
  max_total_log_length: 16384n,
  max_actions_per_receipt: 100n,
  max_number_bytes_method_names: 2000n,
  max_length_method_name: 256n,
  max_arguments_length: 4194304n,
  max_length_returned_data: 4194304n,
  max_contract_size: 4194304n,
  max_length_storage_key: 2048n,
  max_length_storage_value: 4194304n,
  max_promises_per_function_call_action: 1024n,
  max_number_input_data_dependencies: 128n,
};
const B_MAX_GAS_BURNT_VIEW = 1000000000000000n;

const LIMIT_NAMES: Record<keyof LimitConfig, string> = {
  maxGasBurnt: 'max_gas_burnt',
  maxGasBurntView: 'max_gas_burnt_view',
  maxTotalPrepaidGas: 'max_total_prepaid_gas',
  registersMemoryLimit: 'registers_memory_limit',
  maxRegisterSize: 'max_register_size',
  maxNumberRegisters: 'max_number_registers',
  maxNumberLogs: 'max_number_logs',
  maxTotalLogLength: 'max_total_log_length',
  maxActionsPerReceipt: 'max_actions_per_receipt',
  maxNumberBytesMethodNames: 'max_number_bytes_method_names',
  maxLengthMethodName: 'max_length_method_name',
  maxArgumentsLength: 'max_arguments_length',
  maxLengthReturnedData: 'max_length_returned_data',
  maxContractSize: 'max_contract_size',
  maxLengthStorageKey: 'max_length_storage_key',
  maxLengthStorageValue: 'max_length_storage_value',
  maxPromisesPerFunctionCallAction: 'max_promises_per_function_call_action',
  maxNumberInputDataDependencies: 'max_number_input_data_dependencies',
  initialMemoryPages: 'initial_memory_pages',
  maxMemoryPages: 'max_memory_pages',
};

// C: every key the diffs 86, 87, 88 and 90 change (at the cited commits). 89 has no file.
const C_DIFF_KEYS = [
  'fix_contract_loading_error', // 86
  'burnt_gas_reward', // 87
  'min_contract_size_per_local',
  'max_receipt_total_input_size',
  'ml_dsa_verify_host_fn',
  'fix_contract_loading_error',
  'fix_ml_dsa_cost_charging',
  'sha3_host_fns',
  'universal_accounts',
  'max_state_init_entries',
  'max_globals_per_contract', // 88
  'wasmtime48',
  'combined_transactions_size_limit', // 90
  'max_congestion_missed_chunks',
];

describe('near/vm params against nearcore parameter files (protocol 85 full config + diffs to 90)', () => {
  const p = PARAMS_V90;

  it('every ext cost equals nearcore\'s wasm_config.ext_costs', () => {
    const ours = Object.keys(p.ext).sort();
    expect(ours).toEqual(Object.keys(A_EXT_COSTS).sort());
    for (const k of ours) expect(p.ext[k as keyof ExtCosts], k).toBe(A_EXT_COSTS[k]);
  });

  it('wasm_regular_op_cost is 822,756', () => {
    expect(p.regularOpCost).toBe(822756n);
  });

  it('every action fee (send_sir, send_not_sir, execution) equals nearcore\'s transaction_costs', () => {
    expect(Object.keys(p.fees).sort()).toEqual(Object.keys(FEE_NAMES).sort());
    for (const [ours, theirs] of Object.entries(FEE_NAMES)) {
      const f = p.fees[ours as keyof ActionFees];
      expect([f.sendSir, f.sendNotSir, f.execution], `${ours} = ${theirs}`).toEqual(A_FEES[theirs]);
    }
    expect(Object.keys(A_FEES).sort()).toEqual(Object.values(FEE_NAMES).sort());
  });

  it('every limit equals nearcore\'s limit_config', () => {
    expect(Object.keys(p.limits).sort()).toEqual(Object.keys(LIMIT_NAMES).sort());
    for (const [ours, theirs] of Object.entries(LIMIT_NAMES)) {
      const want = theirs === 'max_gas_burnt_view' ? B_MAX_GAS_BURNT_VIEW : A_LIMITS[theirs];
      expect(BigInt(p.limits[ours as keyof LimitConfig]), `${ours} = ${theirs}`).toBe(want);
    }
  });

  it('storage: amount per byte, bytes of an account and of a record, the zero-balance and inline limits', () => {
    // A: storage_amount_per_byte "10000000000000000000", storage_usage_config {num_bytes_account 100, num_extra_bytes_record 40}.
    expect(p.storageAmountPerByte).toBe(10000000000000000000n);
    expect(p.numBytesAccount).toBe(100n);
    expect(p.numExtraBytesRecord).toBe(40n);
    // D.
    expect(p.zeroBalanceAccountStorageLimit).toBe(770n);
    expect(p.inlineDiskValueThreshold).toBe(4000);
  });

  it('flags: deterministic_account_ids, one_yocto_on_promise true; fix_contract_loading_cost false', () => {
    // B: deterministic_account_ids true, one_yocto_on_promise true, fix_contract_loading_cost false (A agrees on the last two).
    expect(p.deterministicAccountIds).toBe(true);
    expect(p.oneYoctoOnPromise).toBe(true);
    expect(p.fixContractLoadingCost).toBe(false);
    expect(p.protocolVersion).toBe(90);
  });

  it('the diffs 86..90 touch none of the parameters near/vm uses', () => {
    // nearcore's parameters.yaml names of everything in params.ts.
    const used = new Set<string>([
      ...Object.keys(p.ext).map((k) => `wasm_${k}`),
      'wasm_regular_op_cost',
      'action_receipt_creation', 'data_receipt_creation_base', 'data_receipt_creation_per_byte',
      'action_create_account', 'action_delete_account', 'action_deploy_contract', 'action_deploy_contract_per_byte',
      'action_function_call', 'action_function_call_per_byte', 'action_transfer', 'action_stake',
      'action_add_full_access_key', 'action_add_function_call_key', 'action_add_function_call_key_per_byte', 'action_delete_key',
      ...Object.values(LIMIT_NAMES),
      'storage_amount_per_byte', 'storage_num_bytes_account', 'storage_num_extra_bytes_record',
      'deterministic_account_ids', 'one_yocto_on_promise', 'fix_contract_loading_cost', 'flat_storage_reads',
    ]);
    expect(C_DIFF_KEYS.filter((k) => used.has(k))).toEqual([]);
  });
});
