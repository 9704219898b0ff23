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
// error), read the head from the redirect's Location instead of downloading that block, keep an adaptive number of
// requests in flight (read-ahead.ts), and retry network errors, 5xx and 429 with backoff; also a request that
// stalls (nothing received for `requestTimeoutMs`) and an answer that is not the block asked for (not JSON, a
// truncated body, another height): the answer's ends are checked here, the rest by the full parse on a decode
// worker, after which the pipeline asks for the block again (`refetch`).

import { getOnce, HttpStatusError, StalledError, type Answer } from './http-get.ts';
import { DEFAULT_READ_AHEAD, ReadAhead, type ReadAheadSettings } from './read-ahead.ts';
import { DEFAULT_BACKOFF, RetryAfterError, linkedController, retryHandedOver, retrying, sleep } from './retry.ts';
import type { Backoff, SourceErrorKind, SourceObserver } from './retry.ts';
import { isNullJson, looksLikeObject, rawSource, textOf } from './raw.ts';
import type { BlockRange, BlockSource, RawBlock, SourceStats } from './source.ts';

const NETWORKS: Record<string, string> = {
  mainnet: 'https://mainnet.neardata.xyz',
  testnet: 'https://testnet.neardata.xyz',
};

export interface NeardataOptions extends SourceObserver {
  /** Replaces the URL the spec names. */
  baseUrl?: string;
  /** Block requests in flight: floor, ceiling and memory budget (default 4 to 64 blocks within 256 MiB). */
  readAhead?: ReadAheadSettings;
  /** Wait between head polls once caught up (default 700 ms, about the block time). */
  headPollMs?: number;
  /**
   * A request that has received nothing for this long (no answer yet, or a body that stopped coming) is abandoned
   * and retried (default 10 s). Idle time, not total time: a large block on a slow link keeps its request alive.
   */
  requestTimeoutMs?: number;
  backoff?: Backoff;
}

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
 * Checks the ends of a block answer: `null` (a skipped height), or bytes from `{` to `}`, which catches a proxy's page
 * and most bodies cut short at no cost. The rest (a body cut at a `}`, another height) is found by the full parse,
 * which happens once, on a decode worker: then the pipeline asks for the block again (`refetch`).
 */
export function checkBlockEnds(body: Uint8Array, height: number): void {
  if (isNullJson(body) || looksLikeObject(body)) return;
  throw new MalformedAnswerError(`block ${height}: the answer is not a JSON object (${body.length} bytes)`);
}

export function neardataSource(spec: string, options: NeardataOptions = {}): BlockSource {
  const base = (options.baseUrl ?? baseUrlOf(spec)).replace(/\/+$/, '');
  const readAhead = options.readAhead ?? DEFAULT_READ_AHEAD;
  const headPollMs = options.headPollMs ?? 700;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;

  /** What the current iteration is doing, for stats(); the read-ahead shrinks on every failed request. */
  let current: { reader: ReadAhead<Extract<RawBlock, { kind: 'message' }> | null>; head: () => number } | undefined;

  /** GETs `url` until it answers well; `check` throws for an answer to try again. */
  async function get(url: string, redirect: 'follow' | 'manual', signal: AbortSignal, check?: (answer: Answer) => void): Promise<Answer> {
    return retrying(
      async () => {
        const answer = await getOnce(url, { redirect, signal, idleMs: timeoutMs, headers: { accept: 'application/json' } });
        check?.(answer);
        return answer;
      },
      {
        signal,
        backoff,
        onRetry: (error, attempt, delayMs, kind) => {
          current?.reader.failed();
          options.onRetry?.(error, attempt, delayMs, kind);
        },
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
      const answer = await get(url, 'manual', signal, ({ location, body }) => void (location === null && headerHeight(body, url)));
      if (answer.location === null) return headerHeight(answer.body, url);
      const height = /\/v0\/block\/(\d+)(?:[/?#]|$)/.exec(answer.location)?.[1];
      if (height !== undefined) return Number(height);
      url = new URL(answer.location, url).href;
    }
    throw new Error(`neardata: ${base}/v0/last_block/final: too many redirects`);
  }

  /** The block's JSON (its ends checked here, parsed later on a worker), or null for a height the chain skipped. */
  async function fetchBlock(height: number, signal: AbortSignal): Promise<Extract<RawBlock, { kind: 'message' }> | null> {
    const { body } = await get(`${base}/v0/block/${height}`, 'follow', signal, (answer) => checkBlockEnds(answer.body, height));
    return isNullJson(body) ? null : { kind: 'message', height, body };
  }

  /** A block whose answer did not parse, asked for again after the backoff, as one more malformed answer. */
  async function refetch(height: number, error: Error, attempt: number, signal: AbortSignal): Promise<RawBlock | null> {
    current?.reader.failed();
    return retryHandedOver(error, attempt, 'malformed', { backoff, signal, observer: options }, () => fetchBlock(height, signal));
  }

  async function* follow(range: BlockRange, outer: AbortSignal): AsyncGenerator<RawBlock> {
    const { signal, dispose } = linkedController(outer);
    try {
      let head = await fetchHead(signal);
      let headAt = Date.now();
      let next = range.from ?? head;
      const last = () => (range.to === undefined ? head : Math.min(head, range.to));
      const reader = new ReadAhead(
        (height) => fetchBlock(height, signal),
        () => (next <= last() ? next++ : undefined),
        (block) => (block === null ? 0 : block.body.length),
        readAhead,
      );
      current = { reader, head: () => head };
      while (!signal.aborted) {
        reader.fill();
        const first = reader.take();
        if (first === undefined) {
          if (range.to !== undefined && next > range.to) return;
          // Caught up with the head we know: the next final block is about one block time after we learnt it.
          await sleep(headAt + headPollMs - Date.now(), signal);
          if (signal.aborted) break;
          head = await fetchHead(signal);
          headAt = Date.now();
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

  const stats = (): SourceStats | undefined => current && { ...current.reader.stats(), head: current.head() };
  return rawSource(`neardata:${base}`, false, follow, { stats, refetch });
}

function baseUrlOf(spec: string): string {
  const rest = spec.replace(/^neardata:/, '');
  const known = NETWORKS[rest];
  if (known !== undefined) return known;
  if (/^https?:\/\/[^/]/.test(rest)) return rest;
  throw new Error(`block source "${spec}": expected neardata:mainnet, neardata:testnet or neardata:http(s)://HOST`);
}

/** The header height of a block answer; MalformedAnswerError (retried) when it has none. */
function headerHeight(body: Uint8Array, url: string): number {
  let raw: unknown;
  try {
    raw = JSON.parse(textOf(body));
  } catch {
    throw new MalformedAnswerError(`neardata: ${url}: the answer is not JSON`);
  }
  const height = (raw as { block?: { header?: { height?: unknown } } } | null)?.block?.header?.height;
  if (typeof height === 'number' && Number.isSafeInteger(height)) return height;
  throw new MalformedAnswerError(`neardata: ${url}: no block.header.height in the answer`);
}
