// What every block source gives the pipeline: final blocks in strictly increasing height order, first as raw
// bytes (cheap to read, and decodable on another thread), or as normalized blocks.
import type { Block } from '../../near/block.ts';

export interface BlockRange {
  /** First height wanted (inclusive); a source without it starts where it naturally does (first file, chain head). */
  from?: number;
  /** Last height wanted (inclusive); without it a live source follows the chain forever. */
  to?: number;
}

/**
 * A block as the source found it, not yet parsed: parsing is most of the cost of ingestion, so it happens where
 * the pipeline decides (a decode worker). Every form says the height the source expects it to hold.
 */
export type RawBlock =
  /** A combined `{block, shards}` message, as UTF-8 bytes (moved, not copied, to a decode worker). */
  | { kind: 'message'; height: number; body: Uint8Array }
  /** A file holding a combined message (`.json`, or `.json.gz`). */
  | { kind: 'message-file'; height: number; path: string }
  /** The Lake layout: `block.json` (already parsed: the source needed its chunk list) and the shard files' bytes. */
  | { kind: 'lake'; height: number; block: unknown; shards: Uint8Array[] }
  /** A Lake-layout folder: `block.json` and `shard_N.json`. */
  | { kind: 'lake-dir'; height: number; path: string };

/** What a source is doing now, for the progress line and the status port's gauges. */
export interface SourceStats {
  /** Blocks requested and not answered yet. */
  inFlight: number;
  /** Blocks allowed in flight now (the adaptive read-ahead's window). */
  limit: number;
  /** Bytes of blocks answered and not yet taken. */
  heldBytes: number;
  /** The chain head the source last saw (the last block of a set of files), when it knows one. */
  head: number | undefined;
}

export interface BlockSource {
  /** For logs: `files:/path`, `neardata:https://...`, `lake:s3://bucket`. */
  readonly name: string;
  /**
   * True for a sparse set of blocks (fixtures years apart): the pipeline does not require each block's prev_hash
   * to be the previous block's hash.
   */
  readonly sparse: boolean;
  /**
   * The blocks of `range`, in increasing height order, pulled one at a time (backpressure: nothing is read far
   * ahead of what the consumer asked for). Ends after `range.to`, or when `signal` aborts (then it must return
   * promptly, without throwing, and leave no timer, socket or request behind). Heights the chain skipped are
   * simply absent.
   */
  raw(range: BlockRange, signal: AbortSignal): AsyncIterable<RawBlock>;
  /**
   * Block `height` fetched anew, after `error` showed that what `raw()` gave for it is not a readable block (a body
   * cut short or replaced on the way: sources check only its ends, and the full parse on a decode worker finds the
   * rest); `attempt` counts the refetches of this block from 0, for the backoff. Null: the height now reads as
   * skipped. Sources that read locally have none (an unreadable file stays unreadable).
   */
  refetch?(height: number, error: Error, attempt: number, signal: AbortSignal): Promise<RawBlock | null>;
  /** The current iteration's reading (undefined before one starts, and for sources that only read locally). */
  stats?(): SourceStats | undefined;
  /** The same blocks, parsed and normalized on this thread. */
  blocks(range: BlockRange, signal: AbortSignal): AsyncIterable<Block>;
}
