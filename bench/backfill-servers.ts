// The far end of bench:backfill's network, in a process of its own (as a remote server would be): a neardata-style
// HTTP server over the bench's block files and a local S3 (s3rver) holding the same blocks in the NEAR Lake layout,
// both behind one slow link that answers each read request after BENCH_DELAY_MS and sends at most BENCH_MBIT
// megabits per second in all. Started by bench/backfill.ts with IPC: it says its ports, and its CPU time when asked.
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import S3rver from 's3rver';

const { BLOCKS_DIR, S3_DIR, BUCKET, FIRST, LAST, DELAY_MS, MBIT } = JSON.parse(process.argv[2]!) as {
  BLOCKS_DIR: string;
  S3_DIR: string;
  BUCKET: string;
  FIRST: number;
  LAST: number;
  DELAY_MS: number;
  MBIT: number;
};

/** The link's bandwidth, shared by every answer: each chunk leaves when the ones before it have (a FIFO pace). */
const bytesPerMs = (MBIT * 1e6) / 8 / 1000;
let linkFreeAt = 0;
async function* paced(data: Buffer): AsyncGenerator<Buffer> {
  for (let i = 0; i < data.length; i += 256 * 1024) {
    const chunk = data.subarray(i, i + 256 * 1024);
    const now = performance.now();
    const at = Math.max(now, linkFreeAt);
    linkFreeAt = at + chunk.length / bytesPerMs;
    if (at > now) await sleep(at - now);
    yield chunk;
  }
}

// neardata's protocol (indexer/sources/neardata.ts): the head by a 302, blocks by height.
const neardata = http.createServer(async (req, res) => {
  await sleep(DELAY_MS);
  if (req.url === '/v0/last_block/final') return void res.writeHead(302, { location: `/v0/block/${LAST}` }).end();
  const height = Number(/^\/v0\/block\/(\d+)$/.exec(req.url ?? '')?.[1] ?? NaN);
  if (!(height >= FIRST && height <= LAST)) return void res.writeHead(404).end('{"type":"BLOCK_DOES_NOT_EXIST"}');
  const data = await readFile(path.join(BLOCKS_DIR, `${height}.json`));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': data.length });
  for await (const chunk of paced(data)) if (!res.write(chunk)) await once(res, 'drain');
  res.end();
});
await new Promise<void>((resolve) => neardata.listen(0, '127.0.0.1', resolve));

// s3rver is a Koa app: a middleware in front of its own delays every read and paces the objects it sends. Writes
// (the bench filling the bucket) go at full speed.
const s3 = new S3rver({ address: '127.0.0.1', port: 0, directory: S3_DIR, silent: true, configureBuckets: [{ name: BUCKET }] });
type Ctx = { method: string; body: unknown; length: number };
(s3 as unknown as { middleware: Array<(ctx: Ctx, next: () => Promise<void>) => Promise<void>> }).middleware.unshift(async (ctx, next) => {
  if (ctx.method === 'PUT') return next();
  await sleep(DELAY_MS);
  await next();
  if (ctx.body instanceof Readable) {
    const data = Buffer.concat(await ctx.body.toArray());
    ctx.body = Readable.from(paced(data));
    ctx.length = data.length;
  }
});
const { port: s3Port } = await s3.run();

process.send!({ neardata: `http://127.0.0.1:${(neardata.address() as AddressInfo).port}`, s3: `http://127.0.0.1:${s3Port}` });
process.on('message', (message) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send!({ cpuS: (user + system) / 1e6 });
  }
});
process.on('disconnect', () => process.exit(0));
