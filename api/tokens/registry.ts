// Every token-data method (the socket-only ones have no HTTP path).
import type { Method } from './method.ts';
import { balancesGet, holdersGet } from './methods/accounts.ts';
import { activityQuery, positionsGet } from './methods/activity.ts';
import { transfersQuery, tradesQuery } from './methods/history.ts';
import { candlesGet, pricesAt } from './methods/market.ts';
import { poolsGet } from './methods/pools.ts';
import { schemaMethod } from './methods/schema.ts';
import { tokensSubscribe, tradesSubscribe, unsubscribe } from './methods/socket.ts';
import { tokensGet, tokensSearch } from './methods/tokens.ts';

export const METHODS: readonly Method[] = [
  tokensGet,
  tokensSearch,
  poolsGet,
  tradesQuery,
  transfersQuery,
  activityQuery,
  candlesGet,
  pricesAt,
  balancesGet,
  holdersGet,
  positionsGet,
  schemaMethod(() => METHODS),
  tokensSubscribe,
  tradesSubscribe,
  unsubscribe,
];

export const METHODS_BY_NAME: ReadonlyMap<string, Method> = new Map(METHODS.map((m) => [m.name, m]));
