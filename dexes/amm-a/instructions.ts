// AmmA swap calls (near-facts.md "AmmA"): one `ft_transfer_call` of the input token to the exchange whose msg
// holds the swap actions, hop by hop; only a path's first action names `amount_in` (later ones take the previous
// output), intermediate hops ask for at least 0 and a path's last one for its worst case. The output comes back
// by `ft_transfer` (or, with `skip_unwrap_near: false` and wNEAR out, as native NEAR). Pure.
import { ftTransferCall, functionCall, ONE_YOCTO, tgas, type FunctionCallStep } from '../instructions.ts';

/** 180 TGas (C): near-facts.md gives no figure for the AmmA swap; Ref's own app attaches 180 TGas to the instant-swap
 * `ft_transfer_call` to the exchange (ref-finance/ref-ui @ 008b884 : src/services/swap.ts, parallelSwapCase and
 * smartRouteSwapCase, up to 2 hops there); @ref-finance/ref-sdk 1.5.0's instantSwap attaches 300 TGas. */
export const AMM_A_SWAP_GAS = tgas(180);

// Larger plans (the optimal-flow router's) attach what their actions need, from the mainnet receipts of
// test/fixtures/blocks (ft_on_transfer at v2.ref-finance.near: one action burnt 7.75 TGas, block 151768255; two
// actions 16.07 TGas, block 81206675, so about 8.3 TGas per action): 9 TGas per action, plus 65 TGas around them
// (the token's ft_transfer_call and its resolve, 180 − 160.6 TGas forwarded in block 151768255, rounded up to 20;
// the output's ft_transfer and exchange_callback_post_withdraw, 20 + 20 TGas prepaid in blocks 105089746 and
// 125229395; 5 for the receipt itself), within the network's prepaid gas per transaction.
export const AMM_A_ACTION_GAS = tgas(9);
const AMM_A_FIXED_GAS = tgas(65);
/** The most swap actions one instant swap can carry within `maxTransactionGas`: 26 at 300 TGas, 103 at 1 PGas. */
export const ammAMaxActions = (maxTransactionGas: bigint): number => Number((maxTransactionGas - AMM_A_FIXED_GAS) / AMM_A_ACTION_GAS);

/** nearcore's limits on one receipt's logs (`max_number_logs`, `max_total_log_length`; C: nearcore
 * core/parameters/res/runtime_configs/parameters.yaml): a call past them fails whole. */
const MAX_LOGS = 100;
const MAX_LOG_BYTES = 16_384;
/** Digits of the largest u128 (an amount or a share count). */
const U128_DIGITS = 39;
/** The longest NEAR account id (a referrer's). */
const MAX_ACCOUNT_ID = 64;

/**
 * The most log bytes one swap action can write: the exchange logs two lines an action (R: mainnet receipts of
 * test/fixtures/blocks, e.g. 81206675; Ref 1.9.17's wasm logs the same in near/vm), `Swapped {in} {token_in} for
 * {out} {token_out}` (stable pools add `, total fee {fee}, admin fee {fee}`) and `Exchange {exchange} got {shares}
 * shares, ` followed by `No referral fee` or `Referral {referrer} got {shares} shares`.
 */
function swapLogBytes(tokenIn: string, tokenOut: string): number {
  const swapped = 'Swapped '.length + U128_DIGITS + 1 + tokenIn.length + ' for '.length + U128_DIGITS + 1 + tokenOut.length + ', total fee , admin fee '.length + 2 * U128_DIGITS;
  const shares = 'Exchange '.length + MAX_ACCOUNT_ID + ' got '.length + U128_DIGITS + ' shares, '.length + 'Referral '.length + MAX_ACCOUNT_ID + ' got '.length + U128_DIGITS + ' shares'.length;
  return swapped + shares;
}

/** Whether an instant swap's actions fit one receipt: its logs within nearcore's limits, its gas within the
 * network's prepaid gas per transaction. */
export function ammASwapFits(actions: readonly { tokenIn: string; tokenOut: string }[], maxTransactionGas: bigint): boolean {
  if (actions.length > ammAMaxActions(maxTransactionGas) || 2 * actions.length > MAX_LOGS) return false;
  return actions.reduce((sum, a) => sum + swapLogBytes(a.tokenIn, a.tokenOut), 0) <= MAX_LOG_BYTES;
}

/** The gas an instant swap of `actions` actions attaches: 180 TGas, or what more actions need. */
export function ammASwapGas(actions: number): bigint {
  const needed = AMM_A_FIXED_GAS + BigInt(actions) * AMM_A_ACTION_GAS;
  return needed > AMM_A_SWAP_GAS ? needed : AMM_A_SWAP_GAS;
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
  return [ftTransferCall(first.tokenIn, swap.contractId, total, JSON.stringify(ammASwapMsg(swap)), ammASwapGas(actions))];
}

/** Inner-balance setup: the exchange's `storage_deposit` (0.01 NEAR; not registration_only, so the deposit also
 * pays for the token entries) and `register_tokens {token_ids}` (1 yocto, 10 TGas). */
export function ammARegistrationCalls(contractId: string, accountId: string, tokenIds: readonly string[]): FunctionCallStep[] {
  return [
    functionCall(contractId, 'storage_deposit', { account_id: accountId }, tgas(10), AMM_A_STORAGE_DEPOSIT),
    functionCall(contractId, 'register_tokens', { token_ids: [...tokenIds] }, tgas(10), ONE_YOCTO),
  ];
}
