/**
 * Crash recovery of ingestion on the recorded fixtures (issue #9; the localnet workload is in ingest-crash.test.ts):
 * the DAS reference indexer's recorded Geyser-style transactions and account snapshots (test/fixtures/das/decoded:
 * Bubblegum, Token Metadata, MPL Core, SPL Token) are replayed with `solgate replay` (a child process):
 *
 * - reference: one replay into a fresh database, no faults;
 * - crash run: another fresh database; `solgate replay` of the same files SIGKILLed at seeded random moments
 *   (≥20 kills that hit a running process: during start-up and while it writes), restarted each time, then one run
 *   to the end.
 *
 * A replay starts again from its first file each time, so every kill leaves some batches written and others not;
 * the writes are idempotent and guarded, so the final tables must equal the reference row for row (per-table md5 of
 * the ordered rows over CHAIN_TABLES; `ingest_checkpoint.updated_at` is left out by tableDigests). Needs PostgreSQL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHAIN_TABLES, createTestDb, tableDigests, type TestDb } from '../helpers/db.js';
import { LONG, record } from './report.js';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURES = ['transactions', 'accounts'].map((d) => join(ROOT, 'test', 'fixtures', 'das', 'decoded', d));
const KILLS = LONG ? 60 : 20;
const SEED = Number(process.env.SOLGATE_RELIABILITY_SEED ?? 20261124);
const hasPostgres = !!process.env.DATABASE_URL;
const dbs: TestDb[] = [];

/** Mulberry32: the kill times of a run are reproducible from the seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Starts `solgate replay` of the fixtures into `url`; resolves with its exit (code or signal) and the time taken. */
function replay(url: string): { child: ChildProcess; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number; output: string }> } {
  const t0 = Date.now();
  const out: string[] = [];
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'solgate.js'), 'replay', ...FIXTURES], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn', SOLGATE_OFFCHAIN_FETCH: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => out.push(String(d)));
  child.stderr!.on('data', (d: Buffer) => out.push(String(d)));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number; output: string }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, ms: Date.now() - t0, output: out.join('') })),
  );
  return { child, done };
}

async function freshDb(): Promise<TestDb> {
  const t = await createTestDb();
  dbs.push(t);
  return t;
}

afterAll(async () => {
  for (const t of dbs) await t.drop().catch(() => {});
});

describe.skipIf(!hasPostgres)('replay crash recovery on the recorded DAS fixtures (needs DATABASE_URL)', () => {
  it(`solgate replay SIGKILLed ${KILLS}+ times, then run to the end: tables identical to one clean replay`, async () => {
    const ref = await freshDb();
    const clean = await replay(ref.url!).done;
    expect(clean.code, clean.output).toBe(0);
    const reference = await tableDigests(ref.db, CHAIN_TABLES);
    const rows = Object.values(reference).reduce((a, d) => a + d.rows, 0);
    expect(rows).toBeGreaterThan(100);

    const t = await freshDb();
    const random = rng(SEED);
    let kills = 0;
    let finishedBeforeKill = 0;
    let attempts = 0;
    const killedAtMs: number[] = [];
    while (kills < KILLS && attempts < KILLS * 4) {
      attempts++;
      const r = replay(t.url!);
      // Uniform over start-up and the writing part of a clean run's duration.
      const at = Math.round(random() * clean.ms);
      const timer = setTimeout(() => r.child.kill('SIGKILL'), at);
      const res = await r.done;
      clearTimeout(timer);
      if (res.signal === 'SIGKILL') {
        kills++;
        killedAtMs.push(at);
      } else {
        expect(res.code, res.output).toBe(0);
        finishedBeforeKill++;
      }
    }
    expect(kills).toBeGreaterThanOrEqual(KILLS);
    const last = await replay(t.url!).done;
    expect(last.code, last.output).toBe(0);
    const after = await tableDigests(t.db, CHAIN_TABLES);
    const differing = Object.keys(reference).filter((k) => reference[k].md5 !== after[k]?.md5 || reference[k].rows !== after[k]?.rows);
    const figures = {
      fixtures: 'test/fixtures/das/decoded (transactions, accounts)',
      seed: SEED,
      kills,
      finishedBeforeKill,
      killedAtMs,
      cleanReplayMs: clean.ms,
      tablesCompared: Object.keys(reference).length,
      rowsCompared: rows,
      digestsEqual: differing.length === 0,
      differingTables: differing,
    };
    record('replay-crash', figures);
    console.log(`[replay-crash] ${JSON.stringify(figures)}`);
    expect(differing).toEqual([]);
  }, 20 * 60_000);
});
