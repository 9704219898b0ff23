// Issue 31 point 6, same seed, same chain: `dexlake devnet export` writes the realnet's blocks in the Lake
// layout; two processes write the same bytes, and those are the bytes of the realnet the test process makes; another seed or
// release is another chain. A release that is not vendored is refused before anything runs (exit 2).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { textOf } from '../../indexer/sources/raw.ts';
import { runDexlake } from '../harness/cli.ts';
import { realnet } from '../harness/realnet.ts';

const BLOCKS = 200;
const OTHER_BLOCKS = 20;
const never = new AbortController().signal;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function exported(args: string[], blocks: number): Promise<Map<string, string>> {
  const out = mkdtempSync(path.join(tmpdir(), 'realnet-export-'));
  dirs.push(out);
  const running = runDexlake(['devnet', 'export', '--blocks', String(blocks), '--out', out, ...args]);
  const { code } = await running.exited;
  expect(code, running.output()).toBe(0);
  const files = new Map<string, string>();
  for (const height of readdirSync(out)) for (const name of readdirSync(path.join(out, height))) files.set(`${height}/${name}`, readFileSync(path.join(out, height, name), 'utf8'));
  return files;
}

describe('the realnet: same seed, same chain, in every process', () => {
  it('two processes export the same bytes, the bytes of the realnet made in the test process; another seed or release differs', async () => {
    // Another seed or release shows itself within a few blocks: 20 of them are enough to see most differ.
    const [a, b, seeded, older] = await Promise.all([
      exported([], BLOCKS),
      exported(['--release', '1.9.17'], BLOCKS),
      exported(['--devnet-seed', 'another'], OTHER_BLOCKS),
      exported(['--release', '1.8.0'], OTHER_BLOCKS),
    ]);
    expect(a.size).toBe(2 * BLOCKS);
    expect(b).toEqual(a);
    // The test process's realnet of the same seed (harness/realnet.ts: made in this process, or read back from what an
    // earlier one made with the same code), each block's message `{"block":…,"shards":[…]}`, rebuilt from the files.
    let height = 0;
    for await (const raw of realnet('dexlake').raw({ to: BLOCKS }, never)) {
      if (raw.kind !== 'message') throw new Error(`block ${raw.height}: the realnet gives messages`);
      height = raw.height;
      const dir = String(raw.height).padStart(12, '0');
      const shards = [...a.keys()].filter((k) => k.startsWith(`${dir}/shard_`)).sort().map((k) => a.get(k));
      expect(`{"block":${a.get(`${dir}/block.json`)},"shards":[${shards.join(',')}]}`, dir).toBe(textOf(raw.body));
    }
    expect(height).toBe(BLOCKS);
    // The chain trades: Ref's swap lines across the 200 blocks.
    expect([...a.values()].join('').split('Swapped ').length - 1).toBeGreaterThan(50);
    for (const other of [seeded, older]) expect([...other].filter(([k, v]) => a.get(k) !== v).length).toBeGreaterThan(OTHER_BLOCKS / 2);
  }, 180_000);

  it('refuses a release that is not vendored, naming the ones that are (exit 2)', async () => {
    for (const args of [['devnet', 'export', '--blocks', '1', '--out', path.join(tmpdir(), 'never'), '--release', '9.9'], ['index', '--source', 'realnet:9.9', '--to', '1']]) {
      const running = runDexlake(args, { DEXLAKE_SOURCE: undefined });
      const { code } = await running.exited;
      expect(code, running.output()).toBe(2);
      expect(running.output()).toMatch(/9\.9.*1\.6\.2, 1\.7\.2, 1\.8\.0, 1\.9\.4, 1\.9\.16, 1\.9\.17/s);
    }
  });
});
