// near/vm's storage accounting against evidence from outside it:
//   - wNEAR (near/core-contracts w_near, wrap.near) measures an account's record at `new` with env::storage_usage()
//     before and after one write (near-contract-standards' measure_account_storage_usage), so its
//     storage_balance_bounds depends on nearcore's record accounting (key + value + 40). Mainnet's wrap.near answers
//     min = 0.00125 NEAR = 1250000000000000000000 yocto (NEP-145's example token; the figure the brief and wallets
//     document for wrap.near's storage deposit). The mainnet fixture block 151768255 has a real standard-FT
//     `storage_deposit` of that amount answering {"total":"1250000000000000000000","available":"0"}: ours must
//     answer the same bytes.
//   - Ref (ref-finance/ref-contracts @ 1800d269d8b8449c3ef6900ab22c42f8e62bd6e0, ref-exchange/src/account_deposit.rs):
//     INIT_ACCOUNT_STORAGE = (64 + 4 + 1) + 1 + 16 + 4 + 4 + 8 = 102 bytes, storage_balance_of = {total: near_amount,
//     available: near_amount - 102 x 10^19} for an account with no tokens; storage_balance_bounds min = 102 x 10^19.
//   - nearcore logic.rs @ 015033ab2bcd716baeb046c1176205397f38af3c storage_write/storage_remove: a new record adds
//     key + value + storage_num_extra_bytes_record (40, parameters.snap @ 00fc9501), an overwrite adds
//     new - old value length, a removal takes key + value + 40 back.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Contract, type Outcome } from '../../near/vm/runtime.ts';
import { readFixture } from './helpers.ts';

const wasmOf = (name: string): Uint8Array =>
  new Uint8Array(gunzipSync(readFileSync(new URL(`../../near/vm/wasm/${name}.wasm.gz`, import.meta.url))));
const Y = 10n ** 24n;
const text = (o: Outcome): string => new TextDecoder().decode(o.returnValue ?? new Uint8Array());
function ok(o: Outcome): Outcome {
  if (!o.ok) throw new Error(o.error);
  return o;
}

/** The mainnet storage_deposit outcomes of 151768255 (receiver, attached deposit, returned JSON). */
function mainnetStorageDeposits(): { deposit: bigint; returned: string }[] {
  const out: { deposit: bigint; returned: string }[] = [];
  const message = readFixture('mainnet/151768255.json') as { shards: { receipt_execution_outcomes?: any[] }[] };
  for (const shard of message.shards)
    for (const ro of shard.receipt_execution_outcomes ?? []) {
      const fc = ro.receipt.receipt?.Action?.actions?.[0]?.FunctionCall;
      const value = ro.execution_outcome.outcome.status.SuccessValue;
      if (fc?.method_name === 'storage_deposit' && value !== undefined)
        out.push({ deposit: BigInt(fc.deposit), returned: Buffer.from(value, 'base64').toString() });
    }
  return out;
}

describe('storage usage against mainnet and the contracts\' sources', () => {
  it('wNEAR: storage_balance_bounds is mainnet wrap.near\'s 0.00125 NEAR, measured through near/vm\'s storage_usage', () => {
    const wrap = new Contract('wrap.near', wasmOf('w_near'));
    ok(wrap.call('new', {}, { predecessorId: 'wrap.near' }));
    expect(wrap.viewJson('storage_balance_bounds')).toEqual({ min: '1250000000000000000000', max: '1250000000000000000000' });
  });

  it('wNEAR: registering with the minimum answers what mainnet\'s standard FT answered in block 151768255, byte for byte', () => {
    const mainnet = mainnetStorageDeposits();
    expect(mainnet.length).toBeGreaterThan(0);
    const wrap = new Contract('wrap.near', wasmOf('w_near'));
    ok(wrap.call('new', {}, { predecessorId: 'wrap.near' }));
    for (const [i, m] of mainnet.entries()) {
      const out = ok(wrap.call('storage_deposit', { account_id: `user${i}.near` }, { predecessorId: 'payer.near', attachedDeposit: m.deposit }));
      expect(text(out)).toBe(m.returned);
    }
  });

  it('Ref: storage_balance_bounds and storage_balance_of after a registration follow Ref\'s 102-byte account', () => {
    const ref = new Contract('v2.ref-finance.near', wasmOf('ref_exchange_v1.9.17'), { balance: 1000n * Y });
    ok(ref.call('new', { owner_id: 'owner.near', boost_farm_id: 'boostfarm.ref-labs.near', burrowland_id: 'contract.main.burrow.near', exchange_fee: 1600, referral_fee: 400 }, { predecessorId: 'v2.ref-finance.near' }));
    expect(ref.viewJson('storage_balance_bounds')).toEqual({ min: '1020000000000000000000', max: null });
    expect(ref.viewJson('storage_balance_of', { account_id: 'alice.near' })).toBeNull();
    ok(ref.call('storage_deposit', { account_id: 'alice.near' }, { predecessorId: 'alice.near', attachedDeposit: Y / 10n }));
    expect(ref.viewJson('storage_balance_of', { account_id: 'alice.near' })).toEqual({ total: '100000000000000000000000', available: '98980000000000000000000' });
    // registration_only keeps exactly the minimum (the rest is refunded by a Transfer receipt).
    const only = ok(ref.call('storage_deposit', { account_id: 'bob.near', registration_only: true }, { predecessorId: 'bob.near', attachedDeposit: Y / 10n }));
    expect(ref.viewJson('storage_balance_of', { account_id: 'bob.near' })).toEqual({ total: '1020000000000000000000', available: '0' });
    expect(only.receipts.map((r) => r.actions)).toEqual([[{ kind: 'Transfer', deposit: Y / 10n - 1020000000000000000000n }]]);
  });

  it('one storage write adds key + value + 40 bytes to storage_usage; an overwrite the value difference; a removal takes it back', () => {
    const c = new Contract('probe.near', probeModule(), { instrument: null });
    const before = c.account.storageUsage;
    const key = 'k'.repeat(13);
    const write = ok(c.call('write', `${key}=${'v'.repeat(200)}`, { predecessorId: 'probe.near' }));
    expect(write.storageChanges).toHaveLength(1);
    expect(c.account.storageUsage - before).toBe(13n + 200n + 40n);
    // The contract reads storage_usage() itself after the write: the same figure from inside.
    expect(readU64(write)).toBe(before + 253n);
    ok(c.call('write', `${key}=${'w'.repeat(50)}`, { predecessorId: 'probe.near' }));
    expect(c.account.storageUsage - before).toBe(13n + 50n + 40n);
    const removed = ok(c.call('remove', key, { predecessorId: 'probe.near' }));
    expect(c.account.storageUsage).toBe(before);
    expect(readU64(removed)).toBe(before);
  });
});

const readU64 = (o: Outcome): bigint => new DataView(o.returnValue!.buffer, o.returnValue!.byteOffset, 8).getBigUint64(0, true);

/** `write`: input "key=value" -> storage_write(key, value), returns storage_usage() as u64 LE. `remove`: input is the key. */
function probeModule(): Uint8Array {
  const name = (s: string): number[] => [s.length, ...Buffer.from(s)];
  const section = (id: number, body: number[]): number[] => [id, ...leb(body.length), ...body];
  const leb = (n: number): number[] => (n < 128 ? [n] : [(n & 0x7f) | 0x80, ...leb(n >> 7)]);
  // types: 0 (i64)->(); 1 (i64,i64)->(); 2 (i64 x5)->i64; 3 (i64 x3)->i64; 4 ()->i64; 5 ()->(); 6 (i64)->i64
  const types = section(1, [7,
    0x60, 1, 0x7e, 0,
    0x60, 2, 0x7e, 0x7e, 0,
    0x60, 5, 0x7e, 0x7e, 0x7e, 0x7e, 0x7e, 1, 0x7e,
    0x60, 3, 0x7e, 0x7e, 0x7e, 1, 0x7e,
    0x60, 0, 1, 0x7e,
    0x60, 0, 0,
    0x60, 1, 0x7e, 1, 0x7e]);
  const imports = section(2, [7,
    ...name('env'), ...name('input'), 0, 0,
    ...name('env'), ...name('register_len'), 0, 6,
    ...name('env'), ...name('read_register'), 0, 1,
    ...name('env'), ...name('storage_write'), 0, 2,
    ...name('env'), ...name('storage_remove'), 0, 3,
    ...name('env'), ...name('storage_usage'), 0, 4,
    ...name('env'), ...name('value_return'), 0, 1,
  ]);
  const funcs = section(3, [2, 5, 5]);
  const memory = section(5, [1, 0, 1]);
  const exports = section(7, [3, ...name('memory'), 2, 0, ...name('write'), 0, 7, ...name('remove'), 0, 8]);
  // Common tail: storage_usage() stored as u64 at 1024, value_return(8, 1024).
  const ret = [0x41, 0x80, 0x08, 0x10, 5, 0x37, 3, 0, 0x42, 8, 0x42, 0x80, 0x08, 0x10, 6];
  // write: input(0); read_register(0, 0); find '=' (0x3d) at local 0 by scanning; storage_write(i, 0, len-i-1, i+1, 1).
  const write = [1, 2, 0x7e, // locals: i (0), len (1)
    0x42, 0, 0x10, 0, // input(0)
    0x42, 0, 0x42, 0, 0x10, 2, // read_register(0, 0)
    0x42, 0, 0x10, 1, 0x21, 1, // len = register_len(0)
    0x42, 0, 0x21, 0,
    0x02, 0x40, 0x03, 0x40, // block loop
    0x20, 0, 0xa7, 0x2d, 0, 0, 0x41, 0x3d, 0x46, 0x0d, 1, // if mem[i] == '=' break
    0x20, 0, 0x42, 1, 0x7c, 0x21, 0, 0x0c, 0, // i++ ; continue
    0x0b, 0x0b,
    0x20, 0, 0x42, 0, // key_len = i, key_ptr = 0
    0x20, 1, 0x20, 0, 0x7d, 0x42, 1, 0x7d, // value_len = len - i - 1
    0x20, 0, 0x42, 1, 0x7c, // value_ptr = i + 1
    0x42, 1, 0x10, 3, 0x1a, // storage_write(..., register 1); drop
    ...ret, 0x0b];
  const remove = [0,
    0x42, 0, 0x10, 0, 0x42, 0, 0x42, 0, 0x10, 2, // input(0); read_register(0, 0)
    0x42, 0, 0x10, 1, 0x42, 0, 0x42, 1, 0x10, 4, 0x1a, // storage_remove(register_len(0), 0, 1); drop
    ...ret, 0x0b];
  const code = section(10, [2, ...leb(write.length), ...write, ...leb(remove.length), ...remove]);
  return new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...types, ...imports, ...funcs, ...memory, ...exports, ...code]);
}
