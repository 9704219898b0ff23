// Block -> Launch events (Aidols bonding curve `aidols.near`; tokens `*.aidols.near`, quoted in wNEAR). Pure.
//
// Each trade logs one NEP-297 event `token_swap` with a list of items {user_id, input_token, input_amount,
// output_token, output_amount, referral_id, token_hold, wnear_hold, wnear_commission} (field set as
// INTEARnear/trade-indexer reads it for aidols.near). Per item: a `swap` (pool = the aidol token), then the curve's
// `pool_state` from the item's holds; the block's last state per token is kept. Only successful receipts executed
// by the contract count: a failed receipt keeps its logs but nothing happened. The event's `standard` is not
// checked (it is not known for sure (?)); contract-controlled text never makes this throw.
import type { Block, ReceiptOutcome } from '../../near/block.ts';
import { isSuccess } from '../../near/decode.ts';
import { isValidAccountId } from '../../near/token-id.ts';
import { parseEventLog } from '../../near/nep297.ts';
import { parseU128 } from '../../near/units.ts';
import type { DexContracts } from '../contracts.ts';
import type { DexEvent, SwapEvent } from '../events.ts';
import { LAUNCH_DEX_ID, LAUNCH_FEE_MILLIONTHS, LAUNCH_MIN_FEE, type LaunchPoolStateEvent } from './events.ts';

interface Trade {
  token: string;
  swap: Pick<SwapEvent, 'trader' | 'tokenIn' | 'tokenOut' | 'amountIn' | 'amountOut' | 'totalFee'>;
  holds: [bigint, bigint];
}

export function decodeLaunch(block: Block, contracts: DexContracts): DexEvent[] {
  const pending: Array<{ event: DexEvent; statesPool: string | null }> = [];
  for (const shard of block.shards) {
    for (const outcome of shard.receiptOutcomes) {
      if (outcome.executorId !== contracts.Launch || !isSuccess(outcome)) continue;
      for (const trade of outcome.logs.flatMap((log) => tradesOf(log, contracts.Wrap))) {
        pending.push(...eventsOf(block, outcome, contracts, trade));
      }
    }
  }
  // Only the block's last state of each curve is kept; then indices count per receipt in log order.
  const lastStateAt = new Map<string, number>();
  pending.forEach((p, i) => {
    if (p.statesPool !== null) lastStateAt.set(p.statesPool, i);
  });
  const nextIndex = new Map<string, number>();
  return pending.flatMap((p, i) => {
    if (p.statesPool !== null && lastStateAt.get(p.statesPool) !== i) return [];
    p.event.index = nextIndex.get(p.event.receiptId) ?? 0;
    nextIndex.set(p.event.receiptId, p.event.index + 1);
    return [p.event];
  });
}

function eventsOf(block: Block, outcome: ReceiptOutcome, contracts: DexContracts, trade: Trade) {
  const base = {
    blockHeight: block.height,
    timestampMs: block.timestampMs,
    receiptId: outcome.receiptId,
    txHash: outcome.txHash,
    index: 0,
    dex: LAUNCH_DEX_ID,
    contractId: contracts.Launch,
    poolId: trade.token,
  } as const;
  const swap: SwapEvent = { ...base, kind: 'swap', ...trade.swap, adminFee: null };
  const state: LaunchPoolStateEvent = {
    ...base,
    kind: 'pool_state',
    source: 'event',
    state: {
      kind: 'curve',
      tokens: [trade.token, contracts.Wrap],
      amounts: [...trade.holds],
      totalFee: LAUNCH_FEE_MILLIONTHS,
      minFee: LAUNCH_MIN_FEE,
    },
  };
  return [
    { event: swap, statesPool: null },
    { event: state, statesPool: trade.token },
  ];
}

/** The items of a `token_swap` event line; all or none (a half-valid event is a broken contract). */
function tradesOf(log: string, wrap: string): Trade[] {
  const parsed = parseEventLog(log, 'token_swap');
  if (parsed === null || parsed.event !== 'token_swap' || !Array.isArray(parsed.data)) return [];
  const data = parsed.data;
  const trades: Trade[] = [];
  for (const item of data) {
    const trade = item !== null && typeof item === 'object' ? tradeOf(item as Record<string, unknown>, wrap) : null;
    if (trade === null) return [];
    trades.push(trade);
  }
  return trades;
}

function tradeOf(item: Record<string, unknown>, wrap: string): Trade | null {
  const { user_id: user, input_token: tokenIn, output_token: tokenOut } = item;
  const amountIn = parseU128(item.input_amount);
  const amountOut = parseU128(item.output_amount);
  const tokenHold = parseU128(item.token_hold);
  const wnearHold = parseU128(item.wnear_hold);
  const commission = parseU128(item.wnear_commission);
  if (typeof tokenIn !== 'string' || typeof tokenOut !== 'string') return null;
  if (amountIn === null || amountOut === null || tokenHold === null || wnearHold === null || commission === null) return null;
  // One side is wNEAR, the other the aidol token whose curve this is.
  const token = tokenIn === wrap ? tokenOut : tokenOut === wrap ? tokenIn : null;
  if (token === null || token === wrap || !isValidAccountId(token)) return null;
  const trader = typeof user === 'string' && isValidAccountId(user) ? user : null;
  return {
    token,
    swap: { trader, tokenIn, tokenOut, amountIn, amountOut, totalFee: commission },
    holds: [tokenHold, wnearHold],
  };
}
