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
// flight, and retry network errors, 5xx and 429 with backoff; also a request that stalls (nothing received for
// `requestTimeoutMs`) and an answer that is not the block asked for (JSON that does not parse, a truncated body,
// another height): a block reaches the pipeline whole or not at all.

import { DEFAULT_BACKOFF, RetryAfterError, linkedController, prefetched, retrying, sleep } from './retry.ts';
import type { Backoff, SourceErrorKind, SourceObserver } from './retry.ts';
import { rawSource } from './raw.ts';
import type { BlockRange, BlockSource, RawBlock } from './source.ts';

const NETWORKS: Record<string, string> = {
  mainnet: 'https://mainnet.neardata.xyz',
  testnet: 'https://testnet.neardata.xyz',
};

export interface NeardataOptions extends SourceObserver {
  /** Replaces the URL the spec names. */
  baseUrl?: string;
  /** Block requests in flight at once (default 4): fast catch-up, bounded memory. */
  readAhead?: number;
  /** Wait between head polls once caught up (default 700 ms, about the block time). */
  headPollMs?: number;
  /**
   * A request that has received nothing for this long (no answer yet, or a body that stopped coming) is abandoned
   * and retried (default 10 s). Idle time, not total time: a large block on a slow link keeps its request alive.
   */
  requestTimeoutMs?: number;
  backoff?: Backoff;
}

class HttpStatusError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** Nothing received for the idle timeout. */
class StalledError extends Error {}

/** An answer that is not the block asked for. */
class MalformedAnswerError extends Error {}

/** The counter kind of a failed request. */
function errorKind(error: unknown): SourceErrorKind {
  if (error instanceof RetryAfterError) return 'http_429';
  if (error instanceof HttpStatusError) return error.status === 429 ? 'http_429' : error.status >= 500 ? 'http_5xx' : 'http_4xx';
  if (error instanceof StalledError) return 'timeout';
  if (error instanceof MalformedAnswerError) return 'malformed';
  return 'network';
}

/**
 * Checks that `text` is the combined message of block `height` (or `null`, a skipped height). Parsing it once here
 * costs a little main-thread time, but a block that does not parse is then retried like any failed request
 * instead of failing the pipeline after its decoder has it.
 */
export function checkBlockText(text: string, height: number): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new MalformedAnswerError(`block ${height}: the answer is not JSON (${(error as Error).message}; ${text.length} bytes)`);
  }
  if (value === null) return;
  const message = value as { block?: { header?: { height?: unknown } }; shards?: unknown } | null;
  if (typeof message !== 'object' || message === null || !Array.isArray(message.shards) || message.block?.header?.height !== height) {
    throw new MalformedAnswerError(`block ${height}: the answer is not the block's {block, shards} message`);
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
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;

  /** GETs `url` until it answers well; `check` throws for an answer to try again. */
  async function get(url: string, redirect: 'follow' | 'manual', signal: AbortSignal, check?: (answer: Answer) => void): Promise<Answer> {
    return retrying(
      async () => {
        const answer = await getOnce(url, redirect, signal, timeoutMs);
        check?.(answer);
        return answer;
      },
      {
        signal,
        backoff,
        onRetry: options.onRetry,
        onSettled: options.onSettled,
        kindOf: errorKind,
        // Network errors, stalls, malformed answers, 5xx and 429; other statuses (404 below genesis...) will not get better.
        retryable: (e) => !(e instanceof HttpStatusError) || e.status >= 500 || e.status === 429,
      },
    );
  }

  async function fetchHead(signal: AbortSignal): Promise<number> {
    let url = `${base}/v0/last_block/final`;
    for (let hop = 0; hop < 5; hop++) {
      // Without a redirect, the answer is the head block itself.
      const answer = await get(url, 'manual', signal, ({ location, text }) => void (location === null && headerHeight(text, url)));
      if (answer.location === null) return headerHeight(answer.text, url);
      const height = /\/v0\/block\/(\d+)(?:[/?#]|$)/.exec(answer.location)?.[1];
      if (height !== undefined) return Number(height);
      url = new URL(answer.location, url).href;
    }
    throw new Error(`neardata: ${base}/v0/last_block/final: too many redirects`);
  }

  /** The block's JSON text (checked here, decoded later on a worker), or null for a height the chain skipped. */
  async function fetchBlock(height: number, signal: AbortSignal): Promise<RawBlock | null> {
    const text = (await get(`${base}/v0/block/${height}`, 'follow', signal, (answer) => checkBlockText(answer.text, height))).text;
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

/** One GET, its body read whole, abandoned once nothing has arrived for `idleMs`; statuses from 400 up become errors. */
async function getOnce(
  url: string,
  redirect: 'follow' | 'manual',
  signal: AbortSignal,
  idleMs: number,
): Promise<Answer> {
  const controller = new AbortController();
  const abort = (): void => controller.abort(signal.reason);
  signal.addEventListener('abort', abort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  let stalled: StalledError | undefined;
  /** (Re)starts the idle timer: called when the request starts and on every chunk of the body. */
  const alive = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort((stalled = new StalledError(`GET ${url}: nothing received for ${idleMs} ms`))), idleMs);
  };
  try {
    alive();
    const response = await fetch(url, { redirect, signal: controller.signal, headers: { accept: 'application/json' } });
    const text = await readBody(response, alive);
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
  } catch (error) {
    // fetch reports our own abort as the reason given, or wrapped: say "stalled" rather than "aborted".
    if (stalled !== undefined && !signal.aborted) throw stalled;
    throw error;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', abort);
  }
}

/** The body as text, calling `alive` on every chunk. */
async function readBody(response: Response, alive: () => void): Promise<string> {
  if (response.body === null) return '';
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of response.body) {
    alive();
    text += decoder.decode(chunk as Uint8Array, { stream: true });
  }
  return text + decoder.decode();
}

/** `Retry-After` in seconds or as an HTTP date; at most 10 minutes, in case a proxy sends nonsense. */
function retryAfterMs(header: string | null): number | null {
  if (header === null) return null;
  const ms = /^\d+$/.test(header.trim()) ? Number(header) * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), 600_000) : null;
}

/** The header height of a block answer's text; MalformedAnswerError (retried) when it has none. */
function headerHeight(text: string, url: string): number {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new MalformedAnswerError(`neardata: ${url}: the answer is not JSON`);
  }
  const height = (raw as { block?: { header?: { height?: unknown } } } | null)?.block?.header?.height;
  if (typeof height === 'number' && Number.isSafeInteger(height)) return height;
  throw new MalformedAnswerError(`neardata: ${url}: no block.header.height in the answer`);
}
