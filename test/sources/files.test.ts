import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { filesSource } from '../../indexer/sources/files.ts';
import { drain, fixturePath, loadBlock, readFixtureText, readMessage } from './helpers.ts';

const never = new AbortController().signal;

/** Heights as the file names give them: `100596707.json` -> 100596707; `190534818-alt.json` is the same block. */
function heightsFromNames(dir: string): number[] {
  const heights = new Set<number>();
  for (const entry of readdirSync(fixturePath(dir), { recursive: true, withFileTypes: true })) {
    const match = /^(\d+)(?:-[a-z]+)?(?:\.json(?:\.gz)?)?$/.exec(entry.name);
    if (match && (entry.isDirectory() || /\.json(\.gz)?$/.test(entry.name))) heights.add(Number(match[1]));
  }
  return [...heights].sort((a, b) => a - b);
}

describe('files: source', () => {
  let tmp = '';
  beforeAll(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'dexlake-files-'));
  });
  afterAll(() => {
    rmSync(tmp, { recursive: true, force: true });
  });

  function tmpDir(name: string): string {
    const dir = path.join(tmp, name);
    rmSync(dir, { recursive: true, force: true });
    return mkdtempSync(dir);
  }

  it('a folder of combined files (the fixtures): every block, in increasing height order, as the names say', async () => {
    const source = filesSource(fixturePath('mainnet'));
    expect(source.sparse).toBe(true);
    const blocks = await drain(source.blocks({}, never));
    const heights = blocks.map((b) => b.height);
    expect(heights).toEqual(heightsFromNames('mainnet'));
    expect(heights).toHaveLength(25);
    expect(blocks.find((b) => b.height === 114081912)).toEqual(loadBlock('mainnet/114081912.json'));
  });

  it('the whole fixture tree: combined files of both nets and the Lake-layout folder, each height once', async () => {
    const blocks = await drain(filesSource(fixturePath('.')).blocks({}, never));
    const heights = blocks.map((b) => b.height);
    expect(heights).toEqual(heightsFromNames('.'));
    for (let i = 1; i < heights.length; i++) expect(heights[i]).toBeGreaterThan(heights[i - 1] ?? Infinity);
    expect(heights[0]).toBe(879765);
    expect(heights).toHaveLength(32); // 33 files, two of them the same block 190534818
    expect(blocks[0]).toEqual(loadBlock('localnet/lake-layout/000000879765'));
    expect(blocks.find((b) => b.height === 234187695)).toEqual(loadBlock('testnet/234187695.json'));
  });

  it('a Lake-layout folder or a single file as PATH', async () => {
    const lake = await drain(filesSource(fixturePath('localnet/lake-layout/000000879765')).blocks({}, never));
    expect(lake).toEqual([loadBlock('localnet/lake-layout/000000879765')]);
    const single = await drain(filesSource(fixturePath('testnet/120572296.json')).blocks({}, never));
    expect(single).toEqual([loadBlock('testnet/120572296.json')]);
    // A Lake folder whose name is not a height: its block.json says it.
    const dir = tmpDir('named');
    cpSync(fixturePath('localnet/lake-layout/000000879765'), path.join(dir, 'some-block'), { recursive: true });
    expect((await drain(filesSource(dir).blocks({ to: 879765 }, never))).map((b) => b.height)).toEqual([879765]);
  });

  it('from/to keep the heights of the range, bounds included', async () => {
    const source = filesSource(fixturePath('.'));
    const heights = (await drain(source.blocks({ from: 100596707, to: 117969098 }, never))).map((b) => b.height);
    expect(heights).toEqual([100596707, 105089746, 105793821, 114081912, 114158749, 117969098]);
    const tail = (await drain(source.blocks({ from: 217143860 }, never))).map((b) => b.height);
    expect(tail).toEqual([217143860, 232952651, 234187695]);
    const head = (await drain(source.blocks({ to: 34834053 }, never))).map((b) => b.height);
    expect(head).toEqual([879765, 34834052, 34834053]);
    expect(await drain(source.blocks({ from: 34834054, to: 42598891 }, never))).toEqual([]);
  });

  it('does not open a file outside the range when its name gives the height', async () => {
    const dir = tmpDir('range');
    writeFileSync(path.join(dir, '70834061.json'), readFixtureText('mainnet/70834061.json'));
    writeFileSync(path.join(dir, '5.json'), 'not json at all');
    writeFileSync(path.join(dir, '99999999999.json.gz'), 'not gzip either');
    const heights = (await drain(filesSource(dir).blocks({ from: 6, to: 99999999998 }, never))).map((b) => b.height);
    expect(heights).toEqual([70834061]);
    // Inside the range the broken file is read, and the error names it.
    await expect(drain(filesSource(dir).blocks({}, never))).rejects.toThrow(/5\.json/);
  });

  it('a .json.gz file gives the same block as the plain file', async () => {
    const dir = tmpDir('gzip');
    const plain = path.join(tmpDir('plain'), '61321189.json');
    writeFileSync(plain, readFixtureText('mainnet/61321189.json'));
    const gz = path.join(dir, '61321189.json.gz');
    writeFileSync(gz, gzipSync(readFileSync(plain)));
    const blocks = await drain(filesSource(gz).blocks({}, never));
    expect(blocks).toEqual(await drain(filesSource(plain).blocks({}, never)));
    expect(blocks).toEqual([loadBlock('mainnet/61321189.json')]);
    // Its height comes from the name, inside a folder too.
    copyFileSync(fixturePath('mainnet/34834052.json'), path.join(dir, '34834052.json.gz'));
    const heights = (await drain(filesSource(dir).blocks({ from: 50000000 }, never))).map((b) => b.height);
    expect(heights).toEqual([61321189]);
  });

  it('text beyond ASCII reads as UTF-8 (pure ASCII files take a faster path)', async () => {
    const dir = tmpDir('utf8');
    const message = readMessage('mainnet/61321189.json') as unknown;
    const log = 'naïve ☃ 𝄞 memo';
    type Shard = { receiptExecutionOutcomes: { executionOutcome: { outcome: { logs: string[] } } }[] }; // camelCase
    const outcomes = (message as { shards: Shard[] }).shards.flatMap((s) => s.receiptExecutionOutcomes);
    expect(outcomes.length).toBeGreaterThan(0);
    outcomes[0]!.executionOutcome.outcome.logs.push(log);
    writeFileSync(path.join(dir, '61321189.json'), JSON.stringify(message), 'utf8');
    const [block] = await drain(filesSource(dir).blocks({}, never));
    const logs = block!.shards.flatMap((s) => s.receiptOutcomes.flatMap((o) => o.logs));
    expect(logs).toContain(log);
  });

  it('two files of one height: the block once, from the first path in code-unit order', async () => {
    const real = await drain(filesSource(fixturePath('testnet')).blocks({ from: 190534818, to: 190534818 }, never));
    expect(real).toEqual([loadBlock('testnet/190534818-alt.json')]); // '-' sorts before '.'

    // Tell the copies apart by their author.
    const dir = tmpDir('dup');
    const message = readMessage('mainnet/70834061.json');
    writeFileSync(path.join(dir, '70834061.json'), JSON.stringify(message));
    for (const copy of ['b', 'c']) {
      const authored = { ...message, block: { ...message.block, author: `${copy}.near` } };
      writeFileSync(path.join(dir, `70834061-${copy}.json`), JSON.stringify(authored));
    }
    const blocks = await drain(filesSource(dir).blocks({}, never));
    expect(blocks.map((b) => [b.height, b.author])).toEqual([[70834061, 'b.near']]);
  });

  it('abort mid-stream ends the iteration without an error', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    for await (const block of filesSource(fixturePath('mainnet')).blocks({}, controller.signal)) {
      seen.push(block.height);
      if (seen.length === 2) controller.abort();
    }
    expect(seen).toEqual(heightsFromNames('mainnet').slice(0, 2));
    // Aborted before the start: nothing at all.
    expect(await drain(filesSource(fixturePath('mainnet')).blocks({}, controller.signal))).toEqual([]);
  });

  it('a file named for one height that holds another is an error', async () => {
    const dir = tmpDir('mislabelled');
    const stored = fixturePath('mainnet/34834052.json'); // gzipped: the copy keeps its ending
    copyFileSync(stored, path.join(dir, `34834099${stored.slice(stored.indexOf('.json'))}`));
    await expect(drain(filesSource(dir).blocks({}, never))).rejects.toThrow(
      /34834099\.json\.gz: expected block 34834099, holds block 34834052/,
    );
  });
});
