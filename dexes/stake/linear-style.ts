// Decoding shared by the LiNEAR-style liquid-staking contracts: StakeB (LiNEAR, `linear-protocol.near`) and
// StakeD (rNEAR, `lst.rhealab.near`). Both emit, on every stake, a NEP-297 `stake` event and the plain log
// `Contract total staked balance is <N>. Total number of shares <S>` (the rate after the stake); see
// dexes/stake-b/README.md for the sources. Pure: no I/O; contract-controlled text never makes this throw.
import type { Block, ReceiptOutcome, StateChange } from '../../near/block.ts';
import { NEAR_TOKEN_ID } from '../../near/token-id.ts';
import type { DexEvent } from '../events.ts';
import {
  StakeEventSink,
  accountField,
  amountField,
  causeOf,
  lastStateWrite,
  parseEventJson,
  successfulOutcomesOf,
} from './emit.ts';
import { asRecord } from '../../near/nep297.ts';
import { stakeRateState } from './rate.ts';

export interface LinearStyleOptions {
  dex: 'StakeB' | 'StakeD';
  contractId: string;
  /**
   * Reads [total NEAR staked, total shares] from the contract's `STATE` value, or null when it does not decode as
   * expected; absent when the contract's storage layout is not known (then only the log gives the rate).
   */
  readStateRate?: (value: Uint8Array) => { totalStaked: bigint; totalShares: bigint } | null;
  /** Names `rateOrigin` for a storage rate, e.g. `STATE: total_staked_near_amount / total_share_amount`. */
  stateRateOrigin?: string;
}

/** The events that are trades, and their amount fields. `instant_unstake` is pre-1.6 LiNEAR; its `fee_amount` (NEAR)
 * exists in later builds of the event only. */
const SWAP_EVENTS = new Map<string, { stakes: boolean; amountIn: string; amountOut: string; fee?: string }>([
  ['stake', { stakes: true, amountIn: 'staked_amount', amountOut: 'minted_stake_shares' }],
  ['instant_unstake', { stakes: false, amountIn: 'swapped_stake_shares', amountOut: 'unstaked_amount', fee: 'fee_amount' }],
]);

const TOTALS_LOG = /^Contract total staked balance is (\d+)\. Total number of shares (\d+)$/;
export const TOTALS_LOG_ORIGIN = 'log: Contract total staked balance is <N>. Total number of shares <S>';

/**
 * Swaps from the events of SWAP_EVENTS, then one pool state: the contract's last `STATE` write when the layout is
 * known and it decodes, else the last totals log line of the block.
 */
export function decodeLinearStyle(block: Block, options: LinearStyleOptions): DexEvent[] {
  const { contractId } = options;
  const sink = new StakeEventSink(block, options.dex, contractId);
  let lastTotals: { outcome: ReceiptOutcome; totalStaked: bigint; totalShares: bigint } | undefined;

  for (const outcome of successfulOutcomesOf(block, contractId)) {
    for (const log of outcome.logs) {
      const totals = TOTALS_LOG.exec(log);
      if (totals !== null) {
        lastTotals = { outcome, totalStaked: BigInt(totals[1] as string), totalShares: BigInt(totals[2] as string) };
        continue;
      }
      // The standard is not checked: LiNEAR writes `linear` (a variant seen in public code `linear-protocol`) and
      // rNEAR's is not confirmed; the executor already pins the contract, and nep141 has no `stake` event.
      const ev = parseEventJson(log);
      if (ev === null || ev.standard === 'nep141') continue;
      const shape = SWAP_EVENTS.get(ev.event);
      if (shape === undefined) continue;
      for (const item of ev.data) {
        const o = asRecord(item);
        const trader = o === null ? null : accountField(o, 'account_id');
        const amountIn = o === null ? null : amountField(o, shape.amountIn);
        const amountOut = o === null ? null : amountField(o, shape.amountOut);
        if (o === null || trader === null || amountIn === null || amountOut === null) continue;
        const [tokenIn, tokenOut] = shape.stakes ? [NEAR_TOKEN_ID, contractId] : [contractId, NEAR_TOKEN_ID];
        const totalFee = shape.fee === undefined ? null : amountField(o, shape.fee);
        sink.swap(outcome, { trader, tokenIn, tokenOut, amountIn, amountOut, totalFee });
      }
    }
  }

  const storageRate = options.readStateRate === undefined ? null : rateFromLastStateWrite(block, contractId, options.readStateRate);
  if (storageRate !== null) {
    const { receiptId, txHash } = causeOf(block, storageRate.write);
    const state = stakeRateState(NEAR_TOKEN_ID, contractId, storageRate.totalStaked, storageRate.totalShares, options.stateRateOrigin ?? 'STATE');
    sink.poolState(receiptId, txHash, state, 'storage');
  } else if (lastTotals !== undefined) {
    const { outcome, totalStaked, totalShares } = lastTotals;
    sink.poolState(outcome.receiptId, outcome.txHash, stakeRateState(NEAR_TOKEN_ID, contractId, totalStaked, totalShares, TOTALS_LOG_ORIGIN), 'event');
  }
  return sink.events;
}

function rateFromLastStateWrite(
  block: Block,
  contractId: string,
  read: NonNullable<LinearStyleOptions['readStateRate']>,
): { write: StateChange; totalStaked: bigint; totalShares: bigint } | null {
  const write = lastStateWrite(block, contractId);
  const b64 = write?.change.valueBase64;
  if (write === undefined || b64 === undefined) return null;
  const rate = read(Buffer.from(b64, 'base64'));
  return rate === null ? null : { write, ...rate };
}
