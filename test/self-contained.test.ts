// A clone with nothing beside it runs every test and benchmark: no tracked file but the docs reads the team's shared
// folder next to the repository (its data is copied into test/fixtures/, gzipped, with sources and licences).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Spelled in two parts so that this file does not name it.
const OUTSIDE = new RegExp(['\\.\\./', 'shared\\b'].join(''));

describe('the repository is self-contained', () => {
  it('no tracked file outside the docs reads the folder beside the repository', () => {
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
    expect(files.length).toBeGreaterThan(100);
    const code = files.filter((f) => !f.endsWith('.md') && !/\.(gz|wasm|png)$/.test(f));
    const hits = code.filter((f) => OUTSIDE.test(readFileSync(path.join(ROOT, f), 'latin1')));
    expect(hits).toEqual([]);
  });

  it('the pattern finds what it looks for', () => {
    expect(OUTSIDE.test(`const dir = '${['..', 'shared', 'fixtures'].join('/')}';`)).toBe(true);
    expect(OUTSIDE.test('shared_buffers and ./shared-state')).toBe(false);
  });
});
