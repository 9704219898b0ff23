// What the devnet's contract models share: the chain, the tokens, the accounts, and the record of what the
// simulator did (the truth a round-trip test compares the indexer's tables with).
import type { DexContracts } from '../dexes/contracts.ts';
import type { RpcViewAnswer } from './rpc.ts';
import type { DexId } from '../dexes/events.ts';
import type { Call, Chain, Handler, Receipt } from './chain.ts';
import type { Rng } from './rng.ts';
import type { TokenLedger, Tokens } from './tokens.ts';

/** One pool hop the simulator executed successfully. */
export interface TruthTrade {
  height: number;
  receiptId: string;
  dex: DexId;
  poolId: string | null;
  trader: string;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  amountOut: bigint;
}

/** The chain a model acts on: the devnet's own (chain.ts), or the realnet hosting it (realnet/hosted.ts). A
 * transaction runs to its end before `transact` returns. */
export interface ModelChain {
  /** Height of the block being built. */
  readonly height: number;
  readonly timestampMs: number;
  readonly blockMs: number;
  transact(signerId: string, receiverId: string, calls: Call[], handler: Handler): Receipt;
}

export interface World<C extends ModelChain = ModelChain, T extends TokenLedger = TokenLedger> {
  chain: C;
  tokens: T;
  rng: Rng;
  contracts: DexContracts;
  /** Deploys the tokens, seeds the pools. */
  treasury: string;
  wallets: string[];
  /** Filled only when a test asks for it (a long-running devnet would grow it forever). */
  trades: TruthTrade[] | null;
}

/** Records a hop of receipt `r`; undone if `r` fails. */
export function recordTrade(world: World, r: Receipt, trade: Omit<TruthTrade, 'height' | 'receiptId'>): void {
  const trades = world.trades;
  if (trades === null) return;
  trades.push({ height: world.chain.height, receiptId: r.id, ...trade });
  r.onRevert(() => void trades.pop());
}

/** A contract model: what one DEX id does on the devnet. */
export interface DevnetDex {
  readonly id: DexId;
  /** Once, after the tokens and wallets exist: deploy, create liquid pools. */
  genesis(world: World): void;
  /** One user action on this DEX (a trade most of the time), chosen with `world.rng`. */
  act(world: World, trader: string): void;
  /** Pool reserves as the contract holds them now, by pool id (for round-trip tests). */
  reserves(): Map<string, bigint[]>;
  /** A view call of one of its contracts, answered from its state now as the real contract's view would (the
   * realnet's JSON-RPC, realnet/rpc.ts); undefined for an account that is not its own. */
  view?(world: World, contractId: string, method: string, args: Record<string, unknown>): RpcViewAnswer | undefined;
  /** What a receipt a user sent to one of its contracts runs (a route's transaction, on the realnet hosting it), by
   * method and arguments; undefined for a call the model does not take that way. */
  entry?(world: World, contractId: string, method: string, args: Record<string, unknown>, predecessorId: string, deposit: bigint): Handler | undefined;
}
