/**
 * End to end, an index that began after the cluster's history (issue #19's check), with real processes: a
 * `solgate localnet` runs the demo workload (SOL and token transfers, Token-2022 NFTs, ZK Compression in V1 and V2
 * trees) with no indexer; then two `solgate serve` processes index it — one from slot 0 (the reference), one from the
 * tip with the cluster RPC to read the past from — while the workload goes on. For every demo wallet the late index's
 * balances equal the chain's, and its history, transfers, funded-by, DAS and ZK Compression answers equal the
 * reference's, by content, each saying it is complete. Another late index is killed with SIGKILL right after a
 * wallet's history was asked for and restarted: the history is then whole, nothing twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoWorkload, type DemoWorkload } from '../../src/sources/localnet/index.js';
import { freePort } from '../helpers/net.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'solgate.js');
const dir = mkdtempSync(join(tmpdir(), 'solgate-late-index-'));
const children: ChildProcess[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Each process gets its own embedded database (the test's processes never share one). */
const env = (name: string, extra: Record<string, string> = {}) => ({
  ...process.env,
  DATABASE_URL: '',
  REDIS_URL: '',
  SOLGATE_DATA_DIR: join(dir, name),
  SOLGATE_ADMIN_TOKEN: '',
  SOLGATE_OFFCHAIN_FETCH: 'false',
  LOG_LEVEL: 'info',
  ...extra,
});

function start(name: string, args: string[], extra: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { env: env(name, extra), cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const p = { child, out: '' };
  child.stdout!.on('data', (d: Buffer) => (p.out += d));
  child.stderr!.on('data', (d: Buffer) => (p.out += d));
  return p;
}

async function until(what: string, ok: () => boolean | Promise<boolean>, output: () => string, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${output().slice(-3000)}`);
    await sleep(100);
  }
}

async function run(name: string, args: string[], extra: Record<string, string> = {}): Promise<string> {
  const p = start(name, args, extra);
  const code = await new Promise<number | null>((r) => p.child.once('exit', r));
  expect(code, p.out).toBe(0);
  return p.out;
}

async function rpcAt(url: string, method: string, params: unknown = [], key?: string): Promise<{ body: any; coverage: string | null }> {
  const r = await fetch(key ? `${url}/?api-key=${key}` : url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return { body: await r.json(), coverage: r.headers.get('x-solgate-coverage') };
}

interface Index {
  name: string;
  url: string;
  key: string;
  proc: ReturnType<typeof start>;
  port: number;
}

let chainUrl: string;
let demo: DemoWorkload;
let full: Index;
let late: Index;

async function serve(name: string, port: number, extra: Record<string, string>): Promise<ReturnType<typeof start>> {
  const p = start(name, ['serve'], { PORT: String(port), SOLANA_RPC_URL: chainUrl, ...extra });
  await until(`${name} listening`, () => p.out.includes('solgate: listening'), () => p.out);
  return p;
}

async function newIndex(name: string, extra: Record<string, string>): Promise<Index> {
  const out = await run(name, ['keys', 'create', '--name', name, '--json'], { LOG_LEVEL: 'warn' });
  const created = JSON.parse(out.split('\n').find((l) => l.startsWith('{"key"'))!) as { key: string };
  const port = await freePort();
  return { name, url: `http://127.0.0.1:${port}`, key: created.key, port, proc: await serve(name, port, extra) };
}

/**
 * Waits until the index has ingested the chain's newest block. The processed one, not the confirmed one: a transfer
 * the workload sent just before it stopped is in the processed block, and an index caught up only to the confirmed
 * tip would lack it while a hydration read a moment later has it.
 */
async function caughtUp(ix: Index): Promise<void> {
  const tip = (await rpcAt(chainUrl, 'getSlot', [{ commitment: 'processed' }])).body.result as number;
  await until(`${ix.name} at slot ${tip}`, async () => ((await rpcAt(ix.url, 'getIndexerSlot', [], ix.key)).body.result ?? -1) >= tip, () => ix.proc.out);
}

async function get(ix: Index, path: string): Promise<{ status: number; body: any; coverage: string | null }> {
  const r = await fetch(`${ix.url}${path}${path.includes('?') ? '&' : '?'}api-key=${ix.key}`);
  return { status: r.status, body: await r.json(), coverage: r.headers.get('x-solgate-coverage') };
}

beforeAll(async () => {
  const port = await freePort();
  const chain = start('chain', ['localnet', '--port', String(port)], { SOLGATE_LOCALNET_SLOT_MS: '100' });
  chainUrl = `http://127.0.0.1:${port}`;
  await until('the localnet', () => chain.out.includes('localnet JSON-RPC on'), () => chain.out);
  // The past: the workload runs with no indexer.
  demo = await startDemoWorkload(chainUrl, { intervalMs: 20, wallets: 3, failureRate: 0, light: true });
  await until('the workload\'s activity', () => demo.light!.stats.solTransfers + demo.light!.stats.tokenTransfers >= 3 && demo.stats.sent >= 60, () => chain.out, 180_000);

  full = await newIndex('full', { SOLGATE_START_SLOT: '0' });
  late = await newIndex('late', {});
  // Activity after the late index began: it sees it live.
  const sent = demo.stats.sent;
  await until('more activity', () => demo.stats.sent >= sent + 20, () => chain.out);
  await demo.stop();
  await caughtUp(full);
  await caughtUp(late);
}, 420_000);

afterAll(async () => {
  await demo?.stop().catch(() => {});
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('an index that began after the chain\'s history', () => {
  it('balances equal the chain\'s and the reference index\'s, and say they are complete', async () => {
    for (const w of demo.wallets) {
      const path = `/v1/wallet/${w}/balances?showZeroBalance=true&limit=100`;
      const [a, b] = [await get(full, path), await get(late, path)];
      expect(b.status, JSON.stringify(b.body)).toBe(200);
      expect(b.body, w).toEqual(a.body);
      expect(b.coverage).toMatch(/^complete; basis=hydrated; slot=\d+$/);
      const lamports = (await rpcAt(chainUrl, 'getBalance', [w])).body.result.value as number;
      expect(b.body.balances.find((x: { mint: string }) => x.mint === 'So11111111111111111111111111111111111111112')?.balance).toBe(lamports / 1e9);
    }
  });

  it('history, transfers and funded-by equal the reference\'s once the history is read', async () => {
    for (const w of demo.wallets) {
      for (const path of [`/v1/wallet/${w}/history?limit=100`, `/v1/wallet/${w}/transfers?limit=100`, `/v1/wallet/${w}/funded-by`]) {
        let b = await get(late, path);
        // The history is read in the background; an answer before it is done says so (503 for funded-by).
        for (let i = 0; i < 60 && (b.status === 503 || !b.coverage?.startsWith('complete')); i++) {
          await sleep(500);
          b = await get(late, path);
        }
        const a = await get(full, path);
        expect(b.status, `${path}: ${JSON.stringify(b.body)}`).toBe(a.status);
        expect(b.body, path).toEqual(a.body);
        expect(b.coverage, path).toBe('complete; basis=backfilled');
      }
    }
  });

  it('DAS holdings and ZK Compression answers equal the reference\'s', async () => {
    for (const w of demo.wallets) {
      for (const [method, params, complete] of [
        ['getAssetsByOwner', { ownerAddress: w, displayOptions: { showFungible: true } }, /^complete; basis=hydrated/],
        ['getTokenAccounts', { owner: w }, /^complete; basis=hydrated/],
        ['getCompressedAccountsByOwner', { owner: w }, /^complete; basis=backfilled$/],
        ['getCompressedBalanceByOwner', { owner: w }, /^complete; basis=backfilled$/],
        ['getCompressedTokenAccountsByOwner', { owner: w }, /^complete; basis=backfilled$/],
        ['getCompressedTokenBalancesByOwnerV2', { owner: w }, /^complete; basis=backfilled$/],
        ['getCompressionSignaturesForOwner', { owner: w }, /^complete; basis=backfilled$/],
      ] as const) {
        const a = await rpcAt(full.url, method, params, full.key);
        const b = await rpcAt(late.url, method, params, late.key);
        expect(b.body.error, method).toBeUndefined();
        // ZK Compression answers carry the indexer's slot in `context`; the two indexes follow the chain separately.
        const content = (r: any) => (r && typeof r === 'object' && 'context' in r ? r.value : r);
        expect(content(b.body.result), `${method} ${w}`).toEqual(content(a.body.result));
        expect(b.coverage, method).toMatch(complete);
      }
      const hashes = ((await rpcAt(full.url, 'getCompressedAccountsByOwner', { owner: w }, full.key)).body.result.value.items as { hash: string }[]).map((x) => x.hash);
      if (hashes.length) {
        const a = await rpcAt(full.url, 'getMultipleCompressedAccountProofsV2', hashes, full.key);
        const b = await rpcAt(late.url, 'getMultipleCompressedAccountProofsV2', hashes, late.key);
        expect(b.body.result.value).toEqual(a.body.result.value);
      }
    }
  });

  it('a late index killed with SIGKILL right after a history was asked for resumes it: whole, nothing twice', async () => {
    // The first request returns at once (no wait), so the kill lands while the history is queued or being read.
    const again = await newIndex('late2', { SOLGATE_HISTORY_WAIT_MS: '0' });
    await caughtUp(again);
    const w = demo.wallets[1];
    const path = `/v1/wallet/${w}/history?limit=100`;
    // The first request queues the history; the process is killed while it is being read.
    await get(again, path);
    again.proc.child.kill('SIGKILL');
    await new Promise((r) => again.proc.child.once('exit', r));
    again.proc = await serve('late2', again.port, { SOLGATE_HISTORY_WAIT_MS: '0' });
    let b = await get(again, path);
    for (let i = 0; i < 60 && !b.coverage?.startsWith('complete'); i++) {
      await sleep(500);
      b = await get(again, path);
    }
    expect(b.body).toEqual((await get(full, path)).body);
    const sigs = (b.body.data as { signature: string }[]).map((t) => t.signature);
    expect(new Set(sigs).size).toBe(sigs.length);
  });
});
