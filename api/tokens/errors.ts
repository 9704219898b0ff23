// Token-data errors: `{error: {code, message}}` everywhere (HTTP body, socket error reply, subscription end).
// HTTP status by code, as the spec maps them: 404 for not_found and unknown_method, 500 for internal, 400 else.

export type ErrorCode =
  | 'bad_request'
  // A parameter names an id that cannot exist: a DEX id outside the registry, a malformed NEAR account id.
  | 'invalid_params'
  | 'too_large'
  | 'rate_limited'
  | 'limit_exceeded'
  | 'not_found'
  | 'unknown_method'
  | 'internal';

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Seconds until a rate-limited client may try again (the `Retry-After` header). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export function httpStatus(code: ErrorCode): number {
  if (code === 'not_found' || code === 'unknown_method') return 404;
  if (code === 'internal') return 500;
  return 400;
}

export interface ErrorBody {
  code: ErrorCode;
  message: string;
}

/** The public form of any thrown value: ours as they are, anything else as `internal` without its details. */
export function toErrorBody(err: unknown): ErrorBody {
  if (err instanceof ApiError) return { code: err.code, message: err.message };
  return { code: 'internal', message: 'internal error' };
}

export const badRequest = (message: string) => new ApiError('bad_request', message);

/** The zod issue `params` of an id parameter's check (ids.ts): its failure is `invalid_params`, not `bad_request`. */
export const INVALID_ID = { code: 'invalid_params' } as const;
