// The response cache behind Cache-Control: an answer is kept as long as its header lets clients keep it, so a
// repeated request is served from memory and a historical answer keeps the `height` and `latest_id` of its first
// answer. Live answers are also dropped when a new block is announced (they could be fresher). Bounded (LRU).
import type { Encoding } from './compress.ts';
import type { CacheRule } from './method.ts';

export const MAX_AGE_SECONDS: Record<CacheRule, number> = { live: 1, historical: 86_400, none: 0 };

export function cacheControl(rule: CacheRule): string {
  return rule === 'none' ? 'no-store' : `public, max-age=${MAX_AGE_SECONDS[rule]}`;
}

export interface CachedAnswer {
  result: unknown;
  /** The result as JSON text, made once. */
  json: string;
  cache: CacheRule;
  credits: number;
  expiresAt: number;
  /** The JSON compressed, per encoding, made on the first request that asks for it: a cached answer is served to
   * many clients, and compressing tens of KiB again for each costs ten times what serving it does. Not counted in
   * the cache's byte bound (JSON answers compress to a fraction of their size). */
  compressed: Partial<Record<Exclude<Encoding, 'identity'>, Buffer>>;
  /** The JSON as UTF-8, made on the first identity send (encoding tens of KiB again per request is not free). */
  utf8?: Buffer;
}

export class ResponseCache {
  readonly #entries = new Map<string, CachedAnswer>();
  #bytes = 0;

  /** Bounded both in entries and in JSON bytes (a week of minute candles is megabytes). */
  constructor(
    readonly maxEntries = 5_000,
    readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  get(key: string, now = Date.now()): CachedAnswer | undefined {
    const hit = this.#entries.get(key);
    if (!hit) return undefined;
    if (hit.expiresAt <= now) {
      this.#delete(key);
      return undefined;
    }
    // Most recently used last.
    this.#entries.delete(key);
    this.#entries.set(key, hit);
    return hit;
  }

  set(key: string, answer: CachedAnswer): void {
    if (answer.cache === 'none' || answer.json.length > this.maxBytes / 8) return;
    this.#delete(key);
    this.#entries.set(key, answer);
    this.#bytes += answer.json.length;
    while (this.#entries.size > this.maxEntries || this.#bytes > this.maxBytes) this.#delete(this.#entries.keys().next().value!);
  }

  /** A new block: live answers may be stale now. */
  dropLive(): void {
    for (const [key, answer] of this.#entries) if (answer.cache === 'live') this.#delete(key);
  }

  #delete(key: string): void {
    const answer = this.#entries.get(key);
    if (!answer) return;
    this.#entries.delete(key);
    this.#bytes -= answer.json.length;
  }

  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }
}

/** JSON with object keys sorted: equal params give equal cache keys whatever order they came in. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
