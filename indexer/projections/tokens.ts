// Token projections from core events: transfers, balances (current and per block), tokens (metadata, holders,
// supply) and storage registrations. Per batch, a pure step works out the changes (`prepareTokenChanges`, which
// can run while the previous batch is still being written) and an I/O step applies them with set-based SQL
// (`applyTokenChanges`). Results do not depend on the order of events within a block, so a live run and a
// rebuild from the log write the same rows.
import { sql } from '../../db/kysely.ts';
import type { Tx } from '../../db/connect.ts';
import { copyRows } from '../../db/copy.ts';
import type { CopyChunks } from '../../db/copy-text.ts';
import { findKnownToken } from '../../near/known-tokens.ts';
import { TRANSFER_COLUMNS, type DomainEvent } from '../event-rows.ts';

export const NEAR = 'near';
const NATIVE = { symbol: 'NEAR', name: 'NEAR', decimals: 24, icon: null };

/** What the batch's events do to one (token, account) balance, per block. */
interface BalanceMove {
  token: string;
  account: string;
  total: bigint;
  /** The heights that moved it, increasing (events come sorted), and the net move at each. */
  heights: number[];
  deltas: bigint[];
}

interface TokenChange {
  token: string;
  firstHeight: number;
  lastHeight: number;
  minted: bigint;
  burned: bigint;
  holders: number;
  /** Metadata from the chain: an init call (then the token's creation is in the log, so its supply is known) or
   * its `ft_metadata` view. */
  metadata?: { source: 'init' | 'rpc'; symbol: string; name: string; decimals: number; icon: string | null; reference: string | null };
}

export interface TokenChanges {
  /** COPY text of the `transfers` rows. */
  transfers: CopyChunks;
  moves: BalanceMove[];
  tokens: TokenChange[];
  registrations: { contract: string; account: string; deposit: bigint; height: number }[];
}

/** What a batch's events (sorted by compareEvents) change in the token projections; `transfers` is their
 * `transfers` rows as COPY text (event-rows.ts). Pure. */
export function prepareTokenChanges(events: readonly DomainEvent[], transfers: CopyChunks): TokenChanges {
  const moves = new Map<string, BalanceMove>();
  const tokens = new Map<string, TokenChange>();
  const registrations = new Map<string, { contract: string; account: string; deposit: bigint; height: number }>();

  const tokenChange = (token: string, height: number): TokenChange => {
    let change = tokens.get(token);
    if (!change) tokens.set(token, (change = { token, firstHeight: height, lastHeight: height, minted: 0n, burned: 0n, holders: 0 }));
    change.lastHeight = Math.max(change.lastHeight, height);
    return change;
  };
  const move = (token: string, account: string, height: number, delta: bigint) => {
    if (delta === 0n) return;
    const key = `${token}\u0000${account}`;
    let m = moves.get(key);
    if (!m) moves.set(key, (m = { token, account, total: 0n, heights: [], deltas: [] }));
    m.total += delta;
    const last = m.heights.length - 1;
    if (m.heights[last] === height) m.deltas[last]! += delta;
    else {
      m.heights.push(height);
      m.deltas.push(delta);
    }
  };

  for (const e of events) {
    switch (e.kind) {
      case 'ft_transfer':
        move(e.contractId, e.from, e.blockHeight, -e.amount);
        move(e.contractId, e.to, e.blockHeight, e.amount);
        tokenChange(e.contractId, e.blockHeight);
        break;
      case 'ft_mint':
        move(e.contractId, e.owner, e.blockHeight, e.amount);
        tokenChange(e.contractId, e.blockHeight).minted += e.amount;
        break;
      case 'ft_burn':
        move(e.contractId, e.owner, e.blockHeight, -e.amount);
        tokenChange(e.contractId, e.blockHeight).burned += e.amount;
        break;
      case 'near_transfer':
        if (e.refund) break; // see transferRow
        move(NEAR, e.from, e.blockHeight, -e.amount);
        move(NEAR, e.to, e.blockHeight, e.amount);
        tokenChange(NEAR, e.blockHeight);
        break;
      case 'storage_deposit': {
        const key = `${e.contractId}\u0000${e.accountId}`;
        const r = registrations.get(key);
        if (r) r.deposit += e.deposit;
        else registrations.set(key, { contract: e.contractId, account: e.accountId, deposit: e.deposit, height: e.blockHeight });
        break;
      }
      case 'token_metadata': {
        const change = tokenChange(e.contractId, e.blockHeight);
        // Events arrive sorted: the last of the batch wins, the same live and in a rebuild.
        change.metadata = { source: e.source, symbol: e.symbol, name: e.name, decimals: e.decimals, icon: e.icon, reference: e.reference };
        break;
      }
    }
  }

  return { transfers, moves: [...moves.values()], tokens: [...tokens.values()], registrations: [...registrations.values()] };
}

/** Writes prepared changes; returns the tokens touched. */
export async function applyTokenChanges(tx: Tx, changes: TokenChanges): Promise<Set<string>> {
  await copyRows(tx.client, 'transfers', TRANSFER_COLUMNS, changes.transfers);
  const byToken = new Map(changes.tokens.map((t) => [t.token, t]));
  if (changes.moves.length) await applyBalanceMoves(tx, changes.moves, (token, delta) => (byToken.get(token)!.holders += delta));
  if (changes.tokens.length) await upsertTokens(tx, changes.tokens);
  const rows = changes.registrations;
  if (rows.length) {
    await sql`
      insert into storage_registrations as r (contract_id, account_id, deposit, registered_height)
      select * from unnest(${rows.map((r) => r.contract)}::text[], ${rows.map((r) => r.account)}::text[],
                           ${rows.map((r) => r.deposit.toString())}::numeric[], ${rows.map((r) => r.height)}::bigint[])
      on conflict (contract_id, account_id) do update set deposit = r.deposit + excluded.deposit`.execute(tx.kysely);
  }
  return new Set(byToken.keys());
}

/**
 * Creates or updates one row per token. Metadata: the chain's (an init call, or the `ft_metadata` view) wins over
 * everything, the bundled list of well-known tokens fills in for tokens created before the log began. Supply: a batch that holds the token's
 * init call tracks it from zero; a token created before the log began has an unknown supply (null) whatever
 * mints and burns follow.
 */
const METADATA_UPDATE = sql.join(
  ['symbol', 'name', 'decimals', 'icon', 'reference', 'metadata_source'].map((column) =>
    sql.raw(`${column} = case when excluded.metadata_source in ('init', 'rpc') or t.metadata_source is null then excluded.${column} else t.${column} end`),
  ),
);

async function upsertTokens(tx: Tx, changes: TokenChange[]) {
  const rows = changes.sort((a, b) => (a.token < b.token ? -1 : 1));
  const meta = rows.map((t) => {
    if (t.metadata) return t.metadata;
    const known = t.token === NEAR ? NATIVE : findKnownToken(t.token);
    return known && { symbol: known.symbol, name: known.name, decimals: known.decimals, icon: known.icon, reference: null, source: 'known' };
  });
  const net = rows.map((t) => (t.minted - t.burned).toString());
  const fresh = await sql<{ token: string; inserted: boolean }>`
    insert into tokens as t (token, symbol, name, decimals, icon, reference, metadata_source, total_supply, holders, created_height, updated_height)
    select u.token, u.symbol, u.name, u.decimals, u.icon, u.reference, u.source, case when u.init_seen then u.net end, u.holders, u.first, u.last
    from unnest(
      ${rows.map((t) => t.token)}::text[], ${meta.map((m) => m?.symbol ?? null)}::text[], ${meta.map((m) => m?.name ?? null)}::text[],
      ${meta.map((m) => m?.decimals ?? null)}::int[], ${meta.map((m) => m?.icon ?? null)}::text[], ${meta.map((m) => m?.reference ?? null)}::text[],
      ${meta.map((m) => m?.source ?? null)}::text[], ${rows.map((t) => t.metadata?.source === 'init')}::bool[], ${net}::numeric[],
      ${rows.map((t) => t.holders)}::int[], ${rows.map((t) => t.firstHeight)}::bigint[], ${rows.map((t) => t.lastHeight)}::bigint[]
    ) as u(token, symbol, name, decimals, icon, reference, source, init_seen, net, holders, first, last)
    on conflict (token) do update set
      ${METADATA_UPDATE},
      holders = t.holders + excluded.holders,
      updated_height = greatest(t.updated_height, excluded.updated_height)
    returning token, (xmax = 0) as inserted`.execute(tx.kysely);
  // Rows that existed before this batch: their known supply moves by this batch's mints minus burns.
  const existed = new Set(fresh.rows.filter((r) => !r.inserted).map((r) => r.token));
  const moved = rows.map((t, i) => ({ token: t.token, net: net[i]! })).filter((r) => existed.has(r.token) && r.net !== '0');
  if (moved.length) {
    await sql`
      update tokens t set total_supply = t.total_supply + u.net
      from unnest(${moved.map((r) => r.token)}::text[], ${moved.map((r) => r.net)}::numeric[]) as u(token, net)
      where t.token = u.token and t.total_supply is not null`.execute(tx.kysely);
  }
}

/**
 * Adds the moves to `balances`, writes the balance after each block to `balance_history`, and reports holder
 * count changes (an account becomes a holder when its balance turns positive, and stops when it no longer is).
 */
async function applyBalanceMoves(tx: Tx, moves: BalanceMove[], onHolders: (token: string, delta: number) => void) {
  // Through a temporary table filled by COPY: PostgreSQL parses no array literals, the upsert is one statement.
  await sql`create temp table if not exists balance_moves (token text, account text, delta numeric, first_height bigint, height bigint) on commit delete rows`.execute(tx.kysely);
  // Emptied at commit, but a rebuild applies many chunks in one transaction: start each from empty.
  await sql`truncate balance_moves`.execute(tx.kysely);
  await copyRows(tx.client, 'balance_moves', ['token', 'account', 'delta', 'first_height', 'height'], moves.map((m) => [m.token, m.account, m.total, m.heights[0]!, m.heights.at(-1)!]));
  const result = await sql<{ token: string; account: string; balance: string }>`
    insert into balances as b (token, account, balance, first_height, updated_height)
    select token, account, delta, first_height, height from balance_moves
    on conflict (token, account) do update set balance = b.balance + excluded.balance, first_height = least(b.first_height, excluded.first_height),
      updated_height = greatest(b.updated_height, excluded.updated_height)
    returning token, account, balance`.execute(tx.kysely);
  const after = new Map(result.rows.map((r) => [`${r.token}\u0000${r.account}`, BigInt(r.balance)]));

  const history: [string, string, number, bigint][] = [];
  for (const m of moves) {
    const end = after.get(`${m.token}\u0000${m.account}`)!;
    let running = end - m.total;
    const start = running;
    for (let i = 0; i < m.heights.length; i++) {
      running += m.deltas[i]!;
      history.push([m.token, m.account, m.heights[i]!, running]);
    }
    if (start <= 0n && end > 0n) onHolders(m.token, 1);
    if (start > 0n && end <= 0n) onHolders(m.token, -1);
  }
  // Batches hold whole blocks, so no (token, account, height) row exists yet.
  await copyRows(tx.client, 'balance_history', ['token', 'account', 'block_height', 'balance'], history);
}
