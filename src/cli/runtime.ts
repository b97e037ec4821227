/** Composition helpers shared by CLI commands: config, logger, database (migrated), registries. */
import pino, { type Logger } from 'pino';
import { existsSync } from 'node:fs';
import { loadConfig, type Config } from '../config/index.js';
import { describeConnectError, openDb, type Db } from '../store/db.js';
import { StartupError } from '../core/errors.js';
import { migrate } from '../store/migrate.js';
import { countIdentities, upsertIdentities } from '../store/identities.js';
import { readIdentityFile } from '../identity/import-file.js';

export interface Runtime {
  config: Config;
  logger: Logger;
  db: Db;
}

/**
 * The process's logger: JSON lines. Services (serve, ingest, worker, sender, localnet) log to standard output, as a
 * service under a supervisor does; one-shot commands (keys, identities, migrate, replay) log to standard error, so
 * their standard output is only what they print for the user (`--json` documents) and can be piped.
 */
export function makeLogger(level: string, to: 'stdout' | 'stderr' = 'stdout'): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ dest: to === 'stdout' ? 1 : 2, sync: true }));
}

/** Opens the configured database and applies pending migrations. */
export async function openRuntime(opts: { migrate?: boolean; logTo?: 'stdout' | 'stderr' } = {}): Promise<Runtime> {
  const config = loadConfig();
  const logger = makeLogger(config.logLevel, opts.logTo);
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize });
  try {
    // PostgreSQL connects lazily: a server that is down or a database that does not exist is told here, in one line.
    if (config.databaseUrl) await db.query('SELECT 1');
    if (opts.migrate !== false) {
      const applied = await migrate(db);
      if (applied.length) logger.info({ applied }, 'migrations applied');
    }
  } catch (err) {
    await db.close().catch(() => {});
    const line = config.databaseUrl ? describeConnectError(err, config.databaseUrl) : null;
    throw line ? new StartupError(line, { cause: err }) : err;
  }
  return { config, logger, db };
}

/** Loads the default known-entity registry into an empty identities table. */
export async function seedIdentities(rt: Runtime): Promise<void> {
  if ((await countIdentities(rt.db)) > 0 || !existsSync(rt.config.identitiesFile)) return;
  const { identities, errors } = readIdentityFile(rt.config.identitiesFile);
  await upsertIdentities(rt.db, identities);
  rt.logger.info({ file: rt.config.identitiesFile, loaded: identities.length, rejected: errors.length }, 'identities: default registry loaded');
}
