// The log lines of ref-exchange (`v2.ref-finance.near`), one by one. Every format string a `log!`/`env::log` call of
// ref-exchange/src has held since the crate's first commit (ref-finance/ref-contracts, b6c9226 2021-03-09 to 1800d26
// 2025-11-06, v1.9.17) is listed here: the ones we decode, with their exact shape, and the ones we know and ignore.
// A line that is none of them, or a decoded format whose values do not parse, is unreadable: the decoder keeps it as
// an `undecoded` event. Grades (README): R a real block in the fixtures, T a public indexer's test on a named real
// block, C production code that parses mainnet, S source only.
import { parseEventLog } from '../../near/nep297.ts';
import { parseU128 } from '../../near/units.ts';

/** One `"<amount> <token>"` item of a simple pool's liquidity line. */
export interface TokenAmount {
  amount: bigint;
  token: string;
}

export type AmmALogLine =
  /** `Swapped {} {} for {} {}` (simple, R), `..., total fee {}, admin fee {}` (stable/rated/degen, R on a failed
   * receipt), `Swap_by_output {} {} for {} {}` (simple pools only, T): amount_in token_in for amount_out token_out. */
  | { kind: 'swap'; byOutput: boolean; amountIn: bigint; tokenIn: string; amountOut: bigint; tokenOut: string; totalFee: bigint | null; adminFee: bigint | null }
  /** Simple pools: `Liquidity added {:?}, minted {} shares` (R), `{} shares of liquidity removed: receive back {:?}` (T). */
  | { kind: 'simple_add' | 'simple_remove'; moves: TokenAmount[]; shares: bigint }
  /** Stable, rated, degen pools (S; C: Ref's indexer matches the text): `Mint {new_shares} shares for {lp}, fee is
   * {fee_part} shares` (add_stable_liquidity), `LP {lp} removed {burn_shares} shares by given tokens, and fee is
   * {fee_part} shares` (remove_liquidity_by_tokens): the token amounts are the call's `amounts`. */
  | { kind: 'stable_add' | 'stable_remove_by_tokens'; provider: string; shares: bigint; feeShares: bigint }
  /** `LP {lp} remove {shares} shares to gain tokens {:?}` (remove_liquidity): the amounts per pool token, raw units. */
  | { kind: 'stable_remove'; provider: string; shares: bigint; amounts: bigint[] }
  | { kind: 'ignored' }
  | { kind: 'unreadable'; reason: string };

const TOKEN = '([^\\s,"]+)';
const U = '(\\d+)';
const SWAPPED = new RegExp(`^Swapped ${U} ${TOKEN} for ${U} ${TOKEN}(?:, total fee ${U}, admin fee ${U})?$`);
const SWAP_BY_OUTPUT = new RegExp(`^Swap_by_output ${U} ${TOKEN} for ${U} ${TOKEN}$`);
const LIQUIDITY_ADDED = new RegExp(`^Liquidity added \\[(.*)\\], minted ${U} shares$`);
const LIQUIDITY_REMOVED = new RegExp(`^${U} shares of liquidity removed: receive back \\[(.*)\\]$`);
const MINT = new RegExp(`^Mint ${U} shares for ${TOKEN}, fee is ${U} shares$`);
const LP_REMOVE = new RegExp(`^LP ${TOKEN} remove ${U} shares to gain tokens \\[(\\d+(?:, \\d+)*)\\]$`);
const LP_REMOVED_BY_TOKENS = new RegExp(`^LP ${TOKEN} removed ${U} shares by given tokens, and fee is ${U} shares$`);

/** The formats decoded above, as the source writes them (the longer of two alike first): a line of that shape whose
 * values do not parse is unreadable. */
const DECODED_FORMATS = [
  'Swapped {} {} for {} {}, total fee {}, admin fee {}',
  'Swapped {} {} for {} {}',
  'Swap_by_output {} {} for {} {}',
  'Liquidity added {:?}, minted {} shares',
  '{} shares of liquidity removed: receive back {:?}',
  'Mint {} shares for {}, fee is {} shares',
  'LP {} remove {} shares to gain tokens {:?}',
  'LP {} removed {} shares by given tokens, and fee is {} shares',
];

/**
 * Lines the contract logs that move no pool reserve we read (state comes from storage) or that repeat what another
 * line says: admin-fee and referral shares, LP-share and inner-balance transfers, deposits, rates, admin and owner
 * changes, lost-and-found, HotZap's leftovers, farming seeds. The last version each appeared in is in the README.
 */
const IGNORED_FORMATS = [
  // Fee shares minted to the exchange and the referral (simple_pool.rs, stable/rated/degen mod.rs; the four before
  // "Exchange" until 117b044, 2022-10).
  'Exchange {} got {} shares, Referral {} got {} shares',
  'Exchange {} got {} shares, No referral fee',
  'Exchange {} got {} shares, Referral {} got {} shares, from add_liquidity',
  'Exchange {} got {} shares, No referral fee, from add_liquidity',
  'Exchange {} got {} shares, Referral {} got {} shares, from remove_liquidity_by_tokens',
  'Exchange {} got {} shares, No referral fee, from remove_liquidity_by_tokens',
  'Referral {} got {} shares',
  'Admin {} got {} shares',
  'Referral {} got {} shares from {} {}',
  'Admin {} got {} shares from {} {}',
  // multi_fungible_token.rs: LP shares and inner balances moved between accounts.
  'Transfer shares {} pool: {} from {} to {}',
  'Transfer {}: {} from {} to {}',
  'Memo: {}',
  // account_deposit.rs, storage_impl.rs: deposits and registrations.
  'Account {} is not registered or not enough storage. Depositing to owner.',
  'Account {} has not enough storage. Depositing to owner.',
  'Account {} is not registered. Depositing to owner.',
  'Account {} has not enough storage. Depositing to owner or user lostfound account.',
  'Account {} is not registered. Depositing to owner or user lostfound account.',
  'Depositing to user lostfound account.',
  'Not enough free NEAR for user lostfound. Total: {}, Storage locked: {}. Depositing to owner.',
  'Deposit {} {} failed due to non global whitelisted token',
  'The account is already registered, refunding the deposit',
  'ERR_ACC_REGISTERED',
  // lib.rs: rated-token rates and degen prices (the rates themselves are read from `custom_rate_key`).
  'Caller {} invokes token {} rait async-update.',
  'Caller {} invokes token {} rait async-update but it is not a valid token.',
  'Token {} got new rate {} from cross-contract call.',
  'Token {} got new degen {} from cross-contract call.',
  // owner.rs: admin and owner calls.
  'Contract state changed from {} to {} by {}',
  'Going to retrieve token {} to owner, amount: {}',
  'Insert referral {} with fee_bps {}',
  'Update referral {} with new fee_bps {} where old fee_bps {}',
  'Remove referral {} where fee_bps {}',
  'Modify total_fee pool_id {} from {} to {}',
  'Modify boost_farm_id from {} to {}',
  'Modify burrowland_id from {} to {}',
  'Modify wnear_id from {:?} to {}',
  'New {} typed rated token {} registered by {}',
  'Rated token {} removed.',
  'Rated token {} not exist in rate list.',
  'Update rated token {} extra info: {}',
  'New {:?} typed degen token {} registered by {}',
  'Update degen token {} to {:?} type',
  'Degen token {} removed.',
  'Degen token {} not exist in degen list.',
  'New degen oracle config {} registered by {}',
  'Degen oracle config {} removed.',
  'Degen oracle config {} not exist in degen list.',
  'Update oracle degen config {} registered by {}',
  // token_receiver.rs, shadow_actions.rs.
  'HotZap remain internal account assets: {:?}',
  'pool_id {}, {} remove {} farming seed {}',
];

/** A Rust format string as a whole-line pattern: each `{}` / `{:?}` stands for any text. */
function formatPattern(format: string): RegExp {
  const parts = format.split(/\{(?::\?)?\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[\\s\\S]*')}$`);
}

const IGNORED = IGNORED_FORMATS.map(formatPattern);
const DECODED = DECODED_FORMATS.map((format) => ({ format, pattern: formatPattern(format) }));

/** ref-exchange's own NEP-297 standard (event.rs, since 4bf8df2 2024-10): donations, which move LP shares or inner
 * balances to the owner and no reserve. */
export const EXCHANGE_EVENT_STANDARD = 'exchange.ref';
const DONATION_FIELDS: Readonly<Record<string, string>> = { donation_share: 'pool_id', donation_token: 'token_id' };

export function parseAmmALog(line: string): AmmALogLine {
  const decoded = parseDecoded(line);
  if (decoded !== null) return decoded;
  if (line.startsWith('EVENT_JSON:')) return parseEvent(line);
  if (IGNORED.some((p) => p.test(line))) return { kind: 'ignored' };
  const known = DECODED.find((d) => d.pattern.test(line));
  return { kind: 'unreadable', reason: known !== undefined ? `unreadable "${known.format}" line` : 'unknown log line' };
}

function parseDecoded(line: string): AmmALogLine | null {
  let m = SWAPPED.exec(line) ?? SWAP_BY_OUTPUT.exec(line);
  if (m !== null) {
    const [amountIn, amountOut] = [parseU128(m[1]), parseU128(m[3])];
    const [totalFee, adminFee] = [m[5] === undefined ? null : parseU128(m[5]), m[6] === undefined ? null : parseU128(m[6])];
    if (amountIn === null || amountOut === null || (m[5] !== undefined && (totalFee === null || adminFee === null))) return null;
    return { kind: 'swap', byOutput: line.startsWith('Swap_by_output'), amountIn, tokenIn: m[2]!, amountOut, tokenOut: m[4]!, totalFee, adminFee };
  }
  m = LIQUIDITY_ADDED.exec(line);
  const removed = m === null ? LIQUIDITY_REMOVED.exec(line) : null;
  if (m !== null || removed !== null) {
    const moves = tokenAmounts(m?.[1] ?? removed![2]!);
    const shares = parseU128(m?.[2] ?? removed![1]);
    if (moves === null || shares === null) return null;
    return { kind: m !== null ? 'simple_add' : 'simple_remove', moves, shares };
  }
  m = MINT.exec(line);
  if (m !== null) return stableShares('stable_add', m[2]!, m[1], m[3]);
  m = LP_REMOVED_BY_TOKENS.exec(line);
  if (m !== null) return stableShares('stable_remove_by_tokens', m[1]!, m[2], m[3]);
  m = LP_REMOVE.exec(line);
  if (m !== null) {
    const shares = parseU128(m[2]);
    const amounts = m[3]!.split(', ').map(parseU128);
    if (shares === null || amounts.some((a) => a === null)) return null;
    return { kind: 'stable_remove', provider: m[1]!, shares, amounts: amounts as bigint[] };
  }
  return null;
}

function stableShares(kind: 'stable_add' | 'stable_remove_by_tokens', provider: string, shares?: string, fee?: string): AmmALogLine | null {
  const [s, f] = [parseU128(shares), parseU128(fee)];
  return s === null || f === null ? null : { kind, provider, shares: s, feeShares: f };
}

/** `"123 a.near", "456 b.near"` (Rust's Debug of a Vec<String>) -> amounts and tokens; null when any item is not
 * `"<digits> <token>"`. */
function tokenAmounts(list: string): TokenAmount[] | null {
  const out: TokenAmount[] = [];
  for (const item of list.split(', ')) {
    const m = /^"(\d+) ([^\s"]+)"$/.exec(item);
    const amount = parseU128(m?.[1]);
    if (m === null || amount === null) return null;
    out.push({ amount, token: m[2]! });
  }
  return out;
}

/** An `EVENT_JSON` line: only `exchange.ref` donations are known (ignored); anything else is unreadable. */
function parseEvent(line: string): AmmALogLine {
  const event = parseEventLog(line);
  if (event === null) return { kind: 'unreadable', reason: 'malformed EVENT_JSON' };
  if (event.standard !== EXCHANGE_EVENT_STANDARD) return { kind: 'unreadable', reason: `unknown standard ${event.standard}` };
  const idField = DONATION_FIELDS[event.event];
  if (idField === undefined) return { kind: 'unreadable', reason: `unknown event ${event.event}` };
  const items = Array.isArray(event.data) ? event.data : [];
  const readable =
    items.length === 1 &&
    items.every((d: unknown) => {
      const o = d !== null && typeof d === 'object' ? (d as Record<string, unknown>) : {};
      const id = o[idField];
      return typeof o.account_id === 'string' && parseU128(o.amount) !== null && (idField === 'pool_id' ? Number.isSafeInteger(id) : typeof id === 'string');
    });
  return readable ? { kind: 'ignored' } : { kind: 'unreadable', reason: `unreadable ${event.event} event` };
}
