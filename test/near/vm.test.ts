// near/vm runs Ref's exchange 1.9.17 (the release wasm vendored in near/vm/wasm/) through its own methods: the
// logs, receipts, storage and gas a swap produces, its failures and their rollback, callbacks, limits. Expected
// amounts are computed here by hand from the pool's inputs, not by the runtime.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { Contract, type Outcome } from '../../near/vm/runtime.ts';
import { PARAMS_V90 } from '../../near/vm/params.ts';

const WASM_DIR = new URL('../../near/vm/wasm/', import.meta.url);
const wasmOf = (name: string): Uint8Array => new Uint8Array(gunzipSync(readFileSync(new URL(`${name}.wasm.gz`, WASM_DIR))));

const REF = 'v2.ref-finance.near';
const OWNER = 'owner.near';
const WNEAR = 'wrap.near';
const SWEAT = 'token.sweat';
const Y = 10n ** 24n;
const TGAS = 10n ** 12n;
const FEE = 30n; // the pool's total fee, in basis points

const text = (b: Uint8Array | null): string => new TextDecoder().decode(b ?? new Uint8Array());
const json = (b: Uint8Array | null): unknown => JSON.parse(text(b));

function ok(out: Outcome): Outcome {
  if (!out.ok) throw new Error(`call failed: ${out.error}`);
  return out;
}

/** Ref's constant-product output for a simple pool, written out from its formula. */
function amountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint, fee: bigint): bigint {
  const inWithFee = amountIn * (10_000n - fee);
  return (inWithFee * reserveOut) / (reserveIn * 10_000n + inWithFee);
}

function swapMsg(actions: { pool_id: number; token_in: string; token_out: string; amount_in?: bigint; min_amount_out: bigint }[]): string {
  return JSON.stringify({
    actions: actions.map((a) => ({
      pool_id: a.pool_id,
      token_in: a.token_in,
      token_out: a.token_out,
      ...(a.amount_in !== undefined ? { amount_in: a.amount_in.toString() } : {}),
      min_amount_out: a.min_amount_out.toString(),
    })),
  });
}

/** A token contract's `ft_transfer_call` delivering `amount` of `token` from `sender` to Ref. */
function ftOnTransfer(ref: Contract, token: string, sender: string, amount: bigint, msg: string, prepaidGas = 150n * TGAS): Outcome {
  return ref.call('ft_on_transfer', { sender_id: sender, amount: amount.toString(), msg }, {
    predecessorId: token,
    signerId: sender,
    prepaidGas,
    outputDataReceivers: [token],
  });
}

const RESERVE_WNEAR = 1_000n * Y;
const RESERVE_SWEAT = 5_000_000n * 10n ** 18n;

/** Ref with one wNEAR/SWEAT simple pool (id 0) filled by alice, and bob registered. */
function refWithPool(): Contract {
  const ref = new Contract(REF, wasmOf('ref_exchange_v1.9.17'), { balance: 1_000n * Y });
  ok(ref.call('new', { owner_id: OWNER, boost_farm_id: 'boostfarm.ref-labs.near', burrowland_id: 'contract.main.burrow.near', exchange_fee: 1600, referral_fee: 400 }, { predecessorId: REF }));
  ok(ref.call('extend_whitelisted_tokens', { tokens: [WNEAR, SWEAT] }, { predecessorId: OWNER, attachedDeposit: 1n }));
  for (const user of ['alice.near', 'bob.near'])
    ok(ref.call('storage_deposit', { account_id: user }, { predecessorId: user, attachedDeposit: Y }));
  const pool = ok(ref.call('add_simple_pool', { tokens: [WNEAR, SWEAT], fee: Number(FEE) }, { predecessorId: 'alice.near', attachedDeposit: Y / 10n }));
  expect(json(pool.returnValue)).toBe(0);
  ok(ftOnTransfer(ref, WNEAR, 'alice.near', RESERVE_WNEAR, ''));
  ok(ftOnTransfer(ref, SWEAT, 'alice.near', RESERVE_SWEAT, ''));
  ok(ref.call('add_liquidity', { pool_id: 0, amounts: [RESERVE_WNEAR.toString(), RESERVE_SWEAT.toString()] }, { predecessorId: 'alice.near', attachedDeposit: 10n ** 22n }));
  return ref;
}

function snapshot(ref: Contract): Map<string, string> {
  return new Map([...ref.storage].map(([k, v]) => [k, Buffer.from(v).toString('hex')]));
}

describe('near/vm: Ref exchange 1.9.17', () => {
  let ref: Contract;
  beforeAll(() => {
    ref = refWithPool();
  });

  it('sets up through its own methods: whitelist, storage, a pool, deposits and liquidity', () => {
    const pool = ref.viewJson<{ token_account_ids: string[]; amounts: string[]; total_fee: number; shares_total_supply: string }>('get_pool', { pool_id: 0 });
    expect(pool.token_account_ids).toEqual([WNEAR, SWEAT]);
    expect(pool.amounts).toEqual([RESERVE_WNEAR.toString(), RESERVE_SWEAT.toString()]);
    expect(pool.total_fee).toBe(30);
    expect(ref.viewJson('get_whitelisted_tokens')).toEqual([WNEAR, SWEAT]);
    // alice deposited everything into the pool.
    expect(ref.viewJson('get_deposits', { account_id: 'alice.near' })).toEqual({ [WNEAR]: '0', [SWEAT]: '0' });
  });

  it('swaps through ft_on_transfer: real log lines, exact receipts, the pool moved by the paid amount', () => {
    const before = ref.viewJson<{ amounts: string[] }>('get_pool', { pool_id: 0 });
    const reserveWnear = BigInt(before.amounts[0]!);
    const reserveSweat = BigInt(before.amounts[1]!);
    const amountIn = 1_234n * 10n ** 18n;
    const expected = amountOut(amountIn, reserveSweat, reserveWnear, FEE);
    const quoted = ref.viewJson<string>('get_return', { pool_id: 0, token_in: SWEAT, amount_in: amountIn.toString(), token_out: WNEAR });
    expect(BigInt(quoted)).toBe(expected);

    const out = ok(ftOnTransfer(ref, SWEAT, 'bob.near', amountIn, swapMsg([{ pool_id: 0, token_in: SWEAT, token_out: WNEAR, amount_in: amountIn, min_amount_out: expected }])));
    expect(text(out.returnValue)).toBe('"0"');
    expect(out.logs[0]).toBe(`Swapped ${amountIn} ${SWEAT} for ${expected} ${WNEAR}`);
    expect(out.logs[1]).toMatch(/^Exchange v2\.ref-finance\.near got \d+ shares, No referral fee$/);
    expect(out.logs).toHaveLength(2);

    expect(out.receipts).toHaveLength(2);
    const [transfer, callback] = out.receipts;
    expect(transfer!.receiverId).toBe(WNEAR);
    expect(transfer!.dependsOn).toEqual([]);
    expect(transfer!.actions).toHaveLength(1);
    const ft = transfer!.actions[0]!;
    if (ft.kind !== 'FunctionCall') throw new Error(ft.kind);
    expect(ft.method).toBe('ft_transfer');
    expect(json(ft.args)).toEqual({ receiver_id: 'bob.near', amount: expected.toString(), memo: null });
    expect(ft.deposit).toBe(1n);
    expect(ft.gas).toBe(20n * TGAS);
    expect(callback!.receiverId).toBe(REF);
    expect(callback!.dependsOn).toEqual([0]);
    const cb = callback!.actions[0]!;
    if (cb.kind !== 'FunctionCall') throw new Error(cb.kind);
    expect(cb.method).toBe('exchange_callback_post_withdraw');
    expect(json(cb.args)).toEqual({ token_id: WNEAR, sender_id: 'bob.near', amount: expected.toString() });
    expect(cb.deposit).toBe(0n);

    const after = ref.viewJson<{ amounts: string[] }>('get_pool', { pool_id: 0 });
    expect(BigInt(after.amounts[0]!)).toBe(reserveWnear - expected);
    expect(BigInt(after.amounts[1]!)).toBe(reserveSweat + amountIn);
    // The next quote follows from the new reserves.
    const next = ref.viewJson<string>('get_return', { pool_id: 0, token_in: SWEAT, amount_in: amountIn.toString(), token_out: WNEAR });
    expect(BigInt(next)).toBe(amountOut(amountIn, reserveSweat + amountIn, reserveWnear - expected, FEE));

    // The pool, the deposit bookkeeping and the exchange's shares were written; bob's temporary deposit removed.
    expect(out.storageChanges.length).toBeGreaterThan(5);
    expect(out.storageChanges.some((c) => c.value === null)).toBe(true);
    const last = new Map(out.storageChanges.map((c) => [Buffer.from(c.key).toString('hex'), c.value]));
    for (const [key, value] of last) {
      const stored = ref.get(Buffer.from(key, 'hex'));
      expect(stored === undefined ? null : Buffer.from(stored).toString('hex')).toBe(value === null ? null : Buffer.from(value).toString('hex'));
    }

    // Gas: what the receipts were given is exactly their execution fees and attached gas on top of burnt gas.
    const f = PARAMS_V90.fees;
    let given = 0n;
    for (const r of out.receipts)
      for (const a of r.actions) {
        if (a.kind !== 'FunctionCall') continue;
        given += f.new_action_receipt.execution + f.function_call_base.execution + f.function_call_byte.execution * BigInt(a.method.length + a.args.length) + a.gas;
      }
    expect(out.usedGas - out.burntGas).toBe(given);
    expect(out.burntGas).toBe(out.vmBurntGas + f.new_action_receipt.execution + f.function_call_base.execution + f.function_call_byte.execution * BigInt('ft_on_transfer'.length + JSON.stringify({ sender_id: 'bob.near', amount: amountIn.toString(), msg: swapMsg([{ pool_id: 0, token_in: SWEAT, token_out: WNEAR, amount_in: amountIn, min_amount_out: expected }]) }).length));
    expect(out.profile.WASM_INSTRUCTION).toBeGreaterThan(500n * 10n ** 9n);
    expect(out.burntGas).toBeGreaterThan(3n * TGAS);
    expect(out.burntGas).toBeLessThan(15n * TGAS);
  });

  it('refuses a swap below min_amount_out with E68 and rolls storage and balance back', () => {
    const state = snapshot(ref);
    const balance = ref.account.amount;
    const usage = ref.account.storageUsage;
    const pool = ref.viewJson<{ amounts: string[] }>('get_pool', { pool_id: 0 });
    const amountIn = 500n * 10n ** 18n;
    const expected = amountOut(amountIn, BigInt(pool.amounts[1]!), BigInt(pool.amounts[0]!), FEE);
    const out = ftOnTransfer(ref, SWEAT, 'bob.near', amountIn, swapMsg([{ pool_id: 0, token_in: SWEAT, token_out: WNEAR, amount_in: amountIn, min_amount_out: expected + 1n }]));
    expect(out.ok).toBe(false);
    expect(out.errorKind).toBe('GuestPanic');
    // near-sdk 3's panic hook adds the location; mainnet block 125229395 has the same failure as
    // "Smart contract panicked: panicked at 'E68: slippage error', ref-exchange/src/simple_pool.rs:284:9".
    expect(out.error).toMatch(/^Smart contract panicked: panicked at 'E68: slippage error', ref-exchange\/src\/simple_pool\.rs:\d+:\d+$/);
    expect(out.receipts).toEqual([]);
    expect(out.storageChanges).toEqual([]);
    expect(out.usedGas).toBe(out.burntGas);
    expect(snapshot(ref)).toEqual(state);
    expect(ref.account.amount).toBe(balance);
    expect(ref.account.storageUsage).toBe(usage);
    expect(ref.viewJson('get_pool', { pool_id: 0 })).toEqual(pool);
    // At exactly the expected amount the same swap goes through.
    ok(ftOnTransfer(ref, SWEAT, 'bob.near', amountIn, swapMsg([{ pool_id: 0, token_in: SWEAT, token_out: WNEAR, amount_in: amountIn, min_amount_out: expected }])));
  });

  it('exchange_callback_post_withdraw with a failed ft_transfer gives the tokens back to the trader', () => {
    const before = ref.viewJson<Record<string, string>>('get_deposits', { account_id: 'bob.near' });
    const amount = 777n * 10n ** 18n;
    const args = { token_id: WNEAR, sender_id: 'bob.near', amount: amount.toString() };
    const failed = ok(ref.call('exchange_callback_post_withdraw', args, { predecessorId: REF, promiseResults: [{ status: 'failed' }] }));
    const after = ref.viewJson<Record<string, string>>('get_deposits', { account_id: 'bob.near' });
    expect(BigInt(after[WNEAR] ?? '0')).toBe(BigInt(before[WNEAR] ?? '0') + amount);
    expect(failed.receipts).toEqual([]);
    // A successful transfer changes nothing.
    ok(ref.call('exchange_callback_post_withdraw', args, { predecessorId: REF, promiseResults: [{ status: 'successful', value: '' }] }));
    expect(ref.viewJson('get_deposits', { account_id: 'bob.near' })).toEqual(after);
    // It is private: anyone else is refused.
    const stranger = ref.call('exchange_callback_post_withdraw', args, { predecessorId: 'bob.near', promiseResults: [{ status: 'failed' }] });
    expect(stranger.ok).toBe(false);
    expect(stranger.error).toMatch(/^Smart contract panicked: .*private/i);
  });

  it('fails a call that logs more than 100 lines as nearcore does, keeping the 100 logged', () => {
    const state = snapshot(ref);
    // 51 actions back and forth on the pool: two log lines each, so the 101st line is refused.
    const actions = Array.from({ length: 51 }, (_, i) => ({
      pool_id: 0,
      token_in: i % 2 === 0 ? SWEAT : WNEAR,
      token_out: i % 2 === 0 ? WNEAR : SWEAT,
      ...(i === 0 ? { amount_in: 10n ** 18n } : {}),
      min_amount_out: 0n,
    }));
    const out = ftOnTransfer(ref, SWEAT, 'bob.near', 10n ** 18n, swapMsg(actions), 300n * TGAS);
    expect(out.ok).toBe(false);
    expect(out.errorKind).toBe('NumberOfLogsExceeded');
    expect(out.error).toBe('The number of logs will exceed the limit 100');
    expect(out.logs).toHaveLength(100);
    expect(out.logs[98]).toMatch(/^Swapped \d+ wrap\.near for \d+ token\.sweat$/);
    expect(snapshot(ref)).toEqual(state);
  });

  it('runs each call in a fresh instance: a trap leaves nothing behind', () => {
    const n = ref.instances;
    const bad = ref.call('add_liquidity', '{not json', { predecessorId: 'alice.near', attachedDeposit: 10n ** 22n });
    expect(bad.ok).toBe(false);
    expect(bad.errorKind).toBe('GuestPanic');
    const v1 = ref.view('get_pool', { pool_id: 0 });
    const v2 = ref.view('get_pool', { pool_id: 0 });
    expect(ref.instances).toBe(n + 3);
    expect(text(v1.returnValue)).toBe(text(v2.returnValue));
    expect(v1.burntGas).toBe(v2.burntGas);
    expect(v1.profile).toEqual(v2.profile);
  });

  it('refuses state changes and transaction context in views', () => {
    const state = snapshot(ref);
    const out = ref.view('add_simple_pool', { tokens: [WNEAR, SWEAT], fee: 5 });
    expect(out.ok).toBe(false);
    expect(out.errorKind).toBe('ProhibitedInView');
    expect(out.error).toBe('storage_write is not allowed in view calls');
    expect(snapshot(ref)).toEqual(state);
    expect(ref.view('get_deposits', { account_id: 'carol.near' }).ok).toBe(true);
  });

  it('stops at the prepaid gas, burning exactly all of it, and at a missing method', () => {
    const state = snapshot(ref);
    const prepaidGas = 2n * TGAS;
    const out = ftOnTransfer(ref, SWEAT, 'bob.near', 10n ** 18n, swapMsg([{ pool_id: 0, token_in: SWEAT, token_out: WNEAR, amount_in: 10n ** 18n, min_amount_out: 0n }]), prepaidGas);
    expect(out.ok).toBe(false);
    expect(out.errorKind).toBe('GasExceeded');
    expect(out.error).toBe('Exceeded the prepaid gas.');
    expect(out.vmBurntGas).toBe(prepaidGas);
    expect(snapshot(ref)).toEqual(state);
    const missing = ref.call('no_such_method', {}, { predecessorId: 'bob.near' });
    expect(missing.errorKind).toBe('MethodNotFound');
    // Loading the contract was paid all the same.
    expect(missing.vmBurntGas).toBe(PARAMS_V90.ext.contract_loading_base + PARAMS_V90.ext.contract_loading_bytes * BigInt(ref.codeLength));
  });
});

describe('near/vm: the NEP-141 example of near-sdk 4.1 (gas weights)', () => {
  it('ft_transfer_call hands the unused gas to its two weighted calls, as nearcore distributes it', () => {
    const ft = new Contract('ft.near', wasmOf('fungible_token_sdk4.1'));
    ok(ft.call('new_default_meta', { owner_id: 'alice.near', total_supply: (10n ** 30n).toString() }, { predecessorId: 'ft.near' }));
    ok(ft.call('storage_deposit', { account_id: REF }, { predecessorId: 'alice.near', attachedDeposit: Y / 100n }));
    const prepaidGas = 100n * TGAS;
    const out = ok(ft.call('ft_transfer_call', { receiver_id: REF, amount: '1000', msg: '' }, { predecessorId: 'alice.near', attachedDeposit: 1n, prepaidGas }));
    expect(out.logs[0]).toMatch(/^EVENT_JSON:\{"standard":"nep141".*"event":"ft_transfer"/);
    const [call, resolve] = out.receipts;
    expect(call!.receiverId).toBe(REF);
    expect(resolve!.receiverId).toBe('ft.near');
    expect(resolve!.dependsOn).toEqual([0]);
    const a = call!.actions[0]!;
    const b = resolve!.actions[0]!;
    if (a.kind !== 'FunctionCall' || b.kind !== 'FunctionCall') throw new Error('not function calls');
    expect(a.method).toBe('ft_on_transfer');
    expect(a.gasWeight).toBe(1n);
    expect(b.method).toBe('ft_resolve_transfer');
    expect(b.gasWeight).toBe(1n);
    // All the prepaid gas is used: what the VM did not burn or give away went to the two calls, half each,
    // the odd unit to the last (ReceiptManager::distribute_gas).
    expect(out.vmUsedGas).toBe(prepaidGas);
    // near-sdk 4.1's FT: ft_on_transfer gets prepaid - 30 TGas static, ft_resolve_transfer 5 TGas static.
    const extraA = a.gas - (prepaidGas - 30n * TGAS);
    const extraB = b.gas - 5n * TGAS;
    expect(extraA).toBeGreaterThan(0n);
    expect(extraB - extraA === 0n || extraB - extraA === 1n).toBe(true);
  });
});
