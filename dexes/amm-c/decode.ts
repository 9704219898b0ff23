// Block -> AmmC events (the Intear DEX engine `dex.intear.near` and its xyk DEX "Plach" `slimedragon.near/xyk`). Pure.
//
// Everything comes from the engine's logs of SUCCESSFUL receipts it executed (a failed receipt keeps its logs in
// the block but none of its effects). The engine runs a DEX's wasm inside its own receipt and re-emits each of the
// DEX's `EVENT_JSON` logs as the `inteardex` event `dex_event {dex_id, event, referrer, user}`, `user` being the
// trader of a swap and the caller of a DEX call. Grades and sources: README.md.
// - pool state: xyk `pool_updated {pool_id, pool}` (the full `PoolView`); the block's LAST one per pool counts.
// - trades: xyk `swap {pool_id, request, amount_in, amount_out, fees_breakdown}`, trader = the wrapper's `user`, as
//   Intear's own indexer reads them (T). The engine's source also logs its own `swap {dex_id, request, amount_in,
//   amount_out, trader, referrer}` after each hop (S): that is the same hop, so it adds no trade when an inner swap
//   of the same assets and amounts came before it in the receipt; alone, it is the hop (pool id from the request's
//   message, fees unknown).
// - liquidity: xyk `liquidity_added` / `liquidity_removed` (12 fields, T), provider = the wrapper's `user`.
// Nothing from the chain makes this throw. The engine's other events and plain-text lines (a known list from its
// source), events of the engine's other DEXes, and pools or hops in an asset kind we have no token id for are
// skipped; any other line becomes an `undecoded` event. One for a `pool_updated` names the pool: its state is stale
// until a readable one arrives.

import type { Block, ReceiptOutcome } from '../../near/block.ts';
import { isSuccess } from '../../near/decode.ts';
import type { EventBase, UndecodedEvent } from '../../near/events.ts';
import { asRecord, parseEventLog } from '../../near/nep297.ts';
import { isValidAccountId } from '../../near/token-id.ts';
import { parseU128 } from '../../near/units.ts';
import type { DexContracts } from '../contracts.ts';
import type { DexEvent, LiquidityEvent, SwapEvent } from '../events.ts';
import { AMM_C_DEX_ID, type AmmCFeeReceiver, type AmmCPoolState, type AmmCPoolStateEvent } from './events.ts';

export type AmmCEvent = DexEvent | UndecodedEvent;

type Json = Record<string, unknown>;

const ENGINE_STANDARD = 'inteardex';
const XYK_STANDARD = 'xyk';
/** `SwapArgs.pool_id` u32::MAX means "the pool created last" (batched create + buy): not a real id. */
const LAST_CREATED_POOL_MARKER = 0xffff_ffff;

/** Engine events that say nothing we index (INTEARnear/dex engine source; `user_withdraw` and `swap_step` are a
 * pre-release engine's names). The engine's `swap` and `dex_event` are read. */
const KNOWN_ENGINE_EVENTS = new Set(['dex_deployed', 'user_deposit', 'withdraw', 'user_balance_update', 'dex_balance_update', 'user_withdraw', 'swap_step']);
/** Plain-text lines the engine's source logs (src/internal_operations.rs): nothing we index. */
const KNOWN_PLAIN_LINES = [/^Fully authorized: (true|false)$/, /^After withdraw: /, /^Refunding to \S+ because withdrawal to \S+ failed: /];
/** A DEX's own plain-text log as the engine re-logs it (src/host_functions.rs `log_utf8`): `[<dex id>] <text>`. */
const DEX_PLAIN_LINE = /^\[([^\]\s]+)\] /;
/** Asset kinds the engine trades that our token vocabulary has no id for (Intear's own indexer skips them too). */
const OTHER_ASSET_KIND = /^nep(245|171):/;

/** Why a line cannot be read; caught per line, it becomes an `undecoded` event (naming `poolId`'s stale state). */
class Unreadable extends Error {
  constructor(
    reason: string,
    readonly poolId: number | null = null,
  ) {
    super(reason);
  }
}
/** A pool or hop in an asset kind we do not index (`nep245`, `nep171`): the line is skipped. */
class OtherAssetKind extends Error {
  constructor(readonly assetKind: string) {
    super(`${assetKind} asset`);
  }
}

/** An event before its index is known, and the pool whose state it gives (pool_state, or an unreadable one). */
interface Pending {
  event: AmmCEvent;
  statesPool: number | null;
}

/** What one receipt's lines share while they are read. */
interface ReceiptReading {
  base: () => EventBase;
  xyk: string;
  contractId: string;
  out: Pending[];
  /** The receipt's inner swaps not yet paired with an engine `swap`. */
  unpaired: Array<{ assetIn: string; assetOut: string; amountIn: bigint; amountOut: bigint; event: SwapEvent }>;
}

export function decodeAmmC(block: Block, contracts: DexContracts): AmmCEvent[] {
  const pending: Pending[] = [];
  for (const shard of block.shards) {
    for (const outcome of shard.receiptOutcomes) {
      if (outcome.executorId !== contracts.AmmC || !isSuccess(outcome)) continue;
      decodeOutcome(block, outcome, contracts, pending);
    }
  }

  // Only the block's last state of each pool counts (a state we could not read, superseded, no longer names it);
  // then indices count per receipt in log order.
  const lastStateAt = new Map<number, number>();
  pending.forEach((p, i) => {
    if (p.statesPool !== null) lastStateAt.set(p.statesPool, i);
  });
  const nextIndex = new Map<string, number>();
  const events: AmmCEvent[] = [];
  pending.forEach((p, i) => {
    let event = p.event;
    if (p.statesPool !== null && lastStateAt.get(p.statesPool) !== i) {
      if (event.kind !== 'undecoded') return;
      event = { ...event, poolId: null };
    }
    const index = nextIndex.get(event.receiptId) ?? 0;
    nextIndex.set(event.receiptId, index + 1);
    events.push({ ...event, index });
  });
  return events;
}

function decodeOutcome(block: Block, outcome: ReceiptOutcome, contracts: DexContracts, out: Pending[]): void {
  const receipt: ReceiptReading = {
    base: () => ({ blockHeight: block.height, timestampMs: block.timestampMs, receiptId: outcome.receiptId, txHash: outcome.txHash, index: 0 }),
    xyk: contracts.AmmCXykDexId,
    contractId: contracts.AmmC,
    out,
    unpaired: [],
  };
  for (const log of outcome.logs) {
    try {
      readLine(receipt, log);
    } catch (err) {
      if (err instanceof OtherAssetKind) continue;
      if (!(err instanceof Unreadable)) throw err;
      out.push({ event: undecoded(receipt, log, err.message, err.poolId), statesPool: err.poolId });
    }
  }
}

function readLine(receipt: ReceiptReading, log: string): void {
  const event = parseEventLog(log);
  if (event === null) {
    const dexId = DEX_PLAIN_LINE.exec(log)?.[1];
    if (dexId === receipt.xyk) throw new Unreadable('a plain-text log of the xyk DEX');
    if (dexId !== undefined || KNOWN_PLAIN_LINES.some((line) => line.test(log))) return;
    throw new Unreadable(log.startsWith('EVENT_JSON:') ? 'not a NEP-297 event' : 'not a known log line of the engine');
  }
  if (event.standard !== ENGINE_STANDARD) throw new Unreadable(`unknown event standard ${event.standard}`);
  if (KNOWN_ENGINE_EVENTS.has(event.event)) return;
  if (event.event !== 'dex_event' && event.event !== 'swap') throw new Unreadable(`unknown inteardex event ${event.event}`);
  const data = object(event.data, `${event.event} data`);
  if (typeof data.dex_id !== 'string') throw new Unreadable(`${event.event} without a dex_id`);
  if (data.dex_id !== receipt.xyk) return; // another DEX inside the engine
  if (event.event === 'swap') engineSwap(receipt, data);
  else xykEvent(receipt, data, log);
}

/** An xyk event from its `dex_event` wrapper. */
function xykEvent(receipt: ReceiptReading, wrapper: Json, log: string): void {
  const inner = object(wrapper.event, 'dex_event event');
  if (inner.standard !== XYK_STANDARD) throw new Unreadable(`unknown xyk DEX event standard ${String(inner.standard)}`);
  const data = object(inner.data, `xyk ${String(inner.event)} data`);
  const user = accountOrNull(wrapper.user);
  const at = { ...receipt.base(), dex: AMM_C_DEX_ID, contractId: receipt.contractId } as const;
  switch (inner.event) {
    case 'pool_updated': {
      const poolId = poolIdOf(data.pool_id);
      let state: AmmCPoolState;
      try {
        state = poolState(object(data.pool, 'pool'));
      } catch (err) {
        throw err instanceof Unreadable ? new Unreadable(`pool_updated: ${err.message}`, poolId) : err;
      }
      const event: AmmCPoolStateEvent = { ...at, kind: 'pool_state', poolId, state, source: 'event' };
      receipt.out.push({ event, statesPool: poolId });
      return;
    }
    case 'swap': {
      const request = object(data.request, 'swap request');
      const [assetIn, assetOut] = [assetIdOf(request.asset_in, 'asset_in'), assetIdOf(request.asset_out, 'asset_out')];
      const amountIn = u128(data, 'amount_in');
      // Early xyk builds named it `amount_out_after_fees` (S).
      const amountOut = u128(data, data.amount_out === undefined ? 'amount_out_after_fees' : 'amount_out');
      const event: SwapEvent = {
        ...at,
        kind: 'swap',
        poolId: poolIdOf(data.pool_id),
        trader: user,
        tokenIn: tokenOf(assetIn),
        tokenOut: tokenOf(assetOut),
        amountIn,
        amountOut,
        totalFee: null,
        adminFee: null,
      };
      receipt.out.push({ event, statesPool: null });
      receipt.unpaired.push({ assetIn, assetOut, amountIn, amountOut, event });
      // The hop stands without its fees; fees we cannot read are reported, not guessed.
      if (data.fees_breakdown === undefined) return;
      try {
        Object.assign(event, feesOf(data.fees_breakdown, assetIn));
      } catch (err) {
        if (!(err instanceof Unreadable)) throw err;
        receipt.out.push({ event: undecoded(receipt, log, `swap fees_breakdown: ${err.message}`, null), statesPool: null });
      }
      return;
    }
    case 'liquidity_added':
    case 'liquidity_removed': {
      const event: LiquidityEvent = { ...at, kind: 'liquidity', poolId: poolIdOf(data.pool_id), provider: user, ...liquidityChange(inner.event, data) };
      receipt.out.push({ event, statesPool: null });
      return;
    }
    default:
      throw new Unreadable(`unknown xyk event ${String(inner.event)}`);
  }
}

/** The engine's own `swap` of an xyk hop: the inner swap's twin, or the hop itself when no inner swap matches. */
function engineSwap(receipt: ReceiptReading, data: Json): void {
  const request = object(data.request, 'swap request');
  const [assetIn, assetOut] = [assetIdOf(request.asset_in, 'asset_in'), assetIdOf(request.asset_out, 'asset_out')];
  const amountIn = u128(data, 'amount_in');
  const amountOut = u128(data, 'amount_out');
  const trader = accountOrNull(data.trader);
  const twin = receipt.unpaired.findLastIndex((u) => u.assetIn === assetIn && u.assetOut === assetOut && u.amountIn === amountIn && u.amountOut === amountOut);
  if (twin >= 0) {
    const [inner] = receipt.unpaired.splice(twin, 1);
    inner!.event.trader ??= trader;
    return;
  }
  const event: SwapEvent = {
    ...receipt.base(),
    kind: 'swap',
    dex: AMM_C_DEX_ID,
    contractId: receipt.contractId,
    poolId: poolIdOfMessage(request.message),
    trader,
    tokenIn: tokenOf(assetIn),
    tokenOut: tokenOf(assetOut),
    amountIn,
    amountOut,
    totalFee: null,
    adminFee: null,
  };
  receipt.out.push({ event, statesPool: null });
}

/**
 * `fees_breakdown` items `[receiver, asset, amount]` (early builds: `[receiver, amount]`, in the input asset). The
 * fees are summed when all are in the input asset (a launch-pool sell pays the non-pool fees in the quote asset:
 * then null); `adminFee` is the part that leaves the pool (receiver not `Pool`).
 */
function feesOf(breakdown: unknown, assetIn: string): Pick<SwapEvent, 'totalFee' | 'adminFee'> {
  if (!Array.isArray(breakdown)) throw new Unreadable('not a list');
  let totalFee = 0n;
  let adminFee = 0n;
  let allInInput = true;
  for (const item of breakdown) {
    if (!Array.isArray(item) || (item.length !== 2 && item.length !== 3)) throw new Unreadable('an item is not [receiver, asset, amount]');
    const receiver = feeReceiverOf(item[0]);
    const amount = parseU128(item.at(-1));
    const asset: unknown = item.length === 3 ? item[1] : assetIn;
    if (receiver === null || amount === null || typeof asset !== 'string') throw new Unreadable('an item is not [receiver, asset, amount]');
    allInInput &&= asset === assetIn;
    totalFee += amount;
    if (receiver.kind !== 'pool') adminFee += amount;
  }
  return allInInput ? { totalFee, adminFee } : { totalFee: null, adminFee: null };
}

const LIQUIDITY_TOTALS = ['new_owned_asset_0', 'new_owned_asset_1', 'new_owned_shares', 'new_total_asset_0', 'new_total_asset_1', 'new_total_shares'];

/** `liquidity_added {pool_id, asset_0, asset_1, added_amount_0, added_amount_1, minted_shares, new_owned_asset_0/1,
 * new_owned_shares, new_total_asset_0/1, new_total_shares}` and the removal twin (`removed_amount_*`,
 * `burned_shares`): all 12 fields are read, the totals only checked. */
function liquidityChange(event: 'liquidity_added' | 'liquidity_removed', data: Json): Pick<LiquidityEvent, 'action' | 'tokens' | 'amounts' | 'shares'> {
  const added = event === 'liquidity_added';
  const verb = added ? 'added' : 'removed';
  const tokens = [tokenOf(assetIdOf(data.asset_0, 'asset_0')), tokenOf(assetIdOf(data.asset_1, 'asset_1'))];
  const amounts = [u128(data, `${verb}_amount_0`), u128(data, `${verb}_amount_1`)];
  const shares = u128(data, added ? 'minted_shares' : 'burned_shares');
  for (const field of LIQUIDITY_TOTALS) u128(data, field);
  // Private pools have no shares: the contract reports 0.
  return { action: added ? 'add' : 'remove', tokens, amounts, shares: shares === 0n ? null : shares };
}

/** What one `PoolView` in its JSON shape gives: the pool's state, the asset kind that keeps it out of our vocabulary
 * (`nep245`, `nep171`), or why it cannot be read. For a bootstrap's views (bootstrap.ts), read as `pool_updated` is. */
export function ammCPoolStateOfView(view: unknown): { state: AmmCPoolState } | { otherAssetKind: string } | { unreadable: string } {
  try {
    return { state: poolState(object(view, 'pool')) };
  } catch (err) {
    if (err instanceof OtherAssetKind) return { otherAssetKind: err.assetKind };
    if (err instanceof Unreadable) return { unreadable: err.message };
    throw err;
  }
}

/**
 * A `PoolView` (externally tagged): `{Private: {assets, fees, fee_configuration, owner_id, locked}}`,
 * `{Public: {assets, fees, fee_configuration, total_shares}}`, `{Launch: {near_amount, launched_asset, fees,
 * fee_configuration, phantom_liquidity_near}}`, `{LaunchV2: {quote_asset, launched_asset, fees,
 * fee_configuration, phantom_liquidity}}`. Only what the state needs is read.
 */
function poolState(view: Json): AmmCPoolState {
  const [variant, ...others] = Object.keys(view);
  if (variant === undefined || others.length > 0) throw new Unreadable('the pool is not one variant');
  const body = object(view[variant], variant);
  let poolType: AmmCPoolState['poolType'];
  let assets: [[string, bigint], [string, bigint]];
  let phantomLiquidity: bigint | null = null;
  let totalShares: bigint | null = null;
  switch (variant) {
    case 'Private':
    case 'Public': {
      poolType = variant === 'Private' ? 'private' : 'public';
      if (!Array.isArray(body.assets) || body.assets.length !== 2) throw new Unreadable('assets is not a pair');
      assets = [assetWithBalance(body.assets[0]), assetWithBalance(body.assets[1])];
      if (variant === 'Public' && body.total_shares !== null) totalShares = u128(body, 'total_shares');
      break;
    }
    case 'Launch':
      poolType = 'launch';
      assets = [['near', u128(body, 'near_amount')], assetWithBalance(body.launched_asset)];
      phantomLiquidity = u128(body, 'phantom_liquidity_near');
      break;
    case 'LaunchV2':
      poolType = 'launch';
      assets = [assetWithBalance(body.quote_asset), assetWithBalance(body.launched_asset)];
      phantomLiquidity = u128(body, 'phantom_liquidity');
      break;
    default:
      throw new Unreadable(`unknown pool variant ${variant}`);
  }
  const feeReceivers = feeReceiversOf(body.fees);
  const totalFee = feeReceivers.reduce((sum, r) => sum + r.fee, 0);
  const [[token0, amount0], [token1, amount1]] = assets;
  return { kind: 'xyk', poolType, tokens: [token0, token1], amounts: [amount0, amount1], totalFee, feeReceivers, phantomLiquidity, totalShares };
}

/** `{asset_id: "near" | "nep141:x", balance: "123"}` -> [token, balance]. */
function assetWithBalance(value: unknown): [string, bigint] {
  const o = object(value, 'an asset');
  return [tokenOf(assetIdOf(o.asset_id, 'asset_id')), u128(o, 'balance')];
}

/** `CurrentFees {receivers: [[FeeReceiver, u32 millionths], ...]}`. */
function feeReceiversOf(value: unknown): AmmCFeeReceiver[] {
  const fees = object(value, 'fees');
  if (!Array.isArray(fees.receivers)) throw new Unreadable('fees.receivers is not a list');
  return fees.receivers.map((item: unknown) => {
    const receiver = Array.isArray(item) && item.length === 2 ? feeReceiverOf(item[0]) : null;
    const fee: unknown = Array.isArray(item) ? item[1] : null;
    if (receiver === null || typeof fee !== 'number' || !Number.isInteger(fee) || fee < 0 || fee >= 1_000_000) {
      throw new Unreadable('a fee receiver is not [receiver, millionths]');
    }
    return { ...receiver, fee };
  });
}

/** `FeeReceiver` as serde writes it: `"Pool"`, `{"Account": id}` or `{"Community": id}`. */
function feeReceiverOf(value: unknown): Omit<AmmCFeeReceiver, 'fee'> | null {
  if (value === 'Pool') return { kind: 'pool', accountId: null };
  const o = asRecord(value);
  if (o === null) return null;
  const accountId = o.Account ?? o.Community;
  if (typeof accountId !== 'string' || !isValidAccountId(accountId) || Object.keys(o).length !== 1) return null;
  return { kind: 'Account' in o ? 'account' : 'community', accountId };
}

/** An engine asset id (`near`, `nep141:<id>`, `nep245:<id>:<token>`, `nep171:<id>:<token>`), checked as text. */
function assetIdOf(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new Unreadable(`${what} is not an asset id`);
  return value;
}

/** The engine's asset ids as our token ids: `near` -> `near`, `nep141:x` -> `x`; NEP-245 and NEP-171 are skipped. */
function tokenOf(assetId: string): string {
  if (assetId === 'near') return 'near';
  const other = OTHER_ASSET_KIND.exec(assetId);
  if (other !== null) throw new OtherAssetKind(`nep${other[1]!}`);
  const contract = assetId.startsWith('nep141:') ? assetId.slice('nep141:'.length) : '';
  if (!isValidAccountId(contract)) throw new Unreadable(`${assetId} is not an asset id`);
  return contract;
}

/** The swap request's `message`: base64 of the borsh `SwapArgs {pool_id: u32}`. */
function poolIdOfMessage(message: unknown): number | null {
  if (typeof message !== 'string') return null;
  const bytes = Buffer.from(message, 'base64');
  if (bytes.length !== 4) return null;
  const id = bytes.readUInt32LE(0);
  return id === LAST_CREATED_POOL_MARKER ? null : id;
}

function poolIdOf(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new Unreadable('pool_id is not a pool id');
  return value;
}

function object(value: unknown, what: string): Json {
  const o = asRecord(value);
  if (o === null) throw new Unreadable(`${what} is not an object`);
  return o;
}

function u128(o: Json, field: string): bigint {
  const v = parseU128(o[field]);
  if (v === null) throw new Unreadable(`${field} is not a u128`);
  return v;
}

function accountOrNull(value: unknown): string | null {
  return typeof value === 'string' && isValidAccountId(value) ? value : null;
}

function undecoded(receipt: ReceiptReading, log: string, reason: string, poolId: number | null): UndecodedEvent {
  return {
    ...receipt.base(),
    kind: 'undecoded',
    dex: AMM_C_DEX_ID,
    input: 'log',
    contractId: receipt.contractId,
    poolId: poolId === null ? null : String(poolId),
    reason,
    raw: log,
  };
}
