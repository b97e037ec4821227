/**
 * The demo parts of `solgate serve --demo` (`npm start`): where the demo chain is saved, the demo's kept API key, the
 * Sender tip accounts funded on the demo chain, and the banner of example calls.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { redactDatabaseUrl } from '../store/db.js';
import { createApiKey, findApiKey } from '../store/keys.js';
import type { Runtime } from './runtime.js';
import type { DemoChain } from './demo-chain.js';
import { DEMO_SNAPSHOT_DIR } from './demo-paths.js';

/** Airdrops 1 SOL to each tip account that has no lamports on the demo chain. */
export async function fundTipAccounts(url: string, accounts: readonly string[]): Promise<void> {
  const call = async (method: string, params: unknown[]) => {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const body = (await r.json()) as { result?: { value?: number }; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
  for (const a of accounts) if (!(await call('getBalance', [a]))?.value) await call('requestAirdrop', [a, 1_000_000_000]);
}


/**
 * Where the demo chain is saved: one directory per database, so the embedded demo and a PostgreSQL demo (or two
 * PostgreSQL databases) sharing SOLGATE_DATA_DIR never overwrite each other's chain.
 */
export function demoSnapshotDir(dataDir: string, databaseUrl: string | undefined): string {
  if (!databaseUrl) return join(dataDir, DEMO_SNAPSHOT_DIR);
  const id = createHash('sha256').update(redactDatabaseUrl(databaseUrl)).digest('hex').slice(0, 12);
  return join(dataDir, `${DEMO_SNAPSHOT_DIR}-pg-${id}`);
}

/**
 * The demo's API key: made once and kept (mode 0600) beside the demo chain, so every start prints the same working
 * key instead of adding another. A kept key that no longer works (revoked, expired, another database) is replaced.
 */
async function demoApiKey(rt: Runtime): Promise<string> {
  const dir = demoSnapshotDir(rt.config.dataDir, rt.config.databaseUrl);
  const file = join(dir, '..', `${dir.split('/').pop()}.api-key`);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    const rec = kept ? await findApiKey(rt.db, kept) : null;
    if (rec && !rec.revokedAt && (!rec.expiresAt || rec.expiresAt > new Date())) return kept;
  } catch {
    // No key kept yet.
  }
  const { key } = await createApiKey(rt.db, { name: 'demo' });
  mkdirSync(rt.config.dataDir, { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return key;
}

export async function printDemoBanner(rt: Runtime, demo: DemoChain, port: number, adminToken: string | undefined): Promise<void> {
  const key = await demoApiKey(rt);
  const base = `http://localhost:${port}`;
  const w = demo.wallets[0];
  const database = rt.config.databaseUrl
    ? `PostgreSQL at ${redactDatabaseUrl(rt.config.databaseUrl)}`
    : `the embedded database (PGlite) in ${resolvePath(rt.config.dataDir)}`;
  const lines = [
    '',
    `  solgate is running on ${database}, indexing the built-in localnet with demo activity.`,
    `  Localnet JSON-RPC: ${demo.url}`,
    `  API key (the demo's, kept across restarts): ${key}`,
    '',
    '  Try:',
    `    curl -H "X-Api-Key: ${key}" ${base}/v1/wallet/${w}/balances`,
    `    curl -H "X-Api-Key: ${key}" "${base}/v1/wallet/${w}/history?limit=5"`,
    `    curl -H "X-Api-Key: ${key}" "${base}/v1/wallet/${w}/transfers?limit=5"`,
    `    curl -H "X-Api-Key: ${key}" ${base}/v1/wallet/${w}/funded-by`,
    `    curl -H "X-Api-Key: ${key}" ${base}/v1/wallet/${demo.faucet}/identity`,
    ...(demo.assets
      ? [
        '',
        '  DAS (JSON-RPC on the same URL; the demo NFTs are Token-2022 mints, listed with showFungible):',
        `    curl -H "X-Api-Key: ${key}" -H 'content-type: application/json' ${base}/ \\`,
        `         -d '{"jsonrpc":"2.0","id":1,"method":"getAsset","params":{"id":"${demo.assets.nft}"}}'`,
        `    curl -H "X-Api-Key: ${key}" -H 'content-type: application/json' ${base}/ \\`,
        `         -d '{"jsonrpc":"2.0","id":1,"method":"getAssetsByOwner","params":{"ownerAddress":"${demo.assets.owner}","displayOptions":{"showFungible":true}}}'`,
      ]
      : []),
    ...(demo.light
      ? [
        '',
        '  ZK Compression (Photon JSON-RPC at the same URL; every demo wallet holds compressed SOL and tokens):',
        `    curl -H "X-Api-Key: ${key}" -H 'content-type: application/json' ${base}/ \\`,
        `         -d '{"jsonrpc":"2.0","id":1,"method":"getCompressedTokenBalancesByOwnerV2","params":{"owner":"${w}"}}'`,
      ]
      : []),
    '',
    '  Standard Solana JSON-RPC and WebSocket subscriptions on the same URL (point @solana/kit or web3.js at it):',
    `    curl -H "X-Api-Key: ${key}" -H 'content-type: application/json' ${base}/ -d '{"jsonrpc":"2.0","id":1,"method":"getBalance","params":["${w}"]}'`,
    `    WebSocket: ${base.replace(/^http/, 'ws')}/?api-key=${key}`,
    '',
    `  API reference:  ${base}/docs   (OpenAPI: /docs/openapi.json, OpenRPC: /docs/openrpc.json)`,
    adminToken
      ? `  Dashboard:      ${base}/dashboard   admin token: ${rt.config.adminToken ? 'SOLGATE_ADMIN_TOKEN' : `${adminToken} (made for this run; set SOLGATE_ADMIN_TOKEN to keep one)`}`
      : `  Dashboard:      ${base}/dashboard   (set SOLGATE_ADMIN_TOKEN to enable it)`,
    `  Metrics:        ${base}/metrics    Health: ${base}/health, ${base}/ready`,
    `  CLI while this runs: npx solgate keys list | keys create --name NAME (acts through this server)`,
    '',
    `  Demo wallets: ${demo.wallets.join(' ')}`,
    '  Ctrl-C stops and saves the demo chain; a second Ctrl-C exits at once without saving it.',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
