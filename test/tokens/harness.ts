// Shared by the token API tests: a database filled by ingesting the realnet's blocks (the chain `npm start` runs: the
// real contracts' wasm and the hosted models, through the real pipeline), the real server listening on a free port,
// and a socket client that pairs replies with requests.
import type { FastifyInstance } from 'fastify';
import WebSocket from 'ws';
import { buildServer } from '../../api/server.ts';
import type { Db } from '../../db/connect.ts';
import { ingest } from '../../indexer/pipeline.ts';
import { indexedRealnetDb, realnet } from '../harness/realnet.ts';

export const SEED = 'tokens';
const never = new AbortController().signal;

/** Ingests the realnet chain of SEED up to `to` (resuming after the checkpoint). */
export async function ingestTo(db: Db, to: number): Promise<void> {
  await ingest({ db, source: realnet(SEED), to, signal: never, workers: 0 });
}

/** A database of this file's own holding the realnet chain of SEED indexed from genesis to `to` (made once a run). */
export const indexedDb = (to: number): Promise<Db & { url: string }> => indexedRealnetDb(SEED, to);

export async function startServer(db: Db): Promise<{ app: FastifyInstance; wsUrl: string }> {
  const app = await buildServer({ db, logLevel: 'silent' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { app, wsUrl: `ws://127.0.0.1:${address.port}/ws` };
}

export type Message = Record<string, any>;

/** A /ws client: `call` sends `{id, method, params}` and resolves with the reply of that id; other messages
 * (hello, pushes) are queued for `next`. */
export class SocketClient {
  readonly ws: WebSocket;
  #nextId = 1;
  readonly #waiting = new Map<number, (message: Message) => void>();
  readonly #queue: Message[] = [];
  readonly #queueWaiters: ((message: Message) => void)[] = [];
  /** Every message received, in order. */
  readonly received: Message[] = [];

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as Message;
      this.received.push(message);
      const waiter = typeof message.id === 'number' && message.sub === undefined ? this.#waiting.get(message.id) : undefined;
      if (waiter) {
        this.#waiting.delete(message.id);
        waiter(message);
      } else {
        const next = this.#queueWaiters.shift();
        if (next) next(message);
        else this.#queue.push(message);
      }
    });
  }

  static async open(url: string): Promise<SocketClient> {
    const ws = new WebSocket(url);
    const client = new SocketClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return client;
  }

  /** The raw reply `{id, result}` or `{id, error}`. */
  request(method: string, params?: unknown, id = this.#nextId++): Promise<Message> {
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.ws.send(JSON.stringify(params === undefined ? { id, method } : { id, method, params }));
    });
  }

  sendRaw(text: string): void {
    this.ws.send(text);
  }

  /** The next message that is not a reply to a pending request (hello, a push, an error without id). */
  next(): Promise<Message> {
    const queued = this.#queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => this.#queueWaiters.push(resolve));
  }

  /** Messages already queued (none are waited for). */
  drainQueued(): Message[] {
    return this.#queue.splice(0);
  }

  close(): void {
    this.ws.close();
  }
}
