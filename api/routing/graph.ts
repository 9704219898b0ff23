// The routing state in memory: every pool of every DEX (from `pools`), token decimals and prices (`tokens`,
// `token_market`), refreshed from the tables when a `dexlake_blocks` notification names what changed. The
// notification is a hint: the rows are the truth, so a lost notification delays an update, never corrupts one,
// and after a LISTEN reconnect everything is read again (design.md §4).
import pgListen from 'pg-listen';
import type { Db } from '../../db/connect.ts';
import { isDatabaseUnavailable } from '../../db/errors.ts';
import { sql } from '../../db/kysely.ts';
import { mergeNotifications, NOTIFY_CHANNEL, parseBlocksNotification, type BlocksNotification } from '../../db/notify.ts';
import type { Dex, DexLedger, RoutingPool } from '../../dexes/dex.ts';
import type { DexId, PoolStateCommon } from '../../dexes/events.ts';
import { DEXES } from '../../dexes/index.ts';
import { jsonWithBigints } from '../../near/units.ts';
import { largestMovePpm } from './volatility.ts';

export type { RoutingPool } from '../../dexes/dex.ts';

export interface TokenInfo {
  decimals: number | null;
  /** USD per whole token, the exact decimal text of `token_market.price_usd`; null when unknown. */
  priceUsd: string | null;
}

// The pool `state` JSON keeps bigints as decimal strings (the event log's JSON form); these fields are amounts
// in some DEX's state and come back as bigints. Anything else stays as JSON gave it.
const AMOUNT_FIELDS = new Set([
  'amounts',
  'cAmounts',
  'minFee',
  'phantomLiquidity',
  'totalShares',
  'sharesTotalSupply',
  'initAmpFactor',
  'targetAmpFactor',
  'initAmpTime',
  'stopAmpTime',
  'nslpLiquidityTarget',
]);

function reviveAmount(value: unknown): unknown {
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  if (Array.isArray(value)) return value.map(reviveAmount);
  return value;
}

/** A `pools.state` JSON value with its amount fields as bigints. Pure. */
export function reviveState(json: unknown): PoolStateCommon & Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json as Record<string, unknown>)) {
    state[key] = AMOUNT_FIELDS.has(key) ? reviveAmount(value) : value;
  }
  return state as PoolStateCommon & Record<string, unknown>;
}

// pg-listen is CommonJS with an `exports.default`: under Node's ESM interop the default import is module.exports.
const createSubscriber = pgListen.default;

/** The listener connection's application_name (visible in pg_stat_activity). */
export const LISTENER_NAME = 'dexlake-routing-listen';

/**
 * A read a request needs (a trader's registrations, pool volatility) that the database could not answer: it is
 * down, or did not answer within DB_READ_TIMEOUT_MS. Fastify answers it with its `statusCode`, 503.
 */
export class DatabaseUnavailableError extends Error {
  readonly statusCode = 503;
  constructor() {
    super('The database is unavailable; try again shortly');
  }
}

/** How long a request waits for one of its database reads before answering 503 (a hung server must not hang it). */
export const DB_READ_TIMEOUT_MS = 3_000;

/** `read`, or DatabaseUnavailableError when the database is unreachable or too slow; other errors as they are. */
async function requestRead<T>(read: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new DatabaseUnavailableError()), DB_READ_TIMEOUT_MS)));
  try {
    return await Promise.race([read, deadline]);
  } catch (err) {
    if (err instanceof DatabaseUnavailableError || isDatabaseUnavailable(err)) throw new DatabaseUnavailableError();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

const poolKey = (dex: string, poolId: string) => `${dex}:${poolId}`;

export class RoutingGraph {
  private readonly pools = new Map<string, RoutingPool>();
  private readonly tokens = new Map<string, TokenInfo>();
  private byDex = new Map<DexId, RoutingPool[]>();
  /** Every token a routed pool holds, in the DEXes' vocabulary (`near`, a contract id, `inner-nep141:...`). */
  private poolTokens = new Set<string>();
  /** The tokens of the pools not routed because their latest write did not decode (stale): known, not routable. */
  private readonly stalePools = new Map<string, readonly string[]>();
  /** Bumped on every change; subscriptions compare it. */
  version = 0;
  /**
   * The chain state the graph is at: the newest block height every change of which it has applied (a full load: the
   * indexed head read before the tables; a notification: the height it announces). Rows read after it may already
   * hold later blocks, whose notification comes next. Null until a load has found a block. Each change (pools,
   * tokens, time, ledgers, height) is applied at once with no await between, so a route computed between two awaits
   * sees one state and this one height (route answers carry it: X-Dexlake-Height, the subscribe push's `height`).
   */
  height: number | null = null;
  /** The latest indexed block's time in ns (what AmmA's stable pools ramp their amp by); null before any block. */
  nowNs: bigint | null = null;
  /** Each DEX's ledger value (`Dex.ledger`: state kept in the event log), by DEX id; absent until one is indexed. */
  readonly ledgers = new Map<string, unknown>();
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  /** The next notification step, queued and not started yet: later notifications merge into it. */
  private pending: { notification: BlocksNotification; step: Promise<void> } | undefined;
  private readonly listeners = new Set<(changedPools: ReadonlySet<string> | 'all') => void>();

  private readonly dexes: ReadonlyMap<string, Dex>;

  constructor(
    private readonly db: Db,
    dexes: readonly Dex[] = DEXES,
  ) {
    this.dexes = new Map(dexes.map((d) => [d.id, d]));
  }

  /** Pools of one DEX, sorted by pool key (deterministic iteration for the pathfinders). */
  poolsOf(dex: DexId): readonly RoutingPool[] {
    return this.byDex.get(dex) ?? [];
  }

  token(id: string): TokenInfo | undefined {
    return this.tokens.get(id);
  }

  /** Whether the service knows a token (a contract id, or `inner-nep141:...`): a row of `tokens` or
   * `token_market` (the indexer saw it: a transfer, its metadata, a price), or a token of an indexed pool, routed or
   * stale. */
  knowsToken(id: string): boolean {
    return this.tokens.has(id) || this.poolTokens.has(id) || [...this.stalePools.values()].some((tokens) => tokens.includes(id));
  }

  /** Called after each applied change with the pool keys it touched (or 'all'). */
  onChange(listener: (changedPools: ReadonlySet<string> | 'all') => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reads every pool and token; changes are applied one at a time, in arrival order. */
  loadAll(): Promise<void> {
    return this.enqueue(() => this.reloadAll());
  }

  private async reloadAll(): Promise<void> {
    // The head first: the rows read after it are at least as new, so the graph is at least at that height (and a
    // full load says where the tables are, even below an earlier height: after a replay or a rebuild).
    const head = await this.db.kysely.selectFrom('blocks').select('height').orderBy('height', 'desc').limit(1).executeTakeFirst();
    const [pools, tokens, market, timeAndLedgers] = await Promise.all([
      // A stale pool's latest write did not decode: its state is unknown, so it is not routed (its tokens are known).
      this.db.kysely.selectFrom('pools').select(['dex', 'pool_id', 'state', 'updated_height', 'stale', 'tokens']).execute(),
      this.db.kysely.selectFrom('tokens').select(['token', 'decimals']).execute(),
      this.db.kysely.selectFrom('token_market').select(['token', 'price_usd']).execute(),
      this.readTimeAndLedgers(),
    ]);
    this.pools.clear();
    this.stalePools.clear();
    for (const row of pools) this.putRow(row);
    this.tokens.clear();
    this.putTokens(tokens, market);
    this.setTimeAndLedgers(timeAndLedgers);
    this.height = head?.height ?? null;
    this.rebuildIndex();
    this.changed('all');
  }

  /**
   * Applies a notification: re-reads the pools and tokens it names (everything when it says `all`, or for null: a
   * payload that did not parse). Notifications arriving while one is applied merge into the next step, so a
   * listener that falls behind catches up in one read instead of queueing one per block.
   */
  apply(notification: BlocksNotification | null): Promise<void> {
    const next = notification ?? { height: this.height ?? 0, all: true as const };
    if (this.pending !== undefined) {
      this.pending.notification = mergeNotifications(this.pending.notification, next);
      return this.pending.step;
    }
    const pending: { notification: BlocksNotification; step: Promise<void> } = { notification: next, step: Promise.resolve() };
    pending.step = this.enqueue(async () => {
      this.pending = undefined;
      await this.applyNow(pending.notification);
    });
    this.pending = pending;
    return pending.step;
  }

  private async applyNow(notification: BlocksNotification): Promise<void> {
    if ('all' in notification) return this.reloadAll();
    const { pools: keys, tokens: tokenIds } = notification;
    const wanted = keys.map((key) => {
      const at = key.indexOf(':');
      return { dex: key.slice(0, at), poolId: key.slice(at + 1) };
    });
    const rows = wanted.length
      ? await this.db.kysely
          .selectFrom('pools')
          .select(['dex', 'pool_id', 'state', 'updated_height', 'stale', 'tokens'])
          .where((eb) => eb.or(wanted.map((w) => eb.and([eb('dex', '=', w.dex), eb('pool_id', '=', w.poolId)]))))
          .execute()
      : [];
    const timeAndLedgers = await this.readTimeAndLedgers();
    const [tokens, market] = tokenIds.length
      ? await Promise.all([
          this.db.kysely.selectFrom('tokens').select(['token', 'decimals']).where('token', 'in', tokenIds).execute(),
          this.db.kysely.selectFrom('token_market').select(['token', 'price_usd']).where('token', 'in', tokenIds).execute(),
        ])
      : [[], []];
    // Everything read: applied from here on without an await, so no route sees half of it.
    // A named pool without a row was deleted; one gone stale is no longer routed.
    for (const key of keys) {
      this.pools.delete(key);
      this.stalePools.delete(key);
    }
    for (const row of rows) this.putRow(row);
    const ledgersChanged = this.setTimeAndLedgers(timeAndLedgers);
    // A new ledger value moves the quotes of the pools it affects, though no pool was written: they count as changed.
    const changed = new Set(keys);
    for (const [key, pool] of this.pools) {
      const ledger = ledgersChanged.has(pool.dex) ? this.dexes.get(pool.dex)?.ledger : undefined;
      if (ledger !== undefined && (ledger.affects?.(pool.state) ?? true)) changed.add(key);
    }
    this.putTokens(tokens, market);
    this.height = Math.max(this.height ?? 0, notification.height);
    this.rebuildIndex();
    this.changed(changed);
  }

  /** NEP-145 registrations of `account` (contract ids), as indexed. DatabaseUnavailableError when it cannot say. */
  async registrationsOf(account: string): Promise<Set<string>> {
    const rows = await requestRead(this.db.kysely.selectFrom('storage_registrations').select('contract_id').where('account_id', '=', account).execute());
    return new Set(rows.map((r) => r.contract_id));
  }

  /**
   * Recent volatility of pools (`Dex:poolId` keys): the largest price move between consecutive states among the
   * last `depth` rows of pool_history, in ppm (volatility.ts); 0 for a pool without history. DatabaseUnavailableError
   * when the database cannot say.
   */
  async volatilityPpm(keys: readonly string[], depth = 10): Promise<Map<string, bigint>> {
    const result = new Map<string, bigint>(keys.map((k) => [k, 0n]));
    if (keys.length === 0) return result;
    const split = keys.map((key) => [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)] as const);
    const { rows } = await requestRead(sql<{ dex: string; pool_id: string; block_height: number; kind: string; amounts: string[] }>`
      select k.dex, k.pool_id, h.block_height, h.kind, h.amounts
      from unnest(${split.map((s) => s[0])}::text[], ${split.map((s) => s[1])}::text[]) as k(dex, pool_id)
      cross join lateral (
        select block_height, kind, amounts from pool_history
        where dex = k.dex and pool_id = k.pool_id
        order by block_height desc limit ${depth + 1}
      ) h`.execute(this.db.kysely));
    const byPool = new Map<string, { height: number; kind: string; amounts: bigint[] }[]>();
    for (const row of rows) {
      const key = poolKey(row.dex, row.pool_id);
      const list = byPool.get(key) ?? [];
      list.push({ height: row.block_height, kind: row.kind, amounts: row.amounts.map((a) => BigInt(a)) });
      byPool.set(key, list);
    }
    for (const [key, states] of byPool) result.set(key, largestMovePpm(states.sort((a, b) => b.height - a.height)));
    return result;
  }

  /**
   * LISTENs on the blocks channel over its own connection and applies each notification; a reconnect reloads
   * everything. pg-listen reconnects for a few seconds; when it gives up, a fresh subscriber is opened a second
   * later, until stopped (so a stop never leaves a retry loop behind for long). Resolves once listening, after a
   * first full load; the returned function stops listening.
   */
  async listen(onError: (err: Error) => void = () => {}): Promise<() => Promise<void>> {
    const { connectionString } = this.db.pool.options as { connectionString?: string };
    let stopped = false;
    let current: ReturnType<typeof createSubscriber> | undefined;
    let retry: NodeJS.Timeout | undefined;
    const open = async (): Promise<void> => {
      const subscriber = createSubscriber(
        { connectionString, application_name: LISTENER_NAME },
        { parse: (text: string) => text, retryInterval: 250, retryTimeout: 5_000 },
      );
      current = subscriber;
      let connectedOnce = false;
      subscriber.events.on('connected', () => {
        if (connectedOnce) {
          // On read replicas: the reload waits for a replica that has what the primary has now.
          this.db.syncReads?.();
          this.loadAll().catch(onError);
        }
        connectedOnce = true;
      });
      // Emitted when pg-listen gives up reconnecting: start over with a new subscriber.
      subscriber.events.on('error', (err) => {
        onError(err);
        void subscriber.close().catch(() => {});
        if (!stopped) retry = setTimeout(() => void reopen(), 1_000);
      });
      subscriber.notifications.on(NOTIFY_CHANNEL, (payload: unknown) => {
        const notification = typeof payload === 'string' ? parseBlocksNotification(payload) : null;
        this.db.syncReads?.(notification?.height);
        this.apply(notification).catch(onError);
      });
      try {
        await subscriber.connect();
        await subscriber.listenTo(NOTIFY_CHANNEL);
      } catch (err) {
        await subscriber.close().catch(() => {});
        throw err;
      }
      // Loaded after LISTEN: a batch committed in between is both in the rows and announced.
      this.db.syncReads?.();
      await this.loadAll();
    };
    const reopen = async () => {
      try {
        await open();
      } catch (err) {
        onError(err as Error);
        if (!stopped) retry = setTimeout(() => void reopen(), 1_000);
      }
    };
    await open();
    return async () => {
      stopped = true;
      this.stopped = true;
      clearTimeout(retry);
      await current?.close().catch(() => {});
    };
  }

  /** The latest block's time and every DEX's ledger (both change without any pool write), read; setTimeAndLedgers
   * applies them. */
  private async readTimeAndLedgers(): Promise<{ timestampMs: number | null; values: unknown[] }> {
    const [latest, ...values] = await Promise.all([
      this.db.kysely.selectFrom('blocks').select('timestamp_ms').orderBy('height', 'desc').limit(1).executeTakeFirst(),
      ...this.ledgerReaders().map(({ ledger }) => this.readLedger(ledger)),
    ]);
    return { timestampMs: latest?.timestamp_ms ?? null, values };
  }

  /** Applies what readTimeAndLedgers read; the ids of the DEXes whose ledger changed. */
  private setTimeAndLedgers({ timestampMs, values }: { timestampMs: number | null; values: unknown[] }): Set<string> {
    if (timestampMs !== null) this.nowNs = BigInt(timestampMs) * 1_000_000n;
    const changed = new Set<string>();
    const text = (v: unknown) => jsonWithBigints(v instanceof Map ? [...v] : v);
    this.ledgerReaders().forEach(({ dex }, i) => {
      const value = values[i];
      const before = this.ledgers.get(dex.id);
      if (value === undefined) this.ledgers.delete(dex.id);
      else this.ledgers.set(dex.id, value);
      if (value !== undefined && (before === undefined || text(before) !== text(value))) changed.add(dex.id);
    });
    return changed;
  }

  private ledgerReaders(): { dex: Dex; ledger: DexLedger }[] {
    return [...this.dexes.values()].flatMap((dex) => (dex.ledger === undefined ? [] : [{ dex, ledger: dex.ledger }]));
  }

  /** A ledger's value from the log, or undefined while the log has none. A partial index on the event kind serves
   * each read (migrations 0007, 0008): PostgreSQL plans a one-off statement with its parameters' values. */
  private async readLedger(ledger: DexLedger): Promise<unknown> {
    const kind = ledger.eventKind;
    if (ledger.read === 'latest') {
      const { rows } = await sql<{ payload: unknown }>`
        select payload from events where kind = ${kind} order by block_height desc, receipt_id desc, index desc limit 1`.execute(this.db.kysely);
      return rows[0] === undefined ? undefined : ledger.parse(rows[0].payload);
    }
    // The latest figure plus the deltas of the blocks after it.
    const { figure, delta } = ledger;
    const { rows } = await sql<{ total: string }>`
      with figure as (
        select block_height, (payload->>${figure})::numeric as value from events
        where kind = ${kind} and payload->>${figure} is not null
        order by block_height desc, receipt_id desc, index desc limit 1)
      select (f.value + coalesce(
        (select sum((e.payload->>${delta})::numeric) from events e where e.kind = ${kind} and e.block_height > f.block_height), 0))::text as total
      from figure f`.execute(this.db.kysely);
    return rows[0] === undefined ? undefined : ledger.parse(BigInt(rows[0].total));
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    // Once listening stopped (the server closes, and its database with it), queued steps have nothing to read.
    const next = this.queue.then(() => (this.stopped ? undefined : step()));
    this.queue = next.catch(() => {});
    return next;
  }

  private putRow(row: { dex: string; pool_id: string; state: unknown; updated_height: number; stale: boolean; tokens: string[] }): void {
    if (row.stale) this.stalePools.set(poolKey(row.dex, row.pool_id), row.tokens);
    else this.putPool(row);
  }

  private putPool(row: { dex: string; pool_id: string; state: unknown; updated_height: number }): void {
    const dex = this.dexes.get(row.dex);
    if (dex === undefined) return;
    let state: PoolStateCommon & Record<string, unknown>;
    try {
      // A DEX may revive its own state (AmmDclA: points, orders); the others' amounts are revived by name.
      state = dex.reviveState === undefined ? reviveState(row.state) : dex.reviveState(row.state);
    } catch {
      return; // a state this api cannot read is not routed
    }
    this.pools.set(poolKey(row.dex, row.pool_id), { dex: row.dex as DexId, poolId: row.pool_id, state, updatedHeight: row.updated_height });
  }

  private putTokens(tokens: { token: string; decimals: number | null }[], market: { token: string; price_usd: string | null }[]): void {
    const prices = new Map(market.map((m) => [m.token, m.price_usd]));
    for (const t of tokens) this.tokens.set(t.token, { decimals: t.decimals, priceUsd: prices.get(t.token) ?? null });
    for (const m of market) if (!this.tokens.has(m.token)) this.tokens.set(m.token, { decimals: null, priceUsd: m.price_usd });
  }

  private rebuildIndex(): void {
    const byDex = new Map<DexId, RoutingPool[]>();
    const poolTokens = new Set<string>();
    const keys = [...this.pools.keys()].sort();
    for (const key of keys) {
      const pool = this.pools.get(key)!;
      const list = byDex.get(pool.dex) ?? [];
      list.push(pool);
      byDex.set(pool.dex, list);
      for (const token of pool.state.tokens ?? []) poolTokens.add(token);
    }
    this.byDex = byDex;
    this.poolTokens = poolTokens;
    this.version++;
  }

  private changed(pools: ReadonlySet<string> | 'all'): void {
    for (const listener of this.listeners) listener(pools);
  }
}
