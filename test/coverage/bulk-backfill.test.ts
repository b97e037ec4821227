/**
 * `solgate backfill --from-slot A --to-slot B` as a real process against the localnet: killed with SIGKILL
 * part-way, then run again, it writes exactly what an index that followed the chain from slot 0 holds for those
 * slots (per-table digests), and a range already done is not written again. An index whose live ingestion began
 * later is then complete from genesis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createLocalnet, startDemoWorkload, type DemoWorkload, type Localnet } from '../../src/sources/localnet/index.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { createCoverageService } from '../../src/ingest/hydrate.js';
import { createRpcPoller } from '../../src/sources/rpc-poller.js';
import { getCheckpoint } from '../../src/store/chain.js';
import { recordIndexOrigin } from '../../src/store/coverage.js';
import { openDb, type Db } from '../../src/store/db.js';
import { createTestDb, tableDigests, type TestDb } from '../helpers/db.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'solgate.js');
const logger = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TABLES = ['blocks', 'transactions', 'address_transactions', 'wallet_transfers', 'wallet_funding', 'mint_supply_changes', 'sol_balances'];

let net: Localnet;
let demo: DemoWorkload;
let full: TestDb;
let last: number;
let dir: string;

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 0 });
  demo = await startDemoWorkload(net.chain, { intervalMs: 1, wallets: 3, failureRate: 0.1 });
  while (demo.stats.sent < 120) {
    await sleep(5);
    net.chain.produceSlot();
  }
  await demo.stop();
  // Several windows of the backfill (200 slots each): more, mostly empty, slots.
  for (let i = 0; i < 700; i++) net.chain.produceSlot();
  last = net.chain.slot;
  // The reference: an index that followed the chain from slot 0 (no account fetches: a backfill of the past has none).
  full = await createTestDb();
  const ctl = new AbortController();
  const poller = createRpcPoller({ url: net.url, commitment: 'confirmed', concurrency: 4, pollIntervalMs: 20, fetchAccounts: false, logger });
  const run = createIngester(full.db, logger).run(poller, { startSlot: 0, signal: ctl.signal }).finally(() => poller.close());
  while (((await getCheckpoint(full.db)) ?? -1) < last) await sleep(20);
  ctl.abort();
  await run;
  dir = mkdtempSync(join(tmpdir(), 'solgate-bulk-backfill-'));
  if (process.env.DATABASE_URL) target = await createTestDb();
}, 180_000);

afterAll(async () => {
  await full?.drop();
  await target?.drop();
  await net?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * The backfill's database: a fresh PostgreSQL database when DATABASE_URL is set (CI), else an embedded one. PGlite
 * does not promise that the last commits before a SIGKILL reach its files, so only on PostgreSQL must the rerun
 * resume past slot 0; on both it must write exactly the reference's rows.
 */
let target: TestDb | null = null;
const env = () => ({ ...process.env, DATABASE_URL: target?.url ?? '', SOLGATE_DATA_DIR: dir, SOLANA_RPC_URL: '', LOG_LEVEL: 'warn' });

function backfill(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'backfill', ...args], { env: env(), cwd: ROOT, timeout: 180_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('solgate backfill --from-slot --to-slot', () => {
  it('killed part-way and run again, it writes what a from-genesis index holds; a finished range is not redone', async () => {
    const args = ['--from-slot', '0', '--to-slot', String(last), '--rpc', net.url, '--concurrency', '1'];
    // Killed as soon as it has written some windows.
    const child = spawn(process.execPath, [BIN, 'backfill', ...args], { env: env(), cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    for (let i = 0; i < 600 && !/\] \d+\.\d%/.test(err); i++) await sleep(20);
    child.kill('SIGKILL');
    await exited;

    const second = await backfill(args);
    expect(second.code, second.stderr).toBe(0);
    if (target) expect(second.stderr).toMatch(/^resuming at slot [1-9]\d*\n/m);
    expect(second.stdout).toMatch(new RegExp(`^slots 0–${last} backfilled: \\d+ blocks, \\d+ transactions\\n$`));
    const again = await backfill(args);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^slots 0–\d+ are backfilled already \(\d+ blocks, \d+ transactions\)\n$/);

    const db: Db = await openDb(target ? { databaseUrl: target.url!, poolSize: 2 } : { dataDir: dir });
    try {
      expect(await tableDigests(db, TABLES)).toEqual(await tableDigests(full.db, TABLES));
      // An index whose live ingestion began after these slots is now complete from genesis.
      await recordIndexOrigin(db, last + 1);
      const coverage = createCoverageService({ db, client: null, commitment: 'confirmed', logger });
      expect(await coverage.ensureCovered(demo.wallets[0], 'history')).toEqual({ complete: true, basis: 'genesis' });
    } finally {
      await db.close();
    }
  }, 240_000);

  it('refuses a reversed range and a missing cluster URL with one line', async () => {
    const reversed = await backfill(['--from-slot', '10', '--to-slot', '5', '--rpc', net.url]);
    expect(reversed.code).toBe(2);
    expect(reversed.stderr).toMatch(/^solgate: --to-slot \(5\) is before --from-slot \(10\)\n/);
    const noUrl = await backfill(['--from-slot', '0', '--to-slot', '5']);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/backfill needs --rpc URL \(or SOLANA_RPC_URL\)/);
  });
});
