// Response compression by Accept-Encoding: zstd or gzip. @fastify/compress offers zstd only where node:zlib has
// it (Node >= 22.15), and this service runs on Node 20 too, so the token API compresses its own (always buffered,
// JSON) bodies: gzip with node:zlib, zstd with the WebAssembly build of the reference library
// (@bokuweb/zstd-wasm), which needs no native build.
import { gzipSync } from 'node:zlib';
import { compress as zstdCompress, init as zstdInit } from '@bokuweb/zstd-wasm';

export type Encoding = 'zstd' | 'gzip' | 'identity';

/** Bodies smaller than this go uncompressed: the frame overhead would outweigh the gain. */
export const COMPRESS_MIN_BYTES = 256;
const ZSTD_LEVEL = 3;

let ready: Promise<void> | undefined;
/** Loads the zstd WebAssembly module once per process. */
export const initCompression = () => (ready ??= zstdInit());

/**
 * The encoding to use for an Accept-Encoding header: the highest q among zstd and gzip (zstd on a tie, it is
 * smaller and faster), `*` counting for both; identity when neither is acceptable.
 */
export function chooseEncoding(header: string | undefined): Encoding {
  if (!header) return 'identity';
  const q: Record<string, number> = {};
  for (const part of header.split(',')) {
    const [name, ...options] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qOption = options.map((o) => o.trim()).find((o) => o.startsWith('q='));
    const value = qOption ? Number(qOption.slice(2)) : 1;
    q[name] = Number.isFinite(value) ? value : 0;
  }
  const score = (name: string) => q[name] ?? q['*'] ?? 0;
  const zstd = score('zstd');
  const gzip = score('gzip');
  if (zstd <= 0 && gzip <= 0) return 'identity';
  return zstd >= gzip ? 'zstd' : 'gzip';
}

export function compressBody(body: Buffer, encoding: Encoding): Buffer {
  if (encoding === 'gzip') return gzipSync(body);
  if (encoding === 'zstd') return Buffer.from(zstdCompress(body, ZSTD_LEVEL));
  return body;
}
