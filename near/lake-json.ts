// Builders of raw NEAR Lake JSON (snake_case, exactly the shapes nearcore writes and near/block.ts reads): the
// devnet simulator writes its blocks with them, and tests build hand-made blocks with them. Only the fields the
// block model reads, plus the ones every real block carries; hashes are whatever the caller passes.

export type RawJson = Record<string, unknown>;

export const b64 = (text: string | Uint8Array): string => Buffer.from(text).toString('base64');
export const b64Json = (value: unknown): string => b64(JSON.stringify(value));

export interface RawFunctionCall {
  method: string;
  /** Call arguments: encoded as base64 JSON (or given already as bytes). */
  args: unknown;
  gas: bigint | number;
  deposit: bigint;
}

export function functionCallAction(call: RawFunctionCall): RawJson {
  const args = call.args instanceof Uint8Array ? b64(call.args) : b64Json(call.args);
  return { FunctionCall: { method_name: call.method, args, gas: Number(call.gas), deposit: call.deposit.toString() } };
}

export function transferAction(deposit: bigint): RawJson {
  return { Transfer: { deposit: deposit.toString() } };
}

export type RawStatus = { SuccessValue: string } | { SuccessReceiptId: string } | { Failure: unknown };

export interface RawOutcomeInput {
  blockHash: string;
  receiptId: string;
  predecessorId: string;
  receiverId: string;
  signerId: string;
  signerPublicKey?: string;
  actions: RawJson[];
  logs: string[];
  receiptIds: string[];
  status: RawStatus;
  gasBurnt?: number;
  tokensBurnt?: bigint;
  txHash?: string;
}

/** One `receipt_execution_outcomes[]` item for an Action receipt. */
export function receiptOutcome(o: RawOutcomeInput): RawJson {
  return {
    execution_outcome: {
      proof: [],
      block_hash: o.blockHash,
      id: o.receiptId,
      outcome: {
        logs: o.logs,
        receipt_ids: o.receiptIds,
        gas_burnt: o.gasBurnt ?? 2_428_000_000_000,
        tokens_burnt: (o.tokensBurnt ?? 242_800_000_000_000_000_000n).toString(),
        executor_id: o.receiverId,
        status: o.status,
        metadata: { version: 3, gas_profile: [] },
      },
    },
    receipt: {
      predecessor_id: o.predecessorId,
      receiver_id: o.receiverId,
      receipt_id: o.receiptId,
      receipt: {
        Action: {
          signer_id: o.signerId,
          signer_public_key: o.signerPublicKey ?? 'ed25519:11111111111111111111111111111111',
          gas_price: '100000000',
          output_data_receivers: [],
          input_data_ids: [],
          actions: o.actions,
          is_promise_yield: false,
        },
      },
      priority: 0,
    },
    ...(o.txHash === undefined ? {} : { tx_hash: o.txHash }),
  };
}

export interface RawTransactionInput {
  hash: string;
  signerId: string;
  receiverId: string;
  actions: RawJson[];
  nonce: number;
  /** The receipt the transaction converted into. */
  receiptId: string;
  blockHash: string;
  publicKey?: string;
}

/** One `chunk.transactions[]` item: the signed transaction and its outcome. */
export function chunkTransaction(t: RawTransactionInput): RawJson {
  return {
    transaction: {
      signer_id: t.signerId,
      public_key: t.publicKey ?? 'ed25519:11111111111111111111111111111111',
      nonce: t.nonce,
      receiver_id: t.receiverId,
      actions: t.actions,
      signature: 'ed25519:1111111111111111111111111111111111111111111111111111111111111111',
      hash: t.hash,
    },
    outcome: {
      execution_outcome: {
        proof: [],
        block_hash: t.blockHash,
        id: t.hash,
        outcome: {
          logs: [],
          receipt_ids: [t.receiptId],
          gas_burnt: 223_182_562_500,
          tokens_burnt: '22318256250000000000',
          executor_id: t.signerId,
          status: { SuccessReceiptId: t.receiptId },
          metadata: { version: 1, gas_profile: null },
        },
      },
      receipt: null,
    },
  };
}

/** A contract storage write (`data_update`) or deletion (`data_deletion`) caused by a receipt. */
export function dataChange(accountId: string, key: Uint8Array, value: Uint8Array | null, receiptId: string): RawJson {
  const cause = { type: 'receipt_processing', receipt_hash: receiptId };
  return value === null
    ? { cause, type: 'data_deletion', change: { account_id: accountId, key_base64: b64(key) } }
    : { cause, type: 'data_update', change: { account_id: accountId, key_base64: b64(key), value_base64: b64(value) } };
}

export interface RawShardInput {
  shardId: number;
  chunkHash: string;
  blockHash: string;
  prevBlockHash: string;
  height: number;
  transactions: RawJson[];
  outcomes: RawJson[];
  stateChanges: RawJson[];
}

/** One `shards[]` item (also the content of a Lake `shard_N.json`). */
export function shard(s: RawShardInput): RawJson {
  return {
    shard_id: s.shardId,
    chunk: {
      author: 'devnet.poolv1.near',
      header: {
        chunk_hash: s.chunkHash,
        prev_block_hash: s.prevBlockHash,
        height_created: s.height,
        height_included: s.height,
        shard_id: s.shardId,
        gas_used: 0,
        gas_limit: 1_000_000_000_000_000,
        balance_burnt: '0',
      },
      transactions: s.transactions,
      receipts: [],
    },
    receipt_execution_outcomes: s.outcomes,
    state_changes: s.stateChanges,
  };
}

export interface RawBlockInput {
  height: number;
  hash: string;
  prevHash: string;
  timestampNs: bigint;
  author: string;
  chunkHashes: string[];
}

/** The `block` object (also the content of a Lake `block.json`). */
export function blockView(b: RawBlockInput): RawJson {
  return {
    author: b.author,
    header: {
      height: b.height,
      prev_height: b.height - 1,
      hash: b.hash,
      prev_hash: b.prevHash,
      timestamp: Number(b.timestampNs),
      timestamp_nanosec: b.timestampNs.toString(),
      chunks_included: b.chunkHashes.length,
      gas_price: '100000000',
    },
    chunks: b.chunkHashes.map((chunk_hash, shard_id) => ({ chunk_hash, shard_id, height_created: b.height, height_included: b.height })),
  };
}
