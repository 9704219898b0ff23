// Wrap's NEAR calls, and the call model every DEX's instructions.ts builds (near-facts.md "Wrap", "NEP-141",
// "Referral and helper-step details"). A step is one FunctionCall with its receiver; the api turns a route's
// steps into `NearTransaction`s (base64 JSON args, adjacent steps to one receiver merged). Pure.
//
// The generic NEP-141/NEP-145 calls (`storage_deposit`, `ft_transfer_call`) live here because wrapping is where
// every route meets them first; the other DEXes import them from here.
import { GAS_PER_TGAS } from '../../near/units.ts';
import type { DexContracts } from '../contracts.ts';

export interface FunctionCallStep {
  receiverId: string;
  methodName: string;
  /** The call's JSON arguments (encoded to base64 by the api). */
  args: Record<string, unknown>;
  /** Attached gas. */
  gas: bigint;
  /** Attached deposit, yoctoNEAR. */
  deposit: bigint;
}

export const ONE_YOCTO = 1n;
export const tgas = (n: number): bigint => BigInt(n) * GAS_PER_TGAS;

/** 0.00125 NEAR: the common NEP-145 minimum (wrap.near's `storage_balance_bounds.min`); near-facts.md. */
export const TOKEN_STORAGE_DEPOSIT = 1_250_000_000_000_000_000_000n;

export function functionCall(receiverId: string, methodName: string, args: Record<string, unknown>, gas: bigint, deposit: bigint): FunctionCallStep {
  return { receiverId, methodName, args, gas, deposit };
}

/** NEP-145 registration of `accountId` on a token contract: `registration_only`, 10 TGas (the aggregator's). */
export function storageDepositCall(contractId: string, accountId: string, deposit: bigint = TOKEN_STORAGE_DEPOSIT): FunctionCallStep {
  return functionCall(contractId, 'storage_deposit', { account_id: accountId, registration_only: true }, tgas(10), deposit);
}

/** NEP-141 `ft_transfer_call {receiver_id, amount, msg}` on `tokenId`, with the 1 yocto the standard requires. */
export function ftTransferCall(tokenId: string, receiverId: string, amount: bigint, msg: string, gas: bigint): FunctionCallStep {
  return functionCall(tokenId, 'ft_transfer_call', { receiver_id: receiverId, amount: amount.toString(), msg }, gas, ONE_YOCTO);
}

/** wNEAR `near_deposit {}`: 5 TGas, the amount attached. */
export function nearDepositCall(wrapId: string, amount: bigint): FunctionCallStep {
  return functionCall(wrapId, 'near_deposit', {}, tgas(5), amount);
}

/** wNEAR `near_withdraw {amount}`: 1 yocto, 30 TGas. */
export function nearWithdrawCall(wrapId: string, amount: bigint): FunctionCallStep {
  return functionCall(wrapId, 'near_withdraw', { amount: amount.toString() }, tgas(30), ONE_YOCTO);
}

/** Deposit into the AmmA inner balance: `ft_transfer_call` to the exchange with msg "" (50 TGas (?): near-facts.md
 * gives no figure for this call; the exchange's `ft_on_transfer` deposit is light). */
export function innerDepositCall(tokenId: string, ammId: string, amount: bigint): FunctionCallStep {
  return ftTransferCall(tokenId, ammId, amount, '', tgas(50));
}

/** Withdraw from the AmmA inner balance: `withdraw {token_id, amount, skip_unwrap_near: true}` (1 yocto, 50 TGas);
 * skip_unwrap_near keeps wNEAR as wNEAR, which is what `inner-nep141:wrap.near` -> `wrap.near` asks for. */
export function innerWithdrawCall(ammId: string, tokenId: string, amount: bigint): FunctionCallStep {
  return functionCall(ammId, 'withdraw', { token_id: tokenId, amount: amount.toString(), skip_unwrap_near: true }, tgas(50), ONE_YOCTO);
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
