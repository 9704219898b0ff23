// A small borsh reader (https://borsh.io): little-endian integers, `u32 len ‖ bytes` strings and
// vectors, `0/1` options, `u8` enum tags. Reads from a Uint8Array (a Buffer is one) at a moving
// offset and throws BorshError on a short read, bad UTF-8 or a bad option tag. Pure, no
// allocation beyond what a value needs: u64/u128 are read as two/four u32 words.

export class BorshError extends Error {
  override name = 'BorshError';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export class BorshReader {
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  offset: number;

  constructor(bytes: Uint8Array, offset = 0) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.offset = offset;
  }

  /** Decodes standard base64 (what Lake's `value_base64` holds). */
  static fromBase64(b64: string): BorshReader {
    return new BorshReader(Buffer.from(b64, 'base64'));
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  /** Throws unless every byte was consumed; `what` names the value in the message. */
  done(what = 'value'): void {
    if (this.offset !== this.bytes.length) {
      throw new BorshError(
        `${what}: ${this.bytes.length - this.offset} leftover byte(s) after offset ${this.offset} of ${this.bytes.length}`,
      );
    }
  }

  private need(n: number, what: string): void {
    if (this.offset + n > this.bytes.length) {
      throw new BorshError(
        `${what}: needs ${n} byte(s) at offset ${this.offset}, only ${this.bytes.length - this.offset} left`,
      );
    }
  }

  u8(): number {
    this.need(1, 'u8');
    return this.view.getUint8(this.offset++);
  }

  bool(): boolean {
    const b = this.u8();
    if (b > 1) throw new BorshError(`bool: invalid byte ${b} at offset ${this.offset - 1}`);
    return b === 1;
  }

  u16(): number {
    this.need(2, 'u16');
    const v = this.view.getUint16(this.offset, true);
    this.offset += 2;
    return v;
  }

  u32(): number {
    this.need(4, 'u32');
    const v = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return v;
  }

  u64(): bigint {
    this.need(8, 'u64');
    const v = this.view.getBigUint64(this.offset, true);
    this.offset += 8;
    return v;
  }

  u128(): bigint {
    this.need(16, 'u128');
    const lo = this.view.getBigUint64(this.offset, true);
    const hi = this.view.getBigUint64(this.offset + 8, true);
    this.offset += 16;
    return (hi << 64n) | lo;
  }

  /** Unsigned little-endian integer of `size` bytes (e.g. 32 for a uint-crate U256). */
  uintLE(size: number): bigint {
    this.need(size, `u${size * 8}`);
    let v = 0n;
    for (let i = size - 1; i >= 0; i--) v = (v << 8n) | BigInt(this.bytes[this.offset + i] ?? 0);
    this.offset += size;
    return v;
  }

  /** `n` raw bytes (a view into the source, not a copy). */
  fixedBytes(n: number): Uint8Array {
    this.need(n, `[u8; ${n}]`);
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  /** `Vec<u8>`: u32 length + bytes (a view into the source). */
  bytesVec(): Uint8Array {
    return this.fixedBytes(this.u32());
  }

  string(): string {
    const len = this.u32();
    const at = this.offset;
    const raw = this.fixedBytes(len);
    try {
      return utf8.decode(raw);
    } catch {
      throw new BorshError(`string: invalid UTF-8 in ${len} byte(s) at offset ${at}`);
    }
  }

  vec<T>(readElement: (r: BorshReader) => T): T[] {
    const n = this.u32();
    // Every element takes at least one byte: a count beyond what is left is corrupt data, not
    // something to allocate for.
    if (n > this.remaining) {
      throw new BorshError(`vec: count ${n} at offset ${this.offset - 4} exceeds the ${this.remaining} byte(s) left`);
    }
    const out = new Array<T>(n);
    for (let i = 0; i < n; i++) out[i] = readElement(this);
    return out;
  }

  option<T>(readValue: (r: BorshReader) => T): T | null {
    const tag = this.u8();
    if (tag === 0) return null;
    if (tag === 1) return readValue(this);
    throw new BorshError(`option: invalid tag ${tag} at offset ${this.offset - 1}`);
  }
}

/** The inverse of BorshReader, for the values the devnet simulator stores (and tests build). */
export class BorshWriter {
  private readonly parts: Uint8Array[] = [];

  u8(v: number): this {
    return this.push(Uint8Array.of(v));
  }

  u16(v: number): this {
    const b = new Uint8Array(2);
    new DataView(b.buffer).setUint16(0, v, true);
    return this.push(b);
  }

  u32(v: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, v, true);
    return this.push(b);
  }

  u64(v: bigint): this {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, v, true);
    return this.push(b);
  }

  u128(v: bigint): this {
    if (v < 0n || v >> 128n !== 0n) throw new BorshError(`u128: ${v} out of range`);
    return this.u64(v & 0xffff_ffff_ffff_ffffn).u64(v >> 64n);
  }

  bytesVec(bytes: Uint8Array): this {
    return this.u32(bytes.length).push(bytes);
  }

  string(text: string): this {
    return this.bytesVec(Buffer.from(text, 'utf8'));
  }

  vec<T>(items: readonly T[], write: (w: this, item: T) => void): this {
    this.u32(items.length);
    for (const item of items) write(this, item);
    return this;
  }

  bytes(): Uint8Array {
    return Buffer.concat(this.parts);
  }

  private push(b: Uint8Array): this {
    this.parts.push(b);
    return this;
  }
}

/** Lower-case hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
