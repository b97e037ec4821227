/**
 * Crash recovery of ingestion on the recorded fixtures (issue #9; the localnet workload is in ingest-crash.test.ts).
 * Two recorded workloads are replayed with `solgate replay` (a child process):
 *
 * - the DAS reference indexer's recorded Geyser-style transactions and account snapshots (test/fixtures/das/decoded:
 *   Bubblegum, Token Metadata, MPL Core, SPL Token), all in one database;
 * - the Photon reference indexer's recorded Light (ZK Compression) transactions (test/fixtures/photon-transactions),
 *   one database per recorded case (each case is its own chain history: V1/V2 state trees, address trees, batch
 *   appends/nullifies, rollovers; mixing cases in one database would not be a history any chain produced), with the
 *   Light tree metadata Photon's tests pre-seed (`--light-trees`). The files are given in chain order (recorded slot,
 *   ties in the order of the upstream test's inputs in cases.json): `solgate replay` applies files in the order given,
 *   and the directories' name order is not a history either (a forester batch would come before the transactions
 *   that queued its inputs, and the reference itself would record tree problems).
 *
 * For each workload: a reference replay into a fresh database, no faults; then a crash run into another fresh
 * database: `solgate replay` of the same files SIGKILLed at seeded random moments (kills that hit a running process:
 * during start-up and while it writes), restarted each time, then one run to the end.
 *
 * A replay starts again from its first file each time, so every kill leaves some batches written and others not;
 * the writes are idempotent and guarded, so the final tables must equal the reference row for row (per-table md5 of
 * the ordered rows over CHAIN_TABLES, plus ZK_TABLES for the Photon cases; `ingest_checkpoint.updated_at` is left out
 * by tableDigests). Needs PostgreSQL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHAIN_TABLES, ZK_TABLES, createTestDb, tableDigests, type TestDb } from '../helpers/db.js';
import { LONG } from './report.js';
import { reporter, rng } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DAS = ['transactions', 'accounts'].map((d) => join(ROOT, 'test', 'fixtures', 'das', 'decoded', d));
const PHOTON_DIR = join(ROOT, 'test', 'fixtures', 'photon-transactions');
const LIGHT_TREES = join(ROOT, 'test', 'fixtures', 'photon-snapshots', 'tree-metadata.json');
const PHOTON_CASES = readdirSync(PHOTON_DIR).sort();
const CASES_JSON = join(ROOT, 'test', 'fixtures', 'photon-snapshots', 'cases.json');
const DAS_KILLS = LONG ? 60 : 20;
/** Kills per Photon case: the bigger cases (≥40 transactions) get the full count, the small ones a few. */
const photonKills = (transactions: number) => (transactions >= 40 ? (LONG ? 30 : 10) : LONG ? 6 : 2);
const SEED = Number(process.env.SOLGATE_RELIABILITY_SEED ?? 20261124);
const hasPostgres = !!process.env.DATABASE_URL;
const dbs: TestDb[] = [];
const report = reporter('replay-crash');

type Exit = { code: number | null; signal: NodeJS.Signals | null; ms: number; output: string };

/** Starts `solgate replay ...args` into `url`; resolves with its exit (code or signal) and the time taken. */
function replay(url: string, args: string[]): { child: ChildProcess; done: Promise<Exit> } {
  const t0 = Date.now();
  const out: string[] = [];
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'solgate.js'), 'replay', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn', SOLGATE_OFFCHAIN_FETCH: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => out.push(String(d)));
  child.stderr!.on('data', (d: Buffer) => out.push(String(d)));
  const done = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, ms: Date.now() - t0, output: out.join('') })),
  );
  return { child, done };
}

/** A Photon case's files in chain order: recorded slot, then the upstream test's input order (cases.json). */
function chainOrder(name: string): string[] {
  const dir = join(PHOTON_DIR, name);
  type Case = { id: string; inputs: { signature?: string }[] };
  const doc = JSON.parse(readFileSync(CASES_JSON, 'utf8')) as { snapshotCases: Case[]; assertionCases: Case[] };
  const upstream = [...doc.snapshotCases, ...doc.assertionCases].find((c) => c.id === name)?.inputs.map((i) => i.signature) ?? [];
  const rank = (f: string) => (upstream.includes(f) ? upstream.indexOf(f) : upstream.length);
  const slot = new Map(readdirSync(dir).map((f) => [f, (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { slot: number }).slot]));
  return [...slot.keys()].sort((a, b) => slot.get(a)! - slot.get(b)! || rank(a) - rank(b) || (a < b ? -1 : 1)).map((f) => join(dir, f));
}

/** Problems the ingester logged (tree problems, parse failures: pino level ≥ 40). */
const problemsIn = (output: string) => output.split('\n').filter((l) => /"level":(4|5|6)0/.test(l));

async function freshDb(): Promise<TestDb> {
  const t = await createTestDb();
  dbs.push(t);
  return t;
}

/**
 * One workload: a clean reference replay, then `kills` SIGKILLed replays into another database at seeded moments
 * (uniform over a clean run's duration, start-up included) and one run to the end. Returns the figures and the
 * tables whose digests differ from the reference.
 */
async function crashRun(args: string[], tables: readonly string[], kills: number, seed: number) {
  const ref = await freshDb();
  const clean = await replay(ref.url!, args).done;
  expect(clean.code, clean.output).toBe(0);
  // The reference is a complete, problem-free indexing of the workload (otherwise equal digests prove little).
  expect(problemsIn(clean.output), clean.output).toEqual([]);
  const reference = await tableDigests(ref.db, tables);
  const rows = Object.values(reference).reduce((a, d) => a + d.rows, 0);

  const t = await freshDb();
  const random = rng(seed);
  let killed = 0;
  let finishedBeforeKill = 0;
  let attempts = 0;
  const killedAtMs: number[] = [];
  while (killed < kills && attempts < kills * 4) {
    attempts++;
    const r = replay(t.url!, args);
    const at = Math.round(random() * clean.ms);
    const timer = setTimeout(() => r.child.kill('SIGKILL'), at);
    const res = await r.done;
    clearTimeout(timer);
    if (res.signal === 'SIGKILL') {
      killed++;
      killedAtMs.push(at);
    } else {
      expect(res.code, res.output).toBe(0);
      finishedBeforeKill++;
    }
  }
  expect(killed).toBeGreaterThanOrEqual(kills);
  const last = await replay(t.url!, args).done;
  expect(last.code, last.output).toBe(0);
  expect(problemsIn(last.output), last.output).toEqual([]);
  const after = await tableDigests(t.db, tables);
  const differing = Object.keys(reference).filter((k) => reference[k].md5 !== after[k]?.md5 || reference[k].rows !== after[k]?.rows);
  return {
    figures: { kills: killed, finishedBeforeKill, killedAtMs, cleanReplayMs: clean.ms, tablesCompared: tables.length, rowsCompared: rows, digestsEqual: differing.length === 0, differingTables: differing },
    rows,
    differing,
  };
}

afterAll(async () => {
  for (const t of dbs) await t.drop().catch(() => {});
});

describe.skipIf(!hasPostgres)('replay crash recovery on the recorded fixtures (needs DATABASE_URL)', () => {
  it(`DAS fixtures: solgate replay SIGKILLed ${DAS_KILLS}+ times, then run to the end: tables identical to one clean replay`, async () => {
    const { figures, rows, differing } = await crashRun(DAS, CHAIN_TABLES, DAS_KILLS, SEED);
    expect(rows).toBeGreaterThan(100);
    report({ das: { fixtures: 'test/fixtures/das/decoded (transactions, accounts)', seed: SEED, ...figures } });
    expect(differing).toEqual([]);
  }, 20 * 60_000);

  it('Photon fixtures, one database per recorded case: SIGKILLed replays, then run to the end: ZK and chain tables identical to one clean replay', async () => {
    const perCase: Record<string, unknown> = {};
    const failures: string[] = [];
    let totalKills = 0;
    for (const [i, name] of PHOTON_CASES.entries()) {
      const files = chainOrder(name);
      const transactions = files.length;
      const { figures, differing } = await crashRun(['--light-trees', LIGHT_TREES, ...files], [...CHAIN_TABLES, ...ZK_TABLES], photonKills(transactions), SEED + i + 1);
      // A clean replay of every case writes ZK rows (accounts, nodes, transactions): the comparison is not vacuous.
      expect(figures.rowsCompared, name).toBeGreaterThan(transactions);
      perCase[name] = { transactions, ...figures };
      totalKills += figures.kills;
      if (differing.length) failures.push(`${name}: ${differing.join(', ')}`);
    }
    report({ photon: { fixtures: 'test/fixtures/photon-transactions (one database per case, chain order)', seed: SEED, cases: PHOTON_CASES.length, kills: totalKills, perCase } });
    expect(totalKills).toBeGreaterThanOrEqual(20);
    expect(failures).toEqual([]);
  }, 30 * 60_000);
});
