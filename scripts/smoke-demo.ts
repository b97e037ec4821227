/**
 * CI smoke run of the embedded default: `npm start` on a fresh data directory must print an API key and
 * example calls that return real data within seconds (the Wallet REST calls, the banner's DAS calls on the demo's
 * Token-2022 NFTs and its ZK Compression JSON-RPC call, answered from the demo's compressed activity), and stop
 * cleanly on SIGINT.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dataDir = mkdtempSync(join(tmpdir(), 'solgate-smoke-'));
const port = 18_000 + Math.floor(Math.random() * 2000);
// Run the `start` script's command itself (not through npm, which reports a signal instead of our exit code).
const startCmd = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start;
const child = spawn('sh', ['-c', `exec ${startCmd}`], {
  env: { ...process.env, PATH: `${join(process.cwd(), 'node_modules', '.bin')}:${process.env.PATH}`, DATABASE_URL: '', SOLANA_RPC_URL: '', SOLGATE_DATA_DIR: dataDir, PORT: String(port), SOLGATE_LOCALNET_PORT: '0', LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'inherit'],
  detached: true,
});
let out = '';
child.stdout.on('data', (d: Buffer) => {
  out += d.toString();
  process.stdout.write(d);
});

function fail(msg: string): never {
  console.error(`smoke: FAILED: ${msg}`);
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {}
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(1);
}

async function waitFor<T>(what: string, f: () => Promise<T | null> | T | null, ms: number): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = await f();
    if (v !== null && v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
  return fail(`timed out waiting for ${what}`);
}

const key = await waitFor('the API key banner', () => /API key \(the demo's, kept across restarts\): (\S+)/.exec(out)?.[1] ?? null, 90_000);
const wallet = await waitFor('the demo wallets', () => /Demo wallets: (\S+)/.exec(out)?.[1] ?? null, 10_000);
const call = async (path: string) => {
  const r = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'x-api-key': key } });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
};

const history = await waitFor('indexed history of a demo wallet', async () => {
  const r = await call(`/v1/wallet/${wallet}/history?limit=5`);
  if (r.status !== 200) fail(`history answered ${r.status}: ${JSON.stringify(r.body)}`);
  return (r.body.data as unknown[]).length > 0 ? r.body : null;
}, 30_000);
const balances = await call(`/v1/wallet/${wallet}/balances`);
if (balances.status !== 200 || !(balances.body.balances as { balance: number }[])[0]?.balance) fail(`balances: ${JSON.stringify(balances.body)}`);
const transfers = await call(`/v1/wallet/${wallet}/transfers`);
if (transfers.status !== 200) fail(`transfers answered ${transfers.status}`);
const funded = await call(`/v1/wallet/${wallet}/funded-by`);
if (funded.status !== 200 || typeof funded.body.funder !== 'string') fail(`funded-by: ${JSON.stringify(funded.body)}`);
// The banner's ZK Compression call, sent as printed: the demo wallet's compressed token balance must be indexed.
const zkBody = await waitFor('the ZK Compression example call', () => /-d '(\{"jsonrpc":"2\.0".*getCompressedTokenBalancesByOwnerV2.*\})'/.exec(out)?.[1] ?? null, 10_000);
// The banner's DAS calls, sent as printed: the demo NFT is found by id and the owner's assets are listed.
const rpc = async (body: string) => {
  const r = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body });
  return { status: r.status, body: (await r.json()) as { result?: Record<string, unknown>; error?: unknown } };
};
const assetBody = await waitFor('the DAS getAsset example call', () => /-d '(\{"jsonrpc":"2\.0".*"getAsset".*\})'/.exec(out)?.[1] ?? null, 10_000);
const asset = await waitFor('the demo NFT indexed by DAS', async () => {
  const r = await rpc(assetBody);
  return r.status === 200 && r.body.result ? r.body.result : null;
}, 30_000);
const ownedBody = await waitFor('the DAS getAssetsByOwner example call', () => /-d '(\{"jsonrpc":"2\.0".*"getAssetsByOwner".*\})'/.exec(out)?.[1] ?? null, 10_000);
const owned = await rpc(ownedBody);
if (owned.status !== 200 || !((owned.body.result?.total as number) > 0)) fail(`getAssetsByOwner as printed: ${JSON.stringify(owned.body).slice(0, 300)}`);
const zk = await waitFor('indexed compressed token balances of a demo wallet', async () => {
  const r = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: zkBody });
  const body = (await r.json()) as { result?: { value: { items: { mint: string; balance: number | string }[] } }; error?: unknown };
  if (r.status !== 200 || body.error) fail(`${zkBody} answered ${r.status}: ${JSON.stringify(body)}`);
  const items = body.result!.value.items;
  return items.length > 0 && BigInt(items[0].balance) > 0n ? items : null;
}, 30_000);
// Sender on the demo chain: /ping answers, and a transaction that cannot be decoded is refused in its format.
const ping = await fetch(`http://127.0.0.1:${port}/ping`);
if (ping.status !== 200 || (await ping.text()) !== 'ok') fail(`/ping answered ${ping.status}`);
const bad = await fetch(`http://127.0.0.1:${port}/fast`, {
  method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: ['AAAA', { encoding: 'base64', skipPreflight: true }] }),
});
const badBody = (await bad.json()) as { error?: { code: number } };
if (bad.status !== 400 || badBody.error?.code !== -32602) fail(`/fast with garbage answered ${bad.status}: ${JSON.stringify(badBody)}`);
const noKey = await fetch(`http://127.0.0.1:${port}/v1/wallet/${wallet}/balances`);
if (noKey.status !== 401) fail(`no key answered ${noKey.status}`);
console.log(`smoke: ok — ${(history.data as unknown[]).length} history rows, balances, transfers and funded-by answered with real data; compressed token balance ${zk[0].balance} of ${zk[0].mint}; DAS getAsset "${(asset.content as { metadata: { name: string } }).metadata.name}", getAssetsByOwner total ${owned.body.result!.total as number}; Sender /ping and /fast answered`);

process.kill(child.pid!, 'SIGINT');
const code = await new Promise<number | null>((resolve) => {
  const t = setTimeout(() => resolve(-1), 20_000);
  child.on('exit', (c) => {
    clearTimeout(t);
    resolve(c);
  });
});
rmSync(dataDir, { recursive: true, force: true });
if (code !== 0) fail(`npm start did not stop cleanly on SIGINT (exit ${code})`);
console.log('smoke: stopped cleanly');
