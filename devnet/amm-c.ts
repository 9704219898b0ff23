// AmmC on the devnet: the Intear DEX engine (`dex.intear.near`, DexContracts.AmmC) running its xyk DEX "Plach"
// (DexContracts.AmmCXykDexId). Accounts hold inner balances at the engine and hand it lists of operations:
// `ft_transfer_call` to the engine with msg `{"operations": [...], "referrer": R}`, `deposit_near {"operations":
// {"operations": [...], "referrer": R}}` with the NEAR attached, or `execute_operations {operations}`
// (near-facts.md "AmmC"; the shapes are INTEARnear/dex `intear-dex-types/src/engine_api.rs`). Operations played:
// `SwapSimple` (message: base64 of the borsh u32 pool id; amount `{"Amount": {"ExactIn"|"ExactOut": x}}` or
// `"OutputOfLastIn"`), `Withdraw` (`Full {at_least}`: the whole inner balance, refused below `at_least`) and the
// xyk DEX's `DexCall`s `create_pool`, `add_liquidity`, `remove_liquidity` (borsh args).
//
// The engine runs the DEX inside its own receipt and re-emits each DEX event as `dex_event {dex_id, event, referrer,
// user}`. Per swap hop the receipt logs the xyk `pool_updated` (the full pool view), the xyk `swap` (the real line's
// fields, T, plus `fees_breakdown`), then the engine's own `swap` (S: its source logs it; not seen on chain), the
// lines dexes/amm-c/README.md lists; every pool change logs `pool_updated`. Each run of operations starts with the
// engine's plain-text `Fully authorized: true` (its source's known line). A swap's amounts, fees, `fees_breakdown`
// and the reserves it leaves are the model's own arithmetic, amm-c-math.ts (S: written from the xyk DEX's Rust
// source, INTEARnear/dex @ 430bc76 `dexes/xyk/src/lib.rs` `XykDex::swap`; the pools' fees with the protocol's are
// its `withProtocolFee`, S: `dexes/xyk/types/src/lib.rs`). Nothing here imports dexes/amm-c/: the indexer takes
// AmmC pool states from the logged `pool_updated` views and quotes AmmC routes with dexes/amm-c/math.ts, so what a
// route quoted there pays here is the work of two implementations. A refused
// operation (min output not met; a swap the xyk DEX panics on, e.g. the launch pool's phantom floor, failing with
// the DEX's own message) panics the whole receipt: its logs stay in the block, nothing else does, and
// `ft_resolve_transfer` refunds the tokens.
//
// Simplifications: an account registers every asset of the pools at once (`storage_deposit {}` +
// `register_assets`), and nobody calls the xyk DEX's `register_liquidity` before `add_liquidity`; no referral fee
// is charged (no referrer registered settings, so the contract adds none); fees collected for accounts and the
// community stay in the engine uncounted; the engine's `user_balance_update` / `dex_balance_update` events are not
// logged. Liquidity is the model's own rule, not the contract's: a public pool's first `add_liquidity` mints
// INITIAL_SHARES for both amounts, as the contract does, but a later one here mints min(floor(a_i·T/R_i)) and keeps
// both amounts whole (callers send them in the pool's ratio), where the contract (`add_liquidity`, @ 430bc76) mints
// min(floor((a_i − 1)·T/R_i)), takes floor(shares·R_i/T) + 1 of each side and hands back the rest;
// `remove_liquidity` pays floor(R_i·shares/T) of each side, as the contract does.
import { withProtocolFee, XykPanic, xykSwap, type XykFeeReceiver, type XykPoolType, type XykSwapAmount, type XykSwapResult } from './amm-c-math.ts';
import { BorshError, BorshReader, BorshWriter } from '../near/borsh.ts';
import { b64 } from '../near/lake-json.ts';
import { NEAR_TOKEN_ID } from '../near/token-id.ts';
import { Panic, type Handler, type Receipt } from './chain.ts';
import type { RpcViewAnswer } from './rpc.ts';
import { ONE_YOCTO, type TokenSpec } from './tokens.ts';
import { recordTrade, type DevnetDex, type World } from './world.ts';

const TGAS = 10n ** 12n;
const NEAR = 10n ** 24n;
/** What the aggregator attaches to an AmmC swap (near-facts.md). */
const ENGINE_GAS = 280n * TGAS;
/** The engine's `storage_deposit {}` for an account (near-facts.md: 0.005 NEAR). */
const ENGINE_STORAGE_DEPOSIT = 5n * 10n ** 21n;
/** NEAR attached to `create_pool` for the pool's storage. */
const POOL_STORAGE_DEPOSIT = 10n ** 22n;
/** The xyk DEX's INITIAL_SHARES: what the first liquidity of a public pool mints. */
const INITIAL_SHARES = 10n ** 18n;
export interface AmmCPoolSpec {
  type: XykPoolType;
  /** `near` or NEP-141 contract ids, in contract order; a launch pool: [`near`, its launched token]. */
  tokens: [string, string];
  /** Whole tokens (times 10^decimals, NEAR 10^24); a launch pool: [its phantom NEAR, the launched supply]. */
  liquidity: [bigint, bigint];
  /** The pool's own fee, millionths of the input, kept in the reserves. */
  poolFee: number;
  /** A launch pool's community fee (millionths), collected in NEAR for the treasury. */
  communityFee?: number;
  /** A launch pool's token: deployed at genesis by the treasury, its whole supply going into the pool. */
  launched?: TokenSpec;
}

/**
 * A pool's state as its `pool_updated` reports it, field for field what the indexer's pool book keeps for the same
 * pool (the tests compare the two); written out here so the model imports nothing of dexes/amm-c.
 */
export interface AmmCModelPoolState {
  kind: 'xyk';
  poolType: XykPoolType;
  /** `near` or NEP-141 contract ids, in contract order; a launch pool: [`near`, its launched token]. */
  tokens: string[];
  /** The balances, in `tokens` order; a launch pool's amounts[0] is its `near_amount` (the phantom counted). */
  amounts: bigint[];
  /** Σ of `feeReceivers[].fee`. */
  totalFee: number;
  /** The view's `fees.receivers`: what a swap pays, the protocol's fee included (amm-c-math.ts `withProtocolFee`). */
  feeReceivers: XykFeeReceiver[];
  /** A launch pool's `phantom_liquidity_near`; null for other pools. */
  phantomLiquidity: bigint | null;
  /** A public pool's `total_shares` (null before its first liquidity); null for other pools. */
  totalShares: bigint | null;
}

export interface AmmCPool {
  id: number;
  /** The fees the pool was created with (its `fee_configuration`); `state.feeReceivers` adds the protocol fee. */
  configured: XykFeeReceiver[];
  state: AmmCModelPoolState;
  owner: string;
  /** Public pools: LP shares per account. */
  shares: Map<string, bigint>;
}

export interface AmmCHop {
  pool: AmmCPool;
  tokenIn: string;
  tokenOut: string;
}

/** One operation: what the msg says, and what the engine does with it inside the receipt. */
interface EngineOperation {
  json: Record<string, unknown>;
  run(run: Run): void;
}

/** The receipt running a list of operations for `user`. */
interface Run {
  world: World;
  r: Receipt;
  user: string;
  referrer: string | null;
  /** The last swap's output (`OutputOfLastIn`). */
  lastOutput: bigint | null;
}

export class AmmCDevnet implements DevnetDex {
  readonly id = 'AmmC' as const;
  readonly pools: AmmCPool[] = [];
  /** Inner balances at the engine: account -> asset id -> amount; an account is registered once it is here. */
  private readonly balances = new Map<string, Map<string, bigint>>();

  constructor(private readonly specs: AmmCPoolSpec[]) {}

  genesis(world: World): void {
    const { tokens, treasury, contracts } = world;
    for (const spec of this.specs) {
      if (spec.launched) tokens.deploy(spec.launched, treasury, spec.liquidity[1] * 10n ** BigInt(spec.launched.decimals));
    }
    for (const token of new Set(this.specs.flatMap((s) => s.tokens))) {
      if (token !== NEAR_TOKEN_ID) tokens.register(treasury, token, contracts.AmmC);
    }
    this.register(world, treasury);
    for (const spec of this.specs) {
      const amounts = spec.liquidity.map((n, i) => n * unitOf(world, spec.tokens[i]!)) as [bigint, bigint];
      const pool = this.createPool(world, treasury, spec, amounts);
      if (spec.type !== 'launch') this.addLiquidity(world, treasury, pool, amounts);
    }
  }

  act(world: World, trader: string): void {
    const { rng } = world;
    if (!this.balances.has(trader)) this.register(world, trader);
    const publicPools = this.pools.filter((p) => p.state.poolType === 'public');
    if (publicPools.length && rng.chance(0.15)) {
      const pool = rng.pick(publicPools);
      const owned = pool.shares.get(trader) ?? 0n;
      if (owned > 0n && rng.chance(0.5)) this.removeLiquidity(world, trader, pool, rng.bigint(1n, owned));
      else this.addLiquidityFromWallet(world, trader, pool);
      return;
    }
    this.randomSwap(world, trader);
  }

  reserves(): Map<string, bigint[]> {
    return new Map(this.pools.map((p) => [String(p.id), [...p.state.amounts]]));
  }

  /**
   * The engine's `dex_view {dex_id, method, args}`: a view of the xyk DEX, borsh args and answer in base64 (what
   * dexes/amm-c/bootstrap.ts reads): `get_pool_count` -> u32, `get_pools {start_index, limit}` -> Vec<PoolView>,
   * `get_pool {pool_id}` -> Option<PoolView>. Failures as the VM reports the engine's panics.
   */
  view(world: World, contractId: string, method: string, args: Record<string, unknown>): RpcViewAnswer | undefined {
    if (contractId !== world.contracts.AmmC) return undefined;
    const panic = (message: string): RpcViewAnswer => ({ vmError: `HostError(GuestPanic { panic_msg: ${JSON.stringify(message)} })` });
    if (method !== 'dex_view') return { vmError: 'MethodResolveError(MethodNotFound)' };
    if (args.dex_id !== world.contracts.AmmCXykDexId) return panic('Dex code not found');
    if (typeof args.args !== 'string') return panic('Failed to deserialize input from JSON.');
    const input = BorshReader.fromBase64(args.args);
    const out = new BorshWriter();
    try {
      switch (args.method) {
        case 'get_pool_count':
          out.u32(this.pools.length);
          break;
        case 'get_pools': {
          const start = input.u32();
          const limit = input.u32();
          input.done();
          out.vec(this.pools.slice(start, start + limit), (w, pool) => writePoolView(w, pool));
          break;
        }
        case 'get_pool': {
          const pool = this.pools[input.u32()];
          input.done();
          if (pool === undefined) out.u8(0);
          else writePoolView(out.u8(1), pool);
          break;
        }
        default:
          return panic('Failed to get function');
      }
    } catch (err) {
      if (err instanceof BorshError) return panic('Failed to call function: Failed to deserialize input from borsh.');
      throw err;
    }
    return { value: b64(out.bytes()) };
  }

  // ---- transactions ----

  /** `storage_deposit {}` and `register_assets {asset_ids}` (NEAR, which pays pool storage, and every asset of the pools). */
  register(world: World, account: string): void {
    const assetIds = [...new Set([NEAR_TOKEN_ID, ...this.specs.flatMap((s) => s.tokens.map(assetOf))])];
    const calls = [
      { method: 'storage_deposit', args: {}, deposit: ENGINE_STORAGE_DEPOSIT, gas: 5n * TGAS },
      { method: 'register_assets', args: { asset_ids: assetIds }, deposit: ONE_YOCTO, gas: 5n * TGAS },
    ];
    world.chain.transact(account, world.contracts.AmmC, calls, (r) => {
      if (this.balances.has(account)) return;
      this.balances.set(account, new Map(assetIds.map((a) => [a, 0n])));
      r.onRevert(() => this.balances.delete(account));
    });
  }

  /**
   * A swap along `path` (each hop's output is the next hop's input), then the output withdrawn to the trader:
   * `minOut` is the Withdraw's `at_least`, so a smaller output fails the receipt.
   */
  swap(world: World, trader: string, path: AmmCHop[], amountIn: bigint, minOut: bigint, referrer: string | null = null): void {
    const operations = path.map((hop, i) => this.swapOperation(world, hop, i === 0 ? { exactIn: amountIn } : 'previous'));
    operations.push(this.withdrawOperation(path.at(-1)!.tokenOut, minOut));
    this.send(world, trader, path[0]!.tokenIn, amountIn, operations, referrer);
  }

  /** One `ExactOut` hop: `maxIn` is sent, `amountOut` withdrawn, and what the swap left of the input too. */
  swapExactOut(world: World, trader: string, hop: AmmCHop, amountOut: bigint, maxIn: bigint, referrer: string | null = null): void {
    const operations = [
      this.swapOperation(world, hop, { exactOut: amountOut }),
      this.withdrawOperation(hop.tokenOut, amountOut),
      this.withdrawOperation(hop.tokenIn, null),
    ];
    this.send(world, trader, hop.tokenIn, maxIn, operations, referrer);
  }

  /** NEP-141 sides deposited with `ft_transfer_call`, then `add_liquidity` (with the NEAR side attached, if any). */
  addLiquidity(world: World, account: string, pool: AmmCPool, amounts: [bigint, bigint]): void {
    pool.state.tokens.forEach((token, i) => {
      if (token !== NEAR_TOKEN_ID) this.send(world, account, token, amounts[i]!, [], null);
    });
    const args = new BorshWriter().u32(pool.id).u8(0).bytes(); // AddLiquidityArgs {pool_id, min_shares_received: None}
    const attached = pool.state.tokens.map((t, i): [string, bigint] => [t, amounts[i]!]);
    const operation = this.dexCallOperation(world, 'add_liquidity', args, attached, (run) => this.provide(run, pool, amounts));
    const nearSide = pool.state.tokens.indexOf(NEAR_TOKEN_ID);
    if (nearSide >= 0) this.depositNear(world, account, amounts[nearSide]!, [operation], null);
    else this.executeOperations(world, account, [operation]);
  }

  /** `remove_liquidity` of `shares`, then both assets withdrawn. */
  removeLiquidity(world: World, account: string, pool: AmmCPool, shares: bigint): void {
    // RemoveLiquidityArgs {pool_id, shares_to_remove: Some(shares), min_assets_received: None}
    const args = new BorshWriter().u32(pool.id).u8(1).u128(shares).u8(0).bytes();
    this.executeOperations(world, account, [
      this.dexCallOperation(world, 'remove_liquidity', args, [], (run) => this.withdrawShares(run, pool, shares)),
      this.withdrawOperation(pool.state.tokens[0]!, null),
      this.withdrawOperation(pool.state.tokens[1]!, null),
    ]);
  }

  /** `create_pool` with its storage NEAR (and a launch pool's whole launched supply) attached. */
  createPool(world: World, owner: string, spec: AmmCPoolSpec, amounts: [bigint, bigint]): AmmCPool {
    const configured: XykFeeReceiver[] = [{ kind: 'pool', accountId: null, fee: spec.poolFee }];
    if (spec.communityFee) configured.push({ kind: 'community', accountId: world.treasury, fee: spec.communityFee });
    const feeReceivers = withProtocolFee(configured, spec.tokens);
    const isLaunch = spec.type === 'launch';
    const pool: AmmCPool = {
      id: this.pools.length,
      configured,
      owner,
      shares: new Map(),
      state: {
        kind: 'xyk',
        poolType: spec.type,
        tokens: [...spec.tokens],
        amounts: [0n, 0n],
        totalFee: feeReceivers.reduce((sum, r) => sum + r.fee, 0),
        feeReceivers,
        phantomLiquidity: isLaunch ? amounts[0] : null,
        totalShares: null,
      },
    };
    const attached: Array<[string, bigint]> = [[NEAR_TOKEN_ID, POOL_STORAGE_DEPOSIT]];
    if (isLaunch) {
      this.send(world, owner, spec.tokens[1], amounts[1], [], null);
      attached.push([spec.tokens[1], amounts[1]]);
    }
    const args = createPoolArgs(spec, configured, amounts[0]);
    const operation = this.dexCallOperation(world, 'create_pool', args, attached, (run) => {
      this.pools.push(pool);
      run.r.onRevert(() => void this.pools.pop());
      // A launch pool starts with its phantom NEAR and the launched supply; other pools empty.
      if (isLaunch) pool.state.amounts = [...amounts];
      this.poolUpdated(run, pool);
    });
    this.depositNear(world, owner, POOL_STORAGE_DEPOSIT, [operation], null);
    if (!this.pools.includes(pool)) throw new Error(`devnet AmmC: create_pool of ${spec.tokens.join('/')} failed`);
    return pool;
  }

  // ---- the random user ----

  private randomSwap(world: World, trader: string): void {
    const { rng, tokens } = world;
    const pool = rng.pick(this.pools);
    const first = rng.int(2);
    const tokenIn = pool.state.tokens[first]!;
    const path: AmmCHop[] = [{ pool, tokenIn, tokenOut: pool.state.tokens[1 - first]! }];
    // Sometimes two hops: through a second pool that shares the first one's output token.
    const mid = path[0]!.tokenOut;
    const next = this.pools.filter((p) => p !== pool && p.state.tokens.includes(mid) && !p.state.tokens.includes(tokenIn));
    if (next.length && rng.chance(0.3)) {
      const p = rng.pick(next);
      path.push({ pool: p, tokenIn: mid, tokenOut: p.state.tokens[0] === mid ? p.state.tokens[1]! : p.state.tokens[0]! });
    }
    const tokenOut = path.at(-1)!.tokenOut;
    // Up to 5% of the trader's balance (NEAR: up to 50) and 0.5% of the first pool's input reserve.
    const balance = tokenIn === NEAR_TOKEN_ID ? 50n * NEAR : tokens.isRegistered(tokenIn, trader) ? tokens.balance(tokenIn, trader) / 20n : 0n;
    const cap = minBig(balance, pool.state.amounts[first]! / 200n);
    if (cap < 2n) return;
    const amountIn = rng.bigint(1n, cap);
    // As an aggregator's route does, the trader registers with the output token first when needed.
    if (tokenOut !== NEAR_TOKEN_ID && !tokens.isRegistered(tokenOut, trader)) tokens.register(trader, tokenOut);
    const referrer = rng.chance(0.5) ? null : rng.pick(world.wallets);

    if (path.length === 1 && rng.chance(0.2)) {
      // Exact out: ask for 90% of what amountIn buys; send the contract's price plus 1%.
      const probe = swapOf(pool, tokenIn, tokenOut, { exactIn: amountIn });
      const amountOut = probe === null ? 0n : (probe.amountOut * 9n) / 10n;
      const quote = amountOut > 0n ? swapOf(pool, tokenIn, tokenOut, { exactOut: amountOut }) : null;
      if (quote === null) return;
      this.swapExactOut(world, trader, path[0]!, amountOut, quote.amountIn + quote.amountIn / 100n, referrer);
      return;
    }
    const expected = quotePath(path, amountIn);
    if (expected === null || expected === 0n) return;
    // One token swap in twenty asks for more than the pools give: the Withdraw fails the receipt after its hops
    // logged. (NEAR-input swaps do not fail: the devnet's chain has no refund receipts for attached NEAR.)
    const fails = tokenIn !== NEAR_TOKEN_ID && rng.chance(0.05);
    this.swap(world, trader, path, amountIn, fails ? expected + 1n : (expected * 99n) / 100n, referrer);
  }

  /** Adds liquidity in the pool's ratio: up to 5% of the trader's balance of a NEP-141 side, 1% of its reserve. */
  private addLiquidityFromWallet(world: World, trader: string, pool: AmmCPool): void {
    const { rng, tokens } = world;
    const { tokens: pair, amounts: reserves } = pool.state;
    const side = pair[0] === NEAR_TOKEN_ID ? 1 : 0;
    const other = 1 - side;
    const cap = minBig(tokens.balance(pair[side]!, trader) / 20n, reserves[side]! / 100n);
    if (cap < 1n) return;
    const amounts: [bigint, bigint] = [0n, 0n];
    amounts[side] = rng.bigint(1n, cap);
    amounts[other] = ceilDiv(amounts[side] * reserves[other]!, reserves[side]!);
    if (pair[other] !== NEAR_TOKEN_ID && tokens.balance(pair[other]!, trader) < amounts[other]) return;
    if (mintedShares(pool, amounts) === 0n) return;
    this.addLiquidity(world, trader, pool, amounts);
  }

  // ---- operations ----

  private swapOperation(world: World, hop: AmmCHop, amount: { exactIn: bigint } | { exactOut: bigint } | 'previous'): EngineOperation {
    const { pool, tokenIn, tokenOut } = hop;
    const dexId = world.contracts.AmmCXykDexId;
    const message = b64(new BorshWriter().u32(pool.id).bytes()); // SwapArgs {pool_id: u32}
    const assetIn = assetOf(tokenIn);
    const assetOut = assetOf(tokenOut);
    const requested = amount === 'previous' ? 'OutputOfLastIn' : { Amount: 'exactIn' in amount ? { ExactIn: String(amount.exactIn) } : { ExactOut: String(amount.exactOut) } };
    return {
      json: { SwapSimple: { dex_id: dexId, message, asset_in: assetIn, asset_out: assetOut, amount: requested } },
      run: (run) => {
        let swapAmount: XykSwapAmount;
        if (amount !== 'previous' && 'exactOut' in amount) swapAmount = { exactOut: amount.exactOut };
        else {
          const amountIn = amount === 'previous' ? run.lastOutput : amount.exactIn;
          if (amountIn === null) throw new Panic('No previous swap output');
          swapAmount = { exactIn: amountIn };
        }
        const requestAmount = 'exactIn' in swapAmount ? { ExactIn: String(swapAmount.exactIn) } : { ExactOut: String(swapAmount.exactOut) };
        // The xyk DEX's swap (amm-c-math.ts); where it panics, the whole receipt fails with its message.
        let quote: XykSwapResult;
        try {
          quote = xykSwap(pool.state, pool.state.feeReceivers, tokenIn, tokenOut, swapAmount);
        } catch (err) {
          if (err instanceof XykPanic) throw new Panic(err.message);
          throw err;
        }
        this.debit(run, assetIn, quote.amountIn);
        const feesBreakdown = quote.feesBreakdown.map((f) => [feeReceiverJson(f.receiver), assetOf(f.asset), String(f.amount)]);
        this.setAmounts(run.r, pool, [...quote.amountsAfter]);
        // SwapRequest {message, asset_in, asset_out, amount}: the four fields of the real line (dexes/amm-c/README.md).
        const request = { message, asset_in: assetIn, asset_out: assetOut, amount: requestAmount };
        const amounts = { amount_in: String(quote.amountIn), amount_out: String(quote.amountOut) };
        this.poolUpdated(run, pool);
        this.dexEvent(run, 'swap', { pool_id: pool.id, request, ...amounts, fees_breakdown: feesBreakdown });
        run.r.event('inteardex', '1.0.0', 'swap', { dex_id: dexId, request, ...amounts, trader: run.user, referrer: run.referrer });
        this.credit(run, assetOut, quote.amountOut);
        run.lastOutput = quote.amountOut;
        recordTrade(run.world, run.r, {
          dex: 'AmmC',
          poolId: String(pool.id),
          trader: run.user,
          tokenIn,
          tokenOut,
          amountIn: quote.amountIn,
          amountOut: quote.amountOut,
        });
      },
    };
  }

  /** `Withdraw {Full: {at_least}}`: the whole inner balance of `token` to the user (nothing when it is 0). */
  private withdrawOperation(token: string, atLeast: bigint | null): EngineOperation {
    const assetId = assetOf(token);
    return {
      json: { Withdraw: { asset_id: assetId, amount: { Full: { at_least: atLeast === null ? null : String(atLeast) } }, to: null, rescue_address: null } },
      run: (run) => {
        const amount = this.balances.get(run.user)?.get(assetId) ?? 0n;
        if (atLeast !== null && amount < atLeast) throw new Panic(`Withdrawal amount ${amount} is less than the minimum ${atLeast}`);
        if (amount === 0n) return;
        this.debit(run, assetId, amount);
        run.r.event('inteardex', '1.0.0', 'withdraw', { from: { Account: run.user }, to: run.user, asset_id: assetId, amount: String(amount) });
        if (token === NEAR_TOKEN_ID) run.r.transfer(run.user, amount);
        else run.world.tokens.payout(run.r, token, run.user, amount);
      },
    };
  }

  /** A `DexCall` of the xyk DEX: the attached assets leave the user's inner balance, then `apply` runs. */
  private dexCallOperation(world: World, method: string, args: Uint8Array, attached: Array<[string, bigint]>, apply: (run: Run) => void): EngineOperation {
    const attachedAssets = Object.fromEntries(attached.map(([token, amount]) => [assetOf(token), String(amount)]));
    return {
      json: { DexCall: { dex_id: world.contracts.AmmCXykDexId, method, args: b64(args), attached_assets: attachedAssets } },
      run: (run) => {
        for (const [token, amount] of attached) this.debit(run, assetOf(token), amount);
        apply(run);
      },
    };
  }

  /** The xyk DEX's `add_liquidity`: a public pool mints shares (INITIAL_SHARES first), a private one takes its owner's. */
  private provide(run: Run, pool: AmmCPool, amounts: [bigint, bigint]): void {
    const { state } = pool;
    const isPublic = state.poolType === 'public';
    if (!isPublic && run.user !== pool.owner) throw new Panic('Only the pool owner can add liquidity');
    const minted = isPublic ? mintedShares(pool, amounts) : 0n;
    if (isPublic && minted === 0n) throw new Panic('Not enough liquidity added to mint shares');
    this.setAmounts(run.r, pool, [state.amounts[0]! + amounts[0], state.amounts[1]! + amounts[1]]);
    const owned = isPublic ? this.setShares(run.r, pool, run.user, (pool.shares.get(run.user) ?? 0n) + minted) : 0n;
    this.dexEvent(run, 'liquidity_added', {
      pool_id: pool.id,
      asset_0: assetOf(state.tokens[0]!),
      asset_1: assetOf(state.tokens[1]!),
      added_amount_0: String(amounts[0]),
      added_amount_1: String(amounts[1]),
      minted_shares: String(minted),
      ...this.holdings(pool, owned),
    });
    this.poolUpdated(run, pool);
  }

  /** The xyk DEX's `remove_liquidity` of a public pool: each reserve's share, floored, to the user's inner balance. */
  private withdrawShares(run: Run, pool: AmmCPool, shares: bigint): void {
    const { state } = pool;
    const owned = pool.shares.get(run.user) ?? 0n;
    const total = state.totalShares ?? 0n;
    if (state.poolType !== 'public' || shares <= 0n || shares > owned) throw new Panic('Not enough shares');
    const removed = state.amounts.map((a) => (a * shares) / total) as [bigint, bigint];
    this.setAmounts(run.r, pool, [state.amounts[0]! - removed[0], state.amounts[1]! - removed[1]]);
    this.setShares(run.r, pool, run.user, owned - shares);
    removed.forEach((amount, i) => this.credit(run, assetOf(state.tokens[i]!), amount));
    this.dexEvent(run, 'liquidity_removed', {
      pool_id: pool.id,
      asset_0: assetOf(state.tokens[0]!),
      asset_1: assetOf(state.tokens[1]!),
      removed_amount_0: String(removed[0]),
      removed_amount_1: String(removed[1]),
      burned_shares: String(shares),
      ...this.holdings(pool, owned - shares),
    });
    this.poolUpdated(run, pool);
  }

  /** The `new_owned_*` / `new_total_*` fields of a liquidity event (a private pool's owner owns it all). */
  private holdings(pool: AmmCPool, owned: bigint): Record<string, string> {
    const { amounts, totalShares, poolType } = pool.state;
    const total = totalShares ?? 0n;
    const ownedAsset = (i: number) => (poolType !== 'public' ? amounts[i]! : total === 0n ? 0n : (amounts[i]! * owned) / total);
    return {
      new_owned_asset_0: String(ownedAsset(0)),
      new_owned_asset_1: String(ownedAsset(1)),
      new_owned_shares: String(owned),
      new_total_asset_0: String(amounts[0]),
      new_total_asset_1: String(amounts[1]),
      new_total_shares: String(total),
    };
  }

  // ---- engine entry points ----

  /** `ft_transfer_call` of `token` to the engine: credited to the sender's inner balance, then the operations run. */
  private send(world: World, account: string, token: string, amount: bigint, operations: EngineOperation[], referrer: string | null): void {
    if (token === NEAR_TOKEN_ID) {
      this.depositNear(world, account, amount, operations, referrer);
      return;
    }
    const msg = JSON.stringify({ operations: operations.map((o) => o.json), referrer });
    world.tokens.transferCall(account, token, world.contracts.AmmC, amount, msg, (r) => {
      this.runDeposit({ world, r, user: account, referrer, lastOutput: null }, assetOf(token), amount, operations);
      return 0n;
    }, ENGINE_GAS);
  }

  /** `deposit_near` with `amount` attached. */
  private depositNear(world: World, account: string, amount: bigint, operations: EngineOperation[], referrer: string | null): void {
    const args = { operations: { operations: operations.map((o) => o.json), referrer } };
    world.chain.transact(account, world.contracts.AmmC, [{ method: 'deposit_near', args, deposit: amount, gas: ENGINE_GAS }], (r) => {
      this.runDeposit({ world, r, user: account, referrer, lastOutput: null }, NEAR_TOKEN_ID, amount, operations);
    });
  }

  /** `execute_operations` on the caller's inner balances (1 yocto). */
  private executeOperations(world: World, account: string, operations: EngineOperation[]): void {
    const args = { operations: operations.map((o) => o.json) };
    world.chain.transact(account, world.contracts.AmmC, [{ method: 'execute_operations', args, deposit: ONE_YOCTO, gas: ENGINE_GAS }], (r) => {
      runOperations({ world, r, user: account, referrer: null, lastOutput: null }, operations);
    });
  }

  private runDeposit(run: Run, assetId: string, amount: bigint, operations: EngineOperation[]): void {
    this.credit(run, assetId, amount);
    run.r.event('inteardex', '1.0.0', 'user_deposit', { account_id: run.user, asset_id: assetId, amount: String(amount) });
    runOperations(run, operations);
  }

  /**
   * A user's call by method (a route's transactions): `storage_deposit {}` and `register_assets {asset_ids}`, then
   * `ft_on_transfer` (the token being the predecessor) or `deposit_near` with the operations a route sends:
   * `SwapSimple` on the xyk DEX and `Withdraw {Full}`. Other operations and malformed ones are not taken this way.
   */
  entry(world: World, contractId: string, method: string, args: Record<string, unknown>, predecessorId: string, deposit: bigint): Handler | undefined {
    if (contractId !== world.contracts.AmmC) return undefined;
    switch (method) {
      case 'storage_deposit': {
        const account = typeof args.account_id === 'string' ? args.account_id : predecessorId;
        return (r) => {
          if (deposit < ENGINE_STORAGE_DEPOSIT) throw new Panic('Not enough deposit');
          if (this.balances.has(account)) return;
          this.balances.set(account, new Map([[NEAR_TOKEN_ID, 0n]]));
          r.onRevert(() => this.balances.delete(account));
        };
      }
      case 'register_assets': {
        if (!Array.isArray(args.asset_ids) || !args.asset_ids.every((a): a is string => typeof a === 'string')) return undefined;
        const assetIds = args.asset_ids;
        return (r) => {
          const inner = this.balances.get(predecessorId);
          if (inner === undefined) throw new Panic(`Account ${predecessorId} is not registered`);
          for (const assetId of assetIds) {
            if (inner.has(assetId)) continue;
            inner.set(assetId, 0n);
            r.onRevert(() => inner.delete(assetId));
          }
        };
      }
      case 'ft_on_transfer': {
        if (typeof args.msg !== 'string' || typeof args.sender_id !== 'string' || typeof args.amount !== 'string') return undefined;
        const request = this.operationsOf(world, parseJson(args.msg));
        if (request === null) return undefined;
        const user = args.sender_id;
        const amount = BigInt(args.amount);
        return (r) => {
          this.runDeposit({ world, r, user, referrer: request.referrer, lastOutput: null }, assetOf(predecessorId), amount, request.operations);
          return 0n;
        };
      }
      case 'deposit_near': {
        // `operations: Option<DepositMessage>`, untagged: a list, or `{operations, referrer}` (S: INTEARnear/dex src/deposit.rs).
        const request = this.operationsOf(world, Array.isArray(args.operations) ? { operations: args.operations, referrer: null } : args.operations);
        if (request === null) return undefined;
        return (r) => this.runDeposit({ world, r, user: predecessorId, referrer: request.referrer, lastOutput: null }, NEAR_TOKEN_ID, deposit, request.operations);
      }
      default:
        return undefined;
    }
  }

  /** `{operations, referrer}` as a route writes it, as the engine's operations; null for anything else. */
  private operationsOf(world: World, json: unknown): { operations: EngineOperation[]; referrer: string | null } | null {
    const { operations, referrer } = (json ?? {}) as { operations?: unknown; referrer?: unknown };
    if (!Array.isArray(operations) || (referrer !== null && referrer !== undefined && typeof referrer !== 'string')) return null;
    const out: EngineOperation[] = [];
    for (const op of operations as Array<Record<string, any>>) {
      if (op?.SwapSimple !== undefined) {
        const { dex_id: dexId, message, asset_in: assetIn, asset_out: assetOut, amount } = op.SwapSimple;
        if (dexId !== world.contracts.AmmCXykDexId || typeof message !== 'string' || typeof assetIn !== 'string' || typeof assetOut !== 'string') return null;
        const bytes = Buffer.from(message, 'base64');
        const pool = bytes.length === 4 ? this.pools[bytes.readUInt32LE(0)] : undefined;
        if (pool === undefined) return null;
        const exact = amount?.Amount as { ExactIn?: string; ExactOut?: string } | undefined;
        const requested = amount === 'OutputOfLastIn' ? 'previous' : exact?.ExactIn !== undefined ? { exactIn: BigInt(exact.ExactIn) } : exact?.ExactOut !== undefined ? { exactOut: BigInt(exact.ExactOut) } : null;
        if (requested === null) return null;
        out.push(this.swapOperation(world, { pool, tokenIn: tokenOf(assetIn), tokenOut: tokenOf(assetOut) }, requested));
      } else if (op?.Withdraw !== undefined) {
        const { asset_id: assetId, amount, to } = op.Withdraw;
        const full = amount?.Full as { at_least?: string | null } | undefined;
        if (typeof assetId !== 'string' || full === undefined || (to !== null && to !== undefined)) return null;
        out.push(this.withdrawOperation(tokenOf(assetId), full.at_least === null || full.at_least === undefined ? null : BigInt(full.at_least)));
      } else return null;
    }
    return { operations: out, referrer: referrer ?? null };
  }

  // ---- state, with undo should the receipt fail ----

  private credit(run: Run, assetId: string, amount: bigint): void {
    const inner = this.balances.get(run.user);
    const before = inner?.get(assetId);
    if (inner === undefined || before === undefined) throw new Panic(`Asset ${assetId} is not registered for ${run.user}`);
    inner.set(assetId, before + amount);
    run.r.onRevert(() => inner.set(assetId, before));
  }

  private debit(run: Run, assetId: string, amount: bigint): void {
    const have = this.balances.get(run.user)?.get(assetId) ?? 0n;
    if (have < amount) throw new Panic(`Not enough ${assetId} in the balance of ${run.user}`);
    this.credit(run, assetId, -amount);
  }

  private setAmounts(r: Receipt, pool: AmmCPool, amounts: bigint[]): void {
    const before = pool.state.amounts;
    pool.state.amounts = amounts;
    r.onRevert(() => (pool.state.amounts = before));
  }

  /** Sets `account`'s shares and the pool's total accordingly; returns the new amount. */
  private setShares(r: Receipt, pool: AmmCPool, account: string, shares: bigint): bigint {
    const before = pool.shares.get(account);
    const totalBefore = pool.state.totalShares;
    pool.state.totalShares = (totalBefore ?? 0n) + shares - (before ?? 0n);
    pool.shares.set(account, shares);
    r.onRevert(() => {
      pool.state.totalShares = totalBefore;
      if (before === undefined) pool.shares.delete(account);
      else pool.shares.set(account, before);
    });
    return shares;
  }

  // ---- logs ----

  /** An xyk event, re-emitted by the engine as `dex_event`. */
  private dexEvent(run: Run, event: string, data: unknown): void {
    run.r.event('inteardex', '1.0.0', 'dex_event', {
      dex_id: run.world.contracts.AmmCXykDexId,
      event: { standard: 'xyk', version: '1.0.0', event, data },
      referrer: run.referrer,
      user: run.user,
    });
  }

  private poolUpdated(run: Run, pool: AmmCPool): void {
    this.dexEvent(run, 'pool_updated', { pool_id: pool.id, pool: poolView(pool) });
  }
}

/** The engine's `internal_execute_operations`: it logs whether the caller signed for them (a plain-text line), then runs them. */
function runOperations(run: Run, operations: EngineOperation[]): void {
  run.r.log('Fully authorized: true');
  for (const operation of operations) operation.run(run);
}

/** The xyk DEX's `PoolView` (externally tagged) of a pool. */
function poolView(pool: AmmCPool): unknown {
  const { state } = pool;
  const fees = { receivers: state.feeReceivers.map((r) => [feeReceiverJson(r), r.fee]) };
  // FeeConfiguration::V1 serializes untagged: the same shape as the current fees.
  const feeConfiguration = { receivers: pool.configured.map((r) => [feeReceiverJson(r), r.fee]) };
  const asset = (i: number) => ({ asset_id: assetOf(state.tokens[i]!), balance: String(state.amounts[i]) });
  switch (state.poolType) {
    case 'public':
      return { Public: { assets: [asset(0), asset(1)], fees, fee_configuration: feeConfiguration, total_shares: state.totalShares === null ? null : String(state.totalShares) } };
    case 'private':
      return { Private: { assets: [asset(0), asset(1)], fees, fee_configuration: feeConfiguration, owner_id: pool.owner, locked: false } };
    case 'launch':
      return {
        Launch: {
          near_amount: String(state.amounts[0]),
          launched_asset: asset(1),
          fees,
          fee_configuration: feeConfiguration,
          phantom_liquidity_near: String(state.phantomLiquidity),
        },
      };
  }
}

/** The same `PoolView` in borsh (the xyk DEX's views): variants Private 0, Public 1, Launch 2; AssetId Near 0,
 * Nep141 1; FeeReceiver Account 0, Pool 1, Community 2; fee_configuration FeeConfiguration::V1 (0). */
function writePoolView(w: BorshWriter, pool: AmmCPool): void {
  const { state } = pool;
  const asset = (i: number) => writeAssetId(w, state.tokens[i]!).u128(state.amounts[i]!);
  const fees = (receivers: XykFeeReceiver[]) => w.vec(receivers, (x, r) => writeFeeReceiver(x, r).u32(r.fee));
  // FeeConfiguration::V1(CurrentFees): the fees the pool was created with.
  const feeConfiguration = () => {
    w.u8(0);
    fees(pool.configured);
  };
  switch (state.poolType) {
    case 'private':
      w.u8(0);
      asset(0);
      asset(1);
      fees(state.feeReceivers);
      feeConfiguration();
      w.string(pool.owner).u8(0);
      return;
    case 'public':
      w.u8(1);
      asset(0);
      asset(1);
      fees(state.feeReceivers);
      feeConfiguration();
      if (state.totalShares === null) w.u8(0);
      else w.u8(1).u128(state.totalShares);
      return;
    case 'launch':
      w.u8(2).u128(state.amounts[0]!);
      asset(1);
      fees(state.feeReceivers);
      feeConfiguration();
      w.u128(state.phantomLiquidity ?? 0n);
      return;
  }
}

function writeAssetId(w: BorshWriter, token: string): BorshWriter {
  return token === NEAR_TOKEN_ID ? w.u8(0) : w.u8(1).string(token);
}

function writeFeeReceiver(w: BorshWriter, r: XykFeeReceiver): BorshWriter {
  return r.kind === 'pool' ? w.u8(1) : w.u8(r.kind === 'account' ? 0 : 2).string(r.accountId ?? '');
}

/** CreatePoolArgs {assets: (AssetId, AssetId), fees: FeeConfiguration::V1, pool_type} in borsh. */
function createPoolArgs(spec: AmmCPoolSpec, configured: XykFeeReceiver[], phantom: bigint): Uint8Array {
  const w = new BorshWriter();
  // AssetId::Near = 0, AssetId::Nep141(account) = 1.
  for (const token of spec.tokens) {
    if (token === NEAR_TOKEN_ID) w.u8(0);
    else w.u8(1).string(token);
  }
  w.u8(0).vec(configured, (x, r) => {
    // FeeReceiver::Account = 0, Pool = 1, Community = 2.
    if (r.kind === 'pool') x.u8(1);
    else x.u8(r.kind === 'account' ? 0 : 2).string(r.accountId ?? '');
    x.u32(r.fee);
  });
  // PoolType::PrivateLatest = 0, PublicLatest = 1, LaunchV1 {phantom_liquidity_near} = 3.
  if (spec.type === 'launch') w.u8(3).u128(phantom);
  else w.u8(spec.type === 'private' ? 0 : 1);
  return w.bytes();
}

function feeReceiverJson(r: XykFeeReceiver): unknown {
  return r.kind === 'pool' ? 'Pool' : r.kind === 'account' ? { Account: r.accountId } : { Community: r.accountId };
}

/** The engine's asset id of a token: `near` or `nep141:<contract>`. */
function assetOf(token: string): string {
  return token === NEAR_TOKEN_ID ? NEAR_TOKEN_ID : `nep141:${token}`;
}

/** The token of an engine asset id. */
function tokenOf(assetId: string): string {
  return assetId.startsWith('nep141:') ? assetId.slice('nep141:'.length) : assetId;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function unitOf(world: World, token: string): bigint {
  return token === NEAR_TOKEN_ID ? NEAR : 10n ** BigInt(world.tokens.spec(token).decimals);
}

/** Shares an `add_liquidity` of `amounts` mints: INITIAL_SHARES first, then the smaller side's share, floored. */
function mintedShares(pool: AmmCPool, amounts: [bigint, bigint]): bigint {
  const { totalShares, amounts: reserves } = pool.state;
  if (totalShares === null || totalShares === 0n) return INITIAL_SHARES;
  return minBig((amounts[0] * totalShares) / reserves[0]!, (amounts[1] * totalShares) / reserves[1]!);
}

/** The output of an exact-in swap along `path`; null when a pool refuses. */
function quotePath(path: AmmCHop[], amountIn: bigint): bigint | null {
  let amount = amountIn;
  for (const hop of path) {
    const quote = swapOf(hop.pool, hop.tokenIn, hop.tokenOut, { exactIn: amount });
    if (quote === null) return null;
    amount = quote.amountOut;
  }
  return amount;
}

/** The swap the pool would make now (amm-c-math.ts `xykSwap`), or null where the contract would panic. */
function swapOf(pool: AmmCPool, tokenIn: string, tokenOut: string, amount: XykSwapAmount): XykSwapResult | null {
  try {
    return xykSwap(pool.state, pool.state.feeReceivers, tokenIn, tokenOut, amount);
  } catch (err) {
    if (err instanceof XykPanic) return null;
    throw err;
  }
}

function minBig(...values: bigint[]): bigint {
  return values.reduce((a, b) => (b < a ? b : a));
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
