// A contract's storage on the host side: a Map from key to value, with the keys also kept sorted
// (for the trie model) as entries come and go. Keys are byte strings held as latin1 strings, one
// char per byte, so that Map lookups and sorting are by bytes.

import { SortedKeys } from './trie.ts';

export function keyString(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

export function keyBytes(key: string): Uint8Array {
  return new Uint8Array(Buffer.from(key, 'latin1'));
}

/** Storage of one contract: `get`/`set`/`delete` by latin1 key (see `keyString`). */
export class ContractStorage extends Map<string, Uint8Array> {
  private sortedKeys: SortedKeys | null = null;

  constructor(entries?: Iterable<readonly [string, Uint8Array]>) {
    super();
    if (entries) for (const [k, v] of entries) this.set(k, v);
  }

  override set(key: string, value: Uint8Array): this {
    if (this.sortedKeys !== null && !super.has(key)) {
      const keys = this.sortedKeys.keys;
      keys.splice(this.sortedKeys.lowerBound(key), 0, key);
    }
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    const had = super.delete(key);
    if (had && this.sortedKeys !== null) this.sortedKeys.keys.splice(this.sortedKeys.lowerBound(key), 1);
    return had;
  }

  override clear(): void {
    super.clear();
    this.sortedKeys = null;
  }

  /** The keys in byte order, kept up to date from here on. */
  sorted(): SortedKeys {
    this.sortedKeys ??= new SortedKeys(this.keys());
    return this.sortedKeys;
  }

  /** Bytes this storage adds to the account's storage usage: key + value + 40 per record. */
  usage(numExtraBytesRecord: bigint): bigint {
    let total = 0n;
    for (const [k, v] of this) total += BigInt(k.length + v.length) + numExtraBytesRecord;
    return total;
  }
}
