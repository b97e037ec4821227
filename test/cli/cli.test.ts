/**
 * The `solgate` command as a user runs it (bin/solgate.js in a child process, embedded database in a temp
 * directory): replay of the recorded Geyser-style DAS transactions and account files, keys, migrate, config.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openDb } from '../../src/store/db.js';
import { bytesToBase58 } from '../../src/core/encoding.js';
import { listTrees } from '../../src/store/zk/trees.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const DAS = join(ROOT, 'test', 'fixtures', 'das', 'decoded');
const dataDir = mkdtempSync(join(tmpdir(), 'solgate-cli-'));
const env = { ...process.env, DATABASE_URL: '', SOLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };

async function solgate(...args: string[]) {
  try {
    const r = await run(process.execPath, [join(ROOT, 'bin', 'solgate.js'), ...args], { env, cwd: ROOT, timeout: 120_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('solgate CLI', () => {
  it('migrate, then config lists every variable', async () => {
    const m = await solgate('migrate');
    expect(m.code).toBe(0);
    expect(m.stdout).toMatch(/applied: 001_spine\.sql|up to date/);
    expect((await solgate('migrate')).stdout).toMatch(/up to date/);
    const c = await solgate('config');
    for (const v of ['PORT=8080', 'DATABASE_URL=', 'SOLGATE_DATA_DIR=./.data', 'SOLANA_RPC_URL=']) expect(c.stdout).toContain(v);
  });

  it('replay ingests the recorded Geyser-style transactions and account files, in the given order', async () => {
    const txDir = join(DAS, 'transactions');
    const accDir = join(DAS, 'accounts');
    const txPaths = readdirSync(txDir, { recursive: true }).map(String).filter((f) => f.endsWith('.json'));
    const txFiles = txPaths.length;
    // Some transactions are recorded in more than one case.
    const distinctSigs = new Set(txPaths.map((f) => (JSON.parse(readFileSync(join(txDir, f), 'utf8')) as { signature: string }).signature)).size;
    const r = await solgate('replay', accDir, txDir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`${txFiles} transactions`));
    // Token accounts from the account files: mint/owner/amount as the SPL Token layout stores them.
    const files = readdirSync(accDir, { recursive: true }).map(String).filter((f) => f.endsWith('.json'));
    // The same account is recorded in several cases at different slots: the newest slot is the current state.
    const newest = new Map<string, { pubkey: string; owner: string; slot: number; data: [string, string] }>();
    for (const f of files) {
      const a = JSON.parse(readFileSync(join(accDir, f), 'utf8')) as { pubkey: string; owner: string; slot: number; data: [string, string] };
      if (a.owner !== 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' || Buffer.from(a.data[0], 'base64').length !== 165) continue;
      const cur = newest.get(a.pubkey);
      if (!cur || a.slot > cur.slot) newest.set(a.pubkey, a);
    }
    const tokenAccounts = [...newest.values()];
    expect(tokenAccounts.length).toBeGreaterThan(5);
    const db = await openDb({ dataDir });
    try {
      for (const a of tokenAccounts) {
        const bytes = Buffer.from(a.data[0], 'base64');
        const { rows } = await db.query<{ mint: string; owner: string; amount: string }>('SELECT mint, owner, amount::text AS amount FROM token_accounts WHERE address = $1', [a.pubkey]);
        expect(rows[0], a.pubkey).toEqual({ mint: bytesToBase58(bytes.subarray(0, 32)), owner: bytesToBase58(bytes.subarray(32, 64)), amount: bytes.readBigUInt64LE(64).toString() });
      }
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM transactions WHERE NOT has_meta');
      expect(rows[0].n).toBe(distinctSigs);
    } finally {
      await db.close();
    }
    // A second replay changes nothing.
    const again = await solgate('replay', accDir, txDir);
    expect(again.code).toBe(0);
  });

  it('replay --light-trees loads the Light tree metadata and --slot indexes the recorded transactions at that slot', async () => {
    const treesFile = join(ROOT, 'test', 'fixtures', 'photon-snapshots', 'tree-metadata.json');
    const trees = (JSON.parse(readFileSync(treesFile, 'utf8')) as { trees: { tree: string; queue: string }[] }).trees;
    const dir = join(ROOT, 'test', 'fixtures', 'photon-transactions', 'lamport_transfers');
    const sigs = readdirSync(dir);
    const r = await solgate('replay', '--light-trees', treesFile, '--slot', '0', dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`loaded metadata of ${trees.length} Light trees`);
    const db = await openDb({ dataDir });
    try {
      const byTree = (a: { tree: string }, b: { tree: string }) => (a.tree < b.tree ? -1 : 1);
      const stored = (await listTrees(db)).map((t) => ({ tree: t.tree, queue: t.queue }));
      expect(stored.sort(byTree)).toEqual(trees.map((t) => ({ tree: t.tree, queue: t.queue })).sort(byTree));
      const { rows } = await db.query<{ slot: string }>('SELECT slot::text AS slot FROM transactions WHERE signature = ANY($1::text[])', [sigs]);
      expect(rows.map((x) => x.slot)).toEqual(sigs.map(() => '0'));
    } finally {
      await db.close();
    }
    const bad = await solgate('replay', '--light-trees', join(dir, sigs[0]), dir);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--light-trees');
    expect((await solgate('replay', '--slot', 'x', dir)).code).not.toBe(0);
  });

  it('replay of a file that is not chain data fails with a message naming the file', async () => {
    const r = await solgate('replay', join(ROOT, 'package.json'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('package.json');
  });

  it('keys create prints the key once (JSON), validates allow-lists, and keys list never shows secrets', async () => {
    const c = await solgate('keys', 'create', '--name', 'ci', '--allow-ip', '10.0.0.0/8', '--allow-ip', '2001:db8::/32', '--json');
    expect(c.code).toBe(0);
    const out = JSON.parse(c.stdout) as { key: string; id: string; allowedIps: string[] };
    expect(out.key).toMatch(/^sg_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(out.allowedIps).toEqual(['10.0.0.0/8', '2001:db8::/32']);
    const list = await solgate('keys', 'list');
    expect(list.stdout).toContain(out.id);
    expect(list.stdout).not.toContain(out.key.slice(`sg_${out.id}_`.length)); // the secret may itself contain '_'
    expect((await solgate('keys', 'create')).code).toBe(2);
    const bad = await solgate('keys', 'create', '--name', 'x', '--allow-ip', '10.0.0.300');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not an IP address or CIDR/);
    const badPlan = await solgate('keys', 'create', '--name', 'x', '--plan', 'gold');
    expect(badPlan.code).toBe(2);
    expect(badPlan.stderr).toMatch(/--plan must be one of free, developer, business, professional/);
    const rotated = await solgate('keys', 'rotate', out.id, '--json');
    expect(rotated.code).toBe(0);
    const fresh = JSON.parse(rotated.stdout) as { key: string; id: string };
    expect(fresh.id).toBe(out.id);
    expect(fresh.key).toMatch(new RegExp(`^sg_${out.id}_`));
    expect(fresh.key).not.toBe(out.key);
    expect((await solgate('keys', 'revoke', out.id)).stdout).toContain('revoked');
    expect((await solgate('keys', 'rotate', out.id)).code).toBe(1);
  });

  it('unknown commands and options exit 2 with one line naming the mistake and only the relevant usage', async () => {
    const r = await solgate('frobnicate');
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe("solgate: unknown command 'frobnicate' (solgate --help lists the commands)");
    const slot = await solgate('ingest', '--from-slot', 'abc');
    expect(slot.code).toBe(2);
    expect(slot.stderr).toContain('--from-slot must be a slot number, got "abc"');
    expect(slot.stderr).toContain('solgate ingest [--rpc URL] [--from-slot N]');
    expect(slot.stderr).not.toContain('solgate keys');
    const opt = await solgate('keys', 'list', '--frob');
    expect(opt.code).toBe(2);
    expect(opt.stderr).toMatch(/^solgate: Unknown option '--frob'\nusage:\n  solgate keys list \[--json\]\n$/);
    // An expiry in the past is refused as the admin API refuses it, before anything is written.
    const past = await solgate('keys', 'create', '--name', 'late', '--expires', '2020-01-01');
    expect(past.code).toBe(2);
    expect(past.stderr).toContain('--expires must be in the future');
    expect((await solgate('keys', 'list', '--json')).stdout).not.toContain('late');
    // No stack traces: one line per failure.
    const missing = await solgate('identities', 'import', '/nonexistent/file.csv');
    expect(missing.code).toBe(2);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
  });

  it('--json prints only the JSON document on stdout (logs go to stderr), also when migrations run', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'solgate-cli-json-'));
    try {
      const e = { ...env, SOLGATE_DATA_DIR: fresh, LOG_LEVEL: 'info' };
      const c = await run(process.execPath, [join(ROOT, 'bin', 'solgate.js'), 'keys', 'create', '--name', 'json-only', '--json'], { env: e, cwd: ROOT, timeout: 120_000 });
      expect(c.stderr).toContain('migrations applied');
      expect((JSON.parse(c.stdout) as { name: string }).name).toBe('json-only');
      const l = await run(process.execPath, [join(ROOT, 'bin', 'solgate.js'), 'keys', 'list', '--json'], { env: e, cwd: ROOT, timeout: 120_000 });
      expect((JSON.parse(l.stdout) as { name: string; status: string }[]).map((k) => [k.name, k.status])).toEqual([['json-only', 'active']]);
      const cfg = JSON.parse((await solgate('config', '--json')).stdout) as { name: string; default: string | null }[];
      expect(cfg.find((v) => v.name === 'PORT')?.default).toBe('8080');
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});
