// LISTEN dexlake_blocks on a connection of its own, reconnecting with capped backoff for as long as the api runs.
// A notification is a hint (the tables are the truth): after a reconnect, or for a payload that does not parse,
// listeners are told "everything may have changed" (`all: true`).
import pg from 'pg';
import { NOTIFY_CHANNEL, parseBlocksNotification, type BlocksNotification } from '../../db/notify.ts';

const MIN_BACKOFF_MS = 250;
/** Low: once PostgreSQL is back, pushes should resume within a couple of seconds (a refused attempt costs nothing). */
const MAX_BACKOFF_MS = 2_000;

/** The listener connection's application_name (visible in pg_stat_activity). */
export const TOKEN_LISTENER_NAME = 'dexlake-token-listen';

export interface ListenerLog {
  warn(obj: object, msg: string): void;
}

export class BlocksListener {
  #client: pg.Client | undefined;
  #closed = false;
  #attempt = 0;
  #timer: NodeJS.Timeout | undefined;
  #lastHeight = 0;

  constructor(
    readonly config: pg.ClientConfig,
    readonly onNotification: (notification: BlocksNotification) => void,
    readonly log: ListenerLog,
  ) {}

  /** Connects and listens; resolves once listening (a failure is retried in the background). */
  async start(): Promise<void> {
    await this.#connect().catch(() => this.#retry());
  }

  async #connect(): Promise<void> {
    // TCP keepalive: a server that vanished without closing the socket (a cut network) is noticed, then retried.
    const client = new pg.Client({ ...this.config, application_name: TOKEN_LISTENER_NAME, keepAlive: true });
    client.on('error', (err) => this.log.warn({ err: err.message }, 'LISTEN connection error'));
    client.on('end', () => {
      if (this.#client === client) this.#client = undefined;
      if (!this.#closed) this.#retry();
    });
    client.on('notification', (message) => {
      if (message.channel !== NOTIFY_CHANNEL) return;
      const notification = parseBlocksNotification(message.payload ?? '') ?? { height: this.#lastHeight, all: true as const };
      this.#lastHeight = Math.max(this.#lastHeight, notification.height);
      this.onNotification(notification);
    });
    await client.connect();
    if (this.#closed) return void (await client.end());
    await client.query(`listen ${NOTIFY_CHANNEL}`);
    this.#client = client;
    // Anything may have happened while we were not listening.
    if (this.#attempt > 0) this.onNotification({ height: this.#lastHeight, all: true });
    this.#attempt = 0;
  }

  #retry(): void {
    if (this.#closed || this.#timer) return;
    const delay = Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS * 2 ** this.#attempt++);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#connect().catch((err: Error) => {
        this.log.warn({ err: err.message }, 'LISTEN reconnect failed');
        this.#retry();
      });
    }, delay);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }
}
