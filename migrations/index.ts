// Ordered, forward-only schema migrations. A migration is a module exporting `up`; add it here under a name
// that sorts after the previous ones. Listed statically so they load the same under node, tsx and vitest.
import type { Migration } from 'kysely';
import * as init from './0001_init.ts';
import * as tokenProjections from './0002_token_projections.ts';
import * as pools from './0003_pools.ts';
import * as tradeHops from './0004_trade_hops.ts';
import * as tradesPricesCandles from './0005_trades_prices_candles.ts';
import * as tradeReceipts from './0006_trade_receipts.ts';
import * as ratesIndex from './0007_rates_index.ts';
import * as nslpIndex from './0008_nslp_index.ts';
import * as undecoded from './0009_undecoded.ts';
import * as deferredIndexes from './0010_deferred_indexes.ts';
import * as partitionedHistory from './0011_partitioned_history.ts';
import * as readIndexes from './0012_read_indexes.ts';
import * as pricesAtIndex from './0013_prices_at_index.ts';
import * as balancesFirstHeight from './0014_balances_first_height.ts';
import * as hopVolume from './0015_hop_volume.ts';
import * as marketBeyond from './0016_market_beyond.ts';
import * as backfillRanges from './0017_backfill_ranges.ts';

export const migrations: Record<string, Migration> = {
  '0001_init': init,
  '0002_token_projections': tokenProjections,
  '0003_pools': pools,
  '0004_trade_hops': tradeHops,
  '0005_trades_prices_candles': tradesPricesCandles,
  '0006_trade_receipts': tradeReceipts,
  '0007_rates_index': ratesIndex,
  '0008_nslp_index': nslpIndex,
  '0009_undecoded': undecoded,
  '0010_deferred_indexes': deferredIndexes,
  '0011_partitioned_history': partitionedHistory,
  '0012_read_indexes': readIndexes,
  '0013_prices_at_index': pricesAtIndex,
  '0014_balances_first_height': balancesFirstHeight,
  '0015_hop_volume': hopVolume,
  '0016_market_beyond': marketBeyond,
  '0017_backfill_ranges': backfillRanges,
};
