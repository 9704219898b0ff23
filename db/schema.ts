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

export interface Database {
  blocks: BlocksTable;
  checkpoints: CheckpointsTable;
  events: EventsTable;
}
