// One entry for every transport: validate a method's params, answer from the cache or a database snapshot, and
// say what the answer costs and how long it may be kept.
import type { Db } from '../../db/connect.ts';
import { canonicalJson, MAX_AGE_SECONDS, ResponseCache, type CachedAnswer } from './cache.ts';
import { creditsFor } from './credits.ts';
import { ApiError, badRequest, INVALID_ID } from './errors.ts';
import { withSnapshot, type Method } from './method.ts';
import { describeIssues } from './query.ts';
import { resolveTokenParams } from './symbols.ts';

export function validateParams<P>(method: Method<P>, raw: unknown): P {
  if (raw === undefined || raw === null) raw = {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw badRequest('params must be an object');
  const parsed = method.params.safeParse(raw);
  if (!parsed.success) {
    // An id that cannot exist (ids.ts) is `invalid_params`; any other broken rule `bad_request`.
    const invalidId = parsed.error.issues.some((issue) => issue.code === 'custom' && issue.params?.code === INVALID_ID.code);
    throw new ApiError(invalidId ? 'invalid_params' : 'bad_request', describeIssues(parsed.error));
  }
  // PostgreSQL text cannot hold U+0000, so no id, name or cursor contains it; refused here, before any query fails.
  if (hasNulText(parsed.data)) throw badRequest('text parameters must not contain the NUL character (U+0000)');
  return parsed.data;
}

/** Whether a validated params value (a few levels of objects and arrays) holds a string with U+0000. */
function hasNulText(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some(hasNulText);
}

const MAX_RAW_KEYS = 10_000;

export class MethodCaller {
  /** Answers being computed: equal requests arriving meanwhile wait for the same one. */
  readonly #inFlight = new Map<string, Promise<CachedAnswer>>();
  /** Raw requests already validated, to their cache keys. */
  readonly #keysByRaw = new Map<string, string>();
  #generation = 0;
  /** Answers served from the cache or shared with an equal request being answered (the /metrics hit rate). */
  hits = 0;
  /** Answers computed from the database. */
  misses = 0;

  constructor(
    readonly db: Db,
    readonly cache = new ResponseCache(),
  ) {}

  /**
   * Validates `raw` and answers; throws ApiError for bad params (and whatever the database throws). `rawKey` names
   * the raw request exactly (a GET's method and query string): a request seen before skips parsing and validation
   * and goes straight to its cached answer, which is most of what a cached read costs.
   */
  async call(method: Method, raw: unknown | (() => unknown), rawKey?: string): Promise<CachedAnswer> {
    const known = rawKey === undefined ? undefined : this.#keysByRaw.get(rawKey);
    const quick = known === undefined ? undefined : this.cache.get(known);
    if (quick) {
      this.hits++;
      return quick;
    }
    const params = validateParams(method, typeof raw === 'function' ? raw() : raw);
    const key = `${method.name} ${canonicalJson(params)}`;
    if (rawKey !== undefined) {
      if (this.#keysByRaw.size >= MAX_RAW_KEYS) this.#keysByRaw.clear();
      this.#keysByRaw.set(rawKey, key);
    }
    const hit = this.cache.get(key) ?? this.#inFlight.get(key);
    if (hit) {
      this.hits++;
      return hit;
    }
    this.misses++;
    const pending = this.#answer(method, params, key).finally(() => {
      if (this.#inFlight.get(key) === pending) this.#inFlight.delete(key);
    });
    this.#inFlight.set(key, pending);
    return pending;
  }

  /** A new block: live answers, cached or being computed, may be stale. */
  newBlocks(): void {
    this.#generation++;
    this.#inFlight.clear();
    this.cache.dropLive();
  }

  async #answer(method: Method, params: unknown, key: string): Promise<CachedAnswer> {
    const generation = this.#generation;
    // Symbols given for token ids are resolved in the answer's snapshot (symbols.ts).
    const outcome = await withSnapshot(this.db, async (snapshot) => method.run(snapshot, await resolveTokenParams(snapshot.db, method.params, params)));
    const answer: CachedAnswer = {
      result: outcome.result,
      json: JSON.stringify(outcome.result),
      cache: outcome.cache,
      credits: creditsFor(method.name, outcome.rows),
      expiresAt: Date.now() + MAX_AGE_SECONDS[outcome.cache] * 1000,
      compressed: {},
    };
    // An answer begun before a new block is not kept as live (a historical one cannot have changed).
    if (generation === this.#generation || answer.cache === 'historical') this.cache.set(key, answer);
    return answer;
  }
}
