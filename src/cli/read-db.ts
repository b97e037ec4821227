/**
 * DATABASE_READ_URL: a PostgreSQL streaming replica of DATABASE_URL that an API-only `serve` reads the index from
 * (docs/operations.md "Several API machines on replicas"). Opened without migrations (a hot standby is read-only; the
 * primary's migrations reach it by replication) and checked to answer at start; reads cancelled by a conflict with
 * recovery are tried again.
 */
import type { Config } from '../config/index.js';
import { StartupError } from '../core/errors.js';
import { describeConnectError, openDb, type Db } from '../store/db.js';
import { retryRecoveryConflicts } from '../store/replica-conflicts.js';
import { UsageError } from './usage-error.js';

/** The replica's handle, or undefined without DATABASE_READ_URL. `ingests`: this process would ingest. */
export async function openReadDb(config: Config, ingests: boolean): Promise<Db | undefined> {
  const url = config.databaseReadUrl;
  if (!url) return undefined;
  if (!config.databaseUrl) throw new UsageError('DATABASE_READ_URL needs DATABASE_URL too (the primary the replica follows, where keys, usage and webhooks are written)');
  if (ingests)
    throw new UsageError(
      'DATABASE_READ_URL is for API-only `serve` processes: unset SOLANA_RPC_URL (set SOLGATE_RPC_UPSTREAM_URL to forward the standard methods) and run the ingester (`solgate ingest`) on DATABASE_URL',
    );
  const db = await openDb({ databaseUrl: url, poolSize: config.databasePoolSize });
  try {
    await db.query('SELECT slot FROM ingest_checkpoint LIMIT 1');
  } catch (err) {
    await db.close().catch(() => {});
    const line = describeConnectError(err, url);
    throw new StartupError(
      `DATABASE_READ_URL: ${line ?? `the replica cannot be read (${err instanceof Error ? err.message : String(err)}): is it a replica of DATABASE_URL, with its migrations applied?`}`,
      { cause: err },
    );
  }
  // Reads the replay cancels (a conflict with recovery) are tried again (src/store/replica-conflicts.ts).
  return retryRecoveryConflicts(db);
}
