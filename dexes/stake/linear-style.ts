// Decoding shared by the LiNEAR-style liquid-staking contracts: StakeB (LiNEAR, `linear-protocol.near`) and
// StakeD (rNEAR, `lst.rhealab.near`, a LiNEAR derivative). Both emit, on every stake, a NEP-297 `stake` event of
// their own standard and the plain log `Contract total staked balance is <N>. Total number of shares <S>` (the rate
// after the stake); see dexes/stake-b/README.md and dexes/stake-d/README.md for the sources. Any other line must be
// one the contract's source writes (its `LinearStyleOptions.events` and `known`): an event of its standard with
// another name or an item we cannot read, and any unknown line, become `undecoded` events; so does a `STATE` value
// whose rate does not read (the pool is then stale, and the block's totals line is not used instead). Pure: no I/O;
// contract-controlled text never makes this throw.
import type { Block, ReceiptOutcome } from '../../near/block.ts';
import type { UndecodedEvent } from '../../near/events.ts';
import { asRecord } from '../../near/nep297.ts';
import { NEAR_TOKEN_ID } from '../../near/token-id.ts';
import type { DexEvent } from '../events.ts';
import {
  KnownLogs,
  StakeEventSink,
  accountField,
  amountField,
  causeOf,
  lastStateWrite,
  parseEventJson,
  successfulOutcomesOf,
  unreadableStateReason,
} from './emit.ts';
import { stakeRateState } from './rate.ts';

export interface LinearStyleOptions {
  dex: 'StakeB' | 'StakeD';
  contractId: string;
  /** The NEP-297 standard of the contract's own events (LiNEAR `linear`, rNEAR `rhea_lst`). */
  standard: string;
  /** Every event name of that standard the source has emitted (the trades among them are SWAP_EVENTS). */
  events: ReadonlySet<string>;
  /** The contract's other lines: other standards' events and its plain text. */
  known: KnownLogs;
  /**
   * Reads [total NEAR staked, total shares] from the contract's `STATE` value, throwing BorshError or
   * StateLayoutError when it does not read as expected; absent when the contract's storage layout is not known
   * (then only the log gives the rate).
   */
  readStateRate?: (value: Uint8Array) => { totalStaked: bigint; totalShares: bigint };
  /** Names `rateOrigin` for a storage rate, e.g. `STATE: total_staked_near_amount / total_share_amount`. */
  stateRateOrigin?: string;
}

/** The events that are trades, and their amount fields. `instant_unstake` is pre-1.6 LiNEAR; `fee_amount` (NEAR) is
 * in every version of its source, read when present. */
const SWAP_EVENTS = new Map<string, { stakes: boolean; amountIn: string; amountOut: string; fee?: string }>([
  ['stake', { stakes: true, amountIn: 'staked_amount', amountOut: 'minted_stake_shares' }],
  ['instant_unstake', { stakes: false, amountIn: 'swapped_stake_shares', amountOut: 'unstaked_amount', fee: 'fee_amount' }],
]);

const TOTALS_PREFIX = 'Contract total staked balance is ';
const TOTALS_LOG = /^Contract total staked balance is (\d+)\. Total number of shares (\d+)$/;
export const TOTALS_LOG_ORIGIN = 'log: Contract total staked balance is <N>. Total number of shares <S>';

/**
 * Swaps from the events of SWAP_EVENTS, then one pool state: the contract's last `STATE` write when the layout is
 * known (or an `undecoded` event when it does not read), else the last totals log line of the block.
 */
export function decodeLinearStyle(block: Block, options: LinearStyleOptions): Array<DexEvent | UndecodedEvent> {
  const { contractId } = options;
  const sink = new StakeEventSink(block, options.dex, contractId);
  let lastTotals: { outcome: ReceiptOutcome; totalStaked: bigint; totalShares: bigint } | undefined;

  for (const outcome of successfulOutcomesOf(block, contractId)) {
    for (const log of outcome.logs) {
      if (log.startsWith(TOTALS_PREFIX)) {
        const totals = TOTALS_LOG.exec(log);
        if (totals === null) sink.undecodedLog(outcome, log, 'totals line does not read');
        else lastTotals = { outcome, totalStaked: BigInt(totals[1] as string), totalShares: BigInt(totals[2] as string) };
        continue;
      }
      const ev = parseEventJson(log);
      if (ev === null || ev.standard !== options.standard) {
        if (!options.known.has(log)) sink.undecodedLog(outcome, log, `matches none of ${contractId}'s log formats`);
        continue;
      }
      if (!options.events.has(ev.event)) {
        sink.undecodedLog(outcome, log, `unknown ${ev.standard} event ${ev.event}`);
        continue;
      }
      const shape = SWAP_EVENTS.get(ev.event);
      if (shape === undefined) continue;
      // Every item or none: an item we cannot read means the line is not the shape we know.
      const swaps = ev.data.map((item) => {
        const o = asRecord(item);
        const trader = o === null ? null : accountField(o, 'account_id');
        const amountIn = o === null ? null : amountField(o, shape.amountIn);
        const amountOut = o === null ? null : amountField(o, shape.amountOut);
        if (o === null || trader === null || amountIn === null || amountOut === null) return null;
        const [tokenIn, tokenOut] = shape.stakes ? [NEAR_TOKEN_ID, contractId] : [contractId, NEAR_TOKEN_ID];
        const totalFee = shape.fee === undefined ? null : amountField(o, shape.fee);
        return { trader, tokenIn, tokenOut, amountIn, amountOut, totalFee };
      });
      const unreadable = swaps.findIndex((s) => s === null);
      if (unreadable >= 0 || swaps.length === 0) {
        sink.undecodedLog(outcome, log, `${ev.event} item ${Math.max(unreadable, 0)} does not read`);
        continue;
      }
      for (const s of swaps) if (s !== null) sink.swap(outcome, s);
    }
  }

  const write = options.readStateRate === undefined ? undefined : lastStateWrite(block, contractId);
  if (write !== undefined && options.readStateRate !== undefined) {
    let rate: { totalStaked: bigint; totalShares: bigint } | undefined;
    try {
      rate = options.readStateRate(Buffer.from(write.change.valueBase64 ?? '', 'base64'));
    } catch (err) {
      sink.undecodedState(block, write, unreadableStateReason(err));
    }
    if (rate !== undefined) {
      const { receiptId, txHash } = causeOf(block, write);
      const state = stakeRateState(NEAR_TOKEN_ID, contractId, rate.totalStaked, rate.totalShares, options.stateRateOrigin ?? 'STATE');
      sink.poolState(receiptId, txHash, state, 'storage');
    }
  } else if (lastTotals !== undefined) {
    const { outcome, totalStaked, totalShares } = lastTotals;
    sink.poolState(outcome.receiptId, outcome.txHash, stakeRateState(NEAR_TOKEN_ID, contractId, totalStaked, totalShares, TOTALS_LOG_ORIGIN), 'event');
  }
  return sink.events;
}
