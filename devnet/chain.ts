// The devnet's chain: accounts, transactions and receipts, executed in one block and written out as the raw Lake
// JSON a mainnet block has (near/lake-json.ts), so the indexer reads it exactly as it reads mainnet.
//
// A contract is played by the closure a receipt is created with: it logs, writes storage, creates receipts and
// returns a value, or throws Panic. Like NEAR, a failed receipt keeps its logs but none of its effects: what the
// closure changed through `onRevert` is undone, its storage writes and the receipts it created are dropped.
// Simplifications: one shard; every receipt of a transaction executes in the block of the transaction
// (breadth-first, as the runtime orders a block's local receipts); gas is a constant per receipt.
import { createHash } from 'node:crypto';
import { base58Encode } from '../near/base58.ts';
import {
  blockView,
  b64Json,
  chunkTransaction,
  dataChange,
  functionCallAction,
  receiptOutcome,
  shard,
  transferAction,
  type RawJson,
  type RawStatus,
} from '../near/lake-json.ts';
import type { Rng } from './rng.ts';

/** A contract's refusal: the receipt fails with this message (as `ExecutionError`). */
export class Panic extends Error {
  override name = 'Panic';
}

export interface Call {
  method: string;
  args: unknown;
  /** Attached deposit, yocto; default 0. */
  deposit?: bigint;
  /** Default 30 TGas. */
  gas?: bigint;
}

export type Handler = (r: Receipt) => unknown;

/** What makes the receipts a model's receipt creates: the devnet's chain, or the realnet hosting the model. */
export interface ReceiptHost {
  newReceipt(txHash: string, signerId: string, predecessorId: string, receiverId: string, actions: RawJson[], handler: Handler): Receipt;
}

const TGAS = 10n ** 12n;

/** One receipt being executed. `receiverId` is the account whose code runs. */
export class Receipt {
  readonly logs: string[] = [];
  readonly created: Receipt[] = [];
  readonly writes: Array<{ key: Uint8Array; value: Uint8Array | null }> = [];
  private readonly reverts: Array<() => void> = [];

  constructor(
    readonly chain: ReceiptHost,
    readonly id: string,
    readonly txHash: string,
    readonly signerId: string,
    readonly predecessorId: string,
    readonly receiverId: string,
    readonly actions: RawJson[],
    readonly handler: Handler,
  ) {}

  log(line: string): void {
    this.logs.push(line);
  }

  /** A NEP-297 event log line. */
  event(standard: string, version: string, event: string, data: unknown): void {
    this.logs.push(`EVENT_JSON:${JSON.stringify({ standard, version, event, data })}`);
  }

  /** A storage write of the receiver (value null: deletion). Lake lists them in execution order. */
  write(key: Uint8Array, value: Uint8Array | null): void {
    this.writes.push({ key, value });
  }

  /** Registers how to undo a change this receipt made, should it fail. */
  onRevert(undo: () => void): void {
    this.reverts.push(undo);
  }

  /** A function call receipt from this receiver to `receiverId`, executed after this one. */
  call(receiverId: string, call: Call, handler: Handler): Receipt {
    const r = this.chain.newReceipt(this.txHash, this.signerId, this.receiverId, receiverId, [callAction(call)], handler);
    this.created.push(r);
    return r;
  }

  /** A NEAR transfer from this receiver to `receiverId`. */
  transfer(receiverId: string, amount: bigint): Receipt {
    const r = this.chain.newReceipt(this.txHash, this.signerId, this.receiverId, receiverId, [transferAction(amount)], () => undefined);
    this.created.push(r);
    return r;
  }

  /** @internal Undoes this receipt's effects, last first. */
  revert(): void {
    for (const undo of this.reverts.reverse()) undo();
    this.writes.length = 0;
    this.created.length = 0;
  }
}

export function callAction(call: Call): RawJson {
  return functionCallAction({ method: call.method, args: call.args, gas: call.gas ?? 30n * TGAS, deposit: call.deposit ?? 0n });
}

export interface ChainOptions {
  seed: string;
  /** Height of the first block. */
  genesisHeight: number;
  /** Timestamp of the first block, ms. */
  genesisMs: number;
  /** Simulated time between blocks, ms. */
  blockMs: number;
  rng: Rng;
}

export class Chain implements ReceiptHost {
  readonly rng: Rng;
  /** Height of the block being built. */
  height: number;
  timestampMs: number;
  private readonly seed: string;
  /** Simulated time between blocks, ms (a view answers at the last sealed block: `timestampMs - blockMs`). */
  readonly blockMs: number;
  private prevHash: string;
  private counter = 0;
  private nonce = 0;
  private queue: Receipt[] = [];
  private transactions: RawJson[] = [];
  private outcomes: RawJson[] = [];
  private stateChanges: RawJson[] = [];
  /** Every account's storage now (base64 key -> base64 value), as the blocks so far left it: what `view_state` reads. */
  readonly storage = new Map<string, Map<string, string>>();

  constructor(options: ChainOptions) {
    this.rng = options.rng;
    this.seed = options.seed;
    this.blockMs = options.blockMs;
    this.height = options.genesisHeight;
    this.timestampMs = options.genesisMs;
    this.prevHash = this.hash('genesis-parent');
  }

  /** A deterministic base58 hash of the seed, the height and `what`. */
  hash(what: string): string {
    return base58Encode(createHash('sha256').update(`${this.seed}|${this.height}|${what}`).digest());
  }

  /** @internal */
  newReceipt(txHash: string, signerId: string, predecessorId: string, receiverId: string, actions: RawJson[], handler: Handler): Receipt {
    return new Receipt(this, this.hash(`receipt-${this.counter++}`), txHash, signerId, predecessorId, receiverId, actions, handler);
  }

  /** A signed transaction of `signerId` to `receiverId`, executed (with every receipt it leads to) right away. */
  transact(signerId: string, receiverId: string, calls: Call[], handler: Handler): Receipt {
    const txHash = this.hash(`tx-${this.counter++}`);
    const actions = calls.map(callAction);
    const receipt = this.newReceipt(txHash, signerId, signerId, receiverId, actions, handler);
    this.transactions.push(
      chunkTransaction({ hash: txHash, signerId, receiverId, actions, nonce: ++this.nonce, receiptId: receipt.id, blockHash: this.currentHash() }),
    );
    this.queue.push(receipt);
    this.drain();
    return receipt;
  }

  /** Executes queued receipts breadth-first. */
  private drain(): void {
    while (this.queue.length) {
      const r = this.queue.shift()!;
      let status: RawStatus;
      try {
        const value = r.handler(r);
        status = { SuccessValue: value === undefined ? '' : b64Json(typeof value === 'bigint' ? value.toString() : value) };
      } catch (error) {
        if (!(error instanceof Panic)) throw error;
        r.revert();
        status = { Failure: { ActionError: { index: 0, kind: { FunctionCallError: { ExecutionError: `Smart contract panicked: ${error.message}` } } } } };
      }
      for (const w of r.writes) {
        this.stateChanges.push(dataChange(r.receiverId, w.key, w.value, r.id));
        let account = this.storage.get(r.receiverId);
        if (account === undefined) this.storage.set(r.receiverId, (account = new Map()));
        const key = Buffer.from(w.key).toString('base64');
        if (w.value === null) account.delete(key);
        else account.set(key, Buffer.from(w.value).toString('base64'));
      }
      this.outcomes.push(
        receiptOutcome({
          blockHash: this.currentHash(),
          receiptId: r.id,
          predecessorId: r.predecessorId,
          receiverId: r.receiverId,
          signerId: r.signerId,
          actions: r.actions,
          logs: r.logs,
          receiptIds: r.created.map((c) => c.id),
          status,
          txHash: r.txHash,
        }),
      );
      this.queue.push(...r.created);
    }
  }

  /** The log lines of this block's successful receipts executed by `accountId`, so far, to append to. */
  successfulLogs(accountId: string): string[][] {
    const logs: string[][] = [];
    for (const o of this.outcomes as Array<{ execution_outcome: { outcome: { executor_id: string; logs: string[]; status: RawStatus } } }>) {
      const { executor_id: executor, logs: lines, status } = o.execution_outcome.outcome;
      if (executor === accountId && !('Failure' in status)) logs.push(lines);
    }
    return logs;
  }

  private currentHash(): string {
    return this.hash('block');
  }

  /** Closes the block being built: its `{block, shards}` message; the next block starts. */
  seal(): RawJson {
    const hash = this.currentHash();
    const chunkHash = this.hash('chunk-0');
    const message = {
      block: blockView({ height: this.height, hash, prevHash: this.prevHash, timestampNs: BigInt(this.timestampMs) * 1_000_000n, author: 'devnet.poolv1.near', chunkHashes: [chunkHash] }),
      shards: [
        shard({
          shardId: 0,
          chunkHash,
          blockHash: hash,
          prevBlockHash: this.prevHash,
          height: this.height,
          transactions: this.transactions,
          outcomes: this.outcomes,
          stateChanges: this.stateChanges,
        }),
      ],
    };
    this.prevHash = hash;
    this.height += 1;
    this.timestampMs += this.blockMs;
    this.transactions = [];
    this.outcomes = [];
    this.stateChanges = [];
    return message;
  }
}
