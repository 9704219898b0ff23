// The hash and signature functions near/vm's host functions use where Node's crypto has none.
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ecrecover, ed25519Verify, keccak256, keccak512 } from '../../near/vm/crypto.ts';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('near/vm crypto', () => {
  it('keccak256 and keccak512 give the published test vectors (Keccak padding, not SHA-3)', () => {
    expect(hex(keccak256(new Uint8Array()))).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(hex(keccak256(Buffer.from('abc')))).toBe('4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
    expect(hex(keccak512(new Uint8Array()))).toBe(
      '0eab42de4c3ceb9235fc91acffe746b29c29a8c366b7c60e4e67c466f36a4304c00fa9caf9d87976ba469bcbe06713b435f091ef2769fb160cdab33d3670680e',
    );
    // Longer than one block (136 bytes) and not SHA3-256.
    const long = new Uint8Array(300).fill(7);
    expect(hex(keccak256(long))).not.toBe(createHash('sha3-256').update(long).digest('hex'));
  });

  it('ecrecover recovers the key that signed, with one of the recovery ids, and refuses high s when asked', () => {
    for (let i = 0; i < 3; i++) {
      const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
      const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
      const want = Buffer.concat([Buffer.from(jwk.x, 'base64url'), Buffer.from(jwk.y, 'base64url')]).toString('hex');
      const message = Buffer.from(`message ${i}`);
      const hash = createHash('sha256').update(message).digest();
      const sig = sign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' });
      const found = [0, 1].filter((v) => {
        const pk = ecrecover(hash, sig, v, false);
        return pk !== null && hex(pk) === want;
      });
      expect(found).toHaveLength(1);
    }
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const sig = new Uint8Array(64);
    sig[31] = 1;
    sig.set(Buffer.from((n - 1n).toString(16).padStart(64, '0'), 'hex'), 32);
    expect(ecrecover(new Uint8Array(32), sig, 0, true)).toBeNull();
  });

  it('ed25519Verify checks a raw 32-byte key and rejects a signature with its top bits set, as nearcore does', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
    const message = Buffer.from('hello');
    const sig = sign(null, message, privateKey);
    expect(ed25519Verify(sig, message, raw)).toBe(true);
    expect(ed25519Verify(sig, Buffer.from('hellp'), raw)).toBe(false);
    const bad = Buffer.from(sig);
    bad[63] = bad[63]! | 0xe0;
    expect(ed25519Verify(bad, message, raw)).toBe(false);
  });
});
