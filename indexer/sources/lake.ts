// lake:mainnet | lake:testnet | lake:s3://BUCKET?region=R&endpoint=URL: the NEAR Lake S3 layout
// (`<height padded to 12>/block.json` + `shard_<id>.json`), read by a small reader of our own on @aws-sdk/client-s3.
//
// Why not near-lake-framework 1.0.6's `stream()`: a custom endpoint does work end to end with it (the endpoint-less
// S3Client that `stream()` creates is never used; s3rver served it blocks), but
//  - it fetches `shard_0..shard_<n-1>` by index, while resharded blocks name their files by shard id (`shard_10`,
//    `shard_11`...; see the testnet fixtures): it would retry a missing `shard_2.json` forever (the Rust framework
//    has since switched to the chunks' shard ids);
//  - on a dead endpoint it retries listing at once, with a console.error each time (140 lines in 2 s measured here);
//  - it cannot be stopped while a request or retry is under way, and starts 10 listings of 200 blocks ahead.
// This reader lists with StartAfter = the last height seen (the next page while the current one is fetched),
// fetches an adaptive number of blocks ahead (read-ahead.ts), backs off between failed attempts (capped), prints
// nothing, and aborts its requests and closes its sockets when the iteration ends.

import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { getOnce, HttpStatusError, StalledError } from './http-get.ts';
import { DEFAULT_READ_AHEAD, ReadAhead, type ReadAheadSettings } from './read-ahead.ts';
import { DEFAULT_BACKOFF, linkedController, prefetched, retryHandedOver, retrying, sleep } from './retry.ts';
import type { Backoff, SourceErrorKind, SourceObserver } from './retry.ts';
import { looksLikeObject, rawSource, textOf } from './raw.ts';
import { amzDate, authorization } from './sigv4.ts';
import type { BlockRange, BlockSource, RawBlock, SourceStats } from './source.ts';

const NETWORKS: Record<string, { bucket: string; region: string }> = {
  mainnet: { bucket: 'near-lake-data-mainnet', region: 'eu-central-1' },
  testnet: { bucket: 'near-lake-data-testnet', region: 'eu-central-1' },
};

export interface LakeOptions extends SourceObserver {
  /** Blocks fetched ahead of the consumer: floor, ceiling and memory budget (default 4 to 64 blocks within 256 MiB). */
  readAhead?: ReadAheadSettings;
  /** Wait between listings once at the head of the bucket (default 1 s, about the block time). */
  pollMs?: number;
  backoff?: Backoff;
}

interface Location {
  bucket: string;
  region: string;
  endpoint: string | undefined;
}

/** Heights per listing: S3's most. */
const PAGE = 1000;

/** A block as fetched, with the bytes it holds (block.json and the shard files). */
interface Fetched {
  raw: RawBlock;
  bytes: number;
}

export function lakeSource(spec: string, options: LakeOptions = {}): BlockSource {
  const where = parseSpec(spec);
  const settings = options.readAhead ?? DEFAULT_READ_AHEAD;
  const pollMs = options.pollMs ?? 1000;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  let current: { reader: ReadAhead<Fetched>; head: () => number | undefined } | undefined;

  async function* stream(range: BlockRange, outer: AbortSignal): AsyncGenerator<RawBlock> {
    const { signal, dispose } = linkedController(outer);
    const lake = new LakeReader(where, signal, backoff, {
      onRetry: (error, attempt, delayMs, kind) => {
        current?.reader.failed();
        options.onRetry?.(error, attempt, delayMs, kind);
      },
      onSettled: options.onSettled,
    });
    try {
      let head = range.from === undefined ? await lake.head() : undefined;
      let seekingHead = head !== undefined;
      // Every height up to `after` is listed already.
      let after = (range.from ?? head!) - 1;
      const listed: number[] = [];
      let listedAll = range.to !== undefined && after >= range.to;
      /** The listing under way; a failed one stays here until the loop awaits it, which throws its error. */
      let listing: Promise<void> | undefined;
      /** At the end of the bucket, the next listing waits for about a block time. */
      let nextListingAt = 0;
      const listMore = (): void => {
        if (listing !== undefined || listedAll || Date.now() < nextListingAt) return;
        listing = prefetched(
          lake.heightsAfter(after, PAGE).then((heights) => {
            listing = undefined;
            if (!seekingHead) {
              // Where a range starts, the head is sought beside the reading (for the progress line), once the
              // bucket answers.
              seekingHead = true;
              void lake.head().then((h) => (head = Math.max(head ?? h, h)), () => {});
            }
            for (const height of heights) {
              // A height past `to` in the bucket: nothing of the range is left to appear.
              if (range.to !== undefined && height > range.to) {
                listedAll = true;
                break;
              }
              listed.push(height);
              after = height;
            }
            if (range.to !== undefined && after >= range.to) listedAll = true;
            if (heights.length < PAGE) {
              head = Math.max(head ?? after, after);
              nextListingAt = Date.now() + pollMs;
            }
            reader.fill();
          }),
        );
      };
      const reader = new ReadAhead<Fetched>(
        (height) => lake.block(height),
        () => {
          // The next page is asked for while half of this one is still to fetch.
          if (listed.length < PAGE / 2) listMore();
          return listed.shift();
        },
        (block) => block.bytes,
        settings,
      );
      current = { reader, head: () => head };
      while (!signal.aborted) {
        listMore();
        reader.fill();
        const first = reader.take();
        if (first !== undefined) {
          yield (await first).raw;
        } else if (listing !== undefined) {
          await listing;
        } else if (listedAll) {
          return;
        } else {
          // At the head of the bucket with nothing in flight: the next block is about one block time away.
          await sleep(nextListingAt - Date.now(), signal);
        }
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    } finally {
      dispose();
      lake.close();
    }
  }

  /** A block whose files did not parse, fetched again after the backoff, as one more malformed answer. */
  async function refetch(height: number, error: Error, attempt: number, signal: AbortSignal): Promise<RawBlock> {
    current?.reader.failed();
    const lake = new LakeReader(where, signal, backoff, options);
    try {
      return (await retryHandedOver(error, attempt, 'malformed', { backoff, signal, observer: options }, () => lake.block(height))).raw;
    } finally {
      lake.close();
    }
  }

  const stats = (): SourceStats | undefined => current && { ...current.reader.stats(), head: current.head() };
  const name = `lake:s3://${where.bucket}` + (where.endpoint === undefined ? '' : ` (${where.endpoint})`);
  return rawSource(name, false, stream, { stats, refetch });
}

/** `region` defaults to eu-central-1 (the NEAR buckets'); an `endpoint` (s3rver, MinIO...) means path-style URLs. */
function parseSpec(spec: string): Location {
  const rest = spec.replace(/^lake:/, '');
  const known = NETWORKS[rest];
  if (known !== undefined) return { ...known, endpoint: undefined };
  const url = URL.canParse(rest) ? new URL(rest) : null;
  if (url === null || url.protocol !== 's3:' || url.hostname === '') {
    const forms = 'lake:mainnet, lake:testnet or lake:s3://BUCKET?region=R&endpoint=URL';
    throw new Error(`block source "${spec}": expected ${forms}`);
  }
  return {
    bucket: url.hostname,
    region: url.searchParams.get('region') ?? 'eu-central-1',
    endpoint: url.searchParams.get('endpoint') ?? undefined,
  };
}

const pad = (height: number): string => String(height).padStart(12, '0');

/** S3 calls for one iteration, each retried until it succeeds, fails for good, or the signal aborts. */
class LakeReader {
  private readonly client: S3Client;

  constructor(
    private readonly where: Location,
    private readonly signal: AbortSignal,
    private readonly backoff: Backoff,
    private readonly observer: SourceObserver,
  ) {
    this.client = new S3Client({
      region: where.region,
      // Credentials: the default provider chain (AWS_ACCESS_KEY_ID... in the environment, profiles, IMDS).
      endpoint: where.endpoint,
      forcePathStyle: where.endpoint !== undefined,
      // Retries are ours, so that there is one backoff policy and the signal can stop it.
      maxAttempts: 1,
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000, throwOnRequestTimeout: true },
    });
  }

  close(): void {
    this.client.destroy();
  }

  /** Up to `limit` heights above `after`, in increasing order. */
  async heightsAfter(after: number, limit: number): Promise<number[]> {
    const out = await this.send(`list after ${after}`, () =>
      this.client.send(
        new ListObjectsV2Command({
          Bucket: this.where.bucket,
          Delimiter: '/',
          StartAfter: after >= 0 ? pad(after) : undefined,
          MaxKeys: limit,
          RequestPayer: 'requester',
        }),
        { abortSignal: this.signal },
      ),
    );
    const heights: number[] = [];
    for (const p of out.CommonPrefixes ?? []) {
      const digits = /^(\d+)\/$/.exec(p.Prefix ?? '')?.[1];
      if (digits !== undefined && Number(digits) > after) heights.push(Number(digits));
    }
    return heights.sort((a, b) => a - b);
  }

  /**
   * The highest height in the bucket, where a source without `from` starts (S3 has no "latest" pointer): jump
   * ahead while heights exist, then narrow down; about 2 x log2(distance) listings of one key.
   */
  async head(): Promise<number> {
    let best = (await this.heightsAfter(-1, 1))[0];
    if (best === undefined) throw new Error(`lake: s3://${this.where.bucket} holds no blocks`);
    let step = 1 << 20;
    while (step >= 1) {
      const found: number | undefined = (await this.heightsAfter(best + step - 1, 1))[0];
      if (found !== undefined) {
        best = found;
        step *= 2;
      } else {
        step = Math.floor(step / 2);
      }
    }
    return best;
  }

  /**
   * block.json, parsed for its chunk list, and the shard files' bytes (only their ends checked here: they are parsed
   * where blocks are decoded, and a file that does not parse there, or holds another shard, has the pipeline fetch
   * the block again, `refetch`). Like neardata's answers, an object that is not what was asked for (not JSON, cut
   * short, another height, no chunk list) is retried as a `malformed` source error.
   */
  async block(height: number): Promise<Fetched> {
    const blockKey = `${pad(height)}/block.json`;
    const { blockJson, shardIds, bytes } = await this.getJson(blockKey, (value, length) => {
      const block = value as { header?: { height?: unknown }; chunks?: unknown } | null;
      if (block?.header?.height !== height) throw new MalformedLakeError(`${blockKey}: not the block of height ${height}`);
      if (!Array.isArray(block.chunks)) throw new MalformedLakeError(`${blockKey}: no chunks list`);
      // One shard file per chunk, named by the chunk's shard id (not by index: ids are sparse after resharding).
      const shardIds = block.chunks.map((chunk: { shard_id?: unknown } | null) => chunk?.shard_id);
      if (!shardIds.every((id) => typeof id === 'number')) throw new MalformedLakeError(`${blockKey}: a chunk without shard_id`);
      return { blockJson: value, shardIds: shardIds as number[], bytes: length };
    });
    const shards = await Promise.all(
      shardIds.map((id) => {
        const key = `${pad(height)}/shard_${id}.json`;
        return this.send(key, async () => {
          const body = await this.getBytes(key);
          checkShardEnds(body, key);
          return body;
        });
      }),
    );
    return { raw: { kind: 'lake', height, block: blockJson, shards }, bytes: shards.reduce((sum, body) => sum + body.length, bytes) };
  }

  /** An object's JSON, retried (as `malformed`) until it parses and `check` accepts it (given its length in bytes). */
  private async getJson<T>(key: string, check: (value: unknown, length: number) => T): Promise<T> {
    return this.send(key, async () => {
      const body = await this.getBytes(key);
      let value: unknown;
      try {
        value = JSON.parse(textOf(body));
      } catch (error) {
        throw new MalformedLakeError(`${key}: not JSON (${(error as Error).message}; ${body.length} bytes)`);
      }
      return check(value, body.length);
    });
  }

  /**
   * An object's bytes, by a GET we sign ourselves (sigv4.ts): the listing is the SDK's, but a block is 1 + shards
   * objects and the SDK's per-request work would cost more CPU than parsing them. Credentials are the SDK's (the
   * standard provider chain, cached and refreshed by it).
   */
  private async getBytes(key: string): Promise<Buffer> {
    const credentials = await this.client.config.credentials();
    const { endpoint, bucket, region } = this.where;
    const url = endpoint === undefined ? new URL(`https://${bucket}.s3.${region}.amazonaws.com/${key}`) : new URL(`/${bucket}/${key}`, endpoint);
    const signed: Record<string, string> = {
      host: url.host,
      'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
      'x-amz-date': amzDate(new Date()),
      'x-amz-request-payer': 'requester',
    };
    if (credentials.sessionToken !== undefined) signed['x-amz-security-token'] = credentials.sessionToken;
    const { host: _host, ...headers } = signed; // fetch sends the host of the URL
    headers.authorization = authorization('GET', url.pathname, signed, region, 's3', credentials);
    return (await getOnce(url.href, { redirect: 'manual', signal: this.signal, idleMs: 30_000, headers })).body;
  }

  private async send<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await retrying(call, {
        signal: this.signal,
        backoff: this.backoff,
        onRetry: this.observer.onRetry,
        onSettled: this.observer.onSettled,
        kindOf: lakeErrorKind,
        retryable: isTransient,
      });
    } catch (error) {
      if (this.signal.aborted) throw error;
      const e = error as { name?: string; message?: string };
      const hint =
        e.name === 'CredentialsProviderError'
          ? ' (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: the NEAR Lake buckets are requester-pays)'
          : '';
      const message = `${e.name ?? 'Error'}: ${e.message ?? String(error)}${hint}`;
      throw new Error(`lake: s3://${this.where.bucket}/${what}: ${message}`, { cause: error });
    }
  }
}

/** An object whose content is not what its key promises. */
class MalformedLakeError extends Error {}

/** A shard file's ends: from `{` to `}` (a page in its place, most cuts); the parse on a worker finds the rest. */
function checkShardEnds(body: Uint8Array, key: string): void {
  if (!looksLikeObject(body)) throw new MalformedLakeError(`${key}: not a JSON object (${body.length} bytes)`);
}

/** An S3 error answer's code (`NoSuchKey`, `SlowDown`...), from our own GETs' XML or the SDK's errors. */
function s3Code(error: unknown): string | undefined {
  if (error instanceof HttpStatusError) return /<Code>([^<]+)<\/Code>/.exec(error.body)?.[1];
  return (error as { name?: string }).name;
}

/** The HTTP status of a failed S3 call, when it got an answer. */
function s3Status(error: unknown): number | undefined {
  if (error instanceof HttpStatusError) return error.status;
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

/** The counter kind of a failed S3 call. */
function lakeErrorKind(error: unknown): SourceErrorKind {
  if (error instanceof MalformedLakeError) return 'malformed';
  if (error instanceof StalledError) return 'timeout';
  const status = s3Status(error);
  const code = s3Code(error);
  if (status === 429 || code === 'SlowDown') return 'http_429';
  if (status !== undefined && status >= 500) return 'http_5xx';
  if (status !== undefined && status >= 400) return 'http_4xx';
  if (code === 'TimeoutError' || code === 'RequestTimeout') return 'timeout';
  return 'network';
}

/**
 * Worth retrying: no HTTP answer (refused, reset, timeout), 5xx, throttling, a key not there yet, or an object not
 * (yet) what it should be. Not: missing credentials, access denied, no such bucket, wrong region: they need a person.
 */
function isTransient(error: unknown): boolean {
  if (error instanceof MalformedLakeError || error instanceof StalledError) return true;
  const code = s3Code(error);
  if (code === 'CredentialsProviderError') return false;
  const status = s3Status(error);
  return status === undefined || status >= 500 || status === 429 || code === 'NoSuchKey';
}
