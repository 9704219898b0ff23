// `npm install` prints no engine warning on the Node versions the README supports (issue 32, point 7): the README's
// range is package.json's `engines`, every package npm installs accepts all of it, and npm itself, asked for a dry
// run on this Node, warns of nothing.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// npm's own range logic (a devDependency; typed here for the two functions used, as it ships no types).
const semver = createRequire(import.meta.url)('semver') as {
  subset(range: string, of: string): boolean;
  satisfies(version: string, range: string): boolean;
};

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const json = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, unknown>;

const supported = (json('package.json').engines as { node: string }).node;

describe('Node engines', () => {
  it("the README states package.json's engines range", () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(/\(`engines`: `([^`]+)`/.exec(readme)?.[1]).toBe(supported);
  });

  it('every package npm installs accepts every Node version of that range', () => {
    const lock = json('package-lock.json') as { packages: Record<string, { engines?: unknown; optional?: boolean; version?: string }> };
    const refusing: string[] = [];
    for (const [where, pkg] of Object.entries(lock.packages)) {
      // npm checks no engines of optional packages (they are the other platforms' binaries here).
      if (where === '' || pkg.optional === true) continue;
      const node = (pkg.engines as { node?: unknown } | undefined)?.node;
      if (typeof node !== 'string') continue;
      if (!semver.subset(supported, node)) refusing.push(`${where.replace(/^.*node_modules\//, '')}@${pkg.version}: ${node}`);
    }
    expect(refusing).toEqual([]);
  });

  it(`npm install on this Node (${process.version}) prints no engine warning`, () => {
    // A dry run from the lockfile: nothing fetched, nothing written, but npm's engine check runs.
    const run = spawnSync('npm', ['install', '--dry-run', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, npm_config_loglevel: 'warn' },
    });
    expect(semver.satisfies(process.version, supported)).toBe(true);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr + run.stdout).not.toMatch(/EBADENGINE/);
  });
});
