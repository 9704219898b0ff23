// AmmA (Ref `v2.ref-finance.near`) on the devnet: simple pools and StableSwap pools. Every pool change is a borsh
// write of `00 ‖ u64le(id)` (the contract's layout, encoded by dexes/amm-a/state.ts); the logs are the contract's
// (ref-finance/ref-contracts @ 1800d26, ref-exchange/src):
// - instant swaps (`ft_transfer_call` to the exchange, msg `{"actions": [...]}`), one or two hops: exact in
//   (`SwapAction`s, `Swapped <a> <x> for <b> <y>`) or exact out (`SwapByOutputAction`s: the first names the output's
//   `amount_out`, the next has none and buys what the previous one spent; `Swap_by_output <a> <x> for <b> <y>` per
//   action, in action order; what the input left over goes back to the sender with the output);
// - simple-pool liquidity: `Liquidity added [...], minted <n> shares`;
// - stable-pool liquidity, on inner balances a wallet deposits first (`ft_transfer_call` msg ""):
//   `add_stable_liquidity` (`Mint <shares> shares for <lp>, fee is <fee> shares`), `remove_liquidity`
//   (`LP <lp> remove <shares> shares to gain tokens [<a>, <b>]`), `remove_liquidity_by_tokens` (`LP <lp> removed
//   <shares> shares by given tokens, and fee is <fee> shares`); shares and fees as stable_swap/math.rs computes them,
//   and the admin-fee line (`Exchange <id> got 0 shares, No referral fee, from ...`) when a fee is charged.
// Inner balances are kept in memory only (the indexer does not read them). Simplifications: the admin fee is 0 (no
// admin-fee share minting), swap volumes frozen in the pool value (as mainnet since 1.9.11), no swaps on stable
// pools, no rated or degen pools, no amp ramps.
// Views (views.rs, in its answer shapes; what the bootstrap reads): get_number_of_pools, get_pools, get_pool,
// get_stable_pool / get_rated_pool / get_degen_pool, get_pool_volumes, list_pool_volumes, list_rated_tokens.
import { simpleGetAmountIn, simpleGetAmountOut } from '../dexes/amm-a/math.ts';
import { ampFactorAt, computeD, MIN_RESERVE } from '../dexes/amm-a/stable-math.ts';
import { amountToCAmount, cAmountToAmount, encodePool, poolKey, type AmmAPoolState, type SimplePoolState, type StableLikePoolState } from '../dexes/amm-a/state.ts';
import { Panic, type Receipt } from './chain.ts';
import type { RpcViewAnswer } from './rpc.ts';
import type { TokenSpec } from './tokens.ts';
import { recordTrade, type DevnetDex, type World } from './world.ts';

const TGAS = 10n ** 12n;
/** The contract's INIT_SHARES_SUPPLY. */
const INIT_SHARES = 10n ** 24n;
/** stable_swap/mod.rs TARGET_DECIMAL. */
const STABLE_DECIMALS = 18;

export interface AmmAPoolSpec {
  tokens: [string, string];
  /** Whole tokens (times 10^decimals). */
  liquidity: [bigint, bigint];
  fee: number;
}

/** A stable pool; its tokens are deployed by the model (10^9 whole tokens to the treasury, a slice to each wallet)
 * unless they exist already. */
export interface AmmAStablePoolSpec {
  tokens: [TokenSpec, TokenSpec];
  liquidity: [bigint, bigint];
  fee: number;
  amp: bigint;
}

export type AmmAHop = { pool: SimplePoolState; tokenIn: string; tokenOut: string };

export class AmmADevnet implements DevnetDex {
  readonly id = 'AmmA' as const;
  readonly pools: SimplePoolState[] = [];
  readonly stablePools: StableLikePoolState[] = [];
  private nextPoolId = 0;
  private readonly deposits = new Map<string, Map<string, bigint>>();
  /** LP shares of the stable pools: pool id -> account -> shares. */
  private readonly lpShares = new Map<number, Map<string, bigint>>();

  constructor(
    private readonly specs: AmmAPoolSpec[],
    private readonly stableSpecs: AmmAStablePoolSpec[] = [],
  ) {}

  genesis(world: World): void {
    const { tokens, treasury, contracts, wallets, rng } = world;
    const ref = contracts.AmmA;
    for (const spec of this.stableSpecs) {
      for (const token of spec.tokens) {
        if (tokens.has(token.contractId)) continue;
        tokens.deploy(token, treasury, 1_000_000_000n * 10n ** BigInt(token.decimals));
        for (const wallet of wallets) {
          tokens.register(wallet, token.contractId);
          tokens.send(treasury, token.contractId, wallet, rng.bigint(1_000n, 50_000n) * 10n ** BigInt(token.decimals));
        }
      }
    }
    const all = [...this.specs.flatMap((s) => s.tokens), ...this.stableSpecs.flatMap((s) => s.tokens.map((t) => t.contractId))];
    for (const token of new Set(all)) tokens.register(treasury, token, ref);
    for (const spec of this.specs) {
      const amounts = spec.liquidity.map((n, i) => n * 10n ** BigInt(tokens.spec(spec.tokens[i]!).decimals)) as [bigint, bigint];
      const poolId = this.addSimplePool(world, spec.tokens, spec.fee);
      amounts.forEach((amount, i) => this.deposit(world, treasury, spec.tokens[i]!, amount));
      this.addLiquidity(world, treasury, poolId, amounts);
    }
    for (const spec of this.stableSpecs) {
      const pool = this.addStablePool(world, spec);
      const amounts = spec.liquidity.map((n, i) => n * 10n ** BigInt(spec.tokens[i]!.decimals));
      amounts.forEach((amount, i) => this.deposit(world, treasury, pool.tokens[i]!, amount));
      this.addStableLiquidity(world, treasury, pool, amounts);
    }
  }

  act(world: World, trader: string): void {
    const { rng, tokens } = world;
    if (this.stablePools.length > 0 && rng.chance(0.2)) {
      this.stableLiquidity(world, trader, rng.pick(this.stablePools));
      return;
    }
    const pool = rng.pick(this.pools);
    // Sometimes two hops: through a second pool that shares the first one's output token.
    const first = rng.int(2);
    const tokenIn = pool.tokens[first]!;
    let mid = pool.tokens[1 - first]!;
    const path: AmmAHop[] = [{ pool, tokenIn, tokenOut: mid }];
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
    if (rng.chance(0.25)) {
      // Exact out: that output, for at most what the pools ask now plus 1%. One in twenty caps the first hop's
      // max_amount_in one unit below what it costs: the receipt fails (after logging the later hops, whose actions
      // come first).
      const need = this.quoteIn(path, expected);
      const transferred = need === null ? null : (need * 101n) / 100n;
      if (need === null || transferred === null || transferred > balance) return;
      this.swapByOutput(world, trader, path, expected, transferred, rng.chance(0.05) ? need - 1n : transferred);
      return;
    }
    // One swap in ten asks for more than the pools give: the receipt fails after logging its hops.
    const minOut = rng.chance(0.1) ? expected + 1n : (expected * 99n) / 100n;
    this.swap(world, trader, path, amountIn, minOut);
  }

  /** An instant swap along `path`: `ft_transfer_call` of `amountIn` with the swap actions; below `minOut` it fails. */
  swap(world: World, trader: string, path: AmmAHop[], amountIn: bigint, minOut: bigint): void {
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
    world.tokens.transferCall(trader, path[0]!.tokenIn, world.contracts.AmmA, amountIn, msg, (r) => this.instantSwap(world, r, trader, path, amountIn, minOut));
  }

  /** The exchange's views, answered from the pools now (the state after the devnet's latest block). */
  view(world: World, contractId: string, method: string, args: Record<string, unknown>): RpcViewAnswer | undefined {
    if (contractId !== world.contracts.AmmA) return undefined;
    const pools = [...this.pools, ...this.stablePools].sort((a, b) => a.poolId - b.poolId);
    // near-sdk's argument parsing and the contract's panics, as the node reports them.
    const panic = (message: string): RpcViewAnswer => ({ vmError: `HostError(GuestPanic { panic_msg: ${JSON.stringify(message)} })` });
    const badArgs = panic('Failed to deserialize input from JSON.');
    const u64 = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
    const range = (): AmmAPoolState[] | null => (u64(args.from_index) && u64(args.limit) ? pools.slice(args.from_index, args.from_index + args.limit) : null);
    const one = (): AmmAPoolState | RpcViewAnswer => (u64(args.pool_id) ? (pools[args.pool_id] ?? panic('E85: invalid pool id')) : badArgs);
    const isPool = (p: AmmAPoolState | RpcViewAnswer): p is AmmAPoolState => 'poolId' in p;
    switch (method) {
      case 'get_number_of_pools':
        return { value: pools.length };
      case 'get_pools': {
        const list = range();
        return list === null ? badArgs : { value: list.map((p) => poolInfo(world, p)) };
      }
      case 'get_pool': {
        const pool = one();
        return isPool(pool) ? { value: poolInfo(world, pool) } : pool;
      }
      case 'get_stable_pool':
      case 'get_rated_pool':
      case 'get_degen_pool': {
        const pool = one();
        if (!isPool(pool)) return pool;
        // Each view's From<Pool> is `unimplemented!()` for the other kinds.
        if (pool.kind === 'simple' || method !== `get_${pool.kind}_pool`) return panic('not implemented');
        return { value: stableLikeInfo(world, pool) };
      }
      case 'get_pool_volumes': {
        const pool = one();
        return isPool(pool) ? { value: volumesView(pool) } : pool;
      }
      case 'list_pool_volumes': {
        const list = range();
        return list === null ? badArgs : { value: list.map(volumesView) };
      }
      case 'list_rated_tokens':
        return { value: {} }; // no rated tokens on the devnet
      default:
        return { vmError: 'MethodResolveError(MethodNotFound)' };
    }
  }

  reserves(): Map<string, bigint[]> {
    return new Map([...this.pools, ...this.stablePools].map((p) => [String(p.poolId), [...p.amounts]]));
  }

  private quote(path: AmmAHop[], amountIn: bigint): bigint {
    let amount = amountIn;
    for (const hop of path) {
      const i = hop.pool.tokens.indexOf(hop.tokenIn);
      amount = simpleGetAmountOut(hop.pool.amounts[i]!, hop.pool.amounts[1 - i]!, amount, hop.pool.totalFee);
    }
    return amount;
  }

  /** `ft_on_transfer` with swap actions: every hop logs and writes its pool; the output is sent back. */
  private instantSwap(world: World, r: Receipt, trader: string, path: AmmAHop[], amountIn: bigint, minOut: bigint): bigint {
    let amount = amountIn;
    for (const hop of path) {
      const pool = hop.pool;
      const i = pool.tokens.indexOf(hop.tokenIn);
      const out = simpleGetAmountOut(pool.amounts[i]!, pool.amounts[1 - i]!, amount, pool.totalFee);
      if (out === 0n) throw new Panic('E11: insufficient output amount');
      this.moveReserves(r, pool, i, amount, out);
      r.log(`Swapped ${amount} ${hop.tokenIn} for ${out} ${hop.tokenOut}`);
      r.write(poolKey(pool.poolId), encodePool(pool));
      recordTrade(world, r, { dex: 'AmmA', poolId: String(pool.poolId), trader, tokenIn: hop.tokenIn, tokenOut: hop.tokenOut, amountIn: amount, amountOut: out });
      amount = out;
    }
    if (amount < minOut) throw new Panic('ERR68: slippage error');
    world.tokens.payout(r, path.at(-1)!.tokenOut, trader, amount);
    return 0n;
  }

  /** The input a path asks for `amountOut` of its last token (null: more than a pool holds). */
  private quoteIn(path: AmmAHop[], amountOut: bigint): bigint | null {
    let amount: bigint | null = amountOut;
    for (const hop of [...path].reverse()) {
      const i = hop.pool.tokens.indexOf(hop.tokenIn);
      if (amount === null || amount === 0n) return null;
      amount = simpleGetAmountIn(hop.pool.amounts[i]!, hop.pool.amounts[1 - i]!, amount, hop.pool.totalFee);
    }
    return amount;
  }

  /** An instant swap by output: `ft_transfer_call` of `transferred`, msg with `SwapByOutputAction`s from the path's
   * last hop back to its first: the first names `amount_out: target`, the last `max_amount_in: maxIn`. */
  swapByOutput(world: World, trader: string, path: AmmAHop[], target: bigint, transferred: bigint, maxIn: bigint): void {
    const actions = [...path].reverse().map((hop, i) => ({
      pool_id: hop.pool.poolId,
      token_in: hop.tokenIn,
      token_out: hop.tokenOut,
      ...(i === 0 ? { amount_out: target.toString() } : {}),
      ...(i === path.length - 1 ? { max_amount_in: maxIn.toString() } : {}),
    }));
    const msg = JSON.stringify({ actions, skip_unwrap_near: true });
    world.tokens.transferCall(trader, path[0]!.tokenIn, world.contracts.AmmA, transferred, msg, (r) => this.instantSwapByOutput(world, r, trader, path, target, transferred, maxIn));
  }

  /** `ft_on_transfer` with swap-by-output actions (lib.rs internal_execute_actions): the last hop first, each buying
   * what the one before spent; the output and what is left of the input go back to the sender. */
  private instantSwapByOutput(world: World, r: Receipt, trader: string, path: AmmAHop[], target: bigint, transferred: bigint, maxIn: bigint): bigint {
    let amountOut = target;
    for (const hop of [...path].reverse()) {
      const pool = hop.pool;
      const i = pool.tokens.indexOf(hop.tokenIn);
      const amountIn = simpleGetAmountIn(pool.amounts[i]!, pool.amounts[1 - i]!, amountOut, pool.totalFee);
      if (amountIn === null) throw new Panic('E76: invalid params');
      if (hop === path[0] && amountIn > maxIn) throw new Panic('E68: slippage error');
      this.moveReserves(r, pool, i, amountIn, amountOut);
      r.log(`Swap_by_output ${amountIn} ${hop.tokenIn} for ${amountOut} ${hop.tokenOut}`);
      r.write(poolKey(pool.poolId), encodePool(pool));
      recordTrade(world, r, { dex: 'AmmA', poolId: String(pool.poolId), trader, tokenIn: hop.tokenIn, tokenOut: hop.tokenOut, amountIn, amountOut });
      amountOut = amountIn;
    }
    if (amountOut > transferred) throw new Panic('E22: not enough tokens in deposit');
    if (transferred > amountOut) world.tokens.payout(r, path[0]!.tokenIn, trader, transferred - amountOut);
    world.tokens.payout(r, path.at(-1)!.tokenOut, trader, target);
    return 0n;
  }

  /** `in` more of token `i`, `out` less of the other; undone if the receipt fails. */
  private moveReserves(r: Receipt, pool: SimplePoolState, i: number, amountIn: bigint, amountOut: bigint): void {
    const before = [...pool.amounts];
    pool.amounts[i] = pool.amounts[i]! + amountIn;
    pool.amounts[1 - i] = pool.amounts[1 - i]! - amountOut;
    r.onRevert(() => void pool.amounts.splice(0, 2, ...before));
  }

  private addSimplePool(world: World, tokens: [string, string], fee: number): number {
    const poolId = this.nextPoolId++;
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
      sharesPrefixHex: sharesPrefix(poolId),
      sharesTotalSupply: 0n,
    };
    this.pools.push(pool);
    this.createPool(world, pool, 'add_simple_pool', { tokens, fee });
    return poolId;
  }

  private addStablePool(world: World, spec: AmmAStablePoolSpec): StableLikePoolState {
    const poolId = this.nextPoolId++;
    const tokens = spec.tokens.map((t) => t.contractId);
    const pool: StableLikePoolState = {
      poolId,
      kind: 'stable',
      tokens,
      amounts: [0n, 0n],
      volumes: tokens.map(() => ({ input: 0n, output: 0n })),
      totalFee: spec.fee,
      sharesPrefixHex: sharesPrefix(poolId),
      sharesTotalSupply: 0n,
      decimals: spec.tokens.map((t) => t.decimals),
      targetDecimals: STABLE_DECIMALS,
      cAmounts: [0n, 0n],
      initAmpFactor: spec.amp,
      targetAmpFactor: spec.amp,
      initAmpTime: 0n,
      stopAmpTime: 0n,
    };
    this.stablePools.push(pool);
    this.lpShares.set(poolId, new Map());
    const args = { tokens, decimals: pool.decimals, fee: spec.fee, amp_factor: Number(spec.amp) };
    this.createPool(world, pool, 'add_stable_swap_pool', args);
    return pool;
  }

  private createPool(world: World, pool: AmmAPoolState, method: string, args: unknown): void {
    const call = { method, args, deposit: 10n ** 22n * 5n, gas: 30n * TGAS };
    world.chain.transact(world.treasury, world.contracts.AmmA, [call], (r) => {
      r.write(poolKey(pool.poolId), encodePool(pool));
      return pool.poolId;
    });
  }

  /** Into the inner balance: `ft_transfer_call` with msg "". */
  deposit(world: World, account: string, token: string, amount: bigint): void {
    world.tokens.transferCall(account, token, world.contracts.AmmA, amount, '', (r) => {
      this.addInner(r, account, token, amount);
      // A token into its inner balance is a trade of Wrap.
      recordTrade(world, r, { dex: 'Wrap', poolId: null, trader: account, tokenIn: token, tokenOut: `inner-nep141:${token}`, amountIn: amount, amountOut: amount });
      return 0n;
    });
  }

  /** Adds `amount` (negative: takes it) to an inner balance; E22 when it would go below zero. */
  private addInner(r: Receipt, account: string, token: string, amount: bigint): void {
    const inner = this.deposits.get(account) ?? new Map<string, bigint>();
    this.deposits.set(account, inner);
    const before = inner.get(token) ?? 0n;
    if (before + amount < 0n) throw new Panic('E22: not enough tokens in deposit');
    inner.set(token, before + amount);
    r.onRevert(() => inner.set(token, before));
  }

  private addLiquidity(world: World, account: string, poolId: number, amounts: [bigint, bigint]): void {
    const pool = this.pools[poolId]!;
    const call = { method: 'add_liquidity', args: { pool_id: poolId, amounts: amounts.map(String) }, deposit: 10n ** 22n, gas: 30n * TGAS };
    world.chain.transact(account, world.contracts.AmmA, [call], (r) => {
      amounts.forEach((a, i) => this.addInner(r, account, pool.tokens[i]!, -a));
      const shares = pool.sharesTotalSupply === 0n ? INIT_SHARES : minBig(...amounts.map((a, i) => (a * pool.sharesTotalSupply) / pool.amounts[i]!));
      amounts.forEach((a, i) => (pool.amounts[i] = pool.amounts[i]! + a));
      pool.sharesTotalSupply += shares;
      r.log(`Liquidity added ${JSON.stringify(amounts.map((a, i) => `${a} ${pool.tokens[i]}`)).replaceAll(',', ', ')}, minted ${shares} shares`);
      r.write(poolKey(poolId), encodePool(pool));
    });
  }

  // ---- stable pools ----

  /** A wallet adds to the stable pool (its deposits first; one side alone now and then, which costs a fee), or,
   * holding shares, takes some out by shares or by tokens. */
  private stableLiquidity(world: World, account: string, pool: StableLikePoolState): void {
    const { rng, tokens } = world;
    const held = this.lpShares.get(pool.poolId)!.get(account) ?? 0n;
    if (held > 0n && rng.chance(0.6)) {
      const shares = rng.bigint(1n, held);
      if (rng.chance(0.5)) {
        this.removeStableLiquidity(world, account, pool, shares);
      } else {
        // Tokens worth about half the shares' balanced part, from one side or both.
        const side = rng.int(3);
        const amounts = pool.cAmounts.map((c, i) => (side === 2 || side === i ? cAmountToAmount((c * shares) / pool.sharesTotalSupply / 2n, pool.decimals[i]!, STABLE_DECIMALS) : 0n));
        if (amounts.every((a) => a === 0n)) return;
        this.removeStableLiquidityByTokens(world, account, pool, amounts, held);
      }
      return;
    }
    const side = rng.int(4); // 0, 1: that token alone; 2, 3: both
    const amounts = pool.tokens.map((t, i) => (side === i || side >= 2 ? tokens.balance(t, account) / rng.bigint(50n, 500n) : 0n));
    if (amounts.every((a) => a === 0n)) return;
    for (const [i, a] of amounts.entries()) if (a > 0n) this.deposit(world, account, pool.tokens[i]!, a);
    this.addStableLiquidity(world, account, pool, amounts);
  }

  /** `add_stable_liquidity {pool_id, amounts, min_shares}` (stable_swap/mod.rs add_liquidity). */
  addStableLiquidity(world: World, account: string, pool: StableLikePoolState, amounts: bigint[]): void {
    const args = { pool_id: pool.poolId, amounts: amounts.map(String), min_shares: '1' };
    world.chain.transact(account, world.contracts.AmmA, [{ method: 'add_stable_liquidity', args, deposit: 10n ** 22n, gas: 30n * TGAS }], (r) => {
      const deposit = amounts.map((a, i) => amountToCAmount(a, pool.decimals[i]!, STABLE_DECIMALS));
      const next = pool.cAmounts.map((c, i) => c + deposit[i]!);
      let shares: bigint;
      let fee = 0n;
      if (pool.sharesTotalSupply === 0n) {
        if (deposit.some((c) => c === 0n)) throw new Panic('E65: init token balance should be non-zero');
        shares = invariant(next, pool.targetAmpFactor);
      } else {
        const { d0, d1, d2 } = invariants(pool.cAmounts, next, pool.targetAmpFactor, pool.totalFee);
        if (d1 <= d0) throw new Panic('E67: lpshare calc err');
        shares = (pool.sharesTotalSupply * (d2 - d0)) / d0;
        fee = (pool.sharesTotalSupply * (d1 - d0)) / d0 - shares;
      }
      if (shares < 1n) throw new Panic('E68: slippage error');
      amounts.forEach((a, i) => this.addInner(r, account, pool.tokens[i]!, -a));
      this.changeStable(r, pool, account, next, shares);
      r.log(`Mint ${shares} shares for ${account}, fee is ${fee} shares`);
      if (fee > 0n) r.log(`Exchange ${world.contracts.AmmA} got 0 shares, No referral fee, from add_liquidity`);
      r.write(poolKey(pool.poolId), encodePool(pool));
    });
  }

  /** `remove_liquidity {pool_id, shares, min_amounts}` (remove_liquidity_by_shares): each token's share of the pool. */
  removeStableLiquidity(world: World, account: string, pool: StableLikePoolState, shares: bigint): void {
    const args = { pool_id: pool.poolId, shares: shares.toString(), min_amounts: pool.tokens.map(() => '0') };
    world.chain.transact(account, world.contracts.AmmA, [{ method: 'remove_liquidity', args, deposit: 1n, gas: 30n * TGAS }], (r) => {
      const out = pool.cAmounts.map((c) => (c * shares) / pool.sharesTotalSupply);
      const next = pool.cAmounts.map((c, i) => c - out[i]!);
      if (next.some((c) => c < MIN_RESERVE.stable)) throw new Panic('E69: pool reserved token balance less than MIN_RESERVE');
      const amounts = out.map((c, i) => cAmountToAmount(c, pool.decimals[i]!, STABLE_DECIMALS));
      this.changeStable(r, pool, account, next, -shares);
      amounts.forEach((a, i) => this.addInner(r, account, pool.tokens[i]!, a));
      r.log(`LP ${account} remove ${shares} shares to gain tokens [${amounts.join(', ')}]`);
      r.write(poolKey(pool.poolId), encodePool(pool));
    });
  }

  /** `remove_liquidity_by_tokens {pool_id, amounts, max_burn_shares}`: the shares those amounts cost, fee included. */
  removeStableLiquidityByTokens(world: World, account: string, pool: StableLikePoolState, amounts: bigint[], maxBurn: bigint): void {
    const args = { pool_id: pool.poolId, amounts: amounts.map(String), max_burn_shares: maxBurn.toString() };
    world.chain.transact(account, world.contracts.AmmA, [{ method: 'remove_liquidity_by_tokens', args, deposit: 1n, gas: 30n * TGAS }], (r) => {
      const next = pool.cAmounts.map((c, i) => c - amountToCAmount(amounts[i]!, pool.decimals[i]!, STABLE_DECIMALS));
      if (next.some((c) => c < MIN_RESERVE.stable)) throw new Panic('E69: pool reserved token balance less than MIN_RESERVE');
      const { d0, d1, d2 } = invariants(pool.cAmounts, next, pool.targetAmpFactor, pool.totalFee);
      if (d1 >= d0) throw new Panic('E67: lpshare calc err');
      const burn = (pool.sharesTotalSupply * (d0 - d2)) / d0;
      const fee = burn - (pool.sharesTotalSupply * (d0 - d1)) / d0;
      if (burn > (this.lpShares.get(pool.poolId)!.get(account) ?? 0n)) throw new Panic('E34: insufficient lp shares');
      if (burn > maxBurn) throw new Panic('E68: slippage error');
      this.changeStable(r, pool, account, next, -burn);
      amounts.forEach((a, i) => this.addInner(r, account, pool.tokens[i]!, a));
      r.log(`LP ${account} removed ${burn} shares by given tokens, and fee is ${fee} shares`);
      if (fee > 0n) r.log(`Exchange ${world.contracts.AmmA} got 0 shares, No referral fee, from remove_liquidity_by_tokens`);
      r.write(poolKey(pool.poolId), encodePool(pool));
    });
  }

  /** The pool's new c-amounts (and raw amounts), `shares` more (or fewer) for `account` and in the supply. */
  private changeStable(r: Receipt, pool: StableLikePoolState, account: string, cAmounts: bigint[], shares: bigint): void {
    const holders = this.lpShares.get(pool.poolId)!;
    const before = { cAmounts: pool.cAmounts, amounts: pool.amounts, supply: pool.sharesTotalSupply, held: holders.get(account) ?? 0n };
    pool.cAmounts = cAmounts;
    pool.amounts = cAmounts.map((c, i) => cAmountToAmount(c, pool.decimals[i]!, STABLE_DECIMALS));
    pool.sharesTotalSupply += shares;
    holders.set(account, before.held + shares);
    r.onRevert(() => {
      Object.assign(pool, { cAmounts: before.cAmounts, amounts: before.amounts, sharesTotalSupply: before.supply });
      holders.set(account, before.held);
    });
  }
}

/** The contract's compute_d (stable_swap/math.rs); a reserve it cannot take (zero) fails the receipt. */
function invariant(cAmounts: bigint[], amp: bigint): bigint {
  const d = computeD(cAmounts, amp);
  if (d === null) throw new Panic('E66: invariant calc err');
  return d;
}

/**
 * compute_lp_amount_for_deposit / _for_withdraw (stable_swap/math.rs): D before (d0) and after (d1) the change, and
 * d2 after charging each token's distance from its ideal balance d1·old/d0 the normalized fee
 * (total_fee·n / (4·(n−1)) bps, u32 division).
 */
function invariants(old: bigint[], next: bigint[], amp: bigint, totalFee: number): { d0: bigint; d1: bigint; d2: bigint } {
  const d0 = invariant(old, amp);
  const d1 = invariant(next, amp);
  const n = BigInt(old.length);
  const feeBps = (BigInt(totalFee) * n) / (4n * (n - 1n));
  const charged = next.map((c, i) => {
    const ideal = (d1 * old[i]!) / d0;
    return c - ((ideal > c ? ideal - c : c - ideal) * feeBps) / 10_000n;
  });
  return { d0, d1, d2: invariant(charged, amp) };
}

/** views.rs `PoolInfo`: `amp` is the current factor (0 for a simple pool), amounts in raw units. */
function poolInfo(world: World, pool: AmmAPoolState) {
  const kind = { simple: 'SIMPLE_POOL', stable: 'STABLE_SWAP', rated: 'RATED_SWAP', degen: 'DEGEN_SWAP' }[pool.kind];
  const amounts = pool.kind === 'simple' ? pool.amounts : rawAmounts(pool);
  return {
    pool_kind: kind,
    token_account_ids: [...pool.tokens],
    amounts: amounts.map(String),
    total_fee: pool.totalFee,
    shares_total_supply: pool.sharesTotalSupply.toString(),
    amp: pool.kind === 'simple' ? 0 : Number(currentAmp(world, pool)),
  };
}

/** views.rs `StablePoolInfo` (and `RatedPoolInfo` / `DegenPoolInfo`, which the devnet has none of). */
function stableLikeInfo(world: World, pool: StableLikePoolState) {
  return {
    token_account_ids: [...pool.tokens],
    decimals: [...pool.decimals],
    amounts: rawAmounts(pool).map(String),
    c_amounts: pool.cAmounts.map(String),
    total_fee: pool.totalFee,
    shares_total_supply: pool.sharesTotalSupply.toString(),
    amp: Number(currentAmp(world, pool)),
  };
}

/** `get_amounts`: the c-amounts in each token's decimals. */
function rawAmounts(pool: StableLikePoolState): bigint[] {
  return pool.cAmounts.map((c, i) => cAmountToAmount(c, pool.decimals[i]!, pool.targetDecimals));
}

/** `get_amp`: the factor at the view's block (the last sealed one); 0 where the contract's compute fails. */
function currentAmp(world: World, pool: StableLikePoolState): bigint {
  const nowNs = BigInt(world.chain.timestampMs - world.chain.blockMs) * 1_000_000n;
  return ampFactorAt(pool.initAmpFactor, pool.targetAmpFactor, pool.initAmpTime, pool.stopAmpTime, nowNs) ?? 0n;
}

/** `Vec<SwapVolumeU256View>`: the live figures under `sv`, which the devnet never writes, hence the frozen ones. */
function volumesView(pool: AmmAPoolState) {
  return pool.volumes.map((v) => ({ input: v.input.toString(), output: v.output.toString() }));
}

function sharesPrefix(poolId: number): string {
  return Buffer.from([2, poolId & 0xff, (poolId >>> 8) & 0xff, (poolId >>> 16) & 0xff, (poolId >>> 24) & 0xff]).toString('hex');
}

function minBig(...values: bigint[]): bigint {
  return values.reduce((a, b) => (b < a ? b : a));
}
