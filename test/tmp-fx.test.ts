import path from 'node:path';
import { it } from 'vitest';
import { ingest } from '../indexer/pipeline.ts';
import { filesSource } from '../indexer/sources/files.ts';
import { createMigratedDb } from './harness/db.ts';
import { FIXTURES_DIR } from './harness/fixtures.ts';
it('fx', async () => {
  const db = await createMigratedDb();
  await ingest({ db, source: filesSource(path.join(FIXTURES_DIR, 'mainnet')), signal: new AbortController().signal });
  const q = async (t: string) => console.log(JSON.stringify((await db.pool.query(t)).rows));
  await q(`select token, block_height, price_usd from prices where block_height = 81206675`);
  await q(`select * from trade_hops where block_height = 81206675`);
  await q(`select dex, pool_id, tokens, amounts from pools where pool_id in ('3667','1395')`);
}, 300_000);
