/**
 * More than one machine (issue #22): the whole topology in one test, on real processes and a real streaming replica.
 *
 * - a private PostgreSQL primary and two hot-standby replicas of it (`pg_basebackup -R`; test/reliability/
 *   private-postgres.ts), never the machine's shared server;
 * - the built-in localnet (this process) with transfers coming all the time;
 * - two `solgate ingest` on the primary (one holds the ingester lock, the other waits in standby);
 * - two API-only `solgate serve` with DATABASE_URL = the primary and DATABASE_READ_URL = replica 1 / replica 2,
 *   sharing rate limits through Redis (REDIS_URL, default 127.0.0.1:6379);
 * - a `solgate worker` delivering a webhook to a local receiver.
 *
 * Asserted: reads through both serves return what was just written on the primary, read-your-writes through
 * `minContextSlot` (a transfer's slot: the answer includes it); with replica 1's replay paused, serve 1 answers an
 * older `context.slot` without `minContextSlot`, waits with it until replay resumes and then answers a context slot
 * at or after the one serve 2 gave, and answers -32016 `{contextSlot}` after the bound for a slot far ahead; a free
 * key's per-second DAS limit holds across both serves (not twice it); the
 * lock-holding ingester SIGKILLed, the standby takes over, a new standby starts, activity continues (repeated); at the end the
 * primary and both replicas equal (md5 per table over the chain and ZK Compression tables) an uninterrupted
 * `solgate ingest` of the same chain into a fresh database — no gap, no duplicate — and every transfer to the
 * watched wallet was delivered. Short variant: 2 kills, 100 transfers before, between and after them; long
 * (SOLGATE_RELIABILITY_LONG=1): 5 kills, 1,500 transfers each. Needs DATABASE_URL (the reference database) and the
 * PostgreSQL server binaries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { openDb } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { createApiKey } from '../../src/store/keys.js';
import { createWebhook } from '../../src/store/webhooks.js';
import { CHAIN_TABLES, ZK_TABLES, createTestDb, tableDigests, type TestDb } from '../helpers/db.js';
import { freePort } from '../helpers/net.js';
import { localnetSender, type Landed, type LocalnetSender } from '../localnet/helpers.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { WORKER_ENV, sigOf } from '../webhooks/fault-harness.js';
import { findPgBin, privatePostgres, startReplica, type PrivatePostgres } from './private-postgres.js';
import { exited, reporter, sleep, until as waitUntil } from './helpers.js';
import { LONG } from './report.js';

const ROOT = join(import.meta.dirname, '..', '..');
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const SOL = 1_000_000_000n;
/** Transfers between two ingester kills (and before the first, and after the last). */
const TRANSFERS_PER_PHASE = LONG ? 1500 : 100;
const FAILOVERS = LONG ? 5 : 2;
/** serve's SOLGATE_MIN_CONTEXT_WAIT_MS. */
const WAIT_MS = 3000;
const report = reporter('replica-topology');
const pgBin = findPgBin();
const enabled = !!process.env.DATABASE_URL && !!pgBin;

let primary: PrivatePostgres;
const replicas: PrivatePostgres[] = [];
let net: Localnet;
let sender: LocalnetSender;
let payer: KeyPairSigner;
let wallets: Address[] = [];
let rcv: Receiver;
let key = '';
/** A key on the free plan (DAS: 2 per second plus a burst of 4), for the shared-limit check. */
let freeKey = '';
let ref: TestDb | undefined;
const pools = new Map<string, pg.Pool>();
const output: string[] = [];
const children: ChildProcess[] = [];
const sent: (Landed & { to: Address })[] = [];

const until = (what: string, cond: () => Promise<boolean> | boolean, ms = 120_000) => waitUntil(what, cond, ms, { output, everyMs: 50 });

function pool(url: string): pg.Pool {
  let p = pools.get(url);
  if (!p) {
    p = new pg.Pool({ connectionString: url, max: 2 });
    p.on('error', () => {});
    pools.set(url, p);
  }
  return p;
}

async function checkpoint(url: string): Promise<number> {
  const { rows } = await pool(url).query<{ slot: string }>('SELECT slot FROM ingest_checkpoint').catch(() => ({ rows: [] as { slot: string }[] }));
  return rows.length ? Number(rows[0].slot) : -1;
}

/** `solgate <args>` as a child process; its output is kept for failure messages and log checks. */
function solgate(name: string, args: string[], env: Record<string, string>): ChildProcess {
  const c = spawn(process.execPath, [join(ROOT, 'bin', 'solgate.js'), ...args], {
    cwd: ROOT,
    env: {
      ...process.env, DATABASE_URL: primary.url, LOG_LEVEL: 'info', SOLANA_RPC_URL: '', DATABASE_POOL_SIZE: '4',
      SOLGATE_OFFCHAIN_FETCH: 'false', SOLGATE_DRIFT_INTERVAL_MS: '0', SOLGATE_PRICE_PYTH_POLL_MS: '0', ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tag = (d: Buffer) => {
    output.push(`[${name} ${c.pid}] ${d}`);
    if (output.length > 2000) output.splice(0, 1000);
  };
  c.stdout!.on('data', tag);
  c.stderr!.on('data', tag);
  children.push(c);
  return c;
}

const said = (c: ChildProcess, text: string) => output.some((l) => l.includes(` ${c.pid}] `) && l.includes(text));
/** The last error lines a child logged (pino level 50 and above): what an internal error answer was, for the failure's message. */
const errorsOf = (c: ChildProcess) =>
  output.filter((l) => l.includes(` ${c.pid}] `) && /"level":(5|6)0/.test(l)).slice(-5).join('\n') || '(no error logged)';
const ingestEnv = (url: string) => ({
  DATABASE_URL: url, SOLGATE_START_SLOT: '0', SOLGATE_POLL_INTERVAL_MS: '20', SOLGATE_INGEST_FETCH_ACCOUNTS: 'false', SOLGATE_INGEST_CONCURRENCY: '4',
});
const ingest = (url = primary.url) => solgate('ingest', ['ingest', '--rpc', net.url], ingestEnv(url));

interface Serve { c: ChildProcess; url: string }
async function serve(replica: PrivatePostgres): Promise<Serve> {
  const port = await freePort();
  const c = solgate('serve', ['serve'], {
    PORT: String(port), HOST: '127.0.0.1', DATABASE_READ_URL: replica.url, SOLGATE_RPC_UPSTREAM_URL: net.url, REDIS_URL,
    SOLGATE_WEBHOOK_CONCURRENCY: '0', SOLGATE_MIN_CONTEXT_WAIT_MS: String(WAIT_MS),
  });
  return { c, url: `http://127.0.0.1:${port}` };
}

async function rpc(s: Serve, method: string, params: unknown): Promise<{ result?: any; error?: { code: number; message: string; data?: any } }> {
  const r = await fetch(`${s.url}/?api-key=${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  expect(r.status, await r.clone().text()).toBe(200);
  return r.json() as Promise<any>;
}

/** The context slot of a ZK Compression answer (read from the index the serve reads). */
async function contextSlot(s: Serve, minContextSlot?: number): Promise<{ slot?: number; error?: { code: number; message: string; data?: any }; ms: number }> {
  const t0 = Date.now();
  const r = await rpc(s, 'getCompressedBalanceByOwner', { owner: wallets[0], ...(minContextSlot === undefined ? {} : { minContextSlot }) });
  return { slot: r.result?.context?.slot, error: r.error, ms: Date.now() - t0 };
}

/** Transfers round-robin to the wallets, each in a slot of its own, until stopped. */
function pump(gapMs = 40): { stop: () => Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    for (let n = 0; !stopped; n++) {
      const to = wallets[n % wallets.length];
      sent.push({ ...(await sender.send(payer, [getTransferSolInstruction({ source: payer, destination: to, amount: 1_000_000n + BigInt(n) })])), to });
      await sleep(gapMs);
    }
  })();
  return { stop: async () => { stopped = true; await loop; } };
}

async function digests(url: string) {
  const db = await openDb({ databaseUrl: url, poolSize: 1 });
  try {
    return await tableDigests(db, [...CHAIN_TABLES, ...ZK_TABLES]);
  } finally {
    await db.close();
  }
}

beforeAll(async () => {
  if (!enabled) return;
  primary = await privatePostgres(pgBin!, { maxConnections: 200 });
  const db = await openDb({ databaseUrl: primary.url, poolSize: 2 });
  try {
    await migrate(db);
    const k = await createApiKey(db, { name: 'topology', plan: 'business' });
    key = k.key;
    freeKey = (await createApiKey(db, { name: 'topology-free', plan: 'free' })).key;
    net = await createLocalnet({ port: 0, slotMs: 0 });
    sender = localnetSender(net);
    payer = await generateKeyPairSigner();
    await sender.airdrop(payer.address, 1000n * SOL);
    wallets = (await Promise.all([0, 1, 2].map(() => generateKeyPairSigner()))).map((w) => w.address);
    rcv = await startReceiver();
    const hook = await createWebhook(db, k.record.id, {
      url: `${rcv.url}/hook`, webhookType: 'raw', transactionTypes: [], accountAddresses: [wallets[0]], txnStatus: 'all', encoding: 'jsonParsed', authHeader: null, active: true,
    }, 50);
    if (!hook.ok) throw new Error('webhook not created');
  } finally {
    await db.close();
  }
  // The replicas are taken after the migrations: their schema, key and webhook come from the primary.
  for (let i = 0; i < 2; i++) replicas.push(await startReplica(pgBin!, primary));
}, 5 * 60_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(children.map(exited));
  for (const p of pools.values()) await p.end().catch(() => {});
  await rcv?.close();
  await net?.close();
  await ref?.drop().catch(() => {});
  for (const r of replicas) r.destroy();
  primary?.destroy();
});

describe.skipIf(!enabled)('several API processes on streaming replicas, one ingester on the primary (needs DATABASE_URL and PostgreSQL binaries)', () => {
  it('reads on replicas honour minContextSlot; the ingester is SIGKILLed and replaced; replicas equal an uninterrupted run', async () => {
    const t0 = Date.now();
    let ingesters = [ingest(), ingest()];
    const worker = solgate('worker', ['worker'], { ...WORKER_ENV, LOG_LEVEL: 'info' });
    const serves = [await serve(replicas[0]), await serve(replicas[1])];
    for (const s of serves) await until('serve to listen', () => {
      if (s.c.exitCode !== null) throw new Error(`serve exited with ${s.c.exitCode}\n${output.slice(-20).join('')}`);
      return said(s.c, 'solgate: listening');
    });
    await until('one ingester to hold the lock', () => ingesters.some((c) => said(c, 'holding the ingester lock')));
    await until('the worker to start', () => said(worker, 'webhook delivery worker started'));
    const traffic = pump();
    try {
      // ---- reads through both serves: a transfer just landed is in the next answer with minContextSlot = its slot ----
      await until('some activity', () => sent.length >= 10);
      const readYourWrites: number[] = [];
      for (const s of serves) {
        const t = sent[sent.length - 1];
        const r0 = Date.now();
        const r = await rpc(s, 'getTransactionsForAddress', [t.to, { minContextSlot: t.slot, limit: 1000 }]);
        readYourWrites.push(Date.now() - r0);
        expect(r.error, `${JSON.stringify(r.error)}\n${errorsOf(s.c)}`).toBeUndefined();
        expect(r.result.data.map((x: { signature: string }) => x.signature)).toContain(t.signature);
        // Wallet REST on the same replica: the transfer is in the wallet's history.
        const h = await fetch(`${s.url}/v1/wallet/${t.to}/history?limit=100`, { headers: { 'x-api-key': key } });
        expect(h.status).toBe(200);
        expect(await h.text()).toContain(t.signature);
      }

      // ---- limits shared through Redis: a free key's DAS limit across both serves, not per serve ----
      // Start at the beginning of a second so the whole run falls in one per-second window.
      await sleep(1000 - (Date.now() % 1000) + 20);
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        const r = await fetch(`${serves[i % 2].url}/?api-key=${freeKey}`, {
          method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAssetsByOwner', params: { ownerAddress: wallets[1] } }),
        });
        statuses.push(r.status);
      }
      const admitted = statuses.filter((x) => x === 200).length;
      // 2 + a burst of 4 in all (a window's tolerance: 8); one serve alone would admit that much, both 12.
      expect(admitted, statuses.join(',')).toBeGreaterThanOrEqual(6);
      expect(admitted, statuses.join(',')).toBeLessThanOrEqual(8);
      expect(statuses.filter((x) => x !== 200).every((x) => x === 429), statuses.join(',')).toBe(true);

      // ---- replica 1 stopped replaying: older context without minContextSlot, a bounded wait with it ----
      const r1 = replicas[0].url;
      await pool(r1).query('SELECT pg_wal_replay_pause()');
      await until('replay paused', async () => (await pool(r1).query<{ s: string }>('SELECT pg_get_wal_replay_pause_state() AS s')).rows[0].s === 'paused');
      const stale = await checkpoint(r1);
      let seen = 0;
      await until('serve 2 to answer past replica 1', async () => ((seen = (await contextSlot(serves[1])).slot ?? -1) > stale), 60_000);
      const behind = await contextSlot(serves[0]);
      expect(behind.slot).toBe(stale);
      const resumeAfter = 800;
      setTimeout(() => void pool(r1).query('SELECT pg_wal_replay_resume()'), resumeAfter);
      const waited = await contextSlot(serves[0], seen);
      expect(waited.error, JSON.stringify(waited.error)).toBeUndefined();
      expect(waited.slot).toBeGreaterThanOrEqual(seen);
      expect(waited.ms).toBeGreaterThanOrEqual(resumeAfter - 100);
      // Far ahead of any index: the documented error once the bound has passed.
      const far = await contextSlot(serves[0], seen + 1_000_000);
      expect(far.error).toMatchObject({ code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: expect.any(Number) } });
      expect(far.error!.data.contextSlot).toBeGreaterThanOrEqual(seen);
      expect(far.ms).toBeGreaterThanOrEqual(WAIT_MS - 100);
      expect(far.ms).toBeLessThan(WAIT_MS + 5000);

      // ---- failover: the lock holder SIGKILLed mid-run, the standby takes over, a new standby starts; repeated ----
      const takeovers: { killedAt: number; resumedAfterMs: number }[] = [];
      for (let i = 0; i < FAILOVERS; i++) {
        await until(`${TRANSFERS_PER_PHASE} more transfers`, () => sent.length >= (i + 1) * TRANSFERS_PER_PHASE, 10 * 60_000);
        const leader = ingesters.find((c) => said(c, 'holding the ingester lock'))!;
        const standby = ingesters.find((c) => c !== leader)!;
        await until('the standby to report it waits', () => said(standby, 'standby'));
        leader.kill('SIGKILL');
        await exited(leader);
        const killed = Date.now();
        const killedAt = await checkpoint(primary.url);
        await until('the standby to take the lock', () => said(standby, 'holding the ingester lock'));
        await until('progress after the takeover', async () => (await checkpoint(primary.url)) > killedAt);
        takeovers.push({ killedAt, resumedAfterMs: Date.now() - killed });
        ingesters = [standby, ingest()];
        const landedAfter = sent.length;
        await until('transfers after the takeover', () => sent.length >= landedAfter + 10);
        // Read-your-writes after the takeover, through each replica.
        for (const s of serves) {
          const t = sent[sent.length - 1];
          const r = await rpc(s, 'getTransactionsForAddress', [t.to, { minContextSlot: t.slot, limit: 1000 }]);
          expect(r.error, `${JSON.stringify(r.error)}\n${errorsOf(s.c)}`).toBeUndefined();
          expect(r.result.data.map((x: { signature: string }) => x.signature)).toContain(t.signature);
        }
      }
      await until('the last transfers', () => sent.length >= (FAILOVERS + 1) * TRANSFERS_PER_PHASE, 10 * 60_000);
      await traffic.stop();
      const lastSlot = net.chain.produceSlot()!.slot;
      for (const url of [primary.url, ...replicas.map((r) => r.url)]) await until(`slot ${lastSlot} on ${url}`, async () => (await checkpoint(url)) === lastSlot);
      // Every WAL record the primary wrote so far is replayed on both replicas (the checkpoint row is not the last write).
      const { rows: [lsn] } = await pool(primary.url).query<{ l: string }>('SELECT pg_current_wal_lsn()::text AS l');
      for (const r of replicas)
        await until('replay to catch up', async () => (await pool(r.url).query<{ ok: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [lsn.l])).rows[0].ok);

      // ---- the uninterrupted expectation: one `solgate ingest` of the same chain into a fresh database ----
      ref = await createTestDb();
      const refRun = ingest(ref.url!);
      await until('the reference run', async () => (await checkpoint(ref!.url!)) === lastSlot, 5 * 60_000);
      refRun.kill('SIGTERM');
      await exited(refRun);
      const want = await digests(ref.url!);
      const got = { primary: await digests(primary.url), replica1: await digests(replicas[0].url), replica2: await digests(replicas[1].url) };
      const differing = Object.fromEntries(Object.entries(got).map(([k, d]) => [k, Object.keys(want).filter((t) => want[t].md5 !== d[t]?.md5)]));
      const blocks = net.chain.getBlocks(0, lastSlot).length;

      // ---- the worker delivered every transfer to the watched wallet ----
      const watched = new Set(sent.filter((s) => s.to === wallets[0]).map((s) => s.signature));
      await until('every watched transfer delivered', () => {
        const ok = new Set(rcv.ok('/hook').map(sigOf));
        return [...watched].every((s) => ok.has(s));
      });
      report({
        transfers: sent.length, sharedLimitAdmitted: admitted, lastSlot, blocks, readYourWritesMs: readYourWrites, pausedReplicaSlot: stale, seenOnOtherReplica: seen,
        waitedMs: waited.ms, answeredSlot: waited.slot, farErrorMs: far.ms, farContextSlot: far.error?.data?.contextSlot,
        takeovers, tables: Object.keys(want).length, rows: Object.values(want).reduce((s, d) => s + d.rows, 0),
        digestsEqual: Object.values(differing).every((d) => d.length === 0), differing, webhookDeliveries: watched.size, totalMs: Date.now() - t0,
      });
      expect(takeovers.length).toBe(FAILOVERS);
      expect(want.blocks.rows).toBe(blocks);
      expect(differing).toEqual({ primary: [], replica1: [], replica2: [] });
      for (const s of serves) expect(s.c.exitCode, output.slice(-20).join('')).toBeNull();
    } finally {
      await traffic.stop();
    }
  });
});
