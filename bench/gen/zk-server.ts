/**
 * The ZK benchmark's server (child process; bench/lib/bench-server.ts): the gateway, or the ceiling answering one
 * indexed PostgreSQL query per request (zk_accounts by primary key, the base58 hash decoded).
 *
 *   argv: app|ceiling; env: BENCH_DATABASE_URL, BENCH_POOL_SIZE
 */
import { base58ToBytes } from '../../src/core/encoding.js';
import { serveBench } from '../lib/bench-server.js';

await serveBench('zk-server.ts', {
  field: 'hash',
  sql: `SELECT encode(hash, 'base64') AS hash, encode(owner, 'base64') AS owner, lamports::text, encode(tree, 'base64') AS tree, leaf_index, spent
         FROM zk_accounts WHERE hash = $1`,
  param: (hash) => Buffer.from(base58ToBytes(hash)),
});
