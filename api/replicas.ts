// Reads on PostgreSQL read replicas (DATABASE_READ_URL). The api's queries go to a streaming replica, round robin;
// LISTEN stays on the primary (NOTIFY does not reach standbys).
//
// Freshness: when a notification arrives (or a listener starts or reconnects), `syncReads()` takes the primary's
// `pg_current_wal_lsn()`. NOTIFY is delivered after its transaction commits, so that position is at or past the
// commit of the batch announced. Every read after that waits until a replica has replayed that position
// (`pg_last_wal_replay_lsn()`), polling it, at most `waitMs`: the answer or push for height H never comes from a
// replica that has not replayed H. A replica still short of it after `waitMs` is left out ("behind"), as is one that
// refuses connections ("down"); the probe that runs every second takes it back once it answers and has replayed the
// latest such position. With no replica in use, reads go to the primary. When the primary does not answer the
// position query, there is nothing to wait for and reads keep coming from the replicas.
import type pg from 'pg';
import { connect, type Db } from '../db/connect.ts';
import { Kysely, PostgresDialect } from '../db/kysely.ts';
import type { Database } from '../db/schema.ts';

/** Default bound on the wait for a replica to replay a notified position. */
export const REPLICA_WAIT_MS = 5_000;
const PROBE_EVERY_MS = 1_000;
const POLL_MS = 10;
const QUERY_TIMEOUT_MS = 2_000;

export type ReplicaState = 'ok' | 'behind' | 'down';

export interface ReplicaStatus {
  /** host:port/database of its URL (no credentials). */
  name: string;
  /** ok: reads go to it; behind: it missed the wait bound; down: it does not answer. */
  state: ReplicaState;
  /** Its pg_last_wal_replay_lsn(), null while it has not answered. */
  replay_lsn: string | null;
  /** The primary's WAL position minus the replica's replayed one, in bytes (null: either is unknown). */
  lag_bytes: number | null;
  /** The primary's newest indexed block minus the replica's (null: either is unknown). */
  lag_blocks: number | null;
  /** Connections handed out for reads since the api started. */
  reads: number;
}

export interface ReadsStatus {
  primary: 'ok' | 'down';
  /** The newest notification taken into account: reads wait for a replica that has replayed `lsn` (the primary's
   * WAL position when it arrived). Null before the first. */
  notified: { height: number | null; lsn: string } | null;
  /** Reads that went to the primary since the api started (no replica in use). */
  primary_reads: number;
  replicas: ReplicaStatus[];
}

interface Replica {
  name: string;
  db: Db;
  state: ReplicaState;
  /** Replayed WAL position; -1 before the first probe. */
  replayed: bigint;
  height: number | null;
  reads: number;
}

interface Position {
  lsn: bigint;
  height: number | null;
}

/** `16/B374D848` as a number of bytes. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

const formatLsn = (lsn: bigint) => `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;

function replicaName(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ReadReplicas {
  /** The api's read database: its queries go to a replica in use, else to the primary. Its pool's `options` are the
   * primary's, so a LISTEN connection made from them goes to the primary. */
  readonly db: Db;
  readonly #primary: Db;
  readonly #replicas: Replica[];
  readonly #waitMs: number;
  /** The newest notified primary position, and when waiting for it ends. */
  #target: { lsn: bigint; deadline: number };
  /** Resolves once every position asked for by `syncReads` so far is in `#target`. */
  #pending: Promise<void> = Promise.resolve();
  /** One probe of the replicas at a time, shared by every read waiting. */
  #probing: Promise<void> | undefined;
  #next = 0;
  #primaryReads = 0;
  #notified: ReadsStatus['notified'] = null;
  readonly #timer: NodeJS.Timeout;

  constructor(primary: Db, urls: readonly string[], { waitMs = REPLICA_WAIT_MS }: { waitMs?: number } = {}) {
    this.#primary = primary;
    this.#waitMs = waitMs;
    this.#target = { lsn: 0n, deadline: Date.now() + waitMs };
    this.#replicas = urls.map((url) => ({
      name: replicaName(url),
      db: connect(url, { connectTimeoutMs: QUERY_TIMEOUT_MS, applicationName: 'dexlake-api-read' }),
      state: 'ok',
      replayed: -1n,
      height: null,
      reads: 0,
    }));
    const pool = {
      options: primary.pool.options,
      connect: () => this.#connect(),
      end: async () => {},
    };
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: pool as unknown as pg.Pool }) });
    this.db = { kysely, pool: pool as unknown as pg.Pool, close: () => this.close(), syncReads: (height) => this.syncReads(height) };
    this.#timer = setInterval(() => void this.status(), PROBE_EVERY_MS);
    this.#timer.unref();
  }

  /** Reads from now on see at least what the primary has committed by now (see the top of this file). */
  syncReads(height?: number): void {
    const position = this.#primaryPosition().catch(() => null);
    this.#pending = Promise.all([this.#pending, position]).then(([, p]) => {
      if (!p || p.lsn <= this.#target.lsn) return;
      this.#target = { lsn: p.lsn, deadline: Date.now() + this.#waitMs };
      this.#notified = { height: height ?? null, lsn: formatLsn(p.lsn) };
    });
  }

  /** A replica in use, for /health's height while the primary is down (no waiting: it reports, it does not answer). */
  inUse(): Db | undefined {
    return this.#replicas.find((r) => r.state === 'ok')?.db;
  }

  async #primaryPosition(): Promise<Position> {
    const { rows } = await withTimeout(
      this.#primary.pool.query<{ lsn: string; height: number | null }>('select pg_current_wal_lsn()::text as lsn, (select max(height) from blocks) as height'),
      QUERY_TIMEOUT_MS,
    );
    return { lsn: parseLsn(rows[0]!.lsn), height: rows[0]!.height };
  }

  /** A connection for one read: from a replica that has replayed the target, else the primary. */
  async #connect(): Promise<pg.PoolClient> {
    for (;;) {
      const replica = await this.#choose();
      if (!replica) {
        this.#primaryReads++;
        return this.#primary.pool.connect();
      }
      try {
        const client = await replica.db.pool.connect();
        replica.reads++;
        return client;
      } catch {
        replica.state = 'down';
      }
    }
  }

  async #choose(): Promise<Replica | undefined> {
    await this.#pending;
    const { lsn, deadline } = this.#target;
    for (;;) {
      const inUse = this.#replicas.filter((r) => r.state === 'ok');
      const ready = inUse.filter((r) => r.replayed >= lsn);
      if (ready.length) return ready[this.#next++ % ready.length];
      if (!inUse.length) return undefined;
      if (Date.now() >= deadline) {
        for (const r of inUse) r.state = 'behind';
        return undefined;
      }
      await (this.#probing ??= this.#probeAll(inUse).finally(() => (this.#probing = undefined)));
      if (!this.#replicas.some((r) => r.state === 'ok' && r.replayed >= lsn)) await sleep(POLL_MS);
    }
  }

  async #probeAll(replicas: readonly Replica[]): Promise<void> {
    await Promise.all(replicas.map((r) => this.#probe(r)));
  }

  /** Reads a replica's replayed position; takes it back when it answers and has replayed the target. */
  async #probe(replica: Replica): Promise<void> {
    try {
      const { rows } = await withTimeout(
        replica.db.pool.query<{ lsn: string | null; height: number | null }>(
          `select (case when pg_is_in_recovery() then pg_last_wal_replay_lsn() else pg_current_wal_lsn() end)::text as lsn,
                  (select max(height) from blocks) as height`,
        ),
        QUERY_TIMEOUT_MS,
      );
      replica.replayed = rows[0]!.lsn === null ? -1n : parseLsn(rows[0]!.lsn);
      replica.height = rows[0]!.height;
      const caughtUp = replica.replayed >= this.#target.lsn;
      if (replica.state !== 'ok' && caughtUp) replica.state = 'ok';
      else if (replica.state === 'ok' && !caughtUp && Date.now() >= this.#target.deadline) replica.state = 'behind';
    } catch {
      replica.state = 'down';
    }
  }

  /** Probes the primary and every replica now (taking back those that are caught up), and reports each one's lag. */
  async status(): Promise<ReadsStatus> {
    const [primary] = await Promise.all([this.#primaryPosition().catch(() => null), this.#probeAll(this.#replicas)]);
    return {
      primary: primary ? 'ok' : 'down',
      notified: this.#notified,
      primary_reads: this.#primaryReads,
      replicas: this.#replicas.map((r) => {
        const known = r.state !== 'down' && r.replayed >= 0n;
        return {
          name: r.name,
          state: r.state,
          replay_lsn: known ? formatLsn(r.replayed) : null,
          lag_bytes: known && primary ? Number(primary.lsn > r.replayed ? primary.lsn - r.replayed : 0n) : null,
          lag_blocks: known && primary && primary.height !== null && r.height !== null ? Math.max(0, primary.height - r.height) : null,
          reads: r.reads,
        };
      }),
    };
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all(this.#replicas.map((r) => r.db.close()));
  }
}
