// Token metadata from the chain's own view: with NEAR_RPC_URL set, each token that appears without metadata
// from the chain gets one `ft_metadata` call, and the answer enters the event log as a `token_metadata` event
// (source `rpc`) like any other, so a rebuild reproduces it without asking again.
import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import type { TokenMetadataEvent } from '../near/events.ts';
import type { DomainEvent } from './event-rows.ts';
import { fetchFtMetadata, RpcError } from './near-rpc.ts';

const CONCURRENCY = 8;

/** Returns the events to add to a batch: metadata for the batch's tokens that have none from the chain yet. */
export type Enrich = (events: readonly DomainEvent[]) => Promise<DomainEvent[]>;

export function rpcMetadata(db: Db, rpcUrl: string, logger: Logger, signal?: AbortSignal): Enrich {
  // Contracts asked once in this process (answered, or not a token): never asked again.
  const asked = new Set<string>();
  return async (events) => {
    const firstSeen = new Map<string, DomainEvent>();
    const described = new Set<string>();
    for (const e of events) {
      if (e.kind === 'token_metadata') described.add(e.contractId);
      else if ((e.kind === 'ft_transfer' || e.kind === 'ft_mint' || e.kind === 'ft_burn') && !firstSeen.has(e.contractId)) firstSeen.set(e.contractId, e);
    }
    const candidates = [...firstSeen.keys()].filter((c) => !described.has(c) && !asked.has(c));
    if (!candidates.length) return [];
    const known = await db.kysely
      .selectFrom('tokens')
      .select('token')
      .where('token', 'in', candidates)
      .where('metadata_source', 'in', ['init', 'rpc'])
      .execute();
    for (const { token } of known) asked.add(token);
    const wanted = candidates.filter((c) => !asked.has(c)).sort();

    const added: TokenMetadataEvent[] = [];
    for (let i = 0; i < wanted.length; i += CONCURRENCY) {
      await Promise.all(
        wanted.slice(i, i + CONCURRENCY).map(async (contractId) => {
          try {
            const metadata = await fetchFtMetadata(rpcUrl, contractId, {
              signal,
              onNoMetadata: (why) => logger.debug({ contractId, why: why.detail }, 'no ft_metadata'),
            });
            asked.add(contractId);
            if (!metadata) return;
            const at = firstSeen.get(contractId)!;
            added.push({
              kind: 'token_metadata',
              blockHeight: at.blockHeight,
              timestampMs: at.timestampMs,
              receiptId: `rpc:ft_metadata:${contractId}`,
              txHash: null,
              index: 0,
              contractId,
              ...metadata,
              source: 'rpc',
            });
          } catch (error) {
            // The node is down or the view failed: the token keeps what it has, and is asked again next time.
            if (!(error instanceof RpcError) && !signal?.aborted) throw error;
            logger.warn({ contractId, err: (error as Error).message }, 'ft_metadata failed');
          }
        }),
      );
    }
    return added;
  };
}
