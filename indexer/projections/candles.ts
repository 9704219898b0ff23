// The `candles` projection: per token and resolution, USD open/high/low/close, USD volume, volume in the token's
// smallest units and the trade count of each bucket.
//
// Candle prices come from trades, never from the per-block prices: a candle shows what the token actually
// traded at. A trade gives a tick to each of its two tokens when its USD value is known (one side priced at the
// trade's block; see market.ts): the valued side ticks at its own price, the other at the price the trade
// implies (its USD value over its amount). Trades with no USD value give no ticks. Volumes of a tick: the trade's
// USD value and the token's amount in the trade.
//
// Buckets start at multiples of the resolution since the Unix epoch, which is UTC midnight, so every bucket is
// aligned to UTC; weeks start on Monday 00:00 UTC (the epoch is a Thursday, so week buckets are shifted by the
// four days to the first Monday, 1970-01-05).
//
// Incremental: a batch's ticks are merged into per-bucket candles in memory, then upserted with the same merge
// (open kept, high/low widened, close replaced, volumes and counts added). Batches come in block order, so the
// merge gives the same rows whatever the batch boundaries, and no history is ever rescanned.
import type { Tx } from '../../db/connect.ts';
import { copyRows } from '../../db/copy.ts';
import type { CopyValue } from '../../db/copy-text.ts';
import { sql } from '../../db/kysely.ts';
import { formatUsd } from './prices.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
/** 1970-01-05 00:00 UTC, the first Monday after the epoch. */
const FIRST_MONDAY = 4 * DAY;

export const RESOLUTIONS = [
  { label: '1m', ms: MINUTE },
  { label: '5m', ms: 5 * MINUTE },
  { label: '15m', ms: 15 * MINUTE },
  { label: '1h', ms: HOUR },
  { label: '4h', ms: 4 * HOUR },
  { label: '1d', ms: DAY },
  { label: '1w', ms: WEEK },
] as const;

export type Resolution = (typeof RESOLUTIONS)[number]['label'];

/** The start of the bucket of `resolution` holding `timestampMs`, in ms since the epoch (UTC). */
export function bucketStart(timestampMs: number, resolution: Resolution): number {
  const { ms } = RESOLUTIONS.find((r) => r.label === resolution)!;
  const offset = resolution === '1w' ? FIRST_MONDAY : 0;
  return Math.floor((timestampMs - offset) / ms) * ms + offset;
}

export interface Candle {
  token: string;
  resolution: Resolution;
  start: number;
  /** USD per whole token, USD_SCALE units. */
  open: bigint;
  high: bigint;
  low: bigint;
  close: bigint;
  /** USD_SCALE units. */
  volumeUsd: bigint;
  /** Smallest units of the token. */
  volume: bigint;
  trades: number;
}

/** One token's side of a trade. */
export interface Tick {
  token: string;
  timestampMs: number;
  price: bigint;
  volumeUsd: bigint;
  volume: bigint;
}

/** A batch's candles being merged, ticks in trade order. Pure. */
export class CandleBatch {
  private readonly candles = new Map<string, Candle>();

  add(tick: Tick): void {
    for (const { label } of RESOLUTIONS) {
      const start = bucketStart(tick.timestampMs, label);
      const key = `${tick.token}\u0000${label}\u0000${start}`;
      const c = this.candles.get(key);
      if (c) {
        if (tick.price > c.high) c.high = tick.price;
        if (tick.price < c.low) c.low = tick.price;
        c.close = tick.price;
        c.volumeUsd += tick.volumeUsd;
        c.volume += tick.volume;
        c.trades += 1;
      } else {
        const p = tick.price;
        this.candles.set(key, { token: tick.token, resolution: label, start, open: p, high: p, low: p, close: p, volumeUsd: tick.volumeUsd, volume: tick.volume, trades: 1 });
      }
    }
  }

  rows(): Candle[] {
    return [...this.candles.values()];
  }
}

const COLUMNS = ['token', 'resolution', 'bucket_start_ms', 'open_usd', 'high_usd', 'low_usd', 'close_usd', 'volume_usd', 'volume', 'trades'];

/** Merges a batch's candles into `candles`: open kept, high/low widened, close replaced, volumes and counts added. */
export async function writeCandles(tx: Tx, candles: readonly Candle[]): Promise<void> {
  if (!candles.length) return;
  const rows: CopyValue[][] = candles.map((c) => [
    c.token,
    c.resolution,
    c.start,
    formatUsd(c.open),
    formatUsd(c.high),
    formatUsd(c.low),
    formatUsd(c.close),
    formatUsd(c.volumeUsd),
    c.volume,
    c.trades,
  ]);
  // Emptied first: a rebuild applies several chunks in one transaction, and `on commit` alone would keep the
  // previous chunk's rows until then.
  await sql`create temp table if not exists candle_changes (like candles) on commit delete rows`.execute(tx.kysely);
  await sql`truncate candle_changes`.execute(tx.kysely);
  await copyRows(tx.client, 'candle_changes', COLUMNS, rows);
  await sql`
    insert into candles as c select * from candle_changes
    on conflict (token, resolution, bucket_start_ms) do update set
      high_usd = greatest(c.high_usd, excluded.high_usd),
      low_usd = least(c.low_usd, excluded.low_usd),
      close_usd = excluded.close_usd,
      volume_usd = c.volume_usd + excluded.volume_usd,
      volume = c.volume + excluded.volume,
      trades = c.trades + excluded.trades`.execute(tx.kysely);
}
