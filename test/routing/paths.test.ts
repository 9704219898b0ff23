// The AmmA pathfinder and split (api/routing/paths.ts) over hand-made simple pools, pure: no database. Every
// expected amount is worked out by hand in the comments; all pools have fee 0, so an output is floor(a·Y / (X + a)).
import { describe, expect, it } from 'vitest';
import type { RoutingPool } from '../../api/routing/graph.ts';
import { hopsOfPool } from '../../api/routing/hops.ts';
import { indexHops, splitExactIn, topPathsExactIn, topPathsExactInEach } from '../../api/routing/paths.ts';
import { contractsOf } from '../../dexes/contracts.ts';

const ctx = { contracts: contractsOf('mainnet'), registrations: null };

function ammA(poolId: string, tokens: [string, string], amounts: [bigint, bigint]): RoutingPool {
  const state = { kind: 'simple', tokens, amounts, totalFee: 0, exchangeFee: 0, referralFee: 0 };
  return { dex: 'AmmA', poolId, state: state as unknown as RoutingPool['state'], updatedHeight: 1 };
}

const M = 1_000_000n;

describe('AmmA paths', () => {
  it('finds a 3-hop path from the output side when the middle token has more hops than the output has pools', () => {
    // a.near has 4 hops out (to in, b, c, d), out.near one pool in (from b): the middle token is found from out.near.
    const index = indexHops(
      [
        ammA('1', ['in.near', 'a.near'], [M, M]),
        ammA('2', ['a.near', 'b.near'], [M, M]),
        ammA('3', ['a.near', 'c.near'], [M, M]),
        ammA('4', ['a.near', 'd.near'], [M, M]),
        ammA('5', ['b.near', 'out.near'], [M, M]),
      ].flatMap((p) => hopsOfPool(p, ctx)),
    );
    const [best, ...rest] = topPathsExactIn(index, 'in.near', 'out.near', 1000n, 3, 5);
    // floor(1000·10^6/1 001 000) = 999; floor(999·10^6/1 000 999) = 998; floor(998·10^6/1 000 998) = 997.
    expect(best!.hops.map((h) => h.poolId)).toEqual(['1', '2', '5']);
    expect(best!.amounts).toEqual([1000n, 999n, 998n, 997n]);
    expect(rest).toEqual([]);
    // Excluding pool 2 leaves no path.
    expect(topPathsExactIn(index, 'in.near', 'out.near', 1000n, 3, 5, new Set(['2']))).toEqual([]);
  });

  it('ranks paths per amount in one walk: a small pool with the better price wins only small amounts', () => {
    // Pool 1: 10^6 / 10^6. Pool 2: 1000 / 1010 (a better price, little depth).
    const index = indexHops([ammA('1', ['x.near', 'y.near'], [M, M]), ammA('2', ['x.near', 'y.near'], [1000n, 1010n])].flatMap((p) => hopsOfPool(p, ctx)));
    const [small, large] = topPathsExactInEach(index, 'x.near', 'y.near', [10n, 100_000n], 1, 2);
    // 10 in: pool 1 floor(10·10^6/1 000 010) = 9; pool 2 floor(10·1010/1010) = 10.
    expect(small!.map((p) => [p.hops[0]!.poolId, p.amounts[1]])).toEqual([
      ['2', 10n],
      ['1', 9n],
    ]);
    // 100 000 in: pool 1 floor(10^11/1 100 000) = 90 909; pool 2 floor(100 000·1010/101 000) = 1000.
    expect(large!.map((p) => [p.hops[0]!.poolId, p.amounts[1]])).toEqual([
      ['1', 90_909n],
      ['2', 1000n],
    ]);
  });

  it('gives a path less than one chunk when that raises the total', () => {
    const index = indexHops([ammA('1', ['x.near', 'y.near'], [M, M]), ammA('2', ['x.near', 'y.near'], [1000n, 1010n])].flatMap((p) => hopsOfPool(p, ctx)));
    const paths = topPathsExactIn(index, 'x.near', 'y.near', 100_000n, 1, 2);
    const split = splitExactIn(paths, 100_000n, 100);
    // Chunks of 1000: pool 1's last chunk still adds floor(10^11/1 100 000) − floor(9.9·10^10/1 099 000) = 90 909 −
    // 90 081 = 828, more than pool 2's first chunk (floor(1000·1010/2000) = 505): pool 1 takes all 100.
    // Refining by 100: pool 1 at 99 900 gives floor(9.99·10^10/1 099 900) = 90 826 and pool 2 at 100 gives
    // floor(100·1010/1100) = 91: 90 917 > 90 909, taken. A second step: 90 743 + floor(200·1010/1200) = 168 is
    // 90 911 < 90 917, refused. No split of the 100 000 gives more than 90 918 (e.g. 99 890 + 110: 90 818 + 100),
    // so no step of 10 or 1 gains the 2 units a move needs (1 unit the two floors alone can make).
    expect(split!.map((p) => [p.hops[0]!.poolId, p.amounts[0], p.amounts[1]])).toEqual([
      ['1', 99_900n, 90_826n],
      ['2', 100n, 91n],
    ]);
  });
});
