// The market pass of a batch, joining the `trades`, `prices` and `candles` projections: block by block, the
// prices after the block's pool states (prices.ts), then the block's trades valued at those prices (trades.ts)
// and turned into candle ticks (candles.ts); at the end, `token_market`'s current figures.
//
// The pure step (`prepareMarketChanges`) picks from the events what changes per block; the I/O step
// (`applyMarketChanges`) reads the state before the batch (every pool's reserves, the tokens' decimals), so it
// must run before the pool and token projections write this batch's rows. Everything it writes is a function of
// the log up to each block, so a live run, another batching and a rebuild write the same rows.
import type { Tx } from '../../db/connect.ts';
import type { CopyValue } from '../../db/copy-text.ts';
import { sql } from '../../db/kysely.ts';
import type { DomainEvent } from '../event-rows.ts';
import { CandleBatch, writeCandles } from './candles.ts';
import {
  DAY_MS,
  impliedPrice,
  loadDecimals,
  PRICED_BY_RATE,
  PRICED_BY_RESERVES,
  PriceGraph,
  pricingToken,
  readClock,
  saveClock,
  tokenLiquidity,
  usdValue,
  writeMarket,
  writePriceRows,
  type MarketClock,
  type MarketPool,
  type MarketUpdate,
  type PriceRow,
  type TokenPrice,
} from './prices.ts';
import { groupTrades, tradeRow, writeTrades, type Trade } from './trades.ts';

/** What one block changes for the prices: pools' last states (null: deleted) and tokens' decimals. */
interface MarketStep {
  height: number;
  timestampMs: number;
  pools: Map<string, MarketPool | null>;
  decimals: Map<string, number>;
}

export interface MarketChanges {
  /** Blocks that changed a pool or a token's decimals, in height order. */
  steps: MarketStep[];
  trades: Trade[];
  /** The batch's last block (and its latest timestamp); null for a batch without events. */
  clock: MarketClock | null;
}

/** Pool states in rebuilt events keep their amounts as decimal strings (event-rows.ts). */
const amountOf = (value: bigint | string): bigint => (typeof value === 'bigint' ? value : BigInt(value));

/**
 * A pool for the price engine. AmmC launch pools (dexes/amm-c/events.ts) count a phantom liquidity in their
 * first reserve (`phantomLiquidity`): the curve's price uses it, but it is not money the pool holds.
 */
function marketPool(key: string, kind: string, tokens: string[], amounts: bigint[], phantom: bigint | null): MarketPool {
  if (phantom === null || phantom === 0n || amounts.length === 0) return { key, kind, tokens, amounts };
  const held = [...amounts];
  held[0] = held[0]! > phantom ? held[0]! - phantom : 0n;
  return { key, kind, tokens, amounts, held };
}

/** What a batch's events (sorted by compareEvents) change in the market. Pure. */
export function prepareMarketChanges(events: readonly DomainEvent[]): MarketChanges {
  const steps = new Map<number, MarketStep>();
  const step = (e: DomainEvent): MarketStep => {
    let s = steps.get(e.blockHeight);
    if (!s) steps.set(e.blockHeight, (s = { height: e.blockHeight, timestampMs: e.timestampMs, pools: new Map(), decimals: new Map() }));
    return s;
  };
  let latestMs = -Infinity;
  for (const e of events) {
    latestMs = Math.max(latestMs, e.timestampMs);
    if (e.kind === 'pool_state') {
      const key = `${e.dex}:${e.poolId}`;
      const { kind, tokens, amounts } = e.state;
      const phantom = (e.state as { phantomLiquidity?: bigint | string | null }).phantomLiquidity;
      step(e).pools.set(key, marketPool(key, kind, tokens, (amounts as (bigint | string)[]).map(amountOf), phantom == null ? null : amountOf(phantom)));
    } else if (e.kind === 'pool_deleted') {
      step(e).pools.set(`${e.dex}:${e.poolId}`, null);
    } else if (e.kind === 'token_metadata') {
      step(e).decimals.set(e.contractId, e.decimals);
    }
  }
  const last = events.at(-1);
  const clock = last ? { height: last.blockHeight, timestampMs: latestMs } : null;
  return { steps: [...steps.values()], trades: groupTrades(events), clock };
}

async function loadPools(tx: Tx): Promise<MarketPool[]> {
  const rows = await sql<{ dex: string; pool_id: string; kind: string; tokens: string[]; amounts: string[]; phantom: string | null }>`
    select dex, pool_id, kind, tokens, amounts::text[] as amounts, state->>'phantomLiquidity' as phantom from pools`.execute(tx.kysely);
  return rows.rows.map((r) => marketPool(`${r.dex}:${r.pool_id}`, r.kind, r.tokens, r.amounts.map(BigInt), r.phantom === null ? null : BigInt(r.phantom)));
}

const setsPrice = (pool: MarketPool | null | undefined) => !!pool && (PRICED_BY_RESERVES.has(pool.kind) || PRICED_BY_RATE.has(pool.kind));
const sameTokens = (a: MarketPool, b: MarketPool) => a.tokens.length === b.tokens.length && a.tokens.every((t, i) => t === b.tokens[i]);

/** The trade's USD value from its side with the lower price rank (closer to the anchors), and a tick per side. */
function valueTrade(trade: Trade, prices: ReadonlyMap<string, TokenPrice>, decimalsOf: (token: string) => number | undefined) {
  const sides = [
    { token: trade.tokenIn, amount: trade.amountIn },
    { token: trade.tokenOut, amount: trade.amountOut },
  ].map((s) => ({ ...s, price: prices.get(pricingToken(s.token)), decimals: decimalsOf(s.token) }));
  let valued: (typeof sides)[number] | undefined;
  for (const side of sides) {
    if (side.price && side.decimals !== undefined && (!valued || side.price.rank < valued.price!.rank)) valued = side;
  }
  if (!valued) return { value: null, ticks: [] };
  const value = usdValue(valued.amount, valued.price!.price, valued.decimals!);
  const ticks = sides.flatMap((s) => {
    if (s === valued) return [{ token: s.token, price: s.price!.price, volume: s.amount }];
    if (s.amount <= 0n || s.decimals === undefined) return [];
    return [{ token: s.token, price: impliedPrice(value, s.amount, s.decimals), volume: s.amount }];
  });
  return { value, ticks };
}

/** Writes the batch's prices, trades, candles and market figures; returns the tokens whose price changed. */
export async function applyMarketChanges(tx: Tx, changes: MarketChanges): Promise<Set<string>> {
  if (!changes.clock) return new Set();
  const previous = await readClock(tx);
  // The clock never goes back, so the 24 h window only moves forward.
  const clock: MarketClock = {
    height: Math.max(changes.clock.height, previous?.height ?? 0),
    timestampMs: Math.max(changes.clock.timestampMs, previous?.timestampMs ?? changes.clock.timestampMs),
  };
  const update: MarketUpdate = { quotes: [], volumeAdded: new Map(), repriced: new Set() };
  const priceRows: PriceRow[] = [];
  const tradeRows: CopyValue[][] = [];
  const candles = new CandleBatch();

  if (changes.steps.length || changes.trades.length) {
    const pools = new PriceGraph(await loadPools(tx));
    const tokens = new Set<string>();
    for (const pool of pools.pools()) for (const t of pool.tokens) tokens.add(t);
    for (const s of changes.steps) for (const pool of s.pools.values()) for (const t of pool?.tokens ?? []) tokens.add(t);
    for (const t of changes.trades) tokens.add(t.tokenIn).add(t.tokenOut);
    const decimals = await loadDecimals(tx, tokens);
    const decimalsOf = (token: string) => decimals.get(pricingToken(token));

    let prices = pools.prices(decimalsOf);
    const liquidityBefore = tokenLiquidity(pools.pools(), prices, decimalsOf);
    const priceHeight = new Map<string, number>();

    const steps = new Map(changes.steps.map((s) => [s.height, s]));
    const tradesAt = new Map<number, Trade[]>();
    for (const t of changes.trades) {
      const list = tradesAt.get(t.blockHeight);
      if (list) list.push(t);
      else tradesAt.set(t.blockHeight, [t]);
    }
    const heights = [...new Set([...steps.keys(), ...tradesAt.keys()])].sort((a, b) => a - b);
    const windowStart = clock.timestampMs - DAY_MS;

    for (const height of heights) {
      const step = steps.get(height);
      if (step) {
        let repricing = false;
        for (const [key, pool] of step.pools) {
          const before = pools.get(key);
          // A change matters when the pool can set a price, or when a pool comes or goes (an anchor is priced
          // only while some pool holds it).
          if (setsPrice(before) || setsPrice(pool) || !before || !pool || !sameTokens(before, pool)) repricing = true;
          if (pool) pools.set(pool);
          else pools.delete(key);
        }
        for (const [token, d] of step.decimals) {
          if (decimals.get(token) !== d) repricing = true;
          decimals.set(token, d);
        }
        if (repricing) {
          const next = pools.prices(decimalsOf);
          for (const token of [...new Set([...prices.keys(), ...next.keys()])].sort()) {
            const was = prices.get(token)?.price ?? null;
            const now = next.get(token)?.price ?? null;
            if (was === now) continue;
            priceRows.push({ token, height, timestampMs: step.timestampMs, price: now });
            priceHeight.set(token, height);
            update.repriced.add(token);
          }
          prices = next;
        }
      }
      for (const trade of tradesAt.get(height) ?? []) {
        const { value, ticks } = valueTrade(trade, prices, decimalsOf);
        tradeRows.push(tradeRow(trade, value));
        if (value === null) continue;
        // Every valued trade touches its tokens' rows, even when already out of the window: which rows exist
        // must not depend on where batches end.
        const counted = trade.timestampMs > windowStart ? value : 0n;
        for (const token of new Set([trade.tokenIn, trade.tokenOut])) update.volumeAdded.set(token, (update.volumeAdded.get(token) ?? 0n) + counted);
        for (const tick of ticks) candles.add({ ...tick, timestampMs: trade.timestampMs, volumeUsd: value });
      }
    }

    const liquidityAfter = tokenLiquidity(pools.pools(), prices, decimalsOf);
    const quoted = new Set(update.repriced);
    for (const token of new Set([...liquidityBefore.keys(), ...liquidityAfter.keys()])) {
      if (liquidityBefore.get(token) !== liquidityAfter.get(token)) quoted.add(token);
    }
    update.quotes = [...quoted].map((token) => ({
      token,
      price: prices.get(token)?.price ?? null,
      priceHeight: priceHeight.get(token) ?? null,
      liquidity: liquidityAfter.get(token) ?? null,
    }));
  }

  await writePriceRows(tx, priceRows);
  // Before the batch's trades are written: the volume that left the window is read from earlier trades only.
  const written = await writeMarket(tx, update, previous, clock);
  await writeTrades(tx, tradeRows);
  await writeCandles(tx, candles.rows());
  await saveClock(tx, clock);
  // Every token whose market row changed (price, liquidity, volume, change): subscribers to it must re-read it.
  return written;
}
