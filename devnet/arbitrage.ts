// Arbitrage on the realnet. Users trade each pool in random directions, so without arbitrage every pool's price
// walks on its own and the DEXes drift apart. As on mainnet, an arbitrage trader closes the gaps: after each block's
// user actions, every constant-product pool of AmmC (hosted, realnet/hosted.ts) whose price strays more than 1% from
// the market's (Ref's pools', `prices`) is traded back to it, through AmmC's own swap.
import { NEAR_TOKEN_ID } from '../near/token-id.ts';
import type { AmmCDevnet } from './amm-c.ts';
import type { World } from './world.ts';

export const ARBITRAGEUR = 'arbitrage.devnet.near';

/** A pool's price may stray this far from the market's before it is traded back. */
export const ARBITRAGE_THRESHOLD = 0.01;

/** A two-token constant-product pool, as the arbitrage sees it. */
export interface ArbitragePool {
  dex: 'AmmC';
  id: string;
  tokens: readonly [string, string];
  amounts: readonly bigint[];
}

/** What the arbitrage trades through: AmmC's pools, a way to wrap NEAR, and where the prices come from. */
export interface ArbitrageMarket {
  wrap(world: World, account: string, amount: bigint): void;
  ammC: AmmCDevnet;
  /** The market's prices now, USD per whole token (asked at genesis and each step). */
  prices(world: World): Record<string, number>;
}

export class Arbitrage {
  /** USD per whole token, by token id (`near` and wNEAR share NEAR's). */
  private readonly usd = new Map<string, number>();

  constructor(private readonly dexes: ArbitrageMarket) {}

  /** The market's price of a token, in USD per whole token (undefined: not one the arbitrage trades). */
  price(token: string): number | undefined {
    return this.usd.get(token);
  }

  /** The pools it keeps in line: AmmC's public and private ones (a launch pool's is its curve). */
  pools(): ArbitragePool[] {
    const pools: ArbitragePool[] = [];
    for (const p of this.dexes.ammC.pools) {
      if (p.state.poolType === 'launch') continue;
      pools.push({ dex: 'AmmC', id: String(p.id), tokens: [p.state.tokens[0]!, p.state.tokens[1]!], amounts: p.state.amounts });
    }
    return pools.filter((p) => p.tokens.every((t) => this.usd.has(t)));
  }

  /** The pool's price of its first token in its second, over the market's (1: in line). */
  ratio(world: World, pool: ArbitragePool): number {
    const [a, b] = pool.tokens;
    const poolPrice = Number(pool.amounts[1]!) / Number(pool.amounts[0]!);
    return poolPrice / this.rawPrice(world, a, b);
  }

  /** Once, after the DEXes' genesis: the arbitrageur's NEAR wrapped, its tokens from the treasury, its AmmC account. */
  genesis(world: World): void {
    const { tokens, treasury, contracts } = world;
    for (const [token, usd] of Object.entries(this.dexes.prices(world))) this.usd.set(token, usd);
    this.dexes.wrap(world, ARBITRAGEUR, 1_000_000n * 10n ** 24n);
    for (const token of this.usd.keys()) {
      if (token === NEAR_TOKEN_ID || token === contracts.Wrap) continue;
      if (!tokens.isRegistered(token, ARBITRAGEUR)) tokens.register(ARBITRAGEUR, token);
      // Worth five million dollars of each.
      const whole = BigInt(Math.round(5_000_000 / this.usd.get(token)!));
      tokens.send(treasury, token, ARBITRAGEUR, whole * 10n ** BigInt(tokens.spec(token).decimals));
    }
    this.dexes.ammC.register(world, ARBITRAGEUR);
  }

  /** After a block's user actions: the market's prices move, then each pool out of line is traded back. */
  step(world: World): void {
    for (const [token, usd] of Object.entries(this.dexes.prices(world))) this.usd.set(token, usd);
    for (const pool of this.pools()) {
      if (Math.abs(this.ratio(world, pool) - 1) > ARBITRAGE_THRESHOLD) this.arbitrage(world, pool);
    }
  }

  /** One swap that brings a constant-product pool to the market's price: the reserves move along x·y = k. */
  private arbitrage(world: World, pool: ArbitragePool): void {
    const [a, b] = pool.tokens;
    const [x, y] = [Number(pool.amounts[0]!), Number(pool.amounts[1]!)];
    const target = this.rawPrice(world, a, b);
    // At the target, y'/x' = target and x'·y' = x·y.
    const xTarget = Math.sqrt((x * y) / target);
    const sellA = xTarget > x;
    const tokenIn = sellA ? a : b;
    const tokenOut = sellA ? b : a;
    const wanted = BigInt(Math.floor(sellA ? xTarget - x : xTarget * target - y));
    const balance = tokenIn === NEAR_TOKEN_ID ? wanted : world.tokens.balance(tokenIn, ARBITRAGEUR);
    const amountIn = wanted < balance ? wanted : balance;
    if (amountIn < 2n) return;
    const state = this.dexes.ammC.pools.find((p) => String(p.id) === pool.id)!;
    if (tokenOut !== NEAR_TOKEN_ID && !world.tokens.isRegistered(tokenOut, ARBITRAGEUR)) world.tokens.register(ARBITRAGEUR, tokenOut);
    this.dexes.ammC.swap(world, ARBITRAGEUR, [{ pool: state, tokenIn, tokenOut }], amountIn, 1n);
  }

  /** The market's price of one smallest unit of `a` in smallest units of `b`. */
  private rawPrice(world: World, a: string, b: string): number {
    const decimals = (t: string) => (t === NEAR_TOKEN_ID ? 24 : world.tokens.spec(t).decimals);
    return (this.usd.get(a)! / 10 ** decimals(a)) / (this.usd.get(b)! / 10 ** decimals(b));
  }
}
