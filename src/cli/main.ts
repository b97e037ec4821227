/**
 * The `solgate` command. Subcommands: serve, ingest, replay, worker, sender, migrate, keys, identities, localnet, config.
 * Run `solgate help` for usage.
 */
import { parseArgs } from 'node:util';
import { ENV_VARS } from '../config/index.js';
import { ConfigError } from '../config/index.js';
import { openRuntime } from './runtime.js';
import { migrate } from '../store/migrate.js';
import { runServe } from './serve.js';
import { runIngest, runReplay } from './ingest.js';
import { runKeys } from './keys.js';
import { runIdentities } from './identities.js';
import { runLocalnet } from './localnet.js';
import { runWorker } from './worker.js';
import { runSender } from './sender.js';
import { UsageError } from './usage-error.js';

const USAGE = `solgate — Solana data and wallet gateway

Usage:
  solgate serve [--demo]                 Run the HTTP gateway (and ingestion when SOLANA_RPC_URL is set;
                                         --demo runs the built-in localnet with demo activity when it is not)
  solgate ingest --rpc URL [--from-slot N]   Index a cluster into the database (no HTTP server)
  solgate replay [--light-trees FILE] [--slot N] PATH...
                                         Ingest recorded files (getTransaction/getBlock JSON, Geyser-style
                                         records, account snapshots) in the given order, then exit;
                                         --light-trees pre-loads Light tree metadata (Photon fixture format),
                                         --slot indexes every recorded transaction at slot N
  solgate worker                         Deliver webhook events only (no HTTP server, no ingestion); run as many
                                         as needed beside serve/ingest (SOLGATE_WEBHOOK_CONCURRENCY each)
  solgate sender                         Run only the Sender interface (POST /fast, GET /ping) on SOLGATE_SENDER_PORT
  solgate migrate                        Apply database migrations
  solgate keys create --name N [--allow-ip CIDR]... [--plan P] [--expires ISO] [--json]
  solgate keys list [--json]
  solgate keys revoke ID | keys rotate ID [--json]
  solgate identities import FILE         Load known entities (CSV address,name,type,category[,tags] or JSON)
  solgate localnet [--port P] [--demo]   Run only the built-in local chain (JSON-RPC)
  solgate config                         Print every environment variable with its default

Configuration comes from environment variables (see \`solgate config\` or the README).`;

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case 'serve': {
      const { values } = parseArgs({ args: rest, options: { demo: { type: 'boolean', default: false } } });
      return runServe({ demo: values.demo ?? false });
    }
    case 'ingest': {
      const { values } = parseArgs({ args: rest, options: { rpc: { type: 'string' }, 'from-slot': { type: 'string' } } });
      const from = values['from-slot'];
      if (from !== undefined && !/^\d+$/.test(from)) throw new UsageError('--from-slot must be a slot number');
      return runIngest({ rpc: values.rpc, fromSlot: from === undefined ? undefined : Number(from) });
    }
    case 'replay': {
      const { positionals, values } = parseArgs({ args: rest, allowPositionals: true, options: { 'light-trees': { type: 'string' }, slot: { type: 'string' } } });
      if (!positionals.length) throw new UsageError('replay needs at least one file or directory');
      const slot = values.slot;
      if (slot !== undefined && !/^\d+$/.test(slot)) throw new UsageError('--slot must be a slot number');
      return runReplay(positionals, { lightTrees: values['light-trees'], slot: slot === undefined ? undefined : Number(slot) });
    }
    case 'worker':
      return runWorker();
    case 'sender':
      return runSender();
    case 'migrate': {
      const rt = await openRuntime({ migrate: false });
      try {
        const applied = await migrate(rt.db);
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      } finally {
        await rt.db.close();
      }
      return 0;
    }
    case 'keys':
      return runKeys(rest);
    case 'identities':
      return runIdentities(rest);
    case 'localnet': {
      const { values } = parseArgs({ args: rest, options: { port: { type: 'string' }, demo: { type: 'boolean', default: false } } });
      return runLocalnet({ port: values.port === undefined ? undefined : Number(values.port), demo: values.demo ?? false });
    }
    case 'config':
      for (const v of ENV_VARS) console.log(`${v.name}=${v.default ?? ''}\t# ${v.description}`);
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return cmd === undefined ? 1 : 0;
    default:
      throw new UsageError(`unknown command '${cmd}'`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined && code !== -1) process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof UsageError || e instanceof ConfigError || (e as { code?: string }).code?.startsWith?.('ERR_PARSE_ARGS')) {
      console.error(`solgate: ${(e as Error).message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else {
      console.error('solgate:', e instanceof Error ? (e.stack ?? e.message) : e);
      process.exitCode = 1;
    }
  },
);
