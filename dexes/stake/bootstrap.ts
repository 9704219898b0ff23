// What the four stake bootstraps (`Dex.bootstrap`) share: reading a view's answer strictly (an answer of another
// shape is a PoolsImportError naming the view, so nothing is written), the rate as a `pool_state` event read over
// RPC, and the `get_summary` read of the LiNEAR-style contracts (StakeB, and StakeD whose source copies the view).
// Pure but for the calls `at` makes.
import { NEAR_TOKEN_ID } from '../../near/token-id.ts';
import { parseU128 } from '../../near/units.ts';
import { PoolsImportError, type BootstrapEvent, type BootstrapState, type ChainAt } from '../dex.ts';
import { stakeRateState, type StakeRateState } from './rate.ts';

const ONE_NEAR = 10n ** 24n;

/** A value as an error message shows it. */
export function shown(value: unknown): string {
  return JSON.stringify(value)?.slice(0, 80) ?? String(value);
}

/** A view's answer that must be a JSON object; `view` names it (`contract.method`). */
export function answerObject(view: string, value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new PoolsImportError(`${view} returned ${shown(value)}, not an object`);
  return value as Record<string, unknown>;
}

/** A `U128` answer: a decimal string. */
export function u128Answer(view: string, value: unknown): bigint {
  const v = parseU128(value);
  if (v === null) throw new PoolsImportError(`${view} returned ${shown(value)}, not a u128 decimal string`);
  return v;
}

/** A `U128` field of an object answer. */
export function u128Field(view: string, o: Record<string, unknown>, field: string): bigint {
  const v = parseU128(o[field]);
  if (v === null) throw new PoolsImportError(`${view}: ${field} ${shown(o[field])} is not a u128 decimal string`);
  return v;
}

/** The staking contract's rate as a pool state read over RPC (its pool is the contract). */
export function stakeStateEvent(dex: string, contractId: string, state: StakeRateState): BootstrapEvent {
  return { kind: 'pool_state', dex, contractId, poolId: contractId, state, source: 'rpc' };
}

export const SUMMARY_RATE_ORIGIN = 'get_summary: total_staked_near_amount / total_share_amount';

/**
 * NEAR -> staked token at a LiNEAR-style contract's `get_summary {}` (`Summary`: `total_share_amount`,
 * `total_staked_near_amount`, `ft_price`, all `U128`, and figures not read): the two totals exactly, [total NEAR
 * staked, total shares]. `ft_price` is the contract's floor(N·10^24 / S) of the same totals: an answer where it is
 * not is not the view we know.
 */
export async function readSummaryRate(at: ChainAt, dex: string, contractId: string): Promise<BootstrapState> {
  const view = `${contractId}.get_summary`;
  const summary = answerObject(view, await at.view(contractId, 'get_summary'));
  const staked = u128Field(view, summary, 'total_staked_near_amount');
  const shares = u128Field(view, summary, 'total_share_amount');
  const price = u128Field(view, summary, 'ft_price');
  if (shares > 0n && price !== (staked * ONE_NEAR) / shares) {
    throw new PoolsImportError(`${view}: ft_price ${price} is not total_staked_near_amount·10^24 / total_share_amount (${(staked * ONE_NEAR) / shares})`);
  }
  return { events: [stakeStateEvent(dex, contractId, stakeRateState(NEAR_TOKEN_ID, contractId, staked, shares, SUMMARY_RATE_ORIGIN))] };
}
