/**
 * The DAS benchmark's server (child process; bench/lib/bench-server.ts): the gateway, or the ceiling answering one
 * indexed PostgreSQL query per request: das_assets by primary key (`/`), or an owner's page of up to 100 rows with
 * their stored documents (`/list`, the rows getAssetsByOwner's page reads, in its order, by the same index).
 *
 *   argv: app|ceiling; env: BENCH_DATABASE_URL, BENCH_POOL_SIZE
 */
import { serveBench } from '../lib/bench-server.js';

await serveBench('das-server.ts', [
  {
    field: 'id',
    sql: 'SELECT id, interface, owner, delegate, frozen, supply::text, compressed, burnt, json_uri, name, updated_slot FROM das_assets WHERE id = $1',
  },
  {
    path: '/list',
    rows: 'all',
    field: 'owner',
    sql: `SELECT id, doc FROM das_assets WHERE owner = $1 AND owner_type = 'single' AND supply > 0 AND NOT burnt
           ORDER BY id_key DESC LIMIT 100`,
  },
]);
