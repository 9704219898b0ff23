// `dexlake bootstrap --rpc URL [--height H]`: every DEX's state at one block from a NEAR JSON-RPC node, into an empty
// database (indexer/bootstrap.ts). A bad flag is a ConfigError (exit 2); a node that fails names itself, the call and
// the block (exit 1), and nothing is written.
import { ConfigError, settings, type Config } from './config.ts';
import { withDatabase } from './run.ts';
import { connect } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { contractsOf } from '../dexes/contracts.ts';
import { bootstrap } from '../indexer/bootstrap.ts';

const say = (line: string) => process.stdout.write(`${line}\n`);

export async function bootstrapCommand(config: Config, options: { rpc: string; height?: string | undefined }): Promise<void> {
  const rpc = settings.nearRpcUrl.schema.safeParse(options.rpc);
  if (!rpc.success) throw new ConfigError(`invalid --rpc=${JSON.stringify(options.rpc)}: expected ${settings.nearRpcUrl.expected}`);
  const height = options.height === undefined ? undefined : settings.from.schema.safeParse(options.height);
  if (height !== undefined && !height.success) throw new ConfigError(`invalid --height=${JSON.stringify(options.height)}: expected ${settings.from.expected}`);
  await withDatabase(config, async ({ url }) => {
    const db = connect(url, { max: 2 });
    try {
      await migrateToLatest(db.kysely);
      const summary = await bootstrap({ db, rpcUrl: rpc.data as string, contracts: contractsOf(config.nearNetwork), height: height?.data as number | undefined, say });
      say(`bootstrapped at block ${summary.height}: the checkpoint is there; to follow the chain: dexlake index (from ${summary.height + 1})`);
    } finally {
      await db.close();
    }
  });
}
