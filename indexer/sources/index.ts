// Picks the block source a spec names: `files:PATH`, `lake:...`, `neardata:...`.
import { filesSource } from './files.ts';
import { lakeSource } from './lake.ts';
import { neardataSource } from './neardata.ts';
import type { OnRetry } from './retry.ts';
import type { BlockSource } from './source.ts';

export type { BlockRange, BlockSource } from './source.ts';

export interface OpenOptions {
  /** Told of each retry of a network source (they print nothing themselves). */
  onRetry?: OnRetry;
}

const FORMS = 'files:PATH, neardata:mainnet|testnet|URL or lake:mainnet|testnet|s3://BUCKET?region=R&endpoint=URL';

export function openSource(spec: string, options: OpenOptions = {}): BlockSource {
  const colon = spec.indexOf(':');
  const kind = colon < 0 ? spec : spec.slice(0, colon);
  switch (kind) {
    case 'files': {
      const path = spec.slice(colon + 1);
      if (path === '') throw new Error(`block source "${spec}": files: needs a path`);
      return filesSource(path);
    }
    case 'lake':
      return lakeSource(spec, options);
    case 'neardata':
      return neardataSource(spec, options);
    case 'devnet':
      throw new Error(`block source "${spec}": devnet is added by the DEX-indexing issue; use one of ${FORMS}`);
    default:
      throw new Error(`unknown block source "${spec}": expected ${FORMS}`);
  }
}
