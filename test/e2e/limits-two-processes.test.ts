/**
 * Two `solgate serve` processes sharing PostgreSQL and Redis: a key's per-second limit holds across both (the 429s
 * start where the plan says, within one window's tolerance, not twice as late), and revoking or rotating a key takes
 * effect on both at once although each remembers the keys it checked (the change's NOTIFY reaches both). Needs PostgreSQL (DATABASE_URL, as in CI) and Redis (REDIS_URL or 127.0.0.1:6379).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createApiKey, revokeApiKey, rotateApiKey } from '../../src/store/keys.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { freePort } from '../helpers/net.js';

const ROOT = join(import.meta.dirname, '..', '..');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const hasPostgres = !!process.env.DATABASE_URL;
const ASSET = '86xCnPeV69n6t3DnyGvkKobf9FdN2H9oiVDdaMpo2MMY';

let t: TestDb;
const servers: ChildProcess[] = [];
const ports: number[] = [];
const logs: string[] = [];

beforeAll(async () => {
  if (!hasPostgres) return;
  t = await createTestDb();
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    const c = spawn(process.execPath, [join(ROOT, 'bin', 'solgate.js'), 'serve'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: t.url!, REDIS_URL, PORT: String(port), HOST: '127.0.0.1', SOLANA_RPC_URL: '', LOG_LEVEL: 'warn', SOLGATE_WEBHOOK_CONCURRENCY: '0',
        // Keys remembered far longer than the test runs: a change can only reach the other process through its NOTIFY.
        SOLGATE_KEY_CACHE_MS: '60000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    c.stderr!.on('data', (d: Buffer) => logs.push(String(d)));
    c.stdout!.on('data', (d: Buffer) => logs.push(String(d)));
    servers.push(c);
    ports.push(port);
  }
  const deadline = Date.now() + 90_000;
  for (const port of ports)
    while (!(await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false))) {
      if (Date.now() > deadline) throw new Error(`serve did not start\n${logs.join('')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
}, 120_000);

afterAll(async () => {
  for (const c of servers) c.kill('SIGTERM');
  await Promise.all(servers.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
  await t?.drop();
});

const getAsset = (port: number, key: string) =>
  fetch(`http://127.0.0.1:${port}/?api-key=${key}`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAsset', params: { id: ASSET } }),
  });

/** The status of getAsset once it is `want`, or the last one seen after 2 s. */
async function statusWithin(port: number, key: string, want: number): Promise<number> {
  const deadline = Date.now() + 2000;
  for (;;) {
    const status = (await getAsset(port, key)).status;
    if (status === want || Date.now() > deadline) return status;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!hasPostgres)('two API processes sharing Redis (needs DATABASE_URL)', () => {
  it('a free key gets 2 DAS calls per second plus a burst of 4 in total across both processes', async () => {
    const { key } = await createApiKey(t.db, { name: 'shared', plan: 'free' });
    // Start at the beginning of a second so the whole run falls in one per-second window.
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await getAsset(ports[i % 2], key)).status);
    const ok = statuses.filter((s) => s === 200).length;
    // The plan allows 2 + 4 burst; one process alone would allow that much on its own (12 in all without sharing).
    expect(ok, statuses.join(',')).toBeGreaterThanOrEqual(6);
    expect(ok, statuses.join(',')).toBeLessThanOrEqual(8);
    expect(statuses.slice(-2)).toEqual([429, 429]);
    // Both processes refuse once the shared counter is spent.
    const [a, b] = await Promise.all([getAsset(ports[0], key), getAsset(ports[1], key)]);
    expect([a.status, b.status]).toEqual([429, 429]);
    expect(a.headers.get('retry-after')).toBeTruthy();
  });

  it('revoking or rotating a key takes effect on both processes at once', async () => {
    const { key, record } = await createApiKey(t.db, { name: 'to-revoke', plan: 'professional' });
    expect((await getAsset(ports[0], key)).status).toBe(200);
    expect((await getAsset(ports[1], key)).status).toBe(200);
    const rotated = await rotateApiKey(t.db, record.id);
    for (const port of ports) {
      // The NOTIFY is sent at the change's commit; allow the listening connection a moment to deliver it.
      expect(await statusWithin(port, key, 401)).toBe(401);
      expect((await getAsset(port, rotated!.key)).status).toBe(200);
    }
    expect((await getAsset(ports[0], rotated!.key)).status).toBe(200);
    await revokeApiKey(t.db, record.id);
    for (const port of ports) {
      expect(await statusWithin(port, rotated!.key, 401)).toBe(401);
      const r = await getAsset(port, rotated!.key);
      expect(r.status).toBe(401);
      expect(((await r.json()) as { error: { code: number } }).error.code).toBe(-32401);
    }
  });
});
