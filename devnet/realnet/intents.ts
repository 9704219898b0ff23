// Actors' ed25519 keys and NEP-413 signed intents for the NEAR Intents verifier (`intents.near`, defuse 0.2.10),
// so the verifier's own code checks real signatures (near/vm's `ed25519_verify`). Keys come from the seed and the
// account: the same seed, the same keys and signatures (ed25519 signs deterministically).
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { base58Encode } from '../../near/base58.ts';

export interface ActorKey {
  privateKey: KeyObject;
  /** `ed25519:<base58>` of the raw 32-byte public key. */
  publicKey: string;
}

/** PKCS#8 DER prefix of an ed25519 private key given by its 32-byte seed (RFC 8410). */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

export function actorKey(seed: string, accountId: string): ActorKey {
  const raw = createHash('sha256').update(`${seed}|ed25519|${accountId}`).digest();
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, raw]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return { privateKey, publicKey: `ed25519:${base58Encode(spki.subarray(spki.length - 32))}` };
}

const borshString = (s: string): Buffer => {
  const bytes = Buffer.from(s, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(bytes.length);
  return Buffer.concat([length, bytes]);
};

/** NEP-413's tag: 2^31 + 413, a u32 little-endian prefix of the signed borsh payload. */
const NEP413_TAG = 2 ** 31 + 413;

export interface SignedIntents {
  standard: 'nep413';
  payload: { message: string; nonce: string; recipient: string };
  public_key: string;
  signature: string;
}

/**
 * `intents` of `signerId` signed as the verifier's `execute_intents` takes them (NEP-413: sha256 of borsh(tag,
 * message, nonce, recipient, callback_url None), signed with ed25519). `nonceText` makes the 32-byte nonce (each
 * nonce is accepted once); `deadline` is an RFC 3339 time.
 */
export function signIntents(key: ActorKey, signerId: string, verifierId: string, intents: unknown[], deadline: string, nonceText: string): SignedIntents {
  return signMessage(key, JSON.stringify({ signer_id: signerId, deadline, intents }), verifierId, nonceText);
}

/** A NEP-413 message text (a route's `message_to_sign`, say) signed for `verifierId`, as `signIntents` signs. */
export function signMessage(key: ActorKey, message: string, verifierId: string, nonceText: string): SignedIntents {
  const nonce = createHash('sha256').update(nonceText).digest();
  const tag = Buffer.alloc(4);
  tag.writeUInt32LE(NEP413_TAG);
  const hash = createHash('sha256').update(Buffer.concat([tag, borshString(message), nonce, borshString(verifierId), Buffer.from([0])])).digest();
  const signature = sign(null, hash, key.privateKey);
  return { standard: 'nep413', payload: { message, nonce: nonce.toString('base64'), recipient: verifierId }, public_key: key.publicKey, signature: `ed25519:${base58Encode(signature)}` };
}
