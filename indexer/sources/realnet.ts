// `realnet[:RELEASE]`: the realnet's seeded market (devnet/realnet/market.ts) as a block source: Ref's exchange of
// that release (default the newest vendored), the intents verifier, wNEAR and the NEP-141 tokens running their own
// release wasm, and the models of the contracts whose code is not public hosted beside them (hosted.ts). Paced and
// resumed as the devnet is (devnet.ts `chainSource`).
import { chainSource } from './devnet.ts';
import type { BlockSource } from './source.ts';
import { parseRefRelease, realnetMarket } from '../../devnet/realnet/wasm.ts';

export interface RealnetSourceOptions {
  /** The Ref release, e.g. `1.9.17`; default the newest vendored. */
  release?: string | undefined;
  seed: string;
  speed: number;
  genesisMs?: number;
}

export function realnetSource({ release, seed, speed, genesisMs }: RealnetSourceOptions): BlockSource {
  const ref = parseRefRelease(release);
  const make = () => realnetMarket(ref, { seed, history: false, models: true, ...(genesisMs !== undefined ? { genesisMs } : {}) });
  return chainSource(`realnet:${ref}:${seed}`, make, { speed, genesisMs });
}
