// The `dexlake` command. Every subcommand reads its settings through config.ts (flags win over environment
// variables); a bad value, an unknown option or command ends the program with exit code 2.
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
// Command modules load lazily, so `--help` and config errors answer without loading the server stack.
import { ConfigError, loadConfig, settings, type Config, type SettingName } from './config.ts';

const commonSettings: SettingName[] = ['databaseUrl', 'dataDir', 'pgPort', 'logLevel', 'nearNetwork'];
const apiSettings: SettingName[] = ['port', 'host', 'quoteRelayUrl', 'databaseReadUrl', 'trustProxy', 'maxTransactionTgas', 'stallSeconds'];
const indexerSettings: SettingName[] = [
  'source', 'devnetSpeed', 'devnetSeed', 'devnetGenesis', 'from', 'to', 'readAhead', 'readAheadMb', 'bulkLoadDistance', 'indexerPort', 'relayPort', 'devnetRpcPort', 'nearRpcUrl',
];

/** commander's attribute name for a flag: `--data-dir` -> `dataDir`. */
const attribute = (flag: string) => flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** `meaning`: what a setting does in this command, where that is narrower than its general description. */
function withSettings(command: Command, names: SettingName[], meaning: Partial<Record<SettingName, string>> = {}): Command {
  for (const name of names) {
    const s = settings[name];
    const env = `env ${s.env}`;
    command.option(`${s.flag} <value>`, `${meaning[name] ?? s.description} (${'default' in s ? `${env}, default ${s.default}` : env})`);
  }
  return command;
}

function configOf(command: Command, names: SettingName[]): Config {
  const opts = command.opts<Record<string, string | undefined>>();
  const flags: Partial<Record<SettingName, string>> = {};
  for (const name of names) {
    const value = opts[attribute(settings[name].flag)];
    if (value !== undefined) flags[name] = value;
  }
  return loadConfig(process.env, flags);
}

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

// Settings given to the program before its commands are made are inherited by them. Bad usage (an unknown option
// or command, a missing argument) is, like a bad value, a line naming it and exit code 2.
const program = new Command('dexlake')
  .description('Swap routing and token data for NEAR, on an event-sourced indexer over PostgreSQL')
  .version(version, '-V, --version', 'print the version and exit')
  .configureOutput({ outputError: (text, write) => write(`dexlake: ${text.replace(/^error: /, '')}`) })
  .showHelpAfterError("(dexlake --help lists the commands, dexlake COMMAND --help a command's options)")
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
  .enablePositionalOptions();

const all = [...commonSettings, ...apiSettings, ...indexerSettings];
withSettings(program.command('start').description('database, migrations, then the indexer and the api (the default of `npm start`)'), all).action(
  async (_opts, command: Command) => {
    const { start } = await import('./start.ts');
    await start(configOf(command, all));
  },
);

// The parallel backfill's settings belong to `index` alone (not `start`, which follows the chain).
const indexNames = [...commonSettings, ...indexerSettings, 'workers' as const, 'range' as const, 'host' as const];
withSettings(program.command('index').description('run the indexer: read blocks from the source into PostgreSQL'), indexNames, {
  host: "Address the indexer's own servers listen on: its status port (--indexer-port) and, with the realnet source, the solver relay (--relay-port) and NEAR JSON-RPC (--devnet-rpc-port)",
}).action(
  async (_opts, command: Command) => {
    const { index } = await import('./commands.ts');
    await index(configOf(command, indexNames));
  },
);

const serveNames = [...commonSettings, ...apiSettings];
withSettings(program.command('serve').description('run the api: routing and token data over HTTP and WebSocket'), serveNames, {
  host: 'Address the API listens on',
}).action(
  async (_opts, command: Command) => {
    const { serve } = await import('./serve.ts');
    await serve(configOf(command, serveNames));
  },
);

withSettings(program.command('migrate').description('apply the schema migrations and exit'), commonSettings).action(async (_opts, command: Command) => {
  const { migrate } = await import('./commands.ts');
  await migrate(configOf(command, commonSettings));
});

const replayNames = [...commonSettings, 'source', 'devnetSeed', 'devnetGenesis', 'from', 'to'] as SettingName[];
withSettings(
  program.command('replay').description('re-ingest blocks --from A --to B from --source; every table ends as a clean run leaves it'),
  replayNames,
).action(async (_opts, command: Command) => {
  const { replayCommand } = await import('./commands.ts');
  await replayCommand(configOf(command, replayNames));
});

withSettings(program.command('rebuild').description('truncate the projections and re-derive them from the event log'), commonSettings).action(
  async (_opts, command: Command) => {
    const { rebuildCommand } = await import('./commands.ts');
    await rebuildCommand(configOf(command, commonSettings));
  },
);

const pools = program.command('pools').description('pool state tools');
withSettings(
  pools
    .command('import')
    .description('write a DEX\'s pool state from a saved snapshot FILE (AmmA: its get_pools result or Ref indexer pools) into the event log at height H; then `dexlake index --from H+1`')
    .argument('<file>', 'JSON snapshot of the pools')
    .option('--height <H>', 'block height the pools are the state after (needed when the file records none)')
    .option('--dex <D>', 'the DEX whose pools these are (default: the only one that reads snapshot files, AmmA)'),
  commonSettings,
).action(async (file: string, opts: { height?: string; dex?: string }, command: Command) => {
  const { poolsImport } = await import('./pools.ts');
  await poolsImport(configOf(command, commonSettings), { file, height: opts.height, dex: opts.dex });
});

withSettings(
  program
    .command('bootstrap')
    .description('read every DEX\'s state and its tokens\' metadata at one block from a NEAR JSON-RPC node into an empty database; then `dexlake index` follows from the next block')
    .requiredOption('--rpc <URL>', 'NEAR JSON-RPC endpoint (an archival node for an old --height)')
    .option('--height <H>', 'the block to read at (default: the latest final block)'),
  commonSettings,
).action(async (opts: { rpc: string; height?: string }, command: Command) => {
  const { bootstrapCommand } = await import('./bootstrap.ts');
  await bootstrapCommand(configOf(command, commonSettings), opts);
});

withSettings(
  program
    .command('undecoded')
    .description('what the decoders could not read: totals per DEX and kind, then the newest inputs kept with their raw text')
    .option('--dex <D>', 'only this DEX id (e.g. AmmA) or core standard (NEP-141, NEP-145, NEP-297)')
    .option('--limit <N>', 'inputs to list, newest first (1 to 1000, default 20)')
    .option('--json', 'one JSON object per input, no totals'),
  commonSettings,
).action(async (opts: { dex?: string; limit?: string; json?: boolean }, command: Command) => {
  const { undecodedCommand } = await import('./undecoded.ts');
  await undecodedCommand(configOf(command, commonSettings), opts);
});

const devnetNames: SettingName[] = ['devnetSeed', 'devnetGenesis'];
const devnet = program.command('devnet').description("the local seeded chain (the realnet: the contracts' own wasm, and models of the closed ones)");
withSettings(
  devnet
    .command('export')
    .description("write the realnet's first N blocks as Lake-layout folders that --source files:DIR reads back")
    .requiredOption('--blocks <N>', 'number of blocks, from genesis')
    .requiredOption('--out <DIR>', 'folder to write (created if missing)')
    .option('--release <RELEASE>', "Ref's exchange release the chain runs (default the newest vendored)"),
  devnetNames,
).action(async (opts: { blocks: string; out: string; release?: string }, command: Command) => {
  const { devnetExport } = await import('./devnet.ts');
  await devnetExport(configOf(command, devnetNames), opts);
});

const devnetRpcNames: SettingName[] = ['devnetSeed', 'devnetGenesis', 'host'];
withSettings(
  devnet
    .command('rpc')
    .description("serve NEAR JSON-RPC for the realnet's first N blocks (status, block, query call_function and view_state at any of them) until stopped")
    .requiredOption('--port <P>', 'port to listen on (0: any free one)')
    .requiredOption('--blocks <N>', 'blocks the chain has produced: heights 1..N are answered')
    .option('--release <RELEASE>', "Ref's exchange release the chain runs (default the newest vendored)"),
  devnetRpcNames,
  { host: 'Address the JSON-RPC listens on' },
).action(async (opts: { port: string; blocks: string; release?: string }, command: Command) => {
  const { devnetRpc } = await import('./devnet.ts');
  await devnetRpc(configOf(command, devnetRpcNames), opts);
});

try {
  await program.parseAsync(process.argv);
  process.exit(0);
} catch (err) {
  const message = err instanceof ConfigError ? err.message : ((err as Error).message ?? String(err));
  const code = err instanceof ConfigError ? 2 : 1;
  // A child of `dexlake start` hands the line to it, which says it as its own and exits with the same code.
  if (process.send && process.connected) process.send({ type: 'fatal', message, code }, () => process.exit(code));
  else {
    process.stderr.write(`dexlake: ${message}\n`);
    process.exit(code);
  }
}
