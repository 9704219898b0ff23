// A NEAR contract runtime in Node: runs one method of a real release wasm with a full context and
// returns what nearcore would: logs, return value, created receipts, storage writes, burnt and used
// gas. The host functions mirror nearcore's `VMLogic` (runtime/near-vm-runner/src/logic/logic.rs,
// commit in params.ts) charge for charge; why they are written here and not taken from
// near-mock-vm, and what is exact and what approximated: README.md beside this file.

import { base58Encode } from '../base58.ts';
import { isValidAccountId } from '../token-id.ts';
import { GAS_GLOBAL, meter } from './meter.ts';
import { ecrecover, ed25519Verify, isTorsionFreeEd25519, keccak256, keccak512, ripemd160, sha256, sha3_256 } from './crypto.ts';
import { actionProfileName, GasCounter, type GasProfile, HostError, integerOverflow } from './gas.ts';
import { type ActionCost, DEFAULT_PARAMS, type Fee, type RuntimeParams, sendFee } from './params.ts';
import { ContractStorage, keyBytes, keyString } from './storage.ts';
import { DEFAULT_ABOVE_CONTRACT, nodesInSubtree, type TrieModelOptions } from './trie.ts';

export { HostError } from './gas.ts';
export type { GasProfile } from './gas.ts';
export { ContractStorage, keyBytes, keyString } from './storage.ts';

/** The exported mutable i64 global through which a metered module and the host share the gas left. */
export { GAS_GLOBAL };

/** Instruments a module so that it charges `opCost` per wasm instruction against `GAS_GLOBAL`. */
export type Instrument = (wasm: Uint8Array, opCost: bigint) => Uint8Array;

const U64_MAX = (1n << 64n) - 1n;
const U128_MAX = (1n << 128n) - 1n;
const DEFAULT_PREPAID_GAS = 300_000_000_000_000n;
// ignoreBOM: a leading U+FEFF stays part of the string, as in Rust's String::from_utf8 / from_utf16 (the
// decoders' default would drop it).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf16 = new TextDecoder('utf-16le', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

// ---- public types -----------------------------------------------------------------------------

export type PromiseResult = { status: 'successful'; value: Uint8Array | string } | { status: 'failed' } | { status: 'notReady' };

export interface CallContext {
  predecessorId?: string;
  signerId?: string;
  /** borsh bytes (key type byte + key) or `ed25519:<base58>`; default: an all-zero ed25519 key. */
  signerPublicKey?: Uint8Array | string;
  /** Who gets refunds (`refund_to_account_id`); default: the predecessor. */
  refundTo?: string;
  attachedDeposit?: bigint;
  /** Gas attached to the function call action; default 300 TGas. */
  prepaidGas?: bigint;
  blockHeight?: bigint | number;
  blockTimestampNs?: bigint;
  epochHeight?: bigint | number;
  /** 32 bytes; default: sha256 of the account, height and call number. */
  randomSeed?: Uint8Array;
  /** Results of the receipts this call waits on (a callback's `promise_result`). */
  promiseResults?: PromiseResult[];
  /** Receivers of the data this call returns (a callback waiting on it): each pays the data receipt. */
  outputDataReceivers?: string[];
  /** The account's balance before the attached deposit; default: the contract's `account.amount`. */
  accountBalance?: bigint;
  accountLockedBalance?: bigint;
  /** Validator stakes (`validator_stake`) and their total (`validator_total_stake`). */
  validators?: Record<string, bigint>;
  totalStake?: bigint;
  chainId?: string;
}

export type Action =
  | { kind: 'CreateAccount' }
  | { kind: 'DeployContract'; code: Uint8Array }
  | { kind: 'FunctionCall'; method: string; args: Uint8Array; deposit: bigint; gas: bigint; gasWeight: bigint }
  | { kind: 'Transfer'; deposit: bigint }
  | { kind: 'Stake'; stake: bigint; publicKey: string }
  | {
      kind: 'AddKey';
      publicKey: string;
      nonce: bigint;
      permission: 'FullAccess' | { allowance: bigint | null; receiverId: string; methodNames: string[] };
    }
  | { kind: 'DeleteKey'; publicKey: string }
  | { kind: 'DeleteAccount'; beneficiaryId: string };

export interface Receipt {
  /** Position among the receipts this call created (what `dependsOn` and `returnPromise` refer to). */
  index: number;
  receiverId: string;
  actions: Action[];
  /** The receipts whose results this one waits for (`promise_then`, `promise_and`), in order. */
  dependsOn: number[];
  refundTo?: string;
}

export interface StorageChange {
  key: Uint8Array;
  /** null: the key was removed. */
  value: Uint8Array | null;
}

export interface Outcome {
  ok: boolean;
  /** nearcore's message for the failure: `Smart contract panicked: E68: slippage error`, `Exceeded the prepaid gas.`... */
  error?: string;
  /** The failure's kind: a `HostError` variant (`GuestPanic`, `GasExceeded`, `NumberOfLogsExceeded`...),
   * `WasmTrap`, `MethodNotFound`, `NewReceiptValidationError`, `LackBalanceForState`. */
  errorKind?: string;
  /** What `value_return` set; null when the method returned nothing, a promise, or failed. */
  returnValue: Uint8Array | null;
  /** The receipt whose result is this call's result (`promise_return`). */
  returnPromise?: number;
  logs: string[];
  /** Receipts created, in creation order; empty when the call failed (nearcore drops them). */
  receipts: Receipt[];
  /** Every `storage_write` and `storage_remove`, in call order; empty when the call failed. */
  storageChanges: StorageChange[];
  /** The receipt's `gas_burnt`: new action receipt and function call execution fees + what the VM burnt. */
  burntGas: bigint;
  /** Burnt gas plus gas given to the created receipts (their fees and attached gas, weights
   * distributed); equal to burnt gas when the call failed (the rest is refunded). */
  usedGas: bigint;
  /** The VM's own share (nearcore's `VMOutcome.burnt_gas` / `used_gas`). */
  vmBurntGas: bigint;
  vmUsedGas: bigint;
  /** Burnt gas per cost, nearcore's profile names; `FUNCTION_CALL_EXEC` and `NEW_ACTION_RECEIPT_EXEC`
   * are the receipt's own execution fees (nearcore leaves them out of its profile). */
  profile: GasProfile;
  /** Trie nodes the storage accesses touched (see trie.ts). */
  trieNodes: number;
  /** The account after the call (unchanged when it failed). */
  balance: bigint;
  storageUsage: bigint;
}

export interface ContractOptions {
  params?: RuntimeParams;
  /** The account's balance (yoctoNEAR); default 100 NEAR. */
  balance?: bigint;
  locked?: bigint;
  /** Storage usage before the data records: default 100 (the account) + the code's length. */
  baseStorageUsage?: bigint;
  /** Initial storage, keys as latin1 strings (`keyString`). */
  storage?: Iterable<readonly [string, Uint8Array]>;
  trie?: TrieModelOptions;
  /** Instruction metering; default: meter.ts (nearcore's charges per wasm instruction). null: none, only host
   * costs are charged. */
  instrument?: Instrument | null;
}

// ---- internal state of one call ---------------------------------------------------------------

interface ReceiptDraft {
  receiverId: string;
  actions: Action[];
  dependsOn: number[];
  refundTo?: string;
}

type PromiseEntry = { receipt: number } | { joint: number[] };

class Abort extends Error {}

class CallState {
  readonly registers = new Map<bigint, Uint8Array>();
  registersUsage = 0n;
  readonly logs: string[] = [];
  totalLogLength = 0n;
  returnValue: Uint8Array | null = null;
  returnPromise: number | undefined;
  readonly promises: PromiseEntry[] = [];
  readonly receipts: ReceiptDraft[] = [];
  readonly gasWeights: { receipt: number; action: number; weight: bigint }[] = [];
  /** Writes and removals of this call, not yet committed (nearcore's prospective changes). */
  readonly overlay = new Map<string, Uint8Array | null>();
  readonly changes: { key: string; value: Uint8Array | null }[] = [];
  trieNodes = 0;
  memory: WebAssembly.Memory | null = null;
  private u8: Uint8Array = new Uint8Array(0);

  constructor(
    readonly gas: GasCounter,
    readonly isView: boolean,
    public balance: bigint,
    public storageUsage: bigint,
  ) {}

  bytes(): Uint8Array {
    const buffer = this.memory?.buffer;
    if (buffer === undefined) throw new HostError('MemoryAccessViolation', 'Accessed memory outside the bounds.');
    if (this.u8.buffer !== buffer) this.u8 = new Uint8Array(buffer);
    return this.u8;
  }
}

// ---- errors -----------------------------------------------------------------------------------

const memoryViolation = (): HostError => new HostError('MemoryAccessViolation', 'Accessed memory outside the bounds.');
const prohibitedInView = (name: string): HostError =>
  new HostError('ProhibitedInView', `${name} is not allowed in view calls`);

function trapMessage(e: Error): { kind: string; message: string } {
  const m = e.message;
  if (e instanceof RangeError && /call stack/i.test(m)) return { kind: 'WasmTrap', message: 'WebAssembly trap: Stack overflow.' };
  if (/unreachable/.test(m)) return { kind: 'WasmTrap', message: 'WebAssembly trap: An `unreachable` opcode was executed.' };
  if (/out of bounds/.test(m)) return { kind: 'WasmTrap', message: 'WebAssembly trap: Memory out of bounds trap.' };
  if (/divide by zero|remainder by zero|integer overflow|invalid conversion|float unrepresentable/.test(m))
    return { kind: 'WasmTrap', message: 'WebAssembly trap: An arithmetic exception, e.g. divided by zero.' };
  if (/null function|signature mismatch|table index/.test(m))
    return { kind: 'WasmTrap', message: 'WebAssembly trap: Call indirect incorrect signature trap.' };
  return { kind: 'WasmTrap', message: `WebAssembly trap: ${m}` };
}

// ---- helpers ----------------------------------------------------------------------------------

function u(x: bigint): bigint {
  return BigInt.asUintN(64, x);
}

function toNumber(x: bigint): number {
  if (x > BigInt(Number.MAX_SAFE_INTEGER)) throw memoryViolation();
  return Number(x);
}

function le128(bytes: Uint8Array): bigint {
  let v = 0n;
  for (let i = 15; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i]!);
  return v;
}

function u128le(v: bigint): Uint8Array {
  const out = new Uint8Array(16);
  let x = v;
  for (let i = 0; i < 16; i++) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

function toBytes(x: Uint8Array | string | object | undefined): Uint8Array {
  if (x === undefined) return new Uint8Array(0);
  if (x instanceof Uint8Array) return x;
  if (typeof x === 'string') return encoder.encode(x);
  return encoder.encode(JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}

/** borsh `PublicKey` → `ed25519:<base58>` / `secp256k1:<base58>`, or null when malformed. */
function decodePublicKey(data: Uint8Array): string | null {
  if (data.length === 33 && data[0] === 0) return `ed25519:${base58Encode(data.subarray(1))}`;
  if (data.length === 65 && data[0] === 1) return `secp256k1:${base58Encode(data.subarray(1))}`;
  return null;
}

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58Decode(text: string): Uint8Array {
  let v = 0n;
  for (const c of text) {
    const d = B58.indexOf(c);
    if (d < 0) throw new Error(`near/vm: bad base58 character ${c}`);
    v = v * 58n + BigInt(d);
  }
  const out: number[] = [];
  while (v > 0n) {
    out.unshift(Number(v & 0xffn));
    v >>= 8n;
  }
  for (const c of text) {
    if (c !== '1') break;
    out.unshift(0);
  }
  return new Uint8Array(out);
}

function encodePublicKey(key: Uint8Array | string | undefined): Uint8Array {
  if (key === undefined) return new Uint8Array(33);
  if (key instanceof Uint8Array) return key;
  const [curve, data] = key.split(':');
  const raw = base58Decode(data ?? '');
  const out = new Uint8Array(raw.length + 1);
  out[0] = curve === 'secp256k1' ? 1 : 0;
  out.set(raw, 1);
  return out;
}

type AccountType = 'named' | 'nearImplicit' | 'ethImplicit';
function accountType(id: string): AccountType {
  if (/^[0-9a-f]{64}$/.test(id)) return 'nearImplicit';
  if (/^0x[0-9a-f]{40}$/.test(id)) return 'ethImplicit';
  return 'named';
}

// ---- the contract -----------------------------------------------------------------------------

/** Host functions nearcore has that this runtime links but does not implement: calling one fails the call. */
const UNSUPPORTED = new Set([
  'alt_bn128_g1_multiexp',
  'alt_bn128_g1_sum',
  'alt_bn128_pairing_check',
  'bls12381_p1_sum',
  'bls12381_p2_sum',
  'bls12381_g1_multiexp',
  'bls12381_g2_multiexp',
  'bls12381_map_fp_to_g1',
  'bls12381_map_fp2_to_g2',
  'bls12381_pairing_check',
  'bls12381_p1_decompress',
  'bls12381_p2_decompress',
  'promise_yield_create',
  'promise_yield_resume',
  'promise_yield_create_with_id',
  'promise_yield_resume_with_yield_id',
  'promise_batch_action_deploy_global_contract',
  'promise_batch_action_deploy_global_contract_by_account_id',
  'promise_batch_action_use_global_contract',
  'promise_batch_action_use_global_contract_by_account_id',
  'promise_batch_action_state_init',
  'promise_batch_action_state_init_by_account_id',
  'set_state_init_data_entry',
  'p256_verify',
  'ml_dsa_verify',
  'sha3_384',
  'sha3_512',
  'sandbox_debug_log',
  'gas',
]);

const DEPRECATED = new Set(['storage_iter_prefix', 'storage_iter_range', 'storage_iter_next']);

export class Contract {
  readonly accountId: string;
  readonly params: RuntimeParams;
  readonly storage: ContractStorage;
  readonly account: { amount: bigint; locked: bigint; storageUsage: bigint };
  readonly codeLength: number;
  /** Instances created so far (one per call). */
  instances = 0;
  private readonly module: WebAssembly.Module;
  private readonly codeSha256: Uint8Array;
  private readonly importNames: { name: string; kind: string }[];
  private readonly aboveContract: number;
  private readonly extraDepth: number;
  private readonly contractKeys: number;
  private calls = 0;

  constructor(accountId: string, wasm: Uint8Array, options: ContractOptions = {}) {
    this.accountId = accountId;
    this.params = options.params ?? DEFAULT_PARAMS;
    this.codeLength = wasm.length;
    this.codeSha256 = sha256(wasm);
    const instrument = options.instrument === undefined ? meter : options.instrument;
    const code = instrument ? instrument(wasm, this.params.regularOpCost) : wasm;
    this.module = new WebAssembly.Module(code as Uint8Array<ArrayBuffer>);
    this.importNames = WebAssembly.Module.imports(this.module).map((i) => {
      if (i.module !== 'env') throw new Error(`near/vm: ${accountId}'s contract imports ${i.module}.${i.name}; nearcore links only "env"`);
      if (i.kind === 'function' && !HOST_NAMES.has(i.name) && !UNSUPPORTED.has(i.name) && !DEPRECATED.has(i.name))
        throw new Error(`near/vm: ${accountId}'s contract imports env.${i.name}, a host function this runtime does not know`);
      if (i.kind !== 'function' && !(i.kind === 'memory' && i.name === 'memory'))
        throw new Error(`near/vm: ${accountId}'s contract imports env.${i.name} (${i.kind}), which nearcore does not provide`);
      return { name: i.name, kind: i.kind };
    });
    this.storage = new ContractStorage(options.storage);
    const base = options.baseStorageUsage ?? this.params.numBytesAccount + BigInt(wasm.length);
    this.account = {
      amount: options.balance ?? 100n * 10n ** 24n,
      locked: options.locked ?? 0n,
      storageUsage: base + this.storage.usage(this.params.numExtraBytesRecord),
    };
    this.aboveContract = options.trie?.aboveContract ?? DEFAULT_ABOVE_CONTRACT;
    this.extraDepth = options.trie?.extraDepth ?? 0;
    this.contractKeys = options.trie?.contractKeys ?? 0;
  }

  /** The contract's exported methods. */
  methods(): string[] {
    return WebAssembly.Module.exports(this.module)
      .filter((e) => e.kind === 'function')
      .map((e) => e.name);
  }

  /** Calls `method` as a receipt's function call action; commits storage and balance on success. */
  call(method: string, args?: Uint8Array | string | object, ctx: CallContext = {}): Outcome {
    return this.run(method, toBytes(args), ctx, false);
  }

  /** Calls `method` as a view: no state changes, no context of a transaction, no fees of a receipt. */
  view(method: string, args?: Uint8Array | string | object, ctx: CallContext = {}): Outcome {
    return this.run(method, toBytes(args), ctx, true);
  }

  /** A view's return value parsed as JSON; throws with the error when the view fails. */
  viewJson<T = unknown>(method: string, args?: Uint8Array | string | object): T {
    const out = this.view(method, args);
    if (!out.ok) throw new Error(`near/vm: view ${method} failed: ${out.error}`);
    return JSON.parse(new TextDecoder().decode(out.returnValue ?? new Uint8Array())) as T;
  }

  /** sha256 of the deployed code (what `current_contract_code` reports). */
  codeHash(): Uint8Array {
    return this.codeSha256;
  }

  /** The value under a storage key (bytes or a latin1 string). */
  get(key: Uint8Array | string): Uint8Array | undefined {
    return this.storage.get(typeof key === 'string' ? key : keyString(key));
  }

  private run(method: string, input: Uint8Array, ctx: CallContext, isView: boolean): Outcome {
    const p = this.params;
    const callNo = this.calls++;
    const methodBytes = encoder.encode(method).length;
    const execFees: Record<string, bigint> = isView
      ? {}
      : {
          NEW_ACTION_RECEIPT_EXEC: p.fees.new_action_receipt.execution,
          FUNCTION_CALL_EXEC:
            p.fees.function_call_base.execution + p.fees.function_call_byte.execution * BigInt(methodBytes + input.length),
        };
    const execTotal = Object.values(execFees).reduce((a, b) => a + b, 0n);
    const prepaid = isView ? U64_MAX : (ctx.prepaidGas ?? DEFAULT_PREPAID_GAS);
    const gas = new GasCounter(p, isView ? p.limits.maxGasBurntView : p.limits.maxGasBurnt, prepaid, isView);
    const attached = isView ? 0n : (ctx.attachedDeposit ?? 0n);
    const balanceBefore = ctx.accountBalance ?? this.account.amount;
    const st = new CallState(gas, isView, balanceBefore + attached, this.account.storageUsage);
    const signerId = ctx.signerId ?? ctx.predecessorId ?? this.accountId;
    const predecessorId = ctx.predecessorId ?? signerId;
    const height = BigInt(ctx.blockHeight ?? 0);
    const env: Env = {
      contract: this,
      st,
      ctx,
      input,
      signerId,
      predecessorId,
      signerPk: encodePublicKey(ctx.signerPublicKey),
      height,
      randomSeed: ctx.randomSeed ?? sha256(encoder.encode(`${this.accountId}|${height}|${callNo}`)),
      attached,
      locked: ctx.accountLockedBalance ?? this.account.locked,
      promiseResults: (ctx.promiseResults ?? []).map((r) =>
        r.status === 'successful' ? { status: 'successful' as const, value: toBytes(r.value) } : r,
      ),
      outputDataReceivers: isView ? [] : (ctx.outputDataReceivers ?? []),
    };

    let failure: { kind: string; message: string } | null = null;
    try {
      // fix_contract_loading_cost is off: nearcore charges loading after loading the module, before
      // looking the method up, so a missing method still pays it.
      gas.payPer('contract_loading_bytes', this.codeLength);
      gas.payBase('contract_loading_base');
      if (method === '') throw new HostError('MethodEmptyName', 'MethodResolveError(MethodEmptyName)');
      const imports = this.imports(env);
      const instance = new WebAssembly.Instance(this.module, imports);
      this.instances++;
      const exports = instance.exports;
      const memory = exports.memory ?? (imports.env as Record<string, unknown>).memory;
      st.memory = memory instanceof WebAssembly.Memory ? memory : null;
      const fn = exports[method];
      if (typeof fn !== 'function') throw new HostError('MethodNotFound', 'MethodResolveError(MethodNotFound)');
      if (fn.length !== 0) throw new HostError('MethodInvalidSignature', 'MethodResolveError(MethodInvalidSignature)');
      const meter = exports[GAS_GLOBAL];
      gas.attach(meter instanceof WebAssembly.Global ? meter : null);
      (fn as () => unknown)();
      gas.pull();
    } catch (e) {
      failure = this.classify(e, gas);
    }

    let vmUsed = gas.used;
    if (failure === null && !isView) {
      const unused = prepaid - gas.used;
      vmUsed += distributeGas(st, unused);
      failure = validateReceipts(p, st) ?? this.checkStorageStake(st, env.locked);
    }

    const profile: GasProfile = { ...execFees, ...gas.finalProfile() };
    const vmBurnt = gas.burnt;
    const base = {
      logs: st.logs,
      burntGas: execTotal + vmBurnt,
      vmBurntGas: vmBurnt,
      profile,
      trieNodes: st.trieNodes,
    };
    if (failure !== null) {
      return {
        ...base,
        ok: false,
        error: failure.message,
        errorKind: failure.kind,
        returnValue: null,
        receipts: [],
        storageChanges: [],
        usedGas: execTotal + vmBurnt,
        vmUsedGas: vmBurnt,
        balance: this.account.amount,
        storageUsage: this.account.storageUsage,
      };
    }
    if (!isView) {
      for (const [k, v] of st.overlay) {
        if (v === null) this.storage.delete(k);
        else this.storage.set(k, v);
      }
      this.account.amount = st.balance;
      this.account.storageUsage = st.storageUsage;
    }
    return {
      ...base,
      ok: true,
      returnValue: st.returnValue,
      ...(st.returnPromise !== undefined ? { returnPromise: st.returnPromise } : {}),
      receipts: st.receipts.map((r, index) => ({ index, ...r })),
      storageChanges: st.changes.map((c) => ({ key: keyBytes(c.key), value: c.value })),
      usedGas: execTotal + vmUsed,
      vmUsedGas: vmUsed,
      balance: isView ? this.account.amount : st.balance,
      storageUsage: isView ? this.account.storageUsage : st.storageUsage,
    };
  }

  private classify(e: unknown, gas: GasCounter): { kind: string; message: string } {
    if (e instanceof HostError) return { kind: e.kind, message: e.message };
    if (e instanceof WebAssembly.RuntimeError || e instanceof RangeError) {
      if (gas.exhausted()) {
        try {
          gas.pull();
        } catch (exhausted) {
          if (exhausted instanceof HostError) return { kind: exhausted.kind, message: exhausted.message };
        }
      }
      gas.pull();
      return trapMessage(e);
    }
    if (e instanceof WebAssembly.LinkError || e instanceof WebAssembly.CompileError)
      return { kind: 'LinkError', message: String(e.message) };
    throw e;
  }

  private checkStorageStake(st: CallState, locked: bigint): { kind: string; message: string } | null {
    const p = this.params;
    if (st.storageUsage <= p.zeroBalanceAccountStorageLimit) return null;
    const required = st.storageUsage * p.storageAmountPerByte;
    const available = st.balance + locked;
    if (available >= required) return null;
    return {
      kind: 'LackBalanceForState',
      // ActionErrorKind::LackBalanceForState's Display (core/primitives/src/errors.rs).
      message: `The account ${this.accountId} wouldn't have enough balance to cover storage, required to have ${required - available} yoctoNEAR more`,
    };
  }

  /** Trie nodes a lookup of `key` touches (0 when this call already wrote or removed it). */
  trieNodesFor(key: string, overlay: ReadonlyMap<string, unknown>): number {
    if (overlay.has(key)) return 0;
    const sorted = this.storage.sorted();
    const scale =
      this.contractKeys > sorted.size ? Math.round(Math.log(this.contractKeys / Math.max(1, sorted.size)) / Math.log(16)) : 0;
    return this.aboveContract + this.extraDepth + scale + nodesInSubtree(sorted, key);
  }

  private imports(env: Env): WebAssembly.Imports {
    const host = makeHost(env);
    const table: Record<string, unknown> = {};
    const st = env.st;
    for (const { name, kind } of this.importNames) {
      if (kind === 'memory') {
        table.memory = new WebAssembly.Memory({
          initial: this.params.limits.initialMemoryPages,
          maximum: this.params.limits.maxMemoryPages,
        });
        continue;
      }
      const f = host[name];
      if (f === undefined) {
        const deprecated = DEPRECATED.has(name);
        table[name] = () => {
          st.gas.pull();
          throw deprecated
            ? new HostError('Deprecated', `Attempted to call deprecated host function ${name}`)
            : new HostError('Unsupported', `near/vm does not implement the host function ${name}`);
        };
        continue;
      }
      table[name] = (...args: unknown[]) => {
        st.gas.pull();
        try {
          // i64 parameters arrive as bigint; a contract declaring an i32 one (AssemblyScript's abort) passes numbers.
          return f(...args.map((a) => (typeof a === 'number' ? BigInt(a) : (a as bigint))));
        } finally {
          st.gas.push();
        }
      };
    }
    return { env: table as WebAssembly.ModuleImports };
  }
}

// ---- gas weights and receipt validation -------------------------------------------------------

/** nearcore's `ReceiptManager::distribute_gas`: unused gas to the function calls with a gas weight. */
function distributeGas(st: CallState, unused: bigint): bigint {
  const sum = st.gasWeights.reduce((a, w) => a + w.weight, 0n);
  if (sum === 0n || unused <= 0n) return 0n;
  let distributed = 0n;
  st.gasWeights.forEach((w, i) => {
    const action = st.receipts[w.receipt]!.actions[w.action]!;
    if (action.kind !== 'FunctionCall') return;
    let add = (unused * w.weight) / sum;
    distributed += add;
    if (i === st.gasWeights.length - 1) {
      add += unused - distributed;
      distributed = unused;
    }
    action.gas += add;
  });
  return distributed;
}

/** The checks nearcore's `validate_receipt` makes of every receipt a call creates (runtime/runtime/src/verifier.rs
 * @ 015033ab: validate_action_receipt, validate_actions, validate_action), in its order; the message is the
 * error's Debug form. Not checked: the receipt's borsh size (`max_receipt_size`), and the account ids (a
 * DeleteAccount beneficiary, an AddKey receiver), which the host functions already refused if invalid. */
function validateReceipts(p: RuntimeParams, st: CallState): { kind: string; message: string } | null {
  const l = p.limits;
  const fail = (what: string) => ({ kind: 'NewReceiptValidationError', message: `NewReceiptValidationError(${what})` });
  const actionFail = (what: string) => fail(`ActionsValidation(${what})`);
  for (const r of st.receipts) {
    if (r.dependsOn.length > l.maxNumberInputDataDependencies)
      return fail(`NumberInputDataDependenciesExceeded { number_of_input_data_dependencies: ${r.dependsOn.length}, limit: ${l.maxNumberInputDataDependencies} }`);
    if (r.actions.length > l.maxActionsPerReceipt)
      return actionFail(`TotalNumberOfActionsExceeded { total_number_of_actions: ${r.actions.length}, limit: ${l.maxActionsPerReceipt} }`);
    let prepaid = 0n;
    for (const [i, a] of r.actions.entries()) {
      if (a.kind === 'DeleteAccount' && i < r.actions.length - 1) return actionFail('DeleteActionMustBeFinal');
      if (a.kind === 'FunctionCall') {
        // Checked after the unused gas is distributed: a weighted call that got some passes.
        if (a.gas === 0n) return actionFail('FunctionCallZeroAttachedGas');
        const nameLength = encoder.encode(a.method).length;
        if (nameLength > l.maxLengthMethodName)
          return actionFail(`FunctionCallMethodNameLengthExceeded { length: ${nameLength}, limit: ${l.maxLengthMethodName} }`);
        if (a.args.length > l.maxArgumentsLength)
          return actionFail(`FunctionCallArgumentsLengthExceeded { length: ${a.args.length}, limit: ${l.maxArgumentsLength} }`);
        prepaid += a.gas;
      } else if (a.kind === 'DeployContract' && BigInt(a.code.length) > l.maxContractSize) {
        return actionFail(`ContractSizeExceeded { size: ${a.code.length}, limit: ${l.maxContractSize} }`);
      } else if (a.kind === 'Stake' && !stakingKey(a.publicKey)) {
        return actionFail(`UnsuitableStakingKey { public_key: ${a.publicKey} }`);
      } else if (a.kind === 'AddKey' && a.permission !== 'FullAccess') {
        let bytes = 0;
        for (const m of a.permission.methodNames) {
          const length = encoder.encode(m).length;
          if (length > l.maxLengthMethodName)
            return actionFail(`AddKeyMethodNameLengthExceeded { length: ${length}, limit: ${l.maxLengthMethodName} }`);
          bytes += length + 1;
        }
        if (bytes > l.maxNumberBytesMethodNames)
          return actionFail(`AddKeyMethodNamesNumberOfBytesExceeded { total_number_of_bytes: ${bytes}, limit: ${l.maxNumberBytesMethodNames} }`);
      }
    }
    if (prepaid > l.maxTotalPrepaidGas)
      return actionFail(`TotalPrepaidGasExceeded { total_prepaid_gas: ${prepaid}, limit: ${l.maxTotalPrepaidGas} }`);
  }
  return null;
}

/** near-crypto's is_valid_staking_key: an ed25519 key that decompresses to a torsion-free point. */
function stakingKey(publicKey: string): boolean {
  const [curve, data] = publicKey.split(':');
  return curve === 'ed25519' && isTorsionFreeEd25519(base58Decode(data ?? ''));
}

// ---- host functions ---------------------------------------------------------------------------

interface Env {
  contract: Contract;
  st: CallState;
  ctx: CallContext;
  input: Uint8Array;
  signerId: string;
  predecessorId: string;
  signerPk: Uint8Array;
  height: bigint;
  randomSeed: Uint8Array;
  attached: bigint;
  locked: bigint;
  promiseResults: ({ status: 'successful'; value: Uint8Array } | { status: 'failed' } | { status: 'notReady' })[];
  outputDataReceivers: string[];
}

type HostFn = (...args: bigint[]) => bigint | undefined | void;

const HOST_NAMES = new Set<string>();

function makeHost(env: Env): Record<string, HostFn> {
  const { st, contract } = env;
  const gas = st.gas;
  const p = contract.params;
  const limits = p.limits;
  const current = contract.accountId;

  // -- memory and registers (vmstate.rs) --
  const memView = (ptr: bigint, len: bigint): Uint8Array => {
    gas.payBase('read_memory_base');
    gas.payPer('read_memory_byte', len);
    const mem = st.bytes();
    const start = u(ptr);
    const end = start + u(len);
    if (end > BigInt(mem.length)) throw memoryViolation();
    return mem.slice(toNumber(start), toNumber(end));
  };
  const memWrite = (ptr: bigint, data: Uint8Array): void => {
    gas.payBase('write_memory_base');
    gas.payPer('write_memory_byte', data.length);
    const mem = st.bytes();
    const start = u(ptr);
    if (start + BigInt(data.length) > BigInt(mem.length)) throw memoryViolation();
    mem.set(data, toNumber(start));
  };
  const regGet = (id: bigint): Uint8Array => {
    const data = st.registers.get(u(id));
    if (data === undefined) throw new HostError('InvalidRegisterId', `Accessed invalid register id: ${u(id)}`);
    gas.payBase('read_register_base');
    gas.payPer('read_register_byte', data.length);
    return data;
  };
  const regSet = (id: bigint, data: Uint8Array, chargeBytes = true): void => {
    const len = BigInt(data.length);
    gas.payBase('write_register_base');
    if (chargeBytes) gas.payPer('write_register_byte', len);
    if (len > limits.maxRegisterSize) throw memoryViolation();
    // nearcore refuses even a replacement once the register count is at the limit (a protocol bug kept).
    if (st.registers.size >= limits.maxNumberRegisters) throw memoryViolation();
    const key = u(id);
    const old = st.registers.get(key);
    const usage = st.registersUsage - (old === undefined ? 0n : BigInt(old.length) + 8n) + len + 8n;
    if (usage > limits.registersMemoryLimit) throw memoryViolation();
    st.registersUsage = usage;
    st.registers.set(key, data);
  };
  const memOrReg = (ptr: bigint, len: bigint): Uint8Array => (u(len) === U64_MAX ? regGet(ptr) : memView(ptr, len));
  const getU128 = (ptr: bigint): bigint => le128(memView(ptr, 16n));
  const viewGuard = (name: string): void => {
    if (st.isView) throw prohibitedInView(name);
  };

  // -- strings (logic.rs get_utf8_string / get_utf16_string) --
  const logLimitExceeded = (add: bigint): HostError =>
    new HostError(
      'TotalLogLengthExceeded',
      `The length of a log message ${st.totalLogLength + add} exceeds the limit ${limits.maxTotalLogLength}`,
    );
  const utf8String = (len: bigint, ptr: bigint): string => {
    gas.payBase('utf8_decoding_base');
    const maxLen = limits.maxTotalLogLength > st.totalLogLength ? limits.maxTotalLogLength - st.totalLogLength : 0n;
    let buf: Uint8Array;
    if (u(len) !== U64_MAX) {
      if (u(len) > maxLen) throw logLimitExceeded(u(len));
      buf = memView(ptr, len);
    } else {
      const out: number[] = [];
      for (let i = 0n; i <= maxLen; i++) {
        const el = memView(u(ptr) + i, 1n)[0]!;
        if (el === 0) break;
        if (i === maxLen) throw logLimitExceeded(maxLen + 1n);
        out.push(el);
      }
      buf = new Uint8Array(out);
    }
    gas.payPer('utf8_decoding_byte', buf.length);
    try {
      return utf8.decode(buf);
    } catch {
      throw new HostError('BadUTF8', 'String encoding is bad UTF-8 sequence.');
    }
  };
  const utf16String = (lenIn: bigint, ptr: bigint): string => {
    gas.payBase('utf16_decoding_base');
    const maxLen = limits.maxTotalLogLength > st.totalLogLength ? limits.maxTotalLogLength - st.totalLogLength : 0n;
    let len = u(lenIn);
    let data: Uint8Array;
    if (len === U64_MAX) {
      len = 0n;
      for (;;) {
        const two = memView(u(ptr) + len, 2n);
        if (two[0] === 0 && two[1] === 0) break;
        len += 2n;
        if (len > maxLen) throw logLimitExceeded(len);
      }
      const mem = st.bytes();
      data = mem.slice(toNumber(u(ptr)), toNumber(u(ptr) + len));
    } else {
      data = memView(ptr, len);
    }
    if (data.length % 2 !== 0) throw new HostError('BadUTF16', 'String encoding is bad UTF-16 sequence.');
    if (len > maxLen) throw logLimitExceeded(len);
    gas.payPer('utf16_decoding_byte', len);
    try {
      return utf16.decode(data);
    } catch {
      throw new HostError('BadUTF16', 'String encoding is bad UTF-16 sequence.');
    }
  };
  const checkCanLog = (): void => {
    if (st.logs.length >= limits.maxNumberLogs)
      throw new HostError('NumberOfLogsExceeded', `The number of logs will exceed the limit ${limits.maxNumberLogs}`);
  };
  const pushLog = (message: string): void => {
    const len = BigInt(encoder.encode(message).length);
    // checked_push_log adds the length before checking, then reports total + len: the new length counts twice
    // (reachable with UTF-16 that is longer as UTF-8).
    st.totalLogLength += len;
    if (st.totalLogLength > limits.maxTotalLogLength) throw logLimitExceeded(len);
    st.logs.push(message);
  };
  const accountId = (ptr: bigint, len: bigint): string => {
    const buf = memOrReg(ptr, len);
    gas.payBase('utf8_decoding_base');
    gas.payPer('utf8_decoding_byte', buf.length);
    let text: string;
    try {
      text = utf8.decode(buf);
    } catch {
      throw new HostError('BadUTF8', 'String encoding is bad UTF-8 sequence.');
    }
    if (!isValidAccountId(text)) throw new HostError('InvalidAccountId', 'VM Logic returned an invalid account id');
    return text;
  };

  // -- promises --
  const payActionBase = (action: ActionCost, sir: boolean): void => {
    const f: Fee = p.fees[action];
    const burn = sendFee(f, sir);
    gas.payAction(burn, burn + f.execution, action);
  };
  const payActionPerByte = (action: ActionCost, n: bigint, sir: boolean): void => {
    const f: Fee = p.fees[action];
    const burn = sendFee(f, sir) * n;
    gas.payAction(burn, burn + f.execution * n, action);
  };
  const payNewReceipt = (sir: boolean, deps: boolean[]): void => {
    let burn = sendFee(p.fees.new_action_receipt, sir);
    const exec = p.fees.new_action_receipt.execution;
    for (const dep of deps) burn += sendFee(p.fees.new_data_receipt_base, dep) + p.fees.new_data_receipt_base.execution;
    gas.payAction(burn, exec + burn, 'new_action_receipt');
  };
  const pushPromise = (entry: PromiseEntry): bigint => {
    st.promises.push(entry);
    if (st.promises.length > limits.maxPromisesPerFunctionCallAction)
      throw new HostError(
        'NumberPromisesExceeded',
        `The number of promises within a FunctionCall ${st.promises.length} exceeds the limit ${limits.maxPromisesPerFunctionCallAction}`,
      );
    return BigInt(st.promises.length - 1);
  };
  const promiseAt = (idx: bigint): PromiseEntry => {
    const entry = st.promises[toIndex(idx)];
    if (entry === undefined) throw new HostError('InvalidPromiseIndex', `${u(idx)} does not correspond to existing promises`);
    return entry;
  };
  const toIndex = (idx: bigint): number => (u(idx) > 1_000_000_000n ? -1 : Number(u(idx)));
  const receiptOf = (idx: bigint): { receipt: number; sir: boolean } => {
    const entry = promiseAt(idx);
    if (!('receipt' in entry))
      throw new HostError('CannotAppendActionToJointPromise', 'Actions can only be appended to non-joint promise.');
    return { receipt: entry.receipt, sir: st.receipts[entry.receipt]!.receiverId === current };
  };
  const deduct = (amount: bigint): void => {
    if (amount > st.balance) throw new HostError('BalanceExceeded', 'Exceeded the account balance.');
    st.balance -= amount;
  };
  const publicKeyAt = (ptr: bigint, len: bigint): string | null => decodePublicKey(memOrReg(ptr, len));
  const invalidKey = (): HostError => new HostError('InvalidPublicKey', 'VM Logic provided an invalid public key');

  // -- storage (ext.rs) --
  const lookup = (key: string): { value: Uint8Array | undefined; fromMemory: boolean } => {
    if (st.overlay.has(key)) return { value: st.overlay.get(key) ?? undefined, fromMemory: true };
    return { value: contract.storage.get(key), fromMemory: false };
  };
  const chargeNodes = (key: string, extra = 0): void => {
    const nodes = contract.trieNodesFor(key, st.overlay) + extra;
    st.trieNodes += nodes;
    if (nodes > 0) gas.payPer('touching_trie_node', nodes);
  };
  // A write or removal that finds a value in the trie also dereferences it: one node more.
  const valueNode = (value: Uint8Array | undefined, fromMemory: boolean): number =>
    value !== undefined && !fromMemory ? 1 : 0;
  const checkKey = (key: Uint8Array): void => {
    if (BigInt(key.length) > limits.maxLengthStorageKey)
      throw new HostError('KeyLengthExceeded', `The length of a storage key ${key.length} exceeds the limit ${limits.maxLengthStorageKey}`);
  };

  const hashFn =
    (base: 'sha256_base' | 'keccak256_base' | 'keccak512_base' | 'sha3_256_base', byte: 'sha256_byte' | 'keccak256_byte' | 'keccak512_byte' | 'sha3_256_byte', f: (d: Uint8Array) => Uint8Array) =>
    (valueLen: bigint, valuePtr: bigint, registerId: bigint): void => {
      gas.payBase(base);
      const value = memOrReg(valuePtr, valueLen);
      gas.payPer(byte, value.length);
      regSet(registerId, f(value));
    };

  const promiseBatchCreate = (accountIdLen: bigint, accountIdPtr: bigint): bigint => {
    gas.payBase('base');
    viewGuard('promise_batch_create');
    const receiver = accountId(accountIdPtr, accountIdLen);
    payNewReceipt(receiver === current, []);
    st.receipts.push({ receiverId: receiver, actions: [], dependsOn: [] });
    return pushPromise({ receipt: st.receipts.length - 1 });
  };
  const promiseBatchThen = (promiseIdx: bigint, accountIdLen: bigint, accountIdPtr: bigint): bigint => {
    gas.payBase('base');
    viewGuard('promise_batch_then');
    const receiver = accountId(accountIdPtr, accountIdLen);
    const entry = promiseAt(promiseIdx);
    const deps = 'receipt' in entry ? [entry.receipt] : [...entry.joint];
    payNewReceipt(
      receiver === current,
      deps.map((d) => st.receipts[d]!.receiverId === receiver),
    );
    st.receipts.push({ receiverId: receiver, actions: [], dependsOn: deps });
    return pushPromise({ receipt: st.receipts.length - 1 });
  };
  const functionCallWeight = (
    promiseIdx: bigint,
    methodLen: bigint,
    methodPtr: bigint,
    argsLen: bigint,
    argsPtr: bigint,
    amountPtr: bigint,
    gasAttached: bigint,
    gasWeight: bigint,
  ): void => {
    gas.payBase('base');
    viewGuard('promise_batch_action_function_call');
    const amount = getU128(amountPtr);
    const method = memOrReg(methodPtr, methodLen);
    if (method.length === 0) throw new HostError('EmptyMethodName', 'Tried to call an empty method name.');
    const args = memOrReg(argsPtr, argsLen);
    const { receipt, sir } = receiptOf(promiseIdx);
    payActionBase('function_call_base', sir);
    payActionPerByte('function_call_byte', BigInt(method.length + args.length), sir);
    gas.prepay(u(gasAttached));
    // one_yocto_on_promise (nearcore PR #15461, stable at protocol 85): a contract with nothing left may still
    // attach exactly 1 yoctoNEAR to a function call (not to a transfer); nothing is deducted.
    if (!(amount === 1n && p.oneYoctoOnPromise && st.balance === 0n)) deduct(amount);
    // The method name is decoded when the action is appended (ReceiptManager), after the fees and the deposit.
    let name: string;
    try {
      name = utf8.decode(method);
    } catch {
      throw new HostError('InvalidMethodName', 'VM Logic returned an invalid method name');
    }
    const actions = st.receipts[receipt]!.actions;
    actions.push({ kind: 'FunctionCall', method: name, args, deposit: amount, gas: u(gasAttached), gasWeight: u(gasWeight) });
    if (u(gasWeight) > 0n) st.gasWeights.push({ receipt, action: actions.length - 1, weight: u(gasWeight) });
  };

  const host: Record<string, HostFn> = {
    // registers
    read_register(registerId, ptr) {
      gas.payBase('base');
      memWrite(ptr, regGet(registerId));
    },
    register_len(registerId) {
      gas.payBase('base');
      const data = st.registers.get(u(registerId));
      return data === undefined ? -1n : BigInt(data.length);
    },
    write_register(registerId, dataLen, dataPtr) {
      gas.payBase('base');
      regSet(registerId, memView(dataPtr, dataLen));
    },

    // context
    current_account_id(registerId) {
      gas.payBase('base');
      regSet(registerId, encoder.encode(current));
    },
    signer_account_id(registerId) {
      gas.payBase('base');
      viewGuard('signer_account_id');
      regSet(registerId, encoder.encode(env.signerId));
    },
    signer_account_pk(registerId) {
      gas.payBase('base');
      viewGuard('signer_account_pk');
      regSet(registerId, env.signerPk);
    },
    predecessor_account_id(registerId) {
      gas.payBase('base');
      viewGuard('predecessor_account_id');
      regSet(registerId, encoder.encode(env.predecessorId));
    },
    refund_to_account_id(registerId) {
      gas.payBase('base');
      viewGuard('refund_to_account_id');
      regSet(registerId, encoder.encode(env.ctx.refundTo ?? env.predecessorId));
    },
    input(registerId) {
      gas.payBase('base');
      regSet(registerId, env.input, !p.deterministicAccountIds);
    },
    block_index() {
      gas.payBase('base');
      return env.height;
    },
    block_timestamp() {
      gas.payBase('base');
      return BigInt.asIntN(64, env.ctx.blockTimestampNs ?? 0n);
    },
    epoch_height() {
      gas.payBase('base');
      return BigInt(env.ctx.epochHeight ?? 0);
    },
    validator_stake(accountIdLen, accountIdPtr, stakePtr) {
      gas.payBase('base');
      const id = accountId(accountIdPtr, accountIdLen);
      gas.payBase('validator_stake_base');
      memWrite(stakePtr, u128le(env.ctx.validators?.[id] ?? 0n));
    },
    validator_total_stake(stakePtr) {
      gas.payBase('base');
      gas.payBase('validator_total_stake_base');
      memWrite(stakePtr, u128le(env.ctx.totalStake ?? 0n));
    },
    storage_usage() {
      gas.payBase('base');
      return st.storageUsage;
    },
    account_balance(balancePtr) {
      gas.payBase('base');
      memWrite(balancePtr, u128le(st.balance));
    },
    account_locked_balance(balancePtr) {
      gas.payBase('base');
      memWrite(balancePtr, u128le(env.locked));
    },
    attached_deposit(balancePtr) {
      gas.payBase('base');
      memWrite(balancePtr, u128le(env.attached));
    },
    prepaid_gas() {
      gas.payBase('base');
      viewGuard('prepaid_gas');
      return BigInt.asIntN(64, gas.prepaid);
    },
    used_gas() {
      gas.payBase('base');
      viewGuard('used_gas');
      return BigInt.asIntN(64, gas.used);
    },
    random_seed(registerId) {
      gas.payBase('base');
      regSet(registerId, env.randomSeed);
    },
    current_contract_code(registerId) {
      gas.payBase('base');
      regSet(registerId, contract.codeHash());
      return 1n;
    },
    chain_id(registerId) {
      gas.payBase('base');
      regSet(registerId, encoder.encode(env.ctx.chainId ?? 'mainnet'));
    },

    // math
    sha256: hashFn('sha256_base', 'sha256_byte', sha256),
    keccak256: hashFn('keccak256_base', 'keccak256_byte', keccak256),
    keccak512: hashFn('keccak512_base', 'keccak512_byte', keccak512),
    sha3_256: hashFn('sha3_256_base', 'sha3_256_byte', sha3_256),
    ripemd160(valueLen, valuePtr, registerId) {
      gas.payBase('ripemd160_base');
      const value = memOrReg(valuePtr, valueLen);
      gas.payPer('ripemd160_block', Math.floor((value.length + 8) / 64) + 1);
      regSet(registerId, ripemd160(value));
    },
    ecrecover(hashLen, hashPtr, sigLen, sigPtr, v, malleabilityFlag, registerId) {
      gas.payBase('ecrecover_base');
      const sig = memOrReg(sigPtr, sigLen);
      if (sig.length !== 64)
        throw new HostError('ECRecoverError', `The length of the signature: ${sig.length}, exceeds the limit of 64 bytes`);
      if (u(v) >= 4n) throw new HostError('ECRecoverError', `V recovery byte 0 through 3 are valid but was provided ${u(v)}`);
      const hash = memOrReg(hashPtr, hashLen);
      if (hash.length !== 32)
        throw new HostError('ECRecoverError', `The length of the hash: ${hash.length}, exceeds the limit of 32 bytes`);
      const flag = u(malleabilityFlag);
      if (flag !== 0n && flag !== 1n)
        throw new HostError('ECRecoverError', `Malleability flag needs to be 0 or 1, but is instead ${flag}`);
      const pk = ecrecover(hash, sig, Number(u(v)), flag === 1n);
      if (pk === null) return 0n;
      regSet(registerId, pk);
      return 1n;
    },
    ed25519_verify(sigLen, sigPtr, msgLen, msgPtr, pkLen, pkPtr) {
      gas.payBase('ed25519_verify_base');
      const sig = memOrReg(sigPtr, sigLen);
      if (sig.length !== 64) throw new HostError('Ed25519VerifyInvalidInput', 'invalid signature length');
      if ((sig[63]! & 0b1110_0000) !== 0) return 0n;
      const message = memOrReg(msgPtr, msgLen);
      gas.payPer('ed25519_verify_byte', message.length);
      const pk = memOrReg(pkPtr, pkLen);
      if (pk.length !== 32) throw new HostError('Ed25519VerifyInvalidInput', 'invalid public key length');
      return ed25519Verify(sig, message, pk) ? 1n : 0n;
    },

    // miscellaneous
    value_return(valueLen, valuePtr) {
      gas.payBase('base');
      const value = memOrReg(valuePtr, valueLen);
      const n = BigInt(value.length);
      if (n > limits.maxLengthReturnedData)
        throw new HostError('ReturnedValueLengthExceeded', `The length of a returned value ${n} exceeds the limit ${limits.maxLengthReturnedData}`);
      let burn = 0n;
      for (const receiver of env.outputDataReceivers) {
        const f = p.fees.new_data_receipt_byte;
        burn += (sendFee(f, receiver === current) + f.execution) * n;
      }
      gas.payAction(burn, burn, 'new_data_receipt_byte');
      st.returnValue = value;
      st.returnPromise = undefined;
    },
    panic() {
      gas.payBase('base');
      throw new HostError('GuestPanic', 'Smart contract panicked: explicit guest panic');
    },
    panic_utf8(len, ptr) {
      gas.payBase('base');
      throw new HostError('GuestPanic', `Smart contract panicked: ${utf8String(len, ptr)}`);
    },
    log_utf8(len, ptr) {
      gas.payBase('base');
      checkCanLog();
      const message = utf8String(len, ptr);
      gas.payBase('log_base');
      gas.payPer('log_byte', encoder.encode(message).length);
      pushLog(message);
    },
    log_utf16(len, ptr) {
      gas.payBase('base');
      checkCanLog();
      const message = utf16String(len, ptr);
      gas.payBase('log_base');
      gas.payPer('log_byte', encoder.encode(message).length);
      pushLog(message);
    },
    abort(msgPtr, filenamePtr, line, col) {
      gas.payBase('base');
      const mp = BigInt.asUintN(32, msgPtr);
      const fp = BigInt.asUintN(32, filenamePtr);
      if (mp < 4n || fp < 4n) throw new HostError('BadUTF16', 'String encoding is bad UTF-16 sequence.');
      checkCanLog();
      const msgLen = new DataView(memView(mp - 4n, 4n).buffer).getUint32(0, true);
      const fileLen = new DataView(memView(fp - 4n, 4n).buffer).getUint32(0, true);
      const msg = utf16String(BigInt(msgLen), mp);
      const file = utf16String(BigInt(fileLen), fp);
      const message = `${msg}, filename: "${file}" line: ${BigInt.asUintN(32, line)} col: ${BigInt.asUintN(32, col)}`;
      gas.payBase('log_base');
      gas.payPer('log_byte', encoder.encode(message).length);
      pushLog(`ABORT: ${message}`);
      throw new HostError('GuestPanic', `Smart contract panicked: ${message}`);
    },

    // promises
    promise_create(accountIdLen, accountIdPtr, methodLen, methodPtr, argsLen, argsPtr, amountPtr, gasAttached) {
      const idx = promiseBatchCreate(accountIdLen, accountIdPtr);
      functionCallWeight(idx, methodLen, methodPtr, argsLen, argsPtr, amountPtr, gasAttached, 0n);
      return idx;
    },
    promise_then(promiseIdx, accountIdLen, accountIdPtr, methodLen, methodPtr, argsLen, argsPtr, amountPtr, gasAttached) {
      const idx = promiseBatchThen(promiseIdx, accountIdLen, accountIdPtr);
      functionCallWeight(idx, methodLen, methodPtr, argsLen, argsPtr, amountPtr, gasAttached, 0n);
      return idx;
    },
    promise_and(promiseIdxPtr, promiseIdxCount) {
      gas.payBase('base');
      viewGuard('promise_and');
      gas.payBase('promise_and_base');
      const memLen = u(promiseIdxCount) * 8n;
      if (memLen > U64_MAX) throw integerOverflow();
      gas.payPer('promise_and_per_promise', memLen);
      const raw = memView(promiseIdxPtr, memLen);
      const view = new DataView(raw.buffer);
      const deps: number[] = [];
      for (let i = 0; i < raw.length; i += 8) {
        const entry = promiseAt(view.getBigUint64(i, true));
        if ('receipt' in entry) deps.push(entry.receipt);
        else deps.push(...entry.joint);
        if (deps.length > limits.maxNumberInputDataDependencies)
          throw new HostError(
            'NumberInputDataDependenciesExceeded',
            `The number of input data dependencies ${deps.length} exceeds the limit ${limits.maxNumberInputDataDependencies}`,
          );
      }
      return pushPromise({ joint: deps });
    },
    promise_batch_create: promiseBatchCreate,
    promise_batch_then: promiseBatchThen,
    promise_set_refund_to(promiseIdx, accountIdLen, accountIdPtr) {
      gas.payBase('base');
      viewGuard('promise_set_refund_to');
      const refundTo = accountId(accountIdPtr, accountIdLen);
      const entry = promiseAt(promiseIdx);
      if (!('receipt' in entry))
        throw new HostError('CannotSetRefundToOnJointPromise', 'Cannot set refund_to on a joint promise.');
      st.receipts[entry.receipt]!.refundTo = refundTo;
    },
    promise_batch_action_create_account(promiseIdx) {
      gas.payBase('base');
      viewGuard('promise_batch_action_create_account');
      const { receipt, sir } = receiptOf(promiseIdx);
      payActionBase('create_account', sir);
      st.receipts[receipt]!.actions.push({ kind: 'CreateAccount' });
    },
    promise_batch_action_deploy_contract(promiseIdx, codeLen, codePtr) {
      gas.payBase('base');
      viewGuard('promise_batch_action_deploy_contract');
      const code = memOrReg(codePtr, codeLen);
      if (BigInt(code.length) > limits.maxContractSize)
        throw new HostError('ContractSizeExceeded', `The size of a contract code in DeployContract action ${code.length} exceeds the limit ${limits.maxContractSize}`);
      const { receipt, sir } = receiptOf(promiseIdx);
      payActionBase('deploy_contract_base', sir);
      payActionPerByte('deploy_contract_byte', BigInt(code.length), sir);
      st.receipts[receipt]!.actions.push({ kind: 'DeployContract', code });
    },
    promise_batch_action_function_call(promiseIdx, methodLen, methodPtr, argsLen, argsPtr, amountPtr, gasAttached) {
      functionCallWeight(promiseIdx, methodLen, methodPtr, argsLen, argsPtr, amountPtr, gasAttached, 0n);
    },
    promise_batch_action_function_call_weight: functionCallWeight,
    promise_batch_action_transfer(promiseIdx, amountPtr) {
      gas.payBase('base');
      viewGuard('promise_batch_action_transfer');
      const amount = getU128(amountPtr);
      const { receipt, sir } = receiptOf(promiseIdx);
      const type = accountType(st.receipts[receipt]!.receiverId);
      const f = p.fees;
      let send = sendFee(f.transfer, sir);
      let exec = f.transfer.execution;
      if (type !== 'named') {
        send += sendFee(f.create_account, sir);
        exec += f.create_account.execution;
      }
      if (type === 'nearImplicit') {
        send += sendFee(f.add_full_access_key, sir);
        exec += f.add_full_access_key.execution;
      }
      gas.payAction(send, send + exec, 'transfer');
      deduct(amount);
      st.receipts[receipt]!.actions.push({ kind: 'Transfer', deposit: amount });
    },
    promise_batch_action_stake(promiseIdx, amountPtr, pkLen, pkPtr) {
      gas.payBase('base');
      viewGuard('promise_batch_action_stake');
      const amount = getU128(amountPtr);
      const pk = publicKeyAt(pkPtr, pkLen);
      const { receipt, sir } = receiptOf(promiseIdx);
      payActionBase('stake', sir);
      if (pk === null) throw invalidKey();
      st.receipts[receipt]!.actions.push({ kind: 'Stake', stake: amount, publicKey: pk });
    },
    promise_batch_action_add_key_with_full_access(promiseIdx, pkLen, pkPtr, nonce) {
      gas.payBase('base');
      viewGuard('promise_batch_action_add_key_with_full_access');
      const pk = publicKeyAt(pkPtr, pkLen);
      const { receipt, sir } = receiptOf(promiseIdx);
      payActionBase('add_full_access_key', sir);
      if (pk === null) throw invalidKey();
      st.receipts[receipt]!.actions.push({ kind: 'AddKey', publicKey: pk, nonce: u(nonce), permission: 'FullAccess' });
    },
    promise_batch_action_add_key_with_function_call(
      promiseIdx,
      pkLen,
      pkPtr,
      nonce,
      allowancePtr,
      receiverIdLen,
      receiverIdPtr,
      methodNamesLen,
      methodNamesPtr,
    ) {
      gas.payBase('base');
      viewGuard('promise_batch_action_add_key_with_function_call');
      const pk = publicKeyAt(pkPtr, pkLen);
      const allowance = getU128(allowancePtr);
      const receiverId = accountId(receiverIdPtr, receiverIdLen);
      const raw = memOrReg(methodNamesPtr, methodNamesLen);
      // split_method_names: the names as bytes, none empty.
      const rawNames: Uint8Array[] = [];
      if (raw.length > 0) {
        let start = 0;
        for (let i = 0; i <= raw.length; i++) {
          if (i === raw.length || raw[i] === 0x2c) {
            if (i === start) throw new HostError('EmptyMethodName', 'Tried to call an empty method name.');
            rawNames.push(raw.subarray(start, i));
            start = i + 1;
          }
        }
      }
      const { receipt, sir } = receiptOf(promiseIdx);
      const bytes = rawNames.reduce((n, m) => n + m.length + 1, 0);
      payActionBase('add_function_call_key_base', sir);
      payActionPerByte('add_function_call_key_byte', BigInt(bytes), sir);
      if (pk === null) throw invalidKey();
      // Decoded when the action is appended (ReceiptManager), after the fees and the key.
      const names = rawNames.map((m) => {
        try {
          return utf8.decode(m);
        } catch {
          throw new HostError('InvalidMethodName', 'VM Logic returned an invalid method name');
        }
      });
      st.receipts[receipt]!.actions.push({
        kind: 'AddKey',
        publicKey: pk,
        nonce: u(nonce),
        permission: { allowance: allowance > 0n ? allowance : null, receiverId, methodNames: names },
      });
    },
    promise_batch_action_delete_key(promiseIdx, pkLen, pkPtr) {
      gas.payBase('base');
      viewGuard('promise_batch_action_delete_key');
      const pk = publicKeyAt(pkPtr, pkLen);
      const { receipt, sir } = receiptOf(promiseIdx);
      payActionBase('delete_key', sir);
      if (pk === null) throw invalidKey();
      st.receipts[receipt]!.actions.push({ kind: 'DeleteKey', publicKey: pk });
    },
    promise_batch_action_delete_account(promiseIdx, beneficiaryLen, beneficiaryPtr) {
      gas.payBase('base');
      viewGuard('promise_batch_action_delete_account');
      const beneficiaryId = accountId(beneficiaryPtr, beneficiaryLen);
      const { receipt, sir } = receiptOf(promiseIdx);
      payActionBase('delete_account', sir);
      st.receipts[receipt]!.actions.push({ kind: 'DeleteAccount', beneficiaryId });
    },
    promise_results_count() {
      gas.payBase('base');
      viewGuard('promise_results_count');
      return BigInt(env.promiseResults.length);
    },
    promise_result(resultIdx, registerId) {
      gas.payBase('base');
      viewGuard('promise_result');
      const result = env.promiseResults[toIndex(resultIdx)];
      if (result === undefined)
        throw new HostError('InvalidPromiseResultIndex', `Accessed invalid promise result index: ${u(resultIdx)}`);
      if (result.status === 'notReady') return 0n;
      if (result.status === 'failed') return 2n;
      regSet(registerId, result.value, !p.deterministicAccountIds);
      return 1n;
    },
    promise_return(promiseIdx) {
      gas.payBase('base');
      gas.payBase('promise_return');
      viewGuard('promise_return');
      const entry = promiseAt(promiseIdx);
      if (!('receipt' in entry)) throw new HostError('CannotReturnJointPromise', 'Returning joint promise is currently prohibited.');
      st.returnPromise = entry.receipt;
      st.returnValue = null;
    },

    // storage
    storage_write(keyLen, keyPtr, valueLen, valuePtr, registerId) {
      gas.payBase('base');
      viewGuard('storage_write');
      gas.payBase('storage_write_base');
      const keyRaw = memOrReg(keyPtr, keyLen);
      checkKey(keyRaw);
      const value = memOrReg(valuePtr, valueLen);
      if (BigInt(value.length) > limits.maxLengthStorageValue)
        throw new HostError('ValueLengthExceeded', `The length of a storage value ${value.length} exceeds the limit ${limits.maxLengthStorageValue}`);
      gas.payPer('storage_write_key_byte', keyRaw.length);
      gas.payPer('storage_write_value_byte', value.length);
      const key = keyString(keyRaw);
      const { value: old, fromMemory } = lookup(key);
      if (old !== undefined) gas.payPer('storage_write_evicted_byte', old.length);
      chargeNodes(key, valueNode(old, fromMemory));
      st.overlay.set(key, value);
      st.changes.push({ key, value });
      if (old !== undefined) {
        st.storageUsage = st.storageUsage - BigInt(old.length) + BigInt(value.length);
        regSet(registerId, old);
        return 1n;
      }
      st.storageUsage += BigInt(value.length + keyRaw.length) + p.numExtraBytesRecord;
      return 0n;
    },
    storage_read(keyLen, keyPtr, registerId) {
      gas.payBase('base');
      gas.payBase('storage_read_base');
      const keyRaw = memOrReg(keyPtr, keyLen);
      checkKey(keyRaw);
      gas.payPer('storage_read_key_byte', keyRaw.length);
      const key = keyString(keyRaw);
      // Reads go through flat storage (storage_get_mode FlatStorage): no trie node is charged.
      const { value } = lookup(key);
      if (value === undefined) return 0n;
      gas.payPer('storage_read_value_byte', value.length);
      if (value.length > p.inlineDiskValueThreshold) {
        gas.payBase('storage_large_read_overhead_base');
        gas.payPer('storage_large_read_overhead_byte', value.length);
      }
      regSet(registerId, value);
      return 1n;
    },
    storage_remove(keyLen, keyPtr, registerId) {
      gas.payBase('base');
      viewGuard('storage_remove');
      gas.payBase('storage_remove_base');
      const keyRaw = memOrReg(keyPtr, keyLen);
      checkKey(keyRaw);
      gas.payPer('storage_remove_key_byte', keyRaw.length);
      const key = keyString(keyRaw);
      const { value: old, fromMemory } = lookup(key);
      if (old !== undefined) gas.payPer('storage_remove_ret_value_byte', old.length);
      chargeNodes(key, valueNode(old, fromMemory));
      st.overlay.set(key, null);
      st.changes.push({ key, value: null });
      if (old === undefined) return 0n;
      st.storageUsage -= BigInt(old.length + keyRaw.length) + p.numExtraBytesRecord;
      regSet(registerId, old);
      return 1n;
    },
    storage_has_key(keyLen, keyPtr) {
      gas.payBase('base');
      gas.payBase('storage_has_key_base');
      const keyRaw = memOrReg(keyPtr, keyLen);
      checkKey(keyRaw);
      gas.payPer('storage_has_key_byte', keyRaw.length);
      const key = keyString(keyRaw);
      const { value } = lookup(key);
      return value === undefined ? 0n : 1n;
    },
  };
  return host;
}

// The names makeHost provides, for checking imports at construction.
for (const name of [
  'read_register', 'register_len', 'write_register', 'current_account_id', 'signer_account_id', 'signer_account_pk',
  'predecessor_account_id', 'refund_to_account_id', 'input', 'block_index', 'block_timestamp', 'epoch_height',
  'validator_stake', 'validator_total_stake', 'storage_usage', 'account_balance', 'account_locked_balance',
  'attached_deposit', 'prepaid_gas', 'used_gas', 'random_seed', 'current_contract_code', 'chain_id', 'sha256',
  'keccak256', 'keccak512', 'sha3_256', 'ripemd160', 'ecrecover', 'ed25519_verify', 'value_return', 'panic',
  'panic_utf8', 'log_utf8', 'log_utf16', 'abort', 'promise_create', 'promise_then', 'promise_and',
  'promise_batch_create', 'promise_batch_then', 'promise_set_refund_to', 'promise_batch_action_create_account',
  'promise_batch_action_deploy_contract', 'promise_batch_action_function_call',
  'promise_batch_action_function_call_weight', 'promise_batch_action_transfer', 'promise_batch_action_stake',
  'promise_batch_action_add_key_with_full_access', 'promise_batch_action_add_key_with_function_call',
  'promise_batch_action_delete_key', 'promise_batch_action_delete_account', 'promise_results_count',
  'promise_result', 'promise_return', 'storage_write', 'storage_read', 'storage_remove', 'storage_has_key',
]) HOST_NAMES.add(name);

export { actionProfileName, U128_MAX };
