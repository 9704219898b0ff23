// The realnet as tests read it: each block made once per test file (see `realnet`).
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { RefRelease } from '../../devnet/realnet/wasm.ts';
import { rawSource } from '../../indexer/sources/raw.ts';
import { realnetSource } from '../../indexer/sources/realnet.ts';
import type { BlockSource, RawBlock } from '../../indexer/sources/source.ts';

const never = new AbortController().signal;

/** Per source name (release and seed), the blocks realnetSource has made so far (by height), and its run that makes the next ones. */
const chains = new Map<string, { made: Map<number, RawBlock & { kind: 'message' }>; last: number; run: AsyncIterator<RawBlock> }>();

/**
 * realnetSource of `seed` (Ref `release`, default the newest), each block made once per test file. The source
 * rebuilds its chain from the seed on every run (a restart replays every block before the checkpoint, at some 80
 * blocks/s); here one run makes the blocks and
 * every later run, of any database, is given the ones it asks for again, as bytes of its own (a decode worker takes
 * the bytes it is given). Each block comes after a turn of the event loop: the chain makes its blocks synchronously,
 * and seconds without one leave the database clients' sockets unread (their connections time out).
 */
export function realnet(seed: string, release?: RefRelease): BlockSource {
  const inner = realnetSource({ seed, speed: 0, release });
  return rawSource(inner.name, inner.sparse, async function* (range, signal) {
    let chain = chains.get(inner.name);
    if (chain === undefined) chains.set(inner.name, (chain = { made: new Map(), last: 0, run: inner.raw({}, never)[Symbol.asyncIterator]() }));
    for (let height = range.from ?? 1; range.to === undefined || height <= range.to; height++) {
      await nextTurn();
      if (signal.aborted) return;
      while (chain.last < height) {
        const block = (await chain.run.next()).value as RawBlock & { kind: 'message' };
        chain.made.set(block.height, block);
        chain.last = block.height;
      }
      const block = chain.made.get(height);
      if (block !== undefined) yield { ...block, body: Buffer.from(block.body) };
    }
  });
}

