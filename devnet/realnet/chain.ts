// The realnet's chain: accounts that hold real contract code (near/vm `Contract`, one per account) and NEAR
// balances, signed transactions of FunctionCall and Transfer actions, and receipts executed as nearcore executes
// them, block by block, written out as the raw Lake JSON of a mainnet block (near/lake-json.ts, the writers the
// devnet's chain uses) so that the indexer reads it exactly as it reads mainnet.
//
// What a block does (nearcore's `Runtime::apply`, one shard):
// 1. every transaction submitted for it converts to its receipt (the signer pays the deposits; the transaction's
//    outcome is `SuccessReceiptId`), and that receipt executes in this block (as nearcore does a local receipt;
//    `txReceipts: 'nearcore'` sends a receipt to another account to the next block, as nearcore does);
// 2. then the receipts that arrived for this block execute, in the order they were sent: those created in the
//    previous block, and callbacks whose last input data was produced in the previous block.
// A function call runs through the account's code with the full context (predecessor, signer, deposit, prepaid
// gas, block height and time, the promise results of a callback, who waits on its value). The receipts it creates
// (`Outcome.receipts`) execute in later blocks: one without dependencies in the next block; one made by
// `promise_then` (`dependsOn`) once every receipt it waits on has produced its data (its value, the value of the
// receipt it returned, or a failure), in the block after the last. A failed receipt commits nothing, creates
// nothing, and its deposits come back in a refund receipt from `system` (next block). Receipt ids are
// base58(sha256(parent id ‖ index)); the data ids likewise; so the same inputs give the same bytes.
//
// Each outcome carries nearcore's status (`SuccessValue` base64 bytes, `SuccessReceiptId`, `Failure` with the
// runtime's message), the logs (a failed receipt keeps them), the burnt gas and tokens, the ids of the receipts it
// created (its refund among them), and `tx_hash`. Each storage write and removal a successful receipt committed is a
// `data_update` / `data_deletion` with the receipt as cause, the last one of a key per receipt (nearcore commits a
// receipt's changes as a map), ordered by trie key, then by receipt, as nearcore's state changes of a block are.
//
// Modelled, not nearcore's: gas is reported but not paid (no gas is charged to the signer, no gas refund receipts);
// account_update state changes and data receipts are not written; one shard.
import { createHash } from 'node:crypto';
import { base58Encode } from '../../near/base58.ts';
import { blockView, b64, chunkTransaction, dataChange, functionCallAction, receiptOutcome, shard, transferAction, type RawJson, type RawStatus } from '../../near/lake-json.ts';
import { Contract, type Action as VmAction, type ContractOptions, type Outcome, type PromiseResult } from '../../near/vm/runtime.ts';
import { DEFAULT_PARAMS } from '../../near/vm/params.ts';

const TGAS = 10n ** 12n;
/** The gas price the blocks state (yocto a gas unit), as mainnet's minimum. */
export const GAS_PRICE = 100_000_000n;
export const SYSTEM = 'system';

/** An action of a signed transaction. */
export type TxAction =
  | { kind: 'FunctionCall'; method: string; args?: unknown; deposit?: bigint; gas?: bigint }
  | { kind: 'Transfer'; deposit: bigint };

/** The seeded chain's block 1 and its clock: 2026-01-01T00:00:00Z (tests, benches, `devnet export`), a block a second. */
export const DEVNET_GENESIS_HEIGHT = 1;
export const DEVNET_GENESIS_MS = Date.UTC(2026, 0, 1);
export const DEVNET_BLOCK_MS = 1_000;

export interface RealnetOptions {
  seed: string;
  /** Height of the first block; default DEVNET_GENESIS_HEIGHT. */
  genesisHeight?: number;
  /** Timestamp of the first block, ms; default DEVNET_GENESIS_MS. */
  genesisMs?: number;
  /** Time between blocks, ms; default DEVNET_BLOCK_MS. */
  blockMs?: number;
  /**
   * When a transaction's receipt runs: `same-block` (default), in the transaction's block whatever its receiver;
   * `nearcore`, as nearcore runs it: in the transaction's block when the signer is the receiver (a local receipt),
   * else in the next block, after the receipts sent there before it.
   */
  txReceipts?: 'same-block' | 'nearcore';
  /** Keep every executed receipt in `executed` (default); false keeps only the last block's (a long-running chain). */
  history?: boolean;
}

/** One receipt as the chain carries it. */
export interface ChainReceipt {
  id: string;
  txHash: string;
  signerId: string;
  signerPublicKey: string;
  predecessorId: string;
  receiverId: string;
  actions: VmAction[];
  /** Data ids this receipt waits for, in `dependsOn` order (its promise results). */
  inputDataIds: string[];
  /** Who gets this receipt's result: a data id and the receiver of the receipt waiting on it. */
  outputs: { dataId: string; receiverId: string }[];
  /** Who gets the deposits back when it fails; default the predecessor. */
  refundTo?: string;
  /** The block whose receipts created it (the transaction's block for a transaction's receipt). */
  createdAt: number;
  /** For a hosted model (below): what its code is to run, as the model that created the receipt said. */
  handler?: unknown;
}

/**
 * A contract whose code is not public, played by a model (the devnet's, devnet/*.ts) hosted on this chain: it runs a
 * receipt's function calls in JavaScript and says what they did. Its NEAR is the chain's; its storage writes are
 * written out as the contracts' are.
 */
export interface HostedContract {
  run(call: HostedCall): HostedResult;
  /** Its own state now (what the model keeps in JavaScript), to come back to: a function that puts it back. */
  save?(): () => void;
}

export interface HostedCall {
  receipt: ChainReceipt;
  height: number;
  /** The account's NEAR before the receipt, its attached deposits included. */
  balance: bigint;
}

export interface HostedResult {
  logs: string[];
  /** The panic message of a failed call (nothing else of the result counts), or null. */
  error: string | null;
  writes: Array<{ key: Uint8Array; value: Uint8Array | null }>;
  /** Receipts created, run after this one (no callbacks: a model settles in its own receipts). */
  receipts: Array<{ receiverId: string; actions: VmAction[]; handler?: unknown }>;
  value: Uint8Array;
}

/** Gas a hosted model's receipt burns beside the receipt's own fee: a flat 5 TGas (modelled, not metered). */
const HOSTED_GAS = 5n * TGAS;

/** What one receipt did: what the tests and the digest look at, beside the raw block. */
export interface ExecutedReceipt {
  receipt: ChainReceipt;
  height: number;
  status: RawStatus;
  logs: string[];
  /** The runtime's outcome of each function call action, in action order (none for a transfer or refund). */
  calls: Outcome[];
  /** Ids of the receipts it created (its refund among them). */
  created: string[];
  gasBurnt: bigint;
  /** The promise results it was given. */
  promiseResults: PromiseResult[];
}

interface Account {
  contract: Contract | null;
  /** A hosted model (then `contract` is null and `storage` its storage). */
  hosted: { model: HostedContract; storage: Map<string, Uint8Array> } | null;
  /** The balance of an account without code (a contract keeps its own in `contract.account.amount`). */
  amount: bigint;
  publicKey: string;
  nonce: number;
}

interface Submitted {
  signerId: string;
  receiverId: string;
  actions: TxAction[];
  hash: string;
  handler?: unknown;
}

const sha = (text: string | Uint8Array): Buffer => createHash('sha256').update(text).digest();
const idOf = (parent: string, index: number): string => base58Encode(sha(`${parent}|${index}`));
const encoder = new TextEncoder();

function toVmAction(a: TxAction): VmAction {
  if (a.kind === 'Transfer') return { kind: 'Transfer', deposit: a.deposit };
  const args = a.args instanceof Uint8Array ? a.args : encoder.encode(a.args === undefined ? '' : JSON.stringify(a.args, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
  return { kind: 'FunctionCall', method: a.method, args, deposit: a.deposit ?? 0n, gas: a.gas ?? 30n * TGAS, gasWeight: 0n };
}

/** The raw Lake JSON of an action the chain carries. */
function rawAction(a: VmAction): RawJson {
  switch (a.kind) {
    case 'FunctionCall':
      return functionCallAction({ method: a.method, args: a.args, gas: a.gas, deposit: a.deposit });
    case 'Transfer':
      return transferAction(a.deposit);
    default:
      throw new Error(`realnet: a ${a.kind} action is not modelled`);
  }
}

const depositOf = (actions: readonly VmAction[]): bigint =>
  actions.reduce((sum, a) => sum + (a.kind === 'FunctionCall' || a.kind === 'Transfer' ? a.deposit : 0n), 0n);

export class RealnetChain {
  /** Height of the block being built. */
  height: number;
  readonly seed: string;
  private readonly genesisHeight: number;
  private readonly genesisMs: number;
  private readonly blockMs: number;
  private readonly txReceipts: 'same-block' | 'nearcore';
  private prevHash: string;
  private readonly accounts = new Map<string, Account>();
  private submitted: Submitted[] = [];
  /** Receipts to execute, by the height they execute at, in the order they were sent. */
  private readonly inbox = new Map<number, ChainReceipt[]>();
  /** Callbacks waiting on data: the receipt and the data ids still missing. */
  private readonly waiting = new Map<string, { receipt: ChainReceipt; missing: Set<string> }>();
  /** Produced data by data id: the result and the receipt it goes to. */
  private readonly data = new Map<string, PromiseResult>();
  private readonly waiterOf = new Map<string, string>();
  private txCounter = 0;
  /** Every receipt executed so far, in execution order (with `history: false`, the last block's). */
  readonly executed: ExecutedReceipt[] = [];
  private readonly history: boolean;

  constructor(options: RealnetOptions) {
    this.seed = options.seed;
    this.genesisHeight = options.genesisHeight ?? DEVNET_GENESIS_HEIGHT;
    this.height = this.genesisHeight;
    this.genesisMs = options.genesisMs ?? DEVNET_GENESIS_MS;
    this.blockMs = options.blockMs ?? DEVNET_BLOCK_MS;
    this.txReceipts = options.txReceipts ?? 'same-block';
    this.history = options.history ?? true;
    this.prevHash = this.hashOf('genesis-parent');
  }

  private hashOf(what: string): string {
    return base58Encode(sha(`${this.seed}|${what}`));
  }

  private blockHash(height: number): string {
    return this.hashOf(`block|${height}`);
  }

  get timestampMs(): number {
    return this.genesisMs + (this.height - this.genesisHeight) * this.blockMs;
  }

  private account(id: string): Account {
    const a = this.accounts.get(id);
    if (a === undefined) throw new Error(`realnet: no account ${id}`);
    return a;
  }

  private newAccount(id: string, contract: Contract | null, amount: bigint, model: HostedContract | null = null): void {
    if (this.accounts.has(id)) throw new Error(`realnet: account ${id} exists`);
    this.accounts.set(id, { contract, hosted: model === null ? null : { model, storage: new Map() }, amount, publicKey: `ed25519:${base58Encode(sha(`${this.seed}|key|${id}`))}`, nonce: 0 });
  }

  /** An account without code holding `amount` yoctoNEAR (genesis: no receipt). */
  createAccount(id: string, amount: bigint): void {
    this.newAccount(id, null, amount);
  }

  /** An account with `wasm` deployed holding `amount` yoctoNEAR (genesis: no receipt; init it by a transaction). */
  deploy(id: string, wasm: Uint8Array, amount: bigint, options: Omit<ContractOptions, 'balance'> = {}): Contract {
    const contract = new Contract(id, wasm, { ...options, balance: amount });
    this.newAccount(id, contract, amount);
    return contract;
  }

  /** An account played by a hosted model holding `amount` yoctoNEAR (genesis: no receipt). */
  host(id: string, model: HostedContract, amount: bigint): void {
    this.newAccount(id, null, amount, model);
  }

  isHosted(id: string): boolean {
    return this.accounts.get(id)?.hosted != null;
  }

  /** An account's storage as its receipts left it (latin1 key -> value): a contract's, or a hosted model's. */
  storageOf(id: string): Map<string, Uint8Array> | null {
    const a = this.accounts.get(id);
    return a?.contract?.storage ?? a?.hosted?.storage ?? null;
  }

  contract(id: string): Contract {
    const c = this.account(id).contract;
    if (c === null) throw new Error(`realnet: ${id} has no contract`);
    return c;
  }

  hasAccount(id: string): boolean {
    return this.accounts.has(id);
  }

  hasContract(id: string): boolean {
    return this.accounts.get(id)?.contract != null;
  }

  balance(id: string): bigint {
    const a = this.account(id);
    return a.contract === null ? a.amount : a.contract.account.amount;
  }

  private credit(id: string, amount: bigint): void {
    const a = this.account(id);
    if (a.contract === null) a.amount += amount;
    else a.contract.account.amount += amount;
  }

  /** A view of `id`'s contract on the state the sealed blocks left (at the last sealed block). */
  view<T = unknown>(id: string, method: string, args: object = {}): T {
    const out = this.contract(id).view(method, args, { blockHeight: this.height - 1, blockTimestampNs: BigInt(this.timestampMs - this.blockMs) * 1_000_000n });
    if (!out.ok) throw new Error(`realnet: view ${id}.${method} failed: ${out.error}`);
    return JSON.parse(new TextDecoder().decode(out.returnValue ?? new Uint8Array())) as T;
  }

  /** A signed transaction, included in the block being built; returns its hash. */
  submit(signerId: string, receiverId: string, actions: TxAction[]): string {
    const signer = this.account(signerId);
    signer.nonce += 1;
    const hash = this.hashOf(`tx|${this.txCounter++}|${signerId}|${signer.nonce}`);
    this.submitted.push({ signerId, receiverId, actions, hash });
    return hash;
  }

  /** One function call as a transaction (the usual case). */
  call(signerId: string, receiverId: string, method: string, args: unknown, deposit = 0n, gas = 100n * TGAS): string {
    return this.submit(signerId, receiverId, [{ kind: 'FunctionCall', method, args, deposit, gas }]);
  }

  /**
   * The chain as it is now, to come back to: every account's balance, nonce and contract storage, each hosted
   * model's storage and its own state (`HostedContract.save`, for the models hosted now), the receipts and data in
   * flight, the block being built, the height. Restoring it undoes whatever was submitted and produced since (a
   * test's "what if").
   */
  save(): () => void {
    const accounts = [...this.accounts].map(([id, a]) => ({
      a,
      amount: a.amount,
      nonce: a.nonce,
      storage: a.contract ? new Map(a.contract.storage) : null,
      account: a.contract ? { ...a.contract.account } : null,
      hostedStorage: a.hosted ? new Map(a.hosted.storage) : null,
      id,
    }));
    // One model may play many accounts: its state is saved once.
    const models = [...new Set(accounts.flatMap(({ a }) => (a.hosted ? [a.hosted.model] : [])))].map((m) => m.save?.());
    const inbox = [...this.inbox].map(([h, list]) => [h, [...list]] as const);
    const waiting = [...this.waiting].map(([id, w]) => [id, { receipt: w.receipt, missing: new Set(w.missing) }] as const);
    const data = new Map(this.data);
    const waiterOf = new Map(this.waiterOf);
    const { height, prevHash, txCounter } = this;
    const submitted = [...this.submitted];
    const executed = this.executed.length;
    // A model's transaction runs at once (`transactNow`): its outcomes are already in the block being built.
    const building = { transactions: [...this.building.transactions], outcomes: [...this.building.outcomes], changes: [...this.building.changes] };
    return () => {
      for (const { a, amount, nonce, storage, account, hostedStorage } of accounts) {
        a.amount = amount;
        a.nonce = nonce;
        if (a.contract && storage && account) {
          a.contract.storage.clear();
          for (const [k, v] of storage) a.contract.storage.set(k, v);
          Object.assign(a.contract.account, account);
        }
        if (a.hosted && hostedStorage) {
          a.hosted.storage.clear();
          for (const [k, v] of hostedStorage) a.hosted.storage.set(k, v);
        }
      }
      for (const restore of models) restore?.();
      for (const id of [...this.accounts.keys()]) if (!accounts.some((x) => x.id === id)) this.accounts.delete(id);
      this.inbox.clear();
      for (const [h, list] of inbox) this.inbox.set(h, [...list]);
      this.waiting.clear();
      for (const [id, w] of waiting) this.waiting.set(id, { receipt: w.receipt, missing: new Set(w.missing) });
      this.data.clear();
      for (const [k, v] of data) this.data.set(k, v);
      this.waiterOf.clear();
      for (const [k, v] of waiterOf) this.waiterOf.set(k, v);
      Object.assign(this, { height, prevHash, txCounter });
      this.submitted = [...submitted];
      this.executed.length = executed;
      this.building = { transactions: [...building.transactions], outcomes: [...building.outcomes], changes: [...building.changes] };
    };
  }

  /** Receipts still to execute (sent, or waiting on data). */
  pendingReceipts(): number {
    let n = this.waiting.size;
    for (const list of this.inbox.values()) n += list.length;
    return n;
  }

  /** What the block being built holds so far: its transactions, outcomes and state changes (see `produceBlock`). */
  private building: { transactions: RawJson[]; outcomes: RawJson[]; changes: { order: string; seq: number; raw: RawJson }[] } = { transactions: [], outcomes: [], changes: [] };
  /** While a transaction runs to its end in its block (`transactNow`), the receipts it leads to. */
  private eager: ChainReceipt[] | null = null;

  /** A submitted transaction converted to its receipt in block `height`: the signer pays the deposits. */
  private convert(tx: Submitted, height: number, hash: string): ChainReceipt {
    const signer = this.account(tx.signerId);
    const actions = tx.actions.map(toVmAction);
    const deposit = depositOf(actions);
    const balance = this.balance(tx.signerId);
    if (balance < deposit) throw new Error(`realnet: ${tx.signerId} cannot pay ${deposit} (holds ${balance})`);
    this.credit(tx.signerId, -deposit);
    const receipt: ChainReceipt = {
      id: idOf(tx.hash, 0),
      txHash: tx.hash,
      signerId: tx.signerId,
      signerPublicKey: signer.publicKey,
      predecessorId: tx.signerId,
      receiverId: tx.receiverId,
      actions,
      inputDataIds: [],
      outputs: [],
      createdAt: height,
      ...(tx.handler === undefined ? {} : { handler: tx.handler }),
    };
    const raw = chunkTransaction({ hash: tx.hash, signerId: tx.signerId, receiverId: tx.receiverId, actions: actions.map(rawAction), nonce: signer.nonce, receiptId: receipt.id, blockHash: hash, publicKey: signer.publicKey });
    const convert = conversionGas(actions, tx.signerId === tx.receiverId);
    const outcome = (raw.outcome as { execution_outcome: { outcome: Record<string, unknown> } }).execution_outcome.outcome;
    outcome.gas_burnt = Number(convert);
    outcome.tokens_burnt = (convert * GAS_PRICE).toString();
    this.building.transactions.push(raw);
    return receipt;
  }

  /** Executes a receipt in the block being built, adding its outcome and state changes to the block. */
  private run(receipt: ChainReceipt): void {
    const height = this.height;
    if (!this.history && this.executed.length > 0 && this.executed[0]!.height !== height) this.executed.length = 0;
    const done = this.execute(receipt, height, this.blockHash(height));
    this.building.outcomes.push(done.raw);
    for (const c of done.changes) this.building.changes.push({ order: c.order, seq: this.building.changes.length, raw: c.raw });
  }

  /**
   * A signed transaction run to its end now, in the block being built: its receipt, every receipt that leads to
   * and their callbacks, breadth-first, before the block's other transactions. How the devnet's models settle (they
   * were written for a chain that runs a transaction whole); `handler` goes with the receipt to a hosted model.
   * Returns the transaction's hash.
   */
  transactNow(signerId: string, receiverId: string, actions: TxAction[], handler?: unknown): string {
    const signer = this.account(signerId);
    signer.nonce += 1;
    const hash = this.hashOf(`tx|${this.txCounter++}|${signerId}|${signer.nonce}`);
    const receipt = this.convert({ signerId, receiverId, actions, hash, ...(handler === undefined ? {} : { handler }) }, this.height, this.blockHash(this.height));
    const queue = [receipt];
    this.eager = queue;
    try {
      while (queue.length) this.run(queue.shift()!);
    } finally {
      this.eager = null;
    }
    return hash;
  }

  /** Executes the block being built and closes it: its `{block, shards}` message; the next block starts. */
  produceBlock(): RawJson {
    const height = this.height;
    const hash = this.blockHash(height);
    const txs = this.submitted;
    this.submitted = [];
    const toRun: ChainReceipt[] = [];
    const later: ChainReceipt[] = [];
    for (const tx of txs) {
      const receipt = this.convert(tx, height, hash);
      if (this.txReceipts === 'nearcore' && tx.signerId !== tx.receiverId) later.push(receipt);
      else toRun.push(receipt);
    }
    toRun.push(...(this.inbox.get(height) ?? []));
    this.inbox.delete(height);
    // Sent to the next block before anything this block's receipts send there.
    for (const receipt of later) this.send(receipt, height + 1);
    for (const receipt of toRun) this.run(receipt);
    // Without history, `executed` holds this block's receipts only (none when it ran none).
    if (!this.history && this.executed.length > 0 && this.executed[0]!.height !== height) this.executed.length = 0;
    const { transactions, outcomes, changes } = this.building;
    this.building = { transactions: [], outcomes: [], changes: [] };
    changes.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : a.seq - b.seq));
    const chunkHash = this.hashOf(`chunk|${height}`);
    const timestampNs = BigInt(this.timestampMs) * 1_000_000n;
    const message = {
      block: blockView({ height, hash, prevHash: this.prevHash, timestampNs, author: 'realnet.poolv1.near', chunkHashes: [chunkHash] }),
      shards: [shard({ shardId: 0, chunkHash, blockHash: hash, prevBlockHash: this.prevHash, height, transactions, outcomes, stateChanges: changes.map((c) => c.raw) })],
    };
    this.prevHash = hash;
    this.height += 1;
    return message;
  }

  private send(receipt: ChainReceipt, at: number): void {
    if (this.eager !== null) {
      this.eager.push(receipt);
      return;
    }
    let list = this.inbox.get(at);
    if (list === undefined) this.inbox.set(at, (list = []));
    list.push(receipt);
  }

  /** Data for `dataId`, produced in block `height`: the waiting receipt runs in the next block once it has all. */
  private deliver(dataId: string, result: PromiseResult, height: number): void {
    this.data.set(dataId, result);
    const waiterId = this.waiterOf.get(dataId);
    if (waiterId === undefined) return;
    const w = this.waiting.get(waiterId);
    if (w === undefined) return;
    w.missing.delete(dataId);
    if (w.missing.size === 0) {
      this.waiting.delete(waiterId);
      this.send(w.receipt, height + 1);
    }
  }

  private execute(receipt: ChainReceipt, height: number, blockHash: string): { raw: RawJson; changes: { order: string; raw: RawJson }[] } {
    const promiseResults: PromiseResult[] = receipt.inputDataIds.map((d) => {
      const r = this.data.get(d);
      if (r === undefined) throw new Error(`realnet: receipt ${receipt.id} runs without its data ${d}`);
      this.data.delete(d);
      this.waiterOf.delete(d);
      return r;
    });
    const target = this.accounts.get(receipt.receiverId);
    const calls: Outcome[] = [];
    const logs: string[] = [];
    const vmReceipts: { r: ChainReceipt; dependsOn: number[] }[] = [];
    let failure: unknown = null;
    let returnValue: Uint8Array = new Uint8Array(0);
    let returnPromise: number | undefined;
    let gasBurnt = receipt.predecessorId === SYSTEM ? 0n : DEFAULT_PARAMS.fees.new_action_receipt.execution;
    const writes = new Map<string, Uint8Array | null>();
    const contract = target?.contract ?? null;
    const snapshot = contract !== null && receipt.actions.length > 1 ? { storage: new Map(contract.storage), account: { ...contract.account } } : null;
    const amountBefore = target?.amount ?? 0n;

    const hosted = target?.hosted != null && receipt.actions.some((a) => a.kind === 'FunctionCall') ? target.hosted : null;
    if (hosted !== null && target !== undefined) {
      // A hosted model runs the receipt as one call; its NEAR moves only when it succeeds.
      const deposit = depositOf(receipt.actions);
      const out = hosted.model.run({ receipt, height, balance: target.amount + deposit });
      logs.push(...out.logs);
      gasBurnt += DEFAULT_PARAMS.fees.function_call_base.execution + HOSTED_GAS;
      if (out.error !== null) {
        failure = { ActionError: { index: 0, kind: { FunctionCallError: { ExecutionError: `Smart contract panicked: ${out.error}` } } } };
      } else {
        const spent = out.receipts.reduce((sum, r) => sum + depositOf(r.actions), 0n);
        if (spent > target.amount + deposit) throw new Error(`realnet: hosted ${receipt.receiverId} spends ${spent} of ${target.amount + deposit}`);
        target.amount += deposit - spent;
        for (const w of out.writes) {
          const key = Buffer.from(w.key).toString('latin1');
          writes.set(key, w.value);
          if (w.value === null) hosted.storage.delete(key);
          else hosted.storage.set(key, w.value);
        }
        for (const r of out.receipts) vmReceipts.push({ r: createdBy(receipt, r, height), dependsOn: [] });
        returnValue = out.value;
      }
    }
    receipt.actions.forEach((action, index) => {
      if (failure !== null || hosted !== null) return;
      if (target === undefined) {
        failure = { ActionError: { index, kind: { AccountDoesNotExist: { account_id: receipt.receiverId } } } };
        return;
      }
      if (action.kind === 'Transfer') {
        if (receipt.predecessorId !== SYSTEM) gasBurnt += DEFAULT_PARAMS.fees.transfer.execution;
        this.credit(receipt.receiverId, action.deposit);
        returnValue = new Uint8Array(0);
        returnPromise = undefined;
        return;
      }
      if (action.kind !== 'FunctionCall') throw new Error(`realnet: a ${action.kind} action is not modelled`);
      if (contract === null) {
        gasBurnt += DEFAULT_PARAMS.fees.function_call_base.execution;
        failure = { ActionError: { index, kind: { FunctionCallError: { CompilationError: { CodeDoesNotExist: { account_id: receipt.receiverId } } } } } };
        return;
      }
      const out = contract.call(action.method, action.args, {
        predecessorId: receipt.predecessorId,
        signerId: receipt.signerId,
        signerPublicKey: receipt.signerPublicKey,
        attachedDeposit: action.deposit,
        prepaidGas: action.gas,
        blockHeight: height,
        blockTimestampNs: BigInt(this.timestampMs) * 1_000_000n,
        epochHeight: Math.floor((height - this.genesisHeight) / 43_200) + 1,
        randomSeed: sha(`${blockHash}|${receipt.id}|${index}`),
        promiseResults,
        // Only the last action's result is the receipt's: nearcore gives the others no output data receivers.
        outputDataReceivers: index === receipt.actions.length - 1 ? receipt.outputs.map((o) => o.receiverId) : [],
        ...(receipt.refundTo === undefined ? {} : { refundTo: receipt.refundTo }),
      });
      calls.push(out);
      logs.push(...out.logs);
      // The receipt's own execution fee is counted once (`new_action_receipt`), the function call's per action.
      gasBurnt += out.burntGas - DEFAULT_PARAMS.fees.new_action_receipt.execution;
      if (!out.ok) {
        failure = { ActionError: { index, kind: { FunctionCallError: { ExecutionError: out.error ?? 'failed' } } } };
        return;
      }
      for (const c of out.storageChanges) writes.set(Buffer.from(c.key).toString('latin1'), c.value);
      const offset = vmReceipts.length;
      for (const r of out.receipts) vmReceipts.push({ r: createdBy(receipt, r, height), dependsOn: r.dependsOn.map((d) => d + offset) });
      returnValue = out.returnValue ?? new Uint8Array(0);
      returnPromise = out.returnPromise === undefined ? undefined : out.returnPromise + offset;
    });

    const created: string[] = [];
    let status: RawStatus;
    const changes: { order: string; raw: RawJson }[] = [];
    if (failure !== null) {
      if (snapshot !== null && contract !== null) {
        contract.storage.clear();
        for (const [k, v] of snapshot.storage) contract.storage.set(k, v);
        Object.assign(contract.account, snapshot.account);
      } else if (target !== undefined && target.contract === null) {
        target.amount = amountBefore;
      }
      status = { Failure: failure };
      const deposit = depositOf(receipt.actions);
      if (deposit > 0n && receipt.predecessorId !== SYSTEM) {
        const refund: ChainReceipt = {
          id: idOf(receipt.id, 0),
          txHash: receipt.txHash,
          signerId: SYSTEM,
          signerPublicKey: 'ed25519:11111111111111111111111111111111',
          predecessorId: SYSTEM,
          receiverId: receipt.refundTo ?? receipt.predecessorId,
          actions: [{ kind: 'Transfer', deposit }],
          inputDataIds: [],
          outputs: [],
          createdAt: height,
        };
        created.push(refund.id);
        this.send(refund, height + 1);
      }
      // nearcore sends the refunds, then the data for the receipts waiting on this one.
      for (const o of receipt.outputs) this.deliver(o.dataId, { status: 'failed' }, height);
    } else {
      vmReceipts.forEach((v, i) => (v.r.id = idOf(receipt.id, i)));
      vmReceipts.forEach((v, i) => {
        for (const d of v.dependsOn) {
          const dataId = idOf(`data|${vmReceipts[d]!.r.id}`, i);
          vmReceipts[d]!.r.outputs.push({ dataId, receiverId: v.r.receiverId });
          v.r.inputDataIds.push(dataId);
          this.waiterOf.set(dataId, v.r.id);
        }
      });
      if (returnPromise !== undefined) {
        const returned = vmReceipts[returnPromise]!.r;
        returned.outputs.push(...receipt.outputs);
        status = { SuccessReceiptId: returned.id };
      } else {
        status = { SuccessValue: b64(returnValue) };
      }
      for (const { r } of vmReceipts) {
        created.push(r.id);
        if (r.inputDataIds.length === 0) this.send(r, height + 1);
        else this.waiting.set(r.id, { receipt: r, missing: new Set(r.inputDataIds) });
      }
      // nearcore sends the new receipts, then the data for the receipts waiting on this one (a returned promise
      // forwards them instead: its receipt produces the data).
      if (returnPromise === undefined) for (const o of receipt.outputs) this.deliver(o.dataId, { status: 'successful', value: returnValue }, height);
      for (const [k, v] of writes) {
        const key = Buffer.from(k, 'latin1');
        changes.push({ order: `${receipt.receiverId},${k}`, raw: dataChange(receipt.receiverId, new Uint8Array(key), v, receipt.id) });
      }
    }

    const raw = receiptOutcome({
      blockHash,
      receiptId: receipt.id,
      predecessorId: receipt.predecessorId,
      receiverId: receipt.receiverId,
      signerId: receipt.signerId,
      signerPublicKey: receipt.signerPublicKey,
      actions: receipt.actions.map(rawAction),
      logs,
      receiptIds: created,
      status,
      gasBurnt: Number(gasBurnt),
      tokensBurnt: gasBurnt * GAS_PRICE,
      txHash: receipt.txHash,
    });
    const action = (raw.receipt as { receipt: { Action: Record<string, unknown> } }).receipt.Action;
    action.input_data_ids = receipt.inputDataIds;
    action.output_data_receivers = receipt.outputs.map((o) => ({ data_id: o.dataId, receiver_id: o.receiverId }));
    if (receipt.predecessorId === SYSTEM) action.gas_price = '0';
    this.executed.push({ receipt, height, status, logs, calls, created, gasBurnt, promiseResults });
    return { raw, changes };
  }
}

/** A receipt that `parent`'s execution in block `height` created (its id and data links are set once it succeeds). */
function createdBy(parent: ChainReceipt, r: { receiverId: string; actions: VmAction[]; refundTo?: string; handler?: unknown }, height: number): ChainReceipt {
  return {
    id: '',
    txHash: parent.txHash,
    signerId: parent.signerId,
    signerPublicKey: parent.signerPublicKey,
    predecessorId: parent.receiverId,
    receiverId: r.receiverId,
    actions: r.actions,
    inputDataIds: [],
    outputs: [],
    ...(r.refundTo === undefined ? {} : { refundTo: r.refundTo }),
    createdAt: height,
    ...(r.handler === undefined ? {} : { handler: r.handler }),
  };
}

/** Gas a transaction's conversion burns: the new receipt's and its actions' send fees (sir when signer = receiver). */
function conversionGas(actions: readonly VmAction[], sir: boolean): bigint {
  const f = DEFAULT_PARAMS.fees;
  const send = (fee: { sendSir: bigint; sendNotSir: bigint }) => (sir ? fee.sendSir : fee.sendNotSir);
  let gas = send(f.new_action_receipt);
  for (const a of actions) {
    if (a.kind === 'Transfer') gas += send(f.transfer);
    else if (a.kind === 'FunctionCall') gas += send(f.function_call_base) + send(f.function_call_byte) * BigInt(encoder.encode(a.method).length + a.args.length);
  }
  return gas;
}
