// `realnet[:RELEASE]`: the realnet's seeded market (devnet/realnet/market.ts) as a block source: Ref's exchange of
// that release (default the newest vendored), the intents verifier, wNEAR and the NEP-141 tokens running their own
// release wasm, and the models of the contracts whose code is not public hosted beside them (hosted.ts).
// Blocks before the range's start are made and dropped (the chain is rebuilt from its seed and genesis, so a restart
// resumes exactly where the checkpoint is); from there on blocks come at `speed` per second (0: as fast as they are
// asked for). With the fixed genesis (no `genesisMs`) the pace counts from the run's start; with a genesis of its own
// it counts from the genesis, so at speed 1 each block comes at its own timestamp: the chain's clock is real time,
// and after a stop the blocks that fell due meanwhile come at once.
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { rawSource } from './raw.ts';
import type { BlockSource } from './source.ts';
import { DEVNET_GENESIS_HEIGHT } from '../../devnet/realnet/chain.ts';
import { parseRefRelease, realnetMarket } from '../../devnet/realnet/wasm.ts';

export interface RealnetSourceOptions {
  /** The Ref release, e.g. `1.9.17`; default the newest vendored. */
  release?: string | undefined;
  seed: string;
  /** Blocks per second; 0 for no pacing. */
  speed: number;
  /** Timestamp of block 1, ms; none: the fixed genesis (DEVNET_GENESIS_MS). */
  genesisMs?: number;
}

export function realnetSource({ release, seed, speed, genesisMs }: RealnetSourceOptions): BlockSource {
  const ref = parseRefRelease(release);
  return rawSource(`realnet:${ref}:${seed}`, false, async function* (range, signal) {
    const market = realnetMarket(ref, { seed, history: false, models: true, ...(genesisMs !== undefined ? { genesisMs } : {}) });
    let runStart: { height: number; at: number } | undefined;
    while (!signal.aborted) {
      // The market makes a block synchronously (tens of ms, more on a busy machine): a turn of the event loop
      // between blocks lets the process hear its signals and its database clients read their sockets (seconds
      // without one time their connections out).
      await nextTurn();
      const message = market.next();
      const height = (message.block as { header: { height: number } }).header.height;
      if (range.to !== undefined && height > range.to) return;
      if (range.from !== undefined && height < range.from) continue;
      if (speed > 0) {
        runStart ??= { height, at: Date.now() };
        // Each block is due `1 / speed` s after the one before, counted from the genesis or from this run's first block.
        const from = genesisMs !== undefined ? { height: DEVNET_GENESIS_HEIGHT, at: genesisMs } : runStart;
        const wait = from.at + ((height - from.height) * 1000) / speed - Date.now();
        if (wait > 0) {
          try {
            await sleep(wait, undefined, { signal });
          } catch {
            return;
          }
        }
      }
      yield { kind: 'message', height, body: Buffer.from(JSON.stringify(message)) };
    }
  });
}
