// The seam: everything one DEX is, as one object its folder exports (`dexes/<id>/index.ts`) and the registry
// (`dexes/index.ts`) lists. The indexer, the api and the cli work from the registry alone, never from a DEX id: a new
// DEX is a new folder and one registry line. Modelled on Jupiter's `Amm` trait (state the DEX declares, a pure quote
// over it, the swap instructions, capability flags such as exact-out support kept out of the router). Pure types.
import type { Block } from '../near/block.ts';
import type { DexContracts } from './contracts.ts';
import type { DexEvent, PoolStateCommon } from './events.ts';
import type { DecodedDexEvent } from './index.ts';
import type { FunctionCallStep } from './instructions.ts';

/** A non-negative rational: a spot price, a slippage. */
export interface Fraction {
  numerator: bigint;
  denominator: bigint;
}

/** A pool as routing reads it: the DEX's own state (amount fields revived to bigint) from the `pools` table. */
export interface RoutingPool {
  dex: string;
  poolId: string;
  state: PoolStateCommon & Record<string, unknown>;
  updatedHeight: number;
}

/**
 * One swap step through one pool, over the DEX's own math: what the pathfinder composes. Token ids are the DEX's own
 * vocabulary: `near` for native NEAR, else the NEP-141 contract id, or `inner-nep141:<contract>`.
 */
export interface Hop {
  dex: string;
  poolId: string;
  tokenIn: string;
  tokenOut: string;
  /** Exact in: the output, or null when the pool refuses (or nothing would come out). */
  out(amountIn: bigint): bigint | null;
  /** Exact out: the least input, or null when refused; absent when the pool has no exact-out mode. */
  in?(amountOut: bigint): bigint | null;
  /** Marginal rate before fees, out per in. */
  spot: Fraction;
  /** The pool's curve where it has a closed form the optimal-flow router solves (api/routing/flow/): constant
   * product over these reserves, `fee` of the input kept by the pool (out = a(1−fee)·Y / (X + a(1−fee))). */
  curve?: ConstantProductCurve;
}

export interface ConstantProductCurve {
  kind: 'constantProduct';
  reserveIn: bigint;
  reserveOut: bigint;
  fee: Fraction;
}

/** What a hop's quote may depend on besides its pool. */
export interface HopContext {
  contracts: DexContracts;
  /** Contracts the trader is registered with (NEP-145), or null without a trader. */
  registrations: ReadonlySet<string> | null;
  /** The latest indexed block's timestamp in ns (AmmA's amp ramps, rate ages). Absent or null: not known. */
  nowNs?: bigint | null;
  /** Each DEX's ledger value (`Dex.ledger`), by DEX id; absent: not read yet. */
  ledgers?: ReadonlyMap<string, unknown>;
}

/** A path of hops and the amounts through it: amounts[0] is the input, amounts[i+1] the output of hop i. */
export interface RoutePath {
  hops: Hop[];
  amounts: bigint[];
}

/** A request-for-quote market's answer (QuoteA's solver relay). */
export interface RfqQuote {
  quoteHash: string;
  amountIn: bigint;
  amountOut: bigint;
  /** RFC 3339, as the relay gave it. */
  expirationTime: string;
}

/** One DEX's chosen route, in that DEX's token ids. */
export interface DexRoute {
  dex: string;
  mode: 'exact_in' | 'exact_out';
  /** One path, or (a DEX that splits, exact in) several from the input to the output that split the input: sharing
   * no pool, or (a DEX with `flow`) a plan's paths in execution order, where a later path meets a shared pool as the
   * earlier ones left it. */
  paths: RoutePath[];
  /** Totals over the paths. */
  amountIn: bigint;
  amountOut: bigint;
  /** The request starts from native NEAR but the DEX trades wNEAR: wrap first. */
  wrapsInput: boolean;
  /** The request ends in native NEAR but the DEX pays wNEAR: the client unwraps (`needs_unwrap`). */
  unwrapsOutput: boolean;
  /** A request-for-quote DEX's quote (its one path is a stand-in hop for the pair). */
  rfqQuote?: RfqQuote;
}

/** What the instructions of a route need besides the route. */
export interface InstructionsContext {
  contracts: DexContracts;
  /** The trader (`trader_account_id`), or null. */
  trader: string | null;
  referrerId: string | null;
  /** Whether the trader is registered with a contract (true for every contract without a trader). */
  registered(contractId: string): boolean;
}

/** The amounts a route's calls carry once slippage is applied. */
export interface CallAmounts {
  /** What the calls send: the input (exact in) or the worst-case input (exact out). */
  sent: bigint;
  /** What they ask for: the worst-case output (exact in) or the exact output (exact out). */
  wanted: bigint;
  amountIn: bigint;
  amountOut: bigint;
  /** Each path's worst-case output (a split guarantees each path's own). */
  pathWorst: bigint[];
}

/** A step the client signs off chain and hands to the DEX (QuoteA's NEP-413 intents message). */
export interface SignedMessageStep {
  IntentsQuote: { message_to_sign: string; quote_hash: string };
}

/** What bounds one call of a route: the network's prepaid gas per transaction, and whether a referrer is named (it
 * lengthens what the contract logs). */
export interface CallLimits {
  maxTransactionGas: bigint;
  referral: boolean;
}

/** How a DEX routes: its capabilities, its hops, and the calls that execute a route. */
export interface DexRouting {
  /** Pools per path in each mode; 0: the mode is not offered. */
  maxHops: { exactIn: number; exactOut: number };
  /** Exact in: split the amount across pool-disjoint paths when that gives more. */
  splits?: boolean;
  /** Exact in: its calls execute chained paths from the input (DexRoute.paths) inside one call, as many as `fits`
   * the call's limits (gas within the network's prepaid gas per transaction, the receipt's logs), so the
   * optimal-flow router (api/routing/flow/) may route it over the hops with a `curve` when that gives more. */
  flow?: {
    /** The most actions one call carries (a bound `fits` also enforces, checked before amounts are worked out). */
    maxActions(limits: CallLimits): number;
    fits(paths: readonly RoutePath[], limits: CallLimits): boolean;
    /** The gas each further action of its call is metered to burn: what a plan weighs a path's actions against. */
    actionBurn: bigint;
  };
  /** Where the request says native NEAR, the DEX trades wNEAR (wrapped before, unwrapped by the client after). */
  tradesWnear?: boolean;
  /** Whether its quotes carry slippage (false: 1:1 conversions, guaranteed request-for-quote fills). */
  hasSlippage: boolean;
  /** Its hops read the trader's registrations (not cached across requests). */
  hopsNeedTrader?: boolean;
  /** Request for quote: asked of the solver relay, not routed over pools; ranked after every pool DEX. */
  rfq?: boolean;
  /** The hops of one of its pools (both directions where it trades both ways). */
  hops?(pool: RoutingPool, ctx: HopContext): Hop[];
  /** A pool-less conversion between two token ids (Wrap), or null. */
  directHop?(tokenIn: string, tokenOut: string, contracts: DexContracts): Hop | null;
  /** Helper steps the trader needs before the calls: registrations, storage deposits (wrapping is the api's). */
  helperSteps(route: DexRoute, ctx: InstructionsContext & { trader: string }): FunctionCallStep[];
  /** The NEAR calls that execute the route. */
  calls(route: DexRoute, amounts: CallAmounts, ctx: InstructionsContext): FunctionCallStep[];
  /** Steps signed off chain, after the calls (needs the trader). */
  signedMessages?(route: DexRoute, ctx: InstructionsContext & { trader: string }): SignedMessageStep[];
}

/**
 * State of a DEX kept in the event log rather than in `pools`, which its hops need (AmmA's rated-token rates, Meta
 * Pool's liquid-unstake pool): the api reads it after every block and hands it to the hops as `ctx.ledgers`.
 * `latest`: the newest event of `eventKind` is the value. `figureAndDeltas`: the newest event carrying `figure` in its
 * payload, plus the sum of the `delta` payload fields of the events of later blocks. A partial index on the kind
 * (migrations) serves both reads.
 */
export type DexLedger = (
  | { eventKind: string; read: 'latest'; parse(payload: unknown): unknown }
  | { eventKind: string; read: 'figureAndDeltas'; figure: string; delta: string; parse(total: bigint): unknown }
) & {
  /** The pools whose quotes a new value moves (default: every pool of the DEX). */
  affects?(state: PoolStateCommon & Record<string, unknown>): boolean;
};

/**
 * Pool state that depends on the history before a block (AmmDclA's book: its storage layout is not public, so its
 * pools are re-simulated from its events). `inputs` runs where the block is decoded (a worker: structured-clonable
 * output); `book` starts from the stored states; `apply` folds a block's inputs in height order and returns the
 * `pool_state` events of the pools it changed, numbered by `nextIndex` after the receipt's other events.
 */
export interface DexFold<Book = unknown, Input = unknown> {
  inputs(block: Block, contracts: DexContracts): Input[];
  book(states: readonly unknown[]): Book;
  apply(book: Book, inputs: readonly Input[], contracts: DexContracts, nextIndex: Map<string, number>): DexEvent[];
}

/** Pool states a bootstrap gives: those it can give exactly, and how many it left out, by the DEX's pool kind. */
export interface BootstrapPools<S extends PoolStateCommon & { poolId: number | string } = PoolStateCommon & { poolId: number | string }> {
  /** What the data was read as (a file's shape), for the operator. */
  shape?: string;
  /** The block height the data records (a saved RPC answer), else null. */
  height: number | null;
  /** Every pool in the data, importable or not. */
  total: number;
  pools: S[];
  /** Pools left out, counted by kind (`DexBootstrap.skipReasons` says why). */
  skipped: Record<string, number>;
}

/** A view call of the DEX's contract: the method and its JSON args. */
export interface ViewCall {
  method: string;
  args: Record<string, unknown>;
}

/** The data is not a snapshot the DEX understands, or a pool in it is malformed. */
export class PoolsImportError extends Error {
  override name = 'PoolsImportError';
}

/** A NEAR node's answers at one block (the indexer's JSON-RPC client, or the devnet's). */
/** What `ChainAt.view` throws when the contract has no such method (an older release, say): an answer, not a failure
 * to ask, so a bootstrap can ask another way. */
export class MethodMissing extends Error {
  override name = 'MethodMissing';
}

export interface ChainAt {
  height: number;
  /** The block's time, ms. */
  timestampMs: number;
  contracts: DexContracts;
  /** A view's JSON result (`query` `call_function` at the block); throws MethodMissing when the contract has no
   * method of that name. */
  view(contractId: string, method: string, args?: Record<string, unknown>): Promise<unknown>;
  /** A contract's storage under a key prefix (`query` `view_state` at the block), keys and values in base64, in key
   * order; null when the node will not serve the contract's state (larger than its limit, as on mainnet's Ref). */
  storage(contractId: string, prefixBase64: string): Promise<Array<{ keyBase64: string; valueBase64: string }> | null>;
}

/** An event of a bootstrap, without its base fields (the indexer places it at the block, receipt `bootstrap:<dex>`). */
export type BootstrapEvent = DecodedDexEvent extends infer E ? (E extends DecodedDexEvent ? Omit<E, 'blockHeight' | 'timestampMs' | 'receiptId' | 'txHash' | 'index'> : never) : never;

/** A DEX's state at one block, as its bootstrap read it. */
export interface BootstrapState {
  /** `pool_state` events (source 'rpc' or 'storage') and the DEX's ledger events (AmmA's `rates`, StakeA's `nslp`);
   * a pool the read could not give exactly carries `approximate: '<why>'` in its state until its next write. */
  events: BootstrapEvent[];
  /** Pools it left out, counted by kind (`DexBootstrap.skipReasons` says why). */
  skipped?: Record<string, number>;
}

/**
 * How a DEX's state is had at one block, for a start in mid-chain (`dexlake bootstrap`): through its contract's views
 * (and its raw storage where the node serves it), and, for some, from a saved snapshot file (`dexlake pools
 * import`). Throws PoolsImportError on answers it does not understand. Pure but for the calls it is given.
 */
export interface DexBootstrap {
  read(at: ChainAt): Promise<BootstrapState>;
  snapshot?(json: unknown): BootstrapPools;
  /** Why each pool kind it leaves out is left out. */
  skipReasons?: Record<string, string>;
}

export interface Dex {
  /** The DEX id the API speaks (`GET /route?dexes=`, `dex_id`). */
  id: string;
  /** The account of its contract on the network these contracts are of (whose views bootstrap it). */
  contract(contracts: DexContracts): string;
  /** What its trades are in an account's activity. */
  activity: 'trade' | 'wrap' | 'stake';
  /** Block -> this DEX's events, numbered per receipt from 0; what it cannot read is an `undecoded` event. Pure. */
  decode(block: Block, contracts: DexContracts): DecodedDexEvent[];
  /** What its pools' `totalFee` is a fraction of: 10,000 (basis points) unless given. */
  feeDenominator?: number;
  /** A `pools.state` JSON value -> its state (default: amount fields revived by name). Throws when unreadable. */
  reviveState?(json: unknown): PoolStateCommon & Record<string, unknown>;
  fold?: DexFold;
  ledger?: DexLedger;
  /** Absent: indexed only (its trades and pools show in the token data), never routed. */
  routing?: DexRouting;
  /** Absent: its state comes from the blocks alone (`dexlake pools import` does not offer it). */
  bootstrap?: DexBootstrap;
}

/** An amount a hop can give: positive, else null (the pool refuses, or nothing would come out). */
export const positive = (v: bigint | null | undefined): bigint | null => (v === null || v === undefined || v <= 0n ? null : v);

/** A route's first and last hops (every route has at least one). */
export function endsOf(route: DexRoute): { first: Hop; last: Hop; path: Hop[] } {
  const path = route.paths[0]!.hops;
  return { first: path[0]!, last: path[path.length - 1]!, path };
}
