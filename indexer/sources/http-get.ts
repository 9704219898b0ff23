// One HTTP GET of a network source (neardata's blocks, Lake's objects): the body read whole as bytes, abandoned once
// nothing has arrived for a while, statuses from 400 up as errors. Retrying is the caller's (retry.ts). On node:http
// rather than fetch: a Lake block is several requests, and fetch's per-request work (web streams, its own parser)
// cost about 0.9 ms of CPU each here, three times node:http's.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { createBrotliDecompress, createGunzip } from 'node:zlib';
import { textOf } from './raw.ts';
import { RetryAfterError } from './retry.ts';

// Connections are kept for the next request; idle ones do not keep the process alive (the agent unrefs them).
const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

export class HttpStatusError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** The start of the answer's body (an S3 error's XML names its code). */
    readonly body: string,
  ) {
    super(message);
  }
}

/** Nothing received for the idle timeout. */
export class StalledError extends Error {}

export interface Answer {
  /** Where a redirect points (only with `redirect: 'manual'`). */
  location: string | null;
  /** The body, decompressed. */
  body: Buffer;
}

export interface GetOptions {
  redirect: 'follow' | 'manual';
  signal: AbortSignal;
  /** Idle time, not total time: a large body on a slow link keeps its request alive. */
  idleMs: number;
  headers: Record<string, string>;
}

/** One GET, its body read whole, abandoned once nothing has arrived for `idleMs`; statuses from 400 up become errors. */
export async function getOnce(url: string, { redirect, signal, idleMs, headers }: GetOptions): Promise<Answer> {
  let target = new URL(url);
  for (let hop = 0; ; hop++) {
    const answer = await request(target, signal, idleMs, headers);
    const { status } = answer;
    const { body } = answer;
    // Only the start of an answer that is not a block is read as text here: a block's bytes go to a decode worker.
    const start = status >= 300 ? textOf(body.subarray(0, 1000)) : '';
    if (status === 429) {
      const waitMs = retryAfterMs(answer.retryAfter);
      if (waitMs !== null) throw new RetryAfterError(`GET ${target.href}: HTTP 429, retry after ${waitMs} ms`, waitMs);
    }
    if (status >= 400) throw new HttpStatusError(`GET ${target.href}: HTTP ${status} ${start.slice(0, 200)}`, status, start);
    if (status < 300) return { location: null, body };
    if (answer.location === null) throw new HttpStatusError(`GET ${target.href}: HTTP ${status} without a Location`, status, start);
    if (redirect === 'manual') return { location: answer.location, body };
    if (hop === 5) throw new HttpStatusError(`GET ${url}: too many redirects`, status, '');
    target = new URL(answer.location, target);
  }
}

interface RawAnswer {
  status: number;
  location: string | null;
  retryAfter: string | null;
  /** Decompressed when the server compressed it. */
  body: Buffer;
}

function request(url: URL, signal: AbortSignal, idleMs: number, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const agent = agents[url.protocol as keyof typeof agents];
    if (agent === undefined) return reject(new Error(`GET ${url.href}: not an http(s) URL`));
    const get = url.protocol === 'https:' ? https.get : http.get;
    const req = get(url, { agent, signal, headers: { 'accept-encoding': 'gzip, br', ...headers } });
    // Idle time of the socket, waiting for the answer or for more of its body.
    req.setTimeout(idleMs, () => req.destroy(new StalledError(`GET ${url.href}: nothing received for ${idleMs} ms`)));
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      const encoding = res.headers['content-encoding'];
      const body = encoding === 'gzip' ? res.pipe(createGunzip()) : encoding === 'br' ? res.pipe(createBrotliDecompress()) : res;
      const chunks: Buffer[] = [];
      body.on('data', (chunk: Buffer) => chunks.push(chunk));
      body.on('error', reject);
      // A body cut short (the connection closed before its end) errors `res` ("aborted"), and 'end' never comes.
      res.on('error', reject);
      body.on('end', () => {
        const location = res.headers.location ?? null;
        const retryAfter = res.headers['retry-after'] ?? null;
        resolve({ status: res.statusCode ?? 0, location, retryAfter, body: Buffer.concat(chunks) });
      });
    });
  });
}

/** `Retry-After` in seconds or as an HTTP date; at most 10 minutes, in case a proxy sends nonsense. */
function retryAfterMs(header: string | null): number | null {
  if (header === null) return null;
  const ms = /^\d+$/.test(header.trim()) ? Number(header) * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), 600_000) : null;
}
