// NEP-297 event logs: `EVENT_JSON:{"standard", "version", "event", "data"}`. Every decoder reads them through here.

export const EVENT_JSON_PREFIX = 'EVENT_JSON:';

export interface Nep297Event {
  standard: string;
  version: string | null;
  event: string;
  /** The standard puts an array here; a few contracts put one object. */
  data: unknown;
}

/**
 * The event of a log line, or null when the line is not a well-formed NEP-297 event. `mustContain`: a substring
 * the line must hold (a standard or event name), the cheap filter before JSON.parse, since most lines of a busy
 * contract are other events.
 */
export function parseEventLog(log: string, mustContain?: string): Nep297Event | null {
  if (!log.startsWith(EVENT_JSON_PREFIX)) return null;
  if (mustContain !== undefined && !log.includes(mustContain)) return null;
  const o = parseJsonObject(log.slice(EVENT_JSON_PREFIX.length));
  if (o === null || typeof o.standard !== 'string' || typeof o.event !== 'string') return null;
  return { standard: o.standard, version: typeof o.version === 'string' ? o.version : null, event: o.event, data: o.data };
}

/** A JSON object, or null for anything else (invalid JSON, arrays, scalars). */
export function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    return asRecord(JSON.parse(text));
  } catch {
    return null;
  }
}

export function asRecord(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}
