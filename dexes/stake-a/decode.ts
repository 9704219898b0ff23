// Block -> StakeA events (Meta Pool, `meta-pool.near`, whose contract is also the stNEAR token). Pure; see
// README.md for the exact log lines and their sources.
// - stake: the plain JSON log `{"event":"STAKE","account":A,"amount":N}` (NEAR staked, after the storage cost a new
//   account pays) paired with the NEP-141 `ft_mint` to A in the same receipt (stNEAR minted);
// - liquid unstake: `{"event":"LIQ.U","account_id":A,"stnear":S,"near":N}`, with the fee from the
//   `treasury_st_near_cut:.. fee_in_st_near:F` line logged before it (stNEAR units);
// - rate and liquid-unstake fee curve: the contract's last `STATE` write of the block (storage); its logs never state
//   the rate exactly;
// - the liquid-unstake pool's NEAR (events.ts): from the NSLP lines of the logs, one `nslp` event per block.
// Any other line must be one the source writes (META_POOL_LOGS); a line that is not, a decoded line we cannot read,
// and a STATE value whose rate does not read become `undecoded` events (the last one makes the pool stale).
import type { Block, ReceiptOutcome } from '../../near/block.ts';
import type { UndecodedEvent } from '../../near/events.ts';
import { NEAR_TOKEN_ID } from '../../near/token-id.ts';
import type { DexContracts } from '../contracts.ts';
import type { DexEvent } from '../events.ts';
import type { StakeANslpEvent } from './events.ts';
import {
  KnownLogs,
  StakeEventSink,
  accountField,
  amountField,
  causeOf,
  ftMintsOf,
  lastStateWrite,
  successfulOutcomesOf,
  unreadableStateReason,
} from '../stake/emit.ts';
import { parseJsonObject } from '../../near/nep297.ts';
import { stakeRateState, type StakeRateState } from '../stake/rate.ts';
import type { MetaPoolFeeCurve } from './math.ts';
import { META_POOL_STATE_RATE_ORIGIN, readMetaPoolState, type MetaPoolStateFigures } from './state.ts';

const STAKE_LOG = '{"event":"STAKE"';
const LIQUID_UNSTAKE_LOG = '{"event":"LIQ.U"';
const FEE_CUTS_PREFIX = 'treasury_st_near_cut:';
const FEE_CUTS_LOG = /^treasury_st_near_cut:(\d+) operator_st_near_cut:(\d+) developers_st_near_cut:(\d+) fee_in_st_near:(\d+)$/;
/** Logged by every liquid unstake before it pays: the NSLP's NEAR at that moment (`internal_get_discount_basis_points`). */
const DISCOUNT_PREFIX = 'get_discount_basis_points ';
const DISCOUNT_LOG = /^get_discount_basis_points available_near=(\d+) {2}max_nears_to_pay=\d+$/;
/** The NSLP's own lines: NEAR in by internal clearing and liquidity additions, out by liquidity removals. */
const NSLP_MOVES: Record<string, { field: string; sign: bigint }> = {
  '{"event":"NSLP.clr"': { field: 'amount', sign: 1n },
  '{"event":"ADD.L"': { field: 'amount', sign: 1n },
  '{"event":"REM.L"': { field: 'near', sign: -1n },
};
/** The contract's NSLP_INTERNAL_ACCOUNT (an id no one can sign for): its `STAKE` is the operator's stake_from_nslp. */
const NSLP_ACCOUNT = '..NSLP..';

/**
 * The lines meta-pool.near's source has logged (`log!`, `event!`, and the `debug!` ones prod builds drop) that
 * decodeStakeA does not read (it reads STAKE, LIQ.U, NSLP.clr, ADD.L, REM.L, the discount and cuts lines), over the
 * whole history of Meta-Pool/liquid-staking-contract (c1f2952, 2020-11, to e9855e2, 2025-09: it holds the
 * Narwallets/meta-pool history) `metapool/src/`, and its NEP-141 events (since 700ac31, 2024-04; the core decoder
 * reads them). Left out: `{} {} {}` of the pre-launch builds up to 02a3b25 (2021-04), which would match nearly
 * anything.
 */
const META_POOL_LOGS = new KnownLogs(
  ['nep141'],
  [
    // Events that move no stNEAR against NEAR: delayed unstake and withdrawal, the operator's distribution.
    '{{"event":"D-UNSTK","account_id":"{}","amount":"{}","shares":"{}"}}',
    '{{"event":"D-WITHD","account_id":"{}","amount":"{}"}}',
    '{{"event":"{}","sp":"{}","amount":"{}"}}', // dist.stak, dist.stak.nt, retrieve, sp_has_extra, dist.unstk ...
    '{{"event":"{}.unstk","sp":"{}","amount":"{}"}}',
    '{{"event":"unstk","sp":"{}","amount_fuo":"{}","amount_fr":"{}" }}',
    '{{"event":"clr.ord","keep":"{}"}}',
    '{{"event":"rebalance","extra":"{}","retrieved_for_unstake_claims":"{}","total_unstake_claims":"{}","ufr":"{}"}}',
    '{{"event":"rebalance","retrieved_for_unstake_claims":"{}","total_unstake_claims":"{}"}}',
    '{{"event":"do_rebal_usntk", "extra":{}, "sp_inx":{}, "totExtra":{}, "unblocked":{}, "with_stake":{}}}',
    '{{"event":"gtp.req.unstk {} {}","sp":"{}","amount":"{}"}}',
    '{{"event":"gtp.req.unstk shld:{} extra:{} unstk:{} w:{} {} {}","sp":"{}","amount":"{}"}}',
    '{{"sp_inx":{},"event":"do_rebal_usntk extra:{} totExtra:{}","unblocked":{},"with_stake":{}}}',
    // Plain text.
    'new account, {} yoctos used for storage_deposit',
    "{} deposited into @{}'s account. New available balance is {}",
    '@{} deposited {}. New available balance is {}',
    'nslp internal clearing nslp_account.stake_shares {}',
    'nslp_try_liquidate_stnear_by_clearing nslp_account.stake_shares {}',
    'NSLP clearing {} {}',
    'st_near owned:{}, to_sell:{}',
    'nslp_account.add_st_near {}',
    'nslp_account.add_stake_shares {} {}',
    'stake_shares:{}, to_burn:{}',
    'treasury_stake_shares_cut:{} operator_stake_shares_cut:{} developers_stake_shares_cut:{} fee_in_stake_shares:{}',
    'treasury_stnear_cut:{} operator_stnear_cut:{} developers_stnear_cut:{} fee_in_stnear:{} stnear_non_lp_cut:{} ',
    'self.realized_meta:{}, self.staking_meter.compute_rewards(valued_stake_shares):{} self.lp_meter.compute_rewards(valued_lp_shares):{}',
    '@{} liquid-unstaked {} stNEAR, got {} NEAR',
    '@{} liquid-unstaked {} stNEAR, got {} NEAR and {} $META',
    '@{} sold {} stNEAR for {} NEAR',
    '@{} unstaked {}. Has now {} unstaked and {} stNEAR. Epoch:{}',
    '@{} unstaked {}. Has now {} unstaked and {} stnear. Epoch:{}',
    '@{} finishing unstaking. New available balance is {}',
    '@{} withdrew {} from unstaked',
    '{} unstaked moved to available',
    'no staking needed',
    'self.epoch_stake_orders == 0',
    'amount too low {}',
    'total_amount_to_stake:{} get_staking_pool_requiring_stake=>{},{}',
    'Staking of {} at @{} {}',
    'Unstaking of {} at @{} {}',
    'The withdrawal of {} from @{} {}',
    'inx:{} sp:{} old_unstaked_balance:{} new_unstaked_balance:{}',
    'positive difference {}',
    'negative difference {}',
    'Fetching total balance from the staking pool @{}',
    'INCONSISTENCY @{} says new_total_balance < our info sp.total_balance()',
    'INCONSISTENCY @{} says total_balance < sp.staked',
    'sp:{} old_balance:{} new_balance:{} rewards:{}',
    'sp:{} old_balance:{} new_balance:{} rewards:{} unstaked:{}',
    'REBUILD sp:{} staked:{}',
    'Refund {} from {} to {}',
    '{} tokens burned',
    '{} unused tokens returned',
    'transfer to contract failed',
    'call failed transfer reverted',
    'call failed. reversing transfer',
    'bytes.length {}',
    'prepaid gas {}, used gas:{}',
    'used gas:{}',
    'env::storage_byte_cost {}',
    'env::storage_usage {}',
  ],
);

/** The StakeA pool state: the rate, and the liquid-unstake fee curve when STATE gave it. */
export type MetaPoolState = StakeRateState & Partial<{ nslpLiquidityTarget: bigint; nslpMinDiscountBps: number; nslpMaxDiscountBps: number }>;

export function decodeStakeA(block: Block, contracts: DexContracts): Array<DexEvent | StakeANslpEvent | UndecodedEvent> {
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
      const unreadable = (what: string) => sink.undecodedLog(outcome, log, `${what} line does not read`);
      if (log.startsWith(DISCOUNT_PREFIX)) {
        const discount = DISCOUNT_LOG.exec(log);
        if (discount === null) unreadable('get_discount_basis_points');
        else nslpBefore = BigInt(discount[1] as string);
      } else if (log.startsWith(FEE_CUTS_PREFIX)) {
        const cuts = FEE_CUTS_LOG.exec(log);
        if (cuts === null) {
          unreadable('treasury_st_near_cut');
          continue;
        }
        // treasury + operator + developers leave the liquidity pool: the admin part of the fee.
        const cut = (i: number): bigint => BigInt(cuts[i] as string);
        fee = { total: cut(4), admin: cut(1) + cut(2) + cut(3) };
      } else if (log.startsWith(STAKE_LOG)) {
        const o = parseJsonObject(log);
        const amountIn = o === null ? null : amountField(o, 'amount');
        if (o?.account === NSLP_ACCOUNT && amountIn !== null) {
          moveNslp(outcome, -amountIn);
          continue;
        }
        const trader = o === null ? null : accountField(o, 'account');
        if (trader === null || amountIn === null) {
          unreadable('STAKE');
          continue;
        }
        // Stakes without a mint (`stake` from the available balance, builds before 700ac31 that minted no NEP-141
        // event) are not read as trades: the log does not say how much stNEAR they made.
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
        if (trader === null || amountIn === null || amountOut === null) {
          unreadable('LIQ.U');
          continue;
        }
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
      } else {
        const prefix = log.slice(0, log.indexOf(','));
        const move = NSLP_MOVES[prefix];
        if (move !== undefined) {
          const amount = amountFieldOf(log, move.field);
          if (amount === null) unreadable(prefix.slice('{"event":"'.length, -1));
          else moveNslp(outcome, move.sign * amount);
        } else if (!META_POOL_LOGS.has(log)) {
          sink.undecodedLog(outcome, log, "matches none of meta-pool.near's log formats");
        }
      }
    }
  }

  const write = lastStateWrite(block, stNear);
  if (write !== undefined) {
    let figures: MetaPoolStateFigures | undefined;
    try {
      figures = readMetaPoolState(Buffer.from(write.change.valueBase64 ?? '', 'base64'));
    } catch (err) {
      sink.undecodedState(block, write, unreadableStateReason(err));
    }
    if (figures !== undefined) {
      const { receiptId, txHash } = causeOf(block, write);
      const rate = stakeRateState(NEAR_TOKEN_ID, stNear, figures.totalForStaking, figures.totalShares, META_POOL_STATE_RATE_ORIGIN);
      const curve = figures.feeCurve;
      sink.poolState(receiptId, txHash, 'unreadable' in curve ? rate : { ...rate, ...feeCurveFields(curve) }, 'storage');
      // The rate stands; without the curve liquid unstakes are not routed.
      if ('unreadable' in curve) sink.undecodedState(block, write, curve.unreadable, false);
    }
  }
  const { available, delta, last } = nslp;
  if (last !== null) {
    sink.events.push({ ...sink.base(last.receiptId, last.txHash), kind: 'nslp', dex: 'StakeA', contractId: stNear, available, delta });
  }
  return sink.events;
}

/** The curve as the pool state's fields. */
export function feeCurveFields(curve: MetaPoolFeeCurve): Partial<MetaPoolState> {
  return { nslpLiquidityTarget: curve.liquidityTarget, nslpMinDiscountBps: curve.minDiscountBps, nslpMaxDiscountBps: curve.maxDiscountBps };
}

/** A u128 field of a JSON log line, or null. */
function amountFieldOf(log: string, field: string): bigint | null {
  const o = parseJsonObject(log);
  return o === null ? null : amountField(o, field);
}
