// The socket-only methods, described like the others so that `schema` lists them; the socket runs them itself
// (ws.ts), since they hold state per connection.
import { z } from 'zod';
import { defineMethod } from '../method.ts';
import { tokensSubscribeParams } from '../subscription.ts';
import { tokenTableResult } from './tokens.ts';

/** Socket-only methods, described like the others for `schema`. */
export const tokensSubscribe = defineMethod({
  name: 'tokens.subscribe',
  path: undefined,
  summary: 'Socket only: the tokens.get table now, then pushes {sub, height, set, left} as it changes.',
  params: tokensSubscribeParams,
  result: tokenTableResult,
  run: () => Promise.reject(new Error('tokens.subscribe runs on the socket')),
});
export const unsubscribe = defineMethod({
  name: 'unsubscribe',
  path: undefined,
  summary: 'Socket only: ends a subscription.',
  params: z.strictObject({ sub: z.int() }),
  result: z.object({ sub: z.int() }),
  run: () => Promise.reject(new Error('unsubscribe runs on the socket')),
});

