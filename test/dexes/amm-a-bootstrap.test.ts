// AmmA's bootstrap (dexes/amm-a/bootstrap.ts) against real local NEAR JSON-RPC servers (devnet/rpc.ts, nearcore's
// shapes): first small nodes of our own whose answers are written here by hand in the contract's shapes
// (ref-contracts @ 1800d26 : ref-exchange/src/views.rs, and the borsh layouts of state.ts), through the storage path
// (view_state served) and the views path (view_state refused, as mainnet's Ref). Bootstrapping from Ref's own code
// (its views and storage on the realnet, every release) and indexing on is test/devnet/realnet-bootstrap.test.ts.
import { afterAll, describe, expect, it } from 'vitest';
import { APPROXIMATE_AMP, ammABootstrap } from '../../dexes/amm-a/bootstrap.ts';
import { ammA } from '../../dexes/amm-a/index.ts';
import { MAINNET_CONTRACTS } from '../../dexes/contracts.ts';
import { PoolsImportError, type BootstrapState } from '../../dexes/dex.ts';
import { startNearRpc, type NearRpcServer, type RpcBlock, type RpcChain, type RpcViewAnswer } from '../../devnet/rpc.ts';
import { bootstrap, rpcChainAt } from '../../indexer/bootstrap.ts';
import { blockHeader } from '../../indexer/near-rpc.ts';
import { createMigratedDb } from '../harness/db.ts';

const REF = MAINNET_CONTRACTS.AmmA;
const HEIGHT = 150_000_000;
const WNEAR = 'wrap.near';
const AURORA = 'aaaaaa20d9e0e2461697782ef11675f668207961.factory.bridge.near';
const USDT = 'usdt.tether-token.near';
const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';

// ---- bytes by hand (little-endian borsh, written here without the code under test) ----

const hex = (...parts: string[]) => Buffer.from(parts.join(''), 'hex');
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u64 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
};
const u128 = (n: bigint) => Buffer.concat([u64(n & 0xffff_ffff_ffff_ffffn), u64(n >> 64n)]);
const str = (s: string) => Buffer.concat([u32(Buffer.byteLength(s)), Buffer.from(s)]);
const b64 = (b: Buffer) => b.toString('base64');
const poolKey = (id: number) => b64(Buffer.concat([hex('00'), u64(BigInt(id))]));

/** Pool 1395's value as block 81206675 wrote it (test/fixtures/blocks/mainnet/81206675.json): a simple pool still
 * carrying the pre-1.4 exchange/referral fee copies. */
const POOL_1395 =
  'AAIAAAA8AAAAYWFhYWFhMjBkOWUwZTI0NjE2OTc3ODJlZjExNjc1ZjY2ODIwNzk2MS5mYWN0b3J5LmJyaWRnZS5uZWFyCQAAAHdyYXAubmVhcgIAAAB7mJM0c4J6yrxeAAAAAAAAN50p/XOws2/A71ryAAAAAAIAAAApaTFdNKOHjyXvBQAAAAAA3z9Fwn5+etDWILcVNwAAANzgMAkgLLgcUmBAFDYAAAB277zLTX4w9dizBQAAAAAAHgAAAAQAAAABAAAABQAAAAJzBQAAfJS2dgO1cvCEUAUAAAAAAA==';
/** Pool 3667's value, same block. */
const POOL_3667 =
  'AAIAAAALAAAAdG9rZW4uc3dlYXQJAAAAd3JhcC5uZWFyAgAAAIGR2yAFMlnWkWUKAAAAAAAFCfkhfbG8aslZJDoBAAAAAgAAAPx4hNe+2Ey25FWwAAAAAAAFM3BcFzLiTMGBzfoWAAAA+GKAdt5bWK2rYDa9FgAAANgrfBo3qdceUyCwAAAAAAAeAAAAAAAAAAAAAAAFAAAAAlMOAAB8wyud6dczavjpAQAAAAAA';
// Decoded with python off the fixture (test/dexes/amm-a.test.ts asserts the same values from the block).
const STATE_1395 = {
  poolId: 1395,
  kind: 'simple',
  tokens: [AURORA, WNEAR],
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
};
const STATE_3667 = {
  poolId: 3667,
  kind: 'simple',
  tokens: ['token.sweat', WNEAR],
  amounts: [12568907434238208449941889n, 97222238419512229858555529477n],
  volumes: [
    { input: 213176564396979987673282812n, output: 1820639270313210635197688591109n },
    { input: 1801577980678375261690199565048n, output: 212923593281815676551179224n },
  ],
  totalFee: 30,
  exchangeFee: 0,
  referralFee: 0,
  sharesPrefixHex: '02530e0000',
  sharesTotalSupply: 2313819655351126675145596n,
};

/** A StableSwapPool (variant 1) of USDt/USDC at id 1, mid-ramp: amp 100 -> 200 over a day. */
const STABLE_1 = b64(
  Buffer.concat([
    hex('01'),
    u32(2), str(USDT), str(USDC),
    u32(2), hex('06', '06'), // decimals
    u32(2), u128(2_000_000n * 10n ** 18n), u128(3_000_000n * 10n ** 18n), // c_amounts (18 decimals)
    u32(2), u128(5n), u128(6n), u128(7n), u128(8n), // volumes
    u32(4), // total_fee
    u32(5), hex('0201000000'), // shares prefix 02 ‖ u32le(1)
    u128(4_999_000n * 10n ** 18n), // shares_total_supply
    u128(100n), u128(200n), u64(1_700_000_000_000_000_000n), u64(1_700_086_400_000_000_000n),
  ]),
);
const STATE_STABLE_1 = {
  poolId: 1,
  kind: 'stable',
  tokens: [USDT, USDC],
  amounts: [2_000_000_000_000n, 3_000_000_000_000n],
  volumes: [
    { input: 5n, output: 6n },
    { input: 7n, output: 8n },
  ],
  totalFee: 4,
  sharesPrefixHex: '0201000000',
  sharesTotalSupply: 4_999_000n * 10n ** 18n,
  decimals: [6, 6],
  targetDecimals: 18,
  cAmounts: [2_000_000n * 10n ** 18n, 3_000_000n * 10n ** 18n],
  initAmpFactor: 100n,
  targetAmpFactor: 200n,
  initAmpTime: 1_700_000_000_000_000_000n,
  stopAmpTime: 1_700_086_400_000_000_000n,
};

const PYTH_BASE = 'e62df6c8b4a85fe1a67db44dc12de5db330f7ac66b72dc658afedf0f4a415b43';
const PYTH_RATE = 'c3d5d8d6d17081b3d0bbca6e2fa3a6704bb9a9561d9f9e1dc52db47629f862ad';
/** `custom_rate_key`: HashMap<String, Rate>, borsh-sorted by key: LiNEAR (Rate::Linear), stNEAR (Rate::Stnear), and
 * an sfrax-kind token on a Pyth oracle (Rate::Sfrax, SfraxExtraInfo::PythOracle). */
const RATES = b64(
  Buffer.concat([
    u32(3),
    str('linear-protocol.near'), hex('01'), u128(1_250_000_000_000_000_000_000_000n), u64(1_749_000_000_000_000_000n), str('linear-protocol.near'),
    str('meta-pool.near'), hex('00'), u128(1_300_000_000_000_000_000_000_000n), u64(1_749_000_100_000_000_000n), str('meta-pool.near'),
    str('sfrax.near'), hex('03'), u128(1_100_000_000_000_000_000_000_000n), u64(1_749_000_200_000_000_000n), str('sfrax.near'),
    hex('01'), str('pyth-oracle.near'), hex(PYTH_BASE), hex(PYTH_RATE), u32(60),
  ]),
);
const RATES_EVENT = {
  kind: 'rates',
  dex: 'AmmA',
  contractId: REF,
  rates: [
    { tokenId: 'linear-protocol.near', kind: 'linear', storedRates: 1_250_000_000_000_000_000_000_000n, ratesUpdatedAt: 1_749_000_000_000_000_000n, contractId: 'linear-protocol.near', extraInfo: null },
    { tokenId: 'meta-pool.near', kind: 'stnear', storedRates: 1_300_000_000_000_000_000_000_000n, ratesUpdatedAt: 1_749_000_100_000_000_000n, contractId: 'meta-pool.near', extraInfo: null },
    {
      tokenId: 'sfrax.near',
      kind: 'sfrax',
      storedRates: 1_100_000_000_000_000_000_000_000n,
      ratesUpdatedAt: 1_749_000_200_000_000_000n,
      contractId: 'sfrax.near',
      extraInfo: { kind: 'pyth_oracle', oracleId: 'pyth-oracle.near', basePriceIdentifierHex: PYTH_BASE, ratePriceIdentifierHex: PYTH_RATE, pythPriceValidDurationSec: 60 },
    },
  ],
};

// ---- a node of our own ----

interface Node {
  chain: RpcChain;
  asked: string[];
}

/** A node at HEIGHT answering Ref's views from `views` (method -> args -> answer) and its storage from `storage`
 * (base64 key -> base64 value), or refusing it as too large (null). */
function node(views: (method: string, args: Record<string, unknown>) => RpcViewAnswer | undefined, storage: Map<string, string> | null): Node {
  const asked: string[] = [];
  const block: RpcBlock = { height: HEIGHT, hash: 'BlockHash1111111111111111111111111111111111', prevHash: 'PrevHash11111111111111111111111111111111111', timestampNs: 1_749_100_000_000_000_000n };
  return {
    asked,
    chain: {
      chainId: 'test',
      final: () => block,
      block: (height) => (height === HEIGHT ? block : null),
      view(_height, contractId, method, args) {
        if (contractId !== REF) return null;
        asked.push(`${method} ${JSON.stringify(args)}`);
        return views(method, args as Record<string, unknown>) ?? { vmError: 'MethodResolveError(MethodNotFound)' };
      },
      storage(_height, contractId, prefix) {
        if (contractId !== REF) return null;
        asked.push(`view_state ${prefix}`);
        if (storage === null) return 'too_large';
        const p = Buffer.from(prefix, 'base64');
        return [...storage]
          .filter(([k]) => Buffer.from(k, 'base64').subarray(0, p.length).equals(p))
          .sort(([a], [b]) => Buffer.compare(Buffer.from(a, 'base64'), Buffer.from(b, 'base64')))
          .map(([key, value]) => ({ key, value }));
      },
    },
  };
}

const servers: NearRpcServer[] = [];
afterAll(async () => Promise.all(servers.map((s) => s.close())));

/** AmmA's bootstrap read through the real JSON-RPC client against `n`. */
async function read(n: Node): Promise<BootstrapState> {
  const server = await startNearRpc(n.chain);
  servers.push(server);
  return ammABootstrap.read(rpcChainAt(server.url, await blockHeader(server.url, HEIGHT), MAINNET_CONTRACTS));
}

async function readFails(n: Node): Promise<string> {
  try {
    await read(n);
  } catch (error) {
    expect(error).toBeInstanceOf(PoolsImportError);
    return (error as Error).message;
  }
  throw new Error('the read succeeded');
}

const count = (n: number | string) => (method: string): RpcViewAnswer | undefined => (method === 'get_number_of_pools' ? { value: n } : undefined);
const poolEvent = (state: { poolId: number } & Record<string, unknown>, source: 'storage' | 'rpc') => ({ kind: 'pool_state', dex: 'AmmA', contractId: REF, poolId: state.poolId, state, source });

describe('AmmA bootstrap from storage (view_state served)', () => {
  it('decodes every pool value and the rates as the indexer does; an unreadable value is counted, not guessed', async () => {
    // Pool 0 holds pool 1395's real value (its shares prefix says 1395: the value is taken as stored), 1 the stable
    // pool, 2 a variant no contract version has (tag 4).
    const storage = new Map([
      [poolKey(0), POOL_1395],
      [poolKey(1), STABLE_1],
      [poolKey(2), b64(hex('04'))],
      [b64(Buffer.from('custom_rate_key')), RATES],
      // Other keys of the contract: the STATE and an LP-share entry of pool 1 (prefix 02 ‖ u32le(1) ‖ account).
      [b64(Buffer.from('STATE')), b64(hex('00'))],
      [b64(Buffer.concat([hex('0201000000'), str('alice.near')])), b64(u128(1n))],
    ]);
    const n = node(count(3), storage);
    const state = await read(n);
    expect(state).toEqual({
      events: [poolEvent({ ...STATE_1395, poolId: 0 }, 'storage'), poolEvent(STATE_STABLE_1, 'storage'), RATES_EVENT],
      skipped: { UNDECODABLE: 1 },
    });
    // One read of the pools' prefix (00), one of the rates key; no pool view.
    expect(n.asked).toEqual(['get_number_of_pools {}', 'view_state AA==', `view_state ${b64(Buffer.from('custom_rate_key'))}`]);
    expect(ammABootstrap.skipReasons?.UNDECODABLE).toMatch(/does not decode exactly/);
  });

  it('without custom_rate_key gives no rates event (the indexer has none either)', async () => {
    const state = await read(node(count(1), new Map([[poolKey(0), STABLE_1]])));
    expect(state.events).toEqual([poolEvent({ ...STATE_STABLE_1, poolId: 0 }, 'storage')]);
  });

  it("reads a mainnet-sized pool list by the id's low byte, 256 reads, and checks every id is there", async () => {
    // 3 668 pools, as on mainnet at block 81206675: 1395 and 3667 hold their real values, every other one 1395's.
    const storage = new Map<string, string>();
    for (let id = 0; id < 3668; id++) storage.set(poolKey(id), id === 3667 ? POOL_3667 : POOL_1395);
    const n = node(count(3668), storage);
    const state = await read(n);
    expect(state.events).toHaveLength(3668);
    expect(state.events[1395]).toEqual(poolEvent(STATE_1395, 'storage'));
    expect(state.events[3667]).toEqual(poolEvent(STATE_3667, 'storage'));
    expect(state.events.map((e) => (e as { poolId: number }).poolId)).toEqual(Array.from({ length: 3668 }, (_, i) => i));
    const reads = n.asked.filter((a) => a.startsWith('view_state'));
    expect(reads).toHaveLength(257);
    // 00 ‖ 00, 00 ‖ 01, ... 00 ‖ ff (base64 AAA=, AAE=, ... AP8=), then the rates key.
    expect(reads.slice(0, 3)).toEqual(['view_state AAA=', 'view_state AAE=', 'view_state AAI=']);
    expect(reads[255]).toBe('view_state AP8=');

    storage.delete(poolKey(2000));
    expect(await readFails(node(count(3668), storage))).toBe(`${REF} storage at block ${HEIGHT} does not hold pools 0..3667 (get_number_of_pools): missing 2000`);
  });
});

// ---- the views path: answers in views.rs's shapes ----

const simpleInfo = { pool_kind: 'SIMPLE_POOL', token_account_ids: [AURORA, WNEAR], amounts: ['447385027392978180872315', '75005307895944062225816853815'], total_fee: 30, shares_total_supply: '6424870713030190080365692', amp: 0 };
const stableInfo = {
  token_account_ids: ['dai.near', USDC],
  decimals: [18, 6],
  amounts: ['1000000000000000000000000', '2000000000000'],
  c_amounts: ['1000000000000000000000000', '2000000000000000000000000'],
  total_fee: 5,
  shares_total_supply: '2999000000000000000000000',
  amp: 240,
};
const ratedInfo = {
  token_account_ids: ['linear-protocol.near', WNEAR],
  decimals: [24, 24],
  amounts: ['800000000000000000000000000', '1000000000000000000000000000'],
  c_amounts: ['800000000000000000000000000', '1000000000000000000000000000'],
  total_fee: 5,
  shares_total_supply: '1800000000000000000000000000',
  amp: 1000,
  rates: ['1250000000000000000000000', '1000000000000000000000000'],
};
const degenInfo = {
  token_account_ids: ['degen.near', WNEAR],
  decimals: [18, 24],
  amounts: ['123456789000000000000', '5000000000000000000000000'],
  c_amounts: ['123456789000000000000000000', '5000000000000000000000000'],
  total_fee: 30,
  shares_total_supply: '7000000000000000000000000',
  amp: 5,
  degens: ['2000000000000000000000000', '1000000000000000000000000'],
};
/** `PoolInfo` of a stable-like pool: the detail view's fields `get_pools` keeps. */
const poolInfoOf = (kind: string, d: typeof stableInfo) => ({ pool_kind: kind, token_account_ids: d.token_account_ids, amounts: d.amounts, total_fee: d.total_fee, shares_total_supply: d.shares_total_supply, amp: d.amp });
const volume = (input: string, output: string) => ({ input, output });
const ratedTokens = {
  // HashMap order: not sorted.
  'sfrax.near': {
    rate_type: 'SFRAX',
    rate_price: '1100000000000000000000000',
    last_update_ts: '1749000200000000000',
    is_valid: true,
    extra_info: JSON.stringify({ PythOracle: { oracle_id: 'pyth-oracle.near', base_price_identifier: PYTH_BASE, rate_price_identifier: PYTH_RATE, pyth_price_valid_duration_sec: 60 } }),
  },
  'meta-pool.near': { rate_type: 'STNEAR', rate_price: '1300000000000000000000000', last_update_ts: '1749000100000000000', is_valid: true, extra_info: null },
  'linear-protocol.near': { rate_type: 'LINEAR', rate_price: '1250000000000000000000000', last_update_ts: '1749000000000000000', is_valid: false, extra_info: null },
};

/** A kind no version of the contract has, of a shape none has (three tokens, two volumes): counted, not read. */
const futureInfo = { pool_kind: 'FUTURE_POOL', token_account_ids: ['a.near', 'b.near', 'c.near'], amounts: ['1', '2', '3'], total_fee: 30, shares_total_supply: '1', amp: 0 };

/** Ref's views over five pools: simple, stable, rated, degen, and a kind no version of the contract has. */
function refViews(over: Record<string, unknown> = {}) {
  return (method: string, args: Record<string, unknown>): RpcViewAnswer | undefined => {
    if (method in over) return { value: over[method] };
    const id = args.pool_id;
    switch (method) {
      case 'get_number_of_pools':
        return { value: 5 };
      case 'get_pools':
        return { value: [simpleInfo, poolInfoOf('STABLE_SWAP', stableInfo), poolInfoOf('RATED_SWAP', ratedInfo), poolInfoOf('DEGEN_SWAP', degenInfo), futureInfo] };
      case 'list_pool_volumes':
        return {
          value: [
            // Past u128: the live figures are u256 since 1.9.11.
            [volume('7173967559424232909793577', '4364269511994129433419537792991'), volume('340282366920938463463374607431768211456', '0')],
            [volume('1', '2'), volume('3', '4')],
            [volume('0', '0'), volume('0', '0')],
            [volume('9', '8'), volume('7', '6')],
            [volume('0', '0'), volume('0', '0')],
          ],
        };
      case 'get_stable_pool':
        return id === 1 ? { value: stableInfo } : { vmError: 'HostError(GuestPanic { panic_msg: "not implemented" })' };
      case 'get_rated_pool':
        return id === 2 ? { value: ratedInfo } : { vmError: 'HostError(GuestPanic { panic_msg: "not implemented" })' };
      case 'get_degen_pool':
        return id === 3 ? { value: degenInfo } : { vmError: 'HostError(GuestPanic { panic_msg: "not implemented" })' };
      case 'list_rated_tokens':
        return { value: ratedTokens };
    }
    return undefined;
  };
}

describe('AmmA bootstrap from views (view_state refused, as mainnet)', () => {
  it('reads every pool kind; stable-like pools are approximate (amp schedule); an unknown kind is counted', async () => {
    const n = node(refViews(), null);
    const state = await read(n);
    const stableLike = { initAmpTime: 0n, stopAmpTime: 0n, approximate: APPROXIMATE_AMP };
    expect(state).toEqual({
      events: [
        poolEvent(
          {
            poolId: 0,
            kind: 'simple',
            tokens: [AURORA, WNEAR],
            amounts: [447385027392978180872315n, 75005307895944062225816853815n],
            volumes: [
              { input: 7173967559424232909793577n, output: 4364269511994129433419537792991n },
              { input: 2n ** 128n, output: 0n },
            ],
            totalFee: 30,
            // No view gives the obsolete fee copies: 0, as every pool created since 1.4.0 holds.
            exchangeFee: 0,
            referralFee: 0,
            sharesPrefixHex: '0200000000',
            sharesTotalSupply: 6424870713030190080365692n,
          },
          'rpc',
        ),
        poolEvent(
          {
            ...stableLike,
            poolId: 1,
            kind: 'stable',
            tokens: ['dai.near', USDC],
            amounts: [10n ** 24n, 2_000_000_000_000n],
            volumes: [
              { input: 1n, output: 2n },
              { input: 3n, output: 4n },
            ],
            totalFee: 5,
            sharesPrefixHex: '0201000000',
            sharesTotalSupply: 2_999_000n * 10n ** 18n,
            decimals: [18, 6],
            targetDecimals: 18,
            cAmounts: [10n ** 24n, 2n * 10n ** 24n],
            initAmpFactor: 240n,
            targetAmpFactor: 240n,
          },
          'rpc',
        ),
        poolEvent(
          {
            ...stableLike,
            poolId: 2,
            kind: 'rated',
            tokens: ['linear-protocol.near', WNEAR],
            amounts: [800n * 10n ** 24n, 1000n * 10n ** 24n],
            volumes: [
              { input: 0n, output: 0n },
              { input: 0n, output: 0n },
            ],
            totalFee: 5,
            sharesPrefixHex: '0202000000',
            sharesTotalSupply: 1800n * 10n ** 24n,
            decimals: [24, 24],
            targetDecimals: 24,
            cAmounts: [800n * 10n ** 24n, 1000n * 10n ** 24n],
            initAmpFactor: 1000n,
            targetAmpFactor: 1000n,
          },
          'rpc',
        ),
        poolEvent(
          {
            ...stableLike,
            poolId: 3,
            kind: 'degen',
            tokens: ['degen.near', WNEAR],
            // 18 decimals under a 24-decimal precision: c / 10^6.
            amounts: [123456789n * 10n ** 12n, 5n * 10n ** 24n],
            volumes: [
              { input: 9n, output: 8n },
              { input: 7n, output: 6n },
            ],
            totalFee: 30,
            sharesPrefixHex: '0203000000',
            sharesTotalSupply: 7n * 10n ** 24n,
            decimals: [18, 24],
            targetDecimals: 24,
            cAmounts: [123456789n * 10n ** 18n, 5n * 10n ** 24n],
            initAmpFactor: 5n,
            targetAmpFactor: 5n,
          },
          'rpc',
        ),
        // Sorted by token id as borsh stores the map: the storage read's event, to the field.
        RATES_EVENT,
      ],
      skipped: { FUTURE_POOL: 1 },
    });
    expect(n.asked).toEqual([
      'get_number_of_pools {}',
      'view_state AA==',
      'get_pools {"from_index":0,"limit":200}',
      'list_pool_volumes {"from_index":0,"limit":200}',
      'get_stable_pool {"pool_id":1}',
      'get_rated_pool {"pool_id":2}',
      'get_degen_pool {"pool_id":3}',
      'list_rated_tokens {}',
    ]);
  });

  it('pages get_pools and list_pool_volumes by 200, numbering pools from each page start', async () => {
    const views = (method: string, args: Record<string, unknown>): RpcViewAnswer | undefined => {
      const from = args.from_index as number;
      const size = Math.max(0, Math.min(from + (args.limit as number), 201) - from);
      if (method === 'get_number_of_pools') return { value: 201 };
      if (method === 'get_pools') return { value: Array.from({ length: size }, (_, i) => ({ ...simpleInfo, amounts: [String(from + i + 1), '5'] })) };
      if (method === 'list_pool_volumes') return { value: Array.from({ length: size }, () => [volume('0', '0'), volume('0', '0')]) };
      if (method === 'list_rated_tokens') return { value: {} };
      return undefined;
    };
    const n = node(views, null);
    const { events } = await read(n);
    expect(events).toHaveLength(201);
    expect(events[200]).toMatchObject({ poolId: 200, state: { poolId: 200, amounts: [201n, 5n], sharesPrefixHex: '02c8000000' } });
    expect(n.asked.filter((a) => a.startsWith('get_pools'))).toEqual(['get_pools {"from_index":0,"limit":200}', 'get_pools {"from_index":200,"limit":200}']);
  });

  it('refuses an answer of the wrong shape, naming the view, the pool and the block', async () => {
    const at = `at block ${HEIGHT}`;
    expect(await readFails(node(count('5'), null))).toBe(`${REF}.get_number_of_pools returned "5", not a count`);
    const badPage = [{ ...simpleInfo, amounts: [1, 2] }, ...(refViews()('get_pools', {}) as { value: unknown[] }).value.slice(1)];
    expect(await readFails(node(refViews({ get_pools: badPage }), null))).toBe(
      `${REF}.get_pools {"from_index":0,"limit":200} ${at}: pool 0 (SIMPLE_POOL): amounts [1,2] are not u128 decimal strings`,
    );
    expect(await readFails(node(refViews({ get_pools: [simpleInfo] }), null))).toBe(`${REF}.get_pools {"from_index":0,"limit":200} ${at}: expected 5 pools, got 1 entries`);
    expect(await readFails(node(refViews({ list_pool_volumes: [[], [], [], [], []] }), null))).toMatch(
      new RegExp(`^${REF}\\.list_pool_volumes \\{"from_index":0,"limit":200\\} ${at}: pool 0: \\[\\] is not one \\{input, output\\}`),
    );
    // amounts that are not c_amounts at the pool's decimals: not the layout we know.
    expect(await readFails(node(refViews({ get_stable_pool: { ...stableInfo, amounts: ['1000000000000000000000000', '2000000000001'] } }), null))).toBe(
      `${REF}.get_stable_pool {"pool_id":1} ${at}: pool 1: amounts[1] is not c_amounts[1] at 6 decimals`,
    );
    expect(await readFails(node(refViews({ get_rated_pool: { ...ratedInfo, token_account_ids: [WNEAR, 'linear-protocol.near'] } }), null))).toBe(
      `${REF}.get_rated_pool {"pool_id":2} ${at}: pool 2: token_account_ids ["wrap.near","linear-protocol.near"] are not get_pools' ["linear-protocol.near","wrap.near"]`,
    );
    expect(await readFails(node(refViews({ list_rated_tokens: { 'x.near': { ...ratedTokens['meta-pool.near'], rate_type: 'RETH' } } }), null))).toBe(
      `${REF}.list_rated_tokens {} ${at}: x.near: rate_type "RETH" is none of STNEAR, LINEAR, NEARX, SFRAX`,
    );
    expect(await readFails(node(refViews({ list_rated_tokens: { 'sfrax.near': { ...ratedTokens['sfrax.near'], extra_info: '{"PythOracle":{}}' } } }), null))).toBe(
      `${REF}.list_rated_tokens {} ${at}: sfrax.near: extra_info "{\\"PythOracle\\":{}}" is not a SfraxExtraInfo`,
    );
  });

  it('through dexlake bootstrap: a wrong answer midway writes nothing', async () => {
    const server = await startNearRpc(node(refViews({ get_degen_pool: { ...degenInfo, decimals: [18] } }), null).chain);
    servers.push(server);
    const db = await createMigratedDb();
    await expect(bootstrap({ db, rpcUrl: server.url, contracts: MAINNET_CONTRACTS, height: HEIGHT, dexes: [ammA] })).rejects.toThrow(
      `${REF}.get_degen_pool {"pool_id":3} at block ${HEIGHT}: pool 3: decimals [18] are not 2 u8`,
    );
    for (const table of ['blocks', 'events', 'pools', 'checkpoints']) {
      expect((await db.pool.query(`select count(*)::int as n from ${table}`)).rows[0].n, table).toBe(0);
    }
  });
});
