// AWS Signature Version 4 for the Lake source's object GETs (docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html).
// The SDK signs too, but each of its requests goes through a middleware stack that costs about 1.5 ms of CPU here;
// a Lake block is block.json plus a file per shard, so at a few hundred blocks a second that alone would fill a core.
import { createHash, createHmac } from 'node:crypto';

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
}

const hmac = (key: string | Buffer, text: string): Buffer => createHmac('sha256', key).update(text).digest();

/** Signing keys by day, region and secret: the four HMACs are the same for a whole day. */
const signingKeys = new Map<string, Buffer>();

function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  const id = `${day}/${region}/${service}/${secret}`;
  let key = signingKeys.get(id);
  if (key === undefined) {
    if (signingKeys.size > 16) signingKeys.clear();
    key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
    signingKeys.set(id, key);
  }
  return key;
}

/**
 * The Authorization header of a request without a query string: `headers` are the ones to sign (lower-case names,
 * `host`, `x-amz-date` and `x-amz-content-sha256` among them), `path` as sent (already URI-encoded).
 */
export function authorization(method: string, path: string, headers: Record<string, string>, region: string, service: string, credentials: Credentials): string {
  const amzDate = headers['x-amz-date']!;
  const names = Object.keys(headers).sort();
  const canonical = [method, path, '', ...names.map((n) => `${n}:${headers[n]!.trim()}`), '', names.join(';'), headers['x-amz-content-sha256']!].join('\n');
  const scope = `${amzDate.slice(0, 8)}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
  const signature = createHmac('sha256', signingKey(credentials.secretAccessKey, amzDate.slice(0, 8), region, service)).update(toSign).digest('hex');
  return `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope},SignedHeaders=${names.join(';')},Signature=${signature}`;
}

/** `YYYYMMDDTHHMMSSZ`. */
export const amzDate = (date: Date): string => date.toISOString().replace(/[-:]|\.\d{3}/g, '');
