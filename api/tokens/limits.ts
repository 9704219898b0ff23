// Limits of the token-data interface, published in the socket's hello and by `schema`.
export const LIMITS = {
  /** Token ids in one `ids` list (and `at` entries of `prices.at`). */
  max_ids: 500,
  /** Rows of one answer (`limit`). */
  max_limit: 1000,
  max_subscriptions_per_connection: 20,
  /** A POST body or a socket message. */
  max_message_bytes: 64 * 1024,
  /** Per socket connection; a request past it gets `rate_limited`. */
  credits_per_minute: 6000,
  /** Bytes queued to one socket before the server cuts it off (a client that does not read). */
  max_buffered_bytes: 1024 * 1024,
} as const;

/** Protocol version of the socket's hello. */
export const PROTOCOL_VERSION = 1;
