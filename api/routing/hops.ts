// One swap step of one pool: each DEX's own `routing.hops` (dexes/<id>/index.ts) over its pure math, found through
// the registry. What the pathfinder composes. Pure.
import type { Dex, Hop, HopContext, RoutingPool } from '../../dexes/dex.ts';
import { DEXES, dexOf } from '../../dexes/index.ts';

export type { Hop, HopContext } from '../../dexes/dex.ts';

/** The hops of one pool (both directions where its DEX trades both ways); none for a DEX that does not route. */
export function hopsOfPool(pool: RoutingPool, ctx: HopContext, dexes: readonly Dex[] = DEXES): Hop[] {
  return dexOf(pool.dex, dexes)?.routing?.hops?.(pool, ctx) ?? [];
}
