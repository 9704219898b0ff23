// A decode worker: raw blocks in, decoded blocks out (events cross threads by structured clone, bigints and all).
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { DexContracts } from '../dexes/contracts.ts';
import { decodeRaw } from './decode.ts';
import { MalformedBlockError } from './sources/raw.ts';
import type { RawBlock } from './sources/source.ts';

// Decoding runs ahead of the writer, whose transaction is the serial part of ingestion: at the lowest CPU priority
// the workers take what the writer and PostgreSQL leave of the cores instead of halving their share (the 2,000 blocks
// of bench:ingest on two cores: 8.75 -> 8.2 s, medians of four). Linux keeps a nice value per thread, named by its
// id; elsewhere this is skipped.
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 19);
} catch {
  // no /proc/thread-self: not Linux
}

const { contracts } = workerData as { contracts: DexContracts };

parentPort!.on('message', async ({ id, raw }: { id: number; raw: RawBlock }) => {
  try {
    parentPort!.postMessage({ id, value: await decodeRaw(raw, contracts) });
  } catch (error) {
    // Errors lose their class between threads: a malformed block (which the source can fetch again) says so.
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error), malformed: error instanceof MalformedBlockError });
  }
});
