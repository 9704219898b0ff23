// `token_activity`: per token, its buys, sells and unique traders over the 24 h up to the market clock, from the
// `trades` table (docs/methodology.md). A buy of T is a trade whose token_out is T, a sell one whose token_in is T;
// conversions (wraps, inner-balance moves, stakes: isVolumeSwap) are not counted, as they are not volume.
//
// Exact and batching-independent: each batch recounts, over the window (clock - 24 h, clock], the tokens of its own
// counted trades and those of the trades the window left as the clock moved. A token gets its row with its first
// counted trade, whatever its time, so which rows exist does not depend on where batches end either. The recount
// reads a token's trades of the window through trades_token_in / trades_token_out, bounded by height.
import type { Tx } from '../../db/connect.ts';
import { sql } from '../../db/kysely.ts';
import { DEXES } from '../../dexes/index.ts';
import { NEAR_TOKEN_ID } from '../../near/token-id.ts';
import { DAY_MS, type MarketClock } from './prices.ts';
import type { Trade } from './trades.ts';
import { isVolumeSwap } from './market.ts';

const WRAP_DEXES = DEXES.filter((d) => d.activity === 'wrap').map((d) => d.id);
const STAKE_DEXES = DEXES.filter((d) => d.activity === 'stake').map((d) => d.id);

/** isVolumeSwap in SQL, over a trades row (a trade is one DEX's hops, and a stake DEX's trade one hop). */
const counted = sql`not (dex = any(${WRAP_DEXES}::text[]) or (dex = any(${STAKE_DEXES}::text[]) and token_out <> ${NEAR_TOKEN_ID}))`;

/** Recounts the activity of the batch's tokens and of those whose trades left the window; returns the tokens written. */
export async function writeActivity(tx: Tx, trades: readonly Trade[], previous: MarketClock | undefined, clock: MarketClock): Promise<Set<string>> {
  const kysely = tx.kysely;
  const windowStart = clock.timestampMs - DAY_MS;
  const previousStart = previous ? previous.timestampMs - DAY_MS : null;
  const touched = new Set<string>();
  for (const t of trades) if (isVolumeSwap(t.dex, t.tokenOut)) touched.add(t.tokenIn).add(t.tokenOut);
  if (previousStart !== null && windowStart > previousStart) {
    const left = await sql<{ token_in: string; token_out: string }>`
      select distinct token_in, token_out from trades
      where timestamp_ms > ${previousStart} and timestamp_ms <= ${windowStart} and ${counted}`.execute(kysely);
    for (const r of left.rows) touched.add(r.token_in).add(r.token_out);
  }
  if (!touched.size) return touched;
  const tokens = [...touched].sort();
  // Heights at or below the last block at or before the window's start hold no trade of the window (block times
  // only grow), so the token indexes are read from there on; that block is found through blocks_timestamp.
  const { rows } = await sql<{ token: string; buys: number; sells: number; traders: number }>`
    with bound as (
      select coalesce((select height from blocks where timestamp_ms <= ${windowStart} order by timestamp_ms desc, height desc limit 1), -1) as height
    ),
    w as (
      select token_in, token_out, trader from trades
      where (token_in = any(${tokens}::text[]) or token_out = any(${tokens}::text[]))
        and block_height > (select height from bound) and timestamp_ms > ${windowStart} and timestamp_ms <= ${clock.timestampMs} and ${counted}
    ),
    sides as (select token_out as token, 1 as buy, trader from w union all select token_in, 0, trader from w)
    select token, sum(buy)::int as buys, (count(*) - sum(buy))::int as sells, count(distinct trader)::int as traders
    from sides where token = any(${tokens}::text[]) group by token`.execute(kysely);
  const byToken = new Map(rows.map((r) => [r.token, r]));
  const buys = tokens.map((t) => byToken.get(t)?.buys ?? 0);
  const sells = tokens.map((t) => byToken.get(t)?.sells ?? 0);
  const traders = tokens.map((t) => byToken.get(t)?.traders ?? 0);
  await sql`
    insert into token_activity (token, buys_24h, sells_24h, traders_24h)
    select * from unnest(${tokens}::text[], ${buys}::int[], ${sells}::int[], ${traders}::int[])
    on conflict (token) do update set buys_24h = excluded.buys_24h, sells_24h = excluded.sells_24h, traders_24h = excluded.traders_24h`.execute(kysely);
  return touched;
}
