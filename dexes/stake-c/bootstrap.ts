// StakeC's bootstrap (`Dex.bootstrap`): xRHEA's rate at one block from its views. Its source is not public
// (README.md "Bootstrap"), so what is read is what is known of them:
//   get_virtual_price {} -> U128   RHEA per xRHEA × 10^8, rounded down (C: a live aggregator prices with it; in xREF,
//                                  which xRHEA descends from, (locked + reward due now)·10^8 / supply)
//   ft_total_supply {} -> U128     the xRHEA supply (NEP-141)
//   contract_metadata {}           an object; `cur_locked_token_amount` (U128), the RHEA locked with the reward due at
//                                  the block's time, is xREF's field and one a RHEA adapter reads from xRHEA (C)
// The rate is [cur_locked_token_amount, supply] when those two give get_virtual_price back, the stake formula's own
// figures in xREF; else [get_virtual_price, 10^8], rounded. Either way the pool is approximate: the formula is xREF's,
// unconfirmed for xRHEA, and the indexer's own state is a stake's amounts (decode.ts). Pure but for the view calls.
import { parseU128 } from '../../near/units.ts';
import { PoolsImportError, type BootstrapState, type ChainAt, type DexBootstrap } from '../dex.ts';
import { answerObject, stakeStateEvent, u128Answer } from '../stake/bootstrap.ts';
import { stakeRateState } from '../stake/rate.ts';

/** get_virtual_price's unit: 10^8 for one xRHEA. */
export const XRHEA_PRICE_SCALE = 10n ** 8n;

export const XRHEA_LOCKED_RATE_ORIGIN = 'contract_metadata.cur_locked_token_amount / ft_total_supply';
export const XRHEA_PRICE_RATE_ORIGIN = 'get_virtual_price / 10^8';

const LOCKED_APPROXIMATE = "xRHEA's source is not public: the rate is xREF's locked RHEA / xRHEA supply, which get_virtual_price agrees with";
const PRICE_APPROXIMATE = 'get_virtual_price is RHEA per xRHEA rounded down to 8 decimals (contract_metadata gave no locked amount that agrees with it)';

export const stakeCBootstrap: DexBootstrap = {
  async read(at: ChainAt): Promise<BootstrapState> {
    const xRhea = at.contracts.StakeC;
    const rhea = at.contracts.StakeCUnderlying;
    const price = u128Answer(`${xRhea}.get_virtual_price`, await at.view(xRhea, 'get_virtual_price'));
    if (price === 0n) throw new PoolsImportError(`${xRhea}.get_virtual_price returned 0: no rate`);
    const supply = u128Answer(`${xRhea}.ft_total_supply`, await at.view(xRhea, 'ft_total_supply'));
    const metadata = answerObject(`${xRhea}.contract_metadata`, await at.view(xRhea, 'contract_metadata'));
    // xRHEA names it `locked_token_id` (the adapter), xREF `locked_token`: another token is another contract.
    for (const field of ['locked_token_id', 'locked_token']) {
      const token = metadata[field];
      if (token !== undefined && token !== rhea) throw new PoolsImportError(`${xRhea}.contract_metadata: ${field} ${JSON.stringify(token)} is not ${rhea}`);
    }
    const locked = parseU128(metadata.cur_locked_token_amount);
    const agrees = locked !== null && supply > 0n && (locked * XRHEA_PRICE_SCALE) / supply === price;
    const state = agrees
      ? { ...stakeRateState(rhea, xRhea, locked, supply, XRHEA_LOCKED_RATE_ORIGIN), approximate: LOCKED_APPROXIMATE }
      : { ...stakeRateState(rhea, xRhea, price, XRHEA_PRICE_SCALE, XRHEA_PRICE_RATE_ORIGIN), approximate: PRICE_APPROXIMATE };
    return { events: [stakeStateEvent('StakeC', xRhea, state)] };
  },
};
