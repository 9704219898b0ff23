// The Kysely view of the tables. int8 columns are read as JS numbers (heights and millisecond timestamps fit
// in 2^53); numeric amounts are read as decimal strings and turned into bigint by the code that uses them.
import type { ColumnType, Generated } from 'kysely';

export interface BlocksTable {
  height: number;
  hash: string;
  prev_hash: string;
  timestamp_ms: number;
  gap_before: Generated<number>;
}

export interface CheckpointsTable {
  name: string;
  height: number;
  hash: string;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface EventsTable {
  block_height: number;
  receipt_id: string;
  index: number;
  kind: string;
  timestamp_ms: number;
  tx_hash: string | null;
  payload: ColumnType<unknown, string, string>;
}

/** numeric(40,0): read as a decimal string, written from a bigint or a decimal string. */
type Amount = ColumnType<string, string | bigint, string | bigint>;

export interface TransfersTable {
  block_height: number;
  receipt_id: string;
  index: number;
  timestamp_ms: number;
  tx_hash: string | null;
  token: string;
  sender: string | null;
  receiver: string | null;
  amount: Amount;
  memo: string | null;
}

export interface BalancesTable {
  token: string;
  account: string;
  balance: Amount;
  updated_height: number;
  /** The height of the account's first balance_history row of the token (null: none). */
  first_height: number | null;
}

export interface BalanceHistoryTable {
  token: string;
  account: string;
  block_height: number;
  balance: Amount;
}

export interface TokensTable {
  token: string;
  symbol: string | null;
  name: string | null;
  decimals: number | null;
  icon: string | null;
  reference: string | null;
  metadata_source: string | null;
  total_supply: ColumnType<string | null, string | bigint | null, string | bigint | null>;
  holders: Generated<number>;
  created_height: number;
  updated_height: number;
}

export interface StorageRegistrationsTable {
  contract_id: string;
  account_id: string;
  deposit: Amount;
  registered_height: number;
}

export interface PoolsTable {
  dex: string;
  pool_id: string;
  kind: string;
  tokens: string[];
  amounts: ColumnType<string[], string[], string[]>;
  total_fee: number;
  state: ColumnType<unknown, string, string>;
  updated_height: number;
  /** The pool's latest write did not decode: its state is not known, and it is not routed. */
  stale: Generated<boolean>;
  /** The block of its first state; null when a bootstrap or an import read that state (the pool existed before). */
  created_height: number | null;
}

export interface PoolHistoryTable extends Omit<PoolsTable, 'updated_height' | 'stale' | 'created_height'> {
  block_height: number;
}

export interface TradeHopsTable {
  block_height: number;
  receipt_id: string;
  index: number;
  timestamp_ms: number;
  tx_hash: string | null;
  dex: string;
  pool_id: string | null;
  trader: string | null;
  token_in: string;
  token_out: string;
  amount_in: Amount;
  amount_out: Amount;
  /** The hop's USD value when it is volume; null for a conversion or a hop without a price. */
  volume_usd: UsdOrNull;
}

export interface ProjectionRebuildsTable {
  reason: string;
}

/** numeric (unbounded; written with 18 digits after the point): an exact USD figure in units of 10^-18 USD, read and written as decimal text. */
type Usd = ColumnType<string, string, string>;
type UsdOrNull = ColumnType<string | null, string | null, string | null>;

export interface TradesTable {
  block_height: number;
  receipt_id: string;
  dex: string;
  index: number;
  timestamp_ms: number;
  tx_hash: string | null;
  trader: string | null;
  token_in: string;
  token_out: string;
  amount_in: Amount;
  amount_out: Amount;
  hops: number;
  /** One per hop; null where the decoder could not tell the pool. */
  pool_ids: (string | null)[];
  receipt_ids: string[];
  value_usd: UsdOrNull;
}

export interface PricesTable {
  token: string;
  block_height: number;
  timestamp_ms: number;
  price_usd: UsdOrNull;
}

export interface TokenMarketTable {
  token: string;
  price_usd: UsdOrNull;
  price_height: number | null;
  liquidity_usd: UsdOrNull;
  volume_usd_24h: ColumnType<string, string | undefined, string>;
  price_change_24h: UsdOrNull;
  price_change_5m: UsdOrNull;
  price_change_1h: UsdOrNull;
  price_change_6h: UsdOrNull;
}

/** Per token, its trades of the 24 h up to the market clock (indexer/projections/prices.ts writeActivity). */
export interface TokenActivityTable {
  token: string;
  buys_24h: number;
  sells_24h: number;
  traders_24h: number;
}

export interface CandlesTable {
  token: string;
  resolution: string;
  bucket_start_ms: number;
  open_usd: Usd;
  high_usd: Usd;
  low_usd: Usd;
  close_usd: Usd;
  volume_usd: Usd;
  /** numeric (a sum of amounts, unbounded), the token's smallest units: a decimal string. */
  volume: ColumnType<string, string | bigint, string | bigint>;
  trades: number;
}

export interface MarketClockTable {
  id: Generated<boolean>;
  block_height: number;
  timestamp_ms: number;
}

/** The newest 1,000 inputs per DEX that a decoder could not read (`undecoded` events). */
export interface UndecodedTable {
  block_height: number;
  receipt_id: string;
  index: number;
  timestamp_ms: number;
  tx_hash: string | null;
  /** DEX id, or the standard for the core decoders. */
  dex: string;
  /** `log` or `state`. */
  kind: string;
  contract_id: string;
  pool_id: string | null;
  reason: string;
  raw: string;
}

/** Every undecoded input ever indexed, counted per DEX and kind. */
export interface UndecodedTotalsTable {
  dex: string;
  kind: string;
  count: ColumnType<string, string | bigint | number, string | bigint | number>;
}

export interface Database {
  blocks: BlocksTable;
  checkpoints: CheckpointsTable;
  events: EventsTable;
  transfers: TransfersTable;
  balances: BalancesTable;
  balance_history: BalanceHistoryTable;
  tokens: TokensTable;
  storage_registrations: StorageRegistrationsTable;
  pools: PoolsTable;
  pool_history: PoolHistoryTable;
  trade_hops: TradeHopsTable;
  projection_rebuilds: ProjectionRebuildsTable;
  trades: TradesTable;
  prices: PricesTable;
  token_market: TokenMarketTable;
  token_activity: TokenActivityTable;
  candles: CandlesTable;
  market_clock: MarketClockTable;
  undecoded: UndecodedTable;
  undecoded_totals: UndecodedTotalsTable;
}
