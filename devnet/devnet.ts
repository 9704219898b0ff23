// The devnet simulator: a seeded market on the mainnet account ids. Block 1 (genesis) deploys the tokens, funds and
// registers the wallets and opens liquid pools on every DEX model; each later block carries a few user actions
// (trades most of the time). Same seed, same blocks, byte for byte.
import { MAINNET_CONTRACTS, type DexContracts } from '../dexes/contracts.ts';
import type { RawJson } from '../near/lake-json.ts';
import { AmmADevnet } from './amm-a.ts';
import { Arbitrage } from './arbitrage.ts';
import { AmmDclADevnet, devnetDclPools } from './amm-dcl-a.ts';
import { AmmCDevnet, type AmmCPoolSpec } from './amm-c.ts';
import { Chain } from './chain.ts';
import { LaunchDevnet } from './launch.ts';
import { QuoteADevnet } from './quote-a.ts';
import { Rng } from './rng.ts';
import { StakeADevnet } from './stake-a.ts';
import { StakeBDevnet } from './stake-b.ts';
import { StakeCDevnet } from './stake-c.ts';
import { StakeDDevnet } from './stake-d.ts';
import { Tokens, type TokenSpec } from './tokens.ts';
import { WrapDevnet } from './wrap.ts';
import type { DevnetDex, TruthTrade, World } from './world.ts';

import { DEVNET_BLOCK_MS, DEVNET_GENESIS_HEIGHT, DEVNET_GENESIS_MS } from './realnet/chain.ts';
export { DEVNET_BLOCK_MS, DEVNET_GENESIS_HEIGHT, DEVNET_GENESIS_MS };

const USDT = 'usdt.tether-token.near';
const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';
const REF = 'token.v2.ref-finance.near';
const AURORA = 'aaaaaa20d9e0e2461697782ef11675f668207961.factory.bridge.near';
/** The token of AmmC's launch pool: deployed by that model, its whole supply in the pool. */
export const SLIME: TokenSpec = { contractId: 'slime.tkn.near', symbol: 'SLIME', name: 'Slime', decimals: 18 };
/** Bridged DAI and USDC.e, the tokens of AmmA's stable pool: deployed by that model. */
const DAI: TokenSpec = { contractId: '6b175474e89094c44da98b954eedeac495271d0f.factory.bridge.near', symbol: 'DAI', name: 'Dai Stablecoin', decimals: 18 };
const USDC_E: TokenSpec = { contractId: 'a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48.factory.bridge.near', symbol: 'USDC.e', name: 'USD Coin', decimals: 6 };
/** Aidols tokens, launched by the Launch model at genesis. */
export const AIDOLS: readonly TokenSpec[] = [
  { contractId: 'tganza.aidols.near', symbol: 'TGANZA', name: 'Tganza', decimals: 24 },
  { contractId: 'lumen.aidols.near', symbol: 'LUMEN', name: 'Lumen', decimals: 24 },
  { contractId: 'miko.aidols.near', symbol: 'MIKO', name: 'Miko the Cat', decimals: 24 },
];

export interface DevnetOptions {
  seed?: string;
  contracts?: DexContracts;
  /** Keep every executed hop in `trades` (tests); off for a long-running devnet. */
  recordTrades?: boolean;
  wallets?: number;
  /** The arbitrage trader that keeps AmmA's and AmmC's pools at the market's prices (arbitrage.ts); default on. */
  arbitrage?: boolean;
  /** Timestamp of block 1, ms (default DEVNET_GENESIS_MS). Same seed and genesis, same blocks. */
  genesisMs?: number;
}

/** The lines the devnet's trickle logs: one per contract whose decoder reports what it cannot read. */
export function unknownFormatLines(contracts: DexContracts): Array<{ contractId: string; line: string }> {
  const event = (standard: string, name: string, data: unknown) => `EVENT_JSON:${JSON.stringify({ standard, version: '9.0.0', event: name, data })}`;
  return [
    { contractId: contracts.AmmA, line: 'Pool 0 paused by the guardian for 600 seconds' },
    { contractId: contracts.AmmDclA, line: event('dcl.ref', 'pool_paused', [{ pool_id: 'x|y|2000', duration_sec: 600 }]) },
    { contractId: contracts.AmmC, line: event('inteardex', 'fee_switch_toggled', { dex_id: contracts.AmmCXykDexId, enabled: true }) },
    { contractId: contracts.Launch, line: event('aidols', 'curve_paused', [{ token_id: 'x.aidols.near' }]) },
    { contractId: contracts.StakeA, line: 'Epoch rebalance postponed: 3 validators unreachable' },
    { contractId: USDT, line: event('nep141', 'ft_freeze', [{ owner_id: 'alice.near', amount: '1' }]) },
  ];
}

/** AmmC's genesis pools (on the devnet and hosted on the realnet). */
export const AMM_C_POOLS: AmmCPoolSpec[] = [
  { type: 'public', tokens: ['near', USDT], liquidity: [100_000n, 500_000n], poolFee: 2_000 },
  { type: 'public', tokens: ['near', REF], liquidity: [20_000n, 1_000_000n], poolFee: 3_000 },
  { type: 'private', tokens: [USDT, USDC], liquidity: [200_000n, 200_000n], poolFee: 100 },
  // A launch pool: 300 NEAR of phantom liquidity (v1's) against SLIME's whole supply.
  { type: 'launch', tokens: ['near', SLIME.contractId], liquidity: [300n, 1_000_000_000n], poolFee: 5_000, communityFee: 2_000, launched: SLIME },
];

export class Devnet {
  readonly world: World<Chain, Tokens>;
  readonly dexes: DevnetDex[];
  private readonly trickle: Rng;
  readonly arbitrage: Arbitrage | null;

  constructor(options: DevnetOptions = {}) {
    const seed = options.seed ?? 'dexlake';
    const rng = new Rng(seed);
    this.trickle = new Rng(`${seed}|unknown-formats`);
    const chain = new Chain({ seed, genesisHeight: DEVNET_GENESIS_HEIGHT, genesisMs: options.genesisMs ?? DEVNET_GENESIS_MS, blockMs: DEVNET_BLOCK_MS, rng });
    const contracts = options.contracts ?? MAINNET_CONTRACTS;
    const wallets = Array.from({ length: options.wallets ?? 24 }, (_, i) => `${NAMES[i % NAMES.length]}${i < NAMES.length ? '' : i}.near`);
    this.world = { chain, tokens: new Tokens(chain), rng, contracts, treasury: 'dexlake-devnet.near', wallets, trades: options.recordTrades ? [] : null };
    const wnear = contracts.Wrap;
    const ammA = new AmmADevnet([
      { tokens: [wnear, USDT], liquidity: [200_000n, 1_000_000n], fee: 30 },
      { tokens: [wnear, USDC], liquidity: [150_000n, 750_000n], fee: 30 },
      { tokens: [USDT, USDC], liquidity: [500_000n, 500_000n], fee: 5 },
      { tokens: [REF, wnear], liquidity: [2_000_000n, 40_000n], fee: 30 },
      { tokens: [AURORA, wnear], liquidity: [1_000_000n, 25_000n], fee: 30 },
      { tokens: [REF, USDT], liquidity: [500_000n, 50_000n], fee: 20 },
    ], [
      // A stable pool of its own tokens (no other pool holds them, so no route elsewhere changes): liquidity only.
      { tokens: [DAI, USDC_E], liquidity: [1_000_000n, 1_000_000n], fee: 5, amp: 240n },
    ]);
    const wrap = new WrapDevnet();
    const ammC = new AmmCDevnet(AMM_C_POOLS);
    // The market's prices are the genesis pools' prices: NEAR $5, REF 0.02 NEAR, AURORA 0.025 NEAR.
    const prices = { near: 5, [wnear]: 5, [USDT]: 1, [USDC]: 1, [REF]: 0.1, [AURORA]: 0.125 };
    this.arbitrage = options.arbitrage === false ? null : new Arbitrage(seed, { wrap: (world, account, amount) => wrap.wrap(world, account, amount), ammA, ammC }, prices);
    this.dexes = [
      wrap,
      ammA,
      new AmmDclADevnet(devnetDclPools({ wnear, usdt: USDT, usdc: USDC, ref: REF })),
      ammC,
      new LaunchDevnet(AIDOLS),
      // The solver prices from AmmA's pools (best single pool, less its spread).
      new QuoteADevnet(ammA),
      // The staked tokens (and RHEA, for StakeC) are deployed by their models.
      new StakeADevnet(),
      new StakeBDevnet(),
      new StakeCDevnet(),
      new StakeDDevnet(),
    ];
  }

  /** Tokens the devnet deploys at genesis (DEX models deploy their own, e.g. staked tokens). */
  static readonly TOKENS: readonly TokenSpec[] = [
    { contractId: USDT, symbol: 'USDt', name: 'Tether USD', decimals: 6 },
    { contractId: USDC, symbol: 'USDC', name: 'USD Coin', decimals: 6 },
    { contractId: REF, symbol: 'REF', name: 'Ref Finance Token', decimals: 18 },
    { contractId: AURORA, symbol: 'AURORA', name: 'Aurora', decimals: 18 },
  ];

  get trades(): TruthTrade[] {
    return this.world.trades ?? [];
  }

  /** The next block's `{block, shards}` message. */
  next(): RawJson {
    const { chain } = this.world;
    if (chain.height === DEVNET_GENESIS_HEIGHT) this.genesis();
    else this.step();
    this.unknownFormats();
    return chain.seal();
  }

  /**
   * Now and then (about one block in 40, from a generator of its own so the market is the same with or without
   * it) a successful receipt of a contract the decoders own logs one more line, in a format none of them knows: a
   * contract upgraded on mainnet does exactly that. It runs the undecoded path (counter, table, `dexlake
   * undecoded`) end to end on the devnet; the formats are the ones `unknownFormatLines` lists.
   */
  private unknownFormats(): void {
    if (!this.trickle.chance(1 / 40)) return;
    const candidates = unknownFormatLines(this.world.contracts).flatMap(({ contractId, line }) =>
      this.world.chain.successfulLogs(contractId).map((logs) => ({ logs, line })),
    );
    if (!candidates.length) return;
    const { logs, line } = this.trickle.pick(candidates);
    logs.push(line);
  }

  private genesis(): void {
    const { tokens, treasury, wallets, contracts } = this.world;
    tokens.deploy({ contractId: contracts.Wrap, symbol: 'wNEAR', name: 'Wrapped NEAR fungible token', decimals: 24, legacy: true }, treasury, 0n);
    for (const spec of Devnet.TOKENS) tokens.deploy(spec, treasury, 1_000_000_000n * 10n ** BigInt(spec.decimals));
    const all = [contracts.Wrap, ...Devnet.TOKENS.map((t) => t.contractId)];
    for (const wallet of wallets) for (const token of all) tokens.register(wallet, token);
    for (const dex of this.dexes) dex.genesis(this.world);
    // Starting balances: a slice of every genesis token for each wallet.
    for (const wallet of wallets) {
      for (const spec of Devnet.TOKENS) tokens.send(treasury, spec.contractId, wallet, this.world.rng.bigint(1_000n, 50_000n) * 10n ** BigInt(spec.decimals));
    }
    this.arbitrage?.genesis(this.world);
  }

  private step(): void {
    const { rng, wallets } = this.world;
    const actions = rng.int(4);
    for (let i = 0; i < actions; i++) {
      // Mostly trades; one action in ten is a wallet paying another.
      if (rng.chance(0.1)) this.pay(rng.pick(wallets), rng.pick(wallets));
      else rng.pick(this.dexes).act(this.world, rng.pick(wallets));
    }
    this.arbitrage?.step(this.world);
  }

  /** An `ft_transfer` of up to a tenth of one of the payer's tokens, to a wallet registered for it. */
  private pay(from: string, to: string): void {
    const { tokens, rng } = this.world;
    const token = rng.pick(Devnet.TOKENS).contractId;
    const balance = tokens.balance(token, from);
    if (from === to || balance < 10n || !tokens.isRegistered(token, to)) return;
    tokens.send(from, token, to, rng.bigint(1n, balance / 10n));
  }
}

const NAMES = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy', 'mallory', 'niaj', 'olivia', 'peggy', 'rupert', 'sybil', 'trent', 'victor', 'walter', 'yolanda'];
