// The token fields a table result can carry, their JSON types, and reputation. Pure.
import { KNOWN_MAINNET_TOKENS } from '../../near/known-tokens.ts';
import { NEAR_TOKEN_ID } from '../../near/token-id.ts';

export type FieldKind = 'text' | 'integer' | 'usd' | 'amount' | 'reputation';

/** Every field: its kind (what JSON it is) and what it means. Decimal kinds are strings in JSON. */
export const TOKEN_FIELDS = {
  symbol: { kind: 'text', description: 'ticker from the token metadata (null when unknown)' },
  name: { kind: 'text', description: 'name from the token metadata' },
  decimals: { kind: 'integer', description: 'decimals from the token metadata' },
  icon_hash: { kind: 'text', description: 'hex SHA-256 of the metadata icon (a data URL or link), null without icon' },
  price_usd: { kind: 'usd', description: 'USD per whole token, decimal string' },
  liquidity_usd: { kind: 'usd', description: "USD value of the token's reserves in every pool, decimal string" },
  price_change_24h: { kind: 'usd', description: 'relative price change over 24 h as a fraction (0.05 = +5%), decimal string' },
  price_change_5m: { kind: 'usd', description: 'relative price change over 5 min as a fraction, decimal string' },
  price_change_1h: { kind: 'usd', description: 'relative price change over 1 h as a fraction, decimal string' },
  price_change_6h: { kind: 'usd', description: 'relative price change over 6 h as a fraction, decimal string' },
  volume_usd_24h: { kind: 'usd', description: 'USD value of the trades of the last 24 h, decimal string' },
  buys_24h: { kind: 'integer', description: 'trades of the last 24 h paying this token out (conversions left out)' },
  sells_24h: { kind: 'integer', description: 'trades of the last 24 h taking this token in (conversions left out)' },
  traders_24h: { kind: 'integer', description: 'distinct traders of those buys and sells' },
  fdv_usd: { kind: 'usd', description: 'fully diluted valuation: total_supply (mints minus burns) at price_usd, decimal string; null when either is unknown' },
  market_cap_usd: { kind: 'usd', description: 'circulating supply at price_usd; always null: no source of circulating supply is indexed' },
  reputation: { kind: 'reputation', description: 'Spam < Unknown < NotFake < Reputable' },
  total_supply: { kind: 'amount', description: 'supply in the smallest unit, integer decimal string; null when the creation is not indexed' },
  holders: { kind: 'integer', description: 'accounts with a positive balance' },
  created_height: { kind: 'integer', description: 'first block the token was seen at' },
  price_height: { kind: 'integer', description: 'block of the last price change' },
} as const satisfies Record<string, { kind: FieldKind; description: string }>;

export type TokenField = keyof typeof TOKEN_FIELDS;
export const TOKEN_FIELD_NAMES = Object.keys(TOKEN_FIELDS) as [TokenField, ...TokenField[]];
/** Fields `where.min`/`where.max` and `min_change` apply to. */
export const NUMERIC_FIELDS = TOKEN_FIELD_NAMES.filter((f) => {
  const kind = TOKEN_FIELDS[f].kind;
  return kind === 'usd' || kind === 'amount' || kind === 'integer';
}) as [TokenField, ...TokenField[]];
export const DECIMAL_FIELDS: ReadonlySet<TokenField> = new Set(TOKEN_FIELD_NAMES.filter((f) => TOKEN_FIELDS[f].kind === 'usd'));
export const DEFAULT_FIELDS: readonly TokenField[] = ['symbol', 'name', 'decimals', 'price_usd', 'liquidity_usd', 'volume_usd_24h', 'price_change_24h'];

/**
 * Reputation, lowest first:
 * - `Reputable`: native NEAR and the bundled list of well-known tokens (`near/known-tokens.ts`);
 * - `Spam`: a token whose symbol is a well-known token's symbol but which is not that token (an impersonator);
 * - `NotFake`: metadata known and at least `NOT_FAKE_MIN_LIQUIDITY_USD` of pool liquidity;
 * - `Unknown`: everything else.
 */
export const REPUTATIONS = ['Spam', 'Unknown', 'NotFake', 'Reputable'] as const;
export type Reputation = (typeof REPUTATIONS)[number];
export const NOT_FAKE_MIN_LIQUIDITY_USD = 1000;

export const REPUTABLE_IDS: readonly string[] = [NEAR_TOKEN_ID, ...KNOWN_MAINNET_TOKENS.map((t) => t.contractId)];
export const KNOWN_SYMBOLS_UPPER: readonly string[] = [...new Set(['NEAR', ...KNOWN_MAINNET_TOKENS.map((t) => t.symbol.toUpperCase())])];
