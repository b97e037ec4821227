/**
 * `solgate migrate`: applies pending migrations. While a server owns the embedded data directory there is nothing to
 * do: it applied them when it started (and opening the directory a second time is what the lock prevents).
 */
import { loadConfig } from '../config/index.js';
import { runningServer } from './admin-client.js';

export async function runMigrate(): Promise<number> {
  const server = await runningServer(loadConfig());
  if (server) {
    console.log(`database is up to date (the running server, ${server.owner}, applied the migrations when it started)`);
    return 0;
  }
  const [{ openRuntime }, { migrate }] = await Promise.all([import('./runtime.js'), import('../store/migrate.js')]);
  const rt = await openRuntime({ migrate: false, logTo: 'stderr' });
  try {
    const applied = await migrate(rt.db);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  } finally {
    await rt.db.close();
  }
  return 0;
}
