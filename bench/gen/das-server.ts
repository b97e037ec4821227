/**
 * The DAS benchmark's server (child process; bench/lib/bench-server.ts): the gateway, or the ceiling answering one
 * indexed PostgreSQL query per request (das_assets by primary key).
 *
 *   argv: app|ceiling; env: BENCH_DATABASE_URL, BENCH_POOL_SIZE
 */
import { serveBench } from '../lib/bench-server.js';

await serveBench('das-server.ts', {
  field: 'id',
  sql: 'SELECT id, interface, owner, delegate, frozen, supply::text, compressed, burnt, json_uri, name, updated_slot FROM das_assets WHERE id = $1',
});
