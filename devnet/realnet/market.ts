// The realnet's seeded market: Ref's exchange (any release), wNEAR (`w_near`) and three NEP-141 tokens on the
// example builds (USDt and USDC on near-sdk 4.1's, NEP-297 events; REF on near-sdk 3.1's, `Transfer …` lines), at
// their mainnet account ids, so the indexer prices them as it prices mainnet's. An endless stream of blocks: a
// setup (init, storage, wrapping, deposits, four simple pools and a stable pool, their liquidity), then blocks of 0-3
// actions drawn from the seed, of every kind the exchange and the tokens have: instant swaps of one and two hops
// (about one in eight with a minimum no pool meets: E68, the tokens come back), swaps by output (Ref 1.9.4+), stable
// swaps, simple and stable liquidity added and removed (by shares and by tokens), deposits into and withdrawals out
// of the exchange, wrapping and unwrapping, plain transfers, and now and then a new pool. Every amount is read off
// the contracts' own views before the action (balances, deposits, pools), never computed here: what the contracts
// did is in their receipts. Pure apart from the wasm it is handed; the same seed gives the same bytes.
import type { RawJson } from '../../near/lake-json.ts';
import { Rng } from '../rng.ts';
import { initMetadata } from '../tokens.ts';
import { RealnetChain } from './chain.ts';
import type { HostedModels } from './hosted.ts';
import { actorKey, signIntents } from './intents.ts';
import { REF, WRAP, type PoolView, type RefScenarioWasm } from './scenario.ts';

export { REF, WRAP, type PoolView };
export const USDT = 'usdt.tether-token.near';
export const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';
export const REF_TOKEN = 'token.v2.ref-finance.near';
/** Mints every token's supply at `new` (neither example build logs that mint) and owns the exchange. */
export const TREASURY = 'owner.near';
/** The liquidity provider. */
export const LP = 'alice.near';
export const TRADERS = ['bob.near', 'carol.near', 'dave.near'] as const;
/** The NEAR Intents verifier (QuoteA), and the solver that fills the traders' intents from its inventory there. */
export const INTENTS = 'intents.near';
export const SOLVER = 'solver.near';

const Y = 10n ** 24n;
const TGAS = 10n ** 12n;

/** The scripts' contracts, and the intents verifier (defuse 0.2.10). */
export interface MarketWasm extends RefScenarioWasm {
  intents: Uint8Array;
}

interface TokenSpec {
  id: string;
  symbol: string;
  name: string;
  decimals: number;
  /** Dollars a whole token, for sizing the actions (the pools' prices move on their own). */
  usd: number;
  build: 'ftSdk3' | 'ftSdk4';
}

export const MARKET_TOKENS: readonly TokenSpec[] = [
  { id: USDT, symbol: 'USDt', name: 'Tether USD', decimals: 6, usd: 1, build: 'ftSdk4' },
  { id: USDC, symbol: 'USDC', name: 'USD Coin', decimals: 6, usd: 1, build: 'ftSdk4' },
  { id: REF_TOKEN, symbol: 'REF', name: 'Ref Finance Token', decimals: 18, usd: 0.1, build: 'ftSdk3' },
];
const USD_PER: Record<string, number> = { [WRAP]: 5, ...Object.fromEntries(MARKET_TOKENS.map((t) => [t.id, t.usd])) };
const DECIMALS: Record<string, number> = { [WRAP]: 24, ...Object.fromEntries(MARKET_TOKENS.map((t) => [t.id, t.decimals])) };
const ALL_TOKENS = [WRAP, ...MARKET_TOKENS.map((t) => t.id)];

/** The simple pools of the setup: tokens, fee (bps), dollars a side. */
const SIMPLE_POOLS: ReadonlyArray<{ tokens: [string, string]; fee: number; usd: number }> = [
  { tokens: [WRAP, USDT], fee: 30, usd: 1_000_000 },
  { tokens: [WRAP, USDC], fee: 30, usd: 750_000 },
  { tokens: [USDT, USDC], fee: 5, usd: 500_000 },
  { tokens: [REF_TOKEN, WRAP], fee: 30, usd: 200_000 },
];
/** The stable pool: USDt and USDC, amp 240, 5 bps. */
const STABLE = { tokens: [USDT, USDC] as [string, string], fee: 5, amp: 240, usd: 1_000_000 };
/** Pools the market may create later: a pair the setup has, at another fee (Ref keeps one pool per call). */
const LATER_FEES = [5, 20, 25, 50];
const MAX_POOLS = 9;

/** Raw units of `token` worth `usd` dollars at the reference prices. */
function unitsOf(token: string, usd: number): bigint {
  const cents = BigInt(Math.round((usd / USD_PER[token]!) * 1e6));
  return (cents * 10n ** BigInt(DECIMALS[token]!)) / 1_000_000n;
}

/** USD per whole token as Ref's setup pools (`pools`, by id) price them: wNEAR (and NEAR) from wNEAR/USDt, REF from
 * REF/wNEAR, USDt and USDC at $1. What the hosted models' arbitrage keeps AmmC's pools at (hosted.ts). */
export function refPrices(pools: readonly PoolView[]): Record<string, number> {
  const whole = (poolId: number, token: string): number => {
    const view = pools[poolId]!;
    return Number(view.amounts[view.token_account_ids.indexOf(token)]!) / 10 ** DECIMALS[token]!;
  };
  const nearUsd = whole(0, USDT) / whole(0, WRAP);
  const refUsd = (whole(3, WRAP) / whole(3, REF_TOKEN)) * nearUsd;
  return { near: nearUsd, [WRAP]: nearUsd, [USDT]: 1, [USDC]: 1, [REF_TOKEN]: refUsd };
}

/** One intents fill: the trader's and the solver's signed `token_diff` intents, settled by `execute_intents`. */
export interface IntentsSwap {
  txHash: string;
  height: number;
  trader: string;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  amountOut: bigint;
}

/** One instant swap of the market: who asked, the path, and whether its minimum was meant to fail. */
export interface MarketSwap {
  txHash: string;
  height: number;
  trader: string;
  path: { poolId: number; tokenIn: string; tokenOut: string }[];
  amountIn: bigint;
  /** Set above anything the pools can pay: the swap must fail with E68 and the tokens come back. */
  refused: boolean;
  /** A swap by output: the exact amount asked (`amountIn` is what was sent, the most it may take). */
  amountOut?: bigint;
}

export interface RealnetMarketOptions {
  seed?: string;
  /** Timestamp of the first block, ms (the chain's default otherwise). */
  genesisMs?: number;
  /** When a transaction's receipt runs (chain.ts); default `same-block`. */
  txReceipts?: 'same-block' | 'nearcore';
  /** Swaps by output (`amount_out`, `max_amount_in`: Ref 1.9.4 and later); default false. */
  byOutput?: boolean;
  /** Keep every receipt run, and every swap and fill submitted (default); false keeps the last block's receipts and
   * no record of swaps (a long-running market: the source, the JSON-RPC, an export). */
  history?: boolean;
  /** The models of the contracts whose code is not public, hosted on the same chain (hosted.ts): set up in the first
   * block that trades, then acting in every block after the market's actions. */
  models?: (chain: RealnetChain) => HostedModels;
}

type Phase = (chain: RealnetChain) => void;

export class RealnetMarket {
  readonly chain: RealnetChain;
  /** Every instant swap submitted, in order. */
  readonly swaps: MarketSwap[] = [];
  /** Every intents fill submitted, in order. */
  readonly fills: IntentsSwap[] = [];
  private readonly rng: Rng;
  private readonly setup: Phase[];
  private readonly byOutput: boolean;
  private readonly history: boolean;
  private readonly seed: string;
  private intentNonce = 0;
  /** View answers on the state the last block left (see `view`). */
  private readonly views = new Map<string, unknown>();

  constructor(wasm: MarketWasm, options: RealnetMarketOptions = {}) {
    const seed = options.seed ?? 'realnet';
    this.rng = new Rng(`${seed}|actions`);
    this.byOutput = options.byOutput ?? false;
    this.history = options.history ?? true;
    this.chain = new RealnetChain({ seed, txReceipts: options.txReceipts ?? 'same-block', history: this.history, ...(options.genesisMs !== undefined ? { genesisMs: options.genesisMs } : {}) });
    const chain = this.chain;
    chain.deploy(REF, wasm.ref, 100n * Y);
    chain.deploy(WRAP, wasm.wNear, 100n * Y);
    chain.deploy(INTENTS, wasm.intents, 100n * Y);
    for (const t of MARKET_TOKENS) chain.deploy(t.id, wasm[t.build], 100n * Y);
    for (const user of [TREASURY, LP, ...TRADERS, SOLVER]) chain.createAccount(user, 10_000_000n * Y);
    this.seed = seed;
    this.setup = setupPhases(seed);
    this.models = options.models?.(chain) ?? null;
  }

  /** The hosted models, if the market has them. */
  readonly models: HostedModels | null;
  private modelsReady = false;

  /** Whether the setup is over (pools exist with their liquidity): from the block that first carries seeded actions. */
  trading = false;

  /** The next block's `{block, shards}` message. A setup phase is submitted once the previous one has settled; after
   * the setup, every block carries 0-3 seeded actions. */
  next(): RawJson {
    if (this.chain.pendingReceipts() === 0) {
      const phase = this.setup.shift();
      if (phase !== undefined) phase(this.chain);
      else this.trading = true;
    }
    if (this.trading) {
      this.act();
      if (this.models !== null) {
        if (!this.modelsReady) this.models.setup();
        else this.models.act();
        this.modelsReady = true;
      }
    }
    this.views.clear();
    return this.chain.produceBlock();
  }

  /**
   * A view on the state the sealed blocks left. The state moves only when a block is produced, so the answers of one
   * block's choices are kept until then (the same question costs one run of the contract).
   */
  private view<T>(id: string, method: string, args: object = {}): T {
    const key = `${id} ${method} ${JSON.stringify(args)}`;
    if (!this.views.has(key)) this.views.set(key, this.chain.view<T>(id, method, args));
    return this.views.get(key) as T;
  }

  /** Every pool's view now (`get_pools`: one run of the exchange for all of them; index = pool id). */
  pools(): PoolView[] {
    return this.view<PoolView[]>(REF, 'get_pools', { from_index: 0, limit: 1000 });
  }

  /** USD per whole token as Ref's pools price them now (`refPrices`). */
  prices(): Record<string, number> {
    return refPrices(this.pools());
  }

  private balance(token: string, account: string): bigint {
    return BigInt(this.view<string>(token, 'ft_balance_of', { account_id: account }));
  }

  private deposit(account: string, token: string): bigint {
    return BigInt(this.view<string>(REF, 'get_deposit', { account_id: account, token_id: token }));
  }

  /** 0-3 actions of the seeded kinds. */
  private act(): void {
    const { rng } = this;
    const actions = rng.int(4);
    for (let k = 0; k < actions; k++) {
      const roll = rng.int(100);
      if (roll < 41) this.swap(rng.pick(TRADERS));
      else if (roll < 49) (this.byOutput ? this.swapByOutput(rng.pick(TRADERS)) : this.swap(rng.pick(TRADERS)));
      else if (roll < 54) this.stableSwap(rng.pick(TRADERS));
      else if (roll < 62) this.intentsSwap(rng.pick(TRADERS));
      else if (roll < 70) this.addLiquidity();
      else if (roll < 76) this.removeLiquidity();
      else if (roll < 80) this.stableLiquidity();
      else if (roll < 84) this.depositMore();
      else if (roll < 88) this.withdraw();
      else if (roll < 93) this.wrap(rng.pick(TRADERS));
      else if (roll < 98) this.transfer(rng.pick(TRADERS), rng.pick(TRADERS));
      else this.createPool();
    }
  }

  /** The simple pools, by id, with their views now. */
  private simplePools(): Array<{ id: number; view: PoolView }> {
    return this.pools()
      .map((view, id) => ({ id, view }))
      .filter((p) => p.view.pool_kind === 'SIMPLE_POOL' && BigInt(p.view.shares_total_supply) > 0n);
  }

  /** An instant swap of one or two hops through simple pools, exact in; one in eight meant to be refused. */
  private swap(trader: string): void {
    const { rng, chain } = this;
    const pools = this.simplePools();
    const first = rng.pick(pools);
    const flip = rng.chance(0.5);
    const tokenIn = first.view.token_account_ids[flip ? 1 : 0]!;
    const middle = first.view.token_account_ids[flip ? 0 : 1]!;
    const path = [{ poolId: first.id, tokenIn, tokenOut: middle }];
    if (rng.chance(0.3)) {
      const on = pools.filter((p) => p.id !== first.id && p.view.token_account_ids.includes(middle) && !p.view.token_account_ids.includes(tokenIn));
      if (on.length) {
        const second = rng.pick(on);
        path.push({ poolId: second.id, tokenIn: middle, tokenOut: second.view.token_account_ids.find((t) => t !== middle)! });
      }
    }
    const held = this.balance(tokenIn, trader);
    const amountIn = bigMin(unitsOf(tokenIn, 1 + rng.int(2_000)), held / 4n);
    if (amountIn <= 0n) return;
    const refused = rng.chance(0.125);
    const actions = path.map((hop, i) => ({
      pool_id: hop.poolId,
      token_in: hop.tokenIn,
      token_out: hop.tokenOut,
      ...(i === 0 ? { amount_in: amountIn.toString() } : {}),
      min_amount_out: i < path.length - 1 ? '0' : refused ? (10n ** 36n).toString() : '1',
    }));
    const txHash = chain.call(trader, tokenIn, 'ft_transfer_call', { receiver_id: REF, amount: amountIn.toString(), msg: JSON.stringify({ force: 0, actions }) }, 1n, 200n * TGAS);
    if (this.history) this.swaps.push({ txHash, height: chain.height, trader, path, amountIn, refused });
  }

  /** A one-hop swap by output (Ref 1.9.4+): a slice of the pool's output reserve, sending twice what the price asks. */
  private swapByOutput(trader: string): void {
    const { rng, chain } = this;
    const { id: poolId, view } = rng.pick(this.simplePools());
    const flip = rng.chance(0.5);
    const tokenIn = view.token_account_ids[flip ? 1 : 0]!;
    const tokenOut = view.token_account_ids[flip ? 0 : 1]!;
    const reserve = (t: string) => BigInt(view.amounts[view.token_account_ids.indexOf(t)]!);
    const permille = BigInt(1 + rng.int(5));
    const amountOut = (reserve(tokenOut) * permille) / 10_000n;
    const amountIn = (reserve(tokenIn) * permille * 2n) / 10_000n;
    if (amountOut <= 0n || amountIn > this.balance(tokenIn, trader) / 2n) return;
    const msg = { actions: [{ pool_id: poolId, token_in: tokenIn, token_out: tokenOut, amount_out: amountOut.toString(), max_amount_in: amountIn.toString() }] };
    const txHash = chain.call(trader, tokenIn, 'ft_transfer_call', { receiver_id: REF, amount: amountIn.toString(), msg: JSON.stringify(msg) }, 1n, 200n * TGAS);
    if (this.history) this.swaps.push({ txHash, height: chain.height, trader, path: [{ poolId, tokenIn, tokenOut }], amountIn, refused: false, amountOut });
  }

  /** An instant swap through the stable pool. */
  private stableSwap(trader: string): void {
    const { rng, chain } = this;
    const poolId = this.stablePoolId();
    const flip = rng.chance(0.5);
    const [tokenIn, tokenOut] = flip ? [STABLE.tokens[1], STABLE.tokens[0]] : STABLE.tokens;
    const amountIn = bigMin(unitsOf(tokenIn, 1 + rng.int(5_000)), this.balance(tokenIn, trader) / 4n);
    if (amountIn <= 0n) return;
    const actions = [{ pool_id: poolId, token_in: tokenIn, token_out: tokenOut, amount_in: amountIn.toString(), min_amount_out: '1' }];
    const txHash = chain.call(trader, tokenIn, 'ft_transfer_call', { receiver_id: REF, amount: amountIn.toString(), msg: JSON.stringify({ force: 0, actions }) }, 1n, 200n * TGAS);
    if (this.history) this.swaps.push({ txHash, height: chain.height, trader, path: [{ poolId, tokenIn, tokenOut }], amountIn, refused: false });
  }

  /**
   * An intents fill: the solver quotes a direct simple pool's own `get_return` less 0.3%, both sign their
   * `token_diff` intents (NEP-413, the actors' ed25519 keys), and the solver submits `execute_intents`.
   */
  private intentsSwap(trader: string): void {
    const { rng, chain } = this;
    const { id, view } = rng.pick(this.simplePools());
    const flip = rng.chance(0.5);
    const tokenIn = view.token_account_ids[flip ? 1 : 0]!;
    const tokenOut = view.token_account_ids[flip ? 0 : 1]!;
    const amountIn = bigMin(unitsOf(tokenIn, 1 + rng.int(1_000)), this.intentsBalance(trader, tokenIn) / 4n);
    if (amountIn <= 0n) return;
    const amountOut = (BigInt(this.view<string>(REF, 'get_return', { pool_id: id, token_in: tokenIn, amount_in: amountIn.toString(), token_out: tokenOut })) * 997n) / 1000n;
    if (amountOut <= 0n || amountOut > this.intentsBalance(SOLVER, tokenOut)) return;
    const [a, b] = [`nep141:${tokenIn}`, `nep141:${tokenOut}`];
    const deadline = new Date(chain.timestampMs + 3_600_000).toISOString();
    const nonce = `${this.seed}|intent|${this.intentNonce++}`;
    const user = signIntents(actorKey(this.seed, trader), trader, INTENTS, [{ intent: 'token_diff', diff: { [a]: `-${amountIn}`, [b]: `${amountOut}` } }], deadline, `${nonce}|user`);
    const solver = signIntents(actorKey(this.seed, SOLVER), SOLVER, INTENTS, [{ intent: 'token_diff', diff: { [a]: `${amountIn}`, [b]: `-${amountOut}` } }], deadline, `${nonce}|solver`);
    const txHash = chain.call(SOLVER, INTENTS, 'execute_intents', { signed: [user, solver] }, 0n, 200n * TGAS);
    if (this.history) this.fills.push({ txHash, height: chain.height, trader, tokenIn, tokenOut, amountIn, amountOut });
  }

  private intentsBalance(account: string, token: string): bigint {
    return BigInt(this.view<string>(INTENTS, 'mt_balance_of', { account_id: account, token_id: `nep141:${token}` }));
  }

  private stablePoolId(): number {
    return this.pools().findIndex((p) => p.pool_kind === 'STABLE_SWAP');
  }

  /** The LP adds a slice of a simple pool at its own ratio, from the exchange deposits (topped up when short). */
  private addLiquidity(): void {
    const { rng, chain } = this;
    const { id, view } = rng.pick(this.simplePools());
    const permille = BigInt(1 + rng.int(20));
    const amounts = view.amounts.map((a) => (BigInt(a) * permille) / 1000n);
    if (amounts.some((a) => a === 0n) || !this.hasDeposits(view.token_account_ids, amounts)) return;
    chain.call(LP, REF, 'add_liquidity', { pool_id: id, amounts: amounts.map(String) }, Y / 100n);
  }

  /** The LP removes a part of its shares of a simple pool. */
  private removeLiquidity(): void {
    const { rng, chain } = this;
    const { id } = rng.pick(this.simplePools());
    const shares = BigInt(this.view<string>(REF, 'get_pool_shares', { pool_id: id, account_id: LP }));
    const part = shares / BigInt(20 + rng.int(80));
    if (part === 0n) return;
    chain.call(LP, REF, 'remove_liquidity', { pool_id: id, shares: part.toString(), min_amounts: ['0', '0'] }, 1n);
  }

  /** The stable pool's liquidity: added, removed by shares, or removed by tokens. */
  private stableLiquidity(): void {
    const { rng, chain } = this;
    const poolId = this.stablePoolId();
    const roll = rng.int(3);
    if (roll === 0) {
      const amounts = STABLE.tokens.map((t) => unitsOf(t, 100 + rng.int(20_000)));
      if (this.hasDeposits(STABLE.tokens, amounts)) chain.call(LP, REF, 'add_stable_liquidity', { pool_id: poolId, amounts: amounts.map(String), min_shares: '1' }, Y / 100n);
      return;
    }
    const shares = BigInt(this.view<string>(REF, 'get_pool_shares', { pool_id: poolId, account_id: LP }));
    if (roll === 1) {
      const part = shares / BigInt(50 + rng.int(200));
      if (part > 0n) chain.call(LP, REF, 'remove_liquidity', { pool_id: poolId, shares: part.toString(), min_amounts: ['0', '0'] }, 1n);
      return;
    }
    // By tokens: a small amount of each, at most all the LP's shares burnt.
    const amounts = STABLE.tokens.map((t) => unitsOf(t, 10 + rng.int(2_000)));
    chain.call(LP, REF, 'remove_liquidity_by_tokens', { pool_id: poolId, amounts: amounts.map(String), max_burn_shares: shares.toString() }, 1n);
  }

  /**
   * Whether the LP's exchange account holds `amounts` of `tokens`; when it does not, the LP deposits what is short
   * (it lands a block later, after this block's liquidity calls: the action is left for another block).
   */
  private hasDeposits(tokens: readonly string[], amounts: readonly bigint[]): boolean {
    let enough = true;
    tokens.forEach((token, i) => {
      const held = this.deposit(LP, token);
      if (held >= amounts[i]!) return;
      enough = false;
      this.chain.call(LP, token, 'ft_transfer_call', { receiver_id: REF, amount: (2n * amounts[i]! - held).toString(), msg: '' }, 1n, 100n * TGAS);
    });
    return enough;
  }

  /** The LP deposits a token into the exchange without using it yet. */
  private depositMore(): void {
    const token = this.rng.pick(ALL_TOKENS);
    this.chain.call(LP, token, 'ft_transfer_call', { receiver_id: REF, amount: unitsOf(token, 100 + this.rng.int(10_000)).toString(), msg: '' }, 1n, 100n * TGAS);
  }

  /** The LP withdraws a part of a deposit from the exchange (its `ft_transfer` and callback). */
  private withdraw(): void {
    const token = this.rng.pick(ALL_TOKENS);
    const amount = this.deposit(LP, token) / BigInt(2 + this.rng.int(8));
    if (amount > 0n) this.chain.call(LP, REF, 'withdraw', { token_id: token, amount: amount.toString() }, 1n);
  }

  /** A trader wraps NEAR, or unwraps a part of its wNEAR (wrap.near's `Transfer` receipt). */
  private wrap(trader: string): void {
    if (this.rng.chance(0.5)) {
      this.chain.call(trader, WRAP, 'near_deposit', {}, unitsOf(WRAP, 10 + this.rng.int(5_000)));
      return;
    }
    const amount = this.balance(WRAP, trader) / BigInt(10 + this.rng.int(40));
    if (amount > 0n) this.chain.call(trader, WRAP, 'near_withdraw', { amount: amount.toString() }, 1n);
  }

  /** A plain `ft_transfer` of a part of one trader's token to another. */
  private transfer(from: string, to: string): void {
    const token = this.rng.pick(ALL_TOKENS);
    const amount = this.balance(token, from) / BigInt(20 + this.rng.int(80));
    if (from !== to && amount > 0n) this.chain.call(from, token, 'ft_transfer', { receiver_id: to, amount: amount.toString() }, 1n);
  }

  /** Now and then the LP opens another pool on a pair the setup has, at another fee, with $20,000 a side. */
  private createPool(): void {
    if (this.pools().length >= MAX_POOLS) return;
    const { tokens } = this.rng.pick(SIMPLE_POOLS);
    const fee = this.rng.pick(LATER_FEES);
    const amounts = tokens.map((t) => unitsOf(t, 20_000));
    if (!this.hasDeposits(tokens, amounts)) return;
    this.chain.call(LP, REF, 'add_simple_pool', { tokens, fee }, Y / 10n);
    // Ref's pool ids count up: the new one is the count now (the call runs in this block, before this one).
    this.chain.call(LP, REF, 'add_liquidity', { pool_id: this.pools().length, amounts: amounts.map(String) }, Y / 100n);
  }
}

/** The setup: each phase's transactions are submitted once every receipt of the one before has run. */
function setupPhases(seed: string): Phase[] {
  const users = [LP, ...TRADERS, SOLVER];
  return [
    // Init: the exchange with the arguments of its newest release (older ones ignore the fields they lack); the
    // tokens with their metadata, the whole supply to the treasury.
    (chain) => {
      chain.call(REF, REF, 'new', { owner_id: TREASURY, boost_farm_id: 'boostfarm.ref-labs.near', burrowland_id: 'contract.main.burrow.near', exchange_fee: 1600, referral_fee: 400 });
      chain.call(WRAP, WRAP, 'new', {});
      chain.call(INTENTS, INTENTS, 'new', { config: { wnear_id: WRAP, fees: { fee: 0, fee_collector: INTENTS }, roles: { super_admins: [], admins: {}, grantees: {} } } });
      for (const t of MARKET_TOKENS) {
        chain.call(t.id, t.id, 'new', { owner_id: TREASURY, total_supply: (10n ** BigInt(t.decimals + 12)).toString(), metadata: initMetadata(t) });
      }
    },
    // Storage on every token for the exchange and the users; the users on the exchange; the tokens whitelisted.
    (chain) => {
      for (const token of ALL_TOKENS) for (const account of [REF, INTENTS, ...users]) chain.call(TREASURY, token, 'storage_deposit', { account_id: account }, Y / 100n);
      for (const account of users) chain.call(account, REF, 'storage_deposit', { account_id: account }, Y / 10n);
      for (const account of [...TRADERS, SOLVER]) chain.call(account, INTENTS, 'add_public_key', { public_key: actorKey(seed, account).publicKey }, 1n);
      chain.call(TREASURY, REF, 'extend_whitelisted_tokens', { tokens: ALL_TOKENS }, 1n);
    },
    // Everyone's tokens: wNEAR wrapped by each user, the rest sent by the treasury.
    (chain) => {
      for (const user of users) chain.call(user, WRAP, 'near_deposit', {}, user === LP ? 1_000_000n * Y : 100_000n * Y);
      for (const t of MARKET_TOKENS) for (const user of users) chain.call(TREASURY, t.id, 'ft_transfer', { receiver_id: user, amount: unitsOf(t.id, user === LP ? 50_000_000 : 500_000).toString() }, 1n);
    },
    // The LP's deposits, and the pools; the traders' and the solver's deposits into the intents verifier.
    (chain) => {
      for (const token of ALL_TOKENS) {
        for (const account of TRADERS) chain.call(account, token, 'ft_transfer_call', { receiver_id: INTENTS, amount: unitsOf(token, 50_000).toString(), msg: '' }, 1n, 100n * TGAS);
        chain.call(SOLVER, token, 'ft_transfer_call', { receiver_id: INTENTS, amount: unitsOf(token, 400_000).toString(), msg: '' }, 1n, 100n * TGAS);
      }
      for (const token of ALL_TOKENS) chain.call(LP, token, 'ft_transfer_call', { receiver_id: REF, amount: unitsOf(token, 5_000_000).toString(), msg: '' }, 1n, 100n * TGAS);
      for (const p of SIMPLE_POOLS) chain.call(LP, REF, 'add_simple_pool', { tokens: p.tokens, fee: p.fee }, Y / 10n);
      chain.call(TREASURY, REF, 'add_stable_swap_pool', { tokens: STABLE.tokens, decimals: STABLE.tokens.map((t) => DECIMALS[t]), fee: STABLE.fee, amp_factor: STABLE.amp }, Y / 10n);
    },
    (chain) => {
      SIMPLE_POOLS.forEach((p, id) => chain.call(LP, REF, 'add_liquidity', { pool_id: id, amounts: p.tokens.map((t) => unitsOf(t, p.usd).toString()) }, Y / 100n));
      chain.call(LP, REF, 'add_stable_liquidity', { pool_id: SIMPLE_POOLS.length, amounts: STABLE.tokens.map((t) => unitsOf(t, STABLE.usd).toString()), min_shares: '1' }, Y / 100n);
    },
  ];
}

const bigMin = (a: bigint, b: bigint): bigint => (a < b ? a : b);
