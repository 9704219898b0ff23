import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, configEnv, loadConfig, settings } from '../cli/config.ts';

describe('config', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, host: '127.0.0.1', nearNetwork: 'mainnet', dataDir: '.dexlake', logLevel: 'info', source: 'realnet' });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.from).toBeUndefined();
  });

  it('reads the environment, and a flag wins over it', () => {
    expect(loadConfig({ PORT: '8080' }).port).toBe(8080);
    expect(loadConfig({ PORT: '8080' }, { port: '9090' }).port).toBe(9090);
    expect(loadConfig({ DEXLAKE_FROM: '100', DEXLAKE_TO: '200' })).toMatchObject({ from: 100, to: 200 });
    expect(loadConfig({ NEAR_NETWORK: '' }).nearNetwork).toBe('mainnet');
  });

  it.each([
    [{ PORT: 'abc' }, 'invalid PORT="abc": expected an integer from 0 to 65535'],
    [{ PORT: '70000' }, 'invalid PORT="70000": expected an integer from 0 to 65535'],
    [{ PORT: '3.5' }, 'invalid PORT="3.5": expected an integer from 0 to 65535'],
    [{ NEAR_NETWORK: 'betanet' }, 'invalid NEAR_NETWORK="betanet": expected mainnet or testnet'],
    [{ DATABASE_URL: 'mysql://x/y' }, 'invalid DATABASE_URL="mysql://x/y": expected a postgres:// or postgresql:// URL'],
    [{ LOG_LEVEL: 'loud' }, 'invalid LOG_LEVEL="loud": expected one of fatal, error, warn, info, debug, trace, silent'],
    [{ DEXLAKE_SOURCE: 'ftp:x' }, `invalid DEXLAKE_SOURCE="ftp:x": expected ${settings.source.expected}`],
    [{ DEXLAKE_FROM: '-5' }, 'invalid DEXLAKE_FROM="-5": expected a block height (non-negative integer)'],
    [{ NEAR_RPC_URL: 'localhost:3030' }, 'invalid NEAR_RPC_URL="localhost:3030": expected an http:// or https:// URL'],
    [{ DATABASE_READ_URL: 'postgres://a/x,mysql://b/x' }, 'invalid DATABASE_READ_URL="postgres://a/x,mysql://b/x": expected one or more postgres:// or postgresql:// URLs, separated by commas'],
    [{ DEXLAKE_TRUST_PROXY: '10.0.0.0/8,haproxy' }, 'invalid DEXLAKE_TRUST_PROXY="10.0.0.0/8,haproxy": expected IP addresses or CIDR ranges, separated by commas'],
    [{ DEXLAKE_SOURCE: 'devnet' }, `invalid DEXLAKE_SOURCE="devnet": expected ${settings.source.expected}`],
    [{ DEXLAKE_DEVNET_GENESIS: '2026-02-30T00:00:00Z' }, `invalid DEXLAKE_DEVNET_GENESIS="2026-02-30T00:00:00Z": expected ${settings.devnetGenesis.expected}`],
  ])('rejects %o with one line naming it', (env, message) => {
    expect(() => loadConfig(env)).toThrow(new ConfigError(message));
  });

  it('accepts every source form', () => {
    for (const source of ['realnet', 'realnet:1.6.2', 'files:test/fixtures/blocks', 'lake:mainnet', 'lake:testnet', 'lake:s3://bucket?region=eu-central-1&endpoint=http://127.0.0.1:4569', 'neardata:mainnet', 'neardata:https://example.org']) {
      expect(loadConfig({ DEXLAKE_SOURCE: source }).source).toBe(source);
    }
  });

  it('reads one read replica URL or several separated by commas', () => {
    expect(loadConfig({ DATABASE_READ_URL: 'postgres://r1:5432/dexlake' }).databaseReadUrl).toEqual(['postgres://r1:5432/dexlake']);
    expect(loadConfig({ DEXLAKE_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', '::1']);
    expect(loadConfig({}, { databaseReadUrl: 'postgres://r1/d, postgresql://r2:6432/d' }).databaseReadUrl).toEqual(['postgres://r1/d', 'postgresql://r2:6432/d']);
  });

  it('hands a resolved config to child processes as the same variables', () => {
    const config = loadConfig({ PORT: '4000', DATABASE_READ_URL: 'postgres://r1/d,postgres://r2/d' }, { logLevel: 'debug' });
    expect(loadConfig(configEnv(config))).toEqual(config);
  });

  it('is documented, setting by setting, in the README configuration table', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const rows = new Map(
      [...readme.matchAll(/^\| `([A-Z_]+)` \| `(--[a-z-]+)` \| ([^|]*) \|/gm)].map((m) => [m[1], { flag: m[2], default: m[3]!.trim() }]),
    );
    for (const s of Object.values(settings)) {
      expect(rows.get(s.env), s.env).toEqual({ flag: s.flag, default: 'default' in s ? `\`${s.default}\`` : '' });
    }
    expect(rows.size).toBe(Object.keys(settings).length);
  });
});
