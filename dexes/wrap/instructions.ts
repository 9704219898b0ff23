// Wrap's NEAR calls (near-facts.md "Wrap"): wNEAR (un)wrapping, and deposits into and withdrawals from the AmmA inner
// balance. Pure.
import type { DexContracts } from '../contracts.ts';
import { DEPOSIT_BURN, NEAR_DEPOSIT_BURN, NEAR_WITHDRAW_BURN, PAYOUT_CALLBACK_BURN, TOKEN_RESOLVE_BURN, TOKEN_TRANSFER_BURN, TOKEN_TRANSFER_CALL_BURN, TRANSFER_BURN } from '../burn.ts';
import { ONE_YOCTO, functionCall, ftTransferCall, tgas, type FunctionCallStep } from '../instructions.ts';

/** wNEAR `near_deposit {}`: 5 TGas, the amount attached. */
export function nearDepositCall(wrapId: string, amount: bigint): FunctionCallStep {
  return functionCall(wrapId, 'near_deposit', {}, tgas(5), amount, NEAR_DEPOSIT_BURN);
}

/** wNEAR `near_withdraw {amount}`: 1 yocto, 30 TGas; it burns its own receipt and the NEAR's transfer. */
export function nearWithdrawCall(wrapId: string, amount: bigint): FunctionCallStep {
  return functionCall(wrapId, 'near_withdraw', { amount: amount.toString() }, tgas(30), ONE_YOCTO, NEAR_WITHDRAW_BURN + TRANSFER_BURN);
}

/** Deposit into the AmmA inner balance: `ft_transfer_call` to the exchange with msg "" (50 TGas, ours: near-facts.md
 * gives no figure, near/docs' Ref example attaches 300; the exchange's `ft_on_transfer` deposit is light, grade S).
 * It burns the token's call and resolve and the exchange's deposit. */
export function innerDepositCall(tokenId: string, ammId: string, amount: bigint): FunctionCallStep {
  return ftTransferCall(tokenId, ammId, amount, '', tgas(50), TOKEN_TRANSFER_CALL_BURN + DEPOSIT_BURN + TOKEN_RESOLVE_BURN);
}

/** Withdraw from the AmmA inner balance: `withdraw {token_id, amount, skip_unwrap_near: true}` (1 yocto, 50 TGas);
 * skip_unwrap_near keeps wNEAR as wNEAR, which is what `inner-nep141:wrap.near` -> `wrap.near` asks for. It burns the
 * exchange's balance change (a deposit's envelope), the token's `ft_transfer` and the exchange's callback. */
export function innerWithdrawCall(ammId: string, tokenId: string, amount: bigint): FunctionCallStep {
  const burn = DEPOSIT_BURN + TOKEN_TRANSFER_BURN + PAYOUT_CALLBACK_BURN;
  return functionCall(ammId, 'withdraw', { token_id: tokenId, amount: amount.toString(), skip_unwrap_near: true }, tgas(50), ONE_YOCTO, burn);
}

export type WrapConversion =
  | { kind: 'wrap' }
  | { kind: 'unwrap' }
  | { kind: 'inner_deposit'; tokenId: string }
  | { kind: 'inner_withdraw'; tokenId: string };

/** The conversion between two token ids (`near`, contract ids, `inner-nep141:<id>`), or null when Wrap has none. */
export function wrapConversionOf(tokenIn: string, tokenOut: string, contracts: DexContracts): WrapConversion | null {
  const INNER = 'inner-nep141:';
  if (tokenIn === 'near' && tokenOut === contracts.Wrap) return { kind: 'wrap' };
  if (tokenIn === contracts.Wrap && tokenOut === 'near') return { kind: 'unwrap' };
  if (tokenOut === INNER + tokenIn && tokenIn !== 'near') return { kind: 'inner_deposit', tokenId: tokenIn };
  if (tokenIn === INNER + tokenOut && tokenOut !== 'near') return { kind: 'inner_withdraw', tokenId: tokenOut };
  return null;
}

/** The one call of a 1:1 conversion of `amount`. */
export function wrapCalls(conversion: WrapConversion, amount: bigint, contracts: DexContracts): FunctionCallStep[] {
  switch (conversion.kind) {
    case 'wrap':
      return [nearDepositCall(contracts.Wrap, amount)];
    case 'unwrap':
      return [nearWithdrawCall(contracts.Wrap, amount)];
    case 'inner_deposit':
      return [innerDepositCall(conversion.tokenId, contracts.AmmA, amount)];
    case 'inner_withdraw':
      return [innerWithdrawCall(contracts.AmmA, conversion.tokenId, amount)];
  }
}
