// A seeded pseudo-random generator (sfc32, seeded from SHA-256 of the seed text): the same seed gives the same
// devnet, block for block, on every machine.
import { createHash } from 'node:crypto';

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string) {
    const h = createHash('sha256').update(seed).digest();
    this.a = h.readUInt32LE(0);
    this.b = h.readUInt32LE(4);
    this.c = h.readUInt32LE(8);
    this.d = h.readUInt32LE(12);
    for (let i = 0; i < 16; i++) this.next();
  }

  /** A uniform 32-bit unsigned integer. */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return this.next() % n;
  }

  /** A bigint in [lo, hi]. */
  bigint(lo: bigint, hi: bigint): bigint {
    const span = hi - lo + 1n;
    let r = 0n;
    for (let bits = 0n; 1n << bits < span * 1024n; bits += 32n) r = (r << 32n) | BigInt(this.next());
    return lo + (r % span);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  /** True with probability p (0..1, in steps of 1/1000). */
  chance(p: number): boolean {
    return this.int(1000) < Math.round(p * 1000);
  }
}
