// Issue 31 point 4, the bootstrap on real views: the realnet's JSON-RPC (devnet/realnet/rpc.ts over devnet/rpc.ts, a
// real local server) answers `call_function` by running Ref's own view methods (`get_number_of_pools`, `get_pools`,
// `get_stable_pool`, …) and `view_state` from the exchange's own storage. For every vendored release, AmmA
// bootstrapped at H from it and indexed on to N equals the realnet indexed from its genesis: every pools row and
// every route.
import { beforeAll, describe, expect, it } from 'vitest';
import { REF_RELEASES } from '../../devnet/realnet/wasm.ts';
import { bootstrapEquality, realnetChain, type BootstrapEquality } from '../harness/bootstrap-equality.ts';

const SEED = 'realnet-bootstrap';
/** After the setup (pools made at blocks 5-6) and some seventy blocks of trading; N sixty more. */
const H = 80;
const N = 140;

describe.each(REF_RELEASES)('AmmA bootstrapped from the realnet (Ref %s)', (release) => {
  const runs = new Map<string, BootstrapEquality>();
  beforeAll(async () => {
    const chain = realnetChain(SEED, release);
    // The exchange's storage (5 kB) is under nearcore's 50 kB view_state limit, so the bootstrap reads it; with the
    // limit at 0 it is refused, as mainnet's is, and the bootstrap asks the contract's views.
    runs.set('storage', await bootstrapEquality('AmmA', { chain, h: H, n: N }));
    runs.set('views', await bootstrapEquality('AmmA', { chain, h: H, n: N, viewStateLimitBytes: 0 }));
  }, 240_000);

  it.each(['views', 'storage'])('from %s: every pools row and every route equal the realnet indexed from genesis', (how) => {
    const run = runs.get(how)!;
    expect(run.indexed.length).toBeGreaterThanOrEqual(5);
    expect(run.bootstrapped).toEqual(run.indexed);
    for (const r of run.routes) expect(r.bootstrapped, r.query).toBe(r.indexed);
    expect(run.routes.filter((r) => r.indexed.startsWith('200 ')).length).toBeGreaterThan(0);
  });
});

// The models hosted on the realnet (hosted.ts) answer the bootstrap's views from their state at H and their storage
// is the chain's: every contract without public code bootstraps from the realnet's JSON-RPC as AmmA does.
// Launch is asked amounts above its minimum fee (1 and 100,000 wNEAR).
const HOSTED = ['AmmDclA', 'AmmC', 'Launch', 'StakeA', 'StakeB', 'StakeC', 'StakeD'];
const LAUNCH_AMOUNTS = ['1000000000000000000000000', '100000000000000000000000000000'];

describe.each(HOSTED)('%s (hosted model) bootstrapped from the realnet (Ref 1.9.17)', (dex) => {
  let run: BootstrapEquality;
  beforeAll(async () => {
    run = await bootstrapEquality(dex, { chain: realnetChain(SEED, '1.9.17'), h: H, n: N, ...(dex === 'Launch' ? { amounts: LAUNCH_AMOUNTS } : {}) });
  }, 240_000);

  // AmmDclA's views give an endpoint's net delta only: the bootstrap keeps its sum as a floor (`sumAtLeast`), which
  // here is the sum itself (each endpoint is one position's).
  const withoutFloors = (rows: unknown[]) => rows.map((r) => ({ ...(r as object), state: (r as { state: string }).state.replaceAll(',"sumAtLeast":true', '') }));

  it('every pools row and every route equal the realnet indexed from genesis', () => {
    expect(run.indexed.length).toBeGreaterThanOrEqual(dex.startsWith('Stake') ? 1 : 3);
    expect(withoutFloors(run.bootstrapped)).toEqual(run.indexed);
    for (const r of run.routes) expect(r.bootstrapped, r.query).toBe(r.indexed);
    expect(run.routes.filter((r) => r.indexed.startsWith('200 ')).length).toBeGreaterThan(0);
  });
});
