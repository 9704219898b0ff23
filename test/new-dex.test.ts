// A DEX is one folder and one registry line: a small made-up DEX, written here as its folder would be (one `Dex`),
// is added to the registry and nothing else. A block in which its contract creates a pool is indexed into `pools`,
// and GET /route quotes it with its own calls. The default registry does not know it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer } from '../api/server.ts';
import { endsOf, positive, type Dex, type Hop, type RoutingPool } from '../dexes/dex.ts';
import { DEXES } from '../dexes/index.ts';
import type { PoolStateEvent } from '../dexes/events.ts';
import { SWAP_PER_POOL_BURN, TOKEN_RESOLVE_BURN, TOKEN_TRANSFER_BURN, TOKEN_TRANSFER_CALL_BURN } from '../dexes/burn.ts';
import { ftTransferCall, tgas } from '../dexes/instructions.ts';
import { Chain } from '../devnet/chain.ts';
import { Rng } from '../devnet/rng.ts';
import { isSuccess } from '../near/decode.ts';
import { parseEventLog } from '../near/nep297.ts';
import { ingest } from '../indexer/pipeline.ts';
import { openSource } from '../indexer/sources/index.ts';
import { createMigratedDb } from './harness/db.ts';
import { decodedCalls, getRoute } from './routing/helpers.ts';

// ---- dexes/made-up/index.ts, as it would be ----
const MADE_UP = 'madeup.near';

/** Its contract logs `EVENT_JSON:{"standard":"madeup","event":"pool",...}` with a pool's whole state: x·y=k, no fee. */
const madeUp: Dex = {
  id: 'MadeUp',
  contract: () => MADE_UP,
  activity: 'trade',
  decode(block) {
    const events: PoolStateEvent[] = [];
    for (const shard of block.shards) {
      for (const outcome of shard.receiptOutcomes) {
        if (outcome.executorId !== MADE_UP || !isSuccess(outcome)) continue;
        let index = 0;
        for (const log of outcome.logs) {
          const event = parseEventLog(log);
          if (event?.standard !== 'madeup' || event.event !== 'pool') continue;
          for (const item of event.data as Array<{ pool_id: string; tokens: string[]; amounts: string[] }>) {
            events.push({
              blockHeight: block.height,
              timestampMs: block.timestampMs,
              receiptId: outcome.receiptId,
              txHash: outcome.txHash,
              index: index++,
              kind: 'pool_state',
              dex: 'MadeUp',
              contractId: MADE_UP,
              poolId: item.pool_id,
              state: { kind: 'xyk', tokens: item.tokens, amounts: item.amounts.map(BigInt), totalFee: 0 },
            });
          }
        }
      }
    }
    return events;
  },
  routing: {
    maxHops: { exactIn: 1, exactOut: 0 },
    hasSlippage: true,
    hops(pool: RoutingPool): Hop[] {
      const [t0, t1] = pool.state.tokens as [string, string];
      const [x, y] = pool.state.amounts as [bigint, bigint];
      const hop = (tokenIn: string, tokenOut: string, a: bigint, b: bigint): Hop => ({
        dex: pool.dex,
        poolId: pool.poolId,
        tokenIn,
        tokenOut,
        out: (amount) => positive((amount * b) / (a + amount)),
        spot: { numerator: b, denominator: a },
      });
      return [hop(t0, t1, x, y), hop(t1, t0, y, x)];
    },
    helperSteps: () => [],
    calls: (route, amounts) => {
      const { first } = endsOf(route);
      return [ftTransferCall(first.tokenIn, MADE_UP, amounts.sent, JSON.stringify({ pool_id: first.poolId, min_out: amounts.wanted.toString() }), tgas(50), TOKEN_TRANSFER_CALL_BURN + SWAP_PER_POOL_BURN + TOKEN_TRANSFER_BURN + TOKEN_RESOLVE_BURN)];
    },
  },
};
// ---- dexes/index.ts: the one line ----
const registry = [...DEXES, madeUp];

const dir = mkdtempSync(path.join(os.tmpdir(), 'dexlake-new-dex-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a made-up DEX added by one registry line', () => {
  it('is indexed from a block and quoted by GET /route', async () => {
    // One block of a chain (the devnet's chain model) in which madeup.near creates a pool alpha/beta 1 000 000 / 2 000 000.
    const chain = new Chain({ seed: 'new-dex', genesisHeight: 1, genesisMs: Date.UTC(2026, 0, 1), blockMs: 1_000, rng: new Rng('new-dex') });
    chain.transact('maker.near', MADE_UP, [{ method: 'create_pool', args: { tokens: ['alpha.near', 'beta.near'] } }], (r) => {
      r.event('madeup', '1.0.0', 'pool', [{ pool_id: 'ab', tokens: ['alpha.near', 'beta.near'], amounts: ['1000000', '2000000'] }]);
    });
    writeFileSync(path.join(dir, '1.json'), JSON.stringify(chain.seal()));

    const db = await createMigratedDb();
    await ingest({ db, source: await openSource(`files:${dir}`), dexes: registry, signal: new AbortController().signal });
    const { rows } = await db.pool.query(`select dex, pool_id, tokens, amounts from pools`);
    expect(rows).toEqual([{ dex: 'MadeUp', pool_id: 'ab', tokens: ['alpha.near', 'beta.near'], amounts: ['1000000', '2000000'] }]);

    const query = { token_in: 'alpha.near', token_out: 'beta.near', amount_in: '1000', max_wait_ms: '1000', slippage_type: 'Fixed', slippage: '0.01', dexes: 'MadeUp' };
    const app = await buildServer({ db, logLevel: 'silent', dexes: registry });
    try {
      await app.ready();
      const res = await getRoute(app, query);
      expect(res.status, res.body).toBe(200);
      const [quote, ...others] = res.json();
      expect(others).toEqual([]);
      // 1000·2 000 000 / (1 000 000 + 1000) = 1998.0..., floor 1998; worst case at 1%: floor(1998·99/100) = 1978
      expect(quote).toMatchObject({ dex_id: 'MadeUp', estimated_amount: { amount_out: '1998' }, worst_case_amount: { amount_out: '1978' }, has_slippage: true });
      expect(decodedCalls(quote!)).toEqual([
        ['alpha.near', 'ft_transfer_call', { receiver_id: MADE_UP, amount: '1000', msg: JSON.stringify({ pool_id: 'ab', min_out: '1978' }) }, 50_000_000_000_000, '1'],
      ]);
    } finally {
      await app.close();
    }

    // The default registry does not know it: the id is refused as any unknown one.
    const plain = await buildServer({ db, logLevel: 'silent' });
    try {
      await plain.ready();
      const res = await getRoute(plain, query);
      expect([res.status, res.body]).toEqual([400, 'Invalid dex id: MadeUp']);
    } finally {
      await plain.close();
    }
  });
});
