// `dexlake devnet export`: the realnet's first N blocks in the Lake S3 layout (`<height, 12 digits>/block.json` and
// `shard_0.json`), for `--source files:DIR`, for sharing a reproducible chain, or for a bucket. `dexlake devnet rpc`:
// NEAR JSON-RPC over the realnet's first N blocks (devnet/realnet/rpc.ts), e.g. for `dexlake bootstrap --rpc`.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { DEVNET_BLOCK_MS, DEVNET_GENESIS_HEIGHT, DEVNET_GENESIS_MS } from '../devnet/realnet/chain.ts';
import { parseRefRelease } from '../devnet/realnet/releases.ts';
import { realnetMarket, realnetRpc } from '../devnet/realnet/wasm.ts';
import { startNearRpc } from '../devnet/rpc.ts';
import { stopSignal } from './run.ts';
import { ConfigError, type Config } from './config.ts';

/**
 * The genesis (ms) a database-backed command runs the realnet with, from `--devnet-genesis` and the blocks the
 * database holds (block h's timestamp less h - 1 seconds: the stored chain keeps its genesis across restarts).
 * Undefined for the fixed genesis, which the realnet source paces from each run's start rather than from the genesis.
 */
export async function resolveDevnetGenesis(db: Kysely<Database>, setting: string | undefined, now = Date.now()): Promise<number | undefined> {
  const first = await db.selectFrom('blocks').select(['height', 'timestamp_ms']).orderBy('height').limit(1).executeTakeFirst();
  const stored = first && Number(first.timestamp_ms) - (Number(first.height) - DEVNET_GENESIS_HEIGHT) * DEVNET_BLOCK_MS;
  const given = setting === undefined || setting === 'recent' ? undefined : Date.parse(setting);
  if (given !== undefined && stored !== undefined && given !== stored) {
    throw new ConfigError(
      `--devnet-genesis=${setting}: the database holds a realnet chain with genesis ${new Date(stored).toISOString()}; give that, or recent, or start from an empty database`,
    );
  }
  // `recent` with nothing stored: now, to the second (the realnet produces nothing ahead, so its head is about now).
  const genesis = given ?? stored ?? (setting === 'recent' ? Math.floor(now / 1000) * 1000 : DEVNET_GENESIS_MS);
  return genesis === DEVNET_GENESIS_MS ? undefined : genesis;
}

/** The genesis of a command without a database: the one given, else the fixed one; `recent` needs a database. */
function givenGenesis(config: Config): number | undefined {
  if (config.devnetGenesis === 'recent') {
    throw new ConfigError('--devnet-genesis=recent is chosen by the indexer and kept in its database: give the time it logged (realnet genesis)');
  }
  return config.devnetGenesis === undefined ? undefined : Date.parse(config.devnetGenesis);
}

/** `--release`: a vendored Ref release (undefined: the newest). */
function releaseOf(release: string | undefined): string | undefined {
  try {
    parseRefRelease(release);
  } catch (error) {
    throw new ConfigError(`--release: ${(error as Error).message}`);
  }
  return release;
}

export async function devnetExport(config: Config, opts: { blocks: string; out: string; release?: string }): Promise<void> {
  if (!/^\d+$/.test(opts.blocks) || Number(opts.blocks) < 1 || Number(opts.blocks) > 10_000_000) {
    throw new ConfigError(`invalid --blocks="${opts.blocks}": expected a number of blocks from 1 to 10000000`);
  }
  const count = Number(opts.blocks);
  const genesisMs = givenGenesis(config);
  const release = releaseOf(opts.release);
  const market = realnetMarket(release, { seed: config.devnetSeed, history: false, models: true, ...(genesisMs !== undefined ? { genesisMs } : {}) });
  let lastReport = Date.now();
  for (let i = 1; i <= count; i++) {
    const { block, shards } = market.next() as { block: { header: { height: number } }; shards: Array<{ shard_id: number }> };
    const dir = path.join(opts.out, String(block.header.height).padStart(12, '0'));
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'block.json'), JSON.stringify(block));
    for (const shard of shards) await writeFile(path.join(dir, `shard_${shard.shard_id}.json`), JSON.stringify(shard));
    if (Date.now() - lastReport > 2_000) {
      process.stderr.write(`devnet export: ${i}/${count} blocks\n`);
      lastReport = Date.now();
    }
  }
  process.stdout.write(`wrote ${count} blocks (realnet, Ref ${parseRefRelease(release)}, seed ${config.devnetSeed}) to ${opts.out}\n`);
}

export async function devnetRpc(config: Config, opts: { port: string; blocks: string; release?: string }): Promise<void> {
  if (!/^\d+$/.test(opts.blocks) || Number(opts.blocks) < 1 || Number(opts.blocks) > 10_000_000) {
    throw new ConfigError(`invalid --blocks="${opts.blocks}": expected a number of blocks from 1 to 10000000`);
  }
  if (!/^\d+$/.test(opts.port) || Number(opts.port) > 65_535) throw new ConfigError(`invalid --port="${opts.port}": expected an integer from 0 to 65535`);
  const blocks = Number(opts.blocks);
  const genesisMs = givenGenesis(config);
  const signal = stopSignal();
  const options = { seed: config.devnetSeed, ...(genesisMs !== undefined ? { genesisMs } : {}) };
  const release = releaseOf(opts.release);
  const chain = realnetRpc(release, options, () => blocks);
  const server = await startNearRpc(chain, { host: config.host, port: Number(opts.port) });
  process.stdout.write(`realnet NEAR JSON-RPC (Ref ${parseRefRelease(release)}, seed ${config.devnetSeed}, blocks 1..${blocks}) at ${server.url}\n`);
  await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  await server.close();
}
