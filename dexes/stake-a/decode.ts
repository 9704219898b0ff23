// Block -> StakeA events (Meta Pool, `meta-pool.near`, whose contract is also the stNEAR token). Pure; see
// README.md for the exact log lines and their sources.
// - stake: the plain JSON log `{"event":"STAKE","account":A,"amount":N}` (NEAR staked, after the storage cost a new
//   account pays) paired with the NEP-141 `ft_mint` to A in the same receipt (stNEAR minted);
// - liquid unstake: `{"event":"LIQ.U","account_id":A,"stnear":S,"near":N}`, with the fee from the
//   `treasury_st_near_cut:.. fee_in_st_near:F` line logged before it (stNEAR units);
// - rate and liquid-unstake fee curve: the contract's last `STATE` write of the block (storage); its logs never state
//   the rate exactly;
// - the liquid-unstake pool's NEAR (events.ts): from the NSLP lines of the logs, one `nslp` event per block.
import type { Block, ReceiptOutcome } from '../../near/block.ts';
import { NEAR_TOKEN_ID } from '../../near/token-id.ts';
import type { DexContracts } from '../contracts.ts';
import type { DexEvent } from '../events.ts';
import type { StakeANslpEvent } from './events.ts';
import {
  StakeEventSink,
  accountField,
  amountField,
  causeOf,
  ftMintsOf,
  lastStateWrite,
  successfulOutcomesOf,
} from '../stake/emit.ts';
import { parseJsonObject } from '../../near/nep297.ts';
import { stakeRateState, type StakeRateState } from '../stake/rate.ts';
import type { MetaPoolFeeCurve } from './math.ts';
import { META_POOL_STATE_RATE_ORIGIN, readMetaPoolState } from './state.ts';

const STAKE_LOG = '{"event":"STAKE"';
const LIQUID_UNSTAKE_LOG = '{"event":"LIQ.U"';
const FEE_CUTS_LOG = /^treasury_st_near_cut:(\d+) operator_st_near_cut:(\d+) developers_st_near_cut:(\d+) fee_in_st_near:(\d+)$/;
/** Logged by every liquid unstake before it pays: the NSLP's NEAR at that moment (`internal_get_discount_basis_points`). */
const DISCOUNT_LOG = /^get_discount_basis_points available_near=(\d+) {2}max_nears_to_pay=\d+$/;
/** The NSLP's own lines: NEAR in by internal clearing and liquidity additions, out by liquidity removals. */
const NSLP_MOVES: Record<string, { field: string; sign: bigint }> = {
  '{"event":"NSLP.clr"': { field: 'amount', sign: 1n },
  '{"event":"ADD.L"': { field: 'amount', sign: 1n },
  '{"event":"REM.L"': { field: 'near', sign: -1n },
};
/** The contract's NSLP_INTERNAL_ACCOUNT (an id no one can sign for): its `STAKE` is the operator's stake_from_nslp. */
const NSLP_ACCOUNT = '..NSLP..';

/** The StakeA pool state: the rate, and the liquid-unstake fee curve when STATE gave it. */
export type MetaPoolState = StakeRateState & Partial<{ nslpLiquidityTarget: bigint; nslpMinDiscountBps: number; nslpMaxDiscountBps: number }>;

export function decodeStakeA(block: Block, contracts: DexContracts): Array<DexEvent | StakeANslpEvent> {
  const stNear = contracts.StakeA;
  const sink = new StakeEventSink<StakeANslpEvent>(block, 'StakeA', stNear);
  // The NSLP's NEAR through the block: known from a liquid unstake's log on; the net move over all of it; the
  // receipt of its last move (none: the block did not move it).
  const nslp: { available: bigint | null; delta: bigint; last: ReceiptOutcome | null } = { available: null, delta: 0n, last: null };
  const moveNslp = (outcome: ReceiptOutcome, delta: bigint) => {
    nslp.delta += delta;
    if (nslp.available !== null) nslp.available += delta;
    nslp.last = outcome;
  };

  for (const outcome of successfulOutcomesOf(block, stNear)) {
    // The contract's creation (`new`): its pool starts empty, a figure as exact as a liquid unstake's.
    if (outcome.receipt.kind === 'Action' && outcome.receipt.actions.some((a) => a.kind === 'FunctionCall' && a.methodName === 'new')) {
      nslp.available = 0n;
      nslp.last = outcome;
    }
    const mints = ftMintsOf(outcome);
    const paired = new Set<number>();
    let fee: { total: bigint; admin: bigint } | null = null;
    let nslpBefore: bigint | null = null;
    for (const log of outcome.logs) {
      const discount = DISCOUNT_LOG.exec(log);
      if (discount !== null) {
        nslpBefore = BigInt(discount[1] as string);
        continue;
      }
      const move = NSLP_MOVES[log.slice(0, log.indexOf(','))];
      if (move !== undefined) {
        const amount = amountFieldOf(log, move.field);
        if (amount !== null) moveNslp(outcome, move.sign * amount);
        continue;
      }
      const cuts = FEE_CUTS_LOG.exec(log);
      if (cuts !== null) {
        // treasury + operator + developers leave the liquidity pool: the admin part of the fee.
        const cut = (i: number): bigint => BigInt(cuts[i] as string);
        fee = { total: cut(4), admin: cut(1) + cut(2) + cut(3) };
        continue;
      }
      if (log.startsWith(STAKE_LOG)) {
        const o = parseJsonObject(log);
        const amountIn = o === null ? null : amountField(o, 'amount');
        if (o?.account === NSLP_ACCOUNT && amountIn !== null) moveNslp(outcome, -amountIn);
        const trader = o === null ? null : accountField(o, 'account');
        if (trader === null || amountIn === null) continue;
        // Stakes without a mint (the operator's `stake_from_nslp`) are not trades.
        const i = mints.findIndex((m, j) => m.owner === trader && !paired.has(j));
        const mint = mints[i];
        if (mint === undefined) continue;
        paired.add(i);
        sink.swap(outcome, { trader, tokenIn: NEAR_TOKEN_ID, tokenOut: stNear, amountIn, amountOut: mint.amount });
      } else if (log.startsWith(LIQUID_UNSTAKE_LOG)) {
        const o = parseJsonObject(log);
        const trader = o === null ? null : accountField(o, 'account_id');
        const amountIn = o === null ? null : amountField(o, 'stnear');
        const amountOut = o === null ? null : amountField(o, 'near');
        if (trader === null || amountIn === null || amountOut === null) continue;
        moveNslp(outcome, -amountOut);
        if (nslpBefore !== null) nslp.available = nslpBefore - amountOut;
        nslpBefore = null;
        sink.swap(outcome, {
          trader,
          tokenIn: stNear,
          tokenOut: NEAR_TOKEN_ID,
          amountIn,
          amountOut,
          totalFee: fee?.total ?? null,
          adminFee: fee?.admin ?? null,
        });
        fee = null;
      }
    }
  }

  const write = lastStateWrite(block, stNear);
  const b64 = write?.change.valueBase64;
  const figures = b64 === undefined ? null : readMetaPoolState(Buffer.from(b64, 'base64'));
  if (write !== undefined && figures !== null) {
    const { receiptId, txHash } = causeOf(block, write);
    const rate = stakeRateState(NEAR_TOKEN_ID, stNear, figures.totalForStaking, figures.totalShares, META_POOL_STATE_RATE_ORIGIN);
    sink.poolState(receiptId, txHash, { ...rate, ...feeCurveFields(figures.feeCurve) }, 'storage');
  }
  const { available, delta, last } = nslp;
  if (last !== null) {
    sink.events.push({ ...sink.base(last.receiptId, last.txHash), kind: 'nslp', dex: 'StakeA', contractId: stNear, available, delta });
  }
  return sink.events;
}

function feeCurveFields(curve: MetaPoolFeeCurve | null): Partial<MetaPoolState> {
  return curve === null ? {} : { nslpLiquidityTarget: curve.liquidityTarget, nslpMinDiscountBps: curve.minDiscountBps, nslpMaxDiscountBps: curve.maxDiscountBps };
}

/** A u128 field of a JSON log line, or null. */
function amountFieldOf(log: string, field: string): bigint | null {
  const o = parseJsonObject(log);
  return o === null ? null : amountField(o, field);
}
