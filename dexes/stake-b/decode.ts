// Block -> StakeB events (LiNEAR, `linear-protocol.near`): stakes and the historical instant unstakes as swaps, the
// exchange rate as pool state (from the contract's STATE write, else its totals log). Pure. See README.md.
import type { Block } from '../../near/block.ts';
import type { DexContracts } from '../contracts.ts';
import type { DexEvent } from '../events.ts';
import { decodeLinearStyle } from '../stake/linear-style.ts';
import { LINEAR_STATE_RATE_ORIGIN, readLinearStateRate } from './state.ts';

export function decodeStakeB(block: Block, contracts: DexContracts): DexEvent[] {
  return decodeLinearStyle(block, {
    dex: 'StakeB',
    contractId: contracts.StakeB,
    readStateRate: readLinearStateRate,
    stateRateOrigin: LINEAR_STATE_RATE_ORIGIN,
  });
}
