// The market pass of a batch, joining the `trades`, `trade_hops`, `prices` and `candles` projections: block by
// block, the prices after the block's pool states (prices.ts), then the block's trades and their hops valued at
// those prices (trades.ts); each hop that is volume (a trade against liquidity, not a conversion: isVolumeSwap) is added to its tokens' 24 h volume and gives each of them a candle tick at the hop's own rate
// (candles.ts); at the end, `token_market`'s current figures and `token_activity`'s 24 h counts (activity.ts). docs/methodology.md defines each figure.
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
  formatUsd,
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
import { dexOf } from '../../dexes/index.ts';
import { NEAR_TOKEN_ID } from '../../near/token-id.ts';
import { copyRows } from '../../db/copy.ts';
import { writeActivity } from './activity.ts';

/** What one block changes for the prices: pools' last states (null: deleted) and tokens' decimals. */
interface MarketStep {
  height: number;
  timestampMs: number;
  pools: Map<string, MarketPool | null>;
  decimals: Map<string, number>;
}

/** One pool hop of a swap: a `trade_hops` row before its USD value. */
export interface MarketHop {
  blockHeight: number;
  receiptId: string;
  index: number;
  timestampMs: number;
  txHash: string | null;
  dex: string;
  poolId: string | null;
  trader: string | null;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  amountOut: bigint;
}

export interface MarketChanges {
  /** Blocks that changed a pool or a token's decimals, in height order. */
  steps: MarketStep[];
  trades: Trade[];
  /** Every swap event, in log order. */
  hops: MarketHop[];
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
  const hops: MarketHop[] = [];
  for (const e of events) {
    latestMs = Math.max(latestMs, e.timestampMs);
    if (e.kind === 'swap') {
      const { blockHeight, receiptId, index, timestampMs, txHash, dex, trader, tokenIn, tokenOut, amountIn, amountOut } = e;
      hops.push({ blockHeight, receiptId, index, timestampMs, txHash, dex, poolId: e.poolId === null ? null : String(e.poolId), trader, tokenIn, tokenOut, amountIn, amountOut });
    } else if (e.kind === 'pool_state') {
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
  return { steps: [...steps.values()], trades: groupTrades(events), hops, clock };
}

async function loadPools(tx: Tx): Promise<MarketPool[]> {
  const rows = await sql<{ dex: string; pool_id: string; kind: string; tokens: string[]; amounts: string[]; phantom: string | null }>`
    select dex, pool_id, kind, tokens, amounts::text[] as amounts, state->>'phantomLiquidity' as phantom from pools`.execute(tx.kysely);
  return rows.rows.map((r) => marketPool(`${r.dex}:${r.pool_id}`, r.kind, r.tokens, r.amounts.map(BigInt), r.phantom === null ? null : BigInt(r.phantom)));
}

const setsPrice = (pool: MarketPool | null | undefined) => !!pool && (PRICED_BY_RESERVES.has(pool.kind) || PRICED_BY_RATE.has(pool.kind));
const sameTokens = (a: MarketPool, b: MarketPool) => a.tokens.length === b.tokens.length && a.tokens.every((t, i) => t === b.tokens[i]);

/**
 * The USD value of a swap (a trade or one hop) from its side with the lower price rank (closer to the anchors),
 * and a candle tick per side: the valued side at its price, the other at the price the swap implies.
 */
function valueSwap(
  sides: readonly { token: string; amount: bigint }[],
  prices: ReadonlyMap<string, TokenPrice>,
  decimalsOf: (token: string) => number | undefined,
) {
  const priced = sides.map((s) => ({ ...s, price: prices.get(pricingToken(s.token)), decimals: decimalsOf(s.token) }));
  let valued: (typeof priced)[number] | undefined;
  for (const side of priced) {
    if (side.price && side.decimals !== undefined && (!valued || side.price.rank < valued.price!.rank)) valued = side;
  }
  if (!valued) return { value: null, ticks: [] };
  const value = usdValue(valued.amount, valued.price!.price, valued.decimals!);
  const ticks = priced.flatMap((s) => {
    if (s === valued) return [{ token: s.token, price: s.price!.price, volume: s.amount }];
    if (s.amount <= 0n || s.decimals === undefined) return [];
    return [{ token: s.token, price: impliedPrice(value, s.amount, s.decimals), volume: s.amount }];
  });
  return { value, ticks };
}

/**
 * Whether a swap is volume: a trade against a pool's liquidity, or a conversion at a fixed or protocol rate (wraps,
 * inner-balance deposits and withdrawals, stakes), which is activity only (docs/methodology.md). A stake DEX's
 * swap to native NEAR is a liquid (instant) unstake, paid out of the protocol's liquidity pool at a fee that moves
 * with that pool: volume. A DEX id not in the registry is counted.
 */
export function isVolumeSwap(dexId: string, tokenOut: string): boolean {
  const activity = dexOf(dexId)?.activity ?? 'trade';
  return activity === 'trade' || (activity === 'stake' && tokenOut === NEAR_TOKEN_ID);
}

/**
 * A request-for-quote fill (a trading DEX's swap through no pool: QuoteA's solver fills) is logged once per side,
 * the user's and the solver's, as two swaps in one receipt with their tokens reversed. The fill is one exchange, so
 * the second leg of each such pair is not counted again. Hops of one block, in log order.
 */
class RfqMirrors {
  private readonly open = new Map<string, number>();

  isCounterLeg(hop: MarketHop): boolean {
    if (hop.poolId !== null || dexOf(hop.dex)?.activity !== 'trade') return false;
    const mirror = `${hop.receiptId}\u0000${hop.dex}\u0000${hop.tokenOut}\u0000${hop.tokenIn}`;
    const waiting = this.open.get(mirror) ?? 0;
    if (waiting > 0) {
      this.open.set(mirror, waiting - 1);
      return true;
    }
    const own = `${hop.receiptId}\u0000${hop.dex}\u0000${hop.tokenIn}\u0000${hop.tokenOut}`;
    this.open.set(own, (this.open.get(own) ?? 0) + 1);
    return false;
  }
}

/** Items by block height, in their order (Map.groupBy is Node 21's). */
function byHeight<T extends { blockHeight: number }>(items: readonly T[]): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const item of items) {
    const list = out.get(item.blockHeight);
    if (list) list.push(item);
    else out.set(item.blockHeight, [item]);
  }
  return out;
}

const HOP_COLUMNS = ['block_height', 'receipt_id', 'index', 'timestamp_ms', 'tx_hash', 'dex', 'pool_id', 'trader', 'token_in', 'token_out', 'amount_in', 'amount_out', 'volume_usd'];

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
  const hopRows: CopyValue[][] = [];
  const candles = new CandleBatch();

  if (changes.steps.length || changes.trades.length || changes.hops.length) {
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
    const tradesAt = byHeight(changes.trades);
    const hopsAt = byHeight(changes.hops);
    const heights = [...new Set([...steps.keys(), ...tradesAt.keys(), ...hopsAt.keys()])].sort((a, b) => a - b);
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
        const sides = [{ token: trade.tokenIn, amount: trade.amountIn }, { token: trade.tokenOut, amount: trade.amountOut }];
        tradeRows.push(tradeRow(trade, valueSwap(sides, prices, decimalsOf).value));
      }
      const mirrors = new RfqMirrors();
      for (const hop of hopsAt.get(height) ?? []) {
        const { value, ticks } = isVolumeSwap(hop.dex, hop.tokenOut) && !mirrors.isCounterLeg(hop)
          ? valueSwap([{ token: hop.tokenIn, amount: hop.amountIn }, { token: hop.tokenOut, amount: hop.amountOut }], prices, decimalsOf)
          : { value: null, ticks: [] };
        hopRows.push([hop.blockHeight, hop.receiptId, hop.index, hop.timestampMs, hop.txHash, hop.dex, hop.poolId, hop.trader, hop.tokenIn, hop.tokenOut, hop.amountIn, hop.amountOut, value === null ? null : formatUsd(value)]);
        if (value === null) continue;
        // Every volume hop touches its tokens' rows, even when already out of the window: which rows exist must
        // not depend on where batches end.
        const counted = hop.timestampMs > windowStart ? value : 0n;
        for (const token of new Set([hop.tokenIn, hop.tokenOut])) update.volumeAdded.set(token, (update.volumeAdded.get(token) ?? 0n) + counted);
        for (const tick of ticks) candles.add({ ...tick, timestampMs: hop.timestampMs, volumeUsd: value });
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
  // After the batch's trades are in `trades`: the recount reads them.
  for (const token of await writeActivity(tx, changes.trades, previous, clock)) written.add(token);
  await copyRows(tx.client, 'trade_hops', HOP_COLUMNS, hopRows);
  await writeCandles(tx, candles.rows());
  await saveClock(tx, clock);
  // Every token whose market row changed (price, liquidity, volume, change): subscribers to it must re-read it.
  return written;
}
