import { describe, it, expect } from 'vitest';
import { openSource } from '../../indexer/sources/index.ts';
import { fixturePath } from '../harness/fixtures.ts';

describe('openSource', () => {
  it('opens each spec form', async () => {
    expect(await openSource(`files:${fixturePath('mainnet')}`)).toMatchObject({
      name: `files:${fixturePath('mainnet')}`,
      sparse: true,
    });
    expect(await openSource('realnet')).toMatchObject({ name: 'realnet:1.9.17:dexlake', sparse: false });
    expect((await openSource('realnet:1.8.0', { devnet: { seed: 'other' } })).name).toBe('realnet:1.8.0:other');
    expect(await openSource('neardata:mainnet')).toMatchObject({
      name: 'neardata:https://mainnet.neardata.xyz',
      sparse: false,
    });
    expect((await openSource('neardata:testnet')).name).toBe('neardata:https://testnet.neardata.xyz');
    expect((await openSource('neardata:http://127.0.0.1:3030')).name).toBe('neardata:http://127.0.0.1:3030');
    expect(await openSource('lake:mainnet')).toMatchObject({ name: 'lake:s3://near-lake-data-mainnet', sparse: false });
    expect((await openSource('lake:testnet')).name).toBe('lake:s3://near-lake-data-testnet');
    expect((await openSource('lake:s3://my-lake?region=us-east-1&endpoint=http://127.0.0.1:4568')).name).toBe(
      'lake:s3://my-lake (http://127.0.0.1:4568)',
    );
  });

  it('says what it accepts for anything else', async () => {
    // The all-model devnet of the first waves is retired: its name is no source now.
    await expect(openSource('devnet')).rejects.toThrow(/unknown block source "devnet": expected realnet\[:RELEASE\], files:PATH/);
    await expect(openSource('realnet:9.9')).rejects.toThrow(/Ref release "9\.9" is not vendored: expected one of 1\.6\.2, .*, 1\.9\.17/);
    await expect(openSource('rpc:mainnet')).rejects.toThrow(/unknown block source "rpc:mainnet": expected realnet\[:RELEASE\], files:PATH/);
    await expect(openSource('files:')).rejects.toThrow(/needs a path/);
    await expect(openSource('neardata:')).rejects.toThrow(/expected neardata:mainnet/);
    await expect(openSource('lake:https://bucket')).rejects.toThrow(/expected lake:mainnet/);
  });
});
