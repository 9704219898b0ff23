// Positions from an account's trades, by the average-cost method. Pure bigint arithmetic: amounts in smallest
// units, USD in units of 10^-18.
//
// A buy adds its amount and its USD value (the cost) to the token's tracked position. A sell of a tracked amount
// realizes its USD value minus the average cost of that amount; the part of a sell beyond the tracked amount
// (tokens that came by transfer, whose cost no trade tells) realizes nothing and leaves no position. Trades
// without a USD value are skipped for cost and PnL. Unrealized PnL: the tracked amount at the current price
// minus its remaining cost. `inner-nep141:X` is X held inside the exchange: it counts as X, so a deposit into or a
// withdrawal from the exchange (X for inner X) moves nothing (docs/methodology.md).
import { parseTokenId } from '../../near/token-id.ts';

/** The token an id holds: `inner-nep141:X` is X inside the exchange; every other id is itself. */
function heldToken(id: string): string {
  const parsed = parseTokenId(id);
  return parsed?.kind === 'inner-nep141' ? parsed.contractId : id;
}

export interface PositionTrade {
  token_in: string;
  token_out: string;
  amount_in: bigint;
  amount_out: bigint;
  /** USD value in 10^-18 units, or null when the trade had no price. */
  value_usd: bigint | null;
}

export interface Position {
  /** Amount bought through trades and still held by this account's trade history (smallest units). */
  tracked: bigint;
  /** Remaining cost of `tracked`, 10^-18 USD. */
  cost: bigint;
  /** Realized PnL, 10^-18 USD. */
  realized: bigint;
  bought: bigint;
  sold: bigint;
}

const empty = (): Position => ({ tracked: 0n, cost: 0n, realized: 0n, bought: 0n, sold: 0n });

/** Positions per token after the trades, oldest first. */
export function positionsFromTrades(trades: readonly PositionTrade[]): Map<string, Position> {
  const positions = new Map<string, Position>();
  const of = (token: string) => {
    let p = positions.get(token);
    if (!p) positions.set(token, (p = empty()));
    return p;
  };
  for (const t of trades) {
    const trade = { ...t, token_in: heldToken(t.token_in), token_out: heldToken(t.token_out) };
    if (trade.token_in === trade.token_out) continue;
    const sold = of(trade.token_in);
    sold.sold += trade.amount_in;
    if (trade.value_usd !== null && sold.tracked > 0n && trade.amount_in > 0n) {
      const amount = trade.amount_in < sold.tracked ? trade.amount_in : sold.tracked;
      const costOut = (sold.cost * amount) / sold.tracked;
      const proceeds = (trade.value_usd * amount) / trade.amount_in;
      sold.realized += proceeds - costOut;
      sold.cost -= costOut;
      sold.tracked -= amount;
    }
    const bought = of(trade.token_out);
    bought.bought += trade.amount_out;
    if (trade.value_usd !== null) {
      bought.tracked += trade.amount_out;
      bought.cost += trade.value_usd;
    }
  }
  return positions;
}

/** Average cost per whole token (10^-18 USD), or null with nothing tracked. */
export function averageCost(position: Position, decimals: number): bigint | null {
  if (position.tracked <= 0n) return null;
  return (position.cost * 10n ** BigInt(decimals)) / position.tracked;
}

/** Unrealized PnL of the tracked amount at `price` (10^-18 USD per whole token). */
export function unrealized(position: Position, decimals: number, price: bigint): bigint {
  return (position.tracked * price) / 10n ** BigInt(decimals) - position.cost;
}
