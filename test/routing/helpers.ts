// Writing pool states (and registrations) the way the indexer does: as events of a new block, through the real
// store (log, projections, checkpoint, NOTIFY in one transaction). Nothing of ours is bypassed or mocked.
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import type { Db } from '../../db/connect.ts';
import type { DexId, PoolStateCommon } from '../../dexes/events.ts';
import type { DomainEvent } from '../../indexer/event-rows.ts';
import { prepareBatch, writeBatch } from '../../indexer/store.ts';

export interface PoolWrite {
  dex: DexId;
  contractId: string;
  poolId: number | string;
  state: PoolStateCommon & Record<string, unknown>;
}

export interface RegistrationWrite {
  contractId: string;
  accountId: string;
}

/** One block holding these pool states and storage deposits, written by writeBatch. */
export class BlockWriter {
  constructor(
    private readonly db: Db,
    private height = 1,
  ) {}

  /** One block: these pool states and registrations, then `others` (events without their key fields). */
  async write(pools: PoolWrite[], registrations: RegistrationWrite[] = [], others: Record<string, unknown>[] = []): Promise<number> {
    const height = this.height++;
    const timestampMs = Date.UTC(2026, 0, 1) + height * 1000;
    const base = { blockHeight: height, timestampMs, receiptId: `receipt-${height}`, txHash: null };
    const events = [
      ...registrations.map((r, index) => ({
        ...base,
        index,
        kind: 'storage_deposit' as const,
        contractId: r.contractId,
        accountId: r.accountId,
        deposit: 1_250_000_000_000_000_000_000n,
        registrationOnly: true,
      })),
      ...pools.map((p, i) => ({ ...base, index: registrations.length + i, kind: 'pool_state' as const, ...p })),
      ...others.map((e, i) => ({ ...base, index: registrations.length + pools.length + i, ...e })),
    ] as DomainEvent[];
    const block = { height, hash: `hash-${height}`, prevHash: `hash-${height - 1}`, timestampMs, gapBefore: 0 };
    await writeBatch(this.db, prepareBatch([block], events));
    return height;
  }
}

/** GET /route with these parameters. */
export async function getRoute(app: FastifyInstance, params: Record<string, string>) {
  const res = await app.inject({ method: 'GET', url: `/route?${new URLSearchParams(params).toString()}` });
  // `height`: the X-Dexlake-Height header, the block height the quotes were computed at.
  return { status: res.statusCode, body: res.body, height: res.headers['x-dexlake-height'], json: () => JSON.parse(res.body) as Quote[] };
}

export interface FunctionCall {
  method_name: string;
  args: string;
  gas: number;
  deposit: string;
}

export interface Quote {
  deadline: null;
  has_slippage: boolean;
  estimated_amount: Record<string, string>;
  worst_case_amount: Record<string, string>;
  dex_id: string;
  execution_instructions: { NearTransaction?: { receiver_id: string; actions: { FunctionCall: FunctionCall }[] } }[];
  token_output: string;
  needs_unwrap: boolean;
  estimated_max_gas_cost: string;
  estimated_gas_usage: string;
  storage_deposits: string;
  max_storage_deposits: string;
}

/** The NearTransaction instructions as [receiver, method, decoded args, gas, deposit] rows (IntentsQuote skipped). */
export function decodedCalls(quote: Quote): [string, string, unknown, number, string][] {
  return quote.execution_instructions.flatMap(({ NearTransaction: tx }) =>
    (tx?.actions ?? []).map(({ FunctionCall: c }) => [tx!.receiver_id, c.method_name, JSON.parse(Buffer.from(c.args, 'base64').toString('utf8')), c.gas, c.deposit] as [string, string, unknown, number, string]),
  );
}

/** Retries `probe` until it returns something other than undefined (the NOTIFY path is asynchronous). */
export async function eventually<T>(probe: () => Promise<T | undefined>, tries = 200): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the condition never held');
}

/** The text frames a socket receives, in order: `next()` waits for the next one. */
export function inbox(ws: WebSocket) {
  const received: string[] = [];
  const waiting: ((text: string) => void)[] = [];
  ws.on('message', (data) => {
    const text = data.toString();
    const waiter = waiting.shift();
    if (waiter) waiter(text);
    else received.push(text);
  });
  return {
    next: () => new Promise<string>((resolve) => (received.length ? resolve(received.shift()!) : waiting.push(resolve))),
    pending: () => received.length,
  };
}
