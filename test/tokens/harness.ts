// Shared by the token API tests: a database filled by ingesting the realnet's blocks (the chain `npm start` runs: the
// real contracts' wasm and the hosted models, through the real pipeline), the real server listening on a free port,
// and a socket client that pairs replies with requests.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import WebSocket from 'ws';
import { buildServer } from '../../api/server.ts';
import type { Db } from '../../db/connect.ts';
import { ingest } from '../../indexer/pipeline.ts';
import { rawSource } from '../../indexer/sources/raw.ts';
import { realnetSource } from '../../indexer/sources/realnet.ts';
import type { BlockSource, RawBlock } from '../../indexer/sources/source.ts';

export const SEED = 'tokens';
const never = new AbortController().signal;

/** Per seed, the blocks realnetSource has made so far (by height), and its run that makes the next ones. */
const chains = new Map<string, { made: Map<number, RawBlock & { kind: 'message' }>; last: number; run: AsyncIterator<RawBlock> }>();

/**
 * realnetSource of `seed`, each block made once per test file. The source rebuilds its chain from the seed on every
 * run (a restart replays every block before the checkpoint, at some 80 blocks/s); here one run makes the blocks and
 * every later run, of any database, is given the ones it asks for again, as bytes of its own (a decode worker takes
 * the bytes it is given). Each block comes after a turn of the event loop: the chain makes its blocks synchronously,
 * and seconds without one leave the database clients' sockets unread (their connections time out).
 */
export function realnet(seed = SEED): BlockSource {
  const inner = realnetSource({ seed, speed: 0 });
  return rawSource(inner.name, inner.sparse, async function* (range, signal) {
    let chain = chains.get(seed);
    if (chain === undefined) chains.set(seed, (chain = { made: new Map(), last: 0, run: inner.raw({}, never)[Symbol.asyncIterator]() }));
    for (let height = range.from ?? 1; range.to === undefined || height <= range.to; height++) {
      await nextTurn();
      if (signal.aborted) return;
      while (chain.last < height) {
        const block = (await chain.run.next()).value as RawBlock & { kind: 'message' };
        chain.made.set(block.height, block);
        chain.last = block.height;
      }
      const block = chain.made.get(height);
      if (block !== undefined) yield { ...block, body: Buffer.from(block.body) };
    }
  });
}

/** Ingests the realnet chain of SEED up to `to` (resuming after the checkpoint). */
export async function ingestTo(db: Db, to: number): Promise<void> {
  await ingest({ db, source: realnet(), to, signal: never, workers: 0 });
}

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
