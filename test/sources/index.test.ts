import { describe, it, expect } from 'vitest';
import { openSource } from '../../indexer/sources/index.ts';

describe('openSource', () => {
  it('opens each spec form', () => {
    expect(openSource('files:../shared/fixtures/blocks/mainnet')).toMatchObject({
      name: 'files:../shared/fixtures/blocks/mainnet',
      sparse: true,
    });
    expect(openSource('neardata:mainnet')).toMatchObject({
      name: 'neardata:https://mainnet.neardata.xyz',
      sparse: false,
    });
    expect(openSource('neardata:testnet').name).toBe('neardata:https://testnet.neardata.xyz');
    expect(openSource('neardata:http://127.0.0.1:3030').name).toBe('neardata:http://127.0.0.1:3030');
    expect(openSource('lake:mainnet')).toMatchObject({ name: 'lake:s3://near-lake-data-mainnet', sparse: false });
    expect(openSource('lake:testnet').name).toBe('lake:s3://near-lake-data-testnet');
    expect(openSource('lake:s3://my-lake?region=us-east-1&endpoint=http://127.0.0.1:4568').name).toBe(
      'lake:s3://my-lake (http://127.0.0.1:4568)',
    );
  });

  it('says what it accepts for anything else', () => {
    expect(() => openSource('devnet')).toThrow(/devnet is added by the DEX-indexing issue/);
    expect(() => openSource('rpc:mainnet')).toThrow(/unknown block source "rpc:mainnet": expected files:PATH/);
    expect(() => openSource('files:')).toThrow(/needs a path/);
    expect(() => openSource('neardata:')).toThrow(/expected neardata:mainnet/);
    expect(() => openSource('lake:https://bucket')).toThrow(/expected lake:mainnet/);
  });
});
