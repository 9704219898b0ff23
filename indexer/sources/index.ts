// Picks the block source a spec names: `realnet[:RELEASE]`, `files:PATH`, `lake:...`, `neardata:...`. Each loads on demand (the S3
// client alone takes a fifth of a second to import).
import type { ReadAheadSettings } from './read-ahead.ts';
import type { SourceObserver } from './retry.ts';
import type { BlockSource } from './source.ts';

export type { BlockRange, BlockSource } from './source.ts';

export interface OpenOptions extends SourceObserver {
  // onRetry / onSettled: told of each retry of a network source and of each retried request's end (the sources
  // print nothing themselves; the indexer logs them and its status port counts them).
  /** The neardata and lake read-ahead (default: read-ahead.ts's). */
  readAhead?: ReadAheadSettings;
  /** The realnet's seed, pace (blocks per second, 0: unpaced) and genesis (ms); default seed `dexlake`, unpaced, the
   * fixed genesis. */
  devnet?: { seed?: string; speed?: number; genesisMs?: number | undefined };
}

const FORMS = 'realnet[:RELEASE], files:PATH, neardata:mainnet|testnet|URL or lake:mainnet|testnet|s3://BUCKET?region=R&endpoint=URL';

export async function openSource(spec: string, options: OpenOptions = {}): Promise<BlockSource> {
  const colon = spec.indexOf(':');
  const kind = colon < 0 ? spec : spec.slice(0, colon);
  switch (kind) {
    case 'files': {
      const path = spec.slice(colon + 1);
      if (path === '') throw new Error(`block source "${spec}": files: needs a path`);
      return (await import('./files.ts')).filesSource(path);
    }
    case 'lake':
      // The SDK version is pinned on purpose (package.json overrides); its multi-line notice that later versions
      // will need Node 22 would only break the JSON log lines.
      process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
      return (await import('./lake.ts')).lakeSource(spec, options);
    case 'neardata':
      return (await import('./neardata.ts')).neardataSource(spec, options);
    case 'realnet': {
      // The realnet: Ref of RELEASE (default the newest vendored), wNEAR, the verifier and tokens on their own wasm,
      // the closed contracts' models hosted beside them; seed, pace and genesis from the --devnet-* settings.
      const { realnetSource } = await import('./realnet.ts');
      const genesisMs = options.devnet?.genesisMs;
      return realnetSource({ release: colon < 0 ? undefined : spec.slice(colon + 1), seed: options.devnet?.seed ?? 'dexlake', speed: options.devnet?.speed ?? 0, ...(genesisMs !== undefined ? { genesisMs } : {}) });
    }
    default:
      throw new Error(`unknown block source "${spec}": expected ${FORMS}`);
  }
}
