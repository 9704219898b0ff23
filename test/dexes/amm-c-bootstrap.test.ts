// AmmC's bootstrap: (a) its read against a local NEAR JSON-RPC server (devnet/rpc.ts) whose `dex.intear.near`
// answers `dex_view` as the engine does, a base64 string of the xyk DEX's borsh answer; the bytes below are written
// by hand from the types' source (INTEARnear/dex @ 430bc76 dexes/xyk/types/src/lib.rs), field by field; (b) on the
// realnet, whose hosted AmmC model answers the same view: bootstrapped at block H from the realnet's own JSON-RPC
// then indexed to N, the pools and the routes equal indexing from the first block, in a window where most pools are
// not written after H (their rows are the bootstrap's alone).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINNET_CONTRACTS } from '../../dexes/contracts.ts';
import { PoolsImportError } from '../../dexes/dex.ts';
import { decodeAmmC } from '../../dexes/amm-c/decode.ts';
import { ammC } from '../../dexes/amm-c/index.ts';
import { realnetMarket } from '../../devnet/realnet/wasm.ts';
import { startNearRpc, type NearRpcServer, type RpcBlock, type RpcViewAnswer } from '../../devnet/rpc.ts';
import { bootstrap, rpcChainAt } from '../../indexer/bootstrap.ts';
import { blockHeader } from '../../indexer/near-rpc.ts';
import { normalizeStreamerMessage } from '../../near/block.ts';
import { createMigratedDb } from '../harness/db.ts';
import { bootstrapEquality, realnetChain } from '../harness/bootstrap-equality.ts';
import { realnet, realnetMemo } from '../harness/realnet.ts';

const C = MAINNET_CONTRACTS;
const HEIGHT = 5_000;
const E18 = 10n ** 18n;

// ---- a PoolView::Public (pool 0: the real pool_updated of dexes/amm-c/README.md, as borsh) ----
const PUBLIC_POOL = [
  '01', // PoolView::Public
  '00', '46690f00000000000000000000000000', // assets.0: AssetId::Near, balance 1009990
  '01', '14000000', '626c61636b647261676f6e2e746b6e2e6e656172', '61371e00000000000000000000000000', // assets.1: Nep141("blackdragon.tkn.near"), 1980257
  '02000000', // fees.receivers: 2
  '01', 'd0070000', // (Pool, 2000)
  '00', '11000000', '706c6163682e696e746561722e6e656172', 'e8030000', // (Account("plach.intear.near"), 1000)
  '00', '01000000', '01', 'd0070000', // fee_configuration: V1 {receivers: [(Pool, 2000)]}
  '01', '000064a7b3b6e00d0000000000000000', // total_shares: Some(10^18)
].join('');

// ---- a PoolView::LaunchV2 (pool 1) during a scheduled community fee: the view gives 95% of it, 5% to the protocol ----
const LAUNCH_V2_POOL = [
  '03', // PoolView::LaunchV2
  '01', '09000000', '777261702e6e656172', '000000ac782658967827f80000000000', // quote_asset: Nep141("wrap.near"), 3·10^26
  '01', '17000000', '6a75696a2e6c61756e63682e696e746561722e6e656172', '000000e83c80d09f3c2e3b0300000000', // launched_asset: Nep141("juij.launch.intear.near"), 10^27
  '03000000', // fees.receivers: 3
  '01', '88130000', // (Pool, 5000)
  '02', '0b000000', '696e746561722e6e656172', 'd80e0000', // (Community("intear.near"), 3800)
  '00', '11000000', '706c6163682e696e746561722e6e656172', 'b0040000', // (Account("plach.intear.near"), 1200)
  '01', '02000000', // fee_configuration: V2, 2 receivers
  '01', '00', '88130000', // (Pool, Fixed(5000))
  '02', '0b000000', '696e746561722e6e656172', // (Community("intear.near"),
  '01', '82a62972fbd51a18', 'a00f0000', '82a6526b0bfc1c18', 'd0070000', '00', //  Scheduled {start: (1736935882233587330, 4000), end: (1737540682233587330, 2000), curve: Linear})
  '000000ac782658967827f80000000000', // phantom_liquidity: 3·10^26
].join('');

// ---- a PoolView::Private (pool 2) of a NEP-245 asset: skipped, as the decoder skips it ----
const NEP245_POOL = [
  '00', // PoolView::Private
  '02', '0c000000', '696e74656e74732e6e656172', '1d000000', '6e65703134313a757364742e7465746865722d746f6b656e2e6e656172', '000064a7b3b6e00d0000000000000000', // Nep245("intents.near", "nep141:usdt.tether-token.near"), 10^18
  '00', '46690f00000000000000000000000000', // Near, 1009990
  '00000000', // fees: none
  '00', '00000000', // fee_configuration: V1, none
  '10000000', '736c696d65647261676f6e2e6e656172', // owner_id "slimedragon.near"
  '01', // locked
].join('');

const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
/** The borsh args the read sends (written out): `get_pools {start_index: 0, limit: 3}`, `get_pool {pool_id: n}`. */
const GET_POOLS_0_3 = 'AAAAAAMAAAA=';
const GET_POOL = ['AAAAAA==', 'AQAAAA==', 'AgAAAA=='];

interface Scenario {
  /** get_pools {0, 3}'s answer. */
  page: unknown;
  /** get_pool {n}'s answer, by n. */
  pool?: string[];
}

const blockAt = (height: number): RpcBlock => ({ height, hash: `Hash${height}`, prevHash: `Hash${height - 1}`, timestampNs: BigInt(height) * 1_000_000_000n });

describe('AmmC bootstrap through dex.intear.near dex_view', () => {
  const asked: string[] = [];
  let scenario: Scenario = { page: '' };
  let server: NearRpcServer;
  beforeAll(async () => {
    server = await startNearRpc({
      chainId: 'test',
      final: () => blockAt(HEIGHT),
      block: (height) => (height === HEIGHT ? blockAt(height) : null),
      view(_height, contractId, method, args): RpcViewAnswer | null {
        if (contractId !== C.AmmC) return null;
        const { dex_id, method: xykMethod, args: xykArgs } = args as { dex_id: string; method: string; args: string };
        asked.push(`${method} ${dex_id} ${xykMethod} ${xykArgs}`);
        if (method !== 'dex_view' || dex_id !== C.AmmCXykDexId) return { vmError: 'MethodResolveError(MethodNotFound)' };
        if (xykMethod === 'get_pool_count' && xykArgs === '') return { value: b64('03000000') };
        if (xykMethod === 'get_pools' && xykArgs === GET_POOLS_0_3) return { value: scenario.page };
        const n = GET_POOL.indexOf(xykArgs);
        if (xykMethod === 'get_pool' && n >= 0 && scenario.pool) return { value: scenario.pool[n] };
        return { vmError: 'HostError(GuestPanic { panic_msg: "Failed to call function" })' };
      },
      storage: () => null,
    });
  });
  afterAll(() => server?.close());

  const read = async () => ammC.bootstrap!.read(rpcChainAt(server.url, await blockHeader(server.url, HEIGHT), C));

  it('reads every pool of one get_pools page as pool_updated gives it; a NEP-245 pool is counted out', async () => {
    asked.length = 0;
    scenario = { page: b64(`03000000${PUBLIC_POOL}${LAUNCH_V2_POOL}${NEP245_POOL}`) };
    const { events, skipped } = await read();
    expect(asked).toEqual(['dex_view slimedragon.near/xyk get_pool_count ', `dex_view slimedragon.near/xyk get_pools ${GET_POOLS_0_3}`]);
    expect(events).toEqual([
      {
        kind: 'pool_state',
        dex: 'AmmC',
        contractId: 'dex.intear.near',
        poolId: 0,
        source: 'rpc',
        state: {
          kind: 'xyk',
          poolType: 'public',
          tokens: ['near', 'blackdragon.tkn.near'],
          amounts: [1_009_990n, 1_980_257n],
          totalFee: 3_000,
          feeReceivers: [
            { kind: 'pool', accountId: null, fee: 2_000 },
            { kind: 'account', accountId: 'plach.intear.near', fee: 1_000 },
          ],
          phantomLiquidity: null,
          totalShares: E18,
        },
      },
      {
        kind: 'pool_state',
        dex: 'AmmC',
        contractId: 'dex.intear.near',
        poolId: 1,
        source: 'rpc',
        state: {
          kind: 'xyk',
          poolType: 'launch',
          tokens: ['wrap.near', 'juij.launch.intear.near'],
          amounts: [300n * 10n ** 24n, 10n ** 27n],
          totalFee: 10_000,
          feeReceivers: [
            { kind: 'pool', accountId: null, fee: 5_000 },
            { kind: 'community', accountId: 'intear.near', fee: 3_800 },
            { kind: 'account', accountId: 'plach.intear.near', fee: 1_200 },
          ],
          phantomLiquidity: 300n * 10n ** 24n,
          totalShares: null,
        },
      },
    ]);
    expect(skipped).toEqual({ nep245: 1 });
  });

  it('a page it cannot read past (a newer PoolView variant) is read pool by pool, that pool counted out', async () => {
    asked.length = 0;
    const newer = '09'; // a variant after LaunchV2
    scenario = {
      page: b64(`03000000${PUBLIC_POOL}${newer}00${NEP245_POOL}`),
      pool: [b64(`01${PUBLIC_POOL}`), b64(`01${newer}00`), b64(`01${NEP245_POOL}`)],
    };
    const { events, skipped } = await read();
    expect(asked.slice(2)).toEqual(GET_POOL.map((args) => `dex_view slimedragon.near/xyk get_pool ${args}`));
    expect(events.map((e) => (e as { poolId: number }).poolId)).toEqual([0]);
    expect(skipped).toEqual({ nep245: 1, 'unknown variant': 1 });
  });

  it('an answer it cannot read stops the bootstrap, naming the view; nothing is written', async () => {
    const cases: Array<[Scenario, RegExp]> = [
      [{ page: { pools: [] } }, /dex\.intear\.near\.dex_view slimedragon\.near\/xyk get_pools \{start_index: 0, limit: 3\} at block 5000: the answer \{"pools":\[\]\} is not base64/],
      [{ page: b64(`03000000${PUBLIC_POOL}${LAUNCH_V2_POOL}${NEP245_POOL}00`) }, /get_pools \{start_index: 0, limit: 3\} at block 5000: .*1 leftover byte/],
      [{ page: b64(`02000000${PUBLIC_POOL}${LAUNCH_V2_POOL}`) }, /get_pools \{start_index: 0, limit: 3\} at block 5000: 2 pools of the 3 counted/],
      // An account id the decoder refuses ("Blackdragon" has a capital letter).
      [{ page: b64(`03000000${PUBLIC_POOL.replace('626c61636b', '426c61636b')}${LAUNCH_V2_POOL}${NEP245_POOL}`) }, /get_pools at block 5000: pool 0: nep141:Blackdragon\.tkn\.near is not an asset id/],
    ];
    for (const [bad, message] of cases) {
      scenario = bad;
      const db = await createMigratedDb();
      const failure = bootstrap({ db, rpcUrl: server.url, contracts: C, height: HEIGHT, dexes: [ammC] });
      await expect(failure).rejects.toThrow(PoolsImportError);
      await expect(failure).rejects.toThrow(message);
      for (const table of ['blocks', 'events', 'pools', 'checkpoints']) {
        expect((await db.pool.query(`select count(*)::int as n from ${table}`)).rows[0].n, table).toBe(0);
      }
    }
  });
});

describe('AmmC bootstrap on the realnet', () => {
  // Only pool 0 is written after H (at 160): pools 1, 2 and the launch pool 3 end as the bootstrap read them.
  const SEED = 'realnet-bootstrap';
  const [H, N] = [153, 160];

  it(`has trades before and after block ${H}, and pools not written after it`, async () => {
    const heights = realnetMemo(`${SEED}: the AmmC model's trades' heights to ${N}`, () => {
      const market = realnetMarket(undefined, { seed: SEED, models: true, recordTrades: true, history: false });
      for (let height = 1; height <= N; height++) market.next();
      return market.models!.trades.filter((t) => t.dex === 'AmmC').map((t) => t.height);
    });
    const written = new Set<number>();
    for await (const raw of realnet(SEED).raw({ from: H + 1, to: N }, new AbortController().signal)) {
      const block = normalizeStreamerMessage(JSON.parse(Buffer.from((raw as { body: Uint8Array }).body).toString()));
      for (const e of decodeAmmC(block, C)) if (e.kind === 'pool_state') written.add(e.poolId as number);
    }
    expect(heights.filter((h) => h <= H).length).toBeGreaterThan(10);
    expect(heights.filter((h) => h > H).length).toBeGreaterThan(0);
    expect([...written]).toEqual([0]);
  });

  it(`bootstrapped at ${H} from the realnet's JSON-RPC then indexed to ${N}: the pools and every route equal indexing 1..${N}`, async () => {
    const { indexed, bootstrapped, routes } = await bootstrapEquality('AmmC', { chain: realnetChain(SEED), h: H, n: N });
    expect(indexed.length).toBe(4);
    expect(bootstrapped).toEqual(indexed);
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) expect(route.bootstrapped, route.query).toBe(route.indexed);
    // Some route is found: the comparison is not of two refusals.
    expect(routes.some((r) => r.indexed.startsWith('200 [{'))).toBe(true);
  }, 120_000);
});
