// Shared by the source tests: where the real blocks are, reading them, and draining a source.
import { readFixture } from '../harness/fixtures.ts';
import type { Block } from '../../near/block.ts';

export { fixturePath, loadBlock, readFixtureText } from '../harness/fixtures.ts';

export interface Message {
  block: Record<string, unknown>;
  shards: Record<string, unknown>[];
}

/** A combined `{block, shards}` fixture as parsed JSON. */
export function readMessage(rel: string): Message {
  return readFixture(rel) as Message;
}

/** The same message with another height in its header. */
export function relabel(message: Message, height: number): Message {
  return { ...message, block: { ...message.block, header: { ...(message.block.header as object), height } } };
}

/** Every block a source yields, until it ends (or `limit` blocks). */
export async function drain<T = Block>(blocks: AsyncIterable<T>, limit = Infinity): Promise<T[]> {
  const out: T[] = [];
  if (limit <= 0) return out;
  for await (const block of blocks) {
    out.push(block);
    if (out.length >= limit) break;
  }
  return out;
}

/** Rejects if `promise` has not settled after `ms`: a hang fails the test with a message instead of a timeout. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done after ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
