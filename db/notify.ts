// The NOTIFY protocol between the indexer (sender) and the api (listener), design.md §4: one channel, one
// notification per committed batch, naming what changed. Listeners treat it as a hint and read the tables.

export const NOTIFY_CHANNEL = 'dexlake_blocks';

/** `pools` are `Dex:poolId` keys, `tokens` token ids; `all` replaces both when the lists would not fit. */
export type BlocksNotification = { height: number; pools: string[]; tokens: string[] } | { height: number; all: true };

/** A payload as the indexer writes it, or null when it is not one (a listener then reloads everything). */
export function parseBlocksNotification(text: string): BlocksNotification | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (typeof v.height !== 'number') return null;
  if (v.all === true) return { height: v.height, all: true };
  const strings = (x: unknown): x is string[] => Array.isArray(x) && x.every((s) => typeof s === 'string');
  if (!strings(v.pools) || !strings(v.tokens)) return null;
  return { height: v.height, pools: v.pools, tokens: v.tokens };
}

/** Two notifications as one (a listener behind on its work handles what both named, once). */
export function mergeNotifications(a: BlocksNotification, b: BlocksNotification): BlocksNotification {
  const height = Math.max(a.height, b.height);
  if ('all' in a || 'all' in b) return { height, all: true };
  return { height, pools: [...new Set([...a.pools, ...b.pools])], tokens: [...new Set([...a.tokens, ...b.tokens])] };
}
