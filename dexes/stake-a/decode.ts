// Block -> StakeA events (Meta Pool, `meta-pool.near`, whose contract is also the stNEAR token). Pure; see
// README.md for the exact log lines and their sources.
// - stake: the plain JSON log `{"event":"STAKE","account":A,"amount":N}` (NEAR staked, after the storage cost a new
//   account pays) paired with the NEP-141 `ft_mint` to A in the same receipt (stNEAR minted);
// - liquid unstake: `{"event":"LIQ.U","account_id":A,"stnear":S,"near":N}`, with the fee from the
//   `treasury_st_near_cut:.. fee_in_st_near:F` line logged before it (stNEAR units);
// - rate: the contract's last `STATE` write of the block (storage); its logs never state the rate exactly.
import type { Block } from '../../near/block.ts';
import { NEAR_TOKEN_ID } from '../../near/token-id.ts';
import type { DexContracts } from '../contracts.ts';
import type { DexEvent } from '../events.ts';
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
import { stakeRateState } from '../stake/rate.ts';
import { META_POOL_STATE_RATE_ORIGIN, readMetaPoolStateRate } from './state.ts';

const STAKE_LOG = '{"event":"STAKE"';
const LIQUID_UNSTAKE_LOG = '{"event":"LIQ.U"';
const FEE_CUTS_LOG = /^treasury_st_near_cut:(\d+) operator_st_near_cut:(\d+) developers_st_near_cut:(\d+) fee_in_st_near:(\d+)$/;

export function decodeStakeA(block: Block, contracts: DexContracts): DexEvent[] {
  const stNear = contracts.StakeA;
  const sink = new StakeEventSink(block, 'StakeA', stNear);

  for (const outcome of successfulOutcomesOf(block, stNear)) {
    const mints = ftMintsOf(outcome);
    const paired = new Set<number>();
    let fee: { total: bigint; admin: bigint } | null = null;
    for (const log of outcome.logs) {
      const cuts = FEE_CUTS_LOG.exec(log);
      if (cuts !== null) {
        // treasury + operator + developers leave the liquidity pool: the admin part of the fee.
        const cut = (i: number): bigint => BigInt(cuts[i] as string);
        fee = { total: cut(4), admin: cut(1) + cut(2) + cut(3) };
        continue;
      }
      if (log.startsWith(STAKE_LOG)) {
        const o = parseJsonObject(log);
        const trader = o === null ? null : accountField(o, 'account');
        const amountIn = o === null ? null : amountField(o, 'amount');
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
  const rate = b64 === undefined ? null : readMetaPoolStateRate(Buffer.from(b64, 'base64'));
  if (write !== undefined && rate !== null) {
    const { receiptId, txHash } = causeOf(block, write);
    const state = stakeRateState(NEAR_TOKEN_ID, stNear, rate.totalForStaking, rate.totalShares, META_POOL_STATE_RATE_ORIGIN);
    sink.poolState(receiptId, txHash, state, 'storage');
  }
  return sink.events;
}
