// `dexlake bootstrap`: every DEX's state at one block read from a NEAR JSON-RPC node (each DEX's `bootstrap.read`,
// through its contract's views and, where the node serves it, its raw storage), with the metadata of every token its
// pools hold, written as the events of that block in one transaction: the block's row, the events (receipts
// `bootstrap:<dex>`, `bootstrap:metadata`), the projections and the checkpoint. `dexlake index` then goes on from
// the next block, checking that it continues this one. Only an empty database is bootstrapped: the log's history
// would otherwise disagree with the state read.
import type { Db } from '../db/connect.ts';
import type { DexContracts } from '../dexes/contracts.ts';
import { MethodMissing, type ChainAt, type Dex, type DexBootstrap } from '../dexes/dex.ts';
import { DEXES } from '../dexes/index.ts';
import type { EventBase } from '../near/events.ts';
import { isValidAccountId, NEAR_TOKEN_ID } from '../near/token-id.ts';
import type { DomainEvent } from './event-rows.ts';
import { blockHeader, fetchFtMetadata, RpcError, viewFunctionAt, viewStateAt, type BlockHeader } from './near-rpc.ts';
import { appendToLog, applyProjections, inLogTransaction, notify, prepareProjections, saveCheckpoint } from './store.ts';

export class BootstrapError extends Error {
  override name = 'BootstrapError';
}

export interface BootstrapOptions {
  db: Db;
  rpcUrl: string;
  contracts: DexContracts;
  /** The block to read at; default: the latest final block. */
  height?: number;
  dexes?: readonly Dex[];
  signal?: AbortSignal;
  /** Progress lines for the operator. */
  say?: (line: string) => void;
}

export interface BootstrapSummary {
  height: number;
  hash: string;
  /** Per DEX: pool states read, how many approximate, what was left out. */
  dexes: Array<{ dex: string; pools: number; approximate: number; events: number; skipped: Record<string, number> }>;
  tokens: number;
}

const TIMEOUT_MS = 30_000;

/** A node's answers at one block, through the JSON-RPC client. */
export function rpcChainAt(rpcUrl: string, header: BlockHeader, contracts: DexContracts, signal?: AbortSignal): ChainAt {
  const options = { blockId: header.height, signal, timeoutMs: TIMEOUT_MS };
  return {
    height: header.height,
    timestampMs: header.timestampMs,
    contracts,
    view: async (contractId, method, args = {}) => {
      const answer = await viewFunctionAt(rpcUrl, contractId, method, args, options).catch((error: unknown) => {
        if (error instanceof RpcError && error.causeName === 'CONTRACT_EXECUTION_ERROR' && /MethodNotFound/.test(error.detail)) {
          throw new MethodMissing(`${contractId} has no view ${method} at block ${header.height}`);
        }
        throw error;
      });
      if (answer.blockHeight !== header.height) throw new BootstrapError(`${contractId}.${method}: asked at block ${header.height}, the node answered at ${answer.blockHeight}`);
      return answer.value;
    },
    storage: (contractId, prefixBase64) => viewStateAt(rpcUrl, contractId, prefixBase64, options),
  };
}

/** Reads every DEX's state at the block and writes it; nothing is written when any read fails. An RPC failure names
 * the node, the call (a view and its contract, or the block) and NEAR's cause or the HTTP status. */
export async function bootstrap(options: BootstrapOptions): Promise<BootstrapSummary> {
  try {
    return await bootstrapAt(options);
  } catch (error) {
    if (error instanceof RpcError) throw new BootstrapError(`${options.rpcUrl}: ${error.message}`, { cause: error });
    throw error;
  }
}

async function bootstrapAt(options: BootstrapOptions): Promise<BootstrapSummary> {
  const { db, rpcUrl, contracts, signal } = options;
  const dexes = (options.dexes ?? DEXES).filter((d): d is Dex & { bootstrap: DexBootstrap } => d.bootstrap !== undefined);
  const say = options.say ?? (() => {});
  const indexed = await db.kysely.selectFrom('blocks').select('height').limit(1).executeTakeFirst();
  if (indexed !== undefined) throw new BootstrapError('the database already holds indexed blocks: bootstrap starts an empty one (drop it, or index on from its checkpoint)');

  const header = await blockHeader(rpcUrl, options.height ?? 'final', { signal, timeoutMs: TIMEOUT_MS });
  if (options.height !== undefined && header.height !== options.height) throw new BootstrapError(`asked for block ${options.height}, the node answered block ${header.height}`);
  say(`reading every DEX's state at block ${header.height} (${header.hash}) from ${rpcUrl}`);
  const at = rpcChainAt(rpcUrl, header, contracts, signal);
  const base = (receiptId: string, index: number): EventBase => ({ blockHeight: header.height, timestampMs: header.timestampMs, receiptId, txHash: null, index });

  const events: DomainEvent[] = [];
  const summary: BootstrapSummary = { height: header.height, hash: header.hash, dexes: [], tokens: 0 };
  const tokens = new Set<string>();
  for (const dex of dexes) {
    const read = await dex.bootstrap.read(at);
    const receiptId = `bootstrap:${dex.id}`;
    let pools = 0;
    let approximate = 0;
    read.events.forEach((e, i) => {
      events.push({ ...base(receiptId, i), ...e } as DomainEvent);
      if (e.kind !== 'pool_state') return;
      pools++;
      if ((e.state as { approximate?: unknown }).approximate !== undefined) approximate++;
      for (const token of e.state.tokens) if (token !== NEAR_TOKEN_ID && isValidAccountId(token)) tokens.add(token); // not an inner balance
    });
    summary.dexes.push({ dex: dex.id, pools, approximate, events: read.events.length, skipped: read.skipped ?? {} });
    say(`${dex.id}: ${pools} pools${approximate ? ` (${approximate} approximate until their next write)` : ''}, ${read.events.length} events`);
  }

  // Every token a pool holds, with its metadata as the chain gives it now.
  let index = 0;
  for (const token of [...tokens].sort()) {
    const metadata = await fetchFtMetadata(rpcUrl, token, { blockId: header.height, signal, timeoutMs: TIMEOUT_MS });
    if (metadata === null) continue;
    events.push({ ...base('bootstrap:metadata', index++), kind: 'token_metadata', contractId: token, ...metadata, source: 'rpc' });
  }
  summary.tokens = index;
  say(`token metadata: ${index} of ${tokens.size} tokens`);

  await inLogTransaction(db, async (tx) => {
    await appendToLog(tx, [{ height: header.height, hash: header.hash, prevHash: header.prevHash, timestampMs: header.timestampMs, gapBefore: 0 }], events);
    await applyProjections(tx, prepareProjections(events));
    await saveCheckpoint(tx.kysely, { height: header.height, hash: header.hash });
    await notify(tx.kysely, JSON.stringify({ height: header.height, all: true }));
  });
  return summary;
}
