// The /ws socket: `hello` first, then `{id, method, params}` requests answered `{id, result}` or `{id, error}`,
// every HTTP method by name, plus tokens.subscribe (pushes `{sub, height, set, left}`), trades.subscribe (pushes
// `{sub, height, trades}`, trade-feed.ts) and unsubscribe.
//
// A notification re-reads each subscription whose tokens it names (every subscription on `all`, and every
// subscription without `ids`, whose followed list may change with any token); subscriptions with equal params
// share one read, and those that also hold an equal last-pushed state share one diff and one serialized push. A connection whose unsent bytes pass LIMITS.max_buffered_bytes does not read what it is sent:
// it is cut off rather than allowed to grow the server's memory.
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import type {} from '@fastify/websocket';
import { mergeNotifications, type BlocksNotification } from '../../db/notify.ts';
import type { Db } from '../../db/connect.ts';
import { canonicalJson } from './cache.ts';
import type { MethodCaller } from './call.ts';
import { validateParams } from './call.ts';
import { creditsFor, ERROR_CREDITS } from './credits.ts';
import { ApiError, toErrorBody } from './errors.ts';
import { LIMITS, PROTOCOL_VERSION } from './limits.ts';
import { readHead, withSnapshot, type Head, type Method } from './method.ts';
import { resolvePool } from './methods/pools.ts';
import { tokensSubscribe, tradesSubscribe, unsubscribe } from './methods/socket.ts';
import { readTokenTable, type TokenTableResult } from './methods/tokens.ts';
import { resolveTokenParams } from './symbols.ts';
import { CreditBudget } from './rate-limit.ts';
import { diffTable, tableToPushed, type Pushed, type TokensSubscribeParams } from './subscription.ts';
import { DEFAULT_FIELDS } from './token-fields.ts';
import { exactDecimal, feedRows, matches, readTradesAfter, type TradeFilter, type TradeRow } from './trade-feed.ts';

interface Subscription {
  id: number;
  params: TokensSubscribeParams;
  key: string;
  pushed: Pushed;
  /** Followed token ids (the last table's rows). */
  follows: Set<string>;
}

/** A trades.subscribe: its filter, and the height up to which its trades were pushed. */
interface Feed {
  id: number;
  filter: TradeFilter;
  key: string;
  from: number;
}

interface Connection {
  socket: WebSocket;
  subs: Map<number, Subscription>;
  feeds: Map<number, Feed>;
  budget: CreditBudget;
}

function tableQuery(params: TokensSubscribeParams) {
  return { ...params, fields: params.fields ?? DEFAULT_FIELDS };
}

/** The outcome of one round for the subscriptions of one params key that held one last-pushed state. */
interface RoundOutcome {
  next: Pushed;
  follows: Set<string>;
  /** The push after `{"sub":<id>`, or undefined when nothing passed. */
  tail: string | undefined;
}

export class SocketHub {
  readonly #connections = new Set<Connection>();
  /** Per params key, the state of subscriptions made at the current head: later ones at that head share it. */
  readonly #subscribedAtHead = new Map<string, { height: number; pushed: Pushed }>();
  readonly #tableReads = new Map<string, ReturnType<typeof readTokenTable>>();
  #pending: BlocksNotification | undefined;
  #running: Promise<void> | undefined;

  constructor(
    readonly db: Db,
    readonly caller: MethodCaller,
    readonly methods: ReadonlyMap<string, Method>,
    readonly log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void },
  ) {}

  /** Live subscriptions over every connection (/metrics). */
  get subscriptions(): number {
    let n = 0;
    for (const connection of this.#connections) n += connection.subs.size + connection.feeds.size;
    return n;
  }

  async open(socket: WebSocket): Promise<void> {
    const connection: Connection = { socket, subs: new Map(), feeds: new Map(), budget: new CreditBudget(LIMITS.credits_per_minute) };
    this.#connections.add(connection);
    socket.on('close', () => this.#connections.delete(connection));
    socket.on('error', () => this.#connections.delete(connection));
    const helloSent = readHead(this.db.kysely)
      .catch(() => ({ height: 0, timestamp_millis: 0 }))
      .then((head) => {
        this.#send(connection, { hello: { version: PROTOCOL_VERSION, height: head.height, timestamp_millis: head.timestamp_millis, limits: LIMITS }, credits_used: 0 });
      });
    // Listening at once (a message without a listener is lost), answering only after the hello, in order.
    socket.on('message', (data, isBinary) => {
      const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer | ArrayBuffer).byteLength;
      const text = isBinary || size > LIMITS.max_message_bytes ? undefined : data.toString();
      void helloSent.then(() => {
        if (text !== undefined) return this.#request(connection, text);
        this.#send(connection, { id: null, error: isBinary ? { code: 'bad_request', message: 'messages are JSON text' } : { code: 'too_large', message: `a message is at most ${LIMITS.max_message_bytes} bytes` } });
      });
    });
    await helloSent;
  }

  #send(connection: Connection, message: unknown): void {
    this.#sendText(connection, JSON.stringify(message));
  }

  #sendText(connection: Connection, text: string): void {
    const { socket } = connection;
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > LIMITS.max_buffered_bytes) {
      // It does not read: cut it off, and forget its subscriptions.
      this.#connections.delete(connection);
      socket.terminate();
      return;
    }
    socket.send(text);
  }

  async #request(connection: Connection, text: string): Promise<void> {
    let id: unknown = null;
    try {
      let request: unknown;
      try {
        request = JSON.parse(text);
      } catch {
        throw new ApiError('bad_request', 'a message is a JSON object {id, method, params}');
      }
      if (typeof request !== 'object' || request === null || Array.isArray(request)) throw new ApiError('bad_request', 'a message is a JSON object {id, method, params}');
      const { id: requestId, method, params, ...rest } = request as Record<string, unknown>;
      id = Number.isSafeInteger(requestId) ? requestId : null;
      if (id === null) throw new ApiError('bad_request', 'id must be an integer');
      if (Object.keys(rest).length) throw new ApiError('bad_request', `unknown key "${Object.keys(rest)[0]}"`);
      if (typeof method !== 'string') throw new ApiError('bad_request', 'method must be a string');
      connection.budget.check('socket');
      if (method === 'tokens.subscribe') return await this.#subscribe(connection, id as number, params);
      if (method === 'trades.subscribe') return await this.#subscribeTrades(connection, id as number, params);
      if (method === 'unsubscribe') return this.#unsubscribe(connection, id as number, params);
      const target = this.methods.get(method);
      if (!target) throw new ApiError('unknown_method', `no method "${method}"`);
      const answer = await this.caller.call(target, params);
      this.#spend(connection, answer.credits);
      this.#send(connection, { id, result: answer.result });
    } catch (err) {
      const body = toErrorBody(err);
      if (body.code === 'internal') this.log.error({ err }, 'socket request failed');
      this.#spend(connection, ERROR_CREDITS);
      this.#send(connection, { id, error: body });
    }
  }

  #spend(connection: Connection, credits: number): void {
    connection.budget.spend('socket', credits);
  }

  async #subscribe(connection: Connection, id: number, raw: unknown): Promise<void> {
    const given = validateParams(tokensSubscribe, raw);
    // Symbols for ids resolve once, at subscribe: the subscription follows the tokens they named then.
    const params = await withSnapshot(this.db, ({ db }) => resolveTokenParams(db, tokensSubscribe.params, given));
    this.#checkRoom(connection, id);
    const key = canonicalJson(tableQuery(params));
    // Subscribe requests with equal params arriving together share one read (a crowd subscribing at once costs one).
    let read = this.#tableReads.get(key);
    if (read === undefined) {
      read = withSnapshot(this.db, ({ db, head }) => readTokenTable(db, head, tableQuery(params))).finally(() => this.#tableReads.delete(key));
      this.#tableReads.set(key, read);
    }
    const table = await read;
    // Checked again: other subscribe requests of this connection may have been answered meanwhile.
    this.#checkRoom(connection, id);
    // Equal params at an equal height read an equal table: such subscriptions start from one shared state, so each
    // round diffs and serializes it once for all of them (the state is never mutated, only replaced).
    let start = this.#subscribedAtHead.get(key);
    if (start?.height !== table.height) {
      start = { height: table.height, pushed: tableToPushed(table) };
      this.#subscribedAtHead.set(key, start);
    }
    const sub: Subscription = { id, params, key, pushed: start.pushed, follows: new Set(start.pushed.keys()) };
    connection.subs.set(id, sub);
    this.#spend(connection, creditsFor('tokens.subscribe', table.rows.length));
    this.#send(connection, { id, result: table });
  }

  /** Throws unless the connection can take subscription `id`: its id unused, and fewer than the limit. */
  #checkRoom(connection: Connection, id: number): void {
    if (connection.subs.has(id) || connection.feeds.has(id)) throw new ApiError('bad_request', `subscription ${id} exists; use another id`);
    if (connection.subs.size + connection.feeds.size >= LIMITS.max_subscriptions_per_connection) {
      throw new ApiError('limit_exceeded', `at most ${LIMITS.max_subscriptions_per_connection} subscriptions per connection`);
    }
  }

  /** trades.subscribe: answers the height it starts after; the trades of each later block are pushed. */
  async #subscribeTrades(connection: Connection, id: number, raw: unknown): Promise<void> {
    const given = validateParams(tradesSubscribe, raw);
    this.#checkRoom(connection, id);
    const { filter, head } = await withSnapshot(this.db, async ({ db, head }) => {
      const params = await resolveTokenParams(db, tradesSubscribe.params, given);
      // The pool's DEX: a pool id alone is one DEX's (resolvePool refuses an id several DEXes have).
      const pool = params.pool_id === undefined ? undefined : await resolvePool(db, params.pool_id, params.dex);
      const filter: TradeFilter = {};
      if (params.token !== undefined) filter.token = params.token;
      const dex = pool?.dex ?? params.dex;
      if (dex != null) filter.dex = dex;
      if (params.pool_id !== undefined) filter.poolId = params.pool_id;
      if (params.min_usd !== undefined) filter.minUsd = await exactDecimal(db, params.min_usd);
      return { filter, head };
    });
    this.#checkRoom(connection, id);
    connection.feeds.set(id, { id, filter, key: canonicalJson(filter), from: head.height });
    this.#spend(connection, creditsFor('trades.subscribe', 0));
    this.#send(connection, { id, result: { height: head.height, timestamp_millis: head.timestamp_millis } });
  }

  #unsubscribe(connection: Connection, id: number, raw: unknown): void {
    const { sub } = validateParams(unsubscribe, raw);
    if (!connection.subs.delete(sub) && !connection.feeds.delete(sub)) throw new ApiError('not_found', `no subscription ${sub}`);
    this.#send(connection, { id, result: { sub } });
  }

  /** A committed batch: re-read what it may have changed, push the differences. Notifications that arrive
   * meanwhile are merged and handled next, one round at a time. */
  notify(notification: BlocksNotification): Promise<void> {
    // States kept for subscriptions at the old head are of no use to later ones.
    this.#subscribedAtHead.clear();
    this.#pending = this.#pending ? mergeNotifications(this.#pending, notification) : notification;
    this.#running ??= this.#drain().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #drain(): Promise<void> {
    while (this.#pending) {
      const notification = this.#pending;
      this.#pending = undefined;
      await this.#pushTrades().catch((err: unknown) => this.log.error({ err }, 'trade feed round failed'));
      await this.#round(notification).catch((err: unknown) => this.log.error({ err }, 'subscription round failed'));
    }
  }

  /** Every feed gets the trades of the blocks after its height up to the head, read once for all of them; feeds
   * with equal filters at one height share the serialized push. A feed whose trades could not be read ends. */
  async #pushTrades(): Promise<void> {
    const feeds: [Connection, Feed][] = [];
    for (const connection of this.#connections) for (const feed of connection.feeds.values()) feeds.push([connection, feed]);
    if (!feeds.length) return;
    const from = feeds.reduce((low, [, feed]) => Math.min(low, feed.from), Infinity);
    let read: { head: Head; trades: TradeRow[] };
    try {
      read = await withSnapshot(this.db, async ({ db, head }) => ({ head, trades: head.height > from ? await readTradesAfter(db, from, head.height) : [] }));
    } catch (err) {
      this.log.error({ err }, 'trade feed read failed');
      for (const [connection, feed] of feeds) {
        if (connection.feeds.delete(feed.id)) this.#send(connection, { sub: feed.id, end: { message: 'the trades could not be read; subscribe again' } });
      }
      return;
    }
    const { head, trades } = read;
    const tails = new Map<string, string | undefined>();
    for (const [connection, feed] of feeds) {
      if (!connection.feeds.has(feed.id) || feed.from >= head.height) continue;
      const shared = `${feed.from} ${feed.key}`;
      if (!tails.has(shared)) {
        const rows = trades.filter((t) => Number(t.block_height) > feed.from && matches(feed.filter, t));
        // The tail of JSON.stringify({sub, height, trades}); nothing when no trade matched.
        tails.set(shared, rows.length ? `,"height":${head.height},"trades":${JSON.stringify(feedRows(feed.filter, rows))}}` : undefined);
      }
      feed.from = head.height;
      const tail = tails.get(shared);
      if (tail) this.#sendText(connection, `{"sub":${feed.id}${tail}`);
    }
  }

  async #round(notification: BlocksNotification): Promise<void> {
    const changed = 'all' in notification ? undefined : new Set(notification.tokens);
    const affected: [Connection, Subscription][] = [];
    for (const connection of this.#connections) {
      for (const sub of connection.subs.values()) {
        const touched = !changed || !sub.params.ids || [...sub.follows].some((t) => changed.has(t)) || sub.params.ids.some((t) => changed.has(t));
        if (touched && (!changed || changed.size > 0)) affected.push([connection, sub]);
      }
    }
    if (!affected.length) return;
    const tables = new Map<string, TokenTableResult>();
    try {
      await withSnapshot(this.db, async ({ db, head }) => {
        for (const [, sub] of affected) if (!tables.has(sub.key)) tables.set(sub.key, await readTokenTable(db, head, tableQuery(sub.params)));
      });
    } catch (err) {
      // The tables could not be read: these subscriptions cannot be kept right, so they end (clients resubscribe).
      this.log.error({ err }, 'subscription re-read failed');
      for (const [connection, sub] of affected) {
        if (connection.subs.delete(sub.id)) this.#send(connection, { sub: sub.id, end: { message: 'the token data could not be read; subscribe again' } });
      }
      return;
    }
    // Per params key, then per last-pushed state: the diff, the next state and the serialized push, made once.
    const outcomes = new Map<string, Map<Pushed, RoundOutcome>>();
    // Per params key without min_change: the state every such subscription holds after this round (a diff without
    // thresholds leaves the subscriber with exactly the fresh table, whatever it held before).
    const settled = new Map<string, RoundOutcome['next']>();
    for (const [connection, sub] of affected) {
      if (!connection.subs.has(sub.id)) continue;
      let byState = outcomes.get(sub.key);
      if (!byState) outcomes.set(sub.key, (byState = new Map()));
      let outcome = byState.get(sub.pushed);
      if (!outcome) {
        const table = tables.get(sub.key)!;
        const minChange = sub.params.min_change ?? {};
        const diff = diffTable(sub.pushed, table, minChange);
        let next = diff.next;
        if (!Object.keys(minChange).length) {
          next = settled.get(sub.key) ?? next;
          settled.set(sub.key, next);
        }
        const changed = Object.keys(diff.diff.set).length > 0 || diff.diff.left.length > 0;
        // The tail of JSON.stringify({sub, height, set, left}).
        const tail = changed ? `,"height":${table.height},"set":${JSON.stringify(diff.diff.set)},"left":${JSON.stringify(diff.diff.left)}}` : undefined;
        outcome = { next, follows: new Set(next.keys()), tail };
        byState.set(sub.pushed, outcome);
      }
      sub.pushed = outcome.next;
      sub.follows = outcome.follows;
      if (outcome.tail) this.#sendText(connection, `{"sub":${sub.id}${outcome.tail}`);
    }
  }

  /** Ends every subscription (the server is stopping). */
  close(): void {
    for (const connection of this.#connections) {
      for (const id of [...connection.subs.keys(), ...connection.feeds.keys()]) this.#send(connection, { sub: id, end: { message: 'the server is stopping' } });
      connection.subs.clear();
      connection.feeds.clear();
    }
  }
}

export function tokenSocketRoute(app: FastifyInstance, hub: SocketHub): void {
  app.get('/ws', { websocket: true }, (socket) => {
    void hub.open(socket);
  });
}
