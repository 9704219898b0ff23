// The socket-only methods, described like the others so that `schema` lists them; the socket runs them itself
// (ws.ts), since they hold state per connection.
import { z } from 'zod';
import { defineMethod } from '../method.ts';
import { tokensSubscribeParams } from '../subscription.ts';
import { tokenTableResult } from './tokens.ts';
import { tradesSubscribeParams } from '../trade-feed.ts';

/** Socket-only methods, described like the others for `schema`. */
export const tokensSubscribe = defineMethod({
  name: 'tokens.subscribe',
  path: undefined,
  summary: 'Socket only: the tokens.get table now, then pushes {sub, height, set, left} as it changes.',
  params: tokensSubscribeParams,
  result: tokenTableResult,
  run: () => Promise.reject(new Error('tokens.subscribe runs on the socket')),
});
export const tradesSubscribe = defineMethod({
  name: 'trades.subscribe',
  path: undefined,
  summary:
    'Socket only: a live trade feed of a token, a pool or a DEX (or every trade) from min_usd up. The reply is the height it starts after; after each indexed batch the trades of its new blocks that match are pushed as {sub, height, trades}, oldest first, each a trades.query row.',
  params: tradesSubscribeParams,
  result: z.object({ height: z.int().describe('trades of the blocks after this one are pushed'), timestamp_millis: z.int() }),
  run: () => Promise.reject(new Error('trades.subscribe runs on the socket')),
});
export const unsubscribe = defineMethod({
  name: 'unsubscribe',
  path: undefined,
  summary: 'Socket only: ends a subscription.',
  params: z.strictObject({ sub: z.int() }),
  result: z.object({ sub: z.int() }),
  run: () => Promise.reject(new Error('unsubscribe runs on the socket')),
});

