// `devnet`: the simulator of the top-level devnet/ as a block source. Blocks before the range's start are generated
// and dropped (the chain is rebuilt from its seed, so a restart resumes exactly where the checkpoint is); from there
// on blocks come at `speed` per second (0: as fast as they are asked for).
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { rawSource } from './raw.ts';
import type { BlockSource } from './source.ts';
import { Devnet } from '../../devnet/devnet.ts';

export interface DevnetSourceOptions {
  seed: string;
  /** Blocks per second; 0 for no pacing. */
  speed: number;
}

export function devnetSource({ seed, speed }: DevnetSourceOptions): BlockSource {
  return rawSource(`devnet:${seed}`, false, async function* (range, signal) {
    const devnet = new Devnet({ seed });
    let paced = 0;
    const start = performance.now();
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
        const due = start + (paced++ * 1000) / speed;
        const wait = due - performance.now();
        if (wait > 0) {
          try {
            await sleep(wait, undefined, { signal });
          } catch {
            return;
          }
        }
      }
      yield { kind: 'message', height, text: JSON.stringify(message) };
    }
  });
}
