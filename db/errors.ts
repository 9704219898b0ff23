// Which database errors mean "the server went away" (a restart, a crash, a network cut) rather than "this query
// is wrong": the first kind is worth waiting out and retrying, the second is not.

/** SQLSTATE classes and codes of a lost or refused connection: 08 connection exception, 57P01-57P03 shutdown, crash
 * or start-up in progress, 53300 too many connections. */
const UNAVAILABLE_SQLSTATES = /^(08...|57P0[123]|53300)$/;
/** Socket-level codes of node's net module. */
const UNAVAILABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
/** What pg says when a socket ends under it or a connect attempt times out (these errors carry no code). */
const UNAVAILABLE_MESSAGES = /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Client was closed and is not queryable/i;

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message, errors } = e as { code?: unknown; message?: unknown; errors?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.test(code) || UNAVAILABLE_SOCKET_CODES.has(code))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
    // Node's AggregateError (a connect to several addresses) holds the socket errors in `errors`.
    if (Array.isArray(errors) && errors.some(isDatabaseUnavailable)) return true;
  }
  return false;
}
