// AmmDclA's state at one block, through the contract's views (README.md "Bootstrap"): `list_pools {from_index,
// limit}` pages the pools (point delta, current point, liquidity and its X part); per pool, `get_liquidity_range
// {pool_id, left_point, right_point}` gives the liquidity of every stretch between endpoints and
// `get_pointorder_range` the limit orders per point, both read window by window over [-800000, 800000]. The state is
// the fold's `DclPoolState` as it would stand had it been indexed from the pool's creation, but for what no view
// shows: an endpoint's liquidity sum (only its net delta shows: the sum is kept as a floor, `sumAtLeast`), and
// whether the current point itself is an endpoint whose delta is 0. Pure but for `at`.
//
// The liquidity view walks from the current point to the window: a window that does not hold the current point is
// only right when its near edge is no endpoint (the walk stops short of that edge's delta, and the view can even
// underflow). So windows are read outward from the one around the current point, each next one starting at a point
// of the previous one that is no endpoint; each window's gas grows with its far edge's distance from the price.
import { PoolsImportError, type BootstrapEvent, type BootstrapState, type ChainAt, type DexBootstrap } from '../dex.ts';
import { AMM_DCL_A_DEX_ID } from './events.ts';
import { LEFT_MOST_POINT, RIGHT_MOST_POINT } from './range-math.ts';
import { newDclPoolState, withReserves, type NewDclPool, type DclPointLiquidity, type DclPointOrder, type DclPoolState } from './state.ts';

/** Pools per `list_pools` call. */
export const DCL_POOLS_PAGE = 100;
/** Slots (points / point delta) per range window: 256 words of the contract's slot bitmap. */
export const DCL_WINDOW_SLOTS = 65_536;

export interface DclBootstrapOptions {
  poolsPage?: number;
  windowSlots?: number;
}

const MAX_U128 = (1n << 128n) - 1n;

/** What `list_pools` says of a pool that the state needs. */
interface PoolInfo extends NewDclPool {
  liquidity: bigint;
  liquidityX: bigint;
  running: boolean;
}

/** One window's answer of `get_liquidity_range`: stretches of constant liquidity, sorted, tiling [left, right]. */
interface Window {
  left: number;
  right: number;
  segments: Array<{ left: number; right: number; liquidity: bigint }>;
}

export function dclBootstrap(options: DclBootstrapOptions = {}): DexBootstrap {
  const poolsPage = options.poolsPage ?? DCL_POOLS_PAGE;
  const windowSlots = options.windowSlots ?? DCL_WINDOW_SLOTS;
  return {
    skipReasons: { paused: 'the pool is not Running: the contract refuses its swaps (it gets a state at a later bootstrap)' },
    async read(at: ChainAt): Promise<BootstrapState> {
      const contractId = at.contracts.AmmDclA;
      const call = (method: string, args: Record<string, unknown>) => `${contractId}.${method} ${JSON.stringify(args)} at block ${at.height}`;

      const infos: PoolInfo[] = [];
      for (let from = 0; ; from += poolsPage) {
        const args = { from_index: from, limit: poolsPage };
        const page = await at.view(contractId, 'list_pools', args);
        if (!Array.isArray(page)) throw new PoolsImportError(`${call('list_pools', args)}: the answer is not a list`);
        page.forEach((p, i) => infos.push(poolInfo(p, `${call('list_pools', args)}: pool ${from + i}`)));
        if (page.length < poolsPage) break;
      }

      const events: BootstrapEvent[] = [];
      const skipped: Record<string, number> = {};
      for (const info of infos) {
        if (!info.running) {
          skipped.paused = (skipped.paused ?? 0) + 1;
          continue;
        }
        const liquidityView = async (left: number, right: number): Promise<Window> => {
          const args = { pool_id: info.poolId, left_point: left, right_point: right };
          return window(await at.view(contractId, 'get_liquidity_range', args), left, right, call('get_liquidity_range', args));
        };
        const ordersView = async (left: number, right: number): Promise<unknown> =>
          at.view(contractId, 'get_pointorder_range', { pool_id: info.poolId, left_point: left, right_point: right });
        const points = await readPoints(info, windowSlots, liquidityView, `${contractId}.get_liquidity_range of ${info.poolId} at block ${at.height}`);
        const orders = await readOrders(info, windowSlots, ordersView, (left, right) => call('get_pointorder_range', { pool_id: info.poolId, left_point: left, right_point: right }));
        // The pool as created, at the view's point (its price is the table price of that point: every swap leaves
        // it there, range-math.ts), with the liquidity read.
        const state: DclPoolState = withReserves({ ...newDclPoolState(info), liquidity: info.liquidity, liquidityX: info.liquidityX, points, orders });
        events.push({ kind: 'pool_state', dex: AMM_DCL_A_DEX_ID, contractId, poolId: info.poolId, state, source: 'rpc' });
      }
      return { events, skipped };
    },
  };
}

export const ammDclABootstrap = dclBootstrap();

/**
 * The endpoints of the pool from its liquidity windows: the one around the current point, then outward on each side
 * windows that start at a point of the previous one that is no endpoint (see the header), up to ±800000.
 */
async function readPoints(info: PoolInfo, windowSlots: number, view: (left: number, right: number) => Promise<Window>, what: string): Promise<DclPointLiquidity[]> {
  const delta = info.pointDelta;
  const width = delta * windowSlots;
  const half = delta * Math.max(1, Math.floor(windowSlots / 2));
  const base = Math.floor(info.currentPoint / delta) * delta;
  const first = await view(Math.max(LEFT_MOST_POINT, base - half), Math.min(RIGHT_MOST_POINT, base + half));
  const windows = [first];
  for (let last = first; last.right < RIGHT_MOST_POINT; ) {
    const start = edgeInside(last, delta, 'right', what);
    last = await view(start, Math.min(RIGHT_MOST_POINT, start + width));
    windows.push(last);
  }
  for (let last = first; last.left > LEFT_MOST_POINT; ) {
    const end = edgeInside(last, delta, 'left', what);
    last = await view(Math.max(LEFT_MOST_POINT, end - width), end);
    windows.push(last);
  }

  // Inside a window, consecutive stretches differ by the delta of the endpoint between them; every point where a
  // window cuts is an endpoint, but for the current point (always cut) when the delta there is 0.
  const deltas = new Map<number, bigint>();
  for (const w of windows) {
    for (let i = 1; i < w.segments.length; i++) {
      const point = w.segments[i]!.left;
      const d = w.segments[i]!.liquidity - w.segments[i - 1]!.liquidity;
      if (deltas.has(point) && deltas.get(point) !== d) throw new PoolsImportError(`${what}: the windows disagree on the liquidity at point ${point}`);
      deltas.set(point, d);
    }
  }
  if (deltas.get(info.currentPoint) === 0n) deltas.delete(info.currentPoint);
  // The ends: what starts at -800000 and what ends at 800000, from the windows that reach them.
  const leftEnd = windows.find((w) => w.left === LEFT_MOST_POINT)!.segments[0]!.liquidity;
  const rightEnd = windows.find((w) => w.right === RIGHT_MOST_POINT)!.segments.at(-1)!.liquidity;
  if (leftEnd > 0n) deltas.set(LEFT_MOST_POINT, leftEnd);
  if (rightEnd > 0n) deltas.set(RIGHT_MOST_POINT, -rightEnd);

  const points: DclPointLiquidity[] = [...deltas]
    .sort(([a], [b]) => a - b)
    .map(([point, d]) => ({ point, liquiditySum: d < 0n ? -d : d === 0n ? 1n : d, liquidityDelta: d, sumAtLeast: true }));
  // Every stretch every window gave must be the liquidity these endpoints make, and so must the pool's.
  const levels: bigint[] = [];
  points.reduce((sum, p) => (levels.push(sum + p.liquidityDelta), sum + p.liquidityDelta), 0n);
  const levelAt = (point: number): bigint => {
    let lo = 0;
    let hi = points.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (points[mid]!.point <= point) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0n : levels[lo - 1]!;
  };
  for (const w of windows) {
    for (const s of w.segments) {
      if (levelAt(s.left) !== s.liquidity) throw new PoolsImportError(`${what}: window [${w.left}, ${w.right}] gives ${s.liquidity} from point ${s.left}, its neighbours ${levelAt(s.left)}`);
    }
  }
  if (levelAt(info.currentPoint) !== info.liquidity) {
    throw new PoolsImportError(`${what}: the ranges give ${levelAt(info.currentPoint)} at the current point ${info.currentPoint}, list_pools ${info.liquidity}`);
  }
  return points;
}

/** A multiple of the point delta strictly inside `w` where it has no endpoint, nearest its `side` edge. */
function edgeInside(w: Window, delta: number, side: 'left' | 'right', what: string): number {
  const cuts = new Set(w.segments.slice(1).map((s) => s.left));
  const step = side === 'right' ? -delta : delta;
  const from = side === 'right' ? Math.ceil(w.right / delta) * delta - delta : Math.floor(w.left / delta) * delta + delta;
  for (let point = from; point > w.left && point < w.right; point += step) if (!cuts.has(point)) return point;
  throw new PoolsImportError(`${what}: every point of window [${w.left}, ${w.right}] is an endpoint: no next window can start in it`);
}

/** The limit orders over [-800000, 800000], window by window (the view starts at the window: no walk). */
async function readOrders(info: PoolInfo, windowSlots: number, view: (left: number, right: number) => Promise<unknown>, what: (left: number, right: number) => string): Promise<DclPointOrder[]> {
  const width = info.pointDelta * windowSlots;
  const byPoint = new Map<number, DclPointOrder>();
  for (let left = LEFT_MOST_POINT; left < RIGHT_MOST_POINT; left += width) {
    const right = Math.min(RIGHT_MOST_POINT, left + width);
    const answer = await view(left, right);
    const where = what(left, right);
    if (!isRecord(answer)) throw new PoolsImportError(`${where}: the answer is not a map of points`);
    for (const value of Object.values(answer)) {
      const o = record(value, `${where}: an order`);
      const point = int(o.point, `${where}: point`);
      if (point < left || point > right) throw new PoolsImportError(`${where}: an order at point ${point}, outside the window`);
      const order = { point, sellingX: u128(o.amount_x, `${where}: amount_x at ${point}`), sellingY: u128(o.amount_y, `${where}: amount_y at ${point}`) };
      if (order.sellingX === 0n && order.sellingY === 0n) continue;
      const seen = byPoint.get(point);
      if (seen !== undefined && (seen.sellingX !== order.sellingX || seen.sellingY !== order.sellingY)) throw new PoolsImportError(`${where}: the windows disagree on the orders at point ${point}`);
      byPoint.set(point, order);
    }
  }
  return [...byPoint.values()].sort((a, b) => a.point - b.point);
}

// ---- the answers' shapes ----

/** A `Pool` of `list_pools` (its JSON: the fields the state needs; the others, statistics, are not read). */
function poolInfo(value: unknown, where: string): PoolInfo {
  const p = record(value, where);
  const poolId = str(p.pool_id, `${where}: pool_id`);
  const tokenX = str(p.token_x, `${where} ${poolId}: token_x`);
  const tokenY = str(p.token_y, `${where} ${poolId}: token_y`);
  const fee = int(p.fee, `${where} ${poolId}: fee`);
  if (poolId !== `${tokenX}|${tokenY}|${fee}`) throw new PoolsImportError(`${where}: pool_id ${poolId} is not token_x|token_y|fee`);
  if (fee < 0 || fee >= 1_000_000) throw new PoolsImportError(`${where} ${poolId}: fee ${fee} is no fee in millionths`);
  const pointDelta = int(p.point_delta, `${where} ${poolId}: point_delta`);
  if (pointDelta < 1) throw new PoolsImportError(`${where} ${poolId}: point_delta ${pointDelta}`);
  const currentPoint = int(p.current_point, `${where} ${poolId}: current_point`);
  if (currentPoint < LEFT_MOST_POINT || currentPoint > RIGHT_MOST_POINT) throw new PoolsImportError(`${where} ${poolId}: current_point ${currentPoint} is out of range`);
  const liquidity = u128(p.liquidity, `${where} ${poolId}: liquidity`);
  const liquidityX = u128(p.liquidity_x, `${where} ${poolId}: liquidity_x`);
  if (liquidityX > liquidity) throw new PoolsImportError(`${where} ${poolId}: liquidity_x ${liquidityX} above liquidity ${liquidity}`);
  const state = str(p.state, `${where} ${poolId}: state`);
  return { poolId, tokenX, tokenY, fee, pointDelta, currentPoint, liquidity, liquidityX, running: state === 'Running' };
}

/** A window's `HashMap<i32, RangeInfo>`: `{ "<left>": {left_point, right_point, amount_l} }`, tiling it. */
function window(answer: unknown, left: number, right: number, where: string): Window {
  if (!isRecord(answer)) throw new PoolsImportError(`${where}: the answer is not a map of ranges`);
  const segments = Object.values(answer).map((value) => {
    const r = record(value, `${where}: a range`);
    return { left: int(r.left_point, `${where}: left_point`), right: int(r.right_point, `${where}: right_point`), liquidity: u128(r.amount_l, `${where}: amount_l`) };
  });
  segments.sort((a, b) => a.left - b.left);
  let at = left;
  for (const s of segments) {
    if (s.left !== at || s.right <= s.left) throw new PoolsImportError(`${where}: the ranges do not tile the window (at point ${at}: [${s.left}, ${s.right}))`);
    at = s.right;
  }
  if (at !== right) throw new PoolsImportError(`${where}: the ranges end at point ${at}, not at the window's end`);
  return { left, right, segments };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function record(v: unknown, where: string): Record<string, unknown> {
  if (!isRecord(v)) throw new PoolsImportError(`${where}: not an object`);
  return v;
}

function str(v: unknown, where: string): string {
  if (typeof v !== 'string' || v === '') throw new PoolsImportError(`${where}: not a string`);
  return v;
}

function int(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new PoolsImportError(`${where}: ${JSON.stringify(v)} is not an integer`);
  return v;
}

function u128(v: unknown, where: string): bigint {
  if (typeof v !== 'string' || !/^\d{1,39}$/.test(v) || BigInt(v) > MAX_U128) throw new PoolsImportError(`${where}: ${JSON.stringify(v)} is not a u128 decimal string`);
  return BigInt(v);
}
