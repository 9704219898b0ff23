// neardata:mainnet | neardata:testnet | neardata:URL: FASTNEAR's neardata HTTP API.
//
// The protocol, from the server's README and src/api.rs (github.com/fastnear/neardata-server):
// - GET /v0/block/{h}: the combined `{block, shards}` message in snake_case (with `tx_hash` on each receipt
//   outcome); JSON `null` for a height the chain skipped. Old heights may 302 to an archive host (a0., a1....), which
//   fetch follows. Below genesis: 404 BLOCK_HEIGHT_TOO_LOW.
// - A height not produced yet: up to 10 above the final head the server holds the request until the block exists
//   (about 1 s per block of distance); further ahead it answers 404 BLOCK_DOES_NOT_EXIST; a height near the head
//   that it has not cached yet can answer 500 "The block is not cached".
// - GET /v0/last_block/final: 302 to /v0/block/{head}.
// - No key needed; bandwidth is shared (1 Gbps), "throttling if there are too many parallel requests".
// So we only ask for heights at or below the last head we saw (no held requests, no 404 that could be a real
// error), read the head from the redirect's Location instead of downloading that block, keep a few requests in
// flight, and retry network errors, 5xx and 429 with backoff.

import { DEFAULT_BACKOFF, RetryAfterError, linkedController, prefetched, retrying, sleep } from './retry.ts';
import type { Backoff, OnRetry } from './retry.ts';
import { rawSource } from './raw.ts';
import type { BlockRange, BlockSource, RawBlock } from './source.ts';

const NETWORKS: Record<string, string> = {
  mainnet: 'https://mainnet.neardata.xyz',
  testnet: 'https://testnet.neardata.xyz',
};

export interface NeardataOptions {
  /** Replaces the URL the spec names. */
  baseUrl?: string;
  /** Block requests in flight at once (default 4): fast catch-up, bounded memory. */
  readAhead?: number;
  /** Wait between head polls once caught up (default 700 ms, about the block time). */
  headPollMs?: number;
  /** A request that has not finished after this long is retried (default 30 s). */
  requestTimeoutMs?: number;
  backoff?: Backoff;
  onRetry?: OnRetry;
}

class HttpStatusError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

interface Answer {
  /** Where a redirect points (only with `redirect: 'manual'`). */
  location: string | null;
  text: string;
}

export function neardataSource(spec: string, options: NeardataOptions = {}): BlockSource {
  const base = (options.baseUrl ?? baseUrlOf(spec)).replace(/\/+$/, '');
  const readAhead = options.readAhead ?? 4;
  const headPollMs = options.headPollMs ?? 700;
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;

  async function get(url: string, redirect: 'follow' | 'manual', signal: AbortSignal): Promise<Answer> {
    return retrying(() => getOnce(url, redirect, signal, timeoutMs), {
      signal,
      backoff,
      onRetry: options.onRetry,
      // Network errors, timeouts, 5xx and 429; other statuses (404 below genesis...) will not get better.
      retryable: (e) => !(e instanceof HttpStatusError) || e.status >= 500 || e.status === 429,
    });
  }

  async function fetchHead(signal: AbortSignal): Promise<number> {
    let url = `${base}/v0/last_block/final`;
    for (let hop = 0; hop < 5; hop++) {
      const answer = await get(url, 'manual', signal);
      if (answer.location === null) return headerHeight(JSON.parse(answer.text), url);
      const height = /\/v0\/block\/(\d+)(?:[/?#]|$)/.exec(answer.location)?.[1];
      if (height !== undefined) return Number(height);
      url = new URL(answer.location, url).href;
    }
    throw new Error(`neardata: ${base}/v0/last_block/final: too many redirects`);
  }

  /** The block's JSON text (parsed later, where blocks are decoded), or null for a height the chain skipped. */
  async function fetchBlock(height: number, signal: AbortSignal): Promise<RawBlock | null> {
    const text = (await get(`${base}/v0/block/${height}`, 'follow', signal)).text;
    return text.trim() === 'null' ? null : { kind: 'message', height, text };
  }

  async function* follow(range: BlockRange, outer: AbortSignal): AsyncGenerator<RawBlock> {
    const { signal, dispose } = linkedController(outer);
    try {
      let head = await fetchHead(signal);
      let next = range.from ?? head;
      const inFlight: Promise<RawBlock | null>[] = [];
      while (!signal.aborted) {
        while (inFlight.length < readAhead && next <= head && (range.to === undefined || next <= range.to)) {
          inFlight.push(prefetched(fetchBlock(next++, signal)));
        }
        const first = inFlight.shift();
        if (first === undefined) {
          if (range.to !== undefined && next > range.to) return;
          // Caught up with the head: the next final block is about one block time away.
          await sleep(headPollMs, signal);
          if (!signal.aborted) head = await fetchHead(signal);
          continue;
        }
        const block = await first;
        if (block !== null) yield block;
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    } finally {
      dispose();
    }
  }

  return rawSource(`neardata:${base}`, false, follow);
}

function baseUrlOf(spec: string): string {
  const rest = spec.replace(/^neardata:/, '');
  const known = NETWORKS[rest];
  if (known !== undefined) return known;
  if (/^https?:\/\/[^/]/.test(rest)) return rest;
  throw new Error(`block source "${spec}": expected neardata:mainnet, neardata:testnet or neardata:http(s)://HOST`);
}

/** One GET, its body read whole, under a timeout; statuses from 400 up become errors. */
async function getOnce(
  url: string,
  redirect: 'follow' | 'manual',
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Answer> {
  const controller = new AbortController();
  const abort = (): void => controller.abort(signal.reason);
  signal.addEventListener('abort', abort, { once: true });
  const timer = setTimeout(() => controller.abort(new Error(`GET ${url}: no answer in ${timeoutMs} ms`)), timeoutMs);
  try {
    const response = await fetch(url, { redirect, signal: controller.signal, headers: { accept: 'application/json' } });
    const text = await response.text();
    if (response.status === 429) {
      const waitMs = retryAfterMs(response.headers.get('retry-after'));
      if (waitMs !== null) throw new RetryAfterError(`GET ${url}: HTTP 429, retry after ${waitMs} ms`, waitMs);
    }
    if (response.status >= 400) {
      throw new HttpStatusError(`GET ${url}: HTTP ${response.status} ${text.slice(0, 200)}`, response.status);
    }
    const location = response.status >= 300 ? response.headers.get('location') : null;
    if (response.status >= 300 && location === null) {
      throw new HttpStatusError(`GET ${url}: HTTP ${response.status} without a Location`, response.status);
    }
    return { location, text };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', abort);
  }
}

/** `Retry-After` in seconds or as an HTTP date; at most 10 minutes, in case a proxy sends nonsense. */
function retryAfterMs(header: string | null): number | null {
  if (header === null) return null;
  const ms = /^\d+$/.test(header.trim()) ? Number(header) * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), 600_000) : null;
}

function headerHeight(raw: unknown, url: string): number {
  const height = (raw as { block?: { header?: { height?: unknown } } } | null)?.block?.header?.height;
  if (typeof height === 'number' && Number.isSafeInteger(height)) return height;
  throw new Error(`neardata: ${url}: no block.header.height in the answer`);
}
