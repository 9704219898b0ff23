// The one block model every source produces, and the normalizers that build it.
//
// Sources hand over the same Lake data in two casings: raw snake_case (nearcore, Lake S3,
// neardata) and the camelCase that near-lake-framework (JS) produces by renaming every object
// key. Enum tags (`FunctionCall`, `SuccessValue`, `Action`, `Delegate`...) have no underscore and
// are the same in both; string values (state change `type`: `data_update`) are never renamed.
// So each field is read by its snake name, then its camel name (`o.receipt_id ?? o.receiptId`):
// no global casing flag, and a message mixing both still works.
//
// The model keeps what the indexer needs and drops the rest (proofs, gas profiles, contract
// code, signatures). Amounts are bigint. Unknown extra fields that newer protocol versions add
// (`priority`, `bandwidth_requests`, `congestion_info`, `is_promise_yield`...) are ignored.

import { parseU128, parseUint } from './units.ts';

export interface Block {
  height: number;
  hash: string;
  prevHash: string;
  /** The block producer's account id. */
  author: string;
  /** Exact, from `timestamp_nanosec` (the numeric `timestamp` is past 2^53 and rounded). */
  timestampNs: bigint;
  timestampMs: number;
  shards: Shard[];
}

export interface Shard {
  shardId: number;
  /** null when the chunk is missing at this height (the shard produced no new chunk). */
  chunk: Chunk | null;
  receiptOutcomes: ReceiptOutcome[];
  stateChanges: StateChange[];
}

export interface Chunk {
  hash: string | null;
  transactions: Transaction[];
}

export interface Transaction {
  hash: string;
  signerId: string;
  receiverId: string;
  actions: Action[];
  /** The transaction outcome's receipt ids: the receipt the transaction converted into. */
  receiptIds: string[];
}

export type ExecutionStatus =
  | { kind: 'SuccessValue'; value: string }
  | { kind: 'SuccessReceiptId'; receiptId: string }
  | { kind: 'Failure'; error: unknown }
  | { kind: 'Unknown' };

export interface ActionReceipt {
  kind: 'Action';
  signerId: string;
  signerPublicKey: string | null;
  gasPrice: bigint | null;
  actions: Action[];
}

export interface DataReceipt {
  kind: 'Data';
  dataId: string;
}

/** Receipt kinds added by later protocol versions (e.g. `GlobalContractDistribution`). */
export interface OtherReceipt {
  kind: 'Other';
  name: string;
}

export type ReceiptBody = ActionReceipt | DataReceipt | OtherReceipt;

export interface ReceiptOutcome {
  receiptId: string;
  executorId: string;
  predecessorId: string;
  receiverId: string;
  status: ExecutionStatus;
  logs: string[];
  /** Receipts this execution created. */
  receiptIds: string[];
  gasBurnt: number;
  tokensBurnt: bigint;
  /**
   * The originating transaction: the outcome's own `tx_hash` when the source provides it (newer
   * Lake data), else the transaction of this block that converted into this receipt, else null.
   */
  txHash: string | null;
  receipt: ReceiptBody;
}

export type Action =
  | { kind: 'FunctionCall'; methodName: string; argsBase64: string; gas: bigint; deposit: bigint }
  | { kind: 'Transfer'; deposit: bigint }
  | { kind: 'Delegate'; senderId: string; receiverId: string; actions: Action[] }
  | { kind: 'CreateAccount' }
  | { kind: 'DeployContract' }
  | { kind: 'Stake'; stake: bigint; publicKey: string }
  | { kind: 'AddKey'; publicKey: string }
  | { kind: 'DeleteKey'; publicKey: string }
  | { kind: 'DeleteAccount'; beneficiaryId: string }
  | { kind: 'Other'; name: string };

export interface StateChangeCause {
  /** e.g. `receipt_processing`, `transaction_processing`, `action_receipt_gas_reward`. */
  type: string;
  receiptHash: string | null;
  txHash: string | null;
}

/**
 * `data_update` carries `accountId`, `keyBase64`, `valueBase64`; `data_deletion` carries
 * `accountId`, `keyBase64`. Other types keep their raw fields with camelCased keys
 * (`account_update`: `amount`, `locked`, `codeHash`, `storageUsage`...).
 */
export interface StateChangeValue {
  accountId: string;
  keyBase64?: string;
  valueBase64?: string;
  [field: string]: unknown;
}

export interface StateChange {
  /** Snake_case in every source: `data_update`, `data_deletion`, `account_update`... */
  type: string;
  cause: StateChangeCause | null;
  change: StateChangeValue;
}

/**
 * Where a storage write came from: its cause's receipt (or a placeholder naming the cause's type) and transaction,
 * the latter from the receipt's outcome in the block when the cause does not name it. Looked up per write, not
 * indexed per block: writes of a given contract are few, a block's outcomes many.
 */
export function causeOf(block: Block, sc: StateChange): { receiptId: string; txHash: string | null } {
  const receiptId = sc.cause?.receiptHash ?? `(${sc.cause?.type ?? 'unknown cause'})`;
  if (sc.cause?.txHash) return { receiptId, txHash: sc.cause.txHash };
  for (const shard of block.shards) {
    for (const outcome of shard.receiptOutcomes) if (outcome.receiptId === receiptId) return { receiptId, txHash: outcome.txHash };
  }
  return { receiptId, txHash: null };
}

export class BlockFormatError extends Error {
  override name = 'BlockFormatError';
}

type Json = Record<string, unknown>;

/** Normalizes a combined `{block, shards}` streamer message, in snake_case or camelCase. */
export function normalizeStreamerMessage(raw: unknown): Block {
  const message = asObject(raw, 'streamer message');
  return buildBlock(
    asObject(message.block, 'block'),
    asArray(message.shards, 'shards'),
  );
}

/**
 * Normalizes the Lake S3 layout: `block.json` (`{author, header, chunks}`) and the
 * `shard_N.json` files (`{shard_id, chunk, receipt_execution_outcomes, state_changes}`), given
 * in any order: they are put in the order of the block's chunk list (shard ids need not be
 * contiguous after resharding), unknown ids last by number.
 */
export function normalizeLakeLayout(blockJson: unknown, shardJsons: unknown[]): Block {
  const block = asObject(blockJson, 'block.json');
  const shards = shardJsons.map((s) => asObject(s, 'shard_N.json'));
  const position = new Map<number, number>();
  const chunks = block.chunks;
  if (Array.isArray(chunks)) {
    chunks.forEach((c, i) => {
      const id = (c as Json | null)?.shard_id ?? (c as Json | null)?.shardId;
      if (typeof id === 'number') position.set(id, i);
    });
  }
  const rank = (s: Json): number => {
    const id = asInt(s.shard_id ?? s.shardId, 'shard_id');
    return position.get(id) ?? Number.MAX_SAFE_INTEGER / 2 + id;
  };
  shards.sort((a, b) => rank(a) - rank(b));
  return buildBlock(block, shards);
}

function buildBlock(block: Json, rawShards: unknown[]): Block {
  const header = asObject(block.header, 'block.header');
  const timestampNs = readTimestampNs(header);
  const shards = rawShards.map((s) => normalizeShard(asObject(s, 'shard')));
  fillTxHashes(shards);
  return {
    height: asInt(header.height, 'header.height'),
    hash: asString(header.hash, 'header.hash'),
    prevHash: asString(header.prev_hash ?? header.prevHash, 'header.prev_hash'),
    author: asString(block.author, 'block.author'),
    timestampNs,
    timestampMs: Number(timestampNs / 1_000_000n),
    shards,
  };
}

function readTimestampNs(header: Json): bigint {
  const exact = parseU128(header.timestamp_nanosec ?? header.timestampNanosec);
  if (exact !== null) return exact;
  // Old producers only: a float that already lost the last digits, still the best we have.
  const rounded = header.timestamp;
  if (typeof rounded === 'number' && Number.isFinite(rounded) && rounded >= 0) {
    return BigInt(Math.round(rounded));
  }
  throw new BlockFormatError('header.timestamp_nanosec: missing');
}

function normalizeShard(raw: Json): Shard {
  const chunk = raw.chunk;
  const outcomes = raw.receipt_execution_outcomes ?? raw.receiptExecutionOutcomes;
  const changes = raw.state_changes ?? raw.stateChanges;
  return {
    shardId: asInt(raw.shard_id ?? raw.shardId, 'shard_id'),
    chunk: chunk == null ? null : normalizeChunk(asObject(chunk, 'chunk')),
    receiptOutcomes:
      outcomes == null ? [] : asArray(outcomes, 'receipt_execution_outcomes').map(normalizeOutcome),
    stateChanges: changes == null ? [] : asArray(changes, 'state_changes').map(normalizeStateChange),
  };
}

function normalizeChunk(raw: Json): Chunk {
  const header = raw.header as Json | null | undefined;
  const hash = header == null ? undefined : (header.chunk_hash ?? header.chunkHash);
  const txs = raw.transactions;
  return {
    hash: typeof hash === 'string' ? hash : null,
    transactions: txs == null ? [] : asArray(txs, 'chunk.transactions').map(normalizeTransaction),
  };
}

function normalizeTransaction(raw: unknown): Transaction {
  const item = asObject(raw, 'chunk.transactions[]');
  const tx = asObject(item.transaction, 'transaction');
  let receiptIds: string[] = [];
  const outcome = item.outcome as Json | null | undefined;
  if (outcome != null) {
    const eo = (outcome.execution_outcome ?? outcome.executionOutcome) as Json | null | undefined;
    const inner = eo?.outcome as Json | null | undefined;
    if (inner != null) {
      receiptIds = asStringArray(inner.receipt_ids ?? inner.receiptIds, 'transaction receipt_ids');
    }
  }
  return {
    hash: asString(tx.hash, 'transaction.hash'),
    signerId: asString(tx.signer_id ?? tx.signerId, 'transaction.signer_id'),
    receiverId: asString(tx.receiver_id ?? tx.receiverId, 'transaction.receiver_id'),
    actions: normalizeActions(tx.actions, 'transaction.actions'),
    receiptIds,
  };
}

function normalizeOutcome(raw: unknown): ReceiptOutcome {
  const item = asObject(raw, 'receipt_execution_outcomes[]');
  const eo = asObject(item.execution_outcome ?? item.executionOutcome, 'execution_outcome');
  const outcome = asObject(eo.outcome, 'execution_outcome.outcome');
  const receipt = asObject(item.receipt, 'receipt');
  const tokensBurnt = parseU128(outcome.tokens_burnt ?? outcome.tokensBurnt);
  if (tokensBurnt === null) throw new BlockFormatError('outcome.tokens_burnt: not a u128 string');
  const txHash = item.tx_hash ?? item.txHash;
  return {
    receiptId: asString(receipt.receipt_id ?? receipt.receiptId, 'receipt.receipt_id'),
    executorId: asString(outcome.executor_id ?? outcome.executorId, 'outcome.executor_id'),
    predecessorId: asString(receipt.predecessor_id ?? receipt.predecessorId, 'receipt.predecessor_id'),
    receiverId: asString(receipt.receiver_id ?? receipt.receiverId, 'receipt.receiver_id'),
    status: normalizeStatus(outcome.status),
    logs: asStringArray(outcome.logs, 'outcome.logs'),
    receiptIds: asStringArray(outcome.receipt_ids ?? outcome.receiptIds, 'outcome.receipt_ids'),
    gasBurnt: asInt(outcome.gas_burnt ?? outcome.gasBurnt, 'outcome.gas_burnt'),
    tokensBurnt,
    txHash: typeof txHash === 'string' ? txHash : null,
    receipt: normalizeReceiptBody(asObject(receipt.receipt, 'receipt.receipt')),
  };
}

function normalizeStatus(raw: unknown): ExecutionStatus {
  if (raw !== null && typeof raw === 'object') {
    const s = raw as Json;
    if (typeof s.SuccessValue === 'string') return { kind: 'SuccessValue', value: s.SuccessValue };
    if (typeof s.SuccessReceiptId === 'string') {
      return { kind: 'SuccessReceiptId', receiptId: s.SuccessReceiptId };
    }
    // Error keys are camelCased by the JS framework; camelCase them here too so that both
    // casings give equal blocks.
    if ('Failure' in s) return { kind: 'Failure', error: camelizeKeys(s.Failure) };
  }
  return { kind: 'Unknown' };
}

function normalizeReceiptBody(body: Json): ReceiptBody {
  const action = body.Action;
  if (action != null) {
    const a = asObject(action, 'receipt.Action');
    const publicKey = a.signer_public_key ?? a.signerPublicKey;
    return {
      kind: 'Action',
      signerId: asString(a.signer_id ?? a.signerId, 'receipt.Action.signer_id'),
      signerPublicKey: typeof publicKey === 'string' ? publicKey : null,
      gasPrice: parseU128(a.gas_price ?? a.gasPrice),
      actions: normalizeActions(a.actions, 'receipt.Action.actions'),
    };
  }
  const data = body.Data;
  if (data != null) {
    const d = asObject(data, 'receipt.Data');
    return { kind: 'Data', dataId: asString(d.data_id ?? d.dataId, 'receipt.Data.data_id') };
  }
  return { kind: 'Other', name: firstKey(body) ?? '' };
}

function normalizeActions(raw: unknown, what: string): Action[] {
  return asArray(raw, what).map(normalizeAction);
}

const CREATE_ACCOUNT: Action = Object.freeze({ kind: 'CreateAccount' });
const DEPLOY_CONTRACT: Action = Object.freeze({ kind: 'DeployContract' });

function normalizeAction(raw: unknown): Action {
  // Actions without fields serialize as bare strings ("CreateAccount").
  if (typeof raw === 'string') {
    return raw === 'CreateAccount' ? CREATE_ACCOUNT : { kind: 'Other', name: raw };
  }
  const action = asObject(raw, 'action');
  const tag = firstKey(action);
  if (tag === undefined) throw new BlockFormatError('action: empty object');
  const body = action[tag];
  switch (tag) {
    case 'FunctionCall': {
      const fc = asObject(body, 'FunctionCall');
      return {
        kind: 'FunctionCall',
        methodName: asString(fc.method_name ?? fc.methodName, 'FunctionCall.method_name'),
        argsBase64: asString(fc.args, 'FunctionCall.args'),
        gas: asUint(fc.gas, 'FunctionCall.gas'),
        deposit: asUint(fc.deposit, 'FunctionCall.deposit'),
      };
    }
    case 'Transfer':
      return { kind: 'Transfer', deposit: asUint(asObject(body, 'Transfer').deposit, 'Transfer.deposit') };
    case 'Delegate': {
      const signed = asObject(body, 'Delegate');
      const da = asObject(signed.delegate_action ?? signed.delegateAction, 'Delegate.delegate_action');
      return {
        kind: 'Delegate',
        senderId: asString(da.sender_id ?? da.senderId, 'delegate_action.sender_id'),
        receiverId: asString(da.receiver_id ?? da.receiverId, 'delegate_action.receiver_id'),
        actions: asArray(da.actions, 'delegate_action.actions').map(normalizeInnerAction),
      };
    }
    case 'CreateAccount':
      return CREATE_ACCOUNT;
    case 'DeployContract':
      return DEPLOY_CONTRACT;
    case 'Stake': {
      const st = asObject(body, 'Stake');
      return {
        kind: 'Stake',
        stake: asUint(st.stake, 'Stake.stake'),
        publicKey: asString(st.public_key ?? st.publicKey, 'Stake.public_key'),
      };
    }
    case 'AddKey':
    case 'DeleteKey': {
      const k = asObject(body, tag);
      return { kind: tag, publicKey: asString(k.public_key ?? k.publicKey, `${tag}.public_key`) };
    }
    case 'DeleteAccount': {
      const d = asObject(body, 'DeleteAccount');
      return {
        kind: 'DeleteAccount',
        beneficiaryId: asString(d.beneficiary_id ?? d.beneficiaryId, 'DeleteAccount.beneficiary_id'),
      };
    }
    default:
      return { kind: 'Other', name: tag };
  }
}

// nearcore's NonDelegateAction is a serde newtype, so inner actions are plain actions in the
// JSON of every fixture; a producer that keeps the wrapper is unwrapped here.
function normalizeInnerAction(raw: unknown): Action {
  if (raw !== null && typeof raw === 'object' && 'NonDelegateAction' in raw) {
    return normalizeAction((raw as Json).NonDelegateAction);
  }
  return normalizeAction(raw);
}

function normalizeStateChange(raw: unknown): StateChange {
  const sc = asObject(raw, 'state_changes[]');
  const type = asString(sc.type, 'state_change.type');
  const causeRaw = sc.cause as Json | null | undefined;
  let cause: StateChangeCause | null = null;
  if (causeRaw != null) {
    const receiptHash = causeRaw.receipt_hash ?? causeRaw.receiptHash;
    const txHash = causeRaw.tx_hash ?? causeRaw.txHash;
    cause = {
      type: asString(causeRaw.type, 'state_change.cause.type'),
      receiptHash: typeof receiptHash === 'string' ? receiptHash : null,
      txHash: typeof txHash === 'string' ? txHash : null,
    };
  }
  const c = asObject(sc.change, 'state_change.change');
  let change: StateChangeValue;
  // Contract storage writes are most of the volume: read the three fields, copy nothing else.
  if (type === 'data_update') {
    change = {
      accountId: asString(c.account_id ?? c.accountId, 'change.account_id'),
      keyBase64: asString(c.key_base64 ?? c.keyBase64, 'change.key_base64'),
      valueBase64: asString(c.value_base64 ?? c.valueBase64, 'change.value_base64'),
    };
  } else if (type === 'data_deletion') {
    change = {
      accountId: asString(c.account_id ?? c.accountId, 'change.account_id'),
      keyBase64: asString(c.key_base64 ?? c.keyBase64, 'change.key_base64'),
    };
  } else {
    change = camelizeKeys(c) as StateChangeValue;
    if (typeof change.accountId !== 'string') {
      throw new BlockFormatError(`state change ${type}: missing account_id`);
    }
  }
  return { type, cause, change };
}

/** After all shards are read, link receipts converted from this block's transactions. */
function fillTxHashes(shards: Shard[]): void {
  let byReceipt: Map<string, string> | undefined;
  for (const shard of shards) {
    for (const outcome of shard.receiptOutcomes) {
      if (outcome.txHash !== null) continue;
      if (byReceipt === undefined) {
        byReceipt = new Map();
        for (const s of shards) {
          for (const tx of s.chunk?.transactions ?? []) {
            for (const id of tx.receiptIds) byReceipt.set(id, tx.hash);
          }
        }
      }
      outcome.txHash = byReceipt.get(outcome.receiptId) ?? null;
    }
  }
}

/**
 * Renames object keys the way near-lake-framework does (`a_b_c` -> `aBC`... i.e. each `_x`
 * becomes `X`), recursively. Keys without `_` (camelCase, PascalCase tags) are unchanged.
 */
export function camelizeKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(camelizeKeys);
  const src = value as Json;
  const out: Json = {};
  for (const key in src) {
    const v = src[key];
    out[camelizeKey(key)] = v !== null && typeof v === 'object' ? camelizeKeys(v) : v;
  }
  return out;
}

// The same few dozen keys recur thousands of times per block; bounded in case a source sends
// data-dependent keys.
const camelCache = new Map<string, string>();

export function camelizeKey(key: string): string {
  let out = camelCache.get(key);
  if (out !== undefined) return out;
  out = key;
  if (key.includes('_')) {
    const words = key.split('_');
    out = words[0] ?? '';
    for (let i = 1; i < words.length; i++) {
      const w = words[i] ?? '';
      out += w.charAt(0).toUpperCase() + w.slice(1);
    }
  }
  if (camelCache.size < 10_000) camelCache.set(key, out);
  return out;
}

// ---- field access and validation ----

function firstKey(o: Json): string | undefined {
  for (const k in o) return k;
  return undefined;
}

function asObject(v: unknown, what: string): Json {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Json;
  throw new BlockFormatError(`${what}: expected an object, got ${describe(v)}`);
}

function asArray(v: unknown, what: string): unknown[] {
  if (Array.isArray(v)) return v;
  throw new BlockFormatError(`${what}: expected an array, got ${describe(v)}`);
}

function asString(v: unknown, what: string): string {
  if (typeof v === 'string') return v;
  throw new BlockFormatError(`${what}: expected a string, got ${describe(v)}`);
}

function asStringArray(v: unknown, what: string): string[] {
  const arr = asArray(v, what);
  for (const item of arr) {
    if (typeof item !== 'string') throw new BlockFormatError(`${what}: expected strings, got ${describe(item)}`);
  }
  return arr as string[];
}

function asInt(v: unknown, what: string): number {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  throw new BlockFormatError(`${what}: expected an integer, got ${describe(v)}`);
}

function asUint(v: unknown, what: string): bigint {
  const n = parseUint(v);
  if (n !== null) return n;
  throw new BlockFormatError(`${what}: expected an unsigned integer, got ${describe(v)}`);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  return typeof v === 'object' ? 'an object' : String(v);
}
