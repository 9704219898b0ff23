// Ref's exchange as the chain runs it: its release wasm (near/vm/wasm/) in near/vm, its pools made through its own
// methods (`add_simple_pool`, deposits through `ft_on_transfer`, `add_liquidity`), a trader's instant swap executed
// exactly as the token's `ft_transfer_call` delivers it, and other accounts' swaps that move the market before it.
// What a swap pays is read off the receipts the contract creates (its `ft_transfer` to the trader), never computed
// here.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { Contract, type Outcome } from '../../near/vm/runtime.ts';

export const REF_RELEASES = ['1.9.17'] as const;
export type RefRelease = (typeof REF_RELEASES)[number];

const WASM_DIR = new URL('../../near/vm/wasm/', import.meta.url);
/** A vendored release wasm (`ref_exchange_v1.9.17`), gunzipped. */
export const wasmOf = (name: string): Uint8Array => new Uint8Array(gunzipSync(readFileSync(new URL(`${name}.wasm.gz`, WASM_DIR))));

export const REF = 'v2.ref-finance.near';
const OWNER = 'owner.near';
const LP = 'lp.near';
/** The account whose swaps move the market before the trader's. */
export const MOVER = 'mover.near';
const Y = 10n ** 24n;
const TGAS = 10n ** 12n;
/** Filler pools stand at the ids the snapshot has no simple pool for (Ref's pool ids are a vector's indices). */
const FILLER: [string, string] = ['filler-a.near', 'filler-b.near'];
/** What the mover holds of every token, inside the exchange. */
const MOVER_BALANCE = 10n ** 36n;
/** Who holds the stand-in token. */
const TRADER_OF_TOKEN = 'holder.near';

export interface SimplePool {
  id: number;
  tokens: [string, string];
  amounts: [bigint, bigint];
  /** Total fee, basis points. */
  fee: number;
}

/** One action of an instant swap's msg, as the api sends it. */
export interface SwapAction {
  pool_id: number;
  token_in: string;
  token_out: string;
  amount_in?: string;
  min_amount_out: string;
}

/** A trader's instant swap as the chain ran it. */
export interface SwapResult {
  outcome: Outcome;
  /** What the exchange sent the trader, per token (its `ft_transfer` receipts). */
  paid: Map<string, bigint>;
}

function ok(out: Outcome, what: string): Outcome {
  if (!out.ok) throw new Error(`${what}: ${out.error}`);
  return out;
}

/** Every receipt of a swap transaction as the contracts ran it, with what each burnt. */
export interface SwapTransaction {
  /** The receipts in order: the token's `ft_transfer_call`, the exchange's `ft_on_transfer`, then what it created
   * (the output's `ft_transfer`, `exchange_callback_post_withdraw`) and the token's `ft_resolve_transfer`. */
  receipts: { method: string; prepaid: bigint; outcome: Outcome }[];
  /** Gas burnt by all of them. */
  burnt: bigint;
}

/** An AmmA quote as the trader signs it: the input token's `ft_transfer_call` to the exchange. */
export interface SignedSwap {
  tokenIn: string;
  tokenOut: string;
  amount: bigint;
  msg: string;
  actions: SwapAction[];
  /** The gas the call attaches. */
  gas: bigint;
  estimated: bigint;
  worst: bigint;
}

/** The quote JSON fields a signed swap is read from (service-spec.md's quote object). */
export interface QuoteFields {
  estimated_amount: Record<string, string>;
  worst_case_amount: Record<string, string>;
  execution_instructions: { NearTransaction?: { receiver_id: string; actions: { FunctionCall: { method_name: string; args: string; gas: number } }[] } }[];
}

/** The `ft_transfer_call` of `tokenIn` to the exchange in an AmmA quote; throws when there is not exactly one. */
export function signedSwap(quote: QuoteFields, tokenIn: string, tokenOut: string): SignedSwap {
  const calls = quote.execution_instructions.flatMap(({ NearTransaction: tx }) =>
    tx?.receiver_id === tokenIn ? tx.actions.map((a) => a.FunctionCall).filter((c) => c.method_name === 'ft_transfer_call') : [],
  );
  if (calls.length !== 1) throw new Error(`expected one ft_transfer_call of ${tokenIn}, found ${calls.length}`);
  const call = calls[0]!;
  const { receiver_id, amount, msg } = JSON.parse(Buffer.from(call.args, 'base64').toString('utf8')) as { receiver_id: string; amount: string; msg: string };
  if (receiver_id !== REF) throw new Error(`the swap goes to ${receiver_id}, not the exchange`);
  return {
    tokenIn,
    tokenOut,
    amount: BigInt(amount),
    msg,
    actions: (JSON.parse(msg) as { actions: SwapAction[] }).actions,
    gas: BigInt(call.gas),
    estimated: BigInt(quote.estimated_amount.amount_out!),
    worst: BigInt(quote.worst_case_amount.amount_out!),
  };
}

/** How a quote fared on a market that moved before it: paid (at least its worst case, or the check fails), failed on
 * an intermediate step (any failure but the slippage check), or refused by a minimum where what it would have paid
 * without the minimums was at least its worst case, or really below it. */
export type Verdict = 'ok' | 'intermediate failure' | 'refused within slippage' | 'refused below it';
export const VERDICTS: readonly Verdict[] = ['ok', 'intermediate failure', 'refused within slippage', 'refused below it'];

/** What the token forwards to the exchange of the gas the call attaches (near-contract-standards keeps 30 TGas). */
export const forwardedGas = (attached: bigint): bigint => attached - 30n * TGAS;

export class RefExchange {
  readonly contract: Contract;
  /** A NEP-141 token (near-sdk 4.1's example) that stands in for every token's own calls when a transaction's gas is
   * metered: the trader holds it and the exchange is registered with it. */
  readonly token: Contract;

  private constructor(release: RefRelease) {
    this.contract = new Contract(REF, wasmOf(`ref_exchange_v${release}`), { balance: 10n ** 9n * Y });
    this.token = new Contract('token.near', wasmOf('fungible_token_sdk4.1'));
    ok(this.token.call('new_default_meta', { owner_id: TRADER_OF_TOKEN, total_supply: (10n ** 38n).toString() }, { predecessorId: 'token.near' }), 'token');
    for (const account of [REF, 'trader.near']) ok(this.token.call('storage_deposit', { account_id: account }, { predecessorId: TRADER_OF_TOKEN, attachedDeposit: Y / 100n }), 'token registration');
    ok(this.token.call('ft_transfer', { receiver_id: REF, amount: (10n ** 37n).toString() }, { predecessorId: TRADER_OF_TOKEN, attachedDeposit: 1n }), 'token balance of the exchange');
  }

  /** The exchange holding `pools` at their ids (fillers between), made by its own methods, and the mover funded. */
  static withPools(pools: readonly SimplePool[], release: RefRelease = '1.9.17'): RefExchange {
    const ref = new RefExchange(release);
    const c = ref.contract;
    ok(c.call('new', { owner_id: OWNER, boost_farm_id: 'boostfarm.ref-labs.near', burrowland_id: 'contract.main.burrow.near', exchange_fee: 1600, referral_fee: 400 }, { predecessorId: REF }), 'new');
    const tokens = [...new Set([...pools.flatMap((p) => p.tokens), ...FILLER])].sort();
    ok(c.call('extend_whitelisted_tokens', { tokens }, { predecessorId: OWNER, attachedDeposit: 1n }), 'extend_whitelisted_tokens');
    for (const account of [LP, MOVER]) ok(c.call('storage_deposit', { account_id: account }, { predecessorId: account, attachedDeposit: 10n ** 6n * Y }), 'storage_deposit');
    const byId = new Map(pools.map((p) => [p.id, p]));
    const last = Math.max(-1, ...byId.keys());
    for (let id = 0; id <= last; id++) {
      const pool = byId.get(id);
      const added = ok(c.call('add_simple_pool', { tokens: pool?.tokens ?? FILLER, fee: pool?.fee ?? 30 }, { predecessorId: LP, attachedDeposit: Y / 10n }), 'add_simple_pool');
      if (JSON.parse(new TextDecoder().decode(added.returnValue!)) !== id) throw new Error(`add_simple_pool: expected pool ${id}`);
      if (pool === undefined) continue;
      pool.tokens.forEach((token, i) => ref.deposit(LP, token, pool.amounts[i]!));
      ok(c.call('add_liquidity', { pool_id: id, amounts: pool.amounts.map(String) }, { predecessorId: LP, attachedDeposit: Y / 100n }), `add_liquidity ${id}`);
    }
    for (const token of tokens) ref.deposit(MOVER, token, MOVER_BALANCE);
    return ref;
  }

  /** `amount` of `token` into `account`'s balance in the exchange, as the token's `ft_transfer_call` with no msg. */
  deposit(account: string, token: string, amount: bigint): void {
    ok(this.contract.call('ft_on_transfer', { sender_id: account, amount: amount.toString(), msg: '' }, { predecessorId: token, signerId: account }), `deposit of ${token}`);
  }

  /** The exchange's state (storage and account), to come back to. */
  save(): () => void {
    const storage = new Map(this.contract.storage);
    const account = { ...this.contract.account };
    return () => {
      this.contract.storage.clear();
      for (const [k, v] of storage) this.contract.storage.set(k, v);
      Object.assign(this.contract.account, account);
    };
  }

  /** A pool's reserves, by its own view. */
  poolAmounts(poolId: number): bigint[] {
    return this.contract.viewJson<{ amounts: string[] }>('get_pool', { pool_id: poolId }).amounts.map(BigInt);
  }

  /**
   * The trader's instant swap: the token's `ft_transfer_call` delivers `amount` of `tokenIn` with `msg` to the
   * exchange's `ft_on_transfer`, with `prepaidGas` (what the token forwards).
   */
  instantSwap(trader: string, tokenIn: string, amount: bigint, msg: string, prepaidGas = 150n * TGAS): SwapResult {
    const outcome = this.contract.call('ft_on_transfer', { sender_id: trader, amount: amount.toString(), msg }, { predecessorId: tokenIn, signerId: trader, prepaidGas, outputDataReceivers: [tokenIn] });
    const paid = new Map<string, bigint>();
    for (const receipt of outcome.receipts) {
      for (const action of receipt.actions) {
        if (action.kind !== 'FunctionCall' || action.method !== 'ft_transfer') continue;
        const args = JSON.parse(new TextDecoder().decode(action.args)) as { receiver_id: string; amount: string };
        if (args.receiver_id === trader) paid.set(receipt.receiverId, (paid.get(receipt.receiverId) ?? 0n) + BigInt(args.amount));
      }
    }
    return { outcome, paid };
  }

  /**
   * The whole transaction of a trader's instant swap, each receipt run by its contract's wasm with the gas its
   * creator gave it: the input token's `ft_transfer_call` with `attachedGas`, the exchange's `ft_on_transfer` with
   * what the token forwarded, the receipts the exchange created with theirs, and the token's resolve. The token's
   * calls run on the stand-in token (its gas differs from a real token's by the bytes of the ids).
   */
  swapTransaction(trader: string, tokenIn: string, amount: bigint, msg: string, attachedGas: bigint): SwapTransaction {
    const receipts: SwapTransaction['receipts'] = [];
    const record = (method: string, prepaid: bigint, outcome: Outcome) => receipts.push({ method, prepaid, outcome });
    const transfer = this.token.call('ft_transfer_call', { receiver_id: REF, amount: amount.toString(), msg }, { predecessorId: TRADER_OF_TOKEN, signerId: trader, attachedDeposit: 1n, prepaidGas: attachedGas });
    record('ft_transfer_call', attachedGas, transfer);
    const [onTransfer, resolve] = transfer.receipts.map((r) => r.actions[0]!);
    if (onTransfer?.kind !== 'FunctionCall' || resolve?.kind !== 'FunctionCall') return { receipts, burnt: transfer.burntGas };
    const swap = this.instantSwap(trader, tokenIn, amount, msg, onTransfer.gas).outcome;
    record('ft_on_transfer', onTransfer.gas, swap);
    for (const receipt of swap.receipts) {
      for (const action of receipt.actions) {
        if (action.kind !== 'FunctionCall') continue;
        const args = JSON.parse(new TextDecoder().decode(action.args)) as Record<string, unknown>;
        const ctx = { predecessorId: REF, signerId: trader, attachedDeposit: action.deposit, prepaidGas: action.gas };
        if (action.method === 'ft_transfer') record('ft_transfer', action.gas, this.token.call('ft_transfer', args, ctx));
        else record(action.method, action.gas, this.contract.call(action.method, args, { ...ctx, promiseResults: [{ status: 'successful', value: '' }] }));
      }
    }
    const unused = swap.ok && swap.returnValue !== null ? new TextDecoder().decode(swap.returnValue) : `"${amount}"`;
    const resolved = this.token.call('ft_resolve_transfer', { sender_id: TRADER_OF_TOKEN, receiver_id: REF, amount: amount.toString() }, { predecessorId: 'token.near', signerId: trader, prepaidGas: resolve.gas, promiseResults: [{ status: 'successful', value: unused }] });
    record('ft_resolve_transfer', resolve.gas, resolved);
    return { receipts, burnt: receipts.reduce((sum, r) => sum + r.outcome.burntGas, 0n) };
  }

  /**
   * `swap` executed by `trader` after `start()` (which sets the market: the unmoved pools restored, then moves),
   * judged: its verdict, and what it paid of its output.
   */
  judge(trader: string, swap: SignedSwap, start: () => void): { verdict: Verdict; paid: bigint } {
    start();
    const { outcome, paid } = this.instantSwap(trader, swap.tokenIn, swap.amount, swap.msg, forwardedGas(swap.gas));
    const out = paid.get(swap.tokenOut) ?? 0n;
    if (outcome.ok) {
      if (out < swap.worst) throw new Error(`${swap.tokenIn} -> ${swap.tokenOut} paid ${out}, below its worst case ${swap.worst}`);
      return { verdict: 'ok', paid: out };
    }
    if (!/E68: slippage error/.test(outcome.error ?? '')) return { verdict: 'intermediate failure', paid: 0n };
    // What it would have paid without the minimums, on the same market.
    start();
    const free = JSON.stringify({ ...JSON.parse(swap.msg), actions: swap.actions.map((a) => ({ ...a, min_amount_out: '0' })) });
    const unchecked = this.instantSwap(trader, swap.tokenIn, swap.amount, free, forwardedGas(swap.gas));
    if (!unchecked.outcome.ok) return { verdict: 'intermediate failure', paid: 0n };
    return { verdict: (unchecked.paid.get(swap.tokenOut) ?? 0n) >= swap.worst ? 'refused within slippage' : 'refused below it', paid: 0n };
  }

  /**
   * Another account sells `tokenIn` for `tokenOut` in pool `poolId` until the pool's spot price of `tokenIn` (in
   * `tokenOut`) has fallen by `fraction` (0.001: 0.1%): the market moving against a route that trades that way.
   */
  move(poolId: number, tokenIn: string, tokenOut: string, fraction: number): void {
    const pool = this.contract.viewJson<{ token_account_ids: string[]; amounts: string[]; total_fee: number }>('get_pool', { pool_id: poolId });
    const x = Number(BigInt(pool.amounts[pool.token_account_ids.indexOf(tokenIn)]!));
    const g = 1 - pool.total_fee / 10_000;
    // After selling d: spot (y − out)/(x + d) = y·x / ((x + g·d)(x + d)), which is (1 − fraction)·y/x when
    // g·d² + x(1 + g)·d + x²(1 − 1/(1 − fraction)) = 0.
    const c = x * x * (1 - 1 / (1 - fraction));
    const d = (-x * (1 + g) + Math.sqrt(x * x * (1 + g) ** 2 - 4 * g * c)) / (2 * g);
    const amount = BigInt(Math.ceil(d));
    if (amount <= 0n) return;
    ok(
      this.contract.call('swap', { actions: [{ pool_id: poolId, token_in: tokenIn, token_out: tokenOut, amount_in: amount.toString(), min_amount_out: '0' }] }, { predecessorId: MOVER, signerId: MOVER, attachedDeposit: 1n }),
      `move of pool ${poolId}`,
    );
  }
}
