// The hash and signature functions a contract may call that Node's crypto lacks or exposes in
// another form: Keccak-256/512 (Ethereum's padding, not SHA-3's), secp256k1 public key recovery
// (nearcore's `ecrecover`) and ed25519 verification over raw 32-byte keys.
import { createHash, createPublicKey, verify as nodeVerify } from 'node:crypto';

// ---- Keccak-f[1600], lanes as (lo, hi) 32-bit halves -------------------------------------------

const RC_LO = new Uint32Array(24);
const RC_HI = new Uint32Array(24);
{
  // Round constants from the LFSR of the Keccak reference.
  let r = 1;
  for (let i = 0; i < 24; i++) {
    let lo = 0;
    let hi = 0;
    for (let j = 0; j < 7; j++) {
      r = ((r << 1) ^ ((r >> 7) * 0x71)) & 0xff;
      if (r & 2) {
        const bit = (1 << j) - 1;
        if (bit < 32) lo ^= 1 << bit;
        else hi ^= 1 << (bit - 32);
      }
    }
    RC_LO[i] = lo >>> 0;
    RC_HI[i] = hi >>> 0;
  }
}
const ROT = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14];

function keccakF(s: Uint32Array): void {
  const bc = new Uint32Array(10);
  const b = new Uint32Array(50);
  for (let round = 0; round < 24; round++) {
    // theta
    for (let x = 0; x < 5; x++) {
      bc[2 * x] = s[2 * x]! ^ s[2 * x + 10]! ^ s[2 * x + 20]! ^ s[2 * x + 30]! ^ s[2 * x + 40]!;
      bc[2 * x + 1] = s[2 * x + 1]! ^ s[2 * x + 11]! ^ s[2 * x + 21]! ^ s[2 * x + 31]! ^ s[2 * x + 41]!;
    }
    for (let x = 0; x < 5; x++) {
      const x1 = (x + 1) % 5;
      const x4 = (x + 4) % 5;
      const lo1 = bc[2 * x1]!;
      const hi1 = bc[2 * x1 + 1]!;
      const tLo = bc[2 * x4]! ^ ((lo1 << 1) | (hi1 >>> 31));
      const tHi = bc[2 * x4 + 1]! ^ ((hi1 << 1) | (lo1 >>> 31));
      for (let y = 0; y < 25; y += 5) {
        s[2 * (y + x)] = s[2 * (y + x)]! ^ tLo;
        s[2 * (y + x) + 1] = s[2 * (y + x) + 1]! ^ tHi;
      }
    }
    // rho and pi
    for (let x = 0; x < 5; x++) {
      for (let y = 0; y < 5; y++) {
        const i = x + 5 * y;
        const lo = s[2 * i]!;
        const hi = s[2 * i + 1]!;
        const r = ROT[i]!;
        let rLo: number;
        let rHi: number;
        if (r === 0) {
          rLo = lo;
          rHi = hi;
        } else if (r < 32) {
          rLo = (lo << r) | (hi >>> (32 - r));
          rHi = (hi << r) | (lo >>> (32 - r));
        } else if (r === 32) {
          rLo = hi;
          rHi = lo;
        } else {
          const q = r - 32;
          rLo = (hi << q) | (lo >>> (32 - q));
          rHi = (lo << q) | (hi >>> (32 - q));
        }
        const j = y + 5 * ((2 * x + 3 * y) % 5);
        b[2 * j] = rLo;
        b[2 * j + 1] = rHi;
      }
    }
    // chi
    for (let y = 0; y < 25; y += 5) {
      for (let x = 0; x < 5; x++) {
        const i = y + x;
        const i1 = y + ((x + 1) % 5);
        const i2 = y + ((x + 2) % 5);
        s[2 * i] = b[2 * i]! ^ (~b[2 * i1]! & b[2 * i2]!);
        s[2 * i + 1] = b[2 * i + 1]! ^ (~b[2 * i1 + 1]! & b[2 * i2 + 1]!);
      }
    }
    // iota
    s[0] = s[0]! ^ RC_LO[round]!;
    s[1] = s[1]! ^ RC_HI[round]!;
  }
}

function keccak(data: Uint8Array, outBytes: number): Uint8Array {
  const rate = 200 - 2 * outBytes;
  const s = new Uint32Array(50);
  const padded = new Uint8Array(Math.floor(data.length / rate + 1) * rate);
  padded.set(data);
  padded[data.length] = padded[data.length]! ^ 0x01;
  padded[padded.length - 1]! ^= 0x80;
  const view = new DataView(padded.buffer);
  for (let off = 0; off < padded.length; off += rate) {
    for (let i = 0; i < rate / 4; i++) s[i]! ^= view.getUint32(off + 4 * i, true);
    keccakF(s);
  }
  const out = new Uint8Array(outBytes);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < outBytes / 4; i++) outView.setUint32(4 * i, s[i]!, true);
  return out;
}

export function keccak256(data: Uint8Array): Uint8Array {
  return keccak(data, 32);
}

export function keccak512(data: Uint8Array): Uint8Array {
  return keccak(data, 64);
}

export function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest());
}

export function sha3_256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha3-256').update(data).digest());
}

export function ripemd160(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('ripemd160').update(data).digest());
}

// ---- secp256k1 ----------------------------------------------------------------------------------

const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const GX = 0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n;
const GY = 0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n;
const N_HALF_ONE = N / 2n + 1n;

type Point = { x: bigint; y: bigint } | null;

function mod(a: bigint, m: bigint): bigint {
  const r = a % m;
  return r < 0n ? r + m : r;
}

function powMod(base: bigint, exp: bigint, m: bigint): bigint {
  let result = 1n;
  let b = mod(base, m);
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return result;
}

function inv(a: bigint, m: bigint): bigint {
  return powMod(a, m - 2n, m);
}

function add(p: Point, q: Point): Point {
  if (p === null) return q;
  if (q === null) return p;
  if (p.x === q.x) {
    if (mod(p.y + q.y, P) === 0n) return null;
    const l = mod(3n * p.x * p.x * inv(2n * p.y, P), P);
    const x = mod(l * l - 2n * p.x, P);
    return { x, y: mod(l * (p.x - x) - p.y, P) };
  }
  const l = mod((q.y - p.y) * inv(q.x - p.x, P), P);
  const x = mod(l * l - p.x - q.x, P);
  return { x, y: mod(l * (p.x - x) - p.y, P) };
}

function mul(p: Point, k: bigint): Point {
  let result: Point = null;
  let addend = p;
  let e = k;
  while (e > 0n) {
    if (e & 1n) result = add(result, addend);
    addend = add(addend, addend);
    e >>= 1n;
  }
  return result;
}

function bytesToBig(b: Uint8Array): bigint {
  let v = 0n;
  for (const byte of b) v = (v << 8n) | BigInt(byte);
  return v;
}

function bigToBytes(v: bigint, len: number): Uint8Array {
  const out = new Uint8Array(len);
  let x = v;
  for (let i = len - 1; i >= 0; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

/**
 * nearcore's `ecrecover`: the 64-byte uncompressed public key (x ‖ y, no 0x04 prefix) that signed
 * `hash` with `sig` (r ‖ s, big-endian) and recovery id `v` (0..3), or null when the signature values
 * are out of range (`r >= n`, `s >= n`, or with `rejectUpper` `s > n/2`) or recovery fails.
 */
export function ecrecover(hash: Uint8Array, sig: Uint8Array, v: number, rejectUpper: boolean): Uint8Array | null {
  const r = bytesToBig(sig.subarray(0, 32));
  const s = bytesToBig(sig.subarray(32, 64));
  if (!(r < N && s < (rejectUpper ? N_HALF_ONE : N))) return null;
  if (r === 0n || s === 0n) return null;
  const x = r + (v & 2 ? N : 0n);
  if (x >= P) return null;
  const alpha = mod(x * x * x + 7n, P);
  let y = powMod(alpha, (P + 1n) / 4n, P);
  if ((y * y) % P !== alpha) return null;
  if ((y & 1n) !== BigInt(v & 1)) y = P - y;
  const e = mod(bytesToBig(hash), N);
  const rInv = inv(r, N);
  const sR = mul({ x, y }, s);
  const eG = mul({ x: GX, y: GY }, mod(-e, N));
  const q = mul(add(sR, eG), rInv);
  if (q === null) return null;
  const out = new Uint8Array(64);
  out.set(bigToBytes(q.x, 32), 0);
  out.set(bigToBytes(q.y, 32), 32);
  return out;
}

// ---- ed25519 ------------------------------------------------------------------------------------

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Verifies an ed25519 signature over `message` with a raw 32-byte public key; false on a key that
 * is not a curve point. nearcore first rejects a signature whose last byte has any of its top three
 * bits set (ed25519-dalek 1.x's check), and so does this. */
export function ed25519Verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if ((signature[63]! & 0b1110_0000) !== 0) return false;
  try {
    const key = createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(publicKey)]),
      format: 'der',
      type: 'spki',
    });
    return nodeVerify(null, message, key, signature);
  } catch {
    return false;
  }
}

// Edwards25519 arithmetic for the staking-key check (nearcore's is_valid_staking_key, through curve25519-dalek).
const EP = (1n << 255n) - 19n;
const ED = mod(-121665n * inv(121666n, EP), EP);
const SQRT_M1 = powMod(2n, (EP - 1n) / 4n, EP);
const ELL = (1n << 252n) + 27742317777372353535851937790883648493n;

type Extended = { x: bigint; y: bigint; z: bigint; t: bigint };

// Unified addition in extended coordinates (a = -1): also correct for doubling and the identity.
function edAdd(p: Extended, q: Extended): Extended {
  const a = mod((p.y - p.x) * (q.y - q.x), EP);
  const b = mod((p.y + p.x) * (q.y + q.x), EP);
  const c = mod(2n * ED * p.t * q.t, EP);
  const d = mod(2n * p.z * q.z, EP);
  const e = b - a;
  const f = d - c;
  const g = d + c;
  const h = b + a;
  return { x: mod(e * f, EP), y: mod(g * h, EP), z: mod(f * g, EP), t: mod(e * h, EP) };
}

/**
 * Whether 32 bytes are a compressed Edwards point (as curve25519-dalek decompresses it: y taken mod p, the sign bit
 * choosing x, -0 allowed) of which ℓ times is the identity (`is_torsion_free`): a valid staking key.
 */
export function isTorsionFreeEd25519(key: Uint8Array): boolean {
  if (key.length !== 32) return false;
  let yRaw = 0n;
  for (let i = 31; i >= 0; i--) yRaw = (yRaw << 8n) | BigInt(key[i]!);
  const sign = yRaw >> 255n;
  const y = mod(yRaw & ((1n << 255n) - 1n), EP);
  const w = mod((y * y - 1n) * inv(ED * y * y + 1n, EP), EP);
  let x = powMod(w, (EP + 3n) / 8n, EP);
  if (mod(x * x, EP) !== w) x = mod(x * SQRT_M1, EP);
  if (mod(x * x, EP) !== w) return false;
  if ((x & 1n) === 1n) x = EP - x;
  if (sign === 1n) x = mod(-x, EP);
  let acc: Extended = { x: 0n, y: 1n, z: 1n, t: 0n };
  let add: Extended = { x, y, z: 1n, t: mod(x * y, EP) };
  for (let k = ELL; k > 0n; k >>= 1n) {
    if (k & 1n) acc = edAdd(acc, add);
    add = edAdd(add, add);
  }
  return acc.x === 0n && acc.y === acc.z;
}
