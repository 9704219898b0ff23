// `dexlake pools import FILE [--height H] [--dex D]`: a DEX's pool state from a saved snapshot file (AmmA's: its
// `get_pools` JSON or Ref's indexer pools), written to the event log at height H (indexer/pools-import/). A live
// start reads every DEX from an RPC node instead: `dexlake bootstrap` (cli/bootstrap.ts).
// Everything the operator got wrong (no such file, not JSON, unknown shape, bad height) is a ConfigError: one line,
// exit code 2, and nothing opened or written.
import { readFile } from 'node:fs/promises';
import { ConfigError, settings, type Config, type Setting } from './config.ts';
import { withDatabase } from './run.ts';
import { connect } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { contractsOf } from '../dexes/contracts.ts';
import { PoolsImportError, type BootstrapPools, type Dex, type DexBootstrap } from '../dexes/dex.ts';
import { DEXES } from '../dexes/index.ts';
import { describeSkipped, importReceiptId, poolStateEvents } from '../indexer/pools-import/events.ts';
import { indexedBlockTimestampMs, writeImport } from '../indexer/pools-import/write.ts';

export interface PoolsImportOptions {
  file: string;
  height?: string | undefined;
  dex?: string | undefined;
}

interface Snapshot {
  height: number;
  /** null: the source does not say (a file); taken from the log's block when it has it. */
  timestampMs: number | null;
  total: number;
  pools: BootstrapPools['pools'];
  skipped: Record<string, number>;
}

type Importing = Dex & { bootstrap: DexBootstrap & Required<Pick<DexBootstrap, 'snapshot'>> };

/** The DEX to import: the one asked, else the registry's only one that reads snapshot files. */
function dexToImport(id: string | undefined): Importing {
  const offered = DEXES.filter((d): d is Importing => d.bootstrap?.snapshot !== undefined);
  const names = offered.map((d) => d.id).join(', ');
  if (id === undefined) {
    if (offered.length !== 1) throw new ConfigError(`pools import needs --dex, one of ${names}`);
    return offered[0]!;
  }
  const dex = offered.find((d) => d.id === id);
  if (dex === undefined) throw new ConfigError(`--dex ${id}: expected one of ${names}`);
  return dex;
}

const say = (line: string) => process.stdout.write(`${line}\n`);

export async function poolsImport(config: Config, options: PoolsImportOptions): Promise<void> {
  const height = options.height === undefined ? undefined : (checkFlag(settings.from, '--height', options.height) as number);
  const dex = dexToImport(options.dex);
  const contractId = dex.contract(contractsOf(config.nearNetwork));
  // Read and check everything before the database is opened: a bad file costs nothing.
  const snapshot = await fromFile(dex.bootstrap, options.file, height);

  await withDatabase(config, async ({ url }) => {
    const db = connect(url, { max: 2 });
    try {
      await migrateToLatest(db.kysely);
      const indexedAt = await indexedBlockTimestampMs(db, snapshot.height);
      const timestampMs = snapshot.timestampMs ?? indexedAt ?? 0;
      const events = poolStateEvents(dex, snapshot.pools, { contractId, height: snapshot.height, timestampMs });
      const written = await writeImport(db, dex, snapshot.height, events);
      const imported = snapshot.pools.length;
      const kinds = [...new Set(snapshot.pools.map((p) => p.kind))].join('/');
      say(`imported ${imported} ${kinds} pools of ${contractId} at height ${snapshot.height} as pool_state events of receipt ${importReceiptId(dex)}`);
      const skippedCount = snapshot.total - imported;
      if (skippedCount) say(`skipped ${skippedCount} that cannot be represented exactly: ${describeSkipped(dex, snapshot.skipped)}`);
      if (written.replaced) say(`replaced the ${written.replaced} events of the earlier import at height ${snapshot.height}`);
      if (written.rederived) say('re-derived every projection from the event log (a re-import, or the log has events at or above this height)');
      if (snapshot.timestampMs === null && indexedAt === null) say(`block ${snapshot.height} is not indexed and the file gives no time: the events carry timestamp 0`);
      if (indexedAt !== null) say(`block ${snapshot.height} is indexed: its own pool writes and this import are ordered by receipt id; import at a height not yet indexed`);
      say(`the checkpoint is unchanged; to index from here: dexlake index --from ${snapshot.height + 1}`);
    } finally {
      await db.close();
    }
  });
}

async function fromFile(bootstrap: Importing['bootstrap'], file: string, height: number | undefined): Promise<Snapshot> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file} is not JSON: ${(error as Error).message.replace(/\s+/g, ' ')}`);
  }
  let parsed;
  try {
    parsed = bootstrap.snapshot(json);
  } catch (error) {
    if (error instanceof PoolsImportError) throw new ConfigError(`${file}: ${error.message}`);
    throw error;
  }
  if (parsed.height !== null && height !== undefined && parsed.height !== height) {
    throw new ConfigError(`${file} is at block ${parsed.height}, but --height says ${height}`);
  }
  const at = parsed.height ?? height;
  if (at === undefined) throw new ConfigError(`${file} records no block height: give the height its pools are the state after with --height H`);
  say(`read ${parsed.total} pools from ${file}${parsed.shape === undefined ? '' : ` (${parsed.shape} shape)`}`);
  return { height: at, timestampMs: null, total: parsed.total, pools: parsed.pools, skipped: parsed.skipped };
}

/** A flag checked with the schema of the setting of the same meaning, failing like a config error. */
function checkFlag(setting: Setting, flag: string, raw: string): unknown {
  const parsed = setting.schema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`invalid ${flag}=${JSON.stringify(raw)}: expected ${setting.expected}`);
  return parsed.data;
}
