// A DEX's best route -> the spec's quote object (service-spec.md A, "Quote object"): amounts after slippage, the
// NEAR calls of the DEX's instructions.ts with the helper steps the trader needs, gas and storage costs. Pure: the
// trader's registrations come in as a set.
import type { DexContracts } from '../../dexes/contracts.ts';
import type { Dex, DexRoute, InstructionsContext, SignedMessageStep } from '../../dexes/dex.ts';
import type { DexId } from '../../dexes/events.ts';
import { DEXES, dexOf } from '../../dexes/index.ts';
import { storageDepositCall, tgas, type FunctionCallStep } from '../../dexes/instructions.ts';
import { nearDepositCall } from '../../dexes/wrap/instructions.ts';
import type { Fraction, RouteQuery } from './params.ts';

export type { DexRoute } from '../../dexes/dex.ts';

export interface FunctionCallJson {
  FunctionCall: { method_name: string; args: string; gas: number; deposit: string };
}

export type InstructionJson = { NearTransaction: { receiver_id: string; actions: FunctionCallJson[] } } | SignedMessageStep;

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
  /** Gas burnt (at the floor price) and storage deposits, yoctoNEAR: what ranking charges the quote. */
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
 * Price impact of a route, fees included, in millionths: 1 − out / ideal, where ideal is what the route's inputs
 * give at the marginal rates (Σ in_i·Π marginal rates of path i), i.e. how far the output falls short of what the
 * marginal rates promise (the same ratio for exact out: the input paid over the input the rates ask for). A plan's
 * chain that starts from an intermediate token gets the ideal share of that token's ideal inflow (its actual share
 * of the actual inflow).
 */
export function priceImpactPpm(route: DexRoute): bigint {
  const output = route.paths.at(-1)!.hops.at(-1)!.tokenOut;
  const input = route.paths[0]!.hops[0]!.tokenIn;
  // Per token reached: what arrived, and what would have at the marginal rates (scaled by IMPACT_SCALE).
  const actual = new Map<string, bigint>();
  const ideal = new Map<string, bigint>();
  for (const path of route.paths) {
    let numerator = 1n;
    let denominator = 1n;
    for (const hop of path.hops) {
      numerator *= hop.spot.numerator;
      denominator *= hop.spot.denominator;
    }
    const from = path.hops[0]!.tokenIn;
    const amount = path.amounts[0]!;
    const idealIn = from === input ? amount * IMPACT_SCALE : (amount * ideal.get(from)!) / actual.get(from)!;
    const to = path.hops.at(-1)!.tokenOut;
    ideal.set(to, (ideal.get(to) ?? 0n) + (idealIn * numerator) / denominator);
    actual.set(to, (actual.get(to) ?? 0n) + path.amounts.at(-1)!);
  }
  const idealOut = ideal.get(output) ?? 0n;
  const actualOut = route.amountOut * IMPACT_SCALE;
  return idealOut <= actualOut ? 0n : ((idealOut - actualOut) * PPM) / idealOut;
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
  /** The DEX registry (default: dexes/index.ts's). */
  dexes?: readonly Dex[];
}

/**
 * Each path's `min_amount_out` (the contract checks each path's last action on its own): the route's allowed loss,
 * `out − worst(out)` over all paths, shared among the paths in proportion to output × pools, since a market that
 * moves every pool a little costs a path of three pools about three times what it costs a path of one. A move that
 * takes the whole route below its worst case then takes each path below its own minimum at about the same size, so
 * the contract refuses a route within its slippage as rarely as per-path minimums allow (bench:route's robustness
 * lines; test/routing/ref-contract.test.ts). Their sum is at least worst(out).
 */
export function pathMinimums(paths: readonly { out: bigint; hops: number }[], worst: (out: bigint) => bigint): bigint[] {
  const total = paths.reduce((sum, p) => sum + p.out, 0n);
  const loss = total - worst(total);
  const weights = paths.map((p) => p.out * BigInt(p.hops));
  const weight = weights.reduce((sum, w) => sum + w, 0n);
  return paths.map((p, i) => {
    const share = weight === 0n ? 0n : (loss * weights[i]!) / weight;
    return share >= p.out ? 0n : p.out - share;
  });
}

/** Builds the quote of one DEX's route; `volatilityPpm` feeds Auto slippage (slippageFor). */
export function buildQuote(route: DexRoute, query: RouteQuery, ctx: QuoteContext, volatilityPpm = 0n): BuiltQuote {
  const { contracts } = ctx;
  const { amountIn, amountOut } = route;
  const routing = dexOf(route.dex, ctx.dexes ?? DEXES)?.routing;
  if (routing === undefined) throw new Error(`${route.dex}: not a routing DEX`);
  const hasSlippage = routing.hasSlippage;
  const slippage = hasSlippage ? slippageFor(query, route, volatilityPpm) : { numerator: 0n, denominator: 1n };
  const worstOf = (out: bigint) => (out * (slippage.denominator - slippage.numerator)) / slippage.denominator;
  const pathWorst = pathMinimums(route.paths.map((p) => ({ out: p.amounts[p.amounts.length - 1]!, hops: p.hops.length })), worstOf);
  const worstOut = pathWorst.reduce((sum, w) => sum + w, 0n);
  const worstIn = ceilDiv(amountIn * (slippage.denominator + slippage.numerator), slippage.denominator);
  // What the calls send and ask for: exact in sends the input and wants the worst-case output; exact out sends
  // the worst-case input and wants the exact output.
  const sent = route.mode === 'exact_in' ? amountIn : worstIn;
  const wanted = route.mode === 'exact_in' ? worstOut : amountOut;

  const trader = query.traderAccountId;
  const registered = (contract: string) => ctx.registrations === null || ctx.registrations.has(contract);
  const instructions: InstructionsContext = { contracts, trader, referrerId: query.referrerId, registered };
  const helpers: FunctionCallStep[] = [];
  // Wrapping asks nothing of the trader, so a quote from native NEAR carries its near_deposit with or without one.
  if (route.wrapsInput) {
    // Registered first, so near_deposit mints the whole deposit (an unknown account gets it minus 0.00125). Without a
    // trader the registrations are not known, and, as for every helper step, none is added.
    if (trader !== null && !registered(contracts.Wrap)) helpers.push(storageDepositCall(contracts.Wrap, trader));
    helpers.push(nearDepositCall(contracts.Wrap, sent));
  }
  if (trader !== null) helpers.push(...routing.helperSteps(route, { ...instructions, trader }));

  const main = routing.calls(route, { sent, wanted, amountIn, amountOut, pathWorst }, instructions);
  const signed = trader === null ? [] : (routing.signedMessages?.(route, { ...instructions, trader }) ?? []);
  const steps = capGas([...helpers, ...main]);
  const storage = helpers.filter((s) => s.methodName === 'storage_deposit').reduce((sum, s) => sum + s.deposit, 0n);
  const maxGas = estimateGas(steps);
  const burn = estimateGas(steps, 'burn');
  // Ranking charges what the calls burn: unused prepaid gas is refunded.
  const costYocto = burn * GAS_PRICE_YOCTO + storage;

  const estimated: AmountJson = route.mode === 'exact_in' ? { amount_out: amountOut.toString() } : { amount_in: amountIn.toString() };
  const worst: AmountJson = route.mode === 'exact_in' ? { amount_out: worstOut.toString() } : { amount_in: worstIn.toString() };
  const outputToken = route.unwrapsOutput ? contracts.Wrap : route.paths[0]!.hops.at(-1)!.tokenOut;
  return {
    amount: route.mode === 'exact_in' ? amountOut : amountIn,
    costYocto,
    json: {
      deadline: route.rfqQuote?.expirationTime ?? null,
      has_slippage: hasSlippage,
      estimated_amount: estimated,
      worst_case_amount: worst,
      dex_id: route.dex,
      execution_instructions: [...toTransactions(steps), ...signed],
      token_output: outputTokenId(outputToken),
      needs_unwrap: route.unwrapsOutput,
      estimated_max_gas_cost: (maxGas * GAS_PRICE_YOCTO).toString(),
      estimated_gas_usage: burn.toString(),
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
 * 49 919 649 per byte of method name and JSON args, plus the gas attached (`max`: what they may burn at most), or
 * plus what the calls are expected to burn (`burn`: each DEX's step says, dexes/burn.ts).
 */
export function estimateGas(steps: readonly FunctionCallStep[], what: 'max' | 'burn' = 'max'): bigint {
  const transactions = BigInt(toTransactions(steps).length);
  let gas = transactions * GAS_PER_TRANSACTION;
  for (const s of steps) {
    const bytes = BigInt(Buffer.byteLength(s.methodName) + Buffer.byteLength(JSON.stringify(s.args)));
    gas += GAS_PER_FUNCTION_CALL + GAS_PER_ARGS_BYTE * bytes + (what === 'burn' ? s.burn : s.gas);
  }
  return gas;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
