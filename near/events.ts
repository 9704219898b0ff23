// Domain events of the core (non-DEX) decoders: what the event log stores and the projections
// read. One event per fact; (blockHeight, receiptId, index) is its unique key.

export interface EventBase {
  blockHeight: number;
  timestampMs: number;
  receiptId: string;
  /** Originating transaction when the block tells it (see ReceiptOutcome.txHash), else null. */
  txHash: string | null;
  /** Position among the events of its receipt: action-derived first (action order), then
   * log-derived (log order). */
  index: number;
}

/** NEP-141 transfer, from an `ft_transfer` event item or a legacy `Transfer`/`Refund` log. */
export interface FtTransferEvent extends EventBase {
  kind: 'ft_transfer';
  contractId: string;
  from: string;
  to: string;
  amount: bigint;
  memo: string | null;
}

/** Tokens created for `owner` (NEP-141 `ft_mint`, or wNEAR `Deposit ... NEAR to ...`). */
export interface FtMintEvent extends EventBase {
  kind: 'ft_mint';
  contractId: string;
  owner: string;
  amount: bigint;
}

/** Tokens destroyed from `owner` (NEP-141 `ft_burn`, or wNEAR `Withdraw ... from ...`). */
export interface FtBurnEvent extends EventBase {
  kind: 'ft_burn';
  contractId: string;
  owner: string;
  amount: bigint;
}

/**
 * A `Transfer` action that executed. `refund` marks transfers from `system` (gas and deposit
 * refunds): they return what the sender was charged when its receipt was created, which these
 * events do not record, so balance projections skip them.
 */
export interface NearTransferEvent extends EventBase {
  kind: 'near_transfer';
  from: string;
  to: string;
  amount: bigint;
  refund: boolean;
}

/** A successful NEP-145 `storage_deposit` call; `deposit` is the attached amount. */
export interface StorageDepositEvent extends EventBase {
  kind: 'storage_deposit';
  contractId: string;
  accountId: string;
  deposit: bigint;
  registrationOnly: boolean;
}

/** NEP-148 fungible token metadata, as the chain gives it. */
export interface FtMetadata {
  spec: string;
  name: string;
  symbol: string;
  decimals: number;
  icon: string | null;
  reference: string | null;
}

/** NEP-148 metadata: given to a token contract's init call, or read from its `ft_metadata` view over RPC. */
export interface TokenMetadataEvent extends EventBase, FtMetadata {
  kind: 'token_metadata';
  contractId: string;
  source: 'init' | 'rpc';
}

/**
 * Input from the chain that a decoder could not read: a log line of a contract it owns that matches none of the
 * contract's known formats (an unknown event name, a known event whose shape is not the one we read), or a storage
 * value that does not decode (an unknown enum tag, a short value, leftover bytes). Nothing from the chain stops the
 * indexer: the input is kept, counted and skipped. `index` numbers it among the receipt's events like any other.
 */
export interface UndecodedEvent extends EventBase {
  kind: 'undecoded';
  /** The DEX id, or the standard for the core decoders (`NEP-141`, `NEP-145`, `NEP-297`). */
  dex: string;
  /** What was not understood: a log line, a storage write, or a successful call's arguments. */
  input: 'log' | 'state' | 'args';
  /** The account whose log or storage it is. */
  contractId: string;
  /** The pool the input belongs to, when known: that pool's state is stale until a readable write arrives. */
  poolId: string | null;
  /** Why it was not read, in a few words (e.g. `unknown event foo`, `1 leftover byte(s) after offset 174 of 175`). */
  reason: string;
  /** The input as the chain gave it: the log line, the storage write as base64 `key=value`, or the call's args. */
  raw: string;
}

export type CoreEvent =
  | FtTransferEvent
  | FtMintEvent
  | FtBurnEvent
  | NearTransferEvent
  | StorageDepositEvent
  | TokenMetadataEvent
  | UndecodedEvent;

export type CoreEventKind = CoreEvent['kind'];
