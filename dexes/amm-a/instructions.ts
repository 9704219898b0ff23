// AmmA swap calls (near-facts.md "AmmA"): one `ft_transfer_call` of the input token to the exchange whose msg
// holds the swap actions, hop by hop; only a path's first action names `amount_in` (later ones take the previous
// output), intermediate hops ask for at least 0 and a path's last one for its worst case. The output comes back
// by `ft_transfer` (or, with `skip_unwrap_near: false` and wNEAR out, as native NEAR). Pure.
import { STORAGE_DEPOSIT_BURN, TOKEN_RESOLVE_BURN, TOKEN_TRANSFER_BURN, TOKEN_TRANSFER_CALL_BURN } from '../burn.ts';
import { ftTransferCall, functionCall, ONE_YOCTO, tgas, type FunctionCallStep } from '../instructions.ts';

// Gas of an instant swap, metered by running the contracts' own release wasm in near/vm at protocol 90 (R: the
// runs of test/routing/ref-contract.test.ts and bench:route execute every quote's call through them; the runtime's
// burnt gas is within 1-3% of real Ref receipts re-priced at protocol 90, near/vm/README.md):
// - the input token's `ft_transfer_call` keeps 30 TGas and hands the rest to the exchange's `ft_on_transfer`
//   (near-contract-standards' GAS_FOR_FT_TRANSFER_CALL, 25 TGas + 5 for its `ft_resolve_transfer`: wrap.near's wasm
//   and near-sdk 4.1's example both forward prepaid − 30 TGas); it burns 3.5 TGas, its resolve 1.4;
// - the exchange's `ft_on_transfer` burns at most 5 TGas + 3.2 TGas an action (the envelope of bench:route's routes
//   over the real snapshot: 4 TGas + 2.7-3.2 an action), and prepays 20 TGas to the output's `ft_transfer` and 5 to
//   `exchange_callback_post_withdraw`, 26.8 TGas with their receipts' fees; they burn 1.8 and 2.2 TGas.
const GGAS = 1_000_000_000n;
const TOKEN_KEEPS = tgas(30);
const SWAP_BURN = 5_000n * GGAS;
const ACTION_BURN = 3_200n * GGAS;
/** What one more swap action burns. */
export const AMM_A_ACTION_BURN = ACTION_BURN;
const SWAP_PREPAYS = 26_800n * GGAS;
/** What the token's call, the output's transfer, the callback and the resolve burn around the exchange's swap (the
 * token side shared with every DEX, ../burn.ts). */
const AROUND_BURN = TOKEN_TRANSFER_CALL_BURN + TOKEN_TRANSFER_BURN + 2_200n * GGAS + TOKEN_RESOLVE_BURN;
/** The margin on the exchange's metered need, in percent: the envelope is already above every metered swap, and a
 * busier trie or a longer token id costs a little more. */
const MARGIN_PERCENT = 20n;

/** nearcore's limits on one receipt's logs (`max_number_logs`, `max_total_log_length`; C: nearcore
 * core/parameters/res/runtime_configs/parameters.yaml): a call past them fails whole. */
const MAX_LOGS = 100;
const MAX_LOG_BYTES = 16_384;
/** Digits of the largest u128 (a share count). */
const U128_DIGITS = 39;
/** The longest NEAR account id (the exchange's, a referrer's). */
const MAX_ACCOUNT_ID = 64;

/** The gas an instant swap of `actions` actions attaches: 30 TGas for the token, and what the exchange's swap is
 * metered to need with the margin, in whole TGas. */
export function ammASwapGas(actions: number): bigint {
  const need = SWAP_BURN + BigInt(actions) * ACTION_BURN + SWAP_PREPAYS;
  const withMargin = (need * (100n + MARGIN_PERCENT)) / 100n;
  return TOKEN_KEEPS + tgas(1) * ((withMargin + tgas(1) - 1n) / tgas(1));
}

/** What an instant swap of `actions` actions is metered to burn, all its receipts together. */
export function ammASwapBurn(actions: number): bigint {
  return AROUND_BURN + SWAP_BURN + BigInt(actions) * ACTION_BURN;
}

/** The most swap actions one instant swap allows: its gas within `maxTransactionGas`, two log lines each within the
 * receipt's 100 (so at most 50, which 300 TGas already carries). */
export function ammAMaxActions(maxTransactionGas: bigint): number {
  let actions = 0;
  while (actions < MAX_LOGS / 2 && ammASwapGas(actions + 1) <= maxTransactionGas) actions++;
  return actions;
}

/**
 * The most log bytes one swap action can write. The exchange logs two lines an action (R: mainnet receipts of
 * test/fixtures/blocks, e.g. 81206675 and 114081912; Ref 1.9.17's wasm logs the same in near/vm): `Swapped {in}
 * {token_in} for {out} {token_out}` (stable pools add `, total fee {fee}, admin fee {fee}`) and `Exchange {exchange}
 * got {shares} shares, ` followed by `No referral fee` or `Referral {referrer} got {shares} shares`. The amounts are
 * the quote's, one digit longer for a market that moved; share counts and account ids at their longest.
 */
function swapLogBytes(hop: SwapHop, amountIn: bigint, amountOut: bigint, referral: boolean): number {
  const swapped = SWAPPED_BYTES + digitsAbove(amountIn) + hop.tokenIn.length + digitsAbove(amountOut) + hop.tokenOut.length;
  return swapped + (hop.curve === undefined ? STABLE_FEE_BYTES : 0) + SHARES_BYTES + (referral ? REFERRER_BYTES : NO_REFERRER_BYTES);
}
const SWAPPED_BYTES = 'Swapped '.length + 1 + ' for '.length + 1;
const STABLE_FEE_BYTES = ', total fee , admin fee '.length + 2 * U128_DIGITS;
const SHARES_BYTES = 'Exchange '.length + MAX_ACCOUNT_ID + ' got '.length + U128_DIGITS + ' shares, '.length;
const REFERRER_BYTES = 'Referral '.length + MAX_ACCOUNT_ID + ' got '.length + U128_DIGITS + ' shares'.length;
const NO_REFERRER_BYTES = 'No referral fee'.length;
/** An amount's digits, and one more for a market that moved. */
const digitsAbove = (n: bigint): number => n.toString().length + 1;

/** A hop as the log bound reads it: a constant-product `curve` is a simple pool's (no fee figures in its line). */
type SwapHop = { tokenIn: string; tokenOut: string; curve?: unknown };

/** Whether an instant swap of these paths fits one receipt: its logs within nearcore's limits, its gas within the
 * network's prepaid gas per transaction. */
export function ammASwapFits(paths: readonly { hops: readonly SwapHop[]; amounts: readonly bigint[] }[], maxTransactionGas: bigint, referral: boolean): boolean {
  const actions = paths.reduce((n, p) => n + p.hops.length, 0);
  if (actions > ammAMaxActions(maxTransactionGas)) return false;
  let bytes = 0;
  for (const p of paths) p.hops.forEach((hop, i) => (bytes += swapLogBytes(hop, p.amounts[i]!, p.amounts[i + 1]!, referral)));
  return bytes <= MAX_LOG_BYTES;
}

/** 0.01 NEAR: the exchange's account registration (near-facts.md, inner-balance setup). */
export const AMM_A_STORAGE_DEPOSIT = 10_000_000_000_000_000_000_000n;

export interface AmmASwapHop {
  poolId: number;
  tokenIn: string;
  tokenOut: string;
}

/** One chain of actions: its first action takes `amountIn` of the deposit, later ones the previous output. */
export interface AmmASwapPath {
  hops: readonly AmmASwapHop[];
  /** What its first action takes from the account: of the deposit, or of a token earlier actions produced. */
  amountIn: bigint;
  /** The last hop's `min_amount_out`: this path's worst case after slippage (0 when it ends in an intermediate token). */
  minAmountOut: bigint;
}

export interface AmmASwap {
  /** The exchange, `DexContracts.AmmA`. */
  contractId: string;
  /** One path, several that share no pool (a split), or a plan's chains: their actions run one after the other in
   * one call on the deposit, each drawing on what the account holds, and the exchange sends back everything the
   * account holds at the end (a plan leaves nothing but the output). */
  paths: readonly AmmASwapPath[];
  referrerId: string | null;
  /** false: a wNEAR output is unwrapped and paid as native NEAR by the exchange. */
  skipUnwrapNear: boolean;
}

/** The msg JSON object of an instant swap. */
export function ammASwapMsg(swap: AmmASwap): Record<string, unknown> {
  if (swap.paths.length === 0 || swap.paths.some((p) => p.hops.length === 0)) throw new RangeError('AmmA swap: a path without hops');
  const actions = swap.paths.flatMap((path) =>
    path.hops.map((hop, i) => ({
      pool_id: hop.poolId,
      token_in: hop.tokenIn,
      token_out: hop.tokenOut,
      ...(i === 0 ? { amount_in: path.amountIn.toString() } : {}),
      min_amount_out: i === path.hops.length - 1 ? path.minAmountOut.toString() : '0',
    })),
  );
  return {
    force: 0,
    actions,
    ...(swap.referrerId !== null ? { referral_id: swap.referrerId } : {}),
    skip_unwrap_near: swap.skipUnwrapNear,
  };
}

/** One `ft_transfer_call` of the input: what the paths starting from the input token take. */
export function ammASwapCalls(swap: AmmASwap): FunctionCallStep[] {
  const first = swap.paths[0]?.hops[0];
  if (first === undefined) throw new RangeError('AmmA swap: no hop');
  const total = swap.paths.reduce((sum, p) => (p.hops[0]!.tokenIn === first.tokenIn ? sum + p.amountIn : sum), 0n);
  const actions = swap.paths.reduce((sum, p) => sum + p.hops.length, 0);
  return [ftTransferCall(first.tokenIn, swap.contractId, total, JSON.stringify(ammASwapMsg(swap)), ammASwapGas(actions), ammASwapBurn(actions))];
}

/** Inner-balance setup: the exchange's `storage_deposit` (0.01 NEAR; not registration_only, so the deposit also
 * pays for the token entries) and `register_tokens {token_ids}` (1 yocto, 10 TGas), each burning a storage_deposit's
 * envelope (../burn.ts). */
export function ammARegistrationCalls(contractId: string, accountId: string, tokenIds: readonly string[]): FunctionCallStep[] {
  return [
    functionCall(contractId, 'storage_deposit', { account_id: accountId }, tgas(10), AMM_A_STORAGE_DEPOSIT, STORAGE_DEPOSIT_BURN),
    functionCall(contractId, 'register_tokens', { token_ids: [...tokenIds] }, tgas(10), ONE_YOCTO, STORAGE_DEPOSIT_BURN),
  ];
}
