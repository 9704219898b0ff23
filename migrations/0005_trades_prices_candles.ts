// The market projections (issue #4): trades (one row per user swap), prices (per token, each block its USD price
// changed), token_market (each token's current price, liquidity and 24 h figures), candles (per token and
// resolution) and market_clock (the 24 h window's end). All derived from the `events` log and rebuildable from it.
//
// USD figures are exact decimals in units of 10^-18 USD, computed with bigints (indexer/projections/prices.ts) and
// always written with 18 digits after the point. Their columns are numeric without a precision (`usd` below), and
// so are summed token volumes: any token can be created with a u128 supply and paired with real money, and a
// figure that overflowed a bounded column would stop the indexer on someone else's junk.
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';

const usd = sql`numeric`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table trades (
      block_height bigint not null,
      receipt_id text not null,
      dex text not null,
      -- event index of the first hop
      index integer not null,
      timestamp_ms bigint not null,
      tx_hash text,
      trader text,
      -- token in of the first hop, token out of the last
      token_in text not null,
      token_out text not null,
      amount_in numeric(40,0) not null,
      amount_out numeric(40,0) not null,
      hops integer not null,
      -- one per hop; NULL where the decoder could not tell the pool
      pool_ids text[] not null,
      -- null when neither token had a USD price at the block
      value_usd ${usd},
      primary key (block_height, receipt_id, dex)
    )`.execute(db);
  await sql`create index trades_token_in on trades (token_in, block_height)`.execute(db);
  await sql`create index trades_token_out on trades (token_out, block_height)`.execute(db);
  await sql`create index trades_trader on trades (trader, block_height)`.execute(db);
  // The trades leaving the 24 h volume window are read by timestamp.
  await sql`create index trades_timestamp on trades (timestamp_ms)`.execute(db);

  await sql`
    create table prices (
      token text not null,
      block_height bigint not null,
      timestamp_ms bigint not null,
      -- USD per whole token; null: the token has no price from this block on
      price_usd ${usd},
      primary key (token, block_height)
    )`.execute(db);
  // Price at a time (the last row at or before it), and the rows crossing the 24 h window's start.
  await sql`create index prices_token_time on prices (token, timestamp_ms)`.execute(db);
  await sql`create index prices_time on prices (timestamp_ms)`.execute(db);

  // A table of its own rather than columns on tokens: a token can have a price without a tokens row (it is in
  // pools but none of its transfers is indexed), and these figures change nearly every block for many tokens
  // while metadata and holder counts rarely do, so the hot, narrow rows stay apart from the wide ones.
  await sql`
    create table token_market (
      token text primary key,
      price_usd ${usd},
      -- the block of the last price change
      price_height bigint,
      -- the token's reserves in every pool that holds reserves, at its price
      liquidity_usd ${usd},
      -- USD value of the trades of the 24 h up to the market clock
      volume_usd_24h ${usd} not null default 0.000000000000000000,
      -- price now / price 24 h before the market clock - 1 (0.05 = +5%); null without an earlier price
      price_change_24h ${usd}
    )`.execute(db);

  await sql`
    create table candles (
      token text not null,
      -- 1m, 5m, 15m, 1h, 4h, 1d, 1w
      resolution text not null,
      -- UTC-aligned bucket start; weeks start on Monday 00:00 UTC
      bucket_start_ms bigint not null,
      open_usd ${usd} not null,
      high_usd ${usd} not null,
      low_usd ${usd} not null,
      close_usd ${usd} not null,
      volume_usd ${usd} not null,
      -- in the token's smallest units
      volume numeric not null,
      trades integer not null,
      primary key (token, resolution, bucket_start_ms)
    )`.execute(db);

  // One row: the latest block (and timestamp) the market projection has seen; the 24 h window ends there.
  await sql`
    create table market_clock (
      id boolean primary key default true check (id),
      block_height bigint not null,
      timestamp_ms bigint not null
    )`.execute(db);
}
