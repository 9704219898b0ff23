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
