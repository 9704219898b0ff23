// AmmC swap calls (near-facts.md "AmmC"): the engine `dex.intear.near` runs a list of operations, one `SwapSimple`
// per hop on the xyk DEX (its `message` is the borsh u32 pool id, base64) and a `Withdraw` of the output to the
// trader; a NEP-141 input arrives by `ft_transfer_call` with the operations as msg, native NEAR by `deposit_near`
// with NEAR attached. 280 TGas. Pure.
import { PAYOUT_CALLBACK_BURN, STORAGE_DEPOSIT_BURN, SWAP_PER_POOL_BURN, TOKEN_RESOLVE_BURN, TOKEN_TRANSFER_BURN, TOKEN_TRANSFER_CALL_BURN, TRANSFER_BURN } from '../burn.ts';
import { ftTransferCall, functionCall, ONE_YOCTO, tgas, type FunctionCallStep } from '../instructions.ts';

export const AMM_C_SWAP_GAS = tgas(280);
/** 0.005 NEAR: the engine's `storage_deposit {}`. */
export const AMM_C_STORAGE_DEPOSIT = 5_000_000_000_000_000_000_000n;

export interface AmmCSwapHop {
  poolId: number;
  tokenIn: string;
  tokenOut: string;
}

export interface AmmCSwap {
  /** The engine, `DexContracts.AmmC`, and the xyk DEX's id inside it, `DexContracts.AmmCXykDexId`. */
  contractId: string;
  dexId: string;
  hops: readonly AmmCSwapHop[];
  /** exact_in: `amount` is the input; exact_out (one hop): `amount` is the output asked for and `maxAmountIn` is
   * what is sent (the rest is withdrawn back). */
  mode: 'exact_in' | 'exact_out';
  amount: bigint;
  maxAmountIn: bigint;
  /** The output withdrawn must be at least this. */
  minAmountOut: bigint;
  referrerId: string | null;
}

/** Engine asset ids: `near`, or `nep141:<contract>`. */
export function ammCAssetId(token: string): string {
  return token === 'near' ? 'near' : `nep141:${token}`;
}

/** borsh u32 little-endian, base64: the xyk DEX's swap message. */
export function poolIdMessage(poolId: number): string {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(poolId);
  return bytes.toString('base64');
}

/** The operations object (msg of `ft_transfer_call`, `operations` of `deposit_near`'s args). */
export function ammCOperations(swap: AmmCSwap): Record<string, unknown> {
  if (swap.hops.length === 0) throw new RangeError('AmmC swap: no hop');
  if (swap.mode === 'exact_out' && swap.hops.length !== 1) throw new RangeError('AmmC swap: exact out is one hop');
  const first = swap.hops[0]!;
  const last = swap.hops[swap.hops.length - 1]!;
  const operations: unknown[] = swap.hops.map((hop, i) => ({
    SwapSimple: {
      dex_id: swap.dexId,
      message: poolIdMessage(hop.poolId),
      asset_in: ammCAssetId(hop.tokenIn),
      asset_out: ammCAssetId(hop.tokenOut),
      amount: i > 0 ? 'OutputOfLastIn' : { Amount: swap.mode === 'exact_in' ? { ExactIn: swap.amount.toString() } : { ExactOut: swap.amount.toString() } },
    },
  }));
  operations.push(withdraw(last.tokenOut, swap.minAmountOut));
  // Exact out: what the swap did not use of the input goes back to the trader: the engine keeps it as an inner
  // balance otherwise (S: INTEARnear/dex src/internal_operations.rs; C: Intear's aggregator adds the same Withdraw,
  // INTEARnear/dex-aggregator @ 096462f src/providers/intear_plach.rs).
  if (swap.mode === 'exact_out') operations.push(withdraw(first.tokenIn, 0n));
  return { operations, referrer: swap.referrerId };
}

function withdraw(token: string, atLeast: bigint): Record<string, unknown> {
  return { Withdraw: { asset_id: ammCAssetId(token), amount: { Full: { at_least: atLeast.toString() } }, to: null, rescue_address: null } };
}

/** What a payout of the engine's `Withdraw` burns: native NEAR's transfer, or the token's `ft_transfer` and the
 * engine's callback after it. */
const withdrawBurn = (token: string): bigint => (token === 'near' ? TRANSFER_BURN : TOKEN_TRANSFER_BURN + PAYOUT_CALLBACK_BURN);

/** What a swap burns (../burn.ts; the engine's wasm is not vendored): the engine's operations (a swap's envelope per
 * pool), each `Withdraw`'s payout, and for a NEP-141 input the token's call and resolve. */
export function ammCSwapBurn(swap: AmmCSwap): bigint {
  const first = swap.hops[0]!;
  let burn = BigInt(swap.hops.length) * SWAP_PER_POOL_BURN + withdrawBurn(swap.hops[swap.hops.length - 1]!.tokenOut);
  if (swap.mode === 'exact_out') burn += withdrawBurn(first.tokenIn);
  if (first.tokenIn !== 'near') burn += TOKEN_TRANSFER_CALL_BURN + TOKEN_RESOLVE_BURN;
  return burn;
}

export function ammCSwapCalls(swap: AmmCSwap): FunctionCallStep[] {
  const first = swap.hops[0];
  if (first === undefined) throw new RangeError('AmmC swap: no hop');
  const sent = swap.mode === 'exact_in' ? swap.amount : swap.maxAmountIn;
  const operations = ammCOperations(swap);
  const burn = ammCSwapBurn(swap);
  // `deposit_near(operations: Option<DepositMessage>)`, DepositMessage untagged: a list, or `{operations, referrer}`
  // (S: INTEARnear/dex src/deposit.rs). The object goes under `operations`: at the top level its referrer would be
  // an argument the engine ignores.
  if (first.tokenIn === 'near') return [functionCall(swap.contractId, 'deposit_near', { operations }, AMM_C_SWAP_GAS, sent, burn)];
  return [ftTransferCall(first.tokenIn, swap.contractId, sent, JSON.stringify(operations), AMM_C_SWAP_GAS, burn)];
}

/** Engine registration: `storage_deposit {}` (0.005 NEAR) and `register_assets {asset_ids}` (1 yocto), 10 TGas each:
 * twice what Intear's aggregator attaches (5 TGas each, C: INTEARnear/dex-aggregator @ 096462f
 * src/providers/intear_plach.rs). */
export function ammCRegistrationCalls(contractId: string, tokens: readonly string[]): FunctionCallStep[] {
  return [
    // A registration burns a storage_deposit's envelope, each (../burn.ts).
    functionCall(contractId, 'storage_deposit', {}, tgas(10), AMM_C_STORAGE_DEPOSIT, STORAGE_DEPOSIT_BURN),
    functionCall(contractId, 'register_assets', { asset_ids: tokens.map(ammCAssetId) }, tgas(10), ONE_YOCTO, STORAGE_DEPOSIT_BURN),
  ];
}
