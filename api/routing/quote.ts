// A DEX's best route -> the spec's quote object (service-spec.md A, "Quote object"): amounts after slippage, the
// NEAR calls of the DEX's instructions.ts with the helper steps the trader needs, gas and storage costs. Pure: the
// trader's registrations come in as a set.
import { ammARegistrationCalls, ammASwapCalls } from '../../dexes/amm-a/instructions.ts';
import { ammCRegistrationCalls, ammCSwapCalls } from '../../dexes/amm-c/instructions.ts';
import { dclSwapCalls } from '../../dexes/amm-dcl-a/instructions.ts';
import type { DexContracts } from '../../dexes/contracts.ts';
import type { DexId } from '../../dexes/events.ts';
import { launchCalls } from '../../dexes/launch/instructions.ts';
import { intentsDepositCall, intentsMessage } from '../../dexes/quote-a/instructions.ts';
import { liquidUnstakeCalls } from '../../dexes/stake-a/instructions.ts';
import { depositAndStakeCalls } from '../../dexes/stake/instructions.ts';
import { xrheaStakeCalls } from '../../dexes/stake-c/instructions.ts';
import { storageDepositCall, tgas, type FunctionCallStep } from '../../dexes/instructions.ts';
import { nearDepositCall, wrapCalls, wrapConversionOf } from '../../dexes/wrap/instructions.ts';
import type { Fraction, RouteQuery } from './params.ts';
import type { PathQuote } from './paths.ts';
import type { RelayQuote } from './quote-a.ts';

/** One DEX's chosen route, in that DEX's token ids. */
export interface DexRoute {
  dex: DexId;
  mode: 'exact_in' | 'exact_out';
  /** One path, or (AmmA, exact in) several sharing no pool that split the input. */
  paths: PathQuote[];
  /** Totals over the paths. */
  amountIn: bigint;
  amountOut: bigint;
  /** The request starts from native NEAR but the DEX trades wNEAR: wrap first. */
  wrapsInput: boolean;
  /** The request ends in native NEAR but the DEX pays wNEAR: the client unwraps (`needs_unwrap`). */
  unwrapsOutput: boolean;
  /** QuoteA: the relay's quote (its one path is a stand-in hop for the pair). */
  relayQuote?: RelayQuote;
}

export interface FunctionCallJson {
  FunctionCall: { method_name: string; args: string; gas: number; deposit: string };
}

export type InstructionJson =
  | { NearTransaction: { receiver_id: string; actions: FunctionCallJson[] } }
  | { IntentsQuote: { message_to_sign: string; quote_hash: string } };

export type AmountJson = { amount_out: string } | { amount_in: string };

/** The spec's quote object; key order is the spec table's, so the same route always serializes to the same bytes. */
export interface QuoteJson {
  /** RFC 3339 for QuoteA (the relay's expiration), null for the others. */
  deadline: string | null;
  has_slippage: boolean;
  estimated_amount: AmountJson;
  worst_case_amount: AmountJson;
  dex_id: DexId;
  execution_instructions: InstructionJson[];
  token_output: string;
  needs_unwrap: boolean;
  estimated_max_gas_cost: string;
  estimated_gas_usage: string;
  storage_deposits: string;
  max_storage_deposits: string;
}

export interface BuiltQuote {
  json: QuoteJson;
  /** The exact amount the request left open: the output (exact in) or the input (exact out). */
  amount: bigint;
  /** Gas (at the floor price) and storage deposits, yoctoNEAR: what ranking charges the quote. */
  costYocto: bigint;
}

// The aggregator's gas model (near-facts.md "Units, ids, gas").
export const GAS_PRICE_YOCTO = 100_000_000n;
export const GAS_PER_TRANSACTION = 216_119_000_000n;
export const GAS_PER_FUNCTION_CALL = 980_000_000_000n;
export const GAS_PER_ARGS_BYTE = 49_919_649n;
/** A swap's calls together attach at most this (near-facts.md). */
export const MAX_TOTAL_GAS = tgas(900);

const PPM = 1_000_000n;

const IMPACT_SCALE = 10n ** 18n;

/**
 * Price impact of a route, fees included, in millionths: 1 − out / Σ(in_i·Π marginal rates of path i), i.e. how
 * far the output falls short of what the marginal rates promise (the same ratio for exact out: the input paid over
 * the input the rates ask for).
 */
export function priceImpactPpm(route: DexRoute): bigint {
  let ideal = 0n;
  for (const path of route.paths) {
    let numerator = 1n;
    let denominator = 1n;
    for (const hop of path.hops) {
      numerator *= hop.spot.numerator;
      denominator *= hop.spot.denominator;
    }
    ideal += (path.amounts[0]! * numerator * IMPACT_SCALE) / denominator;
  }
  const actual = route.amountOut * IMPACT_SCALE;
  return ideal <= actual ? 0n : ((ideal - actual) * PPM) / ideal;
}

/**
 * The slippage a quote allows. Fixed: as asked. Auto: the route's price impact (fees included) plus its pools'
 * recent volatility (`volatilityPpm`: per path the sum of its pools' largest recent price moves, the route's worst
 * path), kept within [min_slippage, max_slippage]. A trade that moves its pools further, or goes through pools whose
 * price has been jumping, is the one most exposed to other trades landing first; the floor keeps small trades on
 * calm pools executable through ordinary block-to-block moves.
 */
export function slippageFor(query: RouteQuery, route: DexRoute, volatilityPpm = 0n): Fraction {
  if (query.slippage.type === 'Fixed') return query.slippage.slippage;
  const wanted: Fraction = { numerator: priceImpactPpm(route) + volatilityPpm, denominator: PPM };
  const { min, max } = query.slippage;
  if (wanted.numerator * min.denominator < min.numerator * wanted.denominator) return min;
  if (wanted.numerator * max.denominator > max.numerator * wanted.denominator) return max;
  return wanted;
}

export interface QuoteContext {
  contracts: DexContracts;
  /** The trader's indexed NEP-145 registrations (contract ids); null without `trader_account_id`. */
  registrations: ReadonlySet<string> | null;
}

/** Builds the quote of one DEX's route; `volatilityPpm` feeds Auto slippage (slippageFor). */
export function buildQuote(route: DexRoute, query: RouteQuery, ctx: QuoteContext, volatilityPpm = 0n): BuiltQuote {
  const { contracts } = ctx;
  const { amountIn, amountOut } = route;
  // Wrap is 1:1 and a QuoteA quote is guaranteed: neither has slippage.
  const hasSlippage = route.dex !== 'Wrap' && route.dex !== 'QuoteA';
  const slippage = hasSlippage ? slippageFor(query, route, volatilityPpm) : { numerator: 0n, denominator: 1n };
  const worstOf = (out: bigint) => (out * (slippage.denominator - slippage.numerator)) / slippage.denominator;
  // A split guarantees each path's worst case: the sum of those (a unit or so below worstOf(total)).
  const pathWorst = route.paths.map((p) => worstOf(p.amounts[p.amounts.length - 1]!));
  const worstOut = pathWorst.reduce((sum, w) => sum + w, 0n);
  const worstIn = ceilDiv(amountIn * (slippage.denominator + slippage.numerator), slippage.denominator);
  // What the calls send and ask for: exact in sends the input and wants the worst-case output; exact out sends
  // the worst-case input and wants the exact output.
  const sent = route.mode === 'exact_in' ? amountIn : worstIn;
  const wanted = route.mode === 'exact_in' ? worstOut : amountOut;

  const trader = query.traderAccountId;
  const registered = (contract: string) => ctx.registrations === null || ctx.registrations.has(contract);
  const helpers: FunctionCallStep[] = [];
  const path = route.paths[0]!.hops;
  const last = path[path.length - 1]!;
  if (trader !== null) {
    if (route.wrapsInput) {
      // Registered first, so near_deposit mints the whole deposit (an unknown account gets it minus 0.00125).
      if (!registered(contracts.Wrap)) helpers.push(storageDepositCall(contracts.Wrap, trader));
      helpers.push(nearDepositCall(contracts.Wrap, sent));
    }
    helpers.push(...registrationSteps(route, trader, ctx, registered));
  }

  const main = mainCalls(route, query, contracts, { sent, wanted, amountIn, amountOut, pathWorst });
  const steps = capGas([...helpers, ...main]);
  const storage = helpers.filter((s) => s.methodName === 'storage_deposit').reduce((sum, s) => sum + s.deposit, 0n);
  const gas = estimateGas(steps);
  const costYocto = gas * GAS_PRICE_YOCTO + storage;

  const estimated: AmountJson = route.mode === 'exact_in' ? { amount_out: amountOut.toString() } : { amount_in: amountIn.toString() };
  const worst: AmountJson = route.mode === 'exact_in' ? { amount_out: worstOut.toString() } : { amount_in: worstIn.toString() };
  const outputToken = route.unwrapsOutput ? contracts.Wrap : last.tokenOut;
  return {
    amount: route.mode === 'exact_in' ? amountOut : amountIn,
    costYocto,
    json: {
      deadline: route.relayQuote?.expirationTime ?? null,
      has_slippage: hasSlippage,
      estimated_amount: estimated,
      worst_case_amount: worst,
      dex_id: route.dex,
      execution_instructions: [...toTransactions(steps), ...intentsSteps(route, query)],
      token_output: outputTokenId(outputToken),
      needs_unwrap: route.unwrapsOutput,
      estimated_max_gas_cost: (gas * GAS_PRICE_YOCTO).toString(),
      estimated_gas_usage: gas.toString(),
      storage_deposits: storage.toString(),
      max_storage_deposits: storage.toString(),
    },
  };
}

/** `nep141:<contract>` (the spec's form), `near` for native NEAR, an inner balance as its API id. */
function outputTokenId(token: string): string {
  if (token === 'near' || token.startsWith('inner-nep141:')) return token;
  return `nep141:${token}`;
}

/** Storage and registrations the route needs from this trader, per the indexed registrations. */
function registrationSteps(route: DexRoute, trader: string, ctx: QuoteContext, registered: (contract: string) => boolean): FunctionCallStep[] {
  const { contracts } = ctx;
  const steps: FunctionCallStep[] = [];
  const path = route.paths[0]!.hops;
  const first = path[0]!;
  const last = path[path.length - 1]!;
  const outputStorage = (token: string) => {
    if (token !== 'near' && !token.startsWith('inner-nep141:') && !registered(token)) steps.push(storageDepositCall(token, trader));
  };
  switch (route.dex) {
    case 'AmmA':
    case 'AmmDclA':
    case 'Launch':
    case 'QuoteA':
    case 'StakeC':
      // The output arrives by ft_transfer (QuoteA: by the intents' ft_withdraw); intermediate tokens stay inside.
      outputStorage(last.tokenOut);
      break;
    case 'AmmC':
      // The output token first: the engine's registration then sits next to the swap, in one transaction.
      outputStorage(last.tokenOut);
      if (!registered(contracts.AmmC)) {
        const tokens = [first.tokenIn, ...path.map((h) => h.tokenOut)];
        steps.push(...ammCRegistrationCalls(contracts.AmmC, tokens));
      }
      break;
    case 'Wrap': {
      const conversion = wrapConversionOf(first.tokenIn, last.tokenOut, contracts);
      if (conversion?.kind === 'wrap') outputStorage(contracts.Wrap);
      else if (conversion?.kind === 'inner_withdraw') outputStorage(conversion.tokenId);
      else if (conversion?.kind === 'inner_deposit' && !registered(contracts.AmmA)) {
        // A fresh exchange account has no tokens registered: register the one deposited.
        steps.push(...ammARegistrationCalls(contracts.AmmA, trader, [conversion.tokenId]));
      }
      break;
    }
    default:
      // StakeA/B/D mint to the caller's own account in the staking contract (Meta Pool's storage charge is in the
      // quote already).
      break;
  }
  return steps;
}

function mainCalls(
  route: DexRoute,
  query: RouteQuery,
  contracts: DexContracts,
  a: { sent: bigint; wanted: bigint; amountIn: bigint; amountOut: bigint; pathWorst: bigint[] },
): FunctionCallStep[] {
  const path = route.paths[0]!.hops;
  const first = path[0]!;
  const last = path[path.length - 1]!;
  switch (route.dex) {
    case 'AmmA':
      // Exact in only: each path sends its part and wants its own worst case.
      return ammASwapCalls({
        contractId: contracts.AmmA,
        paths: route.paths.map((p, i) => ({
          hops: p.hops.map((h) => ({ poolId: Number(h.poolId), tokenIn: h.tokenIn, tokenOut: h.tokenOut })),
          amountIn: p.amounts[0]!,
          minAmountOut: a.pathWorst[i]!,
        })),
        referrerId: query.referrerId,
        skipUnwrapNear: true,
      });
    case 'AmmC':
      return ammCSwapCalls({
        contractId: contracts.AmmC,
        dexId: contracts.AmmCXykDexId,
        hops: path.map((h) => ({ poolId: Number(h.poolId), tokenIn: h.tokenIn, tokenOut: h.tokenOut })),
        mode: route.mode,
        amount: route.mode === 'exact_in' ? a.amountIn : a.amountOut,
        maxAmountIn: a.sent,
        minAmountOut: a.wanted,
        referrerId: query.referrerId,
      });
    case 'AmmDclA':
      return dclSwapCalls({
        contractId: contracts.AmmDclA,
        tokenIn: first.tokenIn,
        poolIds: path.map((h) => h.poolId),
        outputToken: last.tokenOut,
        mode: route.mode,
        amountIn: a.sent,
        amountOut: a.wanted,
        skipUnwrapNear: true,
      });
    case 'Launch':
      return launchCalls({
        contractId: contracts.Launch,
        tokenIn: first.tokenIn,
        aidolToken: first.poolId,
        amountIn: a.sent,
        minAmountOut: a.wanted,
        amountOut: route.mode === 'exact_out' ? a.amountOut : null,
        referrerId: query.referrerId,
      });
    case 'Wrap': {
      const conversion = wrapConversionOf(first.tokenIn, last.tokenOut, contracts);
      if (conversion === null) throw new Error('Wrap route without a conversion');
      return wrapCalls(conversion, a.amountIn, contracts);
    }
    case 'QuoteA':
      return [intentsDepositCall(first.tokenIn, contracts.QuoteA, a.amountIn)];
    case 'StakeC':
      return xrheaStakeCalls(first.tokenIn, first.poolId, a.sent);
    case 'StakeA':
      // The pool id is the stNEAR contract: selling it is the liquid unstake.
      return first.tokenIn === first.poolId ? liquidUnstakeCalls(first.poolId, a.sent, a.wanted) : depositAndStakeCalls(first.poolId, a.sent);
    case 'StakeB':
    case 'StakeD':
      return depositAndStakeCalls(first.poolId, a.sent);
    default:
      throw new Error(`${route.dex}: no instructions`);
  }
}

/** QuoteA: the message the trader signs and publishes with the quote hash (needs the trader: the signer). */
function intentsSteps(route: DexRoute, query: RouteQuery): InstructionJson[] {
  const quote = route.relayQuote;
  if (route.dex !== 'QuoteA' || quote === undefined || query.traderAccountId === null) return [];
  const hop = route.paths[0]!.hops[0]!;
  const message = intentsMessage({
    signerId: query.traderAccountId,
    deadline: quote.expirationTime,
    assetIn: `nep141:${hop.tokenIn}`,
    assetOut: `nep141:${hop.tokenOut}`,
    amountIn: quote.amountIn,
    amountOut: quote.amountOut,
    tokenOut: hop.tokenOut,
    referrerId: query.referrerId,
  });
  return [{ IntentsQuote: { message_to_sign: message, quote_hash: quote.quoteHash } }];
}

/** Keeps the attached gas of all calls within MAX_TOTAL_GAS by trimming the largest call (the swap). */
export function capGas(steps: FunctionCallStep[]): FunctionCallStep[] {
  const total = steps.reduce((sum, s) => sum + s.gas, 0n);
  if (total <= MAX_TOTAL_GAS) return steps;
  let largest = 0;
  steps.forEach((s, i) => {
    if (s.gas > steps[largest]!.gas) largest = i;
  });
  return steps.map((s, i) => (i === largest ? { ...s, gas: s.gas - (total - MAX_TOTAL_GAS) } : s));
}

/** Adjacent calls to the same receiver become one transaction. */
export function toTransactions(steps: readonly FunctionCallStep[]): { NearTransaction: { receiver_id: string; actions: FunctionCallJson[] } }[] {
  const out: { receiver_id: string; actions: FunctionCallJson[] }[] = [];
  for (const step of steps) {
    const action: FunctionCallJson = {
      FunctionCall: {
        method_name: step.methodName,
        args: Buffer.from(JSON.stringify(step.args)).toString('base64'),
        gas: Number(step.gas),
        deposit: step.deposit.toString(),
      },
    };
    const previous = out[out.length - 1];
    if (previous !== undefined && previous.receiver_id === step.receiverId) previous.actions.push(action);
    else out.push({ receiver_id: step.receiverId, actions: [action] });
  }
  return out.map((tx) => ({ NearTransaction: tx }));
}

/**
 * Gas units of the calls (near-facts.md): per transaction 216 119 000 000, per call 980 000 000 000 plus
 * 49 919 649 per byte of method name and JSON args, plus the gas attached.
 */
export function estimateGas(steps: readonly FunctionCallStep[]): bigint {
  const transactions = BigInt(toTransactions(steps).length);
  let gas = transactions * GAS_PER_TRANSACTION;
  for (const s of steps) {
    const bytes = BigInt(Buffer.byteLength(s.methodName) + Buffer.byteLength(JSON.stringify(s.args)));
    gas += GAS_PER_FUNCTION_CALL + GAS_PER_ARGS_BYTE * bytes + s.gas;
  }
  return gas;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
