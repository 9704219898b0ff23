// Retrying with capped exponential backoff, and sleeping that an AbortSignal cuts short: shared by the network
// sources so none of them spins on a dead endpoint or keeps a timer alive after an abort.

import { setMaxListeners } from 'node:events';

export interface Backoff {
  /** Delay ceiling of the first retry; it doubles with each further attempt. */
  initialMs: number;
  /** Cap of every delay. */
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 250, maxMs: 30_000 };

/** What went wrong with a source request, for counters: an HTTP status class, no answer in time, no connection,
 * or an answer that is not what was asked for (malformed or truncated JSON, another height). */
export type SourceErrorKind = 'http_5xx' | 'http_429' | 'http_4xx' | 'timeout' | 'network' | 'malformed' | 'other';

/** Called before each retry, e.g. to log it; the sources themselves print nothing. */
export type OnRetry = (error: unknown, attempt: number, delayMs: number, kind: SourceErrorKind) => void;

/** Called once a request that was retried is over: it succeeded (`true`), or was abandoned (an abort, or an error
 * that retrying cannot fix). With OnRetry it tells how many requests are in trouble right now. */
export type OnSettled = (succeeded: boolean) => void;

/** How a source reports its trouble (the indexer's status port listens). */
export interface SourceObserver {
  onRetry?: OnRetry | undefined;
  onSettled?: OnSettled | undefined;
}

export interface RetryOptions extends SourceObserver {
  signal: AbortSignal;
  backoff: Backoff;
  /** Errors worth another attempt; any other error is thrown at once. */
  retryable: (error: unknown) => boolean;
  /** The kind of a failed attempt's error (default `other`). */
  kindOf?: (error: unknown) => SourceErrorKind;
}

/** An error that says how long the server asked us to wait (HTTP 429 `Retry-After`). */
export class RetryAfterError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

/** "Equal jitter": half the ceiling fixed, half random, so clients that failed together spread out. */
export function backoffDelay(attempt: number, backoff: Backoff): number {
  const ceiling = Math.min(backoff.maxMs, backoff.initialMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** Runs `fn` until it succeeds, waiting between failed attempts; throws the signal's reason once aborted. */
export async function retrying<T>(fn: () => Promise<T>, options: RetryOptions): Promise<T> {
  const { signal, backoff, onRetry, onSettled, retryable, kindOf } = options;
  let attempt = 0;
  let succeeded = false;
  try {
    for (; ; attempt++) {
      signal.throwIfAborted();
      try {
        const result = await fn();
        succeeded = true;
        return result;
      } catch (error) {
        if (signal.aborted || !retryable(error)) throw error;
        const delayMs = error instanceof RetryAfterError ? error.retryAfterMs : backoffDelay(attempt, backoff);
        onRetry?.(error, attempt + 1, delayMs, kindOf?.(error) ?? 'other');
        await sleep(delayMs, signal);
      }
    }
  } finally {
    if (attempt > 0) onSettled?.(succeeded);
  }
}

/**
 * One more attempt at something that failed after it was handed over (a block whose parse failed on a decode
 * worker): reported to `observer` as retry `attempt + 1` of `kind`, made after the backoff's delay.
 */
export async function retryHandedOver<T>(
  error: Error,
  attempt: number,
  kind: SourceErrorKind,
  { backoff, signal, observer }: { backoff: Backoff; signal: AbortSignal; observer: SourceObserver },
  fn: () => Promise<T>,
): Promise<T> {
  const delayMs = backoffDelay(attempt, backoff);
  observer.onRetry?.(error, attempt + 1, delayMs, kind);
  let succeeded = false;
  try {
    await sleep(delayMs, signal);
    signal.throwIfAborted();
    const result = await fn();
    succeeded = true;
    return result;
  } finally {
    observer.onSettled?.(succeeded);
  }
}

/** Resolves after `ms`, or as soon as `signal` aborts (clearing its timer). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * An AbortController that also aborts when `outer` does, for everything a `blocks()` iteration starts: aborting it
 * in the iteration's `finally` cancels in-flight prefetches whether the caller aborted or just stopped iterating.
 */
export function linkedController(outer: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  // Each request in flight listens on it (Lake: blocks ahead x shards, ~40), more than Node's default of 10 before
  // it warns; they unsubscribe when done, so the bound only guards against a real leak.
  setMaxListeners(1000, controller.signal);
  const abort = (): void => controller.abort(outer.reason);
  if (outer.aborted) abort();
  else outer.addEventListener('abort', abort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      outer.removeEventListener('abort', abort);
      controller.abort();
    },
  };
}

/**
 * Marks a prefetched promise as handled: if it fails while nobody awaits it yet (the iteration was stopped), Node
 * must not report an unhandled rejection; whoever awaits it later still gets the error.
 */
export function prefetched<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}
