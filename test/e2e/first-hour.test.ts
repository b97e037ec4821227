/**
 * The first hour of a new user, with real processes: `npm start` (the embedded demo) owns its data directory, the
 * admin CLI works beside it by asking it (a key created is usable at once), other writers are refused in one line,
 * a stale lock is taken over, Ctrl-C to the whole process group (as a terminal sends it, with npm forwarding it
 * again) saves the demo chain every time, a second Ctrl-C exits at once saying what was not saved, and fatal
 * start-up errors exit non-zero with one line naming the cause.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/net.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'solgate.js');
const dataDir = mkdtempSync(join(tmpdir(), 'solgate-first-hour-'));
const children: ChildProcess[] = [];

const baseEnv = (extra: Record<string, string> = {}) => ({
  ...process.env,
  DATABASE_URL: '',
  SOLANA_RPC_URL: '',
  REDIS_URL: '',
  SOLGATE_DATA_DIR: dataDir,
  SOLGATE_ADMIN_TOKEN: '',
  SOLGATE_LOCALNET_LIGHT: 'false',
  SOLGATE_OFFCHAIN_FETCH: 'false',
  LOG_LEVEL: 'info',
  ...extra,
});

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) process.kill(-c.pid!, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function solgate(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: baseEnv(env), cwd: ROOT, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** `npm start` in its own process group, as a terminal runs it. */
function npmStart(env: Record<string, string>) {
  const child = spawn('npm', ['start'], { env: baseEnv(env), cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => out };
}

async function until(what: string, ok: () => boolean | Promise<boolean>, output: () => string, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}:\n${output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The first line of stderr that is not a JSON log line. */
const messageLine = (r: Ran) => r.stderr.split('\n').find((l) => l && !l.startsWith('{')) ?? '';

describe('the embedded demo has one owner, and the CLI works beside it', () => {
  let port = 0;
  let run: ReturnType<typeof npmStart>;

  it('npm start prints a working key; keys/identities/migrate act through it; other writers get one line', async () => {
    port = await freePort();
    const localnet = await freePort();
    run = npmStart({ PORT: String(port), HOST: '127.0.0.1', SOLGATE_LOCALNET_PORT: String(localnet) });
    await until('the banner', () => run.output().includes('Demo wallets:'), run.output);
    const banner = run.output();
    const demoKey = /API key \(the demo's, kept across restarts\): (\S+)/.exec(banner)?.[1];
    expect(demoKey).toMatch(/^sg_/);
    expect(banner).toContain(`embedded database (PGlite) in ${dataDir}`);
    expect(banner).toMatch(/\/dashboard\s+admin token: \S{16,}/);
    expect(banner).toContain('/metrics');
    const wallet = /Demo wallets: (\S+)/.exec(banner)![1];

    // The lock names this process group's node and is readable by its owner only.
    const lockFile = join(dataDir, 'solgate.lock');
    const lock = JSON.parse(readFileSync(lockFile, 'utf8')) as { pid: number; command: string; admin?: { url: string } };
    expect(lock.command).toBe('solgate serve --demo');
    expect(lock.admin?.url).toBe(`http://127.0.0.1:${port}/admin/api`);
    expect(statSync(lockFile).mode & 0o777).toBe(0o600);

    // A key created while the server runs works at once.
    const created = await solgate(['keys', 'create', '--name', 'beside-the-server', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const { key, id } = JSON.parse(created.stdout) as { key: string; id: string };
    const res = await fetch(`http://127.0.0.1:${port}/v1/wallet/${wallet}/balances`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    const list = await solgate(['keys', 'list', '--json']);
    expect((JSON.parse(list.stdout) as { id: string; name: string }[]).map((k) => k.name)).toEqual(['demo', 'beside-the-server']);
    // The secret (base64url, may itself contain '_') is everything after `sg_<id>_`.
    expect(list.stdout).not.toContain(key.slice(`sg_${id}_`.length));

    // Revoked through the server: refused at once.
    expect((await solgate(['keys', 'revoke', id])).code).toBe(0);
    expect((await fetch(`http://127.0.0.1:${port}/v1/wallet/${wallet}/balances`, { headers: { 'x-api-key': key } })).status).toBe(401);

    // Identities imported through the server answer at once.
    const csv = join(dataDir, '..', `first-hour-${process.pid}.csv`);
    writeFileSync(csv, `address,name,type,category\n${wallet},First Hour Wallet,wallet,Test\n`);
    try {
      const imp = await solgate(['identities', 'import', csv]);
      expect(imp.code, imp.stderr).toBe(0);
    } finally {
      rmSync(csv, { force: true });
    }
    const ident = await fetch(`http://127.0.0.1:${port}/v1/wallet/${wallet}/identity`, { headers: { 'x-api-key': demoKey! } });
    expect(((await ident.json()) as { name: string }).name).toBe('First Hour Wallet');

    const mig = await solgate(['migrate']);
    expect(mig.code).toBe(0);
    expect(mig.stdout).toContain('up to date (the running server');

    // Another writer on the same directory: one line naming the owner, non-zero, nothing started.
    const ingest = await solgate(['ingest', '--rpc', `http://127.0.0.1:${localnet}`]);
    expect(ingest.code).toBe(1);
    expect(messageLine(ingest)).toContain(`is in use by another solgate process (pid ${lock.pid}: solgate serve --demo`);
    expect(ingest.stderr.trim().split('\n')).toHaveLength(1);
    const second = await solgate(['serve', '--demo'], { PORT: String(await freePort()), SOLGATE_LOCALNET_PORT: String(await freePort()) });
    expect(second.code).toBe(1);
    expect(messageLine(second)).toContain(`pid ${lock.pid}`);
    expect(second.stdout).not.toContain('Demo wallets');
  }, 240_000);

  it('Ctrl-C to the process group saves the chain; the next start restores it with the same key', async () => {
    const keyBefore = /API key \(the demo's, kept across restarts\): (\S+)/.exec(run.output())![1];
    for (let i = 0; i < 3; i++) {
      if (i > 0) {
        run = npmStart({ PORT: String(port), HOST: '127.0.0.1', SOLGATE_LOCALNET_PORT: String(await freePort()) });
        await until('the banner', () => run.output().includes('Demo wallets:'), run.output);
        expect(run.output()).toContain('chain restored from its snapshot');
        expect(run.output()).toContain(`API key (the demo's, kept across restarts): ${keyBefore}`);
      }
      // Let the chain and ingestion move on a little, at a different point each time.
      await new Promise((r) => setTimeout(r, 500 + i * 700));
      process.kill(-run.child.pid!, 'SIGINT');
      // npm re-raises the signal on itself once node has exited; node's own outcome is in its output and the lock.
      await run.exited;
      expect(run.output()).toContain('chain saved; the next start continues it');
      expect(run.output()).not.toContain('exiting at once');
      expect(existsSync(join(dataDir, 'solgate.lock'))).toBe(false);
    }
  }, 240_000);

  it('a second Ctrl-C exits at once and says the chain was not saved', async () => {
    run = npmStart({ PORT: String(port), HOST: '127.0.0.1', SOLGATE_LOCALNET_PORT: String(await freePort()) });
    await until('the banner', () => run.output().includes('Demo wallets:'), run.output);
    // A request whose body is still arriving holds the graceful shutdown (it waits for requests in flight).
    const held = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-type': 'application/json', 'content-length': '1000' } });
    held.on('error', () => {});
    held.write('{"jsonrpc":"2.0",');
    await new Promise((r) => setTimeout(r, 300));
    process.kill(-run.child.pid!, 'SIGINT');
    await until('the shutdown to begin', () => run.output().includes('shutting down gracefully'), run.output, 30_000);
    // Well after the first: a second Ctrl-C, not the runner forwarding the first one again.
    await new Promise((r) => setTimeout(r, 1500));
    process.kill(-run.child.pid!, 'SIGINT');
    await run.exited;
    held.destroy();
    expect(run.output()).toContain('second SIGINT: exiting at once; not saved: the demo chain');
    expect(run.output()).not.toContain('chain saved; the next start continues it');
  });

  it('a lock left by a killed process is stale: the next command takes the directory', async () => {
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.once('exit', r));
    writeFileSync(join(dataDir, 'solgate.lock'), JSON.stringify({ pid: dead.pid, procStart: null, command: 'solgate serve --demo', startedAt: new Date().toISOString() }));
    const list = await solgate(['keys', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('demo');
  });
});

describe('fatal start-up errors exit non-zero with one line naming the cause', () => {
  const fatal = async (env: Record<string, string>, args = ['serve']) => {
    const dir = mkdtempSync(join(tmpdir(), 'solgate-fatal-'));
    try {
      const r = await solgate(args, { SOLGATE_DATA_DIR: dir, ...env });
      return { ...r, line: messageLine(r) };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('port in use', async () => {
    const srv = createServer();
    const port = await new Promise<number>((resolve) => srv.listen(0, '127.0.0.1', () => resolve((srv.address() as { port: number }).port)));
    try {
      const r = await fatal({ PORT: String(port), HOST: '127.0.0.1' }, ['serve', '--demo']);
      expect(r.code).toBe(1);
      expect(r.line).toBe(`solgate: port ${port} on 127.0.0.1 is already in use (another solgate or another server?): stop it, or set PORT to a free port`);
      expect(r.stdout).not.toContain('Demo wallets');
    } finally {
      srv.close();
    }
  });

  it('cluster URL that does not resolve, or where nothing listens', async () => {
    const port = await freePort();
    const dns = await fatal({ PORT: String(await freePort()), SOLANA_RPC_URL: 'http://solgate-no-such-host.invalid:8899' });
    expect(dns.code).toBe(1);
    expect(dns.line).toMatch(/^solgate: cannot resolve the host of SOLANA_RPC_URL http:\/\/solgate-no-such-host\.invalid:8899\/ \((ENOTFOUND|EAI_AGAIN)\): check the URL$/);
    const refused = await fatal({ PORT: String(await freePort()), SOLANA_RPC_URL: `http://127.0.0.1:${port}` });
    expect(refused.code).toBe(1);
    expect(refused.line).toBe(`solgate: cannot reach the cluster RPC http://127.0.0.1:${port}/ (SOLANA_RPC_URL): ECONNREFUSED; is it running, and is the URL right?`);
  }, 180_000);

  it('database that does not exist, server not running, bad configuration', async () => {
    const missing = await fatal({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/solgate_no_such_db' });
    // Without a PostgreSQL server on this machine the refusal is the other case below; both are one line.
    expect(missing.code).toBe(1);
    expect(missing.line).toMatch(/database "solgate_no_such_db" does not exist .*createdb solgate_no_such_db|cannot connect to PostgreSQL/);
    const down = await fatal({ DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/x` });
    expect(down.code).toBe(1);
    expect(down.line).toMatch(/^solgate: cannot connect to PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/x \(ECONNREFUSED\): is the server running and reachable\? Check DATABASE_URL$/);
    const bad = await fatal({ SOLGATE_COMMITMENT: 'fastest' });
    expect(bad.code).toBe(2);
    expect(bad.line).toBe('solgate: SOLGATE_COMMITMENT must be confirmed or finalized, got "fastest"');
    for (const r of [missing, down, bad]) expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('the PostgreSQL demo has one chain writer per database (needs DATABASE_URL)', () => {
  it('a second `serve --demo` on the same database exits with one line naming the database', async () => {
    const { createTestDb } = await import('../helpers/db.js');
    const t = await createTestDb();
    const snapDir = mkdtempSync(join(tmpdir(), 'solgate-pg-demo-'));
    const env = (port: number) => ({ DATABASE_URL: t.url!, SOLGATE_DATA_DIR: snapDir, PORT: String(port), HOST: '127.0.0.1', SOLGATE_LOCALNET_PORT: '0', SOLGATE_WEBHOOK_CONCURRENCY: '0' });
    const first = npmStart(env(await freePort()));
    try {
      await until('the first demo banner', () => first.output().includes('Demo wallets'), first.output);
      const second = await solgate(['serve', '--demo'], env(await freePort()));
      expect(second.code).toBe(1);
      const where = new URL(t.url!);
      expect(messageLine(second)).toBe(`solgate: another \`solgate serve --demo\` runs on the database postgres://${where.username}@${where.host}${where.pathname}: stop it, or point DATABASE_URL at another database`);
      expect(second.stdout).not.toContain('Demo wallets');
    } finally {
      process.kill(-first.child.pid!, 'SIGINT');
      await first.exited;
      rmSync(snapDir, { recursive: true, force: true });
      await t.drop();
    }
  }, 240_000);
});
