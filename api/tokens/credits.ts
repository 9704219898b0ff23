// The credit cost model, one table: a response costs its method's base plus `per_100_rows` for every started
// hundred rows it returns. Published by `schema`; sent as `X-Credits-Used` on every HTTP response and as
// `credits_used` on the socket. Errors cost 1 (the work of parsing and refusing); `schema` is free.

export interface CreditCost {
  base: number;
  per_100_rows: number;
}

export const CREDIT_COSTS: Readonly<Record<string, CreditCost>> = {
  'tokens.get': { base: 1, per_100_rows: 1 },
  'tokens.search': { base: 2, per_100_rows: 1 },
  'tokens.subscribe': { base: 5, per_100_rows: 1 },
  'pools.get': { base: 2, per_100_rows: 1 },
  'trades.subscribe': { base: 5, per_100_rows: 1 },
  'trades.query': { base: 2, per_100_rows: 1 },
  'transfers.query': { base: 2, per_100_rows: 1 },
  'activity.query': { base: 3, per_100_rows: 1 },
  'candles.get': { base: 2, per_100_rows: 1 },
  'prices.at': { base: 1, per_100_rows: 2 },
  'balances.get': { base: 2, per_100_rows: 1 },
  'holders.get': { base: 2, per_100_rows: 1 },
  'positions.get': { base: 3, per_100_rows: 1 },
  schema: { base: 0, per_100_rows: 0 },
  unsubscribe: { base: 0, per_100_rows: 0 },
};

export const ERROR_CREDITS = 1;

export function creditsFor(method: string, rows: number): number {
  const cost = CREDIT_COSTS[method];
  if (!cost) return ERROR_CREDITS;
  return cost.base + cost.per_100_rows * Math.ceil(rows / 100);
}
