// The proof of a DEX's bootstrap on a seeded chain (the realnet: `realnetChain`): index blocks 1..N into one
// database; into another, bootstrap the DEX at block H from the chain's own JSON-RPC (devnet/realnet/rpc.ts over
// devnet/rpc.ts, a real local server), then index H+1..N. The DEX's `pools` rows (all but `updated_height`, the height of a pool's last write, which a view
// cannot tell) and its GET /route answers over every pair of its pools' tokens, both ways, must then be equal.
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../api/server.ts';
import type { Db } from '../../db/connect.ts';
import { MAINNET_CONTRACTS } from '../../dexes/contracts.ts';
import { DEXES } from '../../dexes/index.ts';
import { VIEW_STATE_LIMIT_BYTES, type RealnetRpcChain } from '../../devnet/realnet/rpc.ts';
import { parseRefRelease, realnetRpc, type RefRelease } from '../../devnet/realnet/wasm.ts';
import { startNearRpc, type RpcChain } from '../../devnet/rpc.ts';
import { bootstrap } from '../../indexer/bootstrap.ts';
import { ingest } from '../../indexer/pipeline.ts';
import type { BlockSource } from '../../indexer/sources/source.ts';
import { createMigratedDb } from './db.ts';
import { indexedRealnetDb, realnet, realnetAnswers, realnetHeaders } from './realnet.ts';

export interface BootstrapEquality {
  /** Pools rows of the DEX, indexed from 1 and bootstrapped at H, in pool id order. */
  indexed: unknown[];
  bootstrapped: unknown[];
  /** GET /route answers (status and body) of the same queries on both. */
  routes: Array<{ query: string; indexed: string; bootstrapped: string }>;
}

const never = new AbortController().signal;

async function poolRows(db: Db, dex: string): Promise<unknown[]> {
  const { rows } = await db.pool.query(`select pool_id, kind, tokens, amounts::text[], total_fee, state::text, stale from pools where dex = $1 order by pool_id`, [dex]);
  return rows;
}

/** The chain a bootstrap is proved on: its blocks, and its JSON-RPC answering at heights up to `final`. */
export interface SeededChain {
  source(): BlockSource;
  /** A database of its own holding the chain indexed from genesis to `n`. */
  indexed(n: number): Promise<Db>;
  rpc(final: number, viewStateLimitBytes: number | undefined): Promise<RpcChain>;
}

/** Per seed and release, the realnet's JSON-RPC of this file (its market replays only to go back in height). */
const rpcs = new Map<string, RealnetRpcChain>();

/** The realnet of `seed` with its hosted models (Ref `release`, default the newest): its blocks made once (`realnet`),
 * indexed once (`indexedRealnetDb`), and its JSON-RPC's answers worked out once (`realnetAnswers`: the market runs
 * to the height asked about only for a question no file of this run or an earlier one has asked with this code). */
export function realnetChain(seed: string, release?: RefRelease): SeededChain {
  const name = `${seed} ${parseRefRelease(release)}`;
  const answer = realnetAnswers(`${name}: the JSON-RPC's answers`);
  const market = (final: number): RealnetRpcChain => {
    let chain = rpcs.get(name);
    if (chain === undefined) rpcs.set(name, (chain = realnetRpc(release, { seed }, () => final)));
    return chain;
  };
  return {
    source: () => realnet(seed, release),
    indexed: (n) => indexedRealnetDb(seed, n, release),
    rpc: async (final, limit) => {
      const headers = await realnetHeaders(seed, final, release);
      return {
        chainId: 'realnet',
        final: () => headers.get(final)!,
        block: (height) => headers.get(height) ?? null,
        view: (height, contractId, method, args) =>
          answer(`view ${height} ${contractId} ${method} ${JSON.stringify(args)}`, () => market(final).view(height, contractId, method, args)),
        storage: (height, contractId, prefix) =>
          answer(`storage ${height} ${contractId} ${prefix} ${limit ?? VIEW_STATE_LIMIT_BYTES}`, () => {
            const chain = market(final);
            chain.viewStateLimitBytes = limit ?? VIEW_STATE_LIMIT_BYTES;
            return chain.storage(height, contractId, prefix);
          }),
      };
    },
  };
}

/** Indexes `chain` to `n` twice, once through a bootstrap of `dex` at `h`; see the file's header. */
export async function bootstrapEquality(
  dex: string,
  /** `amounts`: the `amount_in`s asked of every pair (default 1000 and 10^18; a DEX with a minimum fee needs more). */
  options: { chain: SeededChain; h: number; n: number; viewStateLimitBytes?: number; amounts?: readonly string[] },
): Promise<BootstrapEquality> {
  const { chain, h, n } = options;
  const indexedDb = await chain.indexed(n);

  const node = await startNearRpc(await chain.rpc(n, options.viewStateLimitBytes));
  const bootstrappedDb = await createMigratedDb();
  try {
    await bootstrap({ db: bootstrappedDb, rpcUrl: node.url, contracts: MAINNET_CONTRACTS, height: h, dexes: DEXES.filter((d) => d.id === dex) });
  } finally {
    await node.close();
  }
  // n = h compares the bootstrap with the index at H itself.
  if (n > h) await ingest({ db: bootstrappedDb, source: chain.source(), from: h + 1, to: n, signal: never });

  const indexed = await poolRows(indexedDb, dex);
  const bootstrapped = await poolRows(bootstrappedDb, dex);
  const tokens = [...new Set(indexed.flatMap((r) => (r as { tokens: string[] }).tokens))].sort();
  const queries: string[] = [];
  for (const a of tokens) {
    for (const b of tokens) {
      if (a === b) continue;
      for (const amount of options.amounts ?? ['1000', '1000000000000000000']) {
        queries.push(new URLSearchParams({ token_in: a, token_out: b, amount_in: amount, max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.01', dexes: dex }).toString());
      }
    }
  }
  const answers = async (db: Db): Promise<string[]> => {
    const app: FastifyInstance = await buildServer({ db, logLevel: 'silent' });
    try {
      await app.ready();
      const out: string[] = [];
      for (const q of queries) {
        const res = await app.inject({ method: 'GET', url: `/route?${q}` });
        out.push(`${res.statusCode} ${res.body}`);
      }
      return out;
    } finally {
      await app.close();
    }
  };
  const [a, b] = [await answers(indexedDb), await answers(bootstrappedDb)];
  return { indexed, bootstrapped, routes: queries.map((query, i) => ({ query, indexed: a[i]!, bootstrapped: b[i]! })) };
}
