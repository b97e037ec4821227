/**
 * A Photon case from the command line, as the check runs it: `solgate replay --light-trees FILE --slot 0`
 * with the case's recorded transactions in its order into a fresh embedded database, then `solgate serve` (no
 * ingestion) over that database and the case's queries over HTTP, compared with the recorded answers.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { comparable, expectedOf, inputFile, loadPhotonCases } from '../zk/harness.js';
import { freePort } from '../helpers/net.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const dataDir = mkdtempSync(join(tmpdir(), 'solgate-replay-serve-'));
const env = { ...process.env, DATABASE_URL: '', SOLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', SOLANA_RPC_URL: '' };
let server: ChildProcess | null = null;

afterAll(async () => {
  server?.kill('SIGINT');
  await new Promise((r) => setTimeout(r, 500));
  rmSync(dataDir, { recursive: true, force: true });
});

const solgate = (...args: string[]) => run(process.execPath, [join(ROOT, 'bin', 'solgate.js'), ...args], { env, cwd: ROOT, timeout: 120_000 });

describe('solgate replay, then serve', () => {
  it('lamport_transfers/payer: every query over HTTP equals the recorded answer', async () => {
    const c = loadPhotonCases().snapshotCases.find((x) => x.id === 'lamport_transfers/payer')!;
    const trees = join(ROOT, 'test', 'fixtures', 'photon-snapshots', 'tree-metadata.json');
    const r = await solgate('replay', '--light-trees', trees, '--slot', '0', ...c.inputs.map((i) => inputFile(i)!));
    expect(r.stdout).toContain(`replayed ${c.inputs.length} files`);
    const { key } = JSON.parse((await solgate('keys', 'create', '--name', 'replay', '--json')).stdout) as { key: string };
    const port = await freePort();
    server = spawn(process.execPath, [join(ROOT, 'bin', 'solgate.js'), 'serve'], { env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, cwd: ROOT, stdio: 'ignore' });
    const url = `http://127.0.0.1:${port}/?api-key=${key}`;
    const call = async (method: string, params: unknown) => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
      return (await res.json()) as { result?: unknown; error?: unknown };
    };
    const deadline = Date.now() + 60_000;
    while (true) {
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then((x) => x.ok, () => false);
      if (ok) break;
      if (Date.now() > deadline) throw new Error('serve did not start');
      await new Promise((res) => setTimeout(res, 250));
    }
    let compared = 0;
    for (const q of c.queries) {
      if (q.method === 'getValidityProof') continue; // needs a prover (PROVER_URL); covered with a stand-in elsewhere
      const got = await call(q.method, q.params);
      expect(got.error, q.method).toBeUndefined();
      const cmp = comparable(got.result, expectedOf(q), q);
      expect(cmp.actual, q.method).toEqual(cmp.expected);
      compared++;
    }
    expect(compared).toBe(c.queries.length - 1);
    // Without a prover the validity proof says so clearly.
    const vp = await call('getValidityProof', c.queries.find((q) => q.method === 'getValidityProof')!.params);
    expect(JSON.stringify(vp.error)).toMatch(/prover/i);
  });
});
