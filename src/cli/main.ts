/**
 * The `solgate` command. Subcommands: serve, ingest, backfill, replay, worker, sender, migrate, keys, identities, track, zk-rebuild, localnet, config.
 * Run `solgate help` for usage.
 *
 * Each subcommand's module is imported when it runs, so `solgate --help` or `solgate config` loads none of the heavy
 * ones (the database driver, the SVM, Fastify, the parsers). Failures print one line (`solgate: …`; the stack trace
 * at LOG_LEVEL=debug); command-line mistakes print the usage line of the command concerned and exit 2.
 */
// First: the compile cache then covers every module loaded after this one.
import '../config/compile-cache.js';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ENV_VARS, ConfigError, logLevelOf } from '../config/index.js';
import { StartupError } from '../core/errors.js';
import { UsageError } from './usage-error.js';

/** Usage lines per command (the first word after `solgate`), each with its description. */
const COMMANDS: [cmd: string, line: string, description: string][] = [
  ['serve', 'solgate serve [--demo]', 'Run the HTTP gateway (and ingestion when SOLANA_RPC_URL is set; --demo runs the built-in localnet with demo activity when it is not)'],
  ['ingest', 'solgate ingest [--rpc URL] [--from-slot N]', 'Index a cluster (--rpc or SOLANA_RPC_URL) into the database (no HTTP server)'],
  ['backfill', 'solgate backfill --from-slot A --to-slot B [--rpc URL] [--concurrency N]', 'Write every block of a slot range of the past (e.g. from an archival RPC) beside live ingestion; resumable'],
  ['replay', 'solgate replay [--light-trees FILE] [--slot N] PATH...', 'Ingest recorded files (getTransaction/getBlock JSON, Geyser-style records, account snapshots) in the given order, then exit; --light-trees pre-loads Light tree metadata (Photon fixture format), --slot indexes every recorded transaction at slot N'],
  ['zk-rebuild', 'solgate zk-rebuild [--rpc URL]', 'Rebuild the ZK Compression trees\' state from the cluster (the repair for a tree the drift detector reports); stop ingestion first'],
  ['worker', 'solgate worker', 'Deliver webhook events only (no HTTP server, no ingestion); run as many as needed beside serve/ingest'],
  ['sender', 'solgate sender', 'Run only the Sender interface (POST /fast, GET /ping) on SOLGATE_SENDER_PORT'],
  ['migrate', 'solgate migrate', 'Apply database migrations'],
  ['keys', 'solgate keys create --name N [--allow-ip CIDR]... [--plan P] [--expires ISO-DATE] [--json]', 'Create an API key (shown once)'],
  ['keys', 'solgate keys list [--json]', 'List API keys (never their secrets)'],
  ['keys', 'solgate keys revoke ID', 'Revoke a key at once'],
  ['keys', 'solgate keys rotate ID [--json]', 'Replace a key\'s secret (the old one stops working at once)'],
  ['identities', 'solgate identities import FILE', 'Load known entities (CSV address,name,type,category[,tags], or a JSON array)'],
  ['track', 'solgate track [--collection|--creator|--authority] ADDRESS... | --file FILE', 'Put addresses on the watch list: their state and history (or, with a flag, the assets of a collection, creator or authority) are read from the cluster ahead of their first request'],
  ['localnet', 'solgate localnet [--port P] [--demo]', 'Run only the built-in local chain (JSON-RPC)'],
  ['config', 'solgate config [--json]', 'Print every environment variable with its default'],
];

const USAGE = `solgate — Solana data and wallet gateway

Usage:
${COMMANDS.map(([, line, d]) => `  ${line}\n      ${d}`).join('\n')}

While \`solgate serve\` runs on an embedded database (no DATABASE_URL), keys, identities and track commands act through it.
Configuration comes from environment variables (\`solgate config\`; docs/configuration.md).`;

/** The usage lines of `cmd` (of its subcommand `sub` when there is one). */
function usageOf(cmd: string | undefined, sub: string | undefined): string {
  const all = COMMANDS.filter(([c]) => c === cmd);
  const one = all.filter(([, line]) => sub && line.startsWith(`solgate ${cmd} ${sub}`));
  const lines = (one.length ? one : all).map(([, line]) => `  ${line}`);
  return lines.length ? `usage:\n${lines.join('\n')}` : 'usage: solgate COMMAND … (solgate --help lists the commands)';
}

/** parseArgs's messages, first sentence only ("Unknown option '--x'"). */
function parseArgsOf<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (e) {
    throw new UsageError((e as Error).message.split('. ')[0]);
  }
}

const slotArg = (name: string, v: string | undefined) => {
  if (v !== undefined && !/^\d+$/.test(v)) throw new UsageError(`${name} must be a slot number, got "${v}"`);
  return v === undefined ? undefined : Number(v);
};

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(usageOf(cmd, rest[0]));
    return 0;
  }
  switch (cmd) {
    case 'serve': {
      const { values } = parseArgsOf({ args: rest, options: { demo: { type: 'boolean', default: false } } });
      return (await import('./serve.js')).runServe({ demo: values.demo ?? false });
    }
    case 'ingest': {
      const { values } = parseArgsOf({ args: rest, options: { rpc: { type: 'string' }, 'from-slot': { type: 'string' } } });
      const fromSlot = slotArg('--from-slot', values['from-slot']);
      return (await import('./ingest.js')).runIngest({ rpc: values.rpc, fromSlot });
    }
    case 'backfill': {
      const { values } = parseArgsOf({ args: rest, options: { 'from-slot': { type: 'string' }, 'to-slot': { type: 'string' }, rpc: { type: 'string' }, concurrency: { type: 'string' } } });
      const fromSlot = slotArg('--from-slot', values['from-slot']);
      const toSlot = slotArg('--to-slot', values['to-slot']);
      if (fromSlot === undefined || toSlot === undefined) throw new UsageError('backfill needs --from-slot and --to-slot');
      const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
      if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 256)) throw new UsageError(`--concurrency must be an integer from 1 to 256, got "${values.concurrency}"`);
      return (await import('./backfill.js')).runBackfill({ fromSlot, toSlot, rpc: values.rpc, concurrency });
    }
    case 'replay': {
      const { positionals, values } = parseArgsOf({ args: rest, allowPositionals: true, options: { 'light-trees': { type: 'string' }, slot: { type: 'string' } } });
      if (!positionals.length) throw new UsageError('replay needs at least one file or directory');
      const slot = slotArg('--slot', values.slot);
      // The decoding workers start on the first batch's files now (8: replayInto's default batch, src/ingest/replay.ts),
      // while this thread loads the ingester.
      const { replayDecodeWorkers, startReplayDecoding } = await import('../sources/replay-decode-pool.js');
      const decodePool = await startReplayDecoding(positionals, replayDecodeWorkers(), 8);
      return (await import('./replay.js')).runReplay(positionals, { lightTrees: values['light-trees'], slot, decodePool });
    }
    case 'zk-rebuild': {
      const { values } = parseArgsOf({ args: rest, options: { rpc: { type: 'string' } } });
      return (await import('./zk-rebuild.js')).runZkRebuild({ rpc: values.rpc });
    }
    case 'worker':
      parseArgsOf({ args: rest, options: {} });
      return (await import('./worker.js')).runWorker();
    case 'sender':
      parseArgsOf({ args: rest, options: {} });
      return (await import('./sender.js')).runSender();
    case 'migrate': {
      parseArgsOf({ args: rest, options: {} });
      return (await import('./migrate.js')).runMigrate();
    }
    case 'keys':
      return (await import('./keys.js')).runKeys(rest);
    case 'identities':
      return (await import('./identities.js')).runIdentities(rest);
    case 'track':
      return (await import('./track.js')).runTrack(rest);
    case 'localnet': {
      const { values } = parseArgsOf({ args: rest, options: { port: { type: 'string' }, demo: { type: 'boolean', default: false } } });
      if (values.port !== undefined && !/^\d+$/.test(values.port)) throw new UsageError(`--port must be a port number, got "${values.port}"`);
      return (await import('./localnet.js')).runLocalnet({ port: values.port === undefined ? undefined : Number(values.port), demo: values.demo ?? false });
    }
    case 'config': {
      const { values } = parseArgsOf({ args: rest, options: { json: { type: 'boolean', default: false } } });
      if (values.json) console.log(JSON.stringify(ENV_VARS.map((v) => ({ name: v.name, default: v.default ?? null, description: v.description }))));
      else for (const v of ENV_VARS) console.log(`${v.name}=${v.default ?? ''}\t# ${v.description}`);
      return 0;
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      if (cmd === undefined) {
        console.error(USAGE);
        return 2;
      }
      console.log(USAGE);
      return 0;
    default:
      throw new UsageError(`unknown command '${cmd}' (solgate --help lists the commands)`);
  }
}

const argv = process.argv.slice(2);
const debug = /^(debug|trace)$/.test(logLevelOf());
main(argv).then(
  (code) => {
    if (code !== undefined && code !== -1) process.exitCode = code;
  },
  (e: unknown) => {
    const err = e as Error;
    if (e instanceof UsageError) {
      console.error(`solgate: ${err.message}\n${e.usage ? `usage:\n  ${e.usage}` : usageOf(argv[0], argv[1])}`);
      process.exit(2);
    }
    const known = e instanceof StartupError || e instanceof ConfigError || err?.name === 'AdminCallError';
    // One line: the message (it names the cause and the fix); the stack only when asked for.
    const line = known || !(e instanceof Error) ? String(err?.message ?? e) : `${err.message || err.name}`;
    console.error(`solgate: ${line.split('\n')[0]}`);
    if (debug && e instanceof Error) console.error(e.stack);
    else if (!known) console.error('solgate: (LOG_LEVEL=debug prints the stack trace)');
    // Exit now: a failed start must not leave timers, sockets or a local chain keeping the process alive.
    process.exit(e instanceof ConfigError ? 2 : 1);
  },
);
