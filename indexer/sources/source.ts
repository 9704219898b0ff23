// What every block source gives the pipeline: final blocks in strictly increasing height order.
import type { Block } from '../../near/block.ts';

export interface BlockRange {
  /** First height wanted (inclusive); a source without it starts where it naturally does (first file, chain head). */
  from?: number;
  /** Last height wanted (inclusive); without it a live source follows the chain forever. */
  to?: number;
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
  blocks(range: BlockRange, signal: AbortSignal): AsyncIterable<Block>;
}
