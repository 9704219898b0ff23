import { describe, it, expect } from 'vitest';
import {
  formatTokenId,
  isEthImplicitAccountId,
  isImplicitAccountId,
  isValidAccountId,
  parseTokenId,
} from '../../near/token-id.ts';
import { findKnownToken, KNOWN_MAINNET_TOKENS } from '../../near/known-tokens.ts';
import { parseU128, parseUint, U128_MAX } from '../../near/units.ts';

const IMPLICIT = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';
const ETH = '0x2260fac5e5542a773aa44fbcfedf7c193bc2c599';

describe('isValidAccountId', () => {
  it.each([
    'near',
    'aa',
    'wrap.near',
    'v2.ref-finance.near',
    'token.v2.ref-finance.near',
    'a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48.factory.bridge.near',
    'user_21_hot.tg',
    'lolbgtdah-hot.tg',
    '0-relay.hot.tg',
    IMPLICIT,
    ETH,
    'a'.repeat(64),
  ])('accepts %s', (id) => {
    expect(isValidAccountId(id)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['too short', 'a'],
    ['too long', 'a'.repeat(65)],
    ['uppercase', 'Wrap.near'],
    ['uppercase hex implicit', IMPLICIT.toUpperCase()],
    ['double dot', 'a..near'],
    ['double separator', 'a--b.near'],
    ['mixed separators', 'a-_b.near'],
    ['leading separator', '-a.near'],
    ['trailing separator', 'a.near-'],
    ['leading dot', '.near'],
    ['trailing dot', 'near.'],
    ['separator next to dot', 'a-.near'],
    ['space', 'a near'],
    ['other char', 'a@near'],
    ['non-ascii', 'ñear.near'],
  ])('rejects %s', (_why, id) => {
    expect(isValidAccountId(id)).toBe(false);
  });

  it('tells implicit and ETH-implicit ids', () => {
    expect(isImplicitAccountId(IMPLICIT)).toBe(true);
    expect(isImplicitAccountId(IMPLICIT.slice(1))).toBe(false);
    expect(isImplicitAccountId('wrap.near')).toBe(false);
    expect(isEthImplicitAccountId(ETH)).toBe(true);
    expect(isEthImplicitAccountId(`${ETH}0`)).toBe(false);
    expect(isEthImplicitAccountId(ETH.toUpperCase().replace('0X', '0x'))).toBe(false);
  });
});

describe('parseTokenId / formatTokenId', () => {
  it('parses the four forms', () => {
    expect(parseTokenId('near')).toEqual({ kind: 'near' });
    expect(parseTokenId('wrap.near')).toEqual({ kind: 'nep141', contractId: 'wrap.near' });
    expect(parseTokenId('nep141:wrap.near')).toEqual({ kind: 'nep141', contractId: 'wrap.near' });
    expect(parseTokenId(`nep141:${IMPLICIT}`)).toEqual({ kind: 'nep141', contractId: IMPLICIT });
    expect(parseTokenId('inner-nep141:usdt.tether-token.near')).toEqual({
      kind: 'inner-nep141',
      contractId: 'usdt.tether-token.near',
    });
    expect(parseTokenId('nep141:near')).toEqual({ kind: 'nep141', contractId: 'near' });
  });

  it.each(['', 'NEAR', 'Wrap.near', 'nep141:', 'nep141:Wrap.near', 'inner-nep141:', 'inner-nep141:a', 'nep171:x.near', 'nep141:nep141:wrap.near', ' wrap.near'])(
    'rejects %j',
    (text) => {
      expect(parseTokenId(text)).toBeNull();
    },
  );

  it('formats the canonical form and round-trips', () => {
    expect(formatTokenId({ kind: 'near' })).toBe('near');
    expect(formatTokenId({ kind: 'nep141', contractId: 'wrap.near' })).toBe('nep141:wrap.near');
    expect(formatTokenId({ kind: 'inner-nep141', contractId: 'wrap.near' })).toBe('inner-nep141:wrap.near');
    for (const text of ['near', 'nep141:aurora', 'inner-nep141:token.v2.ref-finance.near']) {
      expect(formatTokenId(parseTokenId(text)!)).toBe(text);
    }
    expect(formatTokenId(parseTokenId('aurora')!)).toBe('nep141:aurora');
  });
});

describe('units', () => {
  it('parses u128 decimal strings only', () => {
    expect(parseU128('0')).toBe(0n);
    expect(parseU128('340282366920938463463374607431768211455')).toBe(U128_MAX);
    expect(parseU128('340282366920938463463374607431768211456')).toBeNull();
    for (const bad of ['', ' 1', '1 ', '-1', '0x10', '1e3', '1.5', 12]) expect(parseU128(bad)).toBeNull();
    expect(parseUint(300000000000000)).toBe(300000000000000n);
    expect(parseUint(2 ** 60)).toBeNull();
    expect(parseUint(-1)).toBeNull();
  });
});

describe('known tokens', () => {
  it('has the required tokens with their decimals, each once, with valid ids', () => {
    const expected: [string, string, number][] = [
      ['wrap.near', 'wNEAR', 24],
      ['usdt.tether-token.near', 'USDt', 6],
      [IMPLICIT, 'USDC', 6],
      ['a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48.factory.bridge.near', 'USDC.e', 6],
      ['dac17f958d2ee523a2206206994597c13d831ec7.factory.bridge.near', 'USDT.e', 6],
      ['meta-pool.near', 'STNEAR', 24],
      ['linear-protocol.near', 'LINEAR', 24],
      ['token.v2.ref-finance.near', 'REF', 18],
      ['token.rhealab.near', 'RHEA', 18],
      ['xtoken.rhealab.near', 'xRHEA', 18],
      ['lst.rhealab.near', 'rNEAR', 24],
      ['aurora', 'ETH', 18],
      ['token.sweat', 'SWEAT', 18],
      ['6b175474e89094c44da98b954eedeac495271d0f.factory.bridge.near', 'DAI', 18],
      ['2260fac5e5542a773aa44fbcfedf7c193bc2c599.factory.bridge.near', 'WBTC', 8],
    ];
    for (const [contractId, symbol, decimals] of expected) {
      expect(findKnownToken(contractId), contractId).toMatchObject({ contractId, symbol, decimals });
    }
    const ids = KNOWN_MAINNET_TOKENS.map((t) => t.contractId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every(isValidAccountId)).toBe(true);
    expect(findKnownToken('nope.near')).toBeUndefined();
  });
});
