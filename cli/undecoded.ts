// `dexlake undecoded [--dex D] [--limit N] [--json]`: what the decoders could not read. The totals per DEX and kind
// since indexing began, then the newest inputs kept (1,000 per DEX at most) with where they were found and their
// raw text, newest first. `--json` prints one JSON object per input instead, for scripts.
import { ConfigError, type Config } from './config.ts';
import { refuseEmptyDatabase, withDatabase } from './run.ts';
import { connect } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { DEX_IDS } from '../dexes/index.ts';
import { KEEP_PER_DEX, readUndecodedTotals } from '../indexer/projections/undecoded.ts';

export interface UndecodedOptions {
  dex?: string | undefined;
  limit?: string | undefined;
  json?: boolean | undefined;
}

const DEFAULT_LIMIT = 20;
/** Whose undecoded inputs there can be: the DEX decoders and the core ones. */
const DECODERS: readonly string[] = [...DEX_IDS, 'NEP-141', 'NEP-145', 'NEP-297'];
const say = (line: string) => process.stdout.write(`${line}\n`);

export async function undecodedCommand(config: Config, options: UndecodedOptions): Promise<void> {
  const limit = options.limit === undefined ? DEFAULT_LIMIT : /^\d{1,4}$/.test(options.limit) ? Number(options.limit) : NaN;
  if (!(limit >= 1 && limit <= KEEP_PER_DEX)) {
    throw new ConfigError(`--limit ${options.limit}: expected an integer from 1 to ${KEEP_PER_DEX}`);
  }
  if (options.dex !== undefined && !DECODERS.includes(options.dex)) {
    throw new ConfigError(`--dex ${options.dex}: expected one of ${DECODERS.join(', ')}`);
  }
  await withDatabase(config, async ({ url }) => {
    const db = connect(url, { max: 1 });
    try {
      await refuseEmptyDatabase(db, 'undecoded');
      await migrateToLatest(db.kysely);
      let query = db.kysely.selectFrom('undecoded').selectAll();
      if (options.dex !== undefined) query = query.where('dex', '=', options.dex);
      const rows = await query.orderBy('block_height', 'desc').orderBy('receipt_id', 'desc').orderBy('index', 'desc').limit(limit).execute();
      if (options.json) {
        for (const r of rows) say(JSON.stringify(r));
        return;
      }
      const totals = (await readUndecodedTotals(db.kysely)).filter((t) => options.dex === undefined || t.dex === options.dex);
      if (!totals.length) {
        say(options.dex === undefined ? 'nothing undecoded: every input of a known contract was read' : `nothing undecoded for ${options.dex}`);
        return;
      }
      say('undecoded inputs since indexing began:');
      for (const t of totals) say(`  ${t.dex.padEnd(8)} ${t.kind.padEnd(6)} ${t.count}`);
      say(`newest ${rows.length} kept (up to ${KEEP_PER_DEX} per DEX), newest first:`);
      for (const r of rows) {
        say(`${r.block_height}  ${r.dex}  ${r.kind}  ${r.contract_id}${r.pool_id === null ? '' : `  pool ${r.pool_id}`}  receipt ${r.receipt_id}${r.tx_hash === null ? '' : `  tx ${r.tx_hash}`}`);
        say(`  reason: ${r.reason}`);
        say(`  raw: ${r.raw}`);
      }
    } finally {
      await db.close();
    }
  }, undefined, { existing: 'undecoded' });
}
