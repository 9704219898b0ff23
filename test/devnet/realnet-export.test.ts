// Issue 31 point 6, same seed, same chain: `dexlake devnet export` writes the realnet's blocks in the Lake
// layout; two processes write the same bytes, and those are the bytes of the market run here; another seed or
// release is another chain. A release that is not vendored is refused before anything runs (exit 2).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { realnetMarket } from '../../devnet/realnet/wasm.ts';
import { runDexlake } from '../harness/cli.ts';

const BLOCKS = 200;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function exported(args: string[]): Promise<Map<string, string>> {
  const out = mkdtempSync(path.join(tmpdir(), 'realnet-export-'));
  dirs.push(out);
  const running = runDexlake(['devnet', 'export', '--blocks', String(BLOCKS), '--out', out, ...args]);
  const { code } = await running.exited;
  expect(code, running.output()).toBe(0);
  const files = new Map<string, string>();
  for (const height of readdirSync(out)) for (const name of readdirSync(path.join(out, height))) files.set(`${height}/${name}`, readFileSync(path.join(out, height, name), 'utf8'));
  return files;
}

describe('the realnet: same seed, same chain, in every process', () => {
  it('two processes export the same bytes, the bytes of the market run here; another seed or release differs', async () => {
    const [a, b, seeded, older] = await Promise.all([
      exported([]),
      exported(['--release', '1.9.17']),
      exported(['--devnet-seed', 'another']),
      exported(['--release', '1.8.0']),
    ]);
    expect(a.size).toBe(2 * BLOCKS);
    expect(b).toEqual(a);
    const market = realnetMarket(undefined, { seed: 'dexlake', models: true });
    for (let i = 0; i < BLOCKS; i++) {
      const { block, shards } = market.next() as { block: { header: { height: number } }; shards: Array<{ shard_id: number }> };
      const dir = String(block.header.height).padStart(12, '0');
      expect(a.get(`${dir}/block.json`)).toBe(JSON.stringify(block));
      for (const shard of shards) expect(a.get(`${dir}/shard_${shard.shard_id}.json`)).toBe(JSON.stringify(shard));
    }
    expect(market.swaps.length).toBeGreaterThan(50);
    for (const other of [seeded, older]) expect([...other].filter(([k, v]) => a.get(k) !== v).length).toBeGreaterThan(BLOCKS / 2);
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
