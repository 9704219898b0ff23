// nearcore's runtime parameters that a contract call pays: the wasm ext costs, the action fees of
// the receipts it creates, and the limits it runs under. Gas is bigint throughout.
//
// Source (read, not copied as code): github.com/near/nearcore
//   - core/parameters/res/runtime_configs/parameters.snap @ 00fc9501c83c5fe1197bc0bc80958bf1e7cb7a5a
//     (the base, protocol version 84 = MIN_SUPPORTED_PROTOCOL_VERSION, older diffs squashed into it)
//   - core/parameters/src/snapshots/near_parameters__config_store__tests__85.json.snap
//     @ 056688902d8ba4f1b34fe5386f4beeb6ef1309f8 (the full config at 85: AccountCostIncrease)
//   - runtime_configs/86.yaml @ 890e1b08b5ac0cd0b8009e11944bf6627f847c60 (fix_contract_loading_error),
//     87.yaml @ 0d8e7e07f19fcea9bc39aaa51cb97ce8730c7383 (burnt_gas_reward 3/10 -> 0, sha3/ml-dsa host
//     functions, max_receipt_total_input_size), 88.yaml @ 570ec03313740d13cf81b636c57c3498dbc10c46
//     (max_globals_per_contract, wasmtime48), 90.yaml @ 85c607c4a0b20cde614e231d83f8e2a10d02cd0c
//     (combined_transactions_size_limit, max_congestion_missed_chunks).
// So the values below are protocol version 90, the newest non-nightly diff in the tree (versions
// >= 129 are nightly); none of the costs a call pays changed from 85 to 90. The semantics of each cost
// follow runtime/near-vm-runner/src/logic/logic.rs @ 015033ab2bcd716baeb046c1176205397f38af3c.

export const PROTOCOL_VERSION = 90;
export const NEARCORE_SOURCES = {
  base: 'core/parameters/res/runtime_configs/parameters.snap@00fc9501c83c5fe1197bc0bc80958bf1e7cb7a5a',
  pv85: 'core/parameters/src/snapshots/near_parameters__config_store__tests__85.json.snap@056688902d8ba4f1b34fe5386f4beeb6ef1309f8',
  diffs: '86.yaml@890e1b08, 87.yaml@0d8e7e07, 88.yaml@570ec033, 90.yaml@85c607c4',
  logic: 'runtime/near-vm-runner/src/logic/logic.rs@015033ab2bcd716baeb046c1176205397f38af3c',
} as const;

/** A fee of an action or receipt: gas burnt when it is sent (to the same account, `sir`, or another)
 * and gas reserved for its execution on the receiver. */
export interface Fee {
  sendSir: bigint;
  sendNotSir: bigint;
  execution: bigint;
}

export function sendFee(fee: Fee, sir: boolean): bigint {
  return sir ? fee.sendSir : fee.sendNotSir;
}

function fee(sendSir: bigint, sendNotSir: bigint, execution: bigint): Fee {
  return { sendSir, sendNotSir, execution };
}

/** nearcore's `ExtCosts`, by their snake_case names (the gas profile's names upper-cased). */
export interface ExtCosts {
  base: bigint;
  contract_loading_base: bigint;
  contract_loading_bytes: bigint;
  read_memory_base: bigint;
  read_memory_byte: bigint;
  write_memory_base: bigint;
  write_memory_byte: bigint;
  read_register_base: bigint;
  read_register_byte: bigint;
  write_register_base: bigint;
  write_register_byte: bigint;
  utf8_decoding_base: bigint;
  utf8_decoding_byte: bigint;
  utf16_decoding_base: bigint;
  utf16_decoding_byte: bigint;
  sha256_base: bigint;
  sha256_byte: bigint;
  keccak256_base: bigint;
  keccak256_byte: bigint;
  keccak512_base: bigint;
  keccak512_byte: bigint;
  sha3_256_base: bigint;
  sha3_256_byte: bigint;
  ripemd160_base: bigint;
  ripemd160_block: bigint;
  ecrecover_base: bigint;
  ed25519_verify_base: bigint;
  ed25519_verify_byte: bigint;
  log_base: bigint;
  log_byte: bigint;
  storage_write_base: bigint;
  storage_write_key_byte: bigint;
  storage_write_value_byte: bigint;
  storage_write_evicted_byte: bigint;
  storage_read_base: bigint;
  storage_read_key_byte: bigint;
  storage_read_value_byte: bigint;
  storage_large_read_overhead_base: bigint;
  storage_large_read_overhead_byte: bigint;
  storage_remove_base: bigint;
  storage_remove_key_byte: bigint;
  storage_remove_ret_value_byte: bigint;
  storage_has_key_base: bigint;
  storage_has_key_byte: bigint;
  touching_trie_node: bigint;
  read_cached_trie_node: bigint;
  promise_and_base: bigint;
  promise_and_per_promise: bigint;
  promise_return: bigint;
  validator_stake_base: bigint;
  validator_total_stake_base: bigint;
}

export type ExtCost = keyof ExtCosts;

export interface ActionFees {
  new_action_receipt: Fee;
  new_data_receipt_base: Fee;
  new_data_receipt_byte: Fee;
  create_account: Fee;
  delete_account: Fee;
  deploy_contract_base: Fee;
  deploy_contract_byte: Fee;
  function_call_base: Fee;
  function_call_byte: Fee;
  transfer: Fee;
  stake: Fee;
  add_full_access_key: Fee;
  add_function_call_key_base: Fee;
  add_function_call_key_byte: Fee;
  delete_key: Fee;
}

export type ActionCost = keyof ActionFees;

export interface LimitConfig {
  maxGasBurnt: bigint;
  maxGasBurntView: bigint;
  maxTotalPrepaidGas: bigint;
  registersMemoryLimit: bigint;
  maxRegisterSize: bigint;
  maxNumberRegisters: number;
  maxNumberLogs: number;
  maxTotalLogLength: bigint;
  maxActionsPerReceipt: number;
  maxNumberBytesMethodNames: number;
  maxLengthMethodName: number;
  maxArgumentsLength: number;
  maxLengthReturnedData: bigint;
  maxContractSize: bigint;
  maxLengthStorageKey: bigint;
  maxLengthStorageValue: bigint;
  maxPromisesPerFunctionCallAction: number;
  maxNumberInputDataDependencies: number;
  /** Memory pages nearcore gives every contract (it replaces the module's own memory). */
  initialMemoryPages: number;
  maxMemoryPages: number;
}

export interface RuntimeParams {
  protocolVersion: number;
  /** `wasm_regular_op_cost`: gas a wasm instruction burns. */
  regularOpCost: bigint;
  ext: ExtCosts;
  fees: ActionFees;
  limits: LimitConfig;
  /** Bytes of storage an account pays for per record beyond its key and value. */
  numExtraBytesRecord: bigint;
  numBytesAccount: bigint;
  /** yoctoNEAR locked per byte of storage usage. */
  storageAmountPerByte: bigint;
  /** Accounts using at most this many bytes need no balance for them (NEP-448). */
  zeroBalanceAccountStorageLimit: bigint;
  /** Values longer than this are not inlined in the trie: reading one costs a node more. */
  inlineDiskValueThreshold: number;
  /** `deterministic_account_ids`: `input` and `promise_result` do not charge `write_register_byte`. */
  deterministicAccountIds: boolean;
  /** `one_yocto_on_promise` (nearcore PR #15461, stable at 85; not yet in the logic.rs commit cited above): a
   * contract with zero balance may attach exactly 1 yoctoNEAR to a function call action, not to a transfer. */
  oneYoctoOnPromise: boolean;
  /** `fix_contract_loading_cost`: false on mainnet, so loading is charged after the module loads. */
  fixContractLoadingCost: boolean;
}

export const PARAMS_V90: RuntimeParams = Object.freeze({
  protocolVersion: PROTOCOL_VERSION,
  regularOpCost: 822_756n,
  ext: Object.freeze({
    base: 264_768_111n,
    contract_loading_base: 35_445_963n,
    contract_loading_bytes: 1_089_295n,
    read_memory_base: 2_609_863_200n,
    read_memory_byte: 3_801_333n,
    write_memory_base: 2_803_794_861n,
    write_memory_byte: 2_723_772n,
    read_register_base: 2_517_165_186n,
    read_register_byte: 98_562n,
    write_register_base: 2_865_522_486n,
    write_register_byte: 3_801_564n,
    utf8_decoding_base: 3_111_779_061n,
    utf8_decoding_byte: 291_580_479n,
    utf16_decoding_base: 3_543_313_050n,
    utf16_decoding_byte: 163_577_493n,
    sha256_base: 4_540_970_250n,
    sha256_byte: 24_117_351n,
    keccak256_base: 5_879_491_275n,
    keccak256_byte: 21_471_105n,
    keccak512_base: 5_811_388_236n,
    keccak512_byte: 36_649_701n,
    sha3_256_base: 5_879_491_275n,
    sha3_256_byte: 21_471_105n,
    ripemd160_base: 853_675_086n,
    ripemd160_block: 680_107_584n,
    ecrecover_base: 278_821_988_457n,
    ed25519_verify_base: 210_000_000_000n,
    ed25519_verify_byte: 9_000_000n,
    log_base: 3_543_313_050n,
    log_byte: 13_198_791n,
    storage_write_base: 64_196_736_000n,
    storage_write_key_byte: 70_482_867n,
    storage_write_value_byte: 31_018_539n,
    storage_write_evicted_byte: 32_117_307n,
    storage_read_base: 56_356_845_749n,
    storage_read_key_byte: 30_952_533n,
    storage_read_value_byte: 5_611_004n,
    storage_large_read_overhead_base: 1n,
    storage_large_read_overhead_byte: 1n,
    storage_remove_base: 53_473_030_500n,
    storage_remove_key_byte: 38_220_384n,
    storage_remove_ret_value_byte: 11_531_556n,
    storage_has_key_base: 54_039_896_625n,
    storage_has_key_byte: 30_790_845n,
    touching_trie_node: 2_280_000_000n,
    read_cached_trie_node: 2_280_000_000n,
    promise_and_base: 1_465_013_400n,
    promise_and_per_promise: 5_452_176n,
    promise_return: 560_152_386n,
    validator_stake_base: 911_834_726_400n,
    validator_total_stake_base: 911_834_726_400n,
  }),
  fees: Object.freeze({
    new_action_receipt: fee(108_059_500_000n, 108_059_500_000n, 108_059_500_000n),
    new_data_receipt_base: fee(36_486_732_312n, 36_486_732_312n, 36_486_732_312n),
    new_data_receipt_byte: fee(17_212_011n, 47_683_715n, 17_212_011n),
    create_account: fee(500_000_000_000n, 500_000_000_000n, 7_200_000_000_000n),
    delete_account: fee(147_489_000_000n, 147_489_000_000n, 147_489_000_000n),
    deploy_contract_base: fee(184_765_750_000n, 184_765_750_000n, 184_765_750_000n),
    deploy_contract_byte: fee(6_812_999n, 47_683_715n, 64_572_944n),
    function_call_base: fee(200_000_000_000n, 200_000_000_000n, 780_000_000_000n),
    function_call_byte: fee(2_235_934n, 47_683_715n, 2_235_934n),
    transfer: fee(115_123_062_500n, 115_123_062_500n, 115_123_062_500n),
    stake: fee(141_715_687_500n, 141_715_687_500n, 102_217_625_000n),
    add_full_access_key: fee(101_765_125_000n, 101_765_125_000n, 101_765_125_000n),
    add_function_call_key_base: fee(102_217_625_000n, 102_217_625_000n, 102_217_625_000n),
    add_function_call_key_byte: fee(1_925_331n, 47_683_715n, 1_925_331n),
    delete_key: fee(94_946_625_000n, 94_946_625_000n, 94_946_625_000n),
  }),
  limits: Object.freeze({
    maxGasBurnt: 1_000_000_000_000_000n,
    maxGasBurntView: 1_000_000_000_000_000n,
    maxTotalPrepaidGas: 1_000_000_000_000_000n,
    registersMemoryLimit: 1_073_741_824n,
    maxRegisterSize: 104_857_600n,
    maxNumberRegisters: 100,
    maxNumberLogs: 100,
    maxTotalLogLength: 16_384n,
    maxActionsPerReceipt: 100,
    maxNumberBytesMethodNames: 2_000,
    maxLengthMethodName: 256,
    maxArgumentsLength: 4_194_304,
    maxLengthReturnedData: 4_194_304n,
    maxContractSize: 4_194_304n,
    maxLengthStorageKey: 2_048n,
    maxLengthStorageValue: 4_194_304n,
    maxPromisesPerFunctionCallAction: 1_024,
    maxNumberInputDataDependencies: 128,
    initialMemoryPages: 1_024,
    maxMemoryPages: 2_048,
  }),
  numExtraBytesRecord: 40n,
  numBytesAccount: 100n,
  storageAmountPerByte: 10_000_000_000_000_000_000n,
  zeroBalanceAccountStorageLimit: 770n,
  inlineDiskValueThreshold: 4_000,
  deterministicAccountIds: true,
  oneYoctoOnPromise: true,
  fixContractLoadingCost: false,
}) as RuntimeParams;

/** The newest parameters (what `Contract` uses unless told otherwise). */
export const DEFAULT_PARAMS = PARAMS_V90;

/** A copy of `base` with some ext costs, fees or limits replaced (tests and what-if benches). */
export function withParams(
  base: RuntimeParams,
  change: { ext?: Partial<ExtCosts>; fees?: Partial<ActionFees>; limits?: Partial<LimitConfig> } & Partial<
    Omit<RuntimeParams, 'ext' | 'fees' | 'limits'>
  >,
): RuntimeParams {
  const { ext, fees, limits, ...rest } = change;
  return {
    ...base,
    ...rest,
    ext: { ...base.ext, ...ext },
    fees: { ...base.fees, ...fees },
    limits: { ...base.limits, ...limits },
  };
}
