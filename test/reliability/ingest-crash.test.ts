/**
 * Crash recovery of ingestion (issue #9): a recorded workload — the built-in localnet (LiteSVM, Light genesis) run
 * with the demo workload (SOL, SPL Token, Token-2022 transfers, some v0 through a lookup table, failing transfers,
 * ZK Compression activity) for thousands of slots, a few percent of them skipped — is produced once, then served
 * unchanged by the localnet's JSON-RPC to every run, so all runs read the same chain:
 *
 * - reference: `solgate ingest --rpc URL` (a child process, fresh database) up to the last slot, no faults;
 * - crash run: fresh database, `solgate ingest` SIGKILLed at random moments (seeded RNG; ≥20 kills: most a few
 *   slots after it made progress, i.e. while it writes, some during start-up), restarted each time, until it reaches
 *   the last slot;
 * - PostgreSQL restart: a private PostgreSQL instance (initdb into a temporary directory, its own port; the machine's
 *   shared server is never touched) stopped and started while one `solgate ingest` runs (a fast shutdown, then an
 *   immediate one, i.e. crash recovery): the process must stay alive, wait, and resume from its checkpoint.
 *
 * Each run's tables must equal the reference row for row: a per-table md5 of the ordered rows (SQL `string_agg`) over
 * CHAIN_TABLES + ZK_TABLES (test/helpers/db.ts) and the webhook outbox (two webhooks matching demo wallets are
 * registered in each database before ingestion). Excluded columns, because they legitimately differ between runs:
 * `ingest_checkpoint.updated_at` (wall clock); in the outbox, `webhook_events.id` (a BIGSERIAL: sequence values
 * consumed by rolled-back transactions are not reused), `webhook_id` (a random UUID per database; replaced by the
 * webhook's URL) and the wall-clock columns (`next_attempt_at`, `queued_at`, `created_at`, `webhook_payloads.created_at`).
 *
 * - failover: two `solgate ingest` on one database; one holds the ingester lock, the other waits in standby; the holder
 *   is SIGKILLed a few times (a new standby started each time) and the standby must take over from the checkpoint.
 *
 * Short variant: ~1,500 slots, 20 kills, 3 failovers, 2 PostgreSQL restarts; long (SOLGATE_RELIABILITY_LONG=1): ~6,000 slots,
 * 40 kills, 6 failovers, 4 restarts. Needs PostgreSQL (DATABASE_URL) and, for the restart part, the PostgreSQL server binaries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import type { Localnet } from '../../src/sources/localnet/index.js';
import { openDb, type Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { createApiKey } from '../../src/store/keys.js';
import { createWebhook, type WebhookSettings } from '../../src/store/webhooks.js';
import { CHAIN_TABLES, ZK_TABLES, createTestDb, tableDigests, type TestDb } from '../helpers/db.js';
import { LONG } from './report.js';
import { exited, recordLocalnetWorkload, reporter, rng, sleep, until as waitUntil } from './helpers.js';
import { findPgBin, privatePostgres } from './private-postgres.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SLOTS = LONG ? 6000 : 1500;
const KILLS = LONG ? 40 : 20;
const PG_RESTARTS = LONG ? 4 : 2;
const FAILOVERS = LONG ? 6 : 3;
const SEED = Number(process.env.SOLGATE_RELIABILITY_SEED ?? 20260911);

const report = reporter('ingest-crash');


let net: Localnet;
let lastSlot = 0;
let blocksProduced = 0;
let workload: Record<string, unknown> = {};
let hookWallets: string[] = [];
const output: string[] = [];
const children: ChildProcess[] = [];
const dbs: TestDb[] = [];

/** `solgate ingest --rpc <localnet>` against `databaseUrl`. */
function ingest(databaseUrl: string, logLevel = 'warn'): ChildProcess {
  const c = spawn(process.execPath, [join(ROOT, 'bin', 'solgate.js'), 'ingest', '--rpc', net.url], {
    cwd: ROOT,
    env: {
      ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: logLevel, SOLANA_RPC_URL: '', SOLGATE_START_SLOT: '0',
      SOLGATE_POLL_INTERVAL_MS: '50', SOLGATE_OFFCHAIN_FETCH: 'false', SOLGATE_INGEST_CONCURRENCY: '4',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tag = (d: Buffer) => {
    output.push(`[ingest ${c.pid}] ${d}`);
    if (output.length > 400) output.splice(0, 200);
  };
  c.stdout!.on('data', tag);
  c.stderr!.on('data', tag);
  children.push(c);
  return c;
}


/** The checkpoint of a database, or null (none yet, or the server is unreachable). */
async function checkpoint(pool: pg.Pool): Promise<number | null> {
  try {
    const { rows } = await pool.query<{ slot: string }>('SELECT slot FROM ingest_checkpoint');
    return rows.length ? Number(rows[0].slot) : null;
  } catch {
    return null;
  }
}

const until = (what: string, cond: () => Promise<boolean> | boolean, ms: number) => waitUntil(what, cond, ms, { output });

/** Registers the two webhooks (same URLs, same settings) the outbox digest covers. */
async function registerHooks(db: Db): Promise<void> {
  const { record: key } = await createApiKey(db, { name: 'crash', plan: 'developer' });
  for (const [i, w] of hookWallets.entries()) {
    const settings: WebhookSettings = {
      url: `http://127.0.0.1:9/hook-${i}`, webhookType: i % 2 ? 'enhanced' : 'raw', transactionTypes: i % 2 ? ['ANY'] : [],
      accountAddresses: [w], txnStatus: 'all', encoding: 'jsonParsed', authHeader: null, active: true,
    };
    const r = await createWebhook(db, key.id, settings, 50);
    if (!r.ok) throw new Error('webhook not created');
  }
}

/** The outbox, without the columns that differ between databases (see the header). */
const OUTBOX: Record<string, string> = {
  webhook_events: 'SELECT w.url, e.signature, e.slot, e.position, e.state, e.attempts FROM webhook_events e JOIN webhooks w ON w.id = e.webhook_id',
  webhook_payloads: 'SELECT signature, slot, raw, enhanced FROM webhook_payloads',
};

type Digests = Record<string, { rows: number; md5: string }>;

async function digests(url: string): Promise<Digests> {
  const db = await openDb({ databaseUrl: url, poolSize: 1 });
  try {
    const out: Digests = await tableDigests(db, [...CHAIN_TABLES, ...ZK_TABLES]);
    for (const [t, sql] of Object.entries(OUTBOX)) {
      const { rows } = await db.query<{ n: number; h: string | null }>(
        `SELECT count(*)::int AS n, md5(COALESCE(string_agg(r, '|' ORDER BY r), '')) AS h FROM (SELECT (x.*)::text AS r FROM (${sql}) x) s`,
      );
      out[t] = { rows: rows[0].n, md5: rows[0].h ?? '' };
    }
    return out;
  } finally {
    await db.close();
  }
}

function differing(a: Digests, b: Digests): string[] {
  return Object.keys(a).filter((t) => a[t].md5 !== b[t]?.md5 || a[t].rows !== b[t]?.rows);
}

/** A fresh migrated database on the shared server with the webhooks registered. */
async function freshDb(): Promise<TestDb> {
  const t = await createTestDb();
  dbs.push(t);
  await registerHooks(t.db);
  return t;
}

/** Runs `solgate ingest` on `url` to the last slot, then stops it gracefully (SIGTERM). Returns the time taken. */
async function ingestToEnd(url: string, pool: pg.Pool, ms = 10 * 60_000): Promise<number> {
  const t0 = Date.now();
  const c = ingest(url);
  await until('the last slot', async () => {
    if (c.exitCode !== null) throw new Error(`ingest exited with ${c.exitCode}\n${output.slice(-20).join('')}`);
    return (await checkpoint(pool)) === lastSlot;
  }, ms);
  const took = Date.now() - t0;
  c.kill('SIGTERM');
  await exited(c);
  return took;
}

let reference: Digests;
let referenceMs = 0;
const hasPostgres = !!process.env.DATABASE_URL;

beforeAll(async () => {
  if (!hasPostgres) return;
  // The workload, produced once: the demo activity on a Light-enabled localnet, slots closed by hand.
  const w = await recordLocalnetWorkload(SLOTS, SEED ^ 0x5eed);
  net = w.net;
  hookWallets = w.wallets.slice(0, 2);
  lastSlot = w.lastSlot;
  blocksProduced = w.blockSlots.length;
  workload = w.figures;

  // Reference: one uninterrupted run.
  const ref = await freshDb();
  const pool = new pg.Pool({ connectionString: ref.url, max: 1 });
  try {
    referenceMs = await ingestToEnd(ref.url!, pool);
  } finally {
    await pool.end();
  }
  reference = await digests(ref.url!);
  expect(reference.blocks.rows).toBe(blocksProduced);
}, 15 * 60_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(children.map(exited));
  await net?.close();
  for (const t of dbs) await t.drop().catch(() => {});
});

describe.skipIf(!hasPostgres)('ingestion crash recovery (needs DATABASE_URL)', () => {
  it(`SIGKILLed ${KILLS}+ times at random points, then resumed: tables identical to an uninterrupted run`, async () => {
    const r = rng(SEED);
    const t0 = Date.now();
    let kills = 0;
    let midWrite = 0;
    let atStartup = 0;
    let regressions = 0;
    // Rounds over the whole chain, each into a fresh database and compared with the reference, until the kills are
    // made: an ingester fast enough to reach the chain's end before them (catch-up writes many slots at once) starts
    // the chain again rather than making fewer.
    const rounds: { checkpointsAtKills: (number | null)[]; finalResumeMs: number; differingTables: string[] }[] = [];
    while (kills < KILLS) {
      const t = await freshDb();
      const pool = new pg.Pool({ connectionString: t.url, max: 1 });
      const killedAt: (number | null)[] = [];
      let prev: number | null = null;
      try {
        while (kills < KILLS) {
          const before = await checkpoint(pool);
          if (before !== null && prev !== null && before < prev) regressions++;
          prev = before;
          if (before === lastSlot) break;
          const c = ingest(t.url!);
          if (r() < 0.2) {
            // During start-up (connecting, migrations, the first reads).
            await sleep(r() * 1500);
            atStartup++;
          } else {
            // While it writes: once the checkpoint moved by a random number of slots, plus a random delay so the kill
            // lands anywhere within a write. The step is drawn from what is left of the chain per kill still to make
            // (three quarters of that share on average), so the kills spread over the chain however fast the ingester
            // writes: the checkpoint also moves during the delay, and a fixed step let a fast ingester finish first.
            const base = before ?? -1;
            const share = (lastSlot - base) / (KILLS - kills + 1);
            const advance = 1 + Math.floor(r() * 1.5 * share);
            await until('progress', async () => {
              if (c.exitCode !== null) throw new Error(`ingest exited with ${c.exitCode}\n${output.slice(-20).join('')}`);
              const cp = await checkpoint(pool);
              return cp !== null && (cp >= Math.min(lastSlot, base + advance));
            }, 5 * 60_000);
            await sleep(r() * 60);
            midWrite++;
          }
          c.kill('SIGKILL');
          await exited(c);
          kills++;
          killedAt.push(await checkpoint(pool));
        }
        const finalResumeMs = await ingestToEnd(t.url!, pool);
        const got = await digests(t.url!);
        const diff = differing(reference, got);
        rounds.push({ checkpointsAtKills: killedAt, finalResumeMs, differingTables: diff });
        expect(diff, JSON.stringify(diff.map((d) => [d, reference[d], got[d]]))).toEqual([]);
        expect(got.blocks.rows).toBe(blocksProduced);
      } finally {
        await pool.end();
      }
    }
    report({
      workload,
      sigkill: {
        seed: SEED, kills, midWrite, atStartup, rounds, checkpointRegressions: regressions, lastSlot, totalMs: Date.now() - t0,
        referenceMs, tablesCompared: Object.keys(reference).length, rowsCompared: Object.values(reference).reduce((s, d) => s + d.rows, 0),
        digestsEqual: rounds.every((x) => x.differingTables.length === 0),
      },
    });
    expect(kills).toBeGreaterThanOrEqual(KILLS);
    expect(regressions).toBe(0);
  });

  it(`two ingesters on one database, the lock holder SIGKILLed ${FAILOVERS} times: a standby takes over each time; tables identical`, async () => {
    const t = await freshDb();
    const pool = new pg.Pool({ connectionString: t.url, max: 1 });
    const said = (c: ChildProcess, text: string) => output.some((l) => l.startsWith(`[ingest ${c.pid}]`) && l.includes(text));
    const HOLDING = 'holding the ingester lock';
    const STANDBY = 'standby';
    try {
      let running = [ingest(t.url!, 'info'), ingest(t.url!, 'info')];
      const takeovers: { killedAt: number | null; resumedAfterMs: number }[] = [];
      for (let i = 1; i <= FAILOVERS; i++) {
        const at = Math.floor((lastSlot * i) / (FAILOVERS + 1));
        await until(`slot ${at}`, async () => {
          for (const c of running) if (c.exitCode !== null) throw new Error(`ingest exited with ${c.exitCode}\n${output.slice(-20).join('')}`);
          return ((await checkpoint(pool)) ?? -1) >= at;
        }, 5 * 60_000);
        // Exactly one holds the lock; the other says it waits.
        const leaders = running.filter((c) => said(c, HOLDING));
        expect(leaders.length, output.slice(-20).join('')).toBe(1);
        const leader = leaders[0];
        const standby = running.find((c) => c !== leader)!;
        await until('the standby to report it waits', () => said(standby, STANDBY), 30_000);
        const killedAt = await checkpoint(pool);
        leader.kill('SIGKILL');
        await exited(leader);
        const killed = Date.now();
        await until('the standby to take the lock', () => said(standby, HOLDING), 60_000);
        await until('progress after the takeover', async () => ((await checkpoint(pool)) ?? -1) > (killedAt ?? -1), 2 * 60_000);
        takeovers.push({ killedAt, resumedAfterMs: Date.now() - killed });
        // A new standby replaces the killed process.
        running = [standby, ingest(t.url!, 'info')];
      }
      await until('the last slot', async () => (await checkpoint(pool)) === lastSlot, 10 * 60_000);
      for (const c of running) c.kill('SIGTERM');
      await Promise.all(running.map(exited));
      const got = await digests(t.url!);
      const diff = differing(reference, got);
      report({ workload, failover: { takeovers, digestsEqual: diff.length === 0, differingTables: diff } });
      expect(takeovers.length).toBe(FAILOVERS);
      expect(diff, JSON.stringify(diff.map((d) => [d, reference[d], got[d]]))).toEqual([]);
      expect(got.blocks.rows).toBe(blocksProduced);
    } finally {
      await pool.end();
    }
  });

  const pgBin = findPgBin();

  it.skipIf(!pgBin)(`PostgreSQL restarted ${PG_RESTARTS} times mid-run: the ingester waits, resumes, and the tables equal the reference`, async () => {
    const pgDir = await privatePostgres(pgBin!);
    const url = `postgres://postgres@127.0.0.1:${pgDir.port}/postgres`;
    const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 2000 });
    pool.on('error', () => {});
    try {
      const db = await openDb({ databaseUrl: url, poolSize: 1 });
      await migrate(db);
      await registerHooks(db);
      await db.close();
      const t0 = Date.now();
      const c = ingest(url);
      const restarts: { atSlot: number | null; mode: string; downMs: number; resumedAfterMs: number }[] = [];
      for (let i = 1; i <= PG_RESTARTS; i++) {
        const at = Math.floor((lastSlot * i) / (PG_RESTARTS + 1));
        await until(`slot ${at}`, async () => {
          if (c.exitCode !== null) throw new Error(`ingest exited with ${c.exitCode}\n${output.slice(-20).join('')}`);
          return ((await checkpoint(pool)) ?? -1) >= at;
        }, 5 * 60_000);
        const mode = i % 2 ? 'fast' : 'immediate';
        const atSlot = await checkpoint(pool);
        const down = Date.now();
        pgDir.ctl(['stop', '-m', mode, '-w']);
        await sleep(2500);
        // The ingester must still be running (waiting), not dead.
        expect(c.exitCode, output.slice(-20).join('')).toBeNull();
        pgDir.ctl(['start', '-w', '-l', join(pgDir.dir, 'log')]);
        const up = Date.now();
        // It resumes: the checkpoint moves past where it was.
        await until('progress after the restart', async () => {
          if (c.exitCode !== null) throw new Error(`ingest exited with ${c.exitCode}\n${output.slice(-20).join('')}`);
          const cp = await checkpoint(pool);
          return cp !== null && cp > (atSlot ?? -1);
        }, 2 * 60_000);
        restarts.push({ atSlot, mode, downMs: up - down, resumedAfterMs: Date.now() - up });
      }
      await until('the last slot', async () => {
        if (c.exitCode !== null) throw new Error(`ingest exited with ${c.exitCode}\n${output.slice(-20).join('')}`);
        return (await checkpoint(pool)) === lastSlot;
      }, 10 * 60_000);
      c.kill('SIGTERM');
      await exited(c);
      const failuresLogged = output.filter((l) => l.includes(`[ingest ${c.pid}]`) && l.includes('retrying from the checkpoint')).length;
      const got = await digests(url);
      const diff = differing(reference, got);
      report({
        workload,
        postgresRestart: {
          restarts, ingesterExitedDuringOutage: false, retryLogLines: failuresLogged, totalMs: Date.now() - t0,
          tablesCompared: Object.keys(reference).length, digestsEqual: diff.length === 0, differingTables: diff,
        },
      });
      expect(diff, JSON.stringify(diff.map((d) => [d, reference[d], got[d]]))).toEqual([]);
      expect(got.blocks.rows).toBe(blocksProduced);
    } finally {
      await pool.end().catch(() => {});
      pgDir.destroy();
    }
  });
});
