/**
 * Security checks (issue #9), with real components: a real `solgate serve` process (trace logging captured) over
 * the test database (a fresh PostgreSQL database when DATABASE_URL is set, else the embedded PGlite data
 * directory), real listening sockets on 127.0.0.1, 127.0.0.2 and ::1, and a real DNS server (UDP, hand-made
 * packets) that the SSRF guard resolves names through.
 *
 *  1. Keys are never stored or logged in plain text: keys created by the CLI and the admin API, rotated by both,
 *     used (good, wrong, revoked, rotated-away, malformed) against every keyed interface with LOG_LEVEL=trace; then
 *     every column of every table (information_schema, rows cast to text) and the captured logs are scanned for
 *     each plain key and its secret part (and the logs for the admin token).
 *  2. Timing-safe comparison: key hashes and admin-token digests go through crypto.timingSafeEqual on 32-byte
 *     digests; a wrong key with the right id and one with an unknown id are refused identically; malformed keys
 *     never reach the database (queries counted through a wrapped Db). No timed assertions (project rule).
 *  3. IP allow-lists for IPv4, IPv6 and IPv4-mapped IPv6 (::ffff:127.0.0.1 connecting to a dual-stack listener vs
 *     a v4 entry, a v4 connection vs a mapped entry), through real listeners on 127.0.0.1, :: and ::1, and
 *     X-Forwarded-For with trustProxy: 403 in each interface's own error format.
 *  4. SSRF: the off-chain fetcher, webhook deliveries and webhook URL validation refuse private, loopback,
 *     link-local (metadata), unique-local, unspecified, IPv4-mapped/NAT64 forms and decimal/octal/hex IPv4 literals,
 *     DNS names resolving there, DNS rebinding (first answer public, next private) and redirects to such targets;
 *     the private listeners count zero connections.
 *     The DNS server is real, but the guard's system resolver (getaddrinfo) reads /etc/resolv.conf, which a test
 *     must not edit; so the guard's injectable `lookupAll` is a c-ares Resolver pointed at the test's DNS server —
 *     every answer still comes from real DNS packets over UDP.
 *  5. Cross-key isolation: every `:webhookID` route (enumerated from the app's route tree) answers 404 to another
 *     key and changes nothing; lists show only the caller's webhooks; usage and every admin route need the admin
 *     token; a route with a path parameter that this suite does not classify fails the suite.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('node:crypto', async (importOriginal) => {
  const m = await importOriginal<typeof import('node:crypto')>();
  return { ...m, default: m, timingSafeEqual: vi.fn(m.timingSafeEqual) };
});

import * as nodeCrypto from 'node:crypto';
import { createHash, randomBytes } from 'node:crypto';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import dns from 'node:dns';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import type { ApiDeps } from '../../src/api/deps.js';
import { createApiKey, findApiKey } from '../../src/store/keys.js';
import { openDb, type Db } from '../../src/store/db.js';
import { createWebhook } from '../../src/store/webhooks.js';
import { createFileTokenRegistry } from '../../src/pricing/token-registry.js';
import { createOffchainFetcher, type OffchainFetcher } from '../../src/offchain/fetcher.js';
import { startDeliveryWorker } from '../../src/webhooks/worker.js';
import { createGuardedAgent, type GuardedAgent } from '../../src/net/guarded-agent.js';
import { assertUrlAllowed, type LookupAll } from '../../src/net/url-checks.js';
import { adminTokenMatches } from '../../src/api/admin/auth.js';
import type { SenderDeps } from '../../src/sender/routes.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { registeredRoutes } from '../helpers/routes.js';
import { OUT_DIR, record } from './report.js';
import { sleep } from './helpers.js';
import { freePort } from '../helpers/net.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const silent = pino({ level: 'silent' });
const WALLET = '86xCnPeV69n6t3DnyGvkKobf9FdN2H9oiVDdaMpo2MMY';
const PUBLIC_IP = '93.184.216.34';
const tse = vi.mocked(nodeCrypto.timingSafeEqual);

/** A stub Sender router: status lookups answer, nothing is ever submitted. */
const senderDeps = {
  router: { status: async () => ({ jsonrpc: '2.0', id: 1, result: { value: [] } }), submit: async () => ({ failures: [] }) } as unknown as SenderDeps['router'],
  policy: {} as SenderDeps['policy'],
  rateLimitPerSecond: 1000,
};

async function makeApp(db: Db, extra: Partial<ApiDeps> = {}): Promise<FastifyInstance> {
  return buildApp({
    db,
    logger: silent,
    tokens: createFileTokenRegistry('/nonexistent/tokens.json', { overlay: new Map() }),
    explorerTxUrl: 'https://explorer.test/tx/',
    ...extra,
  });
}

/** A Db whose `query` calls are recorded (the SQL text). */
function countingDb(db: Db): { db: Db; sql: string[] } {
  const sql: string[] = [];
  const wrapped = new Proxy(db, {
    get(target, p, receiver) {
      if (p === 'query') return (text: string, params?: unknown[]) => (sql.push(text), target.query(text, params as never));
      const v = Reflect.get(target, p, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { db: wrapped, sql };
}

/** Scans every base table of the database (rows cast to text) for each needle; returns the hits and checks done. */
async function scanDatabase(db: Db, needles: string[]): Promise<{ hits: string[]; checks: number; tables: number }> {
  const { rows: tables } = await db.query<{ s: string; t: string }>(
    `SELECT table_schema AS s, table_name AS t FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  const hits: string[] = [];
  let checks = 0;
  for (const { s, t } of tables) {
    const rel = `"${s.replace(/"/g, '""')}"."${t.replace(/"/g, '""')}"`;
    for (const n of needles) {
      checks++;
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${rel} x WHERE strpos(x::text, $1) > 0`, [n]);
      if (rows[0].n > 0) hits.push(`${rel} contains ${n.slice(0, 12)}…`);
    }
  }
  return { hits, checks, tables: tables.length };
}

// ---------------------------------------------------------------------------------------------------------------
// 1. Keys never stored or logged in plain text
// ---------------------------------------------------------------------------------------------------------------

describe('keys are never stored or logged in plain text', () => {
  let t: TestDb | null = null;
  let dataDir: string | null = null;
  let server: ChildProcess | null = null;

  afterAll(async () => {
    if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    await t?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('CLI and admin-API keys, rotations, good and failing requests at LOG_LEVEL=trace: no plain key in any table or log line', async () => {
    const adminToken = randomBytes(24).toString('hex');
    const env: NodeJS.ProcessEnv = { ...process.env, SOLANA_RPC_URL: '', REDIS_URL: '', SOLGATE_OFFCHAIN_FETCH: 'false', SOLGATE_ADMIN_TOKEN: adminToken };
    if (process.env.DATABASE_URL) {
      t = await createTestDb();
      env.DATABASE_URL = t.url;
    } else {
      dataDir = mkdtempSync(join(tmpdir(), 'solgate-security-'));
      Object.assign(env, { DATABASE_URL: '', SOLGATE_DATA_DIR: dataDir });
    }
    let logs = '';
    const cli = async (...args: string[]) => {
      const r = await run(process.execPath, [join(ROOT, 'bin', 'solgate.js'), ...args], { env: { ...env, LOG_LEVEL: 'trace' }, cwd: ROOT, timeout: 120_000 });
      logs += r.stdout.split('\n').filter((l) => !l.startsWith('{"key"')).join('\n') + r.stderr;
      return r.stdout;
    };
    const keyLine = (out: string) => out.split('\n').find((l) => l.startsWith('{"key"'))!;
    // CLI: create, then rotate (the first key dies). Their JSON answer lines are the one place a key is printed.
    const cliCreated = JSON.parse(keyLine(await cli('keys', 'create', '--name', 'cli-key', '--json'))) as { key: string; id: string };
    const cliRotated = JSON.parse(keyLine(await cli('keys', 'rotate', cliCreated.id, '--json'))) as { key: string; id: string };
    expect(cliRotated.id).toBe(cliCreated.id);

    const port = await freePort();
    server = spawn(process.execPath, [join(ROOT, 'bin', 'solgate.js'), 'serve'], {
      env: { ...env, LOG_LEVEL: 'trace', PORT: String(port), HOST: '127.0.0.1' },
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (c: Buffer) => (logs += c.toString()));
    server.stderr!.on('data', (c: Buffer) => (logs += c.toString()));
    const exited = new Promise<number | null>((resolve) => server!.once('exit', (code) => resolve(code)));
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 120_000;
    while (!(await fetch(`${base}/health`).then((x) => x.ok, () => false))) {
      if (Date.now() > deadline) throw new Error(`serve did not start:\n${logs}`);
      await sleep(200);
    }

    const admin = (method: string, path: string, body?: unknown, token = adminToken) =>
      fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
    const a1 = (await (await admin('POST', '/admin/api/keys', { name: 'admin-key' })).json()) as { key: string; record: { id: string } };
    const a1Rotated = (await (await admin('POST', `/admin/api/keys/${a1.record.id}/rotate`)).json()) as { key: string };
    const a2 = (await (await admin('POST', '/admin/api/keys', { name: 'to-revoke', allowedIps: ['10.0.0.0/8'] })).json()) as { key: string; record: { id: string } };
    const a3 = (await (await admin('POST', '/admin/api/keys', { name: 'revoked' })).json()) as { key: string; record: { id: string } };
    expect((await admin('POST', `/admin/api/keys/${a3.record.id}/revoke`)).status).toBe(200);
    // Wrong admin tokens (another token, the token with a character changed, a prefix of it).
    for (const tok of ['wrong-admin-token-xxxxxxxx', adminToken.slice(0, -1) + (adminToken.endsWith('a') ? 'b' : 'a'), adminToken.slice(0, 10)])
      expect((await admin('GET', '/admin/api/keys', undefined, tok)).status).toBe(401);
    const listed = await admin('GET', '/admin/api/keys');
    expect(listed.status).toBe(200);
    const listedText = await listed.text();

    const live = [cliRotated.key, a1Rotated.key];
    const dead = [cliCreated.key, a1.key, a3.key];
    const forbidden = [a2.key];
    const secretOf = (k: string) => k.split('_').slice(2).join('_');
    const tampered = live.map((k) => k.slice(0, -2) + (k.endsWith('AA') ? 'BB' : 'AA'));
    const malformed = live.map((k) => `${k}x`).concat(live.map((k) => `sg_${'f'.repeat(16)}_${secretOf(k)}`));
    const allKeys = [...live, ...dead, ...forbidden];
    let requests = 0;
    const statuses: Record<number, number> = {};
    const call = async (key: string, expectStatus: number[]) => {
      const tries: Array<[string, RequestInit]> = [
        [`/v1/wallet/${WALLET}/balances?api-key=${encodeURIComponent(key)}`, {}],
        [`/v1/wallet/${WALLET}/history`, { headers: { 'x-api-key': key } }],
        [`/v1/wallet/not-an-address/balances?api-key=${encodeURIComponent(key)}`, {}],
        [`/?api-key=${encodeURIComponent(key)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAssetsByOwner', params: { ownerAddress: WALLET } }) }],
        [`/?api-key=${encodeURIComponent(key)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":' }],
        [`/v0/webhooks?api-key=${encodeURIComponent(key)}`, {}],
        [`/v0/token-metadata?api-key=${encodeURIComponent(key)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mintAccounts: [WALLET] }) }],
        [`/v0/transactions?api-key=${encodeURIComponent(key)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ transactions: ['x'] }) }],
        [`/fast?api-key=${encodeURIComponent(key)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[]] }) }],
      ];
      for (const [path, init] of tries) {
        const r = await fetch(`${base}${path}`, init);
        await r.arrayBuffer();
        requests++;
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (path.startsWith('/v1/wallet/' + WALLET) || path.startsWith('/v0/webhooks')) expect(expectStatus, `${path.replace(key, '<key>')} → ${r.status}`).toContain(r.status);
      }
    };
    for (const k of live) await call(k, [200]);
    for (const k of [...dead, ...tampered, ...malformed]) await call(k, [401]);
    for (const k of forbidden) await call(k, [403]);
    // A webhook created with a live key (its signing secret is not a key; the key must not be stored with it).
    const hook = await fetch(`${base}/v0/webhooks`, {
      method: 'POST',
      headers: { 'x-api-key': live[0], 'content-type': 'application/json' },
      body: JSON.stringify({ webhookURL: 'https://hooks.invalid/x', accountAddresses: [WALLET], webhookType: 'raw', transactionTypes: [] }),
    });
    expect(hook.status).toBe(200);
    requests++;

    // The admin key list shows ids, never a key or its hash.
    for (const k of allKeys) {
      expect(listedText.includes(secretOf(k))).toBe(false);
      expect(listedText.includes(createHash('sha256').update(k).digest('hex'))).toBe(false);
    }
    expect(listedText).toContain(a1.record.id);

    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    server = null;

    // The logs: no key, no secret part, no admin token (trace level, stdout and stderr of every process).
    mkdirSync(OUT_DIR, { recursive: true });
    writeFileSync(join(OUT_DIR, 'security-serve.log'), logs);
    expect(logs.length).toBeGreaterThan(0);
    const needles = [...allKeys, ...tampered, ...allKeys.map(secretOf)];
    const logHits = needles.filter((n) => logs.includes(n)).map((n) => n.slice(0, 12));
    expect(logHits, 'plain keys in the logs').toEqual([]);
    expect(logs.includes(adminToken), 'admin token in the logs').toBe(false);
    // URL-encoding could hide a key from the plain search: none of the keys has characters that encoding changes.
    for (const k of allKeys) expect(encodeURIComponent(k)).toBe(k);

    // The database: every table and column, plus (embedded database) every byte of the data directory.
    const db = t ? t.db : await openDb({ dataDir: dataDir! });
    let scan: Awaited<ReturnType<typeof scanDatabase>>;
    let hashesStored = 0;
    try {
      scan = await scanDatabase(db, needles);
      const { rows } = await db.query<{ id: string; key_hash: string }>('SELECT id, key_hash FROM api_keys');
      const hashes = new Map(rows.map((r) => [r.id, r.key_hash]));
      for (const k of [cliRotated.key, a1Rotated.key, a2.key, a3.key]) {
        expect(hashes.get(k.split('_')[1])).toBe(createHash('sha256').update(k).digest('hex'));
        hashesStored++;
      }
    } finally {
      if (!t) await db.close();
    }
    expect(scan.hits).toEqual([]);
    let fileBytes = 0;
    let fileChecks = 0;
    if (dataDir) {
      const walk = (d: string): string[] => readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)]));
      for (const f of walk(dataDir)) {
        const buf = readFileSync(f);
        fileBytes += buf.length;
        for (const n of needles) {
          fileChecks++;
          expect(buf.includes(Buffer.from(n)), `${f} holds a plain key`).toBe(false);
        }
      }
    }
    if (dataDir) expect(fileBytes, 'the embedded database wrote its files').toBeGreaterThan(1_000_000);
    record('security', {
      keysScanned: allKeys.length,
      keysCreatedBy: 'cli 1 + rotate 1, admin api 3 + rotate 1',
      authRequests: requests,
      authStatusHistogram: statuses,
      logLines: logs.split('\n').filter(Boolean).length,
      logBytesScanned: logs.length,
      logNeedles: needles.length + 1,
      dbTablesScanned: scan.tables,
      dbTableNeedleChecks: scan.checks,
      dataDirBytesScanned: fileBytes,
      dataDirNeedleChecks: fileChecks,
      storedHashesVerified: hashesStored,
      database: t ? 'postgresql' : 'pglite',
    });
  });
});

describe('keys are not logged on error paths (in-process, pino at trace)', () => {
  it('internal errors of keyed requests (database failing after authentication) log no key', async () => {
    const t = await createTestDb();
    let captured = '';
    const logger = pino({ level: 'trace' }, { write: (s: string) => void (captured += s) });
    // Authentication works; every other statement fails, so each interface logs an internal error for the request.
    const failing = new Proxy(t.db, {
      get(target, p, receiver) {
        if (p === 'query')
          return (text: string, params?: unknown[]) => (/api_keys/.test(text) ? target.query(text, params as never) : Promise.reject(new Error(`db down: ${text.slice(0, 40)}`)));
        const v = Reflect.get(target, p, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }) as Db;
    const app = await buildApp({
      db: failing,
      logger,
      tokens: createFileTokenRegistry('/nonexistent/tokens.json', { overlay: new Map() }),
      explorerTxUrl: 'https://explorer.test/tx/',
      sender: { ...senderDeps, db: failing, router: { status: async () => { throw new Error('status rpc down'); }, submit: async () => ({ failures: [] }) } as unknown as SenderDeps['router'] },
    });
    try {
      const { key } = await createApiKey(t.db, { name: 'err' });
      const secret = key.split('_').slice(2).join('_');
      const reqs = [
        { url: `/v0/webhooks?api-key=${key}` },
        { url: '/v0/webhooks', headers: { 'x-api-key': key } },
        { url: `/v1/wallet/${WALLET}/balances?api-key=${key}` },
        { url: `/v1/wallet/${WALLET}/history`, headers: { 'x-api-key': key } },
        { method: 'POST' as const, url: `/?api-key=${key}`, payload: { jsonrpc: '2.0', id: 1, method: 'getAssetsByOwner', params: { ownerAddress: WALLET } } },
        { method: 'POST' as const, url: `/v0/token-metadata?api-key=${key}`, payload: { mintAccounts: [WALLET] } },
        { method: 'POST' as const, url: `/fast?api-key=${key}`, payload: { jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[]] } },
      ];
      const statuses: number[] = [];
      for (const r of reqs) statuses.push((await app.inject(r)).statusCode);
      expect(statuses.filter((x) => x >= 500).length, `statuses ${statuses.join(',')}`).toBeGreaterThanOrEqual(4);
      const lines = captured.split('\n').filter(Boolean);
      expect(lines.some((l) => /"level":50/.test(l)), 'an error was logged').toBe(true);
      expect(captured.includes(key)).toBe(false);
      expect(captured.includes(secret)).toBe(false);
      record('security', { errorPathRequests: reqs.length, errorPathStatuses: statuses, errorPathLogLines: lines.length });
    } finally {
      await app.close();
      await t.drop();
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 2. Timing-safe comparison; malformed keys never reach the database
// ---------------------------------------------------------------------------------------------------------------

describe('timing-safe comparison', () => {
  let t: TestDb;
  let app: FastifyInstance;
  let counted: ReturnType<typeof countingDb>;
  let key: string;
  const adminToken = 'security-admin-token-0123456789';

  beforeAll(async () => {
    t = await createTestDb();
    counted = countingDb(t.db);
    app = await makeApp(counted.db, { admin: { token: adminToken }, sender: { ...senderDeps, db: counted.db } });
    key = (await createApiKey(t.db, { name: 'a' })).key;
  });
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  it('key hashes are compared with crypto.timingSafeEqual on 32-byte digests; right id + wrong secret and unknown id are refused alike', async () => {
    const id = key.split('_')[1];
    const wrongSecret = `sg_${id}_${randomBytes(32).toString('base64url')}`;
    const wrongId = `sg_${randomBytes(8).toString('hex')}_${key.split('_').slice(2).join('_')}`;
    let compares = 0;

    tse.mockClear();
    expect(await findApiKey(t.db, key)).not.toBeNull();
    expect(tse).toHaveBeenCalledTimes(1);
    tse.mockClear();
    expect(await findApiKey(t.db, wrongSecret)).toBeNull();
    expect(tse).toHaveBeenCalledTimes(1);
    const [x, y] = tse.mock.calls[0] as [Buffer, Buffer];
    expect([x.length, y.length]).toEqual([32, 32]);
    compares += 2;
    // An unknown id takes the same path: hashed and compared once, on 32-byte digests.
    tse.mockClear();
    expect(await findApiKey(t.db, wrongId)).toBeNull();
    expect(tse).toHaveBeenCalledTimes(1);
    const [u, v] = tse.mock.calls[0] as [Buffer, Buffer];
    expect([u.length, v.length]).toEqual([32, 32]);
    compares++;

    // Over HTTP: identical status and body for both wrong keys, per interface.
    const probes: Array<(k: string) => Promise<{ status: number; body: string }>> = [
      async (k) => { const r = await app.inject({ url: `/v0/webhooks`, headers: { 'x-api-key': k } }); return { status: r.statusCode, body: r.body }; },
      async (k) => { const r = await app.inject({ method: 'POST', url: `/?api-key=${k}`, payload: { jsonrpc: '2.0', id: 1, method: 'getAsset', params: { id: WALLET } } }); return { status: r.statusCode, body: r.body }; },
      async (k) => { const r = await app.inject({ method: 'POST', url: `/fast?api-key=${k}`, payload: { jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[]] } }); return { status: r.statusCode, body: r.body }; },
    ];
    let alike = 0;
    for (const p of probes) {
      const a = await p(wrongSecret);
      const b = await p(wrongId);
      expect(a.status).toBe(401);
      expect(b).toEqual(a);
      alike++;
    }

    // Admin token: digests of any length compared in constant time (timingSafeEqual never sees the raw lengths).
    tse.mockClear();
    for (const tok of ['x', adminToken.slice(0, -1), adminToken + 'x', 'y'.repeat(500)]) {
      const r = await app.inject({ url: '/admin/api/keys', headers: { authorization: `Bearer ${tok}` } });
      expect(r.statusCode).toBe(401);
      expect(r.json()).toMatchObject({ error: 'Invalid admin token' });
      expect(adminTokenMatches(tok, adminToken)).toBe(false);
    }
    expect(adminTokenMatches(adminToken, adminToken)).toBe(true);
    expect(tse.mock.calls.length).toBe(9);
    for (const [p, q] of tse.mock.calls as [Buffer, Buffer][]) expect([p.length, q.length]).toEqual([32, 32]);
    compares += tse.mock.calls.length;
    record('security', { timingSafeCompareCallsChecked: compares, wrongKeyAlikeInterfaces: alike });
  });

  it('malformed keys never reach the database', async () => {
    const good = key;
    const malformed = [
      'x', 'sg_', `${good}x`, good.slice(0, -1), good.toUpperCase(), ` ${good}`, `${good} `, good.replace('sg_', 'SG_'),
      `sg_${'g'.repeat(16)}_${good.slice(-43)}`, `sg_${good.split('_')[1]}_${'+'.repeat(43)}`, `sg_${good.split('_')[1]}_${'/'.repeat(43)}`,
      `${good}\u0000`, `${good}\n`, "sg_' OR '1'='1", `sg_${good.split('_')[1]}_${'é'.repeat(43)}`, 'a'.repeat(10_000), good.replace(/_/g, '-'),
    ];
    const apiKeyQueries = () => counted.sql.filter((s) => /api_keys/.test(s)).length;
    let checks = 0;
    for (const k of malformed) {
      const before = apiKeyQueries();
      expect(await findApiKey(counted.db, k)).toBeNull();
      for (const [url, opts] of [
        [`/v0/webhooks`, { headers: { 'x-api-key': k } }],
        [`/v0/webhooks?api-key=${encodeURIComponent(k)}`, {}],
        [`/?api-key=${encodeURIComponent(k)}`, { method: 'POST', payload: { jsonrpc: '2.0', id: 1, method: 'getAsset', params: { id: WALLET } } }],
        [`/v1/wallet/${WALLET}/balances?api-key=${encodeURIComponent(k)}`, {}],
        [`/fast?api-key=${encodeURIComponent(k)}`, { method: 'POST', payload: { jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[]] } }],
      ] as const) {
        let r;
        try {
          r = await app.inject({ url, ...(opts as object) });
        } catch {
          continue; // a header value light-my-request refuses (NUL, newline) never reaches the server
        }
        expect([400, 401], `${url.slice(0, 40)} → ${r.statusCode}`).toContain(r.statusCode);
        checks++;
      }
      expect(apiKeyQueries(), `malformed key ${JSON.stringify(k.slice(0, 30))} reached the database`).toBe(before);
    }
    // Two different keys in one request (query and header): refused before the database.
    const before = apiKeyQueries();
    const r = await app.inject({ url: `/v0/webhooks?api-key=${good}`, headers: { 'x-api-key': `sg_${'0'.repeat(16)}_${'A'.repeat(43)}` } });
    expect(r.statusCode).toBe(401);
    expect(apiKeyQueries()).toBe(before);
    // Sanity: a well-formed key does reach it (the counter works).
    await app.inject({ url: '/v0/webhooks', headers: { 'x-api-key': good } });
    expect(apiKeyQueries()).toBe(before + 1);
    record('security', { malformedKeys: malformed.length + 1, malformedRequests: checks, malformedDbQueries: 0 });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 3. IP allow-lists over real sockets
// ---------------------------------------------------------------------------------------------------------------

describe('IP allow-lists (IPv4, IPv6, IPv4-mapped IPv6, X-Forwarded-For)', () => {
  let t: TestDb;
  const apps: FastifyInstance[] = [];
  let v4 = ''; // listener on 127.0.0.1 (peer 127.0.0.1)
  let dual = ''; // listener on :: dual-stack, reached via 127.0.0.1 (peer ::ffff:127.0.0.1)
  let v6 = ''; // the same dual-stack listener reached via ::1 (peer ::1)
  let proxied = ''; // trustProxy 1 (one proxy hop), listener on 127.0.0.1
  let proxiedCidr = ''; // trustProxy '127.0.0.0/8' (the proxy's addresses), listener on 127.0.0.1

  beforeAll(async () => {
    t = await createTestDb();
    const listen = async (extra: Partial<ApiDeps>, host: string) => {
      const app = await makeApp(t.db, { sender: { ...senderDeps, db: t.db }, ...extra });
      apps.push(app);
      await app.listen({ host, port: 0 });
      return (app.server.address() as AddressInfo).port;
    };
    v4 = `http://127.0.0.1:${await listen({}, '127.0.0.1')}`;
    const dp = await listen({}, '::');
    dual = `http://127.0.0.1:${dp}`;
    v6 = `http://[::1]:${dp}`;
    proxied = `http://127.0.0.1:${await listen({ trustProxy: 1 }, '127.0.0.1')}`;
    proxiedCidr = `http://127.0.0.1:${await listen({ trustProxy: '127.0.0.0/8' }, '127.0.0.1')}`;
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    await t?.drop();
  });

  type Iface = 'rest' | 'rpc' | 'sender';
  const interfaces: Array<{ name: string; kind: Iface; req: (base: string, key: string, h: Record<string, string>) => Promise<Response> }> = [
    { name: 'wallet', kind: 'rest', req: (b, k, h) => fetch(`${b}/v1/wallet/${WALLET}/balances`, { headers: { 'x-api-key': k, ...h } }) },
    { name: 'webhooks', kind: 'rest', req: (b, k, h) => fetch(`${b}/v0/webhooks?api-key=${k}`, { headers: h }) },
    { name: 'token-metadata', kind: 'rest', req: (b, k, h) => fetch(`${b}/v0/token-metadata?api-key=${k}`, { method: 'POST', headers: { 'content-type': 'application/json', ...h }, body: JSON.stringify({ mintAccounts: [WALLET] }) }) },
    { name: 'transactions', kind: 'rest', req: (b, k, h) => fetch(`${b}/v0/transactions?api-key=${k}`, { method: 'POST', headers: { 'content-type': 'application/json', ...h }, body: JSON.stringify({ transactions: [] }) }) },
    { name: 'json-rpc', kind: 'rpc', req: (b, k, h) => fetch(`${b}/?api-key=${k}`, { method: 'POST', headers: { 'content-type': 'application/json', ...h }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'getAsset', params: { id: WALLET } }) }) },
    { name: 'sender', kind: 'sender', req: (b, k, h) => fetch(`${b}/fast?api-key=${k}`, { method: 'POST', headers: { 'content-type': 'application/json', ...h }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'getSignatureStatuses', params: [[]] }) }) },
  ];

  /** Asserts one interface's answer: allowed (not 401/403) or refused (403 in its format, naming the peer for REST). */
  async function expectAnswer(iface: (typeof interfaces)[number], res: Response, allowed: boolean, peer: string): Promise<void> {
    const text = await res.text();
    const what = `${iface.name} from ${peer}: ${res.status} ${text.slice(0, 200)}`;
    if (allowed) {
      expect(res.status, what).not.toBe(403);
      expect(res.status, what).not.toBe(401);
      return;
    }
    expect(res.status, what).toBe(403);
    const body = JSON.parse(text);
    if (iface.kind === 'rest') {
      expect(body, what).toMatchObject({ error: 'IP address not allowed for this API key', code: 403 });
      expect(body.details, what).toContain(`requests from ${peer} `);
    } else {
      expect(body, what).toMatchObject({ jsonrpc: '2.0', id: 7, error: { message: 'ip address not allowed' } });
      expect(typeof body.error.code).toBe('number');
    }
  }

  it('direct connections: v4, v6 and mapped entries against 127.0.0.1, ::1 and ::ffff:127.0.0.1 peers', async () => {
    // [allow-list, allowed from 127.0.0.1, from ::ffff:127.0.0.1, from ::1]
    const cases: Array<[string[], boolean, boolean, boolean]> = [
      [['127.0.0.0/8'], true, true, false],
      [['127.0.0.1'], true, true, false],
      [['127.0.0.2/32'], false, false, false],
      [['::1'], false, false, true],
      [['::1/128'], false, false, true],
      [['::/127'], false, false, true],
      [['::ffff:127.0.0.1'], true, true, false],
      [['::ffff:127.0.0.0/104'], true, true, false],
      [['::ffff:10.0.0.0/104'], false, false, false],
      [['10.0.0.0/8', '192.168.0.0/16', '2001:db8::/32', 'fe80::/10'], false, false, false],
      [['127.0.0.1', '::1'], true, true, true],
      [['0.0.0.0/0'], true, true, false],
      [['::/0'], false, false, true],
    ];
    let checks = 0;
    for (const [allow, fromV4, fromMapped, fromV6] of cases) {
      const { key } = await createApiKey(t.db, { name: allow.join(','), allowedIps: allow });
      for (const iface of interfaces) {
        await expectAnswer(iface, await iface.req(v4, key, {}), fromV4, '127.0.0.1');
        await expectAnswer(iface, await iface.req(dual, key, {}), fromMapped, '::ffff:127.0.0.1');
        await expectAnswer(iface, await iface.req(v6, key, {}), fromV6, '::1');
        // A client-sent X-Forwarded-For is ignored without trustProxy (no spoofing into the allow-list).
        await expectAnswer(iface, await iface.req(v4, key, { 'x-forwarded-for': fromV4 ? '10.9.9.9' : '127.0.0.1' }), fromV4, '127.0.0.1');
        checks += 4;
      }
    }
    record('security', { ipAllowListDirectChecks: checks, ipAllowListCases: cases.length });
  });

  it('behind a proxy (trustProxy = 1 hop, or the proxy CIDR): X-Forwarded-For v4, v6 and mapped forms; prepended spoofed hops ignored', async () => {
    // [allow-list, X-Forwarded-For, client IP as Fastify derives it, allowed]
    const cases: Array<[string[], string, string, boolean]> = [
      [['203.0.113.0/24'], '203.0.113.9', '203.0.113.9', true],
      [['203.0.113.0/24'], '198.51.100.1', '198.51.100.1', false],
      [['203.0.113.0/24'], '::ffff:203.0.113.9', '::ffff:203.0.113.9', true],
      [['::ffff:203.0.113.9'], '203.0.113.9', '203.0.113.9', true],
      [['::ffff:203.0.113.0/120'], '203.0.113.200', '203.0.113.200', true],
      [['2001:db8::/32'], '2001:db8::5', '2001:db8::5', true],
      [['2001:db8::/32'], '2001:db9::1', '2001:db9::1', false],
      [['2001:db8::/32'], '203.0.113.9', '203.0.113.9', false],
      [['203.0.113.0/24'], '2001:db8::5', '2001:db8::5', false],
      // The client prepends an allowed address: one trusted hop takes the right-most entry (the real client).
      [['203.0.113.0/24'], '203.0.113.9, 198.51.100.1', '198.51.100.1', false],
      [['203.0.113.0/24'], '198.51.100.1, 203.0.113.9', '203.0.113.9', true],
      // The proxy's own address (the socket peer) is not the client once the proxy is trusted.
      [['127.0.0.1'], '198.51.100.1', '198.51.100.1', false],
    ];
    let checks = 0;
    for (const [allow, xff, ip, allowed] of cases) {
      const { key } = await createApiKey(t.db, { name: `xff ${allow.join(',')}`, allowedIps: allow });
      for (const iface of interfaces) {
        for (const base of [proxied, proxiedCidr]) {
          await expectAnswer(iface, await iface.req(base, key, { 'x-forwarded-for': xff }), allowed, ip);
          checks++;
        }
      }
    }
    record('security', { ipAllowListProxyChecks: checks });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 4. SSRF guard: off-chain fetcher, webhook deliveries, webhook URL validation
// ---------------------------------------------------------------------------------------------------------------

/** A tiny authoritative DNS server over UDP: A/AAAA answers per name (a function of the query count), else NXDOMAIN. */
function startDnsServer(zone: Record<string, (n: number) => { a?: string[]; aaaa?: string[] }>): Promise<{ port: number; queries: Map<string, number>; close(): Promise<void> }> {
  const sock = dgram.createSocket('udp4');
  const queries = new Map<string, number>();
  const aQueries = new Map<string, number>();
  sock.on('message', (msg, rinfo) => {
    try {
      let off = 12;
      const labels: string[] = [];
      while (msg[off] !== 0) {
        labels.push(msg.subarray(off + 1, off + 1 + msg[off]).toString('ascii'));
        off += msg[off] + 1;
      }
      off++;
      const qtype = msg.readUInt16BE(off);
      const qEnd = off + 4;
      const name = labels.join('.').toLowerCase();
      queries.set(name, (queries.get(name) ?? 0) + 1);
      const entry = zone[name];
      // Answers change per A query (rebinding); the AAAA query of the same lookup sees the same count.
      let n = aQueries.get(name) ?? 0;
      if (qtype === 1) aQueries.set(name, ++n);
      const ans = entry?.(Math.max(1, n));
      const records: Buffer[] = [];
      for (const addr of (qtype === 1 ? ans?.a : qtype === 28 ? ans?.aaaa : undefined) ?? []) {
        const rdata = qtype === 1 ? Buffer.from(addr.split('.').map(Number)) : Buffer.from(expand6(addr));
        const rr = Buffer.alloc(12);
        rr.writeUInt16BE(0xc00c, 0);
        rr.writeUInt16BE(qtype, 2);
        rr.writeUInt16BE(1, 4);
        rr.writeUInt32BE(0, 6);
        rr.writeUInt16BE(rdata.length, 10);
        records.push(rr, rdata);
      }
      const head = Buffer.alloc(12);
      msg.copy(head, 0, 0, 2);
      head.writeUInt16BE(0x8400 | (msg.readUInt16BE(2) & 0x0100) | (entry !== undefined ? 0 : 3), 2); // QR AA (RD) (NXDOMAIN)
      head.writeUInt16BE(1, 4);
      head.writeUInt16BE(records.length / 2, 6);
      sock.send(Buffer.concat([head, msg.subarray(12, qEnd), ...records]), rinfo.port, rinfo.address);
    } catch {
      /* malformed query: no answer */
    }
  });
  return new Promise((resolve) =>
    sock.bind(0, '127.0.0.1', () =>
      resolve({ port: sock.address().port, queries, close: () => new Promise<void>((r) => sock.close(() => r())) }),
    ),
  );
}

/** The 16 bytes of an IPv6 address (also with an embedded dotted IPv4 tail). */
function expand6(a: string): number[] {
  let s = a;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const b = v4[1].split('.').map(Number);
    s = s.slice(0, -v4[1].length) + `${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}`;
  }
  const [l, r] = s.split('::');
  const left = l ? l.split(':') : [];
  const right = r !== undefined && r ? r.split(':') : [];
  const groups = r !== undefined ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return groups.flatMap((g) => {
    const v = parseInt(g || '0', 16);
    return [v >> 8, v & 0xff];
  });
}

/** An HTTP server counting TCP connections; `handler` answers. */
async function countingServer(host: string, handler: http.RequestListener = (_q, s) => s.end('{}')): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  const srv = http.createServer(handler);
  let n = 0;
  srv.on('connection', () => n++);
  await new Promise<void>((r) => srv.listen(0, host, r));
  return {
    port: (srv.address() as AddressInfo).port,
    connections: () => n,
    close: () => new Promise<void>((r) => { srv.closeAllConnections(); srv.close(() => r()); }),
  };
}

describe('SSRF guard: private, loopback, link-local, metadata targets refused, also via DNS, rebinding and redirects', () => {
  let t: TestDb;
  let dnsSrv: Awaited<ReturnType<typeof startDnsServer>>;
  let lookupAll: LookupAll;
  let priv4: Awaited<ReturnType<typeof countingServer>>; // 127.0.0.1: must never see a connection
  let priv6: Awaited<ReturnType<typeof countingServer>>; // ::1: must never see a connection
  let pub: Awaited<ReturnType<typeof countingServer>>; // 127.0.0.2: the "public" target (allowCidrs)
  let fetcher: OffchainFetcher;
  const POLICY = { allowCidrs: ['127.0.0.2/32'] };
  let refusals = 0;

  beforeAll(async () => {
    t = await createTestDb();
    priv4 = await countingServer('127.0.0.1');
    priv6 = await countingServer('::1');
    pub = await countingServer('127.0.0.2', (req, res) => {
      const u = new URL(req.url!, 'http://x');
      if (u.pathname === '/redirect') {
        res.writeHead(Number(u.searchParams.get('status') ?? 302), { location: u.searchParams.get('to')! });
        return res.end();
      }
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"name":"public document"}');
    });
    const once = (a: string[] = [], aaaa: string[] = []) => () => ({ a, aaaa });
    dnsSrv = await startDnsServer({
      'loop.test': once(['127.0.0.1']),
      'loop-other.test': once(['127.9.9.9']),
      'loop6.test': once([], ['::1']),
      'ten.test': once(['10.1.2.3']),
      'oneseventwo.test': once(['172.16.5.5']),
      'oneninetwo.test': once(['192.168.1.1']),
      'metadata.test': once(['169.254.169.254']),
      'linklocal6.test': once([], ['fe80::1']),
      'ula.test': once([], ['fd12:3456::1']),
      'mapped.test': once([], ['::ffff:127.0.0.1']),
      'mapped-metadata.test': once([], ['::ffff:169.254.169.254']),
      'nat64-metadata.test': once([], ['64:ff9b::a9fe:a9fe']),
      'zero.test': once(['0.0.0.0']),
      'mixed.test': once([PUBLIC_IP, '127.0.0.1']),
      'mixed-families.test': once([PUBLIC_IP], ['::1']),
      'public.test': once(['127.0.0.2']),
      'public-hook.test': once([PUBLIC_IP]),
      // Rebinding: the first lookup answers an allowed address, every later one a private address.
      'rebind.test': (n) => ({ a: [n === 1 ? '127.0.0.2' : '127.0.0.1'] }),
      'rebind-hook.test': (n) => ({ a: [n === 1 ? PUBLIC_IP : '127.0.0.1'] }),
    });
    const resolver = new dns.promises.Resolver({ timeout: 2000, tries: 1 });
    resolver.setServers([`127.0.0.1:${dnsSrv.port}`]);
    const none = (e: NodeJS.ErrnoException): string[] => {
      if (e.code === 'ENODATA' || e.code === 'ENOTFOUND') return [];
      throw e;
    };
    lookupAll = async (host) => {
      const [a, aaaa] = await Promise.all([resolver.resolve4(host).catch(none), resolver.resolve6(host).catch(none)]);
      const out = [...a.map((address) => ({ address, family: 4 })), ...aaaa.map((address) => ({ address, family: 6 }))];
      if (!out.length) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return out;
    };
    fetcher = createOffchainFetcher({
      db: t.db,
      logger: silent,
      lookupAll,
      config: {
        enabled: true, concurrency: 2, timeoutMs: 5000, maxBytes: 65536, maxRedirects: 5, maxAttempts: 1, retryBaseMs: 60_000,
        ttlSeconds: 3600, allowPrivate: false, allowCidrs: POLICY.allowCidrs, ipfsGateway: 'https://ipfs.invalid/', arweaveGateway: 'https://ar.invalid/',
      },
    });
  });
  afterAll(async () => {
    await fetcher?.stop();
    await Promise.all([priv4?.close(), priv6?.close(), pub?.close(), dnsSrv?.close()]);
    await t?.drop();
  });

  /** Literal targets the parser accepts (decimal, octal, hex and short IPv4 forms included); P/P6 = private ports. */
  const literalTargets = (P: number, P6: number) => [
    `http://127.0.0.1:${P}/`, `http://127.1:${P}/`, `http://2130706433:${P}/`, `http://0x7f000001:${P}/`, `http://0x7f.0.0.1:${P}/`,
    `http://0177.0.0.1:${P}/`, `http://017700000001:${P}/`, `http://127.255.255.254:${P}/`, `http://0.0.0.0:${P}/`, `http://0:${P}/`,
    `http://[::1]:${P6}/`, `http://[::]:${P6}/`, `http://[0:0:0:0:0:0:0:1]:${P6}/`,
    `http://[::ffff:127.0.0.1]:${P}/`, `http://[::ffff:7f00:1]:${P}/`, `http://[::ffff:0:127.0.0.1]:${P}/`, `http://[::127.0.0.1]:${P}/`,
    'http://10.0.0.1/', 'http://10.255.255.255/', 'http://012.1.2.3/', 'http://172.16.0.1/', 'http://172.31.255.255/', 'http://192.168.0.1/', 'http://3232235521/',
    'http://169.254.169.254/latest/meta-data/', 'http://0xa9fea9fe/', 'http://0251.0376.0251.0376/', 'http://[::ffff:169.254.169.254]/', 'http://[::ffff:a9fe:a9fe]/',
    'http://[64:ff9b::a9fe:a9fe]/', 'http://[fe80::1]/', 'http://[fe80::a9fe:a9fe]/', 'http://[fd00:ec2::254]/', 'http://[fc00::1]/', 'http://[fec0::1]/',
    'http://100.100.100.200/', 'http://100.64.0.1/', 'http://224.0.0.1/', 'http://255.255.255.255/', 'http://[ff02::1]/', 'http://[2002:7f00:1::]/', 'http://[2001:db8::1]/',
  ];
  /** Names the test DNS server resolves to refused addresses. */
  const nameTargets = (P: number, P6: number) => [
    `http://loop.test:${P}/`, `http://loop-other.test:${P}/`, `http://loop6.test:${P6}/`, 'http://ten.test/', 'http://oneseventwo.test/', 'http://oneninetwo.test/',
    'http://metadata.test/latest/meta-data/', 'http://linklocal6.test/', 'http://ula.test/', `http://mapped.test:${P}/`, 'http://mapped-metadata.test/',
    'http://nat64-metadata.test/', `http://zero.test:${P}/`, `http://mixed.test:${P}/`, `http://mixed-families.test:${P6}/`,
  ];
  const redirectTargets = (P: number, P6: number) => [
    `http://127.0.0.1:${P}/`, `http://2130706433:${P}/`, `http://[::1]:${P6}/`, `http://[::ffff:127.0.0.1]:${P}/`, `http://loop.test:${P}/`, `http://mapped.test:${P}/`,
    'http://169.254.169.254/latest/meta-data/', 'http://metadata.test/', 'http://10.0.0.1/', 'http://[fe80::1]/', `http://0.0.0.0:${P}/`,
  ];

  it('off-chain fetcher: literal, DNS-named and redirected targets refused; nothing reaches the private listeners', async () => {
    const P = priv4.port;
    const P6 = priv6.port;
    const pubBase = `http://public.test:${pub.port}`;
    // Sanity: the allowed "public" target answers through the same guard and resolver.
    const okEntry = await fetcher.fetchNow(`${pubBase}/doc.json`, { disableCache: true });
    expect(okEntry.status, okEntry.error ?? '').toBe('ok');
    const redirects = redirectTargets(P, P6).flatMap((to) => [302, 301, 307, 308, 303].slice(0, 2).map((s) => `${pubBase}/redirect?status=${s}&to=${encodeURIComponent(to)}`));
    // Other schemes are refused at the redirect too.
    for (const to of ['file:///etc/passwd', `gopher://127.0.0.1:${P}/_x`, `ftp://127.0.0.1:${P}/`, 'data:application/json,{}'])
      redirects.push(`${pubBase}/redirect?to=${encodeURIComponent(to)}`);
    // Two hops: allowed → allowed → private.
    redirects.push(`${pubBase}/redirect?to=${encodeURIComponent(`${pubBase}/redirect?to=${encodeURIComponent(`http://loop.test:${P}/`)}`)}`);
    const targets = [...literalTargets(P, P6), ...nameTargets(P, P6), ...redirects];
    for (const url of targets) {
      const e = await fetcher.fetchNow(url, { disableCache: true });
      expect(e.status, url).toBe('failed');
      expect(e.error, url).toMatch(/^refused/);
      refusals++;
    }
    // Rebinding: the up-front check sees an allowed address, the connection's own lookup the private one.
    const rebind = `http://rebind.test:${P}/`;
    await expect(assertUrlAllowed(rebind, POLICY, lookupAll)).resolves.toBeInstanceOf(URL);
    const e = await fetcher.fetchNow(rebind, { disableCache: true });
    expect(e.status).toBe('failed');
    expect(e.error).toMatch(/refused to connect to rebind\.test: it resolves to 127\.0\.0\.1/);
    refusals++;
    expect(priv4.connections()).toBe(0);
    expect(priv6.connections()).toBe(0);
    record('security', { ssrfFetcherRefused: refusals - 0, ssrfFetcherTargets: targets.length + 1 });
  });

  it('webhook URL validation: literal forms and DNS names resolving to refused addresses → 400; rebinding passes validation but not delivery', async () => {
    const app = await makeApp(t.db, { webhooks: { allowHttp: true, allowPrivate: false, lookupAll } });
    const { key } = await createApiKey(t.db, { name: 'validation' });
    const P = priv4.port;
    const P6 = priv6.port;
    const post = (url: string) =>
      app.inject({ method: 'POST', url: '/v0/webhooks', headers: { 'x-api-key': key }, payload: { webhookURL: url, accountAddresses: [WALLET], webhookType: 'raw', transactionTypes: [] } });
    let refused = 0;
    try {
      const targets = [...literalTargets(P, P6), ...nameTargets(P, P6), `http://localhost:${P}/`, `http://LocalHost.:${P}/`, `http://a.b.localhost:${P}/`, `http://localhost.:${P}/`]
        .filter((u) => !u.includes('2001:db8')); // documentation range: refused as not global unicast below
      targets.push('http://[2001:db8::1]/');
      for (const url of targets) {
        const r = await post(url);
        expect(r.statusCode, `${url} → ${r.body}`).toBe(400);
        expect(r.json(), url).toMatchObject({ error: 'Invalid webhookURL', code: 400 });
        refused++;
      }
      // Edit (PUT) of an accepted webhook to a refused name is refused too.
      const okHook = await post('http://public-hook.test/hook');
      expect(okHook.statusCode, okHook.body).toBe(200);
      const id = okHook.json().webhookID as string;
      for (const url of [`http://loop.test:${P}/`, 'http://metadata.test/', `http://[::ffff:127.0.0.1]:${P}/`]) {
        const r = await app.inject({ method: 'PUT', url: `/v0/webhooks/${id}`, headers: { 'x-api-key': key }, payload: { webhookURL: url } });
        expect(r.statusCode, `${url} → ${r.body}`).toBe(400);
        refused++;
      }
      // Rebinding: registration sees a public address (accepted); deliveries resolve again (next test).
      const rb = await post(`http://rebind-hook.test:${P}/hook`);
      expect(rb.statusCode, rb.body).toBe(200);
    } finally {
      await app.close();
    }
    expect(priv4.connections()).toBe(0);
    expect(priv6.connections()).toBe(0);
    record('security', { ssrfValidationRefused: refused });
  });

  it('webhook deliveries: literal, named, rebinding and redirect targets refused (redirects never followed); nothing reaches the private listeners', async () => {
    const P = priv4.port;
    const P6 = priv6.port;
    const pubBase = `http://public.test:${pub.port}`;
    const { record: owner } = await createApiKey(t.db, { name: 'deliveries' });
    const settings = (url: string) => ({ url, webhookType: 'raw' as const, transactionTypes: [], accountAddresses: [WALLET], txnStatus: 'all' as const, encoding: 'jsonParsed' as const, authHeader: null, active: true });
    // Stored as they are (as if saved while private targets were allowed, or DNS answered differently then).
    const refusedUrls = [
      ...literalTargets(P, P6), ...nameTargets(P, P6), `http://rebind.test:${P}/`,
      ...redirectTargets(P, P6).map((to) => `${pubBase}/redirect?to=${encodeURIComponent(to)}`),
    ];
    const okUrl = `${pubBase}/delivered`;
    const hooks = new Map<string, string>();
    for (const url of [...refusedUrls, okUrl]) {
      const r = await createWebhook(t.db, owner.id, settings(url), 1_000_000);
      if (!r.ok) throw new Error('webhook limit');
      hooks.set(r.webhook.id, url);
    }
    // The rebinding name's first answer is used up here (as a registration-time check would).
    await assertUrlAllowed(`http://rebind.test:${P}/`, POLICY, lookupAll).catch(() => {});
    const sig = `sig-${randomBytes(8).toString('hex')}`;
    await t.db.query(`INSERT INTO webhook_payloads (signature, slot, raw, enhanced) VALUES ($1, 1, '{"transaction":{}}', NULL)`, [sig]);
    await t.db.query(`INSERT INTO webhook_events (webhook_id, signature, slot, position) SELECT unnest($1::uuid[]), $2, 1, 1000000`, [[...hooks.keys()], sig]);

    const agent: GuardedAgent = createGuardedAgent(POLICY, { lookupAll, connectTimeoutMs: 5000 });
    const worker = startDeliveryWorker({
      db: t.db, logger: silent, concurrency: 4, timeoutMs: 5000, agent, ssrf: POLICY, pollMs: 20,
      retry: { baseMs: 3_600_000, maxMs: 3_600_000, windowMs: 86_400_000 },
      deactivation: { failureRate: 0, windowMs: 3_600_000, minAttempts: 100 },
    });
    try {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const { rows } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_events WHERE attempts = 0');
        if (rows[0].n === 0) break;
        if (Date.now() > deadline) throw new Error(`${rows[0].n} events never attempted`);
        await sleep(100);
      }
    } finally {
      await worker.stop();
      await agent.close();
    }
    const { rows } = await t.db.query<{ webhook_id: string; state: string; last_error: string | null; last_status: number | null }>(
      'SELECT webhook_id::text AS webhook_id, state, last_error, last_status FROM webhook_events',
    );
    let refused = 0;
    for (const r of rows) {
      const url = hooks.get(r.webhook_id)!;
      if (url === okUrl) {
        expect(r.state, r.last_error ?? '').toBe('delivered');
        continue;
      }
      expect(r.state, url).not.toBe('delivered');
      if (url.includes('/redirect?')) expect(r.last_error, url).toMatch(/redirect not followed/);
      else expect(r.last_error, url).toMatch(/^refused target/);
      refused++;
    }
    expect(refused).toBe(refusedUrls.length);
    expect(priv4.connections()).toBe(0);
    expect(priv6.connections()).toBe(0);
    record('security', { ssrfDeliveriesRefused: refused, privateListenerConnections: priv4.connections() + priv6.connections(), dnsQueriesAnswered: [...dnsSrv.queries.values()].reduce((a, b) => a + b, 0) });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 5. Cross-key isolation
// ---------------------------------------------------------------------------------------------------------------

describe('cross-key isolation', () => {
  let t: TestDb;
  let app: FastifyInstance;
  const adminToken = 'isolation-admin-token-0123456789';

  beforeAll(async () => {
    t = await createTestDb();
    app = await makeApp(t.db, {
      admin: { token: adminToken },
      sender: { ...senderDeps, db: t.db },
      webhooks: { lookupAll: async () => [{ address: PUBLIC_IP, family: 4 }] },
    });
  });
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  /** Route classification: every route with a path parameter must be listed here (new ones fail the suite). */
  const PARAM_ROUTES_NOT_KEY_SCOPED: Record<string, string> = {
    'GET /dashboard/assets/:file': 'static files',
    'GET /v1/wallet/:wallet/identity': 'public chain data',
    'GET /v1/wallet/:wallet/balances': 'public chain data',
    'GET /v1/wallet/:wallet/history': 'public chain data',
    'GET /v1/wallet/:wallet/transfers': 'public chain data',
    'GET /v1/wallet/:wallet/funded-by': 'public chain data',
    'GET /v0/addresses/:address/transactions': 'public chain data',
  };

  it("every :webhookID route answers 404 to another key and changes nothing; lists, usage and admin routes reveal nothing", async () => {
    const A = await createApiKey(t.db, { name: 'key-a' });
    const B = await createApiKey(t.db, { name: 'key-b' });
    const as = (key: string, method: string, url: string, payload?: unknown) =>
      app.inject({ method: method as 'GET', url, headers: { 'x-api-key': key }, ...(payload !== undefined ? { payload: payload as object } : {}) });
    const hookBody = { webhookURL: 'https://hooks.example/b', accountAddresses: [WALLET], webhookType: 'enhanced', transactionTypes: ['ANY'], authHeader: 'Bearer b-secret' };
    const hb = await as(B.key, 'POST', '/v0/webhooks', hookBody);
    expect(hb.statusCode, hb.body).toBe(200);
    const bId = hb.json().webhookID as string;
    const ha = await as(A.key, 'POST', '/v0/webhooks', { ...hookBody, webhookURL: 'https://hooks.example/a', authHeader: 'Bearer a-secret' });
    const aId = ha.json().webhookID as string;
    // One delivered event for B's webhook (with an attempt), one for A's.
    await t.db.query(`INSERT INTO webhook_payloads (signature, slot, raw, enhanced) VALUES ('sig-iso', 5, '{}', '{}')`);
    await t.db.query(`INSERT INTO webhook_events (webhook_id, signature, slot, position, state, attempts) VALUES ($1, 'sig-iso', 5, 5000000, 'delivered', 1), ($2, 'sig-iso', 5, 5000000, 'delivered', 1)`, [bId, aId]);
    const { rows } = await t.db.query<{ id: number; webhook_id: string }>('SELECT id, webhook_id::text AS webhook_id FROM webhook_events');
    const bDelivery = rows.find((r) => r.webhook_id === bId)!.id;
    await t.db.query(`INSERT INTO webhook_attempts (event_id, webhook_id, attempt, ok, status, latency_ms, error, worker) VALUES ($1, $2, 1, true, 200, 5, NULL, 'w')`, [bDelivery, bId]);
    const bBefore = (await as(B.key, 'GET', `/v0/webhooks/${bId}`)).body;

    const routes = [...registeredRoutes(app)].sort();
    const webhookRoutes = routes.filter((r) => r.includes(':webhookID'));
    expect(webhookRoutes.length).toBeGreaterThanOrEqual(7);
    const unclassified = routes.filter((r) => r.includes('/:') && !r.includes(':webhookID') && !r.includes(' /admin/') && !(r in PARAM_ROUTES_NOT_KEY_SCOPED));
    expect(unclassified, 'routes with a path parameter this suite does not classify').toEqual([]);

    const bodies: Record<string, unknown> = { PUT: { webhookURL: 'https://evil.example/x', active: false }, PATCH: { active: false }, POST: { fromSlot: 0 } };
    let denied = 0;
    for (const route of webhookRoutes) {
      const [method, path] = route.split(' ');
      const url = path.replace(':webhookID', bId).replace(':deliveryId', String(bDelivery));
      for (const useQuery of [false, true]) {
        const r = useQuery
          ? await app.inject({ method: method as 'GET', url: `${url}?api-key=${A.key}`, ...(bodies[method] ? { payload: bodies[method] as object } : {}) })
          : await as(A.key, method, url, bodies[method]);
        expect(r.statusCode, `${route} as key A → ${r.body}`).toBe(404);
        expect(r.body, route).not.toContain('hooks.example/b');
        expect(r.body, route).not.toContain('b-secret');
        expect(r.body, route).not.toContain('sig-iso');
        denied++;
      }
    }
    // A's own webhook with B's delivery id: 404 as well.
    const cross = await as(A.key, 'GET', `/v0/webhooks/${aId}/deliveries/${bDelivery}`);
    expect(cross.statusCode).toBe(404);
    denied++;
    // Nothing of B's changed: same settings, still there, events not replayed.
    expect((await as(B.key, 'GET', `/v0/webhooks/${bId}`)).body).toBe(bBefore);
    const st = await t.db.query<{ state: string }>('SELECT state FROM webhook_events WHERE webhook_id = $1', [bId]);
    expect(st.rows.map((r) => r.state)).toEqual(['delivered']);
    // The list shows only the caller's webhooks.
    const listA = (await as(A.key, 'GET', '/v0/webhooks')).json() as { webhookID: string }[];
    expect(listA.map((w) => w.webhookID)).toEqual([aId]);
    expect(JSON.stringify(listA)).not.toContain('b-secret');
    // B's owner still reaches every route (the 404s above are the key scope, not broken routes); delete last.
    for (const route of webhookRoutes.sort((x, y) => Number(x.startsWith('DELETE')) - Number(y.startsWith('DELETE')))) {
      const [method, path] = route.split(' ');
      const url = path.replace(':webhookID', bId).replace(':deliveryId', String(bDelivery));
      const r = await as(B.key, method, url, method === 'PUT' ? { active: true } : bodies[method]);
      expect(r.statusCode, `${route} as key B → ${r.body}`).toBe(200);
    }
    // Admin routes (usage included) need the admin token: an API key, in either form, gets 401.
    const adminRoutes = routes.filter((r) => r.includes(' /admin/'));
    for (const route of adminRoutes) {
      const [method, path] = route.split(' ');
      const url = path.replace(':id', B.record.id);
      for (const r of [
        await as(A.key, method, url, method === 'GET' ? undefined : {}),
        await app.inject({ method: method as 'GET', url: `${url}?api-key=${A.key}` }),
        await app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${A.key}` } }),
      ]) {
        expect(r.statusCode, `${route} with an API key → ${r.body}`).toBe(401);
        denied++;
      }
    }
    record('security', { crossKeyWebhookRoutes: webhookRoutes.length, crossKeyDenied: denied, adminRoutesKeyRefused: adminRoutes.length });
  });
});
