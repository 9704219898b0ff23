// A decode worker: raw blocks in, decoded blocks out (events cross threads by structured clone, bigints and all).
import { parentPort } from 'node:worker_threads';
import { decodeRaw } from './decode.ts';
import type { RawBlock } from './sources/source.ts';

parentPort!.on('message', async ({ id, raw }: { id: number; raw: RawBlock }) => {
  try {
    parentPort!.postMessage({ id, value: await decodeRaw(raw) });
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
