// The reference the analytics tests judge the api by (docs/methodology.md, worked out again): it reads the realnet's
// raw blocks, i.e. the contracts' own logs, the receipts' arguments and return values, and imports nothing from
// indexer/ or api/. Everything is a bigint: token amounts in smallest units, USD in 10^-18 (SCALE), every division
// floors as the definitions say.
import { expect } from 'vitest';
import { realnet } from '../harness/realnet.ts';
import { SEED } from '../tokens/harness.ts';

export const USDT = 'usdt.tether-token.near';
export const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1';
/** The realnet's dollars, 6 decimals each: 1 USD = 10^6 units = 10^18 of the api's 10^-18 USD. */
export const DOLLARS = [USDT, USDC];
export const TO_USD = 10n ** 12n;
export const SCALE = 10n ** 18n;
const WNEAR = 'wrap.near';
const REF = 'v2.ref-finance.near';

export const json = (text: string): any => JSON.parse(text);
const event = (log: string): any => (log.startsWith('EVENT_JSON:') ? json(log.slice('EVENT_JSON:'.length)) : null);
const asset = (id: string): string => (id.startsWith('nep141:') ? id.slice('nep141:'.length) : id);
const pow10 = (n: number) => 10n ** BigInt(n);

/** One executed receipt as the raw block gives it. */
export interface Receipt {
  height: number;
  ms: number;
  id: string;
  executor: string;
  predecessor: string;
  ok: boolean;
  logs: string[];
  /** Its function calls, arguments parsed. */
  calls: { method: string; args: Record<string, any> }[];
  /** The decoded SuccessValue, when it returned one. */
  returned: string | null;
}

export interface Block {
  height: number;
  ms: number;
  receipts: Receipt[];
}

const readings = new Map<number, Promise<Block[]>>();
/** Blocks 1..head of the realnet the tests index, every receipt outcome in the block's order (read once a file). */
export function rawBlocks(head: number): Promise<Block[]> {
  let reading = readings.get(head);
  if (!reading) readings.set(head, (reading = readBlocks(head)));
  return reading;
}

async function readBlocks(head: number): Promise<Block[]> {
  const blocks: Block[] = [];
  for await (const raw of realnet(SEED).raw({ to: head }, new AbortController().signal)) {
    const block = json(Buffer.from((raw as { body: Uint8Array }).body).toString('utf8'));
    const height: number = block.block.header.height;
    const ms = Number(BigInt(block.block.header.timestamp_nanosec) / 1_000_000n);
    const receipts: Receipt[] = [];
    for (const shard of block.shards) {
      for (const r of shard.receipt_execution_outcomes ?? []) {
        const outcome = r.execution_outcome.outcome;
        const actions = r.receipt.receipt.Action?.actions ?? [];
        const calls = actions.flatMap((a: any) =>
          a.FunctionCall ? [{ method: a.FunctionCall.method_name, args: json(Buffer.from(a.FunctionCall.args, 'base64').toString('utf8') || '{}') }] : [],
        );
        const ok = 'SuccessValue' in outcome.status || 'SuccessReceiptId' in outcome.status;
        const returned = typeof outcome.status.SuccessValue === 'string' ? Buffer.from(outcome.status.SuccessValue, 'base64').toString('utf8') : null;
        receipts.push({ height, ms, id: r.receipt.receipt_id, executor: outcome.executor_id, predecessor: r.receipt.predecessor_id, ok, logs: outcome.logs, calls, returned });
      }
    }
    blocks.push({ height, ms, receipts });
  }
  return blocks;
}

// ---------------------------------------------------------------------------------------------------------------
// Swaps

export interface Hop {
  height: number;
  ms: number;
  receipt: string;
  /** Order of the swap in its receipt's logs. */
  position: number;
  /** `<venue>:<pool>`: `ref:<id>`, `dcl:<id>`, `intear:<id>`, `launch:<token>`, `rfq`, `meta-pool`. */
  pool: string;
  /** Who swapped, as the venue names them (Ref: the transfer's sender, else the caller). */
  trader: string;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  amountOut: bigint;
}

/** Ref's swap actions in a receipt, in order: from `ft_on_transfer`'s msg, or a call's own `actions`. */
function refActions(calls: Receipt['calls']): { pool_id: number; token_in: string; token_out: string }[] {
  return calls.flatMap(({ args: a }) => {
    const body = typeof a.msg === 'string' && a.msg !== '' ? json(a.msg) : a;
    return Array.isArray(body?.actions) ? body.actions : [];
  });
}

/** The Ref swap lines of a receipt: [amount in, token in, amount out, token out]. */
const refSwapLines = (r: Receipt) =>
  r.logs.map((l) => /^(?:Swapped|Swap_by_output) (\d+) (\S+) for (\d+) ([^\s,]+)/.exec(l)).filter((m) => m !== null);

/**
 * The swaps of a receipt, one per swap the venue logs. `mirrors`: also the solver's leg of a verifier fill, which
 * is the same exchange as the user's (a trade of its own, not volume).
 */
export function hopsOf(r: Receipt, mirrors = false): Hop[] {
  if (!r.ok) return [];
  const hops: Hop[] = [];
  const add = (pool: string, trader: string, tokenIn: string, amountIn: string, tokenOut: string, amountOut: string) =>
    hops.push({ height: r.height, ms: r.ms, receipt: r.id, position: hops.length, pool, trader, tokenIn, tokenOut, amountIn: BigInt(amountIn), amountOut: BigInt(amountOut) });
  switch (r.executor) {
    case REF: {
      const lines = refSwapLines(r);
      if (!lines.length) break;
      const actions = refActions(r.calls);
      expect(actions.map((a) => [a.token_in, a.token_out]), r.id).toEqual(lines.map((m) => [m[2], m[4]]));
      const sender = r.calls.find((c) => c.method === 'ft_on_transfer')?.args.sender_id ?? r.predecessor;
      lines.forEach((m, i) => add(`ref:${actions[i]!.pool_id}`, sender, m[2]!, m[1]!, m[4]!, m[3]!));
      break;
    }
    case 'dclv2.ref-labs.near':
      for (const log of r.logs) {
        const e = event(log);
        if (e?.standard === 'dcl.ref' && (e.event === 'swap' || e.event === 'swap_desire')) for (const d of e.data) add(`dcl:${d.pool_id}`, d.swapper, d.token_in, d.amount_in, d.token_out, d.amount_out);
      }
      break;
    case 'dex.intear.near':
      for (const log of r.logs) {
        const e = event(log);
        if (e?.standard !== 'inteardex' || e.event !== 'swap') continue;
        // The pool is the request's message: a little-endian u32 (borsh).
        const pool = Buffer.from(e.data.request.message, 'base64').readUInt32LE(0);
        add(`intear:${pool}`, e.data.trader, asset(e.data.request.asset_in), e.data.amount_in, asset(e.data.request.asset_out), e.data.amount_out);
      }
      break;
    case 'aidols.near':
      for (const log of r.logs) {
        const e = event(log);
        if (e?.standard === 'aidols' && e.event === 'token_swap') {
          for (const d of e.data) add(`launch:${d.input_token === WNEAR ? d.output_token : d.input_token}`, d.user_id, d.input_token, d.input_amount, d.output_token, d.output_amount);
        }
      }
      break;
    case 'intents.near': {
      const open: string[] = [];
      for (const log of r.logs) {
        const e = event(log);
        if (e?.standard !== 'dip4' || e.event !== 'token_diff') continue;
        for (const d of e.data) {
          const diff = Object.entries(d.diff as Record<string, string>);
          const paid = diff.filter(([, v]) => v.startsWith('-'));
          const got = diff.filter(([, v]) => !v.startsWith('-'));
          if (diff.length !== 2 || paid.length !== 1) continue;
          const [tokenIn, amountIn] = [asset(paid[0]![0]), paid[0]![1].slice(1)];
          const [tokenOut, amountOut] = [asset(got[0]![0]), got[0]![1]];
          // The solver's side of a fill mirrors the user's: one exchange.
          const mirror = open.indexOf(`${tokenOut}>${tokenIn}`);
          if (mirror >= 0) open.splice(mirror, 1);
          else open.push(`${tokenIn}>${tokenOut}`);
          if (mirror < 0 || mirrors) add('rfq', d.account_id, tokenIn, amountIn, tokenOut, amountOut);
        }
      }
      break;
    }
    case 'meta-pool.near':
      for (const log of r.logs) {
        if (!log.startsWith('{"event":"LIQ.U"')) continue;
        const d = json(log);
        add('meta-pool', d.account_id, 'meta-pool.near', d.stnear, 'near', d.near);
      }
      break;
  }
  return hops;
}

const byLogOrder = (a: Hop, b: Hop) => a.height - b.height || (a.receipt < b.receipt ? -1 : a.receipt > b.receipt ? 1 : 0) || a.position - b.position;

/** Every volume hop of the blocks, in the log's order (height, receipt id, position). */
export function referenceHops(blocks: Block[]): Hop[] {
  return blocks.flatMap((b) => b.receipts.flatMap((r) => hopsOf(r))).sort(byLogOrder);
}

/** A hop's USD value (10^-18 USD) from its dollar side, the input first; null without one. */
export function dollarValue(hop: Hop): bigint | null {
  if (DOLLARS.includes(hop.tokenIn)) return hop.amountIn * TO_USD;
  if (DOLLARS.includes(hop.tokenOut)) return hop.amountOut * TO_USD;
  return null;
}

/** An api decimal (trailing zeros dropped, maybe signed) in 10^-18 units; null stays null. */
export function units(text: string | null): bigint | null {
  if (text === null) return null;
  const negative = text.startsWith('-');
  const [whole, fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const value = BigInt(whole!) * SCALE + BigInt(fraction.padEnd(18, '0'));
  return negative ? -value : value;
}

// ---------------------------------------------------------------------------------------------------------------
// Balances

/**
 * Every NEP-141 balance after the blocks, per token contract, from the tokens' own records: the standard's
 * `ft_mint`, `ft_transfer` and `ft_burn` events, and an init (`new {owner_id, total_supply}`, the example contract's)
 * that deposits the whole supply and logs nothing. Tokens that also log anything else (older formats such as
 * `Transfer N from A to B`) are left out: `skipped` names them.
 */
export function referenceBalances(blocks: Block[]): { balances: Map<string, Map<string, bigint>>; inits: Set<string>; skipped: Set<string> } {
  const balances = new Map<string, Map<string, bigint>>();
  const inits = new Set<string>();
  const skipped = new Set<string>();
  const move = (token: string, account: string, delta: bigint) => {
    let of = balances.get(token);
    if (!of) balances.set(token, (of = new Map()));
    of.set(account, (of.get(account) ?? 0n) + delta);
  };
  for (const block of blocks) {
    for (const r of block.receipts) {
      if (!r.ok) continue;
      const token = r.executor;
      for (const { method, args } of r.calls) {
        if (method === 'new' && typeof args.total_supply === 'string' && typeof args.owner_id === 'string') {
          move(token, args.owner_id, BigInt(args.total_supply));
          inits.add(token);
        }
      }
      for (const log of r.logs) {
        const e = event(log);
        if (e?.standard !== 'nep141') {
          if (balances.has(token) || /^(Transfer|Refund) \d+ from /.test(log)) skipped.add(token);
          continue;
        }
        for (const d of e.data) {
          const amount = BigInt(d.amount);
          if (e.event === 'ft_mint') move(token, d.owner_id, amount);
          else if (e.event === 'ft_burn') move(token, d.owner_id, -amount);
          else if (e.event === 'ft_transfer') {
            move(token, d.old_owner_id, -amount);
            move(token, d.new_owner_id, amount);
          }
        }
      }
    }
  }
  for (const token of skipped) balances.delete(token);
  return { balances, inits, skipped };
}

// ---------------------------------------------------------------------------------------------------------------
// Pool states, from the venues' own records

/** A pool after a block: the reserves its curve uses (`amounts`) and those it really holds (`held`). */
export interface PoolState {
  /** `<dex>:<pool id>`, the api's DEX names: `AmmA:0`, `AmmC:3`, `Launch:<token>`, `StakeB:<contract>`. */
  key: string;
  /** `simple` and `stable` (Ref), `xyk` (Intear), `curve` (the launchpad), `rate` (a staking contract). */
  kind: 'simple' | 'stable' | 'xyk' | 'curve' | 'rate';
  tokens: string[];
  amounts: bigint[];
  held: bigint[];
}

/** Each Ref log line `["<amount> <token>", ...]` as amounts by token. */
const refAmounts = (list: string): Map<string, bigint> =>
  new Map((json(list) as string[]).map((item) => [item.split(' ')[1]!, BigInt(item.split(' ')[0]!)]));

/**
 * Every pool that sets a price or holds reserves, after each block (a new Map only for blocks that change one), read
 * from what each venue states:
 * - Ref's pools (its release wasm): created by `add_simple_pool` / `add_stable_swap_pool` (the id is the call's return
 *   value); `Liquidity added [...]` and `... removed: receive back [...]` state the amounts (the pool from the call's
 *   `pool_id`); a stable pool's `add_stable_liquidity` and `remove_liquidity_by_tokens` move exactly their arguments'
 *   amounts; a swap line adds its input to the pool and takes its output out (Ref's fees are paid in minted shares,
 *   never out of the reserves).
 * - Intear's pools (AmmC): each `pool_updated` event states the whole pool, balances included; a launch pool's NEAR
 *   side counts its phantom liquidity on the curve but does not hold it.
 * - The launchpad's curves: each `token_swap` item states the curve's holds after it (`token_hold`, `wnear_hold`).
 * - LiNEAR and rNEAR (StakeB, StakeD): `Contract total staked balance is N. Total number of shares S` after every
 *   stake, and each `epoch_update_rewards` adds its `rewards` to the staked NEAR.
 * Not read: the DCL's reserves (the amounts its ranges hold at the current point: no log states them; its pools set no
 * price), Meta Pool's rate (StakeA: no log states it) and xRHEA's (RHEA has no price to take it from).
 */
export function poolStates(blocks: Block[]): Map<number, Map<string, PoolState>> {
  const pools = new Map<string, PoolState>();
  const after = new Map<number, Map<string, PoolState>>();
  const set = (key: string, kind: PoolState['kind'], tokens: string[], amounts: bigint[], held = amounts) => pools.set(key, { key, kind, tokens, amounts, held });
  const move = (key: string, deltas: Map<string, bigint>, sign: 1n | -1n) => {
    const pool = pools.get(key)!;
    expect([...deltas.keys()].every((t) => pool.tokens.includes(t)), key).toBe(true);
    const amounts = pool.tokens.map((t, i) => pool.amounts[i]! + sign * (deltas.get(t) ?? 0n));
    set(key, pool.kind, pool.tokens, amounts);
  };
  for (const block of blocks) {
    for (const r of block.receipts) {
      if (!r.ok) continue;
      const call = r.calls[0];
      if (r.executor === REF) {
        const poolId = call?.args.pool_id;
        if (call?.method === 'add_simple_pool' || call?.method === 'add_stable_swap_pool') {
          set(`AmmA:${json(r.returned!)}`, call.method === 'add_simple_pool' ? 'simple' : 'stable', call.args.tokens, call.args.tokens.map(() => 0n));
        }
        for (const log of r.logs) {
          const added = /^Liquidity added (\[.*\]), minted/.exec(log);
          const removed = /^\d+ shares of liquidity removed: receive back (\[.*\])$/.exec(log);
          if (added) move(`AmmA:${poolId}`, refAmounts(added[1]!), 1n);
          if (removed) move(`AmmA:${poolId}`, refAmounts(removed[1]!), -1n);
          // A stable pool's removal by shares: the amounts in the pool's token order.
          const gained = /^LP \S+ remove \d+ shares to gain tokens \[([\d, ]*)\]$/.exec(log);
          if (gained) {
            const pool = pools.get(`AmmA:${poolId}`)!;
            const amounts = gained[1]!.split(', ').map(BigInt);
            move(pool.key, new Map(pool.tokens.map((t, i) => [t, amounts[i]!])), -1n);
          }
        }
        if (call?.method === 'add_stable_liquidity' || call?.method === 'remove_liquidity_by_tokens') {
          const pool = pools.get(`AmmA:${poolId}`)!;
          move(pool.key, new Map(pool.tokens.map((t, i) => [t, BigInt(call.args.amounts[i])])), call.method === 'add_stable_liquidity' ? 1n : -1n);
        }
        for (const hop of hopsOf(r)) {
          const key = `AmmA:${hop.pool.slice('ref:'.length)}`;
          move(key, new Map([[hop.tokenIn, hop.amountIn]]), 1n);
          move(key, new Map([[hop.tokenOut, hop.amountOut]]), -1n);
        }
      }
      for (const log of r.logs) {
        const e = event(log);
        if (r.executor === 'dex.intear.near' && e?.event === 'dex_event' && e.data.event.event === 'pool_updated') {
          const { pool_id: id, pool } = e.data.event.data;
          const [type, body] = Object.entries(pool)[0] as [string, any];
          if (type === 'Launch') {
            const near = BigInt(body.near_amount);
            const launched = BigInt(body.launched_asset.balance);
            set(`AmmC:${id}`, 'xyk', ['near', asset(body.launched_asset.asset_id)], [near, launched], [near - BigInt(body.phantom_liquidity_near), launched]);
          } else {
            expect(['Public', 'Private'], `AmmC ${id}`).toContain(type);
            set(`AmmC:${id}`, 'xyk', body.assets.map((a: any) => asset(a.asset_id)), body.assets.map((a: any) => BigInt(a.balance)));
          }
        }
        if (r.executor === 'aidols.near' && e?.standard === 'aidols' && e.event === 'token_swap') {
          for (const d of e.data) {
            const token = d.input_token === WNEAR ? d.output_token : d.input_token;
            set(`Launch:${token}`, 'curve', [token, WNEAR], [BigInt(d.token_hold), BigInt(d.wnear_hold)]);
          }
        }
        const dex = r.executor === 'linear-protocol.near' ? 'StakeB' : r.executor === 'lst.rhealab.near' ? 'StakeD' : null;
        if (dex) {
          const key = `${dex}:${r.executor}`;
          const totals = /^Contract total staked balance is (\d+)\. Total number of shares (\d+)$/.exec(log);
          if (totals) set(key, 'rate', ['near', r.executor], [BigInt(totals[1]!), BigInt(totals[2]!)]);
          if (e?.event === 'epoch_update_rewards') {
            const pool = pools.get(key)!;
            set(key, 'rate', pool.tokens, [pool.amounts[0]! + e.data.reduce((sum: bigint, d: any) => sum + BigInt(d.rewards), 0n), pool.amounts[1]!]);
          }
        }
      }
    }
    after.set(block.height, new Map(pools));
  }
  return after;
}

/** Decimals of each token as its init states them (`new {metadata: {decimals}}`), from its init's block on. wNEAR's
 * init carries none: the wrap contract's metadata is NEAR's own 24, fixed in its code. */
export function decimalsByBlock(blocks: Block[]): Map<number, Map<string, number>> {
  const decimals = new Map<string, number>([[WNEAR, 24]]);
  const after = new Map<number, Map<string, number>>();
  for (const block of blocks) {
    for (const r of block.receipts) {
      const d = r.ok ? r.calls.find((c) => c.method === 'new')?.args.metadata?.decimals : undefined;
      if (typeof d === 'number') decimals.set(r.executor, d);
    }
    after.set(block.height, new Map(decimals));
  }
  return after;
}

// ---------------------------------------------------------------------------------------------------------------
// Prices (docs/methodology.md, Prices), written as a plain walk

export interface Price {
  /** USD per whole token, 10^-18 USD. */
  price: bigint;
  /** 0 for the dollars, 1 for NEAR, then in the order tokens were priced. */
  rank: number;
}

/** `near` is priced as wNEAR. */
const pricing = (token: string) => (token === 'near' ? WNEAR : token);

/**
 * Every token's price after a block, from the pools' states: the dollars are 1 while a pool holds them; NEAR takes
 * its deepest pool to a dollar; then, deepest link first, each unpriced token takes the deepest link from a priced
 * one. A link is a two-token constant-product pool (Ref simple, Intear xyk, a launch curve) whose priced side holds at
 * least 1,000 USD (its depth), or a staking contract's rate, deeper than any pool; ties go to the lower token id,
 * then pool key. The price makes both sides worth the same: p(to) = p(from) * r(from) * 10^dec(to) / (r(to) * 10^dec(from)).
 */
export function priceWalk(pools: Iterable<PoolState>, decimals: Map<string, number>): Map<string, Price> {
  const links: { from: string; to: string; pool: string; fromReserve: bigint; toReserve: bigint; fromHeld: bigint; rate: boolean }[] = [];
  const held = new Set<string>();
  for (const p of pools) {
    for (const t of p.tokens) held.add(pricing(t));
    if (!['simple', 'xyk', 'curve', 'rate'].includes(p.kind) || p.tokens.length !== 2) continue;
    const [a, b] = p.tokens.map(pricing) as [string, string];
    const [ra, rb] = p.amounts as [bigint, bigint];
    if (a === b || ra <= 0n || rb <= 0n) continue;
    links.push({ from: a, to: b, pool: p.key, fromReserve: ra, toReserve: rb, fromHeld: p.held[0]!, rate: p.kind === 'rate' });
    links.push({ from: b, to: a, pool: p.key, fromReserve: rb, toReserve: ra, fromHeld: p.held[1]!, rate: p.kind === 'rate' });
  }
  const prices = new Map<string, Price>();
  for (const dollar of DOLLARS) if (held.has(dollar)) prices.set(dollar, { price: SCALE, rank: 0 });
  const floor = 1_000n * SCALE;
  /** The best link from a priced token to an unpriced one that `allowed` lets through, or none. */
  const best = (allowed: (to: string, from: string) => boolean) => {
    let choice: { link: (typeof links)[number]; depth: bigint } | undefined;
    for (const link of links) {
      const from = prices.get(link.from);
      if (!from || prices.has(link.to) || DOLLARS.includes(link.to) || !allowed(link.to, link.from)) continue;
      if (decimals.get(link.from) === undefined || decimals.get(link.to) === undefined) continue;
      const depth = (link.fromHeld * from.price) / pow10(decimals.get(link.from)!);
      if (!link.rate && depth < floor) continue;
      const c = { link, depth };
      const better = !choice
        || (c.link.rate !== choice.link.rate ? c.link.rate
          : c.depth !== choice.depth ? c.depth > choice.depth
          : c.link.to !== choice.link.to ? c.link.to < choice.link.to
          : c.link.pool < choice.link.pool);
      if (better) choice = c;
    }
    return choice?.link;
  };
  const assign = (link: (typeof links)[number], rank: number) => {
    const from = prices.get(link.from)!.price;
    const price = (from * link.fromReserve * pow10(decimals.get(link.to)!)) / (link.toReserve * pow10(decimals.get(link.from)!));
    prices.set(link.to, { price, rank });
  };
  const near = best((to, from) => to === WNEAR && DOLLARS.includes(from));
  if (near) assign(near, 1);
  for (let rank = 2, link = best(() => true); link; link = best(() => true)) assign(link, rank++);
  if (prices.has(WNEAR)) prices.set('near', prices.get(WNEAR)!);
  return prices;
}

/** Every token's price after every block (the blocks' heights to the prices then). */
export function pricesByBlock(blocks: Block[]): Map<number, Map<string, Price>> {
  const states = poolStates(blocks);
  const decimals = decimalsByBlock(blocks);
  return new Map(blocks.map((b) => [b.height, priceWalk(states.get(b.height)!.values(), decimals.get(b.height)!)]));
}

/** The token liquidity of the definition: a token's reserves summed over the pools that hold reserves (rate pools
 * hold none), at its price, floored once. */
export function tokenLiquidity(pools: Iterable<PoolState>, prices: Map<string, Price>, decimals: Map<string, number>): Map<string, bigint> {
  const reserves = new Map<string, bigint>();
  for (const p of pools) {
    if (p.kind === 'rate') continue;
    p.tokens.forEach((t, i) => reserves.set(pricing(t), (reserves.get(pricing(t)) ?? 0n) + p.held[i]!));
  }
  const liquidity = new Map<string, bigint>();
  for (const [token, reserve] of reserves) {
    const price = prices.get(token);
    if (price && decimals.has(token)) liquidity.set(token, (reserve * price.price) / pow10(decimals.get(token)!));
  }
  if (liquidity.has(WNEAR)) liquidity.set('near', liquidity.get(WNEAR)!);
  return liquidity;
}

/** A pool's liquidity: each token's held reserve at its price, floored per token and summed; null with no price. */
export function poolLiquidity(pool: PoolState, prices: Map<string, Price>, decimals: Map<string, number>): bigint | null {
  if (pool.kind === 'rate') return null;
  let sum: bigint | null = null;
  pool.tokens.forEach((t, i) => {
    const price = prices.get(pricing(t));
    if (price && decimals.has(pricing(t))) sum = (sum ?? 0n) + (pool.held[i]! * price.price) / pow10(decimals.get(pricing(t))!);
  });
  return sum;
}

// ---------------------------------------------------------------------------------------------------------------
// Trades and positions

export interface Trade {
  height: number;
  receipt: string;
  /** The api's DEX name. */
  dex: string;
  trader: string;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  amountOut: bigint;
}

const DEX_OF_VENUE: Record<string, string> = { ref: 'AmmA', dcl: 'AmmDclA', intear: 'AmmC', launch: 'Launch', rfq: 'QuoteA', 'meta-pool': 'StakeA' };

/**
 * The trades the reference reads: each venue's swaps of one receipt and trader, in order, are one trade (its first
 * input, its last output); both sides of a verifier fill are trades of their accounts; and wraps (wrap.near's
 * deposits and withdrawals), which are trades of NEAR for wNEAR or back.
 * Not read: stakes at a protocol's rate and deposits into Ref's inner balances (trades too, but not here).
 */
export function referenceTrades(blocks: Block[]): Trade[] {
  const trades: Trade[] = [];
  for (const block of blocks) {
    for (const r of block.receipts) {
      const hops = hopsOf(r, true);
      const groups = new Map<string, Hop[]>();
      for (const h of hops) {
        const key = h.pool === 'rfq' ? `${h.trader}#${h.position}` : h.trader;
        groups.set(key, [...(groups.get(key) ?? []), h]);
      }
      for (const group of groups.values()) {
        const [first, last] = [group[0]!, group.at(-1)!];
        trades.push({ height: r.height, receipt: r.id, dex: DEX_OF_VENUE[first.pool.split(':')[0]!]!, trader: first.trader, tokenIn: first.tokenIn, tokenOut: last.tokenOut, amountIn: first.amountIn, amountOut: last.amountOut });
      }
      // The wrap contract's own lines (its release wasm): `Deposit <yocto> NEAR to <account>` and
      // `Withdraw <yocto> yoctoNEAR from <account>`.
      if (r.executor === WNEAR && r.ok) {
        for (const log of r.logs) {
          const deposit = /^Deposit (\d+) NEAR to (\S+)$/.exec(log);
          const withdrawal = /^Withdraw (\d+) yoctoNEAR from (\S+)$/.exec(log);
          const [m, tokenIn, tokenOut] = deposit ? [deposit, 'near', WNEAR] : [withdrawal, WNEAR, 'near'];
          if (m) trades.push({ height: r.height, receipt: r.id, dex: 'Wrap', trader: m[2]!, tokenIn, tokenOut, amountIn: BigInt(m[1]!), amountOut: BigInt(m[1]!) });
        }
      }
    }
  }
  return trades;
}

/** A trade's USD value: its side with the lower price rank (the input on a tie) at that token's price after its
 * block; null when neither side has a price. */
export function tradeValue(trade: Trade, prices: Map<string, Price>, decimals: Map<string, number>): bigint | null {
  let valued: { amount: bigint; price: Price; decimals: number } | undefined;
  for (const [token, amount] of [[trade.tokenIn, trade.amountIn], [trade.tokenOut, trade.amountOut]] as const) {
    const price = prices.get(pricing(token));
    const d = decimals.get(pricing(token));
    if (price && d !== undefined && (!valued || price.rank < valued.price.rank)) valued = { amount, price, decimals: d };
  }
  return valued ? (valued.amount * valued.price.price) / pow10(valued.decimals) : null;
}

export interface Position {
  /** Bought through priced trades and not sold since. */
  tracked: bigint;
  /** What `tracked` cost, 10^-18 USD. */
  cost: bigint;
  realized: bigint;
  bought: bigint;
  sold: bigint;
}

/**
 * Average-cost positions from an account's trades, oldest first (docs/methodology.md, Positions and PnL): a buy adds
 * its amount and value; a sell realizes its value less the average cost of the tracked amount it sells (a sell beyond
 * the tracked amount realizes nothing for the rest); trades without a value move amounts only.
 */
export function positionsOf(trades: { trade: Trade; value: bigint | null }[]): Map<string, Position> {
  const positions = new Map<string, Position>();
  const of = (token: string) => {
    if (!positions.has(token)) positions.set(token, { tracked: 0n, cost: 0n, realized: 0n, bought: 0n, sold: 0n });
    return positions.get(token)!;
  };
  for (const { trade, value } of trades) {
    const sold = of(trade.tokenIn);
    sold.sold += trade.amountIn;
    if (value !== null && sold.tracked > 0n) {
      const amount = trade.amountIn < sold.tracked ? trade.amountIn : sold.tracked;
      const cost = (sold.cost * amount) / sold.tracked;
      sold.realized += (value * amount) / trade.amountIn - cost;
      sold.cost -= cost;
      sold.tracked -= amount;
    }
    const bought = of(trade.tokenOut);
    bought.bought += trade.amountOut;
    if (value !== null) {
      bought.tracked += trade.amountOut;
      bought.cost += value;
    }
  }
  return positions;
}
