// Every setting of dexlake in one place: its environment variable, its flag, its default and what a
// valid value looks like. The README's configuration table is checked against this list by a test.
import { isIP } from 'node:net';
import { z } from 'zod';
import { REF_RELEASES } from '../devnet/realnet/releases.ts';

export interface Setting {
  env: string;
  flag?: string;
  default?: string;
  expected: string;
  description: string;
  schema: z.ZodType;
}

const port = z.coerce.number().int().min(0).max(65535);
// A server dexlake may run or not: a port (0: any free one) or `off`.
const serverPort = z.union([z.literal('off'), port]);
const url = (protocols: string[]) =>
  z.string().refine((s) => {
    try {
      return protocols.includes(new URL(s).protocol);
    } catch {
      return false;
    }
  });
const height = z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER));
// A block source: realnet[:RELEASE], files:PATH, lake:mainnet|testnet|s3://..., neardata:mainnet|testnet|http(s)://...
const source = z
  .string()
  .regex(/^(realnet(:[0-9.]+)?|files:.+|lake:(mainnet|testnet|s3:\/\/[^/?]+(\?.*)?)|neardata:(mainnet|testnet|https?:\/\/.+))$/)
  .refine((s) => !s.startsWith('realnet:') || (REF_RELEASES as readonly string[]).includes(s.slice('realnet:'.length)), `a realnet release vendored: ${REF_RELEASES.join(', ')}`);

export const settings = {
  databaseUrl: {
    env: 'DATABASE_URL',
    flag: '--database-url',
    expected: 'a postgres:// or postgresql:// URL',
    description: 'PostgreSQL to use; when unset an embedded PostgreSQL is started under DEXLAKE_DATA_DIR',
    schema: url(['postgres:', 'postgresql:']),
  },
  databaseReadUrl: {
    env: 'DATABASE_READ_URL',
    flag: '--database-read-url',
    expected: 'one or more postgres:// or postgresql:// URLs, separated by commas',
    description:
      "Read replicas of DATABASE_URL (streaming standbys) for the api's queries, round robin; LISTEN stays on DATABASE_URL. After a notification a read waits up to 5 s for a replica that has replayed it; one behind or down is left out until it has caught up; with none in use reads go to DATABASE_URL. Unset: every read on DATABASE_URL",
    schema: z
      .string()
      .transform((s) => s.split(',').map((u) => u.trim()))
      .pipe(z.array(url(['postgres:', 'postgresql:'])).min(1)),
  },
  trustProxy: {
    env: 'DEXLAKE_TRUST_PROXY',
    flag: '--trust-proxy',
    expected: 'IP addresses or CIDR ranges, separated by commas',
    description:
      "Proxies (a load balancer) whose X-Forwarded-For the api believes: a request from one of them counts against the budget of the client it names, not the proxy's. Unset: the peer's own address, and X-Forwarded-For is ignored",
    schema: z
      .string()
      .transform((s) => s.split(',').map((a) => a.trim()))
      .pipe(z.array(z.string().refine((a) => isIP(a.split('/')[0]!) !== 0 && /^[^/]+(\/\d{1,3})?$/.test(a), 'not an IP address or CIDR range')).min(1)),
  },
  port: {
    env: 'PORT',
    flag: '--port',
    default: '3000',
    expected: 'an integer from 0 to 65535',
    description: 'HTTP port of the API',
    schema: port,
  },
  host: {
    env: 'HOST',
    flag: '--host',
    default: '127.0.0.1',
    expected: 'a host name or IP address',
    description: "Address the API listens on; under `index`, the indexer's status port, solver relay and realnet NEAR JSON-RPC",
    schema: z.string().regex(/^[A-Za-z0-9.:_\-[\]]+$/),
  },
  nearNetwork: {
    env: 'NEAR_NETWORK',
    flag: '--network',
    default: 'mainnet',
    expected: 'mainnet or testnet',
    description: 'NEAR network of the data; routing answers only on mainnet',
    schema: z.enum(['mainnet', 'testnet']),
  },
  dataDir: {
    env: 'DEXLAKE_DATA_DIR',
    flag: '--data-dir',
    default: '.dexlake',
    expected: 'a directory path',
    description: 'Where the embedded PostgreSQL keeps its data (in `pg/` below it)',
    schema: z.string().min(1),
  },
  pgPort: {
    env: 'DEXLAKE_PG_PORT',
    flag: '--pg-port',
    default: '5432',
    expected: 'an integer from 0 to 65535',
    description: 'Preferred port of the embedded PostgreSQL; a free one is chosen when it is taken',
    schema: port,
  },
  logLevel: {
    env: 'LOG_LEVEL',
    flag: '--log-level',
    default: 'info',
    expected: 'one of fatal, error, warn, info, debug, trace, silent',
    description: 'Log level of every process',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  },
  source: {
    env: 'DEXLAKE_SOURCE',
    flag: '--source',
    default: 'realnet',
    expected: `realnet[:RELEASE] (RELEASE one of ${REF_RELEASES.join(', ')}), files:PATH, lake:mainnet|testnet|s3://BUCKET?region=R&endpoint=URL or neardata:mainnet|testnet|URL`,
    description: 'Where the indexer reads blocks from',
    schema: source,
  },
  from: {
    env: 'DEXLAKE_FROM',
    flag: '--from',
    expected: 'a block height (non-negative integer)',
    description: 'First height to index; default: resume after the checkpoint',
    schema: height,
  },
  to: {
    env: 'DEXLAKE_TO',
    flag: '--to',
    expected: 'a block height (non-negative integer)',
    description: 'Last height to index; default: follow the chain forever',
    schema: height,
  },
  workers: {
    env: 'DEXLAKE_WORKERS',
    flag: '--workers',
    expected: 'an integer from 1 to 256',
    description:
      'Parallel backfill: split --from..--to into this many height ranges, each ingested by a process of its own (blocks and events, with its own checkpoint), then merge them in height order into the tables; the tables end as one sequential run leaves them. Needs --from and --to, above the checkpoint',
    schema: z.coerce.number().int().min(1).max(256),
  },
  range: {
    env: 'DEXLAKE_RANGE',
    flag: '--range',
    expected: 'i/N with 1 <= i <= N',
    description:
      "Parallel backfill across machines that share one PostgreSQL: ingest only the i-th of N height ranges of --from..--to (every machine gives the same --from, --to and N); the last range to finish merges them, and running any range's command again resumes it or a stopped merge",
    schema: z.string().regex(/^\d+\/\d+$/),
  },
  readAhead: {
    env: 'DEXLAKE_READ_AHEAD',
    flag: '--read-ahead',
    default: '64',
    expected: 'an integer from 1 to 1024',
    description: 'Most blocks the neardata and lake sources request at once: their read-ahead grows from 4 towards it while the throughput grows, and halves on errors, 429s and stalls',
    schema: z.coerce.number().int().min(1).max(1024),
  },
  readAheadMb: {
    env: 'DEXLAKE_READ_AHEAD_MB',
    flag: '--read-ahead-mb',
    default: '256',
    expected: 'a number of megabytes (MiB) from 1 to 65536',
    description: 'Memory budget of the neardata and lake read-ahead: blocks received and not yet taken, and those in flight at their mean size (one block always passes)',
    schema: z.coerce.number().min(1).max(65536),
  },
  bulkLoadDistance: {
    env: 'DEXLAKE_BULK_LOAD_DISTANCE',
    flag: '--bulk-load-distance',
    default: '10000',
    expected: 'a number of blocks (non-negative integer; 0 turns bulk-load mode off)',
    description: 'Bulk-load mode: while the indexer is more blocks than this behind the head (or --to), the indexes of the history tables are not maintained; they are built once it is within this distance, or at the end of the run (the api answers meanwhile, slower where one is missing)',
    schema: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  },
  devnetSpeed: {
    env: 'DEXLAKE_DEVNET_SPEED',
    flag: '--devnet-speed',
    default: '1',
    expected: 'a number of blocks per second from 0 to 1000 (0: as fast as the indexer takes them)',
    description: 'Pace of the realnet source',
    schema: z.coerce.number().min(0).max(1000),
  },
  devnetSeed: {
    env: 'DEXLAKE_DEVNET_SEED',
    flag: '--devnet-seed',
    default: 'dexlake',
    expected: 'a non-empty text of letters, digits, dashes and underscores',
    description: 'Seed of the realnet source: the same seed gives the same chain',
    schema: z.string().regex(/^[A-Za-z0-9_-]+$/),
  },
  devnetGenesis: {
    env: 'DEXLAKE_DEVNET_GENESIS',
    flag: '--devnet-genesis',
    expected: 'recent, or a UTC time to the second such as 2026-01-01T00:00:00Z',
    description:
      "Time of the realnet's block 1 (each block is one second later): the same seed and genesis give the same chain. `recent`: the genesis of the realnet chain the database holds, else the moment the indexer first starts, so at speed 1 the chain's clock is real time and `/health`'s lag is seconds; a time: that one (refused when the database holds another). Unset: `recent` under `start`; elsewhere the database's chain's genesis, else 2026-01-01T00:00:00Z, the fixed genesis of tests and benches, paced from each run's start",
    schema: z.string().refine((s) => s === 'recent' || (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(s) && Date.parse(s) >= 0 && new Date(Date.parse(s)).toISOString() === s.replace('Z', '.000Z'))),
  },
  indexerPort: {
    env: 'INDEXER_PORT',
    flag: '--indexer-port',
    default: '0',
    expected: 'an integer from 0 to 65535 (0: no health port)',
    description: 'Port of the indexer health and metrics endpoint (0 turns it off)',
    schema: port,
  },
  relayPort: {
    env: 'DEXLAKE_RELAY_PORT',
    flag: '--relay-port',
    default: '3001',
    expected: 'an integer from 0 to 65535 (0: any free port), or off',
    description:
      'Port of the local solver relay (JSON-RPC `quote` and `publish_intent` at /rpc, priced from the indexed AmmA pools) that `index` starts with the realnet source, on HOST; under `start` the api asks it for QuoteA quotes. A port already taken stops the command with a line naming this setting (exit 2); `off` runs no relay',
    schema: serverPort,
  },
  devnetRpcPort: {
    env: 'DEXLAKE_DEVNET_RPC_PORT',
    flag: '--devnet-rpc-port',
    default: '3002',
    expected: 'an integer from 0 to 65535 (0: any free port), or off',
    description:
      "Port of the realnet's NEAR JSON-RPC (status, block, query call_function and view_state at any indexed height) that `index` starts with the realnet source, on HOST. A port already taken stops the command with a line naming this setting (exit 2); `off` runs no RPC",
    schema: serverPort,
  },
  nearRpcUrl: {
    env: 'NEAR_RPC_URL',
    flag: '--rpc',
    expected: 'an http:// or https:// URL',
    description: 'NEAR JSON-RPC endpoint for views such as ft_metadata, and for the bootstrap of an empty database when the source is neardata or lake (the state of every DEX at the latest final block); unset: no RPC calls',
    schema: url(['http:', 'https:']),
  },
  stallSeconds: {
    env: 'DEXLAKE_STALL_SECONDS',
    flag: '--stall-seconds',
    default: '60',
    expected: 'a number of seconds from 0 to 86400 (0: never)',
    description:
      "How long the indexed height may stay unchanged before the api's `/health` answers 503 (the indexer's source makes no progress: unreachable, stalled); counted from the api's start until it sees the height change. 0 turns the check off; `/health` is 503 while the database holds no block regardless",
    schema: z.coerce.number().min(0).max(86400),
  },
  maxTransactionTgas: {
    env: 'DEXLAKE_MAX_TRANSACTION_TGAS',
    flag: '--max-transaction-tgas',
    expected: 'an integer from 300 to 1000',
    description:
      "NEAR's most prepaid gas per transaction on the network, in TGas: 300, or 1000 from protocol version 83. Unset: `max_total_prepaid_gas` of NEAR_RPC_URL's EXPERIMENTAL_protocol_config, read when `serve` starts, else 300. No swap attaches more; an AmmA swap attaches its metered need plus 20% (one action 72 TGas; 300 TGas carries 60 actions, and a receipt's logs 50)",
    schema: z.coerce.number().int().min(300).max(1000),
  },
  quoteRelayUrl: {
    env: 'QUOTE_RELAY_URL',
    flag: '--quote-relay',
    expected: 'an http:// or https:// URL, or off',
    description:
      "Solver relay that QuoteA routes ask for quotes (JSON-RPC at /rpc); `off`: no QuoteA quotes. Unset: under `start`, the relay its indexer started (on DEXLAKE_RELAY_PORT, or the free port 0 picked), else off; under `serve`, http://127.0.0.1:3001, the default relay of `dexlake index`",
    schema: z.union([z.literal('off'), url(['http:', 'https:'])]),
  },
} satisfies Record<string, Setting>;

/** The seeded chain the indexer makes itself: the realnet (the contracts' own wasm, and models of the closed ones). */
export const seeded = (source: string): boolean => /^realnet(:|$)/.test(source);

export type SettingName = keyof typeof settings;
type Value<K extends SettingName> = z.output<(typeof settings)[K]['schema']>;
export type Config = { [K in SettingName]: (typeof settings)[K] extends { default: string } ? Value<K> : Value<K> | undefined };

/** A setting with a bad value: the message names the variable or flag, the value and what is expected. */
export class ConfigError extends Error {}

/**
 * Reads every setting: a flag given on the command line wins over the environment, which wins over the default.
 * Empty environment values count as unset.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, flags: Partial<Record<SettingName, string>> = {}): Config {
  const config: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(settings) as [SettingName, Setting][]) {
    const fromFlag = flags[name];
    const fromEnv = env[setting.env] === '' ? undefined : env[setting.env];
    const raw = fromFlag ?? fromEnv ?? setting.default;
    if (raw === undefined) continue;
    const parsed = setting.schema.safeParse(raw);
    if (!parsed.success) {
      const origin = fromFlag !== undefined ? setting.flag : setting.env;
      throw new ConfigError(`invalid ${origin}=${JSON.stringify(raw)}: expected ${setting.expected}`);
    }
    config[name] = parsed.data;
  }
  return config as Config;
}

/** The environment that hands a resolved config to a child process (flags become variables). */
export function configEnv(config: Config): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, setting] of Object.entries(settings) as [SettingName, Setting][]) {
    const value = config[name];
    if (value !== undefined) env[setting.env] = String(value);
  }
  return env;
}
