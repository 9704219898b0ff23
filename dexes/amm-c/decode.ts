// Block -> AmmC events (the Intear DEX engine `dex.intear.near` and its xyk DEX `slimedragon.near/xyk`). Pure.
//
// Everything comes from the engine's NEP-297 logs (standard `inteardex`) of SUCCESSFUL receipts it executed: a
// failed receipt keeps its logs in the block but none of its effects.
// - pool state: the xyk DEX's own events reach the chain wrapped in the engine's `dex_event` (the engine runs the
//   DEX's wasm and re-emits each of its `EVENT_JSON` logs as `dex_event {dex_id, event, referrer, user}`).
//   `pool_updated {pool_id, pool}` carries the full `PoolView`; the block's LAST one per pool is the state after
//   the block.
// - trades: the engine's `swap {dex_id, request, amount_in, amount_out, trader, referrer}`, one per hop. The
//   xyk DEX's inner `swap` (emitted just before it, in the same receipt) gives the real pool id and the fees.
// - liquidity: the xyk DEX's `liquidity_added` / `liquidity_removed`.
// Contract-controlled text never makes this throw: what does not parse is skipped.
// Shapes: README.md; sources: INTEARnear/dex (intear-dex-types/src/engine_api.rs, dexes/xyk/types/src/lib.rs).

import type { Block, ReceiptOutcome } from '../../near/block.ts';
import { isSuccess } from '../../near/decode.ts';
import { asRecord as asObject, parseEventLog } from '../../near/nep297.ts';
import { isValidAccountId } from '../../near/token-id.ts';
import { parseU128 } from '../../near/units.ts';
import type { DexContracts } from '../contracts.ts';
import type { DexEvent, LiquidityEvent, SwapEvent } from '../events.ts';
import { AMM_C_DEX_ID, type AmmCFeeReceiver, type AmmCPoolState, type AmmCPoolStateEvent } from './events.ts';

type Json = Record<string, unknown>;

const ENGINE_STANDARD = 'inteardex';
const XYK_STANDARD = 'xyk';
/** `SwapArgs.pool_id` u32::MAX means "the pool created last" (batched create + buy): not a real id. */
const LAST_CREATED_POOL_MARKER = 0xffff_ffff;

/** An event before its index is known, and the pool it states (pool_state only). */
interface Pending {
  event: DexEvent;
  statesPool: number | null;
}

/** The xyk DEX's inner `swap`: what its engine `swap` lacks. */
interface InnerSwap {
  poolId: number;
  assetIn: string;
  assetOut: string;
  amountIn: bigint;
  amountOut: bigint;
  totalFee: bigint | null;
  adminFee: bigint | null;
}

export function decodeAmmC(block: Block, contracts: DexContracts): DexEvent[] {
  const pending: Pending[] = [];
  for (const shard of block.shards) {
    for (const outcome of shard.receiptOutcomes) {
      if (outcome.executorId !== contracts.AmmC || !isSuccess(outcome)) continue;
      decodeOutcome(block, outcome, contracts, pending);
    }
  }

  // Only the block's last state of each pool is kept; then indices count per receipt in log order.
  const lastStateAt = new Map<number, number>();
  pending.forEach((p, i) => {
    if (p.statesPool !== null) lastStateAt.set(p.statesPool, i);
  });
  const nextIndex = new Map<string, number>();
  const events: DexEvent[] = [];
  pending.forEach((p, i) => {
    if (p.statesPool !== null && lastStateAt.get(p.statesPool) !== i) return;
    const index = nextIndex.get(p.event.receiptId) ?? 0;
    nextIndex.set(p.event.receiptId, index + 1);
    p.event.index = index;
    events.push(p.event);
  });
  return events;
}

function decodeOutcome(block: Block, outcome: ReceiptOutcome, contracts: DexContracts, out: Pending[]): void {
  const base = () => ({
    blockHeight: block.height,
    timestampMs: block.timestampMs,
    receiptId: outcome.receiptId,
    txHash: outcome.txHash,
    index: 0,
  });
  const dex = { dex: AMM_C_DEX_ID, contractId: contracts.AmmC } as const;
  let innerSwap: InnerSwap | null = null;

  for (const log of outcome.logs) {
    const engineEvent = parseEventLog(log);
    if (engineEvent === null || engineEvent.standard !== ENGINE_STANDARD) continue;
    const data = asObject(engineEvent.data);
    if (data === null || data.dex_id !== contracts.AmmCXykDexId) continue;

    if (engineEvent.event === 'swap') {
      const swap = engineSwap(data, innerSwap);
      innerSwap = null;
      if (swap !== null) out.push({ event: { ...base(), kind: 'swap', ...dex, ...swap }, statesPool: null });
      continue;
    }
    if (engineEvent.event !== 'dex_event') continue;
    const inner = asObject(data.event);
    if (inner === null || inner.standard !== XYK_STANDARD) continue;
    const innerData = asObject(inner.data);
    if (innerData === null) continue;
    const poolId = asPoolId(innerData.pool_id);
    if (poolId === null) continue;

    if (inner.event === 'pool_updated') {
      const state = poolState(asObject(innerData.pool));
      if (state === null) continue;
      const event: AmmCPoolStateEvent = { ...base(), kind: 'pool_state', ...dex, poolId, state, source: 'event' };
      out.push({ event, statesPool: poolId });
    } else if (inner.event === 'swap') {
      innerSwap = innerSwapOf(poolId, innerData);
    } else if (inner.event === 'liquidity_added' || inner.event === 'liquidity_removed') {
      const change = liquidityChange(inner.event === 'liquidity_added' ? 'add' : 'remove', innerData);
      if (change === null) continue;
      const provider = typeof data.user === 'string' && isValidAccountId(data.user) ? data.user : null;
      const event: LiquidityEvent = { ...base(), kind: 'liquidity', ...dex, poolId, provider, ...change };
      out.push({ event, statesPool: null });
    }
  }
}

type SwapFields = Pick<SwapEvent, 'poolId' | 'trader' | 'tokenIn' | 'tokenOut' | 'amountIn' | 'amountOut' | 'totalFee' | 'adminFee'>;

/** The engine's `swap` of the xyk DEX, completed by the inner `swap` that preceded it when they agree. */
function engineSwap(data: Json, inner: InnerSwap | null): SwapFields | null {
  const request = asObject(data.request);
  if (request === null || typeof request.asset_in !== 'string' || typeof request.asset_out !== 'string') return null;
  const tokenIn = tokenOf(request.asset_in);
  const tokenOut = tokenOf(request.asset_out);
  const amountIn = parseU128(data.amount_in);
  const amountOut = parseU128(data.amount_out);
  if (tokenIn === null || tokenOut === null || amountIn === null || amountOut === null) return null;
  const matched =
    inner !== null &&
    inner.assetIn === request.asset_in &&
    inner.assetOut === request.asset_out &&
    inner.amountIn === amountIn &&
    inner.amountOut === amountOut;
  return {
    poolId: matched ? inner.poolId : poolIdOfMessage(request.message),
    trader: typeof data.trader === 'string' && isValidAccountId(data.trader) ? data.trader : null,
    tokenIn,
    tokenOut,
    amountIn,
    amountOut,
    totalFee: matched ? inner.totalFee : null,
    adminFee: matched ? inner.adminFee : null,
  };
}

/**
 * The xyk DEX's `swap {pool_id, request, amount_in, amount_out, fees_breakdown}`. `fees_breakdown` items are
 * `[receiver, asset, amount]` (older builds: `[receiver, amount]`, always in the input asset; `amount_out` was
 * once `amount_out_after_fees`). The fees are summed when all are in the input asset (a launch-pool sell pays the
 * non-pool fees in the quote asset: then null); `adminFee` is the part that leaves the pool (non-`Pool`).
 */
function innerSwapOf(poolId: number, data: Json): InnerSwap | null {
  const request = asObject(data.request);
  if (request === null || typeof request.asset_in !== 'string' || typeof request.asset_out !== 'string') return null;
  const amountIn = parseU128(data.amount_in);
  const amountOut = parseU128(data.amount_out ?? data.amount_out_after_fees);
  if (amountIn === null || amountOut === null || !Array.isArray(data.fees_breakdown)) return null;
  let totalFee: bigint | null = 0n;
  let adminFee: bigint | null = 0n;
  for (const item of data.fees_breakdown) {
    if (!Array.isArray(item) || (item.length !== 2 && item.length !== 3)) return null;
    const receiver = feeReceiverOf(item[0]);
    const amount = parseU128(item[item.length - 1]);
    if (receiver === null || amount === null) return null;
    const asset: unknown = item.length === 3 ? item[1] : request.asset_in;
    if (asset !== request.asset_in) {
      totalFee = null;
      adminFee = null;
    }
    if (totalFee === null || adminFee === null) continue;
    totalFee += amount;
    if (receiver.kind !== 'pool') adminFee += amount;
  }
  return { poolId, assetIn: request.asset_in, assetOut: request.asset_out, amountIn, amountOut, totalFee, adminFee };
}

/** `liquidity_added {asset_0, asset_1, added_amount_0, added_amount_1, minted_shares, ...}` and the removal twin. */
function liquidityChange(action: 'add' | 'remove', data: Json): Pick<LiquidityEvent, 'action' | 'tokens' | 'amounts' | 'shares'> | null {
  const verb = action === 'add' ? 'added' : 'removed';
  const token0 = typeof data.asset_0 === 'string' ? tokenOf(data.asset_0) : null;
  const token1 = typeof data.asset_1 === 'string' ? tokenOf(data.asset_1) : null;
  const amount0 = parseU128(data[`${verb}_amount_0`]);
  const amount1 = parseU128(data[`${verb}_amount_1`]);
  const shares = parseU128(data[action === 'add' ? 'minted_shares' : 'burned_shares']);
  if (token0 === null || token1 === null || amount0 === null || amount1 === null || shares === null) return null;
  // Private pools have no shares: the contract reports 0.
  return { action, tokens: [token0, token1], amounts: [amount0, amount1], shares: shares === 0n ? null : shares };
}

/**
 * A `PoolView` (externally tagged): `{Private: {assets, fees, fee_configuration, owner_id, locked}}`,
 * `{Public: {assets, fees, fee_configuration, total_shares}}`, `{Launch: {near_amount, launched_asset, fees,
 * fee_configuration, phantom_liquidity_near}}`, `{LaunchV2: {quote_asset, launched_asset, fees,
 * fee_configuration, phantom_liquidity}}`. null when a part does not parse or an asset is not NEAR or NEP-141.
 */
function poolState(view: Json | null): AmmCPoolState | null {
  if (view === null) return null;
  const [variant, ...others] = Object.keys(view);
  if (variant === undefined || others.length > 0) return null;
  const body = asObject(view[variant]);
  if (body === null) return null;
  const feeReceivers = feeReceiversOf(asObject(body.fees));
  if (feeReceivers === null) return null;
  const totalFee = feeReceivers.reduce((sum, r) => sum + r.fee, 0);

  let poolType: AmmCPoolState['poolType'];
  let assets: Array<[string, bigint] | null>;
  let phantomLiquidity: bigint | null = null;
  let totalShares: bigint | null = null;
  switch (variant) {
    case 'Private':
    case 'Public': {
      poolType = variant === 'Private' ? 'private' : 'public';
      const pair = Array.isArray(body.assets) && body.assets.length === 2 ? body.assets : null;
      if (pair === null) return null;
      assets = [assetWithBalance(pair[0]), assetWithBalance(pair[1])];
      if (variant === 'Public' && body.total_shares !== null) {
        totalShares = parseU128(body.total_shares);
        if (totalShares === null) return null;
      }
      break;
    }
    case 'Launch': {
      poolType = 'launch';
      const nearAmount = parseU128(body.near_amount);
      assets = [nearAmount === null ? null : ['near', nearAmount], assetWithBalance(body.launched_asset)];
      phantomLiquidity = parseU128(body.phantom_liquidity_near);
      if (phantomLiquidity === null) return null;
      break;
    }
    case 'LaunchV2': {
      poolType = 'launch';
      assets = [assetWithBalance(body.quote_asset), assetWithBalance(body.launched_asset)];
      phantomLiquidity = parseU128(body.phantom_liquidity);
      if (phantomLiquidity === null) return null;
      break;
    }
    default:
      return null;
  }
  const [a0, a1] = assets;
  if (a0 == null || a1 == null) return null;
  return {
    kind: 'xyk',
    poolType,
    tokens: [a0[0], a1[0]],
    amounts: [a0[1], a1[1]],
    totalFee,
    feeReceivers,
    phantomLiquidity,
    totalShares,
  };
}

/** `{asset_id: "near" | "nep141:x", balance: "123"}` -> [token, balance]. */
function assetWithBalance(value: unknown): [string, bigint] | null {
  const o = asObject(value);
  if (o === null || typeof o.asset_id !== 'string') return null;
  const token = tokenOf(o.asset_id);
  const balance = parseU128(o.balance);
  return token === null || balance === null ? null : [token, balance];
}

/** `CurrentFees {receivers: [[FeeReceiver, u32 millionths], ...]}`. */
function feeReceiversOf(fees: Json | null): AmmCFeeReceiver[] | null {
  if (fees === null || !Array.isArray(fees.receivers)) return null;
  const receivers: AmmCFeeReceiver[] = [];
  for (const item of fees.receivers) {
    if (!Array.isArray(item) || item.length !== 2) return null;
    const receiver = feeReceiverOf(item[0]);
    const fee: unknown = item[1];
    if (receiver === null || typeof fee !== 'number' || !Number.isInteger(fee) || fee < 0 || fee >= 1_000_000) return null;
    receivers.push({ ...receiver, fee });
  }
  return receivers;
}

/** `FeeReceiver` as serde writes it: `"Pool"`, `{"Account": id}` or `{"Community": id}`. */
function feeReceiverOf(value: unknown): Omit<AmmCFeeReceiver, 'fee'> | null {
  if (value === 'Pool') return { kind: 'pool', accountId: null };
  const o = asObject(value);
  if (o === null) return null;
  const accountId = o.Account ?? o.Community;
  if (typeof accountId !== 'string' || !isValidAccountId(accountId) || Object.keys(o).length !== 1) return null;
  return { kind: 'Account' in o ? 'account' : 'community', accountId };
}

/** The engine's asset ids as our token ids: `near` -> `near`, `nep141:x` -> `x`; other kinds (NEP-245...) -> null. */
function tokenOf(assetId: string): string | null {
  if (assetId === 'near') return 'near';
  if (!assetId.startsWith('nep141:')) return null;
  const contract = assetId.slice('nep141:'.length);
  return isValidAccountId(contract) ? contract : null;
}

/** The swap request's `message`: base64 of the borsh `SwapArgs {pool_id: u32}`. */
function poolIdOfMessage(message: unknown): number | null {
  if (typeof message !== 'string') return null;
  const bytes = Buffer.from(message, 'base64');
  if (bytes.length !== 4) return null;
  const id = bytes.readUInt32LE(0);
  return id === LAST_CREATED_POOL_MARKER ? null : id;
}

function asPoolId(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

