// The vendored release wasm (near/vm/wasm/, SOURCES.md there), gunzipped: the only file of the realnet that reads
// files. Every Ref exchange release the repository keeps, oldest first.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

export const REF_RELEASES = ['1.6.2', '1.7.2', '1.8.0', '1.9.4', '1.9.16', '1.9.17'] as const;
export type RefRelease = (typeof REF_RELEASES)[number];

const WASM_DIR = new URL('../../near/vm/wasm/', import.meta.url);
const cache = new Map<string, Uint8Array>();

/** A vendored wasm by its file name without `.wasm.gz` (`ref_exchange_v1.9.17`, `w_near`, `fungible_token_sdk3.1`). */
export function vendoredWasm(name: string): Uint8Array {
  let wasm = cache.get(name);
  if (wasm === undefined) cache.set(name, (wasm = new Uint8Array(gunzipSync(readFileSync(new URL(`${name}.wasm.gz`, WASM_DIR))))));
  return wasm;
}

export const refWasm = (release: RefRelease): Uint8Array => vendoredWasm(`ref_exchange_v${release}`);

/** A release named on the command line (default the newest); an unknown one is refused with the list. */
export function parseRefRelease(release: string | undefined): RefRelease {
  if (release === undefined || release === '') return REF_RELEASES.at(-1)!;
  const known = REF_RELEASES.find((r) => r === release);
  if (known === undefined) throw new Error(`Ref release "${release}" is not vendored: expected one of ${REF_RELEASES.join(', ')}`);
  return known;
}

/** `swap_by_output` (instant swaps with `amount_out`) came with Ref 1.9.4. */
export const refHasSwapByOutput = (release: RefRelease): boolean => REF_RELEASES.indexOf(release) >= REF_RELEASES.indexOf('1.9.4');

/** The realnet market's contracts: Ref of `release`, the intents verifier, wNEAR, and the near-sdk 3.1 and 4.1 NEP-141 examples. */
export const marketWasm = (release: RefRelease) => ({
  ref: refWasm(release),
  intents: vendoredWasm('defuse_0.2.10'),
  wNear: vendoredWasm('w_near'),
  ftSdk3: vendoredWasm('fungible_token_sdk3.1'),
  ftSdk4: vendoredWasm('fungible_token_sdk4.1'),
});
