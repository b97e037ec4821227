/** Composition helpers shared by CLI commands: config, logger, database (migrated), registries. */
import pino, { type Logger } from 'pino';
import { existsSync } from 'node:fs';
import { loadConfig, type Config } from '../config/index.js';
import { openDb, type Db } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { countIdentities, upsertIdentities } from '../store/identities.js';
import { readIdentityFile } from '../identity/import-file.js';

export interface Runtime {
  config: Config;
  logger: Logger;
  db: Db;
}

export function makeLogger(level: string): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime });
}

/** Opens the configured database and applies pending migrations. */
export async function openRuntime(opts: { migrate?: boolean } = {}): Promise<Runtime> {
  const config = loadConfig();
  const logger = makeLogger(config.logLevel);
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize });
  if (opts.migrate !== false) {
    const applied = await migrate(db);
    if (applied.length) logger.info({ applied }, 'migrations applied');
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
