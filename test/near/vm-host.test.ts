// near/vm's host functions on a module assembled here byte by byte, run unmetered so that the burnt gas is only
// the host's charges: each one worked out by hand from nearcore's logic.rs and the protocol 90 parameters.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PARAMS_V90 } from '../../near/vm/params.ts';
import { Contract } from '../../near/vm/runtime.ts';

const name = (s: string): number[] => [s.length, ...Buffer.from(s)];
const section = (id: number, body: number[]): number[] => [id, body.length, ...body];

/** A module importing input, sha256, value_return and log_utf8 from env; `hash` returns sha256(input) and logs
 * "hi" (two bytes at address 0, from a data segment). */
function hashModule(): Uint8Array {
  const types = section(1, [4, 0x60, 1, 0x7e, 0, 0x60, 3, 0x7e, 0x7e, 0x7e, 0, 0x60, 2, 0x7e, 0x7e, 0, 0x60, 0, 0]);
  const imports = section(2, [
    4,
    ...name('env'), ...name('input'), 0, 0,
    ...name('env'), ...name('sha256'), 0, 1,
    ...name('env'), ...name('value_return'), 0, 2,
    ...name('env'), ...name('log_utf8'), 0, 2,
  ]);
  const functions = section(3, [1, 3]);
  const memory = section(5, [1, 0, 1]);
  const exports = section(7, [2, ...name('memory'), 2, 0, ...name('hash'), 0, 4]);
  const body = [
    0,
    0x42, 0, 0x10, 0, // input(0)
    0x42, 0x7f, 0x42, 0, 0x42, 1, 0x10, 1, // sha256(u64::MAX, 0, 1): hash register 0 into register 1
    0x42, 2, 0x42, 0, 0x10, 3, // log_utf8(2, 0)
    0x42, 0x7f, 0x42, 1, 0x10, 2, // value_return(u64::MAX, 1)
    0x0b,
  ];
  const code = section(10, [1, body.length, ...body]);
  const data = section(11, [1, 0, 0x41, 0, 0x0b, 2, ...Buffer.from('hi')]);
  return new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...types, ...imports, ...functions, ...memory, ...exports, ...code, ...data]);
}

describe('near/vm host functions', () => {
  it('charges input, sha256 over a register, log_utf8 and value_return exactly as nearcore', () => {
    const wasm = hashModule();
    const c = new Contract('hash.near', wasm, { instrument: null });
    const input = new TextEncoder().encode('some input bytes');
    const out = c.call('hash', input, { predecessorId: 'alice.near' });
    expect(out.ok).toBe(true);
    expect(Buffer.from(out.returnValue!).toString('hex')).toBe(createHash('sha256').update(input).digest('hex'));
    expect(out.logs).toEqual(['hi']);
    const e = PARAMS_V90.ext;
    const n = BigInt(input.length);
    const expected =
      e.contract_loading_base + e.contract_loading_bytes * BigInt(wasm.length) +
      // input: base + write_register_base (no bytes: deterministic_account_ids)
      e.base + e.write_register_base +
      // sha256 of register 0 into register 1
      e.sha256_base + e.read_register_base + e.read_register_byte * n + e.sha256_byte * n + e.write_register_base + e.write_register_byte * 32n +
      // log_utf8 of 2 bytes of memory
      e.base + e.utf8_decoding_base + e.read_memory_base + e.read_memory_byte * 2n + e.utf8_decoding_byte * 2n + e.log_base + e.log_byte * 2n +
      // value_return from register 1, nobody waiting on it
      e.base + e.read_register_base + e.read_register_byte * 32n;
    expect(out.vmBurntGas).toBe(expected);
    expect(out.profile.WASM_INSTRUCTION).toBe(0n);
    // A caller waiting on the value pays its bytes: 32 × (send not-sir + exec) of a data receipt byte.
    const waited = c.call('hash', input, { predecessorId: 'alice.near', outputDataReceivers: ['other.near'] });
    const f = PARAMS_V90.fees.new_data_receipt_byte;
    expect(waited.vmBurntGas - out.vmBurntGas).toBe(32n * (f.sendNotSir + f.execution));
  });

  it('metered, the same call also pays its wasm instructions', () => {
    const c = new Contract('hash.near', hashModule());
    const out = c.call('hash', 'x', { predecessorId: 'alice.near' });
    expect(out.ok).toBe(true);
    // 4 host calls and their 13 argument pushes: some dozens of instructions at 822,756 each, frame entry included.
    expect(out.profile.WASM_INSTRUCTION! % PARAMS_V90.regularOpCost).toBe(0n);
    expect(out.profile.WASM_INSTRUCTION! / PARAMS_V90.regularOpCost).toBeGreaterThan(10n);
  });

  it('refuses a module importing a host function nearcore does not have', () => {
    const wasm = hashModule();
    const bad = Buffer.from(wasm);
    const at = bad.indexOf(Buffer.from('log_utf8'));
    bad.write('log_utfX', at);
    expect(() => new Contract('bad.near', new Uint8Array(bad), { instrument: null })).toThrow(/env\.log_utfX/);
  });
});
