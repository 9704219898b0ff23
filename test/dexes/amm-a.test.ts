// AmmA (Ref `v2.ref-finance.near`) on the real fixture blocks. Every expected value below was
// read off the fixture JSON with python3 (base64-decoding the state-change values with a
// separate borsh reader written for the purpose, reading the logs and the call args), never
// produced by the code under test. The pre-swap reserves are post-swap state minus the logged
// swap (X = x' − a, Y = y' + out), computed in python as well.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Block, StateChange } from '../../near/block.ts';
import { BorshError, BorshReader } from '../../near/borsh.ts';
import { decodeAmmA } from '../../dexes/amm-a/decode.ts';
import type { AmmAEvent, AmmAPoolStateEvent, AmmASwapEvent } from '../../dexes/amm-a/events.ts';
import { simpleAmountOutQuoter, simpleGetAmountIn, simpleGetAmountOut, simpleSwap } from '../../dexes/amm-a/math.ts';
import { AmmAStateError, decodePool, decodeRates, encodePool, poolIdOfKey, type SimplePoolState } from '../../dexes/amm-a/state.ts';
import { FIXTURES_DIR, fixtureFiles, loadBlock } from '../harness/fixtures.ts';

const REF = 'v2.ref-finance.near';
const WNEAR = 'wrap.near';
const AURORA_BRIDGED = 'aaaaaa20d9e0e2461697782ef11675f668207961.factory.bridge.near';

const poolStates = (events: AmmAEvent[]) => events.filter((e): e is AmmAPoolStateEvent => e.kind === 'pool_state');
const swaps = (events: AmmAEvent[]) => events.filter((e): e is AmmASwapEvent => e.kind === 'swap');

function poolOf(events: AmmAEvent[], poolId: number): SimplePoolState {
  const e = poolStates(events).find((x) => x.poolId === poolId);
  if (e === undefined) throw new Error(`no pool_state for ${poolId}`);
  if (e.state.kind !== 'simple') throw new Error(`pool ${poolId} is ${e.state.kind}`);
  return e.state;
}

// ---------------------------------------------------------------------------------------------

describe('near/borsh', () => {
  it('reads little-endian integers, strings, vectors, options and bytes', () => {
    const bytes = Uint8Array.from([
      0x07, // u8
      0x01, 0x02, 0x03, 0x04, // u32 0x04030201
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // u64 max
      ...new Array<number>(15).fill(0), 0x80, // u128 2^127
      0x02, 0, 0, 0, 0x68, 0x69, // "hi"
      0x02, 0, 0, 0, 0x05, 0x06, // Vec<u8> [5, 6]
      0x00, // None
      0x01, 0x2a, // Some(42)
      0xaa, 0xbb, // fixed bytes
    ]);
    const r = new BorshReader(bytes);
    expect(r.u8()).toBe(7);
    expect(r.u32()).toBe(0x04030201);
    expect(r.u64()).toBe(2n ** 64n - 1n);
    expect(r.u128()).toBe(2n ** 127n);
    expect(r.string()).toBe('hi');
    expect(r.vec((x) => x.u8())).toEqual([5, 6]);
    expect(r.option((x) => x.u8())).toBeNull();
    expect(r.option((x) => x.u8())).toBe(42);
    expect(r.remaining).toBe(2);
    expect(() => r.done()).toThrow(/2 leftover byte/);
    expect([...r.fixedBytes(2)]).toEqual([0xaa, 0xbb]);
    r.done();
  });

  it('throws on short reads, bad option tags and absurd vector counts', () => {
    expect(() => new BorshReader(Uint8Array.from([1, 2, 3])).u32()).toThrow(BorshError);
    expect(() => new BorshReader(Uint8Array.from([2])).option((x) => x.u8())).toThrow(/invalid tag 2/);
    expect(() => new BorshReader(Uint8Array.from([0xff, 0xff, 0xff, 0xff])).vec((x) => x.u8())).toThrow(/exceeds/);
    expect(() => new BorshReader(Uint8Array.from([2, 0, 0, 0, 0xc3, 0x28])).string()).toThrow(/UTF-8/);
  });
});

// ---------------------------------------------------------------------------------------------

describe('AmmA simple-pool math', () => {
  it('exact in and exact out on small numbers', () => {
    // 1000·9970·2000 / (10000·1000 + 1000·9970) = 19 940 000 000 / 19 970 000 = 998.49… → 998
    expect(simpleGetAmountOut(1000n, 2000n, 1000n, 30)).toBe(998n);
    // 1000·998·10000 / ((2000−998)·9970) = 9 980 000 000 / 9 989 940 = 999.00… → 999, + 1
    expect(simpleGetAmountIn(1000n, 2000n, 998n, 30)).toBe(1000n);
    expect(simpleGetAmountOut(1000n, 2000n, 0n, 30)).toBe(0n);
    expect(simpleGetAmountIn(1000n, 2000n, 2000n, 30)).toBeNull();
    expect(simpleSwap(1000n, 2000n, 1000n, 30)).toEqual({ amountOut: 998n, reserveIn: 2000n, reserveOut: 1002n });
    expect(() => simpleGetAmountOut(1n, 1n, 1n, 10_001)).toThrow(RangeError);
  });

  it('a quoter for one pool direction gives the same outputs', () => {
    const quote = simpleAmountOutQuoter(1000n, 2000n, 30);
    // As above: 19 940 000 000 / 19 970 000 → 998. 500 in: 500·9970·2000 / (10 000 000 + 4 985 000)
    // = 9 970 000 000 / 14 985 000 = 665.33… → 665.
    expect([quote(1000n), quote(500n), quote(0n)]).toEqual([998n, 665n, 0n]);
    expect(() => quote(-1n)).toThrow(RangeError);
    expect(() => simpleAmountOutQuoter(1n, 1n, 10_001)).toThrow(RangeError);
  });
});

// ---------------------------------------------------------------------------------------------

describe('AmmA state decoding (synthetic values)', () => {
  it('decodes the stable-like layout (rated pool) and converts c-amounts to raw units', () => {
    const w = new Writer();
    w.u8(2); // RatedSwapPool
    w.vec(['usdt.tether-token.near', 'usdc.near'], (s) => w.string(s));
    w.vec([6, 18], (d) => w.u8(d));
    w.vec([1_234_567_000_000_000_000_000_000n, 5n * 10n ** 24n], (a) => w.u128(a));
    w.vec([[1n, 2n], [3n, 4n]] as const, ([i, o]) => (w.u128(i), w.u128(o)));
    w.u32(2); // total_fee
    w.vec([2, 0x53, 0x10, 0, 0], (b) => w.u8(b)); // shares prefix 02 ‖ u32le(4179)
    w.u128(777n);
    w.u128(240n);
    w.u128(1000n);
    w.u64(1_700_000_000_000_000_000n);
    w.u64(1_700_000_086_400_000_000n);
    const state = decodePool(4179, w.bytes());
    expect(state).toEqual({
      poolId: 4179,
      kind: 'rated',
      tokens: ['usdt.tether-token.near', 'usdc.near'],
      decimals: [6, 18],
      targetDecimals: 24,
      cAmounts: [1_234_567_000_000_000_000_000_000n, 5n * 10n ** 24n],
      amounts: [1_234_567n, 5n * 10n ** 18n],
      volumes: [
        { input: 1n, output: 2n },
        { input: 3n, output: 4n },
      ],
      totalFee: 2,
      sharesPrefixHex: '0253100000',
      sharesTotalSupply: 777n,
      initAmpFactor: 240n,
      targetAmpFactor: 1000n,
      initAmpTime: 1_700_000_000_000_000_000n,
      stopAmpTime: 1_700_000_086_400_000_000n,
    });
  });

  it('rejects unknown variants and leftover bytes', () => {
    expect(() => decodePool(1, Uint8Array.from([4]))).toThrow(/unknown Pool variant 4/);
    const w = new Writer();
    w.u8(0);
    w.vec(['a.near', 'b.near'], (s) => w.string(s));
    w.vec([1n, 2n], (a) => w.u128(a));
    w.vec([0n, 0n], (v) => (w.u128(v), w.u128(v)));
    w.u32(30).u32(0).u32(0);
    w.vec([2, 1, 0, 0, 0], (b) => w.u8(b));
    w.u128(10n);
    expect(decodePool(1, w.bytes()).kind).toBe('simple');
    w.u8(0);
    expect(() => decodePool(1, w.bytes())).toThrow(AmmAStateError);
    expect(() => decodePool(1, w.bytes())).toThrow(/1 leftover byte/);
  });

  it('decodes the custom_rate_key map', () => {
    const w = new Writer();
    w.u32(2);
    w.string('linear-protocol.near').u8(1).u128(1_100_000_000_000_000_000_000_000n).u64(5n).string('linear-protocol.near');
    w.string('sfrax.token').u8(3).u128(10n ** 24n).u64(6n).string('sfrax.token');
    w.u8(0).string('priceoracle.near').string('frax.token').u32(60).u32(120);
    const rates = decodeRates(w.bytes());
    expect([...rates.keys()]).toEqual(['linear-protocol.near', 'sfrax.token']);
    expect(rates.get('linear-protocol.near')).toEqual({
      kind: 'linear',
      storedRates: 1_100_000_000_000_000_000_000_000n,
      ratesUpdatedAt: 5n,
      contractId: 'linear-protocol.near',
      extraInfo: null,
    });
    expect(rates.get('sfrax.token')?.extraInfo).toEqual({
      kind: 'price_oracle',
      oracleId: 'priceoracle.near',
      baseContractId: 'frax.token',
      maximumRecencyDurationSec: 60,
      maximumStalenessDurationSec: 120,
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('AmmA on real blocks', () => {
  // Pool keys `00 ‖ u64le(id)` written by v2.ref-finance.near (data_update), per fixture, in
  // block order, counted with python over every fixture file (no key is written twice in one
  // block, and no fixture deletes a pool key). Every other fixture has none.
  const POOL_WRITES: Record<string, number[]> = {
    'mainnet/55905793.json': [1923, 2043],
    'mainnet/81206675.json': [3667, 1395],
    'mainnet/151768255.json': [4369],
  };

  const allFixtures = (): string[] => {
    const files = [...fixtureFiles('mainnet'), ...fixtureFiles('testnet')];
    for (const d of readdirSync(`${FIXTURES_DIR}/localnet/lake-layout`)) files.push(`localnet/lake-layout/${d}`);
    return files.sort();
  };

  it('every Ref pool write in every fixture decodes with 0 leftover bytes, and only those', () => {
    const files = allFixtures();
    expect(files.length).toBe(33);
    let decoded = 0;
    for (const rel of files) {
      const events = decodeAmmA(loadBlock(rel)); // decodePool throws on leftover bytes
      const ids = poolStates(events).map((e) => e.poolId);
      expect(ids, rel).toEqual(POOL_WRITES[rel] ?? []);
      expect(events.filter((e) => e.kind === 'pool_deleted' || e.kind === 'rates'), rel).toEqual([]);
      // Every line a successful Ref receipt logs is a known format (Swapped, Liquidity added, and the ignored
      // `Exchange ... got ... shares, No referral fee`).
      expect(events.filter((e) => e.kind === 'undecoded'), rel).toEqual([]);
      decoded += ids.length;
    }
    expect(decoded).toBe(5);
  });

  it('81206675 with one byte appended to pool 3667: one undecoded state event for that pool, no throw, the rest decodes', () => {
    // The real 174-byte value of pool 3667 (key 00 ‖ u64le(3667)) plus one byte, as another contract version could
    // write it. state.ts stays strict: the pool is reported (and goes stale), never guessed.
    const block = structuredClone(loadBlock('mainnet/81206675.json'));
    const write = block.shards.flatMap((s) => s.stateChanges).find((c) => c.change.accountId === REF && c.change.keyBase64 === poolKey(3667));
    if (write === undefined) throw new Error('no write of pool 3667');
    const value = Buffer.concat([Buffer.from(write.change.valueBase64 ?? '', 'base64'), Buffer.from([7])]).toString('base64');
    write.change.valueBase64 = value;
    let events: AmmAEvent[] = [];
    expect(() => (events = decodeAmmA(block))).not.toThrow();
    const undecoded = events.filter((e) => e.kind === 'undecoded');
    expect(undecoded).toEqual([
      expect.objectContaining({ kind: 'undecoded', dex: 'AmmA', input: 'state', contractId: REF, poolId: '3667', receiptId: '9DiG8Qe8xW5HgHfA5yaaWCjctKHcwQSwfpVAVLivNUPw', raw: `${poolKey(3667)}=${value}` }),
    ]);
    expect(undecoded[0]?.kind === 'undecoded' && undecoded[0].reason).toContain('1 leftover byte(s) after offset 174 of 175');
    expect(poolStates(events).map((e) => e.poolId)).toEqual([1395]);
    expect(swaps(events).map((e) => e.poolId)).toEqual([3667, 1395]);
  });

  it('a Liquidity added log of a successful add_liquidity gives one liquidity event with the logged amounts (55905793)', () => {
    // Read from the block: receipt GFmb4d... by longpan01.near, add_liquidity {"pool_id":1923, "amounts":[...]}, logging
    // Liquidity added ["381902308559901398150027 meta-pool.near", "110875331640962543036579778 meta-token.near"],
    // minted 484193404164709297001 shares (the amounts actually added, below the ones asked).
    const liquidity = decodeAmmA(loadBlock('mainnet/55905793.json')).filter((e) => e.kind === 'liquidity');
    expect(liquidity).toEqual([
      expect.objectContaining({
        receiptId: 'GFmb4dQFMjTzPGBn49UfRrtttYJP3UurauSVjAGTtjfR',
        kind: 'liquidity',
        dex: 'AmmA',
        poolId: 1923,
        provider: 'longpan01.near',
        action: 'add',
        tokens: ['meta-pool.near', 'meta-token.near'],
        amounts: [381902308559901398150027n, 110875331640962543036579778n],
        shares: 484193404164709297001n,
      }),
    ]);
  });

  it('encodePool gives back, byte for byte, every real pool value it decoded (the devnet writes with it)', () => {
    let checked = 0;
    for (const rel of allFixtures()) {
      for (const shard of loadBlock(rel).shards) {
        for (const sc of shard.stateChanges) {
          const key = sc.change.keyBase64 === undefined ? null : poolIdOfKey(Buffer.from(sc.change.keyBase64, 'base64'));
          if (sc.type !== 'data_update' || sc.change.accountId !== REF || key === null) continue;
          const value = Buffer.from(sc.change.valueBase64 ?? '', 'base64');
          expect(Buffer.from(encodePool(decodePool(key, value))).toString('hex'), `${rel} pool ${key}`).toBe(value.toString('hex'));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(5);
  });

  it('55905793: pools 1923 (add_liquidity, no swap) and 2043 (swap)', () => {
    const events = decodeAmmA(loadBlock('mainnet/55905793.json'));
    expect(poolOf(events, 1923)).toEqual({
      poolId: 1923,
      kind: 'simple',
      tokens: ['meta-pool.near', 'meta-token.near'],
      amounts: [49704632411177514105395956001n, 14430438044385477058156216213991n],
      volumes: [
        { input: 21381522063032262584014730626n, output: 4868875915749905896175454315964n },
        { input: 6876353865983407721700066188414n, output: 29460941731719816632173181251n },
      ],
      totalFee: 30,
      exchangeFee: 0,
      referralFee: 0,
      sharesPrefixHex: '0283070000',
      sharesTotalSupply: 63017831080088187199340510n,
    });
    expect(poolOf(events, 2043)).toEqual({
      poolId: 2043,
      kind: 'simple',
      tokens: ['v3.oin_finance.near', WNEAR],
      amounts: [21973950435792n, 13588597040350709834693976356n],
      volumes: [
        { input: 10284459536996n, output: 7827520737042143874338357042n },
        { input: 6194416162736563358134667094n, output: 7905024224907n },
      ],
      totalFee: 30,
      exchangeFee: 0,
      referralFee: 0,
      sharesPrefixHex: '02fb070000',
      sharesTotalSupply: 1903226053568575575585808447n,
    });
    const states = poolStates(events);
    expect(states.map((e) => [e.receiptId, e.index, e.txHash, e.blockHeight, e.timestampMs])).toEqual([
      // Each receipt's log-derived events come first: GFmb4d's liquidity event is its index 0.
      ['GFmb4dQFMjTzPGBn49UfRrtttYJP3UurauSVjAGTtjfR', 1, null, 55905793, 1640371535003],
      ['BKAFrhXEWKRxbsw8sfNDwXp3kiaHuTVjn4dohHaXGmHe', 1, null, 55905793, 1640371535003],
    ]);
    // The `swap` call on deposited funds: pool from its args, trader = predecessor.
    expect(swaps(events)).toEqual([
      {
        blockHeight: 55905793,
        timestampMs: 1640371535003,
        receiptId: 'BKAFrhXEWKRxbsw8sfNDwXp3kiaHuTVjn4dohHaXGmHe',
        txHash: null,
        index: 0,
        kind: 'swap',
        dex: 'AmmA',
        contractId: REF,
        poolId: 2043,
        trader: 'dogwater.near',
        tokenIn: 'v3.oin_finance.near',
        tokenOut: WNEAR,
        amountIn: 15000000000n,
        amountOut: 9254425403101710706083291n,
        totalFee: null,
        adminFee: null,
      },
    ]);
  });

  it('81206675: a two-hop instant swap (ft_on_transfer) over pools 3667 and 1395', () => {
    const events = decodeAmmA(loadBlock('mainnet/81206675.json'));
    const rid = '9DiG8Qe8xW5HgHfA5yaaWCjctKHcwQSwfpVAVLivNUPw';
    const p3667 = poolOf(events, 3667);
    expect(p3667).toMatchObject({
      kind: 'simple',
      tokens: ['token.sweat', WNEAR],
      amounts: [12568907434238208449941889n, 97222238419512229858555529477n],
      totalFee: 30,
      exchangeFee: 0,
      referralFee: 0,
      sharesPrefixHex: '02530e0000',
      sharesTotalSupply: 2313819655351126675145596n,
    });
    // An old pool still carrying the pre-1.4 exchange/referral fee copies.
    const p1395 = poolOf(events, 1395);
    expect(p1395).toMatchObject({
      kind: 'simple',
      tokens: [AURORA_BRIDGED, WNEAR],
      amounts: [447385027392978180872315n, 75005307895944062225816853815n],
      volumes: [
        { input: 7173967559424232909793577n, output: 4364269511994129433419537792991n },
        { input: 4284588302081041289768055398620n, output: 6893934862986944400125814n },
      ],
      totalFee: 30,
      exchangeFee: 4,
      referralFee: 1,
      sharesPrefixHex: '0273050000',
      sharesTotalSupply: 6424870713030190080365692n,
    });
    const hop = { blockHeight: 81206675, timestampMs: 1671700817014, receiptId: rid, txHash: null };
    const common = { kind: 'swap', dex: 'AmmA', contractId: REF, trader: 'geal.near', totalFee: null, adminFee: null };
    expect(swaps(events)).toEqual([
      {
        ...hop,
        ...common,
        index: 0,
        poolId: 3667,
        tokenIn: 'token.sweat',
        tokenOut: WNEAR,
        amountIn: 27070000000000000000n,
        amountOut: 208762475255939868571059n,
      },
      {
        ...hop,
        ...common,
        index: 1,
        poolId: 1395,
        tokenIn: WNEAR,
        tokenOut: AURORA_BRIDGED,
        amountIn: 208762475255939868571059n,
        amountOut: 1241475781908817737n,
      },
    ]);
    // Swaps first (log order), then the pool writes of the same receipt.
    expect(poolStates(events).map((e) => [e.receiptId, e.index])).toEqual([
      [rid, 2],
      [rid, 3],
    ]);
  });

  it('151768255: pool 4369 and its swap, with the outcome tx hash', () => {
    const events = decodeAmmA(loadBlock('mainnet/151768255.json'));
    expect(poolOf(events, 4369)).toEqual({
      poolId: 4369,
      kind: 'simple',
      tokens: ['token.0xshitzu.near', WNEAR],
      amounts: [19416292150379850456052879n, 14378238147316167828468891077n],
      volumes: [
        { input: 840519074445879864107025410n, output: 423712880627958661425112283331n },
        { input: 431121400835707604501069825208n, output: 851407256689112607542333416n },
      ],
      totalFee: 30,
      exchangeFee: 0,
      referralFee: 0,
      sharesPrefixHex: '0211110000',
      sharesTotalSupply: 36995601316622469993193918n,
    });
    expect(swaps(events)).toEqual([
      {
        blockHeight: 151768255,
        timestampMs: 1750330952547,
        receiptId: 'FwuVhcMer1KRrhddpnhpHbKrcbHWfHS74QZ1SXAn73rY',
        txHash: '6q9JeiRCTv6gGe4JkuLm3284pTvRPCkswyacHEZraUSx',
        index: 0,
        kind: 'swap',
        dex: 'AmmA',
        contractId: REF,
        poolId: 4369,
        trader: 'e85358fb85135abffb03d94b0df2380310e1d7c9601c7b0c308c28e61017b1e0',
        tokenIn: 'token.0xshitzu.near',
        tokenOut: WNEAR,
        amountIn: 869362846900140300000n,
        amountOut: 641881789924959952116119n,
        totalFee: null,
        adminFee: null,
      },
    ]);
  });

  it('114081912: the Swapped log of a FAILED receipt (rated pool 4179) gives nothing', () => {
    const block = loadBlock('mainnet/114081912.json');
    const failed = block.shards
      .flatMap((s) => s.receiptOutcomes)
      .find((o) => o.receiptId === '55z5pcTBqutgfYVauduq4FtLUG8V1KVekBLSoDzZZex4');
    expect(failed?.status.kind).toBe('Failure');
    expect(failed?.logs[0]).toMatch(/^Swapped 1117981 usdt\.tether-token\.near for 1118110 .*, total fee 223, admin fee 44$/);
    expect(decodeAmmA(block)).toEqual([]);
  });

  it('the same log as a success parses the stable-pool fee suffix and matches pool 4179', () => {
    const block = structuredClone(loadBlock('mainnet/114081912.json'));
    const outcome = block.shards
      .flatMap((s) => s.receiptOutcomes)
      .find((o) => o.receiptId === '55z5pcTBqutgfYVauduq4FtLUG8V1KVekBLSoDzZZex4');
    if (outcome === undefined) throw new Error('receipt not found');
    outcome.status = { kind: 'SuccessValue', value: '' };
    // Only the first of the two actions ran before the panic: one line for two swap actions is no exact match.
    const [swap] = swaps(decodeAmmA(block));
    expect(swap).toMatchObject({
      poolId: null,
      trader: 'fuspring.tg',
      tokenIn: 'usdt.tether-token.near',
      tokenOut: '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1',
      amountIn: 1117981n,
      amountOut: 1118110n,
      totalFee: 223n,
      adminFee: 44n,
    });
  });

  describe('simple-pool math reproduces every logged swap to the unit', () => {
    // [block, pool, in index, amount in, amount out, pre X, pre Y]; X, Y computed in python.
    const CASES: Array<[string, number, 0 | 1, bigint, bigint, bigint, bigint]> = [
      ['mainnet/55905793.json', 2043, 0, 15000000000n, 9254425403101710706083291n, 21958950435792n, 13597851465753811545400059647n],
      ['mainnet/81206675.json', 3667, 0, 27070000000000000000n, 208762475255939868571059n, 12568880364238208449941889n, 97222447181987485798424100536n],
      ['mainnet/81206675.json', 1395, 1, 208762475255939868571059n, 1241475781908817737n, 75005099133468806285948282756n, 447386268868760089690052n],
      ['mainnet/151768255.json', 4369, 0, 869362846900140300000n, 641881789924959952116119n, 19415422787532950315752879n, 14378880029106092788421007196n],
    ];
    for (const [rel, poolId, inIdx, a, out, preX, preY] of CASES) {
      it(`${rel} pool ${poolId}`, () => {
        const events = decodeAmmA(loadBlock(rel));
        const pool = poolOf(events, poolId);
        const hop = swaps(events).find((s) => s.poolId === poolId);
        expect(hop).toMatchObject({ amountIn: a, amountOut: out });
        const outIdx = 1 - inIdx;
        const x = (pool.amounts[inIdx] as bigint) - a;
        const y = (pool.amounts[outIdx] as bigint) + out;
        expect([x, y]).toEqual([preX, preY]);
        expect(simpleGetAmountOut(x, y, a, pool.totalFee)).toBe(out);
        // Exact out: the least input that yields `out` (python: equal to a, or 1395's 208762475255939868509897).
        const need = simpleGetAmountIn(x, y, out, pool.totalFee);
        if (need === null) throw new Error('no exact-out quote');
        expect(need <= a).toBe(true);
        expect(simpleGetAmountOut(x, y, need, pool.totalFee) >= out).toBe(true);
        expect(simpleGetAmountOut(x, y, need - 1n, pool.totalFee) < out).toBe(true);
        expect(need).toBe(poolId === 1395 ? 208762475255939868509897n : a);
      });
    }
  });

  describe('storage-write rules (real values, synthetic blocks)', () => {
    const realWrite = (rel: string, poolId: number): StateChange => {
      const sc = loadBlock(rel)
        .shards.flatMap((s) => s.stateChanges)
        .find((c) => c.change.accountId === REF && c.change.keyBase64 === poolKey(poolId));
      if (sc === undefined) throw new Error(`no write of pool ${poolId}`);
      return sc;
    };
    const blockWith = (changes: StateChange[]): Block => ({
      height: 1,
      hash: 'h',
      prevHash: 'p',
      author: 'a',
      timestampNs: 1_000_000n,
      timestampMs: 1,
      shards: [{ shardId: 0, chunk: null, receiptOutcomes: [], stateChanges: changes }],
    });
    const rewrite = (sc: StateChange, key: string, receiptHash: string): StateChange => ({
      type: sc.type,
      cause: { type: 'receipt_processing', receiptHash, txHash: null },
      change: { ...sc.change, keyBase64: key },
    });

    it('the last write of a key in the block wins', () => {
      const first = rewrite(realWrite('mainnet/55905793.json', 1923), poolKey(7), 'r1');
      const last = rewrite(realWrite('mainnet/55905793.json', 2043), poolKey(7), 'r2');
      const events = decodeAmmA(blockWith([first, last]));
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ kind: 'pool_state', poolId: 7, receiptId: 'r2', index: 0 });
      expect(poolOf(events, 7).tokens).toEqual(['v3.oin_finance.near', WNEAR]);
    });

    it('a deletion as the last change reports pool_deleted; other accounts and keys are ignored', () => {
      const write = rewrite(realWrite('mainnet/55905793.json', 1923), poolKey(7), 'r1');
      const deletion: StateChange = {
        type: 'data_deletion',
        cause: { type: 'receipt_processing', receiptHash: 'r2', txHash: null },
        change: { accountId: REF, keyBase64: poolKey(7) },
      };
      const elsewhere: StateChange = { ...write, change: { ...write.change, accountId: 'other.near' } };
      const events = decodeAmmA(blockWith([write, deletion, elsewhere]));
      expect(events.map((e) => [e.kind, e.receiptId])).toEqual([['pool_deleted', 'r2']]);
    });
  });
});

// ---- helpers ----

function poolKey(poolId: number): string {
  const key = Buffer.alloc(9);
  key.writeBigUInt64LE(BigInt(poolId), 1);
  return key.toString('base64');
}

/** A minimal borsh writer, for synthetic values only. */
class Writer {
  private readonly parts: number[] = [];
  u8(v: number): this {
    this.parts.push(v & 0xff);
    return this;
  }
  u32(v: number): this {
    for (let i = 0; i < 4; i++) this.parts.push((v >>> (8 * i)) & 0xff);
    return this;
  }
  uint(v: bigint, size: number): this {
    for (let i = 0; i < size; i++) this.parts.push(Number((v >> BigInt(8 * i)) & 0xffn));
    return this;
  }
  u64(v: bigint): this {
    return this.uint(v, 8);
  }
  u128(v: bigint): this {
    return this.uint(v, 16);
  }
  string(s: string): this {
    const b = Buffer.from(s, 'utf8');
    this.u32(b.length);
    for (const x of b) this.parts.push(x);
    return this;
  }
  vec<T>(items: readonly T[], write: (item: T) => unknown): this {
    this.u32(items.length);
    for (const item of items) write(item);
    return this;
  }
  bytes(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}
