// AmmA pool state through the pipeline: the storage writes of the real blocks become `pools` and `pool_history`
// rows, the Swapped logs become `swap` events in the log, and NOTIFY names the pools a batch changed.
import path from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { ingest } from '../indexer/pipeline.ts';
import { filesSource } from '../indexer/sources/files.ts';
import { NOTIFY_CHANNEL } from '../indexer/store.ts';
import { allNotified, createMigratedDb } from './harness/db.ts';
import { FIXTURES_DIR } from './harness/fixtures.ts';

const never = new AbortController().signal;

describe('AmmA pools from the mainnet fixture blocks', () => {
  let db: Awaited<ReturnType<typeof createMigratedDb>>;
  const payloads: { height: number; pools: string[] }[] = [];

  beforeAll(async () => {
    db = await createMigratedDb();
    const listener = new pg.Client(db.url);
    await listener.connect();
    listener.on('notification', (n) => n.channel === NOTIFY_CHANNEL && payloads.push(JSON.parse(n.payload!)));
    await listener.query(`listen ${NOTIFY_CHANNEL}`);
    await ingest({ db, source: filesSource(path.join(FIXTURES_DIR, 'mainnet')), signal: never, limits: { maxBlocks: 1, idleMs: 60_000 } });
    await allNotified(listener);
    await listener.end();
  });

  it('keeps the state of every pool the blocks wrote, as their storage says', async () => {
    // The five Ref pool keys written in the fixtures (base64-decoded from the blocks' state_changes).
    const pools = await db.pool.query(`select pool_id, kind, tokens, amounts::text[], total_fee, updated_height from pools where dex = 'AmmA' order by pool_id::int`);
    expect(pools.rows.map((r) => [r.pool_id, r.updated_height])).toEqual([
      ['1395', 81206675],
      ['1923', 55905793],
      ['2043', 55905793],
      ['3667', 81206675],
      ['4369', 151768255],
    ]);
    expect(pools.rows[1]).toMatchObject({
      kind: 'simple',
      tokens: ['meta-pool.near', 'meta-token.near'],
      amounts: ['49704632411177514105395956001', '14430438044385477058156216213991'],
      total_fee: 30,
    });
    const history = await db.pool.query(`select count(*)::int as n from pool_history where dex = 'AmmA'`);
    expect(history.rows[0].n).toBe(5);
  });

  it('logs one swap event per Swapped line of a successful receipt, none for the failed one', async () => {
    const swaps = await db.pool.query(`select block_height, payload->>'poolId' as pool from events where kind = 'swap' and payload->>'dex' = 'AmmA' order by block_height, receipt_id, index`);
    expect(swaps.rows.map((r) => Number(r.block_height))).toEqual([55905793, 81206675, 81206675, 151768255]);
    expect(swaps.rows.some((r) => Number(r.block_height) === 114081912)).toBe(false);
  });

  it('records one trade hop per Swapped line, with the amounts the logs give', async () => {
    const hops = await db.pool.query(
      `select block_height::int as height, dex, pool_id, token_in, token_out, amount_in::text, amount_out::text from trade_hops where dex = 'AmmA' order by block_height, receipt_id, index`,
    );
    // The four Swapped lines of successful v2.ref-finance.near receipts in the fixtures, read from the JSON.
    expect(hops.rows.map((r) => [r.height, r.token_in, r.amount_in, r.token_out, r.amount_out])).toEqual([
      [55905793, 'v3.oin_finance.near', '15000000000', 'wrap.near', '9254425403101710706083291'],
      [81206675, 'token.sweat', '27070000000000000000', 'wrap.near', '208762475255939868571059'],
      [81206675, 'wrap.near', '208762475255939868571059', 'aaaaaa20d9e0e2461697782ef11675f668207961.factory.bridge.near', '1241475781908817737'],
      [151768255, 'token.0xshitzu.near', '869362846900140300000', 'wrap.near', '641881789924959952116119'],
    ]);
    expect(hops.rows[0]).toMatchObject({ dex: 'AmmA', pool_id: '2043' });
  });

  it('names the changed pools in the batch NOTIFY', () => {
    expect(payloads.find((p) => p.height === 55905793)?.pools).toEqual(['AmmA:1923', 'AmmA:2043']);
    expect(payloads.find((p) => p.height === 114081912)?.pools).toEqual([]);
  });
});
