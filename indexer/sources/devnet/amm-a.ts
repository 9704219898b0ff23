// AmmA (Ref `v2.ref-finance.near`) on the devnet: simple pools only. Every pool change is a borsh write of
// `00 ‖ u64le(id)` (the contract's layout, encoded by dexes/amm-a/state.ts), swaps log `Swapped <a> <x> for <b> <y>`,
// liquidity logs `Liquidity added [...], minted <n> shares`. Inner balances are kept in memory only (the indexer
// does not read them). Simplifications: no admin-fee share minting, swap volumes frozen in the pool value (as
// mainnet since 1.9.11), no stable or rated pools.
import { simpleGetAmountOut } from '../../../dexes/amm-a/math.ts';
import { encodePool, poolKey, type SimplePoolState } from '../../../dexes/amm-a/state.ts';
import { Panic, type Receipt } from './chain.ts';
import { recordTrade, type DevnetDex, type World } from './world.ts';

const TGAS = 10n ** 12n;
/** The contract's INIT_SHARES_SUPPLY. */
const INIT_SHARES = 10n ** 24n;

export interface AmmAPoolSpec {
  tokens: [string, string];
  /** Whole tokens (times 10^decimals). */
  liquidity: [bigint, bigint];
  fee: number;
}

export class AmmADevnet implements DevnetDex {
  readonly id = 'AmmA' as const;
  readonly pools: SimplePoolState[] = [];
  private readonly deposits = new Map<string, Map<string, bigint>>();

  constructor(private readonly specs: AmmAPoolSpec[]) {}

  genesis(world: World): void {
    const { tokens, treasury, contracts } = world;
    const ref = contracts.AmmA;
    for (const token of new Set(this.specs.flatMap((s) => s.tokens))) tokens.register(treasury, token, ref);
    for (const spec of this.specs) {
      const amounts = spec.liquidity.map((n, i) => n * 10n ** BigInt(tokens.spec(spec.tokens[i]!).decimals)) as [bigint, bigint];
      const poolId = this.addPool(world, spec.tokens, spec.fee);
      amounts.forEach((amount, i) => this.deposit(world, treasury, spec.tokens[i]!, amount));
      this.addLiquidity(world, treasury, poolId, amounts);
    }
  }

  act(world: World, trader: string): void {
    const { rng, tokens } = world;
    const pool = rng.pick(this.pools);
    // Sometimes two hops: through a second pool that shares the first one's output token.
    const first = rng.int(2);
    const tokenIn = pool.tokens[first]!;
    let mid = pool.tokens[1 - first]!;
    const path: Array<{ pool: SimplePoolState; tokenIn: string; tokenOut: string }> = [{ pool, tokenIn, tokenOut: mid }];
    const next = this.pools.filter((p) => p !== pool && p.tokens.includes(mid) && !p.tokens.includes(tokenIn));
    if (next.length && rng.chance(0.3)) {
      const p = rng.pick(next);
      const out = p.tokens[0] === mid ? p.tokens[1]! : p.tokens[0]!;
      path.push({ pool: p, tokenIn: mid, tokenOut: out });
      mid = out;
    }
    const balance = tokens.balance(tokenIn, trader);
    if (balance === 0n || !tokens.isRegistered(mid, trader)) return;
    // Up to 2% of the trader's balance and 0.5% of the pool's input reserve.
    const reserveIn = pool.amounts[pool.tokens.indexOf(tokenIn)]!;
    const cap = minBig(balance / 50n, reserveIn / 200n);
    if (cap < 2n) return;
    const amountIn = rng.bigint(1n, cap);
    const expected = this.quote(path, amountIn);
    // One swap in twenty asks for more than the pools give: the receipt fails after logging its first hop.
    const minOut = rng.chance(0.05) ? expected + 1n : (expected * 99n) / 100n;
    const msg = JSON.stringify({
      force: 0,
      actions: path.map((hop, i) => ({
        pool_id: hop.pool.poolId,
        token_in: hop.tokenIn,
        token_out: hop.tokenOut,
        ...(i === 0 ? { amount_in: amountIn.toString() } : {}),
        min_amount_out: i === path.length - 1 ? minOut.toString() : '0',
      })),
      skip_unwrap_near: true,
    });
    tokens.transferCall(trader, tokenIn, world.contracts.AmmA, amountIn, msg, (r) => this.instantSwap(world, r, trader, path, amountIn, minOut));
  }

  reserves(): Map<string, bigint[]> {
    return new Map(this.pools.map((p) => [String(p.poolId), [...p.amounts]]));
  }

  private quote(path: Array<{ pool: SimplePoolState; tokenIn: string; tokenOut: string }>, amountIn: bigint): bigint {
    let amount = amountIn;
    for (const hop of path) {
      const i = hop.pool.tokens.indexOf(hop.tokenIn);
      amount = simpleGetAmountOut(hop.pool.amounts[i]!, hop.pool.amounts[1 - i]!, amount, hop.pool.totalFee);
    }
    return amount;
  }

  /** `ft_on_transfer` with swap actions: every hop logs and writes its pool; the output is sent back. */
  private instantSwap(
    world: World,
    r: Receipt,
    trader: string,
    path: Array<{ pool: SimplePoolState; tokenIn: string; tokenOut: string }>,
    amountIn: bigint,
    minOut: bigint,
  ): bigint {
    let amount = amountIn;
    for (const hop of path) {
      const pool = hop.pool;
      const i = pool.tokens.indexOf(hop.tokenIn);
      const out = simpleGetAmountOut(pool.amounts[i]!, pool.amounts[1 - i]!, amount, pool.totalFee);
      if (out === 0n) throw new Panic('E11: insufficient output amount');
      const before = [...pool.amounts];
      pool.amounts[i] = pool.amounts[i]! + amount;
      pool.amounts[1 - i] = pool.amounts[1 - i]! - out;
      r.onRevert(() => void pool.amounts.splice(0, 2, ...before));
      r.log(`Swapped ${amount} ${hop.tokenIn} for ${out} ${hop.tokenOut}`);
      r.write(poolKey(pool.poolId), encodePool(pool));
      recordTrade(world, r, { dex: 'AmmA', poolId: String(pool.poolId), trader, tokenIn: hop.tokenIn, tokenOut: hop.tokenOut, amountIn: amount, amountOut: out });
      amount = out;
    }
    if (amount < minOut) throw new Panic('ERR68: slippage error');
    world.tokens.payout(r, path.at(-1)!.tokenOut, trader, amount);
    return 0n;
  }

  private addPool(world: World, tokens: [string, string], fee: number): number {
    const poolId = this.pools.length;
    const pool: SimplePoolState = {
      poolId,
      kind: 'simple',
      tokens: [...tokens],
      amounts: [0n, 0n],
      volumes: [
        { input: 0n, output: 0n },
        { input: 0n, output: 0n },
      ],
      totalFee: fee,
      exchangeFee: 0,
      referralFee: 0,
      sharesPrefixHex: Buffer.from([2, ...u32le(poolId)]).toString('hex'),
      sharesTotalSupply: 0n,
    };
    this.pools.push(pool);
    const call = { method: 'add_simple_pool', args: { tokens, fee }, deposit: 10n ** 22n * 5n, gas: 30n * TGAS };
    world.chain.transact(world.treasury, world.contracts.AmmA, [call], (r) => {
      r.write(poolKey(poolId), encodePool(pool));
      return poolId;
    });
    return poolId;
  }

  /** Into the inner balance: `ft_transfer_call` with msg "". */
  private deposit(world: World, account: string, token: string, amount: bigint): void {
    world.tokens.transferCall(account, token, world.contracts.AmmA, amount, '', (r) => {
      const inner = this.deposits.get(account) ?? new Map<string, bigint>();
      this.deposits.set(account, inner);
      const before = inner.get(token) ?? 0n;
      inner.set(token, before + amount);
      r.onRevert(() => inner.set(token, before));
      // A token into its inner balance is a trade of Wrap.
      recordTrade(world, r, { dex: 'Wrap', poolId: null, trader: account, tokenIn: token, tokenOut: `inner-nep141:${token}`, amountIn: amount, amountOut: amount });
      return 0n;
    });
  }

  private addLiquidity(world: World, account: string, poolId: number, amounts: [bigint, bigint]): void {
    const pool = this.pools[poolId]!;
    const call = { method: 'add_liquidity', args: { pool_id: poolId, amounts: amounts.map(String) }, deposit: 10n ** 22n, gas: 30n * TGAS };
    world.chain.transact(account, world.contracts.AmmA, [call], (r) => {
      const inner = this.deposits.get(account);
      amounts.forEach((a, i) => {
        const have = inner?.get(pool.tokens[i]!) ?? 0n;
        if (have < a) throw new Panic('E22: not enough tokens in deposit');
      });
      amounts.forEach((a, i) => inner!.set(pool.tokens[i]!, inner!.get(pool.tokens[i]!)! - a));
      const shares = pool.sharesTotalSupply === 0n ? INIT_SHARES : minBig(...amounts.map((a, i) => (a * pool.sharesTotalSupply) / pool.amounts[i]!));
      amounts.forEach((a, i) => (pool.amounts[i] = pool.amounts[i]! + a));
      pool.sharesTotalSupply += shares;
      r.log(`Liquidity added ${JSON.stringify(amounts.map((a, i) => `${a} ${pool.tokens[i]}`)).replaceAll(',', ', ')}, minted ${shares} shares`);
      r.write(poolKey(poolId), encodePool(pool));
    });
  }
}

function u32le(n: number): number[] {
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
}

function minBig(...values: bigint[]): bigint {
  return values.reduce((a, b) => (b < a ? b : a));
}
