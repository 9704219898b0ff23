// GET /route query parsing (service-spec.md A1): every rule of the spec, each violation one plain-text message.
// The texts the aggregator itself uses are kept word for word (near-facts.md "Errors the aggregator returns");
// the others are written in the same style. Pure: a query object in, a RouteQuery or a message out.
import { z } from 'zod';
import type { DexId } from '../../dexes/events.ts';
import { DEX_IDS } from '../../dexes/index.ts';
import { isValidAccountId, parseTokenId, type TokenId } from '../../near/token-id.ts';
import { parseU128 } from '../../near/units.ts';

/** A slippage as an exact fraction (`0.015` is 15/1000): quote amounts never go through a float. */
export interface Fraction {
  numerator: bigint;
  denominator: bigint;
}

export type Slippage = { type: 'Fixed'; slippage: Fraction } | { type: 'Auto'; min: Fraction; max: Fraction };

export type RouteAmount = { mode: 'exact_in'; amountIn: bigint } | { mode: 'exact_out'; amountOut: bigint };

export interface RouteQuery {
  tokenIn: TokenId;
  tokenOut: TokenId;
  amount: RouteAmount;
  maxWaitMs: number;
  slippage: Slippage;
  traderAccountId: string | null;
  referrerId: string | null;
  /** The DEX ids to ask, in registry order. */
  dexes: DexId[];
}

export type ParseResult = { ok: true; query: RouteQuery } | { ok: false; error: string };

export const ERRORS = {
  testnet: 'Routing is not supported on testnet',
  invalidToken: 'Invalid token ID',
  sameTokens: 'Token in and token out must be different',
  oneAmount: 'Exactly one of amount_in and amount_out must be given',
  maxWait: 'Max wait must be less than 60 seconds',
  slippageType: 'slippage_type must be Fixed or Auto',
  slippage: 'Slippage must be between 0.00 and 1.00',
  minSlippage: 'Min slippage must be between 0.00 and 1.00',
  maxSlippage: 'Max slippage must be between 0.00 and 1.00',
  slippageOrder: 'Max slippage must be greater than min slippage',
  emptyDexes: 'Dexes must not be an empty array',
  missing: (name: string) => `Missing parameter: ${name}`,
  unknownParameter: (name: string) => `Unknown parameter: ${echo(name)}`,
  unknownToken: (token: string) => `Unknown token: ${echo(token)}`,
  twice: (name: string) => `Parameter given more than once: ${name}`,
  amount: (name: string) => `${name} must be a positive integer string`,
  maxWaitInteger: 'max_wait_ms must be a non-negative integer',
  account: (name: string, value: string) => `Invalid ${name}: ${echo(value)}`,
  dexId: (id: string) => `Invalid dex id: ${echo(id)}`,
} as const;

/** A client's text quoted in an error line: at most 100 characters, control characters (a newline) and lone
 * surrogates escaped as JSON escapes them, so the body stays one line of well-formed text whatever was sent. */
function echo(text: string): string {
  const shown = text.length > 100 ? `${text.slice(0, 100)}...` : text;
  return JSON.stringify(shown).slice(1, -1);
}

/** At most 60000 ms (spec limits). */
export const MAX_WAIT_MS = 60_000;

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** A decimal text from 0 to 1 as an exact fraction, or null (not a plain decimal, or above 1). */
export function parseUnitFraction(text: string): Fraction | null {
  const match = DECIMAL.exec(text);
  if (match === null || text.length > 40) return null;
  const digits = match[2] ?? '';
  const denominator = 10n ** BigInt(digits.length);
  const numerator = BigInt(match[1]! + digits);
  return numerator <= denominator ? { numerator, denominator } : null;
}

const token = z.string().transform((text, ctx) => {
  const parsed = parseTokenId(text);
  if (parsed === null) ctx.addIssue({ code: 'custom', message: ERRORS.invalidToken });
  return parsed ?? { kind: 'near' as const };
});

const required = (name: string) => z.string({ error: ERRORS.missing(name) });

const positiveAmount = (name: string) =>
  z.string().transform((text, ctx) => {
    const value = parseU128(text);
    if (value === null || value === 0n) ctx.addIssue({ code: 'custom', message: ERRORS.amount(name) });
    return value ?? 0n;
  });

const fraction = (message: string) =>
  z.string().transform((text, ctx) => {
    const value = parseUnitFraction(text);
    if (value === null) ctx.addIssue({ code: 'custom', message });
    return value ?? { numerator: 0n, denominator: 1n };
  });

const account = (name: string) =>
  z.string().refine(isValidAccountId, { error: (issue) => ERRORS.account(name, String(issue.input)) });

/** The query's fields, in the order their errors are reported; `dexes` names ids of the registry's. */
function querySchemaOf(dexIds: readonly string[]) {
  const known: ReadonlySet<string> = new Set(dexIds);
  return z
    .object({
      token_in: required('token_in').pipe(token),
      token_out: required('token_out').pipe(token),
      amount_in: positiveAmount('amount_in').optional(),
      amount_out: positiveAmount('amount_out').optional(),
      max_wait_ms: required('max_wait_ms')
        .regex(/^\d{1,15}$/, { error: ERRORS.maxWaitInteger })
        .transform(Number)
        .pipe(z.number().max(MAX_WAIT_MS, { error: ERRORS.maxWait })),
      slippage_type: required('slippage_type').pipe(z.enum(['Fixed', 'Auto'], { error: ERRORS.slippageType })),
      slippage: fraction(ERRORS.slippage).optional(),
      min_slippage: fraction(ERRORS.minSlippage).optional(),
      max_slippage: fraction(ERRORS.maxSlippage).optional(),
      trader_account_id: account('trader_account_id').optional(),
      referrer_id: account('referrer_id').optional(),
      dexes: z
        .string()
        .transform((text, ctx) => {
          if (text === '') ctx.addIssue({ code: 'custom', message: ERRORS.emptyDexes });
          const ids = text.split(',');
          const unknown = ids.find((id) => !known.has(id));
          if (text !== '' && unknown !== undefined) ctx.addIssue({ code: 'custom', message: ERRORS.dexId(unknown) });
          return ids as DexId[];
        })
        .optional(),
      // Deprecated and ignored (spec).
      signing_public_key: z.string().optional(),
    })
    .superRefine((q, ctx) => {
      const fail = (message: string) => ctx.addIssue({ code: 'custom', message });
      if (sameToken(q.token_in, q.token_out)) return fail(ERRORS.sameTokens);
      if ((q.amount_in === undefined) === (q.amount_out === undefined)) return fail(ERRORS.oneAmount);
      if (q.slippage_type === 'Fixed' && q.slippage === undefined) return fail(ERRORS.missing('slippage'));
      if (q.slippage_type === 'Auto') {
        if (q.min_slippage === undefined) return fail(ERRORS.missing('min_slippage'));
        if (q.max_slippage === undefined) return fail(ERRORS.missing('max_slippage'));
        if (compare(q.min_slippage, q.max_slippage) > 0) return fail(ERRORS.slippageOrder);
      }
    });
}

/** One schema per registry's id list. */
const schemas = new WeakMap<readonly string[], ReturnType<typeof querySchemaOf>>();

/**
 * A query string (with or without its `?`) as GET /route and /route/subscribe both read it: form decoding as the
 * WHATWG URL standard does it (an invalid percent-escape of UTF-8 becomes U+FFFD), a repeated name becomes an
 * array. Own keys only: `constructor=x` or `__proto__=x` is a parameter like any other, never one "given twice".
 */
export function routeQueryParams(query: string): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [key, value] of new URLSearchParams(query.startsWith('?') ? query.slice(1) : query)) {
    const previous = params[key];
    params[key] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return params;
}

/**
 * The query of GET /route (values as routeQueryParams reads them: a repeated parameter is an array) -> a RouteQuery, or
 * the message of the first rule it breaks. `network` testnet refuses every query.
 */
export function parseRouteQuery(raw: Record<string, unknown>, network: 'mainnet' | 'testnet', dexIds: readonly string[] = DEX_IDS): ParseResult {
  if (network === 'testnet') return { ok: false, error: ERRORS.testnet };
  let schema = schemas.get(dexIds);
  if (schema === undefined) schemas.set(dexIds, (schema = querySchemaOf(dexIds)));
  // Strict: a parameter the spec does not list is refused rather than ignored (a misspelt `slipage` would
  // otherwise route with a default the client did not ask for).
  for (const [name, value] of Object.entries(raw).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!Object.hasOwn(schema.shape, name)) return { ok: false, error: ERRORS.unknownParameter(name) };
    if (Array.isArray(value)) return { ok: false, error: ERRORS.twice(name) };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { ok: false, error: parsed.error.issues[0]?.message ?? 'Invalid query' };
  const q = parsed.data;
  const slippage: Slippage =
    q.slippage_type === 'Fixed'
      ? { type: 'Fixed', slippage: q.slippage! }
      : { type: 'Auto', min: q.min_slippage!, max: q.max_slippage! };
  const asked = new Set(q.dexes ?? dexIds);
  return {
    ok: true,
    query: {
      tokenIn: q.token_in,
      tokenOut: q.token_out,
      amount: q.amount_in !== undefined ? { mode: 'exact_in', amountIn: q.amount_in } : { mode: 'exact_out', amountOut: q.amount_out! },
      maxWaitMs: q.max_wait_ms,
      slippage,
      traderAccountId: q.trader_account_id ?? null,
      referrerId: q.referrer_id ?? null,
      dexes: dexIds.filter((id) => asked.has(id)),
    },
  };
}

function sameToken(a: TokenId, b: TokenId): boolean {
  return a.kind === b.kind && (a.kind === 'near' || (b.kind !== 'near' && a.contractId === b.contractId));
}

/** Sign of a − b. */
export function compare(a: Fraction, b: Fraction): number {
  const d = a.numerator * b.denominator - b.numerator * a.denominator;
  return d > 0n ? 1 : d < 0n ? -1 : 0;
}
