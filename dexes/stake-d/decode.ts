// Block -> StakeD events (rNEAR, `lst.rhealab.near`, a LiNEAR-style contract): stakes as swaps, the exchange rate
// as pool state from the contract's totals log (its storage layout is not known). Pure. See README.md.
import type { Block } from '../../near/block.ts';
import type { DexContracts } from '../contracts.ts';
import type { DexEvent } from '../events.ts';
import { decodeLinearStyle } from '../stake/linear-style.ts';

export function decodeStakeD(block: Block, contracts: DexContracts): DexEvent[] {
  return decodeLinearStyle(block, { dex: 'StakeD', contractId: contracts.StakeD });
}
