// Block -> Wrap events: 1:1 conversions as swaps of dex `Wrap`. Pure; see README.md for the exact logs and calls.
// - wrap / unwrap at the wNEAR contract (`wrap.near`): a successful receipt with a `near_deposit` (`near_withdraw`)
//   call; the amount is what near/decode.ts reads from its `Deposit <n> NEAR to <a>` (`Withdraw <n> NEAR from <a>`)
//   log as an `ft_mint` (`ft_burn`): the mint, net of the storage fee an unregistered account pays.
// - token -> its AmmA inner balance: the exchange's successful `ft_on_transfer` with msg "" (a plain deposit; the
//   predecessor is the token), and back: its successful `withdraw {token_id, amount}`.
// No pool state: the rate is 1:1 by construction, so a swap's pool is null.
// The wNEAR lines themselves are the core decoder's (near/decode.ts reads them and reports the ones it cannot):
// what Wrap reports is a successful `near_deposit` (`near_withdraw`) receipt that yields no mint (burn) and no line
// the core reported either (no line at all, or one in a wording nobody reads): a conversion it cannot tell.
import type { Block, ReceiptOutcome } from '../../near/block.ts';
import { decodeBlock, isSuccess } from '../../near/decode.ts';
import type { EventBase, UndecodedEvent } from '../../near/events.ts';
import { NEAR_TOKEN_ID, formatTokenId, isValidAccountId } from '../../near/token-id.ts';
import { parseU128 } from '../../near/units.ts';
import type { DexContracts } from '../contracts.ts';
import type { DexEvent, SwapEvent } from '../events.ts';

type Conversion = Pick<SwapEvent, 'contractId' | 'trader' | 'tokenIn' | 'tokenOut' | 'amountIn'>;

export function decodeWrap(block: Block, contracts: DexContracts): Array<DexEvent | UndecodedEvent> {
  const events: Array<DexEvent | UndecodedEvent> = [];
  const nextIndex = new Map<string, number>();
  const base = (outcome: ReceiptOutcome): EventBase => {
    const index = nextIndex.get(outcome.receiptId) ?? 0;
    nextIndex.set(outcome.receiptId, index + 1);
    return { blockHeight: block.height, timestampMs: block.timestampMs, receiptId: outcome.receiptId, txHash: outcome.txHash, index };
  };
  const push = (outcome: ReceiptOutcome, c: Conversion): void => {
    events.push({ ...base(outcome), kind: 'swap', dex: 'Wrap', poolId: null, ...c, amountOut: c.amountIn, totalFee: null, adminFee: null });
  };

  for (const shard of block.shards) {
    for (const outcome of shard.receiptOutcomes) {
      if (!isSuccess(outcome) || outcome.receipt.kind !== 'Action') continue;
      if (outcome.executorId === contracts.Wrap) {
        const { conversions, missing } = wnearConversions(block, outcome, contracts.Wrap);
        for (const c of conversions) push(outcome, c);
        if (missing !== null) {
          const reason = `${missing} without a readable ${missing === 'near_deposit' ? 'mint' : 'burn'}`;
          events.push({ ...base(outcome), kind: 'undecoded', dex: 'Wrap', input: 'log', contractId: contracts.Wrap, poolId: null, reason, raw: outcome.logs.join('\n') });
        }
      } else if (outcome.executorId === contracts.AmmA) {
        for (const c of innerBalanceConversions(outcome, contracts.AmmA)) push(outcome, c);
      }
    }
  }
  return events;
}

/**
 * Wraps (mints of a `near_deposit` receipt) and unwraps (burns of a `near_withdraw` receipt), in log order; `missing`
 * names the call when the receipt yields none and the core decoder reported none of its lines.
 */
function wnearConversions(block: Block, outcome: ReceiptOutcome, wnear: string): { conversions: Conversion[]; missing: 'near_deposit' | 'near_withdraw' | null } {
  const none = { conversions: [], missing: null };
  if (outcome.receipt.kind !== 'Action') return none;
  const methods = outcome.receipt.actions.flatMap((a) => (a.kind === 'FunctionCall' ? [a.methodName] : []));
  const wraps = methods.includes('near_deposit');
  const unwraps = methods.includes('near_withdraw');
  if (!wraps && !unwraps) return none;
  // The core decoder owns the wNEAR log formats (legacy text and NEP-141 events): run it on this receipt alone.
  const oneReceipt: Block = { ...block, shards: [{ shardId: 0, chunk: null, receiptOutcomes: [outcome], stateChanges: [] }] };
  const out: Conversion[] = [];
  let coreReported = false;
  for (const e of decodeBlock(oneReceipt, { wrapContracts: new Set([wnear]) })) {
    if (e.kind === 'undecoded') coreReported = true;
    if (e.kind === 'ft_mint' && wraps && e.contractId === wnear) {
      out.push({ contractId: wnear, trader: e.owner, tokenIn: NEAR_TOKEN_ID, tokenOut: wnear, amountIn: e.amount });
    } else if (e.kind === 'ft_burn' && unwraps && e.contractId === wnear) {
      out.push({ contractId: wnear, trader: e.owner, tokenIn: wnear, tokenOut: NEAR_TOKEN_ID, amountIn: e.amount });
    }
  }
  const missing = out.length > 0 || coreReported ? null : wraps ? 'near_deposit' : 'near_withdraw';
  return { conversions: out, missing };
}

/** Deposits into (`ft_on_transfer`, msg "") and withdrawals from (`withdraw`) the exchange's inner balances. */
function innerBalanceConversions(outcome: ReceiptOutcome, exchange: string): Conversion[] {
  if (outcome.receipt.kind !== 'Action') return [];
  const out: Conversion[] = [];
  for (const action of outcome.receipt.actions) {
    if (action.kind !== 'FunctionCall') continue;
    const args = parseArgs(action.argsBase64);
    if (args === null) continue;
    if (action.methodName === 'ft_on_transfer' && args.msg === '') {
      const token = outcome.predecessorId;
      const sender = args.sender_id;
      const amount = parseU128(args.amount);
      if (typeof sender !== 'string' || !isValidAccountId(sender) || amount === null || amount === 0n) continue;
      const inner = formatTokenId({ kind: 'inner-nep141', contractId: token });
      out.push({ contractId: exchange, trader: sender, tokenIn: token, tokenOut: inner, amountIn: amount });
    } else if (action.methodName === 'withdraw') {
      const token = args.token_id;
      const amount = parseU128(args.amount);
      if (typeof token !== 'string' || !isValidAccountId(token) || amount === null || amount === 0n) continue;
      const inner = formatTokenId({ kind: 'inner-nep141', contractId: token });
      out.push({ contractId: exchange, trader: outcome.predecessorId, tokenIn: inner, tokenOut: token, amountIn: amount });
    }
  }
  return out;
}

function parseArgs(argsBase64: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(argsBase64, 'base64').toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
