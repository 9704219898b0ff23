// Decoding off the main thread. JSON.parse and normalization are most of the cost of ingestion; on worker threads
// they run beside the main thread's database writes instead of before them. Only the decoded events come back,
// which are a small fraction of the block's bytes, so the hand-over costs little.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { MAINNET_CONTRACTS, type DexContracts } from '../dexes/contracts.ts';
import type { Dex } from '../dexes/dex.ts';
import { DEXES } from '../dexes/index.ts';
import { decodeRaw, type DecodedBlock } from './decode.ts';
import { decodeRefetching, MalformedBlockError } from './sources/raw.ts';
import type { BlockRange, BlockSource, RawBlock } from './sources/source.ts';

export interface DecodePool {
  decode(raw: RawBlock): Promise<DecodedBlock>;
  /** Blocks handed to `decode` whose decoding has not finished. */
  inFlight(): number;
  close(): Promise<void>;
}

/** One per core, up to 4: the main thread only joins the rows the workers render and runs the projections, and
 * PostgreSQL's share of the CPU is smaller than decoding's, so a core left to them would mostly idle. */
export const defaultWorkers = () => Math.min(4, Math.max(1, availableParallelism()));

interface Job {
  resolve(value: DecodedBlock): void;
  reject(error: Error): void;
}

/**
 * `size` worker threads; 0 decodes inline on the calling thread. `contracts`: the network's DEX contracts. Workers
 * decode with the registry of dexes/index.ts (code does not cross threads): another registry decodes inline.
 */
export function createDecodePool(size = defaultWorkers(), contracts: DexContracts = MAINNET_CONTRACTS, dexes: readonly Dex[] = DEXES): DecodePool {
  if (size > 0 && dexes !== DEXES) throw new Error('a registry of its own decodes on the calling thread: pass 0 workers');
  if (size === 0) {
    let inFlight = 0;
    return {
      decode: (raw) => {
        inFlight++;
        return decodeRaw(raw, contracts, dexes).finally(() => inFlight--);
      },
      inFlight: () => inFlight,
      close: async () => {},
    };
  }
  let nextId = 0;
  const workers = Array.from({ length: size }, () => {
    // 192 MB of young generation is a 64 MB semi-space (V8 sizes it 3x): a parsed block of a few MB then dies in
    // the scavenger instead of being promoted and collected by the slower full GC (decoding went from 16 s to 14 s).
    const worker = new Worker(new URL('./decode-worker.js', import.meta.url), {
      resourceLimits: { maxYoungGenerationSizeMb: 192 },
      workerData: { contracts },
    });
    const jobs = new Map<number, Job>();
    worker.on('message', ({ id, value, error, malformed }: { id: number; value?: DecodedBlock; error?: string; malformed?: boolean }) => {
      const job = jobs.get(id)!;
      jobs.delete(id);
      if (error === undefined) job.resolve(value!);
      else job.reject(malformed ? new MalformedBlockError(error) : new Error(error));
    });
    // A worker that dies takes its jobs with it: fail them rather than wait forever.
    const failAll = (error: Error) => {
      for (const job of jobs.values()) job.reject(error);
      jobs.clear();
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`decode worker exited with code ${code}`)));
    return { worker, jobs };
  });
  return {
    decode(raw) {
      // The least busy worker; ties go to the first, so the choice is deterministic.
      const target = workers.reduce((a, b) => (b.jobs.size < a.jobs.size ? b : a));
      const id = nextId++;
      return new Promise<DecodedBlock>((resolve, reject) => {
        target.jobs.set(id, { resolve, reject });
        target.worker.postMessage({ id, raw }, movableBuffers(raw));
      });
    },
    inFlight: () => workers.reduce((n, w) => n + w.jobs.size, 0),
    close: async () => void (await Promise.all(workers.map((w) => w.worker.terminate()))),
  };
}

/**
 * The memory of a raw block's bodies that can move to a worker instead of being copied: each body that is the whole
 * of its ArrayBuffer (a network body of more than 4 KiB: smaller ones share Node's buffer pool). Moved, it is gone
 * from this thread; the pipeline keeps only the block's height. Never an empty one: a body whose memory has already
 * moved elsewhere is empty, and Node drops without a word a message that would move such memory again (the block
 * would wait for its decode forever); copied, it reaches the worker and fails to parse like any bad block.
 */
function movableBuffers(raw: RawBlock): ArrayBuffer[] {
  const bodies = raw.kind === 'message' ? [raw.body] : raw.kind === 'lake' ? raw.shards : [];
  return bodies.flatMap((b) => (b.buffer instanceof ArrayBuffer && b.byteLength > 0 && b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? [b.buffer] : []));
}

/**
 * The source's blocks, decoded on the pool with up to `depth` in flight, in the source's order. Reading the source
 * runs ahead on its own, so a decoded block is handed over as soon as it is ready even while the source waits for
 * the next one (at the chain head). A block that does not parse is fetched again from the source, in its place.
 */
export async function* decodedBlocks(source: BlockSource, range: BlockRange, signal: AbortSignal, pool: DecodePool, depth = 32): AsyncGenerator<DecodedBlock> {
  // Ours to abort too: a consumer that stops early must stop the reading as well.
  const reader = new AbortController();
  const stop = () => reader.abort();
  signal.addEventListener('abort', stop, { once: true });
  const queue: Promise<DecodedBlock | null>[] = [];
  let ended = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  let space: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };

  const reading = (async () => {
    try {
      for await (const raw of source.raw(range, reader.signal)) {
        while (queue.length >= depth && !reader.signal.aborted) await new Promise<void>((resolve) => (space = resolve));
        if (reader.signal.aborted) break;
        const decoding = decodeRefetching(source, raw, (r) => pool.decode(r), reader.signal);
        decoding.catch(() => {}); // handled when its turn comes
        queue.push(decoding);
        notify();
      }
    } catch (error) {
      failure = { error };
    } finally {
      ended = true;
      notify();
    }
  })();

  try {
    for (;;) {
      const next = queue.shift();
      if (next) {
        space?.();
        space = undefined;
        const block = await next;
        if (block !== null) yield block;
        continue;
      }
      if (ended) break;
      await new Promise<void>((resolve) => (wake = resolve));
    }
    if (failure) throw failure.error;
  } finally {
    reader.abort();
    signal.removeEventListener('abort', stop);
    space?.();
    await reading;
  }
}
