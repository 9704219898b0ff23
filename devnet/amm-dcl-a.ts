// AmmDclA (Ref DCL, `dclv2.ref-labs.near` = DexContracts.AmmDclA) on the devnet: iZiSwap-style concentrated
// liquidity pools moved by this model's own arithmetic, amm-dcl-a-math.ts (`swapIn`, `mint`, `burn`), written from a
// public copy of the contract's Rust source (S) and importing nothing of dexes/amm-dcl-a but the fee tiers' point
// deltas. The indexer re-simulates the logged swaps from the logged liquidity with dexes/amm-dcl-a's own port, so
// the tests that find its pool book equal to this model's pools to the unit compare two implementations. A pool is
// kept as the record that book keeps (`DclPoolRecord`: same fields, same key order), replaced at every change.
//
// What the contract is seen doing (near-facts.md "AmmDclA", dexes/amm-dcl-a/README.md for the event JSON):
// - `storage_deposit {account_id, registration_only}` with 0.5 NEAR registers an account (positions need it);
// - `create_pool {token_a, token_b, fee, init_point}` (it logs nothing: the decoder reads the call's args);
//   token_a/token_b are passed already sorted, so `init_point` is unambiguously the point of the sorted pool;
// - tokens reach an account's inner balance by `ft_transfer_call` with msg `"Deposit"` (S: `ft_on_transfer`) and
//   leave it by `withdraw_asset {token_id, amount}`; `add_liquidity {pool_id, left_point, right_point, amount_x, amount_y,
//   min_amount_x, min_amount_y}` / `append_liquidity {lpt_id, ...}` take the deposit (`liquidity_added` /
//   `liquidity_append`), `remove_liquidity {lpt_id, amount, min_amount_x, min_amount_y}` gives it back
//   (`liquidity_removed`); position ids are `<pool id>#<n>`, n counting the contract's positions (S: `gen_lpt_id`);
// - a swap is `ft_transfer_call` of the input to the contract with msg `{"Swap":{"pool_ids":[...],"output_token":T,
//   "min_output_amount":"Y","skip_unwrap_near":true}}` (50 + 50 per hop TGas): one `swap` event per pool hop,
//   the output paid back with `ft_transfer`; below `min_output_amount` the receipt panics after logging its hops
//   and `ft_resolve_transfer` refunds the input;
// - now and then (5% of its actions) the contract's owner (the devnet treasury) removes a user's whole position in
//   an emergency: the pool loses it as by `remove_liquidity`, the refund goes to the position owner's inner balance,
//   and the contract logs `emergency_liquidity_removed` with `liquidity_removed`'s fields (C, Ref's own indexer
//   reads them so). The call's name and arguments and where the refund goes are not public (no source shows
//   them): `emergency_remove_liquidity {lpt_id}` and the inner balance are this model's guesses; the decoder reads
//   only the event;
// - its views `list_pools`, `get_pool`, `get_liquidity_range` and `get_pointorder_range` (dexes/amm-dcl-a/README.md
//   "Bootstrap") answer from the state as the public copy of its source computes them (`view`).
//
// Amounts are the contract's (S: `pool.rs` `compute_deposit_x_y`, `compute_withdraw_x_y`): a deposit rounds up, a
// withdrawal down. A new position takes the most liquidity the offered amounts afford (`affordableLiquidity`): this
// model's choice; the contract's `compute_liquidity` takes min(amount_x·2^96/x per unit, (amount_y - 1)·2^96/y per
// unit) (S), which can be a little less for the same amounts.
// Simplifications: no limit orders, no merges, no `SwapByOutput`; fees owed to positions are not tracked (the
// `claim_fee_*` fields are 0 and the fees stay in the contract's balance); the protocol's share of a swap fee is
// 20% of it (PROTOCOL_FEE_RATE: this model's choice, as in the README's example event; the source's default at
// `new` is 5000 bps, 50%, and the owner sets the live rate), floored per step of the swap and summed as the
// contract does (S: `process_liquidity_*`); a swap is played only when each hop uses its whole input (no leftover
// to refund) and completes.
import { DCL_POINT_DELTA } from '../dexes/amm-dcl-a/events.ts';
import {
  burn,
  DclContractPanic,
  depositFor,
  LEFT_MOST_POINT,
  mint,
  newPoolRecord,
  reserves,
  RIGHT_MOST_POINT,
  swapIn,
  type DclOrderAt,
  type DclPoolRecord,
  type DclSwap,
} from './amm-dcl-a-math.ts';
import { Panic, type Handler, type Receipt } from './chain.ts';
import type { RpcViewAnswer } from './rpc.ts';
import { ONE_YOCTO } from './tokens.ts';
import { recordTrade, type DevnetDex, type World } from './world.ts';

const TGAS = 10n ** 12n;
const NEAR = 10n ** 24n;
/** The contract's storage deposit for an account (near-facts.md). */
export const DCL_STORAGE_DEPOSIT = NEAR / 2n;
/** NEAR attached to `create_pool`: the contract keeps the pool's storage cost and refunds the rest (S); the amount
 * is this model's choice. */
const POOL_STORAGE_DEPOSIT = NEAR / 10n;
/** The protocol's share of a swap's fee, in basis points of the fee (this model's choice; see the header). */
const PROTOCOL_FEE_RATE = 2_000n;
const DEPOSIT_MSG = JSON.stringify('Deposit');

export interface AmmDclAPoolSpec {
  /** [token_x, token_y], sorted as the contract sorts them (the order of the pool id). */
  tokens: [string, string];
  /** Fee tier, millionths (100, 400, 2000 or 10000). */
  fee: number;
  /** The point at creation: a price of 1.0001^point raw Y per raw X. */
  initPoint: number;
  /** The treasury's positions at genesis: [initPoint - halfWidth, initPoint + halfWidth] widened to the point
   * delta, each taking at most `budget` whole [x, y] tokens. */
  positions: Array<{ halfWidth: number; budget: [bigint, bigint] }>;
}

/** A liquidity position (`lpt_id`). */
export interface DclDevnetPosition {
  lptId: string;
  owner: string;
  poolId: string;
  left: number;
  right: number;
  liquidity: bigint;
}

/** The devnet's pools: wNEAR/USDt at 5 USDt a NEAR, USDC/USDt at par, REF/wNEAR at 0.02 NEAR a REF. */
export function devnetDclPools(ids: { wnear: string; usdt: string; usdc: string; ref: string }): AmmDclAPoolSpec[] {
  const { wnear, usdt, usdc, ref } = ids;
  // 1 USDt (10^6) = 0.2 NEAR (2·10^23): 2·10^17 raw wNEAR per raw USDt; ln(2·10^17) / ln(1.0001) = 398,390.86.
  // 1 REF (10^18) = 0.02 NEAR (2·10^22): 2·10^4 raw wNEAR per raw REF; ln(2·10^4) / ln(1.0001) = 99,039.83.
  return [
    {
      tokens: sorted(usdt, wnear),
      fee: 2_000,
      initPoint: 398_391,
      positions: [
        { halfWidth: 400, budget: [40_000n, 8_000n] },
        { halfWidth: 2_000, budget: [100_000n, 20_000n] },
        { halfWidth: 10_000, budget: [100_000n, 20_000n] },
      ],
    },
    {
      tokens: sorted(usdc, usdt),
      fee: 100,
      initPoint: 0,
      positions: [
        { halfWidth: 10, budget: [200_000n, 200_000n] },
        { halfWidth: 100, budget: [200_000n, 200_000n] },
        { halfWidth: 1_000, budget: [100_000n, 100_000n] },
      ],
    },
    {
      tokens: sorted(ref, wnear),
      fee: 2_000,
      initPoint: 99_040,
      positions: [
        { halfWidth: 2_000, budget: [500_000n, 10_000n] },
        { halfWidth: 8_000, budget: [500_000n, 10_000n] },
      ],
    },
  ];
}

function sorted(a: string, b: string): [string, string] {
  return a < b ? [a, b] : [b, a];
}

export class AmmDclADevnet implements DevnetDex {
  readonly id = 'AmmDclA' as const;
  /** Pool states by pool id, in creation order. */
  readonly pools = new Map<string, DclPoolRecord>();
  readonly positions = new Map<string, DclDevnetPosition>();
  /** Accounts with a storage deposit. */
  private readonly registered = new Set<string>();
  /** Inner balances: account -> token -> amount. */
  private readonly deposits = new Map<string, Map<string, bigint>>();
  /** The last position number (one counter for the contract). */
  private lptCounter = 0;

  constructor(private readonly specs: AmmDclAPoolSpec[] = []) {
    for (const s of specs) {
      if (!(s.tokens[0] < s.tokens[1])) throw new Error(`devnet AmmDclA: tokens ${s.tokens.join(', ')} are not sorted`);
    }
  }

  genesis(world: World): void {
    const { tokens, treasury, contracts } = world;
    for (const token of new Set(this.specs.flatMap((s) => s.tokens))) tokens.register(treasury, token, contracts.AmmDclA);
    this.storageDeposit(world, treasury);
    for (const spec of this.specs) {
      const poolId = this.createPool(world, treasury, spec.tokens, spec.fee, spec.initPoint);
      const state = this.pool(poolId);
      const unit = spec.tokens.map((t) => 10n ** BigInt(tokens.spec(t).decimals));
      for (const p of spec.positions) {
        const left = alignDown(spec.initPoint - p.halfWidth, state.pointDelta);
        const right = alignUp(spec.initPoint + p.halfWidth, state.pointDelta);
        this.addPosition(world, treasury, poolId, left, right, [p.budget[0] * unit[0]!, p.budget[1] * unit[1]!]);
      }
    }
  }

  act(world: World, trader: string): void {
    if (!this.registered.has(trader)) this.storageDeposit(world, trader);
    // One draw, as `rng.chance(0.12)` did before the emergency removals: the seeded devnet keeps its other actions.
    const roll = world.rng.int(1000);
    if (roll < 120) this.randomLiquidityChange(world, trader);
    else if (roll >= 950) this.randomEmergencyRemoval(world);
    else this.randomSwap(world, trader);
  }

  /** Per pool id, [x, y] as the `pools` table defines them (amm-dcl-a-math.ts `reserves`), from the pool's state. */
  reserves(): Map<string, bigint[]> {
    return new Map([...this.pools].map(([id, state]) => [id, [...reserves(state)]]));
  }

  pool(poolId: string): DclPoolRecord {
    const state = this.pools.get(poolId);
    if (state === undefined) throw new Error(`devnet AmmDclA: no pool ${poolId}`);
    return state;
  }

  /**
   * The contract's views that a bootstrap reads (dexes/amm-dcl-a/bootstrap.ts), answered from the state now in their
   * JSON shapes: `list_pools {from_index, limit}` and `get_pool {pool_id}` (`Pool`), `get_liquidity_range` and
   * `get_pointorder_range {pool_id, left_point, right_point}` (see `dclLiquidityRange`). Panics as the VM reports them.
   */
  view(world: World, contractId: string, method: string, args: Record<string, unknown>): RpcViewAnswer | undefined {
    if (contractId !== world.contracts.AmmDclA) return undefined;
    const panic = (message: string): RpcViewAnswer => ({ vmError: `HostError(GuestPanic { panic_msg: ${JSON.stringify(message)} })` });
    const badArgs = panic('Failed to deserialize input from JSON.');
    switch (method) {
      case 'list_pools': {
        // Option<u64>s: absent or null is the default (from 0, every pool).
        const from = args.from_index ?? 0;
        const limit = args.limit ?? undefined;
        if (!isU64(from) || (limit !== undefined && !isU64(limit))) return badArgs;
        const all = [...this.pools.values()];
        return { value: all.slice(from, limit === undefined ? undefined : from + limit).map((s) => this.poolView(s)) };
      }
      case 'get_pool': {
        if (typeof args.pool_id !== 'string') return badArgs;
        const state = this.pools.get(args.pool_id);
        return { value: state === undefined ? null : this.poolView(state) };
      }
      case 'get_liquidity_range':
      case 'get_pointorder_range': {
        const { pool_id: poolId, left_point: left, right_point: right } = args;
        if (typeof poolId !== 'string' || !isI32(left) || !isI32(right)) return badArgs;
        if (left > right || left < LEFT_MOST_POINT || right > RIGHT_MOST_POINT) return panic('E202: illegal point');
        const state = this.pools.get(poolId);
        if (state === undefined) return panic('E403: pool not exist');
        if (method === 'get_pointorder_range') return { value: dclPointOrderRange(state, left, right) };
        try {
          return { value: dclLiquidityRange(state, left, right) };
        } catch (err) {
          if (err instanceof Panic) return panic(err.message);
          throw err;
        }
      }
      default:
        return { vmError: 'MethodResolveError(MethodNotFound)' };
    }
  }

  /** A pool as the contract's `Pool` serializes (its sqrt price, fee scales, points and bitmap are not in it). What
   * this model does not keep (fees charged, volumes, the per-point cap) answers "0". */
  private poolView(state: DclPoolRecord): Record<string, unknown> {
    const positions = [...this.positions.values()].filter((p) => p.poolId === state.poolId);
    const [tokenX, tokenY] = state.tokens;
    return {
      pool_id: state.poolId,
      token_x: tokenX,
      token_y: tokenY,
      fee: state.totalFee,
      point_delta: state.pointDelta,
      current_point: state.currentPoint,
      liquidity: String(state.liquidity),
      liquidity_x: String(state.liquidityX),
      max_liquidity_per_point: '0',
      total_fee_x_charged: '0',
      total_fee_y_charged: '0',
      volume_x_in: '0',
      volume_y_in: '0',
      volume_x_out: '0',
      volume_y_out: '0',
      total_liquidity: String(positions.reduce((sum, p) => sum + p.liquidity, 0n)),
      total_order_x: String(state.orders.reduce((sum, o) => sum + o.sellingX, 0n)),
      total_order_y: String(state.orders.reduce((sum, o) => sum + o.sellingY, 0n)),
      total_x: String(state.amounts[0]),
      total_y: String(state.amounts[1]),
      state: 'Running',
    };
  }

  /** `account`'s inner balance of `token` at the contract. */
  deposit(account: string, token: string): bigint {
    return this.deposits.get(account)?.get(token) ?? 0n;
  }

  // ---- transactions ----

  /** `storage_deposit` of 0.5 NEAR for `account`. */
  storageDeposit(world: World, account: string): void {
    const args = { account_id: account, registration_only: true };
    world.chain.transact(account, world.contracts.AmmDclA, [{ method: 'storage_deposit', args, deposit: DCL_STORAGE_DEPOSIT, gas: 10n * TGAS }], (r) => {
      if (this.registered.has(account)) return;
      this.registered.add(account);
      this.deposits.set(account, new Map());
      r.onRevert(() => {
        this.registered.delete(account);
        this.deposits.delete(account);
      });
    });
  }

  /** `create_pool` of the sorted `tokens` at `initPoint`; returns the pool id. */
  createPool(world: World, account: string, tokens: [string, string], fee: number, initPoint: number): string {
    const [tokenX, tokenY] = tokens;
    const poolId = `${tokenX}|${tokenY}|${fee}`;
    const args = { token_a: tokenX, token_b: tokenY, fee, init_point: initPoint };
    world.chain.transact(account, world.contracts.AmmDclA, [{ method: 'create_pool', args, deposit: POOL_STORAGE_DEPOSIT, gas: 30n * TGAS }], (r) => {
      const pointDelta = DCL_POINT_DELTA[fee];
      if (pointDelta === undefined) throw new Panic('E202: illegal fee');
      if (this.pools.has(poolId)) throw new Panic('E405: pool already exists');
      this.pools.set(poolId, newPoolRecord(poolId, [tokenX, tokenY], fee, pointDelta, initPoint));
      r.onRevert(() => this.pools.delete(poolId));
      return poolId;
    });
    if (!this.pools.has(poolId)) throw new Error(`devnet AmmDclA: create_pool ${poolId} failed`);
    return poolId;
  }

  /**
   * A new position over [left, right) taking the most liquidity `budget` [x, y] affords: exactly what it costs
   * is deposited (`ft_transfer_call` "Deposit"), then `add_liquidity`. Returns the lpt id, or null when the
   * budget buys no liquidity.
   */
  addPosition(world: World, owner: string, poolId: string, left: number, right: number, budget: [bigint, bigint]): string | null {
    const state = this.pool(poolId);
    const paid = depositFor(state, left, right, affordableLiquidity(state, left, right, budget));
    if (paid[0] === 0n && paid[1] === 0n) return null;
    this.depositTokens(world, owner, state.tokens, paid);
    const counter = this.lptCounter;
    const lptId = `${poolId}#${counter + 1}`;
    const args = { pool_id: poolId, left_point: left, right_point: right, ...amountArgs(paid) };
    world.chain.transact(owner, world.contracts.AmmDclA, [{ method: 'add_liquidity', args, deposit: ONE_YOCTO, gas: 50n * TGAS }], (r) => {
      const s = this.pool(poolId);
      if (left % s.pointDelta !== 0 || right % s.pointDelta !== 0) throw new Panic('E200: invalid params');
      const liquidity = affordableLiquidity(s, left, right, paid);
      if (liquidity === 0n) throw new Panic('E214: invalid liquidity');
      this.lptCounter = counter + 1;
      r.onRevert(() => (this.lptCounter = counter));
      const position: DclDevnetPosition = { lptId, owner, poolId, left, right, liquidity: 0n };
      this.setPosition(r, position);
      this.provide(r, position, liquidity, 'liquidity_added');
    });
    return this.positions.has(lptId) ? lptId : null;
  }

  /** More liquidity in an existing position: deposit what it costs, then `append_liquidity`. */
  appendPosition(world: World, owner: string, lptId: string, budget: [bigint, bigint]): void {
    const position = this.position(lptId);
    const state = this.pool(position.poolId);
    const paid = depositFor(state, position.left, position.right, affordableLiquidity(state, position.left, position.right, budget));
    if (paid[0] === 0n && paid[1] === 0n) return;
    this.depositTokens(world, owner, state.tokens, paid);
    const args = { lpt_id: lptId, ...amountArgs(paid) };
    world.chain.transact(owner, world.contracts.AmmDclA, [{ method: 'append_liquidity', args, deposit: ONE_YOCTO, gas: 50n * TGAS }], (r) => {
      const p = this.positions.get(lptId);
      if (p === undefined || p.owner !== owner) throw new Panic('E218: not the position owner');
      const liquidity = affordableLiquidity(this.pool(p.poolId), p.left, p.right, paid);
      if (liquidity === 0n) throw new Panic('E214: invalid liquidity');
      this.provide(r, p, liquidity, 'liquidity_append');
    });
  }

  /** `remove_liquidity` of `amount` from the position, then the refunded tokens withdrawn to the owner. */
  removePosition(world: World, owner: string, lptId: string, amount: bigint): void {
    const args = { lpt_id: lptId, amount: String(amount), min_amount_x: '0', min_amount_y: '0' };
    let refund: [bigint, bigint] = [0n, 0n];
    let tokens: readonly string[] = [];
    world.chain.transact(owner, world.contracts.AmmDclA, [{ method: 'remove_liquidity', args, deposit: ONE_YOCTO, gas: 50n * TGAS }], (r) => {
      const p = this.positions.get(lptId);
      if (p === undefined || p.owner !== owner) throw new Panic('E218: not the position owner');
      if (amount <= 0n || amount > p.liquidity) throw new Panic('E204: invalid liquidity amount');
      const before = this.pool(p.poolId);
      const burnt = burn(before, p.left, p.right, amount);
      refund = burnt.refund;
      tokens = before.tokens;
      this.setPool(r, burnt.pool);
      const rest = { ...p, liquidity: p.liquidity - amount };
      this.setPosition(r, rest);
      refund.forEach((a, i) => this.credit(r, owner, before.tokens[i]!, a));
      r.event('dcl.ref', '1.0.0', 'liquidity_removed', [
        {
          lpt_id: lptId,
          owner_id: owner,
          pool_id: p.poolId,
          left_point: p.left,
          right_point: p.right,
          removed_amount: String(amount),
          cur_amount: String(rest.liquidity),
          refund_token_x: String(refund[0]),
          refund_token_y: String(refund[1]),
          claim_fee_token_x: '0',
          claim_fee_token_y: '0',
        },
      ]);
    });
    refund.forEach((a, i) => {
      if (a > 0n) this.withdraw(world, owner, tokens[i]!, a);
    });
  }

  /** The owner's emergency removal of a whole position (see the header): logs `emergency_liquidity_removed`. */
  emergencyRemove(world: World, lptId: string): void {
    const args = { lpt_id: lptId };
    world.chain.transact(world.treasury, world.contracts.AmmDclA, [{ method: 'emergency_remove_liquidity', args, deposit: ONE_YOCTO, gas: 50n * TGAS }], (r) => {
      const p = this.positions.get(lptId);
      if (p === undefined) throw new Panic('E207: liquidity not found');
      const before = this.pool(p.poolId);
      const { pool, refund } = burn(before, p.left, p.right, p.liquidity);
      this.setPool(r, pool);
      this.setPosition(r, { ...p, liquidity: 0n });
      refund.forEach((a, i) => this.credit(r, p.owner, before.tokens[i]!, a));
      r.event('dcl.ref', '1.0.0', 'emergency_liquidity_removed', [
        {
          lpt_id: lptId,
          owner_id: p.owner,
          pool_id: p.poolId,
          left_point: p.left,
          right_point: p.right,
          removed_amount: String(p.liquidity),
          cur_amount: '0',
          refund_token_x: String(refund[0]),
          refund_token_y: String(refund[1]),
          claim_fee_token_x: '0',
          claim_fee_token_y: '0',
        },
      ]);
    });
  }

  /** `withdraw_asset`: `amount` of the inner balance sent back with `ft_transfer`. */
  withdraw(world: World, account: string, token: string, amount: bigint): void {
    const args = { token_id: token, amount: String(amount), skip_unwrap_near: true };
    world.chain.transact(account, world.contracts.AmmDclA, [{ method: 'withdraw_asset', args, deposit: ONE_YOCTO, gas: 50n * TGAS }], (r) => {
      this.credit(r, account, token, -amount);
      world.tokens.payout(r, token, account, amount);
    });
  }

  /** What `amountIn` of `tokenIn` gives through `poolIds`: per hop the swap, or null when a hop would not be
   * played (incomplete, nothing out, input left over, or the contract would panic). */
  quote(poolIds: readonly string[], tokenIn: string, amountIn: bigint): Array<{ state: DclPoolRecord; tokenIn: string; result: DclSwap }> | null {
    const hops: Array<{ state: DclPoolRecord; tokenIn: string; result: DclSwap }> = [];
    let token = tokenIn;
    let amount = amountIn;
    for (const poolId of poolIds) {
      const state = this.pools.get(poolId);
      if (state === undefined || !state.tokens.includes(token)) return null;
      const result = trySwap(state, token, amount);
      if (result === null || !result.finished || result.amountOut === 0n || result.amountIn !== amount) return null;
      hops.push({ state, tokenIn: token, result });
      token = otherToken(state, token);
      amount = result.amountOut;
    }
    return hops;
  }

  /** A `Swap` of `amountIn` of `tokenIn` through `poolIds`, refused below `minOut`. */
  swap(world: World, trader: string, poolIds: readonly string[], tokenIn: string, amountIn: bigint, minOut: bigint): void {
    const outputToken = poolIds.reduce((token, poolId) => otherToken(this.pool(poolId), token), tokenIn);
    const msg = JSON.stringify({ Swap: { pool_ids: poolIds, output_token: outputToken, min_output_amount: String(minOut), skip_unwrap_near: true } });
    const gas = 50n * TGAS + 50n * TGAS * BigInt(poolIds.length);
    world.tokens.transferCall(trader, tokenIn, world.contracts.AmmDclA, amountIn, msg, (r) => this.onSwap(world, r, trader, poolIds, tokenIn, amountIn, outputToken, minOut), gas);
  }

  /** A user's `ft_on_transfer` (a route's swap: `{"Swap": {pool_ids, output_token, min_output_amount}}`), the token
   * being the predecessor; deposits and `SwapByOutput` are not taken this way. */
  entry(world: World, contractId: string, method: string, args: Record<string, unknown>, predecessorId: string): Handler | undefined {
    if (contractId !== world.contracts.AmmDclA || method !== 'ft_on_transfer' || typeof args.msg !== 'string') return undefined;
    let msg: { Swap?: { pool_ids?: unknown; output_token?: unknown; min_output_amount?: unknown } };
    try {
      msg = JSON.parse(args.msg) as typeof msg;
    } catch {
      return undefined;
    }
    const swap = msg.Swap;
    if (swap === undefined || !Array.isArray(swap.pool_ids) || typeof swap.output_token !== 'string' || typeof args.sender_id !== 'string' || typeof args.amount !== 'string') return undefined;
    const { sender_id: trader, amount } = args;
    const poolIds = swap.pool_ids.map(String);
    const outputToken = swap.output_token;
    const minOut = BigInt(String(swap.min_output_amount ?? '0'));
    return (r) => this.onSwap(world, r, trader, poolIds, predecessorId, BigInt(amount), outputToken, minOut);
  }

  // ---- inside the contract's receipts ----

  /** `ft_on_transfer` with a `Swap` msg: every hop moves its pool and logs `swap`; the output is paid back. */
  private onSwap(world: World, r: Receipt, trader: string, poolIds: readonly string[], tokenIn: string, amountIn: bigint, outputToken: string, minOut: bigint): bigint {
    let token = tokenIn;
    let amount = amountIn;
    for (const poolId of poolIds) {
      const state = this.pools.get(poolId);
      if (state === undefined) throw new Panic('E403: pool not found');
      if (!state.tokens.includes(token)) throw new Panic('E404: invalid token');
      const result = trySwap(state, token, amount);
      if (result === null || !result.finished) throw new Panic('E209: not enough liquidity');
      const out = otherToken(state, token);
      this.setPool(r, result.pool);
      r.event('dcl.ref', '1.0.0', 'swap', [
        {
          swapper: trader,
          token_in: token,
          token_out: out,
          amount_in: String(amount),
          amount_out: String(result.amountOut),
          pool_id: poolId,
          total_fee: String(result.fee),
          protocol_fee: String(result.protocolFee),
        },
      ]);
      recordTrade(world, r, { dex: 'AmmDclA', poolId, trader, tokenIn: token, tokenOut: out, amountIn: amount, amountOut: result.amountOut });
      token = out;
      amount = result.amountOut;
    }
    if (token !== outputToken) throw new Panic('E212: invalid output token');
    if (amount < minOut) throw new Panic('E204: slippage error');
    world.tokens.payout(r, token, trader, amount);
    return 0n;
  }

  /** `liquidity` more for `position`, paid from its owner's inner balance, logged as `event`. */
  private provide(r: Receipt, position: DclDevnetPosition, liquidity: bigint, event: 'liquidity_added' | 'liquidity_append'): void {
    const before = this.pool(position.poolId);
    const { pool, paid } = mint(before, position.left, position.right, liquidity);
    paid.forEach((a, i) => this.credit(r, position.owner, before.tokens[i]!, -a));
    this.setPool(r, pool);
    const after = { ...position, liquidity: position.liquidity + liquidity };
    this.setPosition(r, after);
    r.event('dcl.ref', '1.0.0', event, [
      {
        lpt_id: position.lptId,
        owner_id: position.owner,
        pool_id: position.poolId,
        left_point: position.left,
        right_point: position.right,
        added_amount: String(liquidity),
        cur_amount: String(after.liquidity),
        paid_token_x: String(paid[0]),
        paid_token_y: String(paid[1]),
        ...(event === 'liquidity_append' ? { claim_fee_token_x: '0', claim_fee_token_y: '0' } : {}),
      },
    ]);
  }

  /** `ft_transfer_call`s with msg "Deposit" of the non-zero `amounts` of `tokens` into `account`'s inner balance. */
  private depositTokens(world: World, account: string, tokens: readonly string[], amounts: readonly bigint[]): void {
    tokens.forEach((token, i) => {
      const amount = amounts[i]!;
      if (amount === 0n) return;
      world.tokens.transferCall(account, token, world.contracts.AmmDclA, amount, DEPOSIT_MSG, (r) => {
        if (!this.registered.has(account)) throw new Panic('E100: storage deposit required');
        this.credit(r, account, token, amount);
        return 0n;
      });
    });
  }

  // ---- state, with undo should the receipt fail ----

  private setPool(r: Receipt, state: DclPoolRecord): void {
    const before = this.pool(state.poolId);
    this.pools.set(state.poolId, state);
    r.onRevert(() => this.pools.set(state.poolId, before));
  }

  /** Stores the position; one without liquidity is gone (its lpt burned). */
  private setPosition(r: Receipt, position: DclDevnetPosition): void {
    const before = this.positions.get(position.lptId);
    if (position.liquidity === 0n && before !== undefined) this.positions.delete(position.lptId);
    else this.positions.set(position.lptId, position);
    r.onRevert(() => (before === undefined ? this.positions.delete(position.lptId) : this.positions.set(position.lptId, before)));
  }

  private credit(r: Receipt, account: string, token: string, amount: bigint): void {
    const inner = this.deposits.get(account);
    if (inner === undefined) throw new Panic('E100: storage deposit required');
    const before = inner.get(token) ?? 0n;
    if (before + amount < 0n) throw new Panic('E101: insufficient balance');
    inner.set(token, before + amount);
    r.onRevert(() => inner.set(token, before));
  }

  private position(lptId: string): DclDevnetPosition {
    const p = this.positions.get(lptId);
    if (p === undefined) throw new Error(`devnet AmmDclA: no position ${lptId}`);
    return p;
  }

  // ---- the random user ----

  /** One or two pools; the input at most 2% of the trader's balance, halved until every hop takes at most 1% of
   * its pool's output reserve. */
  private randomSwap(world: World, trader: string): void {
    const { rng, tokens } = world;
    const pools = [...this.pools.values()];
    const first = rng.pick(pools);
    const tokenIn = first.tokens[rng.int(2)]!;
    let tokenOut = otherToken(first, tokenIn);
    const path = [first.poolId];
    const next = pools.filter((p) => p !== first && p.tokens.includes(tokenOut) && !p.tokens.includes(tokenIn));
    if (next.length && rng.chance(0.3)) {
      const p = rng.pick(next);
      path.push(p.poolId);
      tokenOut = otherToken(p, tokenOut);
    }
    if (!tokens.isRegistered(tokenIn, trader) || !tokens.isRegistered(tokenOut, trader)) return;
    const cap = tokens.balance(tokenIn, trader) / 50n;
    if (cap < 1n) return;
    let amountIn = rng.bigint(1n, cap);
    let hops = this.quote(path, tokenIn, amountIn);
    while (hops !== null && !hops.every((h) => h.result.amountOut <= reserveOf(h.state, otherToken(h.state, h.tokenIn)) / 100n)) {
      amountIn /= 2n;
      hops = amountIn > 0n ? this.quote(path, tokenIn, amountIn) : null;
    }
    if (hops === null) return;
    const expected = hops.at(-1)!.result.amountOut;
    // One swap in twenty asks for one unit more than the pools give: the receipt fails after logging its hops.
    const minOut = rng.chance(0.05) ? expected + 1n : (expected * 99n) / 100n;
    this.swap(world, trader, path, tokenIn, amountIn, minOut);
  }

  /** An emergency removal of one of the users' positions (never the treasury's, which keep the pools liquid). */
  private randomEmergencyRemoval(world: World): void {
    const users = [...this.positions.values()].filter((p) => p.owner !== world.treasury);
    if (users.length > 0) this.emergencyRemove(world, world.rng.pick(users).lptId);
  }

  /** Removes part or all of one of the trader's positions, appends to one, or opens one (at most 5% of the
   * trader's balances), around the current point or on one side of it. */
  private randomLiquidityChange(world: World, trader: string): void {
    const { rng, tokens } = world;
    const mine = [...this.positions.values()].filter((p) => p.owner === trader);
    if (mine.length && rng.chance(0.5)) {
      const p = rng.pick(mine);
      this.removePosition(world, trader, p.lptId, rng.chance(0.5) ? p.liquidity : rng.bigint(1n, p.liquidity));
      return;
    }
    const budgetOf = (state: DclPoolRecord): [bigint, bigint] => {
      const [x, y] = state.tokens.map((t) => (tokens.isRegistered(t, trader) ? tokens.balance(t, trader) / 20n : 0n));
      return [rng.bigint(0n, x!), rng.bigint(0n, y!)];
    };
    if (mine.length && rng.chance(0.3)) {
      const p = rng.pick(mine);
      this.appendPosition(world, trader, p.lptId, budgetOf(this.pool(p.poolId)));
      return;
    }
    const state = rng.pick([...this.pools.values()]);
    const delta = state.pointDelta;
    const cp = state.currentPoint;
    const width = delta * (1 + rng.int(Math.max(1, Math.floor(2_000 / delta))));
    let left = alignDown(cp - width, delta);
    let right = alignUp(cp + width + 1, delta);
    const side = rng.int(5);
    if (side === 0) [left, right] = [alignUp(cp + 1, delta), alignUp(cp + 1, delta) + width]; // all X, above the price
    else if (side === 1) [left, right] = [alignDown(cp, delta) - width, alignDown(cp, delta)]; // all Y, below it
    this.addPosition(world, trader, state.poolId, left, right, budgetOf(state));
  }
}

// ---- the contract's range views (pure) ----

interface RangeInfo {
  left_point: number;
  right_point: number;
  amount_l: string;
}

/**
 * `get_liquidity_range` as the public copy of the contract's source computes it: stretches of constant liquidity
 * over [left, right], cut at every endpoint and at the current point, keyed by their left point. Right of the
 * current point it starts from the pool's liquidity and adds the deltas of the endpoints it walks past up to `left`
 * (not `left`'s own), left of it likewise downwards from the liquidity just left of the current point: so a window
 * that does not hold the current point and starts at an endpoint is off by that endpoint's delta, and panics when
 * that takes its u128 below 0.
 */
export function dclLiquidityRange(state: DclPoolRecord, left: number, right: number): Record<string, RangeInfo> {
  const out: Record<string, RangeInfo> = {};
  const cp = state.currentPoint;
  if (left >= cp) rangesAbove(state, left, right, out);
  else if (right <= cp) rangesBelow(state, left, right, out);
  else {
    rangesBelow(state, left, cp, out);
    rangesAbove(state, cp, right, out);
  }
  return out;
}

/** `get_pointorder_range`: the points in [left, right] with a live order, and what each sells. */
export function dclPointOrderRange(state: DclPoolRecord, left: number, right: number): Record<string, { point: number; amount_x: string; amount_y: string }> {
  const out: Record<string, { point: number; amount_x: string; amount_y: string }> = {};
  const bitmap = new SlotBitmap(state);
  for (let point: number | null = left; point !== null && point <= right; point = bitmap.nearestRight(point, right)) {
    const order = bitmap.orders.get(point);
    if (order !== undefined) out[point] = { point, amount_x: String(order.sellingX), amount_y: String(order.sellingY) };
  }
  return out;
}

/** The stretches from `left` (>= the current point) up to `right`. */
function rangesAbove(state: DclPoolRecord, left: number, right: number, out: Record<string, RangeInfo>): void {
  const bitmap = new SlotBitmap(state);
  let level = state.liquidity;
  if (left !== state.currentPoint) {
    for (let p = bitmap.nearestRight(state.currentPoint, left); p !== null && p < left; p = bitmap.nearestRight(p, left)) level = bitmap.cross(level, p, 1n);
  }
  let from = left;
  for (let at = left; at < right; ) {
    const next = bitmap.nearestRight(at, right) ?? right;
    if (bitmap.deltas.has(next) || next === right) {
      if (from !== left) level = bitmap.cross(level, from, 1n);
      out[from] = { left_point: from, right_point: Math.min(next, right), amount_l: String(level) };
      if (bitmap.deltas.has(next)) from = next;
    }
    at = next;
  }
}

/** The stretches from `right` (<= the current point) down to `left`. */
function rangesBelow(state: DclPoolRecord, left: number, right: number, out: Record<string, RangeInfo>): void {
  const bitmap = new SlotBitmap(state);
  const cp = state.currentPoint;
  let level = bitmap.deltas.has(cp) ? bitmap.cross(state.liquidity, cp, -1n) : state.liquidity;
  if (right !== cp) {
    for (let p = bitmap.nearestLeft(cp - 1, right); p !== null && p > right; p = bitmap.nearestLeft(p - 1, right)) level = bitmap.cross(level, p, -1n);
  }
  let to = right;
  for (let at = right; at > left; ) {
    const next = bitmap.nearestLeft(at - 1, left) ?? left;
    if (bitmap.deltas.has(next) || next === left) {
      if (to !== right) level = bitmap.cross(level, to, -1n);
      out[next] = { left_point: Math.max(next, left), right_point: to, amount_l: String(level) };
      if (bitmap.deltas.has(next)) to = next;
    }
    at = next;
  }
}

/** The points the contract's slot bitmap marks (endpoints and live orders) and its nearest-marked-slot searches. */
class SlotBitmap {
  readonly deltas: Map<number, bigint>;
  readonly orders: Map<number, DclOrderAt>;
  private readonly marked: number[];
  private readonly delta: number;

  constructor(state: DclPoolRecord) {
    this.delta = state.pointDelta;
    this.deltas = new Map(state.points.map((p) => [p.point, p.liquidityDelta]));
    this.orders = new Map(state.orders.filter((o) => o.sellingX > 0n || o.sellingY > 0n).map((o) => [o.point, o]));
    this.marked = [...new Set([...this.deltas.keys(), ...this.orders.keys()])].sort((a, b) => a - b);
  }

  /** The first marked point in a slot after `point`'s, or null past `stop`'s slot (Rust's division truncates). */
  nearestRight(point: number, stop: number): number | null {
    const bound = (Math.floor(point / this.delta) + 1) * this.delta;
    const q = this.marked.find((m) => m >= bound);
    return q !== undefined && Math.floor(q / this.delta) <= Math.trunc(stop / this.delta) ? q : null;
  }

  /** The last marked point in `point`'s slot or before, or null below `stop`'s slot. */
  nearestLeft(point: number, stop: number): number | null {
    const bound = (Math.floor(point / this.delta) + 1) * this.delta;
    const q = this.marked.findLast((m) => m < bound);
    return q !== undefined && Math.floor(q / this.delta) >= Math.trunc(stop / this.delta) ? q : null;
  }

  /** `level` past endpoint `point` (rightwards `sign` 1, leftwards -1) in u128: the contract panics below 0. */
  cross(level: bigint, point: number, sign: bigint): bigint {
    const next = level + sign * (this.deltas.get(point) ?? 0n);
    if (next < 0n) throw new Panic('attempt to subtract with overflow');
    return next;
  }
}

function isI32(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31;
}

function isU64(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

// ---- the contract's amounts (pure) ----

/** The most liquidity over [left, right) whose deposit fits `budget` [x, y] (deposits grow with liquidity). */
export function affordableLiquidity(state: DclPoolRecord, left: number, right: number, budget: readonly [bigint, bigint]): bigint {
  const fits = (liquidity: bigint): boolean => {
    try {
      const [x, y] = depositFor(state, left, right, liquidity);
      return x <= budget[0] && y <= budget[1];
    } catch (err) {
      if (err instanceof DclContractPanic) return false; // beyond the contract's integers
      throw err;
    }
  };
  // Invariant: fits(low), !fits(high).
  let low = 0n;
  let high = 1n;
  while (fits(high)) {
    low = high;
    high *= 2n;
    if (high > 1n << 128n) return low;
  }
  while (high - low > 1n) {
    const middle = (low + high) / 2n;
    if (fits(middle)) low = middle;
    else high = middle;
  }
  return low;
}

function amountArgs(paid: [bigint, bigint]): Record<string, string> {
  return {
    amount_x: String(paid[0]),
    amount_y: String(paid[1]),
    min_amount_x: String((paid[0] * 99n) / 100n),
    min_amount_y: String((paid[1] * 99n) / 100n),
  };
}

function trySwap(state: DclPoolRecord, tokenIn: string, amountIn: bigint): DclSwap | null {
  try {
    return swapIn(state, tokenIn, amountIn, PROTOCOL_FEE_RATE);
  } catch (err) {
    if (err instanceof DclContractPanic) return null;
    throw err;
  }
}

function otherToken(state: DclPoolRecord, token: string): string {
  return state.tokens[0] === token ? state.tokens[1] : state.tokens[0];
}

function reserveOf(state: DclPoolRecord, token: string): bigint {
  return state.amounts[state.tokens.indexOf(token)]!;
}

function alignDown(point: number, delta: number): number {
  return Math.floor(point / delta) * delta;
}

function alignUp(point: number, delta: number): number {
  return Math.ceil(point / delta) * delta;
}
