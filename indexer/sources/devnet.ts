// `devnet`: the simulator of the top-level devnet/ as a block source. Blocks before the range's start are generated
// and dropped (the chain is rebuilt from its seed and genesis, so a restart resumes exactly where the checkpoint is);
// from there on blocks come at `speed` per second (0: as fast as they are asked for). With the fixed genesis
// (no `genesisMs`) the pace counts from the run's start; with a genesis of its own it counts from the genesis, so
// at speed 1 each block comes at its own timestamp: the chain's clock is real time, and after a stop the blocks
// that fell due meanwhile come at once.
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { rawSource } from './raw.ts';
import type { BlockSource } from './source.ts';
import { Devnet, DEVNET_GENESIS_HEIGHT } from '../../devnet/devnet.ts';
import type { RawJson } from '../../near/lake-json.ts';

export interface DevnetSourceOptions {
  seed: string;
  /** Blocks per second; 0 for no pacing. */
  speed: number;
  /** Timestamp of block 1, ms; none: the devnet's fixed genesis (DEVNET_GENESIS_MS). */
  genesisMs?: number;
}

export function devnetSource({ seed, speed, genesisMs }: DevnetSourceOptions): BlockSource {
  return chainSource(`devnet:${seed}`, () => new Devnet({ seed, ...(genesisMs !== undefined ? { genesisMs } : {}) }), { speed, genesisMs });
}

/** Any seeded chain that makes its blocks one by one from genesis (block 1): the devnet, or the realnet. */
export function chainSource(name: string, make: () => { next(): RawJson }, { speed, genesisMs }: { speed: number; genesisMs?: number | undefined }): BlockSource {
  return rawSource(name, false, async function* (range, signal) {
    const devnet = make();
    let runStart: { height: number; at: number } | undefined;
    while (!signal.aborted) {
      const message = devnet.next();
      const height = (message.block as { header: { height: number } }).header.height;
      if (range.to !== undefined && height > range.to) return;
      if (range.from !== undefined && height < range.from) {
        // Catching up to a checkpoint can take a while: let the process hear signals and its parent meanwhile.
        if (height % 100 === 0) await nextTurn();
        continue;
      }
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
