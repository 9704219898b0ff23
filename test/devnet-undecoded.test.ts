// The realnet speaks only formats our decoders know, but for a seeded trickle of lines in formats none of them knows
// (hosted.ts `unknownFormatLines`), which the hosted models log now and then (devnet/realnet/hosted.ts; the real
// contracts' logs are never touched), so the undecoded path runs end to end on it: each such line is one undecoded
// event of its contract's decoder, and nothing else the realnet emits is.
import { describe, expect, it } from 'vitest';
import { MAINNET_CONTRACTS } from '../dexes/contracts.ts';
import { normalizeStreamerMessage } from '../near/block.ts';
import { decodeEvents } from '../indexer/decode.ts';
import { ingest } from '../indexer/pipeline.ts';
import { unknownFormatLines } from '../devnet/realnet/hosted.ts';
import { realnetMarket } from '../devnet/realnet/wasm.ts';
import { realnetSource } from '../indexer/sources/realnet.ts';
import { createMigratedDb } from './harness/db.ts';

const SEED = 'undecoded';
const BLOCKS = 300;
/** The hosted models whose contracts have a line in an unknown format. */
const DECODER_OF: Record<string, string> = {
  [MAINNET_CONTRACTS.AmmDclA]: 'AmmDclA',
  [MAINNET_CONTRACTS.AmmC]: 'AmmC',
  [MAINNET_CONTRACTS.Launch]: 'Launch',
  [MAINNET_CONTRACTS.StakeA]: 'StakeA',
};

describe('the realnet exercises the undecoded path', () => {
  it(`${BLOCKS} blocks: each trickled line is one undecoded event of its contract's decoder, and there is no other`, () => {
    const lines = new Map(unknownFormatLines(MAINNET_CONTRACTS).map(({ contractId, line }) => [line, contractId]));
    const market = realnetMarket(undefined, { seed: SEED, models: true, history: false });
    const trickled: Array<{ receiptId: string; contractId: string; line: string }> = [];
    const undecoded: Array<{ receiptId: string; dex: string; raw: string }> = [];
    for (let i = 0; i < BLOCKS; i++) {
      const block = normalizeStreamerMessage(market.next());
      // The truth, from the block itself: which successful receipt holds a trickled line.
      for (const shard of block.shards) {
        for (const o of shard.receiptOutcomes) {
          if (o.status.kind === 'Failure') continue;
          for (const log of o.logs) if (lines.has(log)) trickled.push({ receiptId: o.receiptId, contractId: o.executorId, line: log });
        }
      }
      for (const e of decodeEvents(block)) if (e.kind === 'undecoded') undecoded.push({ receiptId: e.receiptId, dex: e.dex, raw: e.raw });
    }
    expect(new Set(trickled.map((t) => t.contractId))).toEqual(new Set(Object.keys(DECODER_OF)));
    expect(undecoded).toEqual(trickled.map((t) => ({ receiptId: t.receiptId, dex: DECODER_OF[t.contractId], raw: t.line })));
  }, 120_000);

  it('indexed, they fill the undecoded tables', async () => {
    const db = await createMigratedDb();
    await ingest({ db, source: realnetSource({ seed: SEED, speed: 0 }), to: BLOCKS, signal: new AbortController().signal });
    const { rows } = await db.pool.query<{ kept: number; counted: number }>(
      'select (select count(*)::int from undecoded) as kept, (select coalesce(sum(count), 0)::int from undecoded_totals) as counted',
    );
    expect(rows[0]!.kept).toBeGreaterThan(0);
    expect(rows[0]!.counted).toBe(rows[0]!.kept);
  }, 120_000);
});
