// A bootstrap's pool states -> `pool_state` events (source 'import') at one height. Pure.
import type { Dex } from '../../dexes/dex.ts';
import type { PoolStateCommon, PoolStateEvent } from '../../dexes/events.ts';

/**
 * The receipt id of a DEX's imported events: the log's key is (block_height, receipt_id, index), so the events of
 * one import are (H, `import:<dex>`, 0..n-1) with pools in id order. `replay` keeps `import:` receipts (the blocks
 * cannot give them back), and importing again at H replaces them.
 */
export const importReceiptId = (dex: Dex): string => `import:${dex.id}`;

export interface ImportAt {
  contractId: string;
  height: number;
  timestampMs: number;
}

type Imported = PoolStateCommon & { poolId: number | string };

const byPoolId = (a: Imported, b: Imported) =>
  typeof a.poolId === 'number' && typeof b.poolId === 'number' ? a.poolId - b.poolId : String(a.poolId) < String(b.poolId) ? -1 : 1;

/** One `pool_state` event per pool, at (height, importReceiptId), numbered in pool id order. */
export function poolStateEvents(dex: Dex, pools: readonly Imported[], at: ImportAt): PoolStateEvent[] {
  return [...pools].sort(byPoolId).map((state, index) => ({
    kind: 'pool_state',
    blockHeight: at.height,
    timestampMs: at.timestampMs,
    receiptId: importReceiptId(dex),
    txHash: null,
    index,
    dex: dex.id,
    contractId: at.contractId,
    poolId: state.poolId,
    state,
    source: 'import',
  }));
}

/** "8 RATED_SWAP (no token decimals, ...), 10 DCL (...)", biggest count first. */
export function describeSkipped(dex: Dex, skipped: Record<string, number>): string {
  return Object.entries(skipped)
    .sort(([a, m], [b, n]) => n - m || (a < b ? -1 : 1))
    .map(([kind, n]) => `${n} ${kind} (${dex.bootstrap?.skipReasons?.[kind] ?? 'unknown pool kind'})`)
    .join(', ');
}
