// The call model every DEX's instructions.ts builds, and the NEP-141/NEP-145 calls they share (near-facts.md
// "NEP-141", "Referral and helper-step details"). A step is one FunctionCall with its receiver; the api turns a
// route's steps into `NearTransaction`s (base64 JSON args, adjacent steps to one receiver merged). Pure.
import { GAS_PER_TGAS } from '../near/units.ts';
import { STORAGE_DEPOSIT_BURN, TRANSFER_BURN } from './burn.ts';

export interface FunctionCallStep {
  receiverId: string;
  methodName: string;
  /** The call's JSON arguments (encoded to base64 by the api). */
  args: Record<string, unknown>;
  /** Attached gas. */
  gas: bigint;
  /** Attached deposit, yoctoNEAR. */
  deposit: bigint;
  /** What the call's receipts are expected to burn, all together (dexes/burn.ts): what ranking charges, for every DEX
   * alike; `gas` is only what it may use. */
  burn: bigint;
}

export const ONE_YOCTO = 1n;
export const tgas = (n: number): bigint => BigInt(n) * GAS_PER_TGAS;

/**
 * NEAR's most prepaid gas per transaction (`max_total_prepaid_gas`): 300 TGas until protocol version 83, which
 * raised it and `max_gas_burnt` to 1 PGas (C: nearcore core/parameters/res/runtime_configs/83.yaml). The testnet
 * blocks of test/fixtures/blocks (2026-01) still name version 82, so 300 TGas is the default; the network's current value
 * is `max_total_prepaid_gas` in the RPC's `EXPERIMENTAL_protocol_config` (DEXLAKE_MAX_TRANSACTION_TGAS).
 */
export const DEFAULT_MAX_TRANSACTION_GAS = tgas(300);

/** 0.00125 NEAR: the common NEP-145 minimum (wrap.near's `storage_balance_bounds.min`); near-facts.md. */
export const TOKEN_STORAGE_DEPOSIT = 1_250_000_000_000_000_000_000n;

export function functionCall(receiverId: string, methodName: string, args: Record<string, unknown>, gas: bigint, deposit: bigint, burn: bigint): FunctionCallStep {
  return { receiverId, methodName, args, gas, deposit, burn };
}

/** NEP-145 registration of `accountId` on a token contract: `registration_only`, 10 TGas (the aggregator's); it burns
 * a storage_deposit's envelope and, when the account was registered already, the refund's transfer. */
export function storageDepositCall(contractId: string, accountId: string, deposit: bigint = TOKEN_STORAGE_DEPOSIT): FunctionCallStep {
  return functionCall(contractId, 'storage_deposit', { account_id: accountId, registration_only: true }, tgas(10), deposit, STORAGE_DEPOSIT_BURN + TRANSFER_BURN);
}

/** NEP-141 `ft_transfer_call {receiver_id, amount, msg}` on `tokenId`, with the 1 yocto the standard requires; `burn`:
 * what it and the receipts it leads to burn. */
export function ftTransferCall(tokenId: string, receiverId: string, amount: bigint, msg: string, gas: bigint, burn: bigint): FunctionCallStep {
  return functionCall(tokenId, 'ft_transfer_call', { receiver_id: receiverId, amount: amount.toString(), msg }, gas, ONE_YOCTO, burn);
}


/** The trader's registration with the token a route pays out by `ft_transfer`, unless it is native NEAR, an inner
 * balance, or indexed as registered already. */
export function outputStorageSteps(token: string, trader: string, registered: (contractId: string) => boolean): FunctionCallStep[] {
  return token === 'near' || token.startsWith('inner-nep141:') || registered(token) ? [] : [storageDepositCall(token, trader)];
}
