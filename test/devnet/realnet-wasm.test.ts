// Every vendored release wasm links in near/vm: the constructor throws on an import nearcore does not provide or
// this runtime does not know, so a contract that builds here runs every host call it makes (or fails it as nearcore
// would, for the few listed as unsupported in near/vm/README.md).
import { readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Contract } from '../../near/vm/runtime.ts';

const WASM_DIR = new URL('../../near/vm/wasm/', import.meta.url);
const files = readdirSync(WASM_DIR).filter((f) => f.endsWith('.wasm.gz')).sort();

describe('realnet: every vendored wasm links in near/vm', () => {
  it('vendors the ten release builds', () => {
    expect(files).toHaveLength(10);
  });
  for (const file of files) {
    it(`${file} links, and calls no host function the runtime lacks`, () => {
      const wasm = new Uint8Array(gunzipSync(readFileSync(new URL(file, WASM_DIR))));
      const contract = new Contract('contract.near', wasm);
      expect(contract.methods().length).toBeGreaterThan(5);
      const imports = WebAssembly.Module.imports(new WebAssembly.Module(wasm)).map((i) => i.name);
      // None of the imports is one near/vm links as failing (alt_bn128, bls12381, yield/resume, p256...).
      expect(imports.filter((n) => /^(alt_bn128|bls12381|promise_yield|p256|ml_dsa|sha3_384|sha3_512|storage_iter)/.test(n))).toEqual([]);
    });
  }
  it('the intents verifier 0.2.10 answers a view through its own code', () => {
    const wasm = new Uint8Array(gunzipSync(readFileSync(new URL('defuse_0.2.10.wasm.gz', WASM_DIR))));
    const contract = new Contract('intents.near', wasm);
    expect(contract.methods()).toContain('execute_intents');
    // Not initialised: its views refuse, by the contract's own panic (the runtime ran its code).
    const out = contract.view('mt_balance_of', { account_id: 'a.near', token_id: 'nep141:wrap.near' });
    expect(out.ok).toBe(false);
    expect(out.errorKind).toBe('GuestPanic');
  });
});
