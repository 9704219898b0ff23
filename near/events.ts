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

export type CoreEvent =
  | FtTransferEvent
  | FtMintEvent
  | FtBurnEvent
  | NearTransferEvent
  | StorageDepositEvent
  | TokenMetadataEvent;

export type CoreEventKind = CoreEvent['kind'];
