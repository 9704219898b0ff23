// The trie model's node count against a Merkle-Patricia trie built node by node from the same keys.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodesInSubtree, SortedKeys } from '../../near/vm/trie.ts';

type Node =
  | { kind: 'leaf'; rest: number[] }
  | { kind: 'ext'; path: number[]; child: Node }
  | { kind: 'branch'; children: (Node | null)[]; hasValue: boolean };

function nibbles(key: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < key.length; i++) out.push(key.charCodeAt(i) >> 4, key.charCodeAt(i) & 15);
  return out;
}

/** Builds the trie of `keys` (nibble arrays, distinct) below the point where `depth` nibbles are consumed. */
function build(keys: number[][], depth: number): Node {
  if (keys.length === 1) return { kind: 'leaf', rest: keys[0]!.slice(depth) };
  let common = depth;
  for (;;) {
    const first = keys[0]!;
    if (common >= first.length || keys.some((k) => k.length <= common || k[common] !== first[common])) break;
    common++;
  }
  const branch: Node = { kind: 'branch', children: Array(16).fill(null), hasValue: false };
  const groups = new Map<number, number[][]>();
  for (const k of keys) {
    if (k.length === common) branch.hasValue = true;
    else groups.set(k[common]!, [...(groups.get(k[common]!) ?? []), k]);
  }
  for (const [nib, group] of groups) branch.children[nib] = build(group, common + 1);
  if (common > depth) return { kind: 'ext', path: keys[0]!.slice(depth, common), child: branch };
  return branch;
}

/** Nodes read looking up `key` (nibbles) from `node`. */
function walk(node: Node | null, key: number[], depth: number): number {
  if (node === null) return 0;
  switch (node.kind) {
    case 'leaf':
      return 1;
    case 'ext': {
      const path = node.path;
      for (let i = 0; i < path.length; i++) if (key[depth + i] !== path[i]) return 1;
      return 1 + walk(node.child, key, depth + path.length);
    }
    case 'branch':
      if (depth === key.length) return 1;
      return 1 + walk(node.children[key[depth]!] ?? null, key, depth + 1);
  }
}

const keyArb = fc.uint8Array({ minLength: 0, maxLength: 6 }).map((b) => String.fromCharCode(...b.map((x) => x & 0x33)));

describe('trie model', () => {
  it('counts the nodes a lookup reads, for present and absent keys', () => {
    fc.assert(
      fc.property(fc.uniqueArray(keyArb, { minLength: 0, maxLength: 40 }), keyArb, (keys, probe) => {
        const sorted = new SortedKeys(keys);
        const root = keys.length === 0 ? null : build(keys.map(nibbles), 0);
        for (const k of [...keys, probe]) expect(nodesInSubtree(sorted, k)).toBe(walk(root, nibbles(k), 0));
      }),
      { numRuns: 3000 },
    );
  });
});
