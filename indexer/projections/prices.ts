// USD prices of tokens from pool states, and the current market figures per token (`token_market`).
//
// The rules (dexlake issue #4):
// - The USD stablecoins in USD_ANCHORS are worth exactly 1 USD.
// - NEAR (`wrap.near`, and native `near`, which is worth the same) takes its price from its deepest pool against
//   an anchor.
// - Every other token takes its price through its deepest pool to an already-priced token, counting only pools
//   whose priced side holds at least MIN_PRICING_LIQUIDITY_USD (so a dust pool cannot set a price). Tokens are
//   priced deepest link first (a maximum-spanning-tree walk from the anchors, like Prim's algorithm): when a
//   token is priced, the link it uses is the deepest link from it to any token priced before it, and tokens
//   reachable through deeper links are priced before it. "Depth" is the USD value of the priced side's reserve.
// - A price from a pool is its reserve ratio adjusted by decimals: both sides of a pool are worth the same, so
//   price(T) = price(Q) * reserve(Q) / 10^dec(Q) / (reserve(T) / 10^dec(T)). That holds for constant-product
//   pools (PRICED_BY_RESERVES), whose spot price is the reserve ratio. Stable-like pools (their spot price is
//   near 1, not the reserve ratio) and concentrated-liquidity pools (their price is the sqrt price, not the
//   reserves) set no price; their reserves still count towards a token's liquidity.
// - Rate pools (PRICED_BY_RATE: a staking contract, tokens [underlying, staked], amounts the two sides of its
//   rate) price the staked token from the underlying (or back) at the rate, as a link of infinite depth: the
//   contract mints at that rate for any amount, and no trade can move the rate, so it beats any AMM pool and no
//   dust can fake it. Wrap pools carry no information (1:1; `wrap.near` is NEAR by definition).
//
// Exactness: prices and USD figures are bigints in units of 10^-18 USD (USD_SCALE), every division floors, and
// the SQL columns are numeric, always written with 18 digits after the point; nothing stored goes through a
// float. The walk is deterministic: ties break on token id, then pool key. Prices depend only on the pools'
// states and the tokens' decimals after a block, never on batch boundaries, so a live run, another batching and a
// rebuild from the log write the same rows.
//
// The pure engine comes first; the I/O (reading decimals, writing `prices` and `token_market`) is at the end.
import { findKnownToken } from '../../near/known-tokens.ts';
import { NOT_RESERVE_KINDS } from '../../dexes/events.ts';
import type { Tx } from '../../db/connect.ts';
import { copyRows } from '../../db/copy.ts';
import type { CopyValue } from '../../db/copy-text.ts';
import { sql } from '../../db/kysely.ts';

/** 1 USD in the fixed-point unit of every stored price and USD figure. */
export const USD_SCALE = 10n ** 18n;
/** Digits after the point of that unit (the scale every USD column is written with). */
const USD_DIGITS = 18;

/** A pool sets a price only when its priced side holds at least this many USD. */
export const MIN_PRICING_LIQUIDITY_USD = 1_000n;

/** USD stablecoins worth exactly 1 USD: USDt and USDC (native issues) and their Rainbow Bridge forms. */
export const USD_ANCHORS: readonly string[] = [
  'usdt.tether-token.near',
  '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1',
  'dac17f958d2ee523a2206206994597c13d831ec7.factory.bridge.near',
  'a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48.factory.bridge.near',
];

export const NATIVE_NEAR = 'near';
export const WRAPPED_NEAR = 'wrap.near';
const NEAR_DECIMALS = 24;
const INNER_PREFIX = 'inner-nep141:';

/** Pool kinds whose spot price is their reserve ratio: AmmA simple pools, AmmC xyk pools (launch pools included:
 * their curve runs over reserves that include the phantom liquidity), Launch bonding curves (x*y=k over the
 * curve's holds: near-facts.md's working assumption, marked uncertain there). */
export const PRICED_BY_RESERVES: ReadonlySet<string> = new Set(['simple', 'xyk', 'curve']);
/** Pool kinds whose amounts are the two sides of an exchange rate (staking contracts). */
export const PRICED_BY_RATE: ReadonlySet<string> = new Set(['stake']);

/**
 * The token whose price a token id takes: `near` is priced as `wrap.near` (the pools hold wNEAR), an AmmA inner
 * balance as its token.
 */
export function pricingToken(token: string): string {
  if (token === NATIVE_NEAR) return WRAPPED_NEAR;
  return token.startsWith(INNER_PREFIX) ? token.slice(INNER_PREFIX.length) : token;
}

/** What the engine needs of a pool (any DEX). */
export interface MarketPool {
  /** `dex:pool_id`. */
  key: string;
  kind: string;
  tokens: readonly string[];
  /** The reserves the pool's curve uses (its price is their ratio). */
  amounts: readonly bigint[];
  /** The reserves it really holds, when they differ: an AmmC launch pool's quote side without its phantom
   * liquidity. Depth and liquidity count only these, so phantom money neither passes the floor nor counts. */
  held?: readonly bigint[];
}

export interface TokenPrice {
  /** USD per whole token, in USD_SCALE units. */
  price: bigint;
  /** The order tokens were priced in: 0 for the anchors, 1 for NEAR, then up. A lower rank is closer to the
   * anchors through deeper links: a trade is valued from its lower-ranked side. */
  rank: number;
  /** The pool key the price came from; null for the anchors. */
  via: string | null;
}

/** Decimals of a token id (by its pricing token); undefined when unknown. */
export type DecimalsOf = (token: string) => number | undefined;

const POWERS = Array.from({ length: 78 }, (_, n) => 10n ** BigInt(n));
const pow10 = (n: number) => POWERS[n] ?? 10n ** BigInt(n);

/** USD value (USD_SCALE units) of `amount` smallest units of a token at `price`, floored. */
export function usdValue(amount: bigint, price: bigint, decimals: number): bigint {
  return (amount * price) / pow10(decimals);
}

/** The USD price per whole token implied by `usd` (USD_SCALE units) paid for `amount` smallest units, floored. */
export function impliedPrice(usd: bigint, amount: bigint, decimals: number): bigint {
  return (usd * pow10(decimals)) / amount;
}

/** A USD_SCALE bigint as the decimal text of a USD numeric column (18 digits after the point). */
export function formatUsd(value: bigint): string {
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  return `${sign}${abs / USD_SCALE}.${(abs % USD_SCALE).toString().padStart(USD_DIGITS, '0')}`;
}

/** The decimal text of a numeric column back into USD_SCALE units (digits beyond 18 are cut). */
export function parseUsd(text: string): bigint {
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const value = BigInt(whole) * USD_SCALE + BigInt(fraction.slice(0, USD_DIGITS).padEnd(USD_DIGITS, '0'));
  return negative ? -value : value;
}

/** One way to price a token from a pool: from `from` (priced) to `to`. */
interface Link {
  to: string;
  from: string;
  pool: string;
  /** Reserves of the priced and the unpriced side, in their smallest units, as the curve uses them. */
  fromReserve: bigint;
  toReserve: bigint;
  /** What the priced side really holds: the link's depth. */
  fromHeld: bigint;
  /** Rate pools: of infinite depth. */
  rate: boolean;
}

interface Candidate {
  link: Link;
  depth: bigint;
}

/** Deeper first (rate links deepest of all), then token id, then pool key: a total order, so the walk is deterministic. */
function better(a: Candidate, b: Candidate): boolean {
  if (a.link.rate !== b.link.rate) return a.link.rate;
  if (a.depth !== b.depth) return a.depth > b.depth;
  if (a.link.to !== b.link.to) return a.link.to < b.link.to;
  return a.link.pool < b.link.pool;
}

/** A binary max-heap of candidates under `better`. */
class CandidateHeap {
  private items: Candidate[] = [];
  get size(): number {
    return this.items.length;
  }
  push(c: Candidate): void {
    const items = this.items;
    items.push(c);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!better(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }
  pop(): Candidate | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length && last) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let best = i;
        if (l < items.length && better(items[l]!, items[best]!)) best = l;
        if (r < items.length && better(items[r]!, items[best]!)) best = r;
        if (best === i) break;
        [items[i], items[best]] = [items[best]!, items[i]!];
        i = best;
      }
    }
    return top;
  }
}

/** The two links (one per direction) of a pool that can set a price; none for other pools. */
function linksOf(pool: MarketPool): [Link, Link] | [] {
  const rate = PRICED_BY_RATE.has(pool.kind);
  if (!rate && !PRICED_BY_RESERVES.has(pool.kind)) return [];
  if (pool.tokens.length !== 2 || pool.amounts.length !== 2) return [];
  const [a, b] = pool.tokens.map(pricingToken) as [string, string];
  const [ra, rb] = pool.amounts as [bigint, bigint];
  const [ha, hb] = (pool.held ?? pool.amounts) as [bigint, bigint];
  if (a === b || ra <= 0n || rb <= 0n) return [];
  return [
    { from: a, to: b, pool: pool.key, fromReserve: ra, toReserve: rb, fromHeld: ha, rate },
    { from: b, to: a, pool: pool.key, fromReserve: rb, toReserve: ra, fromHeld: hb, rate },
  ];
}

/**
 * Every pool's state, kept with the links the price walk follows, so a block that changes a few pools updates a
 * few links instead of rebuilding the graph.
 */
export class PriceGraph {
  private readonly byKey = new Map<string, MarketPool>();
  /** Links by the token they start from. */
  private readonly links = new Map<string, Link[]>();
  /** Pools holding each pricing token (an anchor is priced while some pool holds it). */
  private readonly holders = new Map<string, number>();

  constructor(pools: Iterable<MarketPool> = []) {
    for (const pool of pools) this.set(pool);
  }

  get(key: string): MarketPool | undefined {
    return this.byKey.get(key);
  }

  pools(): IterableIterator<MarketPool> {
    return this.byKey.values();
  }

  set(pool: MarketPool): void {
    this.delete(pool.key);
    this.byKey.set(pool.key, pool);
    for (const token of new Set(pool.tokens.map(pricingToken))) this.holders.set(token, (this.holders.get(token) ?? 0) + 1);
    for (const link of linksOf(pool)) {
      const list = this.links.get(link.from);
      if (list) list.push(link);
      else this.links.set(link.from, [link]);
    }
  }

  delete(key: string): void {
    const pool = this.byKey.get(key);
    if (!pool) return;
    this.byKey.delete(key);
    for (const token of new Set(pool.tokens.map(pricingToken))) {
      const n = this.holders.get(token)! - 1;
      if (n) this.holders.set(token, n);
      else this.holders.delete(token);
    }
    for (const link of linksOf(pool)) {
      const list = this.links.get(link.from)!.filter((l) => l.pool !== key);
      if (list.length) this.links.set(link.from, list);
      else this.links.delete(link.from);
    }
  }

  /**
   * The USD price of every token the pools can price, by pricing token (see `pricingToken`); `near` is added
   * with the price of `wrap.near`. Anchors are priced while some pool holds them. Deterministic: the order links
   * were added in does not matter.
   */
  prices(decimalsOf: DecimalsOf): Map<string, TokenPrice> {
    const links = this.links;
    const prices = new Map<string, TokenPrice>();
    const floor = MIN_PRICING_LIQUIDITY_USD * USD_SCALE;

    /** The candidate of a link whose `from` is priced, or null when it cannot set a price. */
    const candidate = (link: Link): Candidate | null => {
      const fromDecimals = decimalsOf(link.from);
      if (fromDecimals === undefined || decimalsOf(link.to) === undefined) return null;
      const depth = usdValue(link.fromHeld, prices.get(link.from)!.price, fromDecimals);
      if (!link.rate && depth < floor) return null;
      return { link, depth };
    };
    const assign = ({ link }: Candidate, rank: number) => {
      const from = prices.get(link.from)!.price;
      // Both sides are worth the same: price(to) * toReserve / 10^dec(to) = price(from) * fromReserve / 10^dec(from).
      const price = (from * link.fromReserve * pow10(decimalsOf(link.to)!)) / (link.toReserve * pow10(decimalsOf(link.from)!));
      prices.set(link.to, { price, rank, via: link.pool });
    };

    for (const anchor of USD_ANCHORS) if (this.holders.has(anchor)) prices.set(anchor, { price: USD_SCALE, rank: 0, via: null });
    const anchors = new Set(USD_ANCHORS);

    // NEAR first, from its deepest pool against an anchor: every NEAR pair can then price through it.
    let near: Candidate | null = null;
    for (const anchor of USD_ANCHORS) {
      if (!prices.has(anchor)) continue;
      for (const link of links.get(anchor) ?? []) {
        if (link.to !== WRAPPED_NEAR) continue;
        const c = candidate(link);
        if (c && (!near || better(c, near))) near = c;
      }
    }
    if (near) assign(near, 1);

    // Then the walk, deepest link first.
    const heap = new CandidateHeap();
    const reach = (token: string) => {
      for (const link of links.get(token) ?? []) {
        if (prices.has(link.to) || anchors.has(link.to)) continue;
        const c = candidate(link);
        if (c) heap.push(c);
      }
    };
    for (const token of [...prices.keys()].sort()) reach(token);
    let rank = 2;
    while (heap.size) {
      const c = heap.pop()!;
      if (prices.has(c.link.to)) continue;
      assign(c, rank++);
      reach(c.link.to);
    }

    const wrapped = prices.get(WRAPPED_NEAR);
    if (wrapped) prices.set(NATIVE_NEAR, wrapped);
    return prices;
  }
}

/** The prices of a set of pools (see PriceGraph.prices). Pure. */
export function priceTokens(pools: Iterable<MarketPool>, decimalsOf: DecimalsOf): Map<string, TokenPrice> {
  return new PriceGraph(pools).prices(decimalsOf);
}

/**
 * USD liquidity of every priced token: its reserves summed over every pool that holds reserves (any kind but
 * rate and wrap pools, dust included), at its price. `near` gets the figure of `wrap.near`.
 */
export function tokenLiquidity(pools: Iterable<MarketPool>, prices: ReadonlyMap<string, TokenPrice>, decimalsOf: DecimalsOf): Map<string, bigint> {
  const reserves = new Map<string, bigint>();
  for (const pool of pools) {
    const held = pool.held ?? pool.amounts;
    if (NOT_RESERVE_KINDS.has(pool.kind) || pool.tokens.length !== held.length) continue;
    pool.tokens.forEach((token, i) => {
      const t = pricingToken(token);
      reserves.set(t, (reserves.get(t) ?? 0n) + held[i]!);
    });
  }
  const liquidity = new Map<string, bigint>();
  for (const [token, reserve] of reserves) {
    const price = prices.get(token);
    const decimals = decimalsOf(token);
    if (price && decimals !== undefined) liquidity.set(token, usdValue(reserve, price.price, decimals));
  }
  const wrapped = liquidity.get(WRAPPED_NEAR);
  if (wrapped !== undefined) liquidity.set(NATIVE_NEAR, wrapped);
  return liquidity;
}

/** The relative change from `before` to `now` (0.05 = +5%), in USD_SCALE units, truncated toward zero; null
 * when there is no earlier price or it is 0. */
export function relativeChange(now: bigint | null, before: bigint | null): bigint | null {
  if (now === null || before === null || before === 0n) return null;
  return ((now - before) * USD_SCALE) / before;
}

// ---------------------------------------------------------------------------------------------------------------
// I/O

/**
 * Decimals of tokens as the log knows them before the batch: metadata from the chain (an init call or the
 * `ft_metadata` view, kept in `tokens`) wins, else the bundled well-known list; `near` has 24. The caller
 * overlays the batch's own metadata events block by block, so a price never uses decimals from a later block.
 */
export async function loadDecimals(tx: Tx, tokens: Iterable<string>): Promise<Map<string, number>> {
  const ids = [...new Set([...tokens].map(pricingToken))].sort();
  const decimals = new Map<string, number>([[WRAPPED_NEAR, NEAR_DECIMALS]]);
  for (const id of ids) {
    const known = findKnownToken(id);
    if (known) decimals.set(id, known.decimals);
  }
  if (ids.length) {
    const rows = await sql<{ token: string; decimals: number }>`
      select token, decimals from tokens
      where token = any(${ids}::text[]) and metadata_source in ('init', 'rpc') and decimals is not null`.execute(tx.kysely);
    for (const r of rows.rows) decimals.set(r.token, r.decimals);
  }
  return decimals;
}

export interface PriceRow {
  token: string;
  height: number;
  timestampMs: number;
  /** null: the token lost its price at this block. */
  price: bigint | null;
}

export async function writePriceRows(tx: Tx, rows: readonly PriceRow[]): Promise<void> {
  const values: CopyValue[][] = rows.map((r) => [r.token, r.height, r.timestampMs, r.price === null ? null : formatUsd(r.price)]);
  await copyRows(tx.client, 'prices', ['token', 'block_height', 'timestamp_ms', 'price_usd'], values);
}

/** The window of `volume_usd_24h`, `price_change_24h` and the 24 h activity. */
export const DAY_MS = 86_400_000;

/** The market's clock: the latest block (and the latest timestamp) the market projection has seen. */
export interface MarketClock {
  height: number;
  timestampMs: number;
}

export async function readClock(tx: Tx): Promise<MarketClock | undefined> {
  const row = await tx.kysely.selectFrom('market_clock').select(['block_height', 'timestamp_ms']).executeTakeFirst();
  return row && { height: row.block_height, timestampMs: row.timestamp_ms };
}

export async function saveClock(tx: Tx, clock: MarketClock): Promise<void> {
  await sql`
    insert into market_clock (id, block_height, timestamp_ms) values (true, ${clock.height}, ${clock.timestampMs})
    on conflict (id) do update set block_height = excluded.block_height, timestamp_ms = excluded.timestamp_ms`.execute(tx.kysely);
}

export interface MarketUpdate {
  /** Tokens whose price (`price_height` set) or liquidity changed, with their values after the batch. */
  quotes: { token: string; price: bigint | null; priceHeight: number | null; liquidity: bigint | null }[];
  /** Per token: USD volume of the batch's volume hops inside the window after the batch (0 for a hop already out
   * of it: the token is still touched, so the set of rows does not depend on batching). */
  volumeAdded: Map<string, bigint>;
  /** Tokens with a price row in the batch. */
  repriced: Set<string>;
}

/**
 * Writes `token_market`. The 24 h figures are kept exact and incremental against the clock (the latest block
 * timestamp seen), whose window is (clock - 24 h, clock]:
 * - `volume_usd_24h` += the batch's volume hops inside the window, -= the earlier hops the window left as the clock
 *   moved from `previous` to `clock` (read from `trade_hops` by timestamp: each hop is added once and taken out
 *   once, never rescanned). Call before the batch's hops are in `trade_hops`.
 * - `price_change_5m`, `_1h`, `_6h` and `_24h` = price now / price at (clock - window) - 1, where the price at a
 *   time is the last `prices` row at or before it. Each is recomputed only for tokens whose price moved in the batch
 *   or whose reference row changed (a `prices` row crossed clock - window). Call after the batch's rows are in `prices`.
 * Both depend only on the log up to the clock, so any batching gives the same table.
 */
export async function writeMarket(tx: Tx, update: MarketUpdate, previous: MarketClock | undefined, clock: MarketClock): Promise<Set<string>> {
  const kysely = tx.kysely;
  const windowStart = clock.timestampMs - DAY_MS;
  const previousStart = previous ? previous.timestampMs - DAY_MS : null;

  // Volume: what left the window.
  const volume = new Map(update.volumeAdded);
  if (previousStart !== null && windowStart > previousStart) {
    const left = await sql<{ token: string; usd: string }>`
      select token, sum(volume_usd)::text as usd from (
        select token_in as token, volume_usd, timestamp_ms from trade_hops
        union all select token_out, volume_usd, timestamp_ms from trade_hops where token_out <> token_in
      ) t
      where volume_usd is not null and timestamp_ms > ${previousStart} and timestamp_ms <= ${windowStart}
      group by token`.execute(kysely);
    for (const r of left.rows) volume.set(r.token, (volume.get(r.token) ?? 0n) - parseUsd(r.usd));
  }

  const quotes = [...update.quotes].sort((a, b) => (a.token < b.token ? -1 : 1));
  if (quotes.length) {
    await sql`
      insert into token_market as m (token, price_usd, price_height, liquidity_usd)
      select * from unnest(${quotes.map((q) => q.token)}::text[], ${quotes.map((q) => (q.price === null ? null : formatUsd(q.price)))}::numeric[],
                           ${quotes.map((q) => q.priceHeight)}::bigint[], ${quotes.map((q) => (q.liquidity === null ? null : formatUsd(q.liquidity)))}::numeric[])
      on conflict (token) do update set price_usd = excluded.price_usd, liquidity_usd = excluded.liquidity_usd,
        price_height = coalesce(excluded.price_height, m.price_height)`.execute(kysely);
  }

  const volumes = [...volume].sort(([a], [b]) => (a < b ? -1 : 1));
  if (volumes.length) {
    await sql`
      insert into token_market as m (token, volume_usd_24h)
      select * from unnest(${volumes.map(([t]) => t)}::text[], ${volumes.map(([, v]) => formatUsd(v))}::numeric[])
      on conflict (token) do update set volume_usd_24h = m.volume_usd_24h + excluded.volume_usd_24h`.execute(kysely);
  }

  // Every row written: the quotes (price or liquidity), the volumes, and below the price changes.
  const written = new Set([...quotes.map((q) => q.token), ...volume.keys()]);
  for (const window of PRICE_CHANGE_WINDOWS) {
    for (const token of await writePriceChange(tx, window, update.repriced, previous, clock)) written.add(token);
  }
  return written;
}

/** A price change's window and its `token_market` column. */
interface ChangeWindow {
  ms: number;
  column: 'price_change_5m' | 'price_change_1h' | 'price_change_6h' | 'price_change_24h';
}

/** The windows of the price changes (docs/methodology.md): 5 m, 1 h, 6 h and 24 h before the market clock. Kept
 * in `token_market` rather than read from `prices` per request: a batch rereads only the tokens it repriced and
 * those whose reference row crossed a window start, while a read would probe three references for every token of
 * the table (tokens.get sorts and filters by any field), each request. */
export const PRICE_CHANGE_WINDOWS: readonly ChangeWindow[] = [
  { ms: 5 * 60_000, column: 'price_change_5m' },
  { ms: 3_600_000, column: 'price_change_1h' },
  { ms: 6 * 3_600_000, column: 'price_change_6h' },
  { ms: DAY_MS, column: 'price_change_24h' },
];

/**
 * One price change column: price now / price in force at (clock - window) - 1, recomputed for the tokens whose price
 * moved in the batch or whose reference row changed (a `prices` row crossed clock - window as the clock moved).
 * Returns the tokens written.
 */
async function writePriceChange(tx: Tx, window: ChangeWindow, repriced: ReadonlySet<string>, previous: MarketClock | undefined, clock: MarketClock): Promise<string[]> {
  const kysely = tx.kysely;
  const windowStart = clock.timestampMs - window.ms;
  const previousStart = previous ? previous.timestampMs - window.ms : null;
  const changed = new Set(repriced);
  const crossed = await sql<{ token: string }>`
    select distinct token from prices where timestamp_ms <= ${windowStart} and timestamp_ms > ${previousStart ?? Number.MIN_SAFE_INTEGER}`.execute(kysely);
  for (const r of crossed.rows) changed.add(r.token);
  if (!changed.size) return [];
  const tokens = [...changed].sort();
  const now = await sql<{ token: string; price_usd: string | null }>`
    select token, price_usd::text from token_market where token = any(${tokens}::text[])`.execute(kysely);
  const before = await sql<{ token: string; price_usd: string | null }>`
    select distinct on (token) token, price_usd::text from prices
    where token = any(${tokens}::text[]) and timestamp_ms <= ${windowStart}
    order by token, timestamp_ms desc, block_height desc`.execute(kysely);
  const reference = new Map(before.rows.map((r) => [r.token, r.price_usd === null ? null : parseUsd(r.price_usd)]));
  const change = now.rows.map((r) => {
    const value = relativeChange(r.price_usd === null ? null : parseUsd(r.price_usd), reference.get(r.token) ?? null);
    return { token: r.token, change: value === null ? null : formatUsd(value) };
  });
  // The column is one of PRICE_CHANGE_WINDOWS', never a request's.
  await sql`
    update token_market m set ${sql.ref(window.column)} = u.change
    from unnest(${change.map((c) => c.token)}::text[], ${change.map((c) => c.change)}::numeric[]) as u(token, change)
    where m.token = u.token`.execute(kysely);
  return change.map((c) => c.token);
}

