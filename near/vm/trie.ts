// How many trie nodes a storage write or removal touches, for the `touching_trie_node` /
// `read_cached_trie_node` fees.
//
// nearcore (runtime/runtime/src/ext.rs) looks a written or removed key up through the trie with node
// tracking on (`KeyLookupMode::MemOrTrie`): one fee per node on the path from the shard's state root to
// the key (branch, extension and leaf nodes), plus one for the old value when there is one (its
// dereference is tracked too). Reads and `storage_has_key` go through flat storage
// (`storage_get_mode: FlatStorage`, since protocol 61) and track no node at all. A key written or
// removed earlier in the same chunk is served from memory and touches nothing. Since protocol 82 both
// fees are 2.28 Ggas, so whether a node was already touched in the chunk no longer changes the price:
// only the count matters, and this model counts (every access is charged as `touching_trie_node`).
//
// A key of contract `c` is the trie key `0x09 ‖ c ‖ ',' ‖ key`: every key of one contract lies in one
// subtree. The model splits a path in two:
//   - `aboveContract`: the nodes from the shard's root down to the contract's subtree, the same for
//     every key of the contract. It depends on the whole shard (every other account's keys), which is
//     not modelled: it is a number, 10 by default (see README);
//   - the path inside the contract's subtree, computed exactly as a Merkle-Patricia trie over the
//     contract's own keys as they stand (`nodesInSubtree`): branch nodes where keys diverge, an
//     extension node over every run of shared nibbles, a leaf at the end;
//   - plus, when `contractKeys` says how many keys the contract really has (its state on chain is far
//     bigger than a test's), the branch levels that many more keys add: round(log16(contractKeys /
//     modelled keys)), and `extraDepth` levels more if given.

export interface TrieModelOptions {
  /** Nodes from the shard root to the contract's subtree (default 10). */
  aboveContract?: number;
  /** Keys the modelled contract has on chain: adds the branch levels beyond the modelled state's. */
  contractKeys?: number;
  /** Further nodes on every path. */
  extraDepth?: number;
}

export const DEFAULT_ABOVE_CONTRACT = 10;

/** Keys as latin1 strings (one char per byte), sorted by code unit = by bytes. */
export class SortedKeys {
  readonly keys: string[];

  constructor(keys: Iterable<string>) {
    this.keys = [...keys].sort(byCodeUnit);
  }

  get size(): number {
    return this.keys.length;
  }

  /** First index whose key is >= `k`. */
  lowerBound(k: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid]! < k) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  has(k: string): boolean {
    const i = this.lowerBound(k);
    return i < this.keys.length && this.keys[i] === k;
  }
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Common prefix of two keys in nibbles. */
function lcpNibbles(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return 2 * i;
  return (a.charCodeAt(i) >> 4) === (b.charCodeAt(i) >> 4) ? 2 * i + 1 : 2 * i;
}

/** [lo, hi) of the keys that start with the first `d` nibbles of `k`. */
function prefixRange(sorted: SortedKeys, k: string, d: number): [number, number] {
  const bytes = d >> 1;
  const prefix = k.slice(0, bytes);
  if ((d & 1) === 0) return [sorted.lowerBound(prefix), sorted.lowerBound(prefix + '\u0100')];
  const high = k.charCodeAt(bytes) & 0xf0;
  return [
    sorted.lowerBound(prefix + String.fromCharCode(high)),
    sorted.lowerBound(prefix + String.fromCharCode(high | 0x0f) + '\u0100'),
  ];
}

/** Nibble depths of the branch nodes passed on the way up from the group [lo, hi) around `k`. */
function branchesAbove(sorted: SortedKeys, k: string, lo: number, hi: number): number[] {
  const out: number[] = [];
  const n = sorted.size;
  while (lo > 0 || hi < n) {
    const left = lo > 0 ? lcpNibbles(k, sorted.keys[lo - 1]!) : -1;
    const right = hi < n ? lcpNibbles(k, sorted.keys[hi]!) : -1;
    const d = Math.max(left, right);
    out.push(d);
    [lo, hi] = prefixRange(sorted, k, d);
  }
  return out.reverse();
}

/** Branch nodes plus the extension nodes between them (and above the first one). */
function branchesAndExtensions(branches: number[]): number {
  let nodes = 0;
  let prev = -1;
  for (const b of branches) {
    if (b > prev + 1) nodes++;
    nodes++;
    prev = b;
  }
  return nodes;
}

/**
 * Nodes a lookup of `k` reads in the Merkle-Patricia trie of exactly the keys of `sorted` (the
 * contract's subtree): for a present key, every node down to its value; for an absent one, down to
 * the node where the lookup finds no continuation.
 */
export function nodesInSubtree(sorted: SortedKeys, k: string): number {
  const n = sorted.size;
  if (n === 0) return 0;
  const pos = sorted.lowerBound(k);
  if (pos < n && sorted.keys[pos] === k) {
    if (n === 1) return 1;
    const branches = branchesAbove(sorted, k, pos, pos + 1);
    const deepest = branches[branches.length - 1]!;
    return branchesAndExtensions(branches) + (deepest < 2 * k.length ? 1 : 0);
  }
  const left = pos > 0 ? lcpNibbles(k, sorted.keys[pos - 1]!) : -1;
  const right = pos < n ? lcpNibbles(k, sorted.keys[pos]!) : -1;
  const m = Math.max(left, right);
  const [lo, hi] = prefixRange(sorted, k, m);
  const branches = branchesAbove(sorted, k, lo, hi);
  const prev = branches.length > 0 ? branches[branches.length - 1]! : -1;
  let nodes = branchesAndExtensions(branches);
  if (hi - lo === 1) return nodes + 1; // the one key's leaf, read and found different
  const groupPrefix = lcpNibbles(sorted.keys[lo]!, sorted.keys[hi - 1]!);
  if (groupPrefix > m) return nodes + 1; // an extension the key leaves in its middle
  nodes += 1; // the branch at depth m, with no child for the key's next nibble
  if (m > prev + 1) nodes += 1; // the extension leading to that branch
  return nodes;
}
