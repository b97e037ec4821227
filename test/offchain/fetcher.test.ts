/**
 * The off-chain fetcher against a real local HTTP server (127.0.0.1, allowed explicitly) and the real database
 * (PGlite, or PostgreSQL with DATABASE_URL): storage, caps, timeouts, retries with backoff, TTL refresh,
 * gateway rewriting, the SSRF policy, and claims shared by two workers.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { openDb, type Db } from '../../src/store/db.js';
import { enqueueUris, getOffchainEntries, type OffchainEntry } from '../../src/store/offchain.js';
import { createOffchainFetcher, fetchUrlFor, offchainConfig, type OffchainFetcherConfig } from '../../src/offchain/fetcher.js';
import { loadConfig } from '../../src/config/index.js';

const logger = pino({ level: 'silent' });
const DOC = {
  name: 'Mad Lads #1',
  symbol: 'MAD',
  description: 'Fock it.',
  image: 'https://madlads.s3.us-west-2.amazonaws.com/images/1.png',
  attributes: [{ trait_type: 'Gender', value: 'Male' }],
};

let server: Server;
let base: string;
/** Requests per path, and the most requests for one path in flight at once. */
let hits = new Map<string, number>();
let inFlight = new Map<string, number>();
let maxInFlight = 0;
let flakyFailures = 0;
let refreshBody = '{"v":1}';
let refreshStatus = 200;

function json(res: ServerResponse, body: string, type = 'application/json') {
  res.setHeader('content-type', type);
  res.end(body);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const now = (inFlight.get(path) ?? 0) + 1;
    inFlight.set(path, now);
    maxInFlight = Math.max(maxInFlight, now);
    res.on('close', () => inFlight.set(path, (inFlight.get(path) ?? 1) - 1));
    if (path === '/ok.json') return json(res, JSON.stringify(DOC));
    if (path === '/text-plain.json') return json(res, JSON.stringify(DOC), 'text/plain; charset=utf-8');
    if (path === '/gzip.json') {
      res.setHeader('content-encoding', 'gzip');
      return json(res, gzipSync(Buffer.from(JSON.stringify(DOC))) as unknown as string);
    }
    if (path === '/nul.json') return json(res, '{"name":"a\\u0000b","k\\u0000":"\\ud800x"}');
    if (path === '/big-chunked.json') {
      // No content-length: the cap must be enforced while streaming.
      res.setHeader('content-type', 'application/json');
      res.write('{"pad":"');
      let n = 0;
      const t = setInterval(() => {
        if (res.destroyed || n++ > 50) {
          clearInterval(t);
          if (!res.destroyed) res.end('"}');
          return;
        }
        res.write('x'.repeat(1024));
      }, 2);
      return;
    }
    if (path === '/big-length.json') return json(res, `{"pad":"${'y'.repeat(10_000)}"}`);
    if (path === '/slow.json') {
      const t = setTimeout(() => json(res, '{}'), 3000);
      res.on('close', () => clearTimeout(t));
      return;
    }
    if (path === '/500.json') {
      res.statusCode = 500;
      return res.end('boom');
    }
    if (path === '/404.json') {
      res.statusCode = 404;
      return res.end('missing');
    }
    if (path === '/flaky.json') {
      if (flakyFailures-- > 0) {
        res.statusCode = 503;
        return res.end('busy');
      }
      return json(res, '{"ok":true}');
    }
    if (path === '/invalid.json') return json(res, '{"name": "x",');
    if (path === '/array.json') return json(res, '[1,2]');
    if (path === '/page.html') return json(res, '<html></html>', 'text/html');
    if (path === '/refresh.json') {
      res.statusCode = refreshStatus;
      return json(res, refreshBody);
    }
    if (path.startsWith('/ipfs/') || path.startsWith('/ar/')) return json(res, JSON.stringify({ path }));
    if (path.startsWith('/redirect-to-ok')) {
      res.writeHead(302, { location: '/ok.json' });
      return res.end();
    }
    if (path.startsWith('/redirect-to-metadata')) {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      return res.end();
    }
    if (path.startsWith('/slowdoc/')) {
      const t = setTimeout(() => json(res, JSON.stringify({ path })), 60);
      res.on('close', () => clearTimeout(t));
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.drop());
beforeEach(async () => {
  await t.db.exec('TRUNCATE offchain_metadata');
  hits = new Map();
  inFlight = new Map();
  maxInFlight = 0;
});

function config(over: Partial<OffchainFetcherConfig> = {}): OffchainFetcherConfig {
  return {
    enabled: true,
    concurrency: 4,
    timeoutMs: 800,
    maxBytes: 4096,
    maxRedirects: 3,
    maxAttempts: 3,
    retryBaseMs: 10_000,
    ttlSeconds: 3600,
    allowPrivate: false,
    allowCidrs: ['127.0.0.1/32'],
    ipfsGateway: `${base}/ipfs/`,
    arweaveGateway: `${base}/ar/`,
    pollIntervalMs: 20,
    ...over,
  };
}

async function entry(db: Db, uri: string): Promise<OffchainEntry> {
  const e = (await getOffchainEntries(db, [uri])).get(uri);
  if (!e) throw new Error(`no row for ${uri}`);
  return e;
}

/** Milliseconds from the attempt to the next one, by the database clock. */
const delayOf = (e: OffchainEntry) => e.nextAttemptAt!.getTime() - e.lastAttemptAt!.getTime();

async function makeDue(db: Db, uri: string) {
  await db.query(`UPDATE offchain_metadata SET next_attempt_at = now() - interval '1 second' WHERE uri = $1`, [uri]);
}

describe('configuration', () => {
  it('defaults from the environment table', () => {
    const c = offchainConfig(loadConfig({}));
    expect(c).toMatchObject({ enabled: true, allowPrivate: false, ipfsGateway: 'https://ipfs.io/ipfs/', arweaveGateway: 'https://arweave.net/', ttlSeconds: 86400 });
    expect(offchainConfig(loadConfig({ SOLGATE_IPFS_GATEWAY: 'https://gw.example/ipfs', SOLGATE_OFFCHAIN_ALLOW_PRIVATE: 'true' }))).toMatchObject({
      ipfsGateway: 'https://gw.example/ipfs/',
      allowPrivate: true,
    });
    expect(() => loadConfig({ SOLGATE_OFFCHAIN_FETCH: 'yes' })).toThrow(/SOLGATE_OFFCHAIN_FETCH/);
    expect(() => loadConfig({ SOLGATE_IPFS_GATEWAY: 'ftp://x' })).toThrow(/SOLGATE_IPFS_GATEWAY/);
  });

  it('fetchUrlFor rewrites ipfs:// and ar:// through the gateways', () => {
    const g = { ipfsGateway: 'https://ipfs.io/ipfs/', arweaveGateway: 'https://arweave.net/' };
    expect(fetchUrlFor('ipfs://bafy123/7.json', g)).toBe('https://ipfs.io/ipfs/bafy123/7.json');
    expect(fetchUrlFor('ipfs://ipfs/bafy123', g)).toBe('https://ipfs.io/ipfs/bafy123');
    expect(fetchUrlFor('ar://TxId_-9/meta', g)).toBe('https://arweave.net/TxId_-9/meta');
    expect(fetchUrlFor('https://x.test/a.json', g)).toBe('https://x.test/a.json');
    expect(fetchUrlFor('data:application/json,{}', g)).toBeNull();
    expect(fetchUrlFor('ipfs://', g)).toBeNull();
  });
});

describe('enqueueUris', () => {
  it('is idempotent and skips blank and unfetchable uris', async () => {
    const uris = ['', '   ', 'data:application/json,{}', 'ftp://x.test/a', 'file:///etc/passwd', 'https://a.test/1.json', 'https://a.test/1.json', 'ipfs://bafy/1', 'ar://tx'];
    expect(await enqueueUris(t.db, uris)).toBe(3);
    expect(await enqueueUris(t.db, uris)).toBe(0);
    const { rows } = await t.db.query<{ uri: string; status: string; attempts: number }>('SELECT uri, status, attempts FROM offchain_metadata ORDER BY uri');
    expect(rows).toEqual([
      { uri: 'ar://tx', status: 'pending', attempts: 0 },
      { uri: 'https://a.test/1.json', status: 'pending', attempts: 0 },
      { uri: 'ipfs://bafy/1', status: 'pending', attempts: 0 },
    ]);
  });
});

describe('worker rounds', () => {
  it('stores a fetched document, schedules the refresh after the TTL, and is idle afterwards', async () => {
    const f = createOffchainFetcher({ db: t.db, logger, config: config() });
    const uri = `${base}/ok.json`;
    await enqueueUris(t.db, [uri, `${base}/text-plain.json`, `${base}/gzip.json`, `${base}/redirect-to-ok`]);
    expect(await f.runOnce()).toBe(4);
    for (const u of [uri, `${base}/text-plain.json`, `${base}/gzip.json`, `${base}/redirect-to-ok`]) {
      const e = await entry(t.db, u);
      expect(e.status, u).toBe('ok');
      expect(e.content, u).toEqual(DOC);
      expect(e.error).toBeNull();
      expect(e.attempts).toBe(0);
      expect(e.fetchedAt).toBeInstanceOf(Date);
      expect(e.nextAttemptAt!.getTime() - e.fetchedAt!.getTime()).toBe(3600_000);
    }
    expect(await f.runOnce()).toBe(0);
    expect(hits.get('/ok.json')).toBe(2); // the direct one and the redirect target
    await f.stop();
  });

  it('strips NULs and lone surrogates that jsonb would reject', async () => {
    const f = createOffchainFetcher({ db: t.db, logger, config: config() });
    await enqueueUris(t.db, [`${base}/nul.json`]);
    await f.runOnce();
    expect((await entry(t.db, `${base}/nul.json`)).content).toEqual({ name: 'ab', k: '\uFFFDx' });
    await f.stop();
  });

  it('refuses an oversize body (streamed or announced) without retrying', async () => {
    const f = createOffchainFetcher({ db: t.db, logger, config: config() });
    await enqueueUris(t.db, [`${base}/big-chunked.json`, `${base}/big-length.json`]);
    await f.runOnce();
    for (const u of [`${base}/big-chunked.json`, `${base}/big-length.json`]) {
      const e = await entry(t.db, u);
      expect(e.status, u).toBe('failed');
      expect(e.content).toBeNull();
      expect(e.error).toMatch(/exceeds 4096 bytes/);
      expect(e.attempts).toBe(1);
      expect(delayOf(e)).toBeGreaterThan(3590_000); // given up until the TTL
    }
    await f.stop();
  });

  it('times out a slow server and schedules a retry with backoff', async () => {
    const f = createOffchainFetcher({ db: t.db, logger, config: config({ timeoutMs: 300 }) });
    await enqueueUris(t.db, [`${base}/slow.json`]);
    const t0 = Date.now();
    await f.runOnce();
    expect(Date.now() - t0).toBeLessThan(2500);
    const e = await entry(t.db, `${base}/slow.json`);
    expect(e.status).toBe('pending');
    expect(e.error).toMatch(/timed out/);
    expect(e.attempts).toBe(1);
    expect(delayOf(e)).toBeGreaterThanOrEqual(5_000);
    expect(delayOf(e)).toBeLessThanOrEqual(10_000 + 1_500);
    await f.stop();
  });

  it('500 → retries with exponential backoff and jitter, then gives up until the TTL', async () => {
    const f = createOffchainFetcher({ db: t.db, logger, config: config() });
    const uri = `${base}/500.json`;
    await enqueueUris(t.db, [uri]);
    await f.runOnce();
    let e = await entry(t.db, uri);
    expect(e).toMatchObject({ status: 'pending', attempts: 1, content: null });
    expect(e.error).toBe(`HTTP 500 from ${uri}`);
    expect(delayOf(e)).toBeGreaterThanOrEqual(5_000); // base 10 s, jittered to 50–100 %
    expect(delayOf(e)).toBeLessThanOrEqual(10_000 + 1_000);
    expect(await f.runOnce()).toBe(0); // not due yet

    await makeDue(t.db, uri);
    await f.runOnce();
    e = await entry(t.db, uri);
    expect(e).toMatchObject({ status: 'pending', attempts: 2 });
    expect(delayOf(e)).toBeGreaterThanOrEqual(10_000); // doubled
    expect(delayOf(e)).toBeLessThanOrEqual(20_000 + 1_000);

    await makeDue(t.db, uri);
    await f.runOnce();
    e = await entry(t.db, uri);
    expect(e).toMatchObject({ status: 'failed', attempts: 3 }); // maxAttempts reached
    expect(delayOf(e)).toBeGreaterThan(3590_000);
    expect(hits.get('/500.json')).toBe(3);
    await f.stop();
  });

  it('a retry that succeeds stores the document and resets the attempts', async () => {
    flakyFailures = 1;
    const f = createOffchainFetcher({ db: t.db, logger, config: config() });
    const uri = `${base}/flaky.json`;
    await enqueueUris(t.db, [uri]);
    await f.runOnce();
    expect(await entry(t.db, uri)).toMatchObject({ status: 'pending', attempts: 1, error: `HTTP 503 from ${uri}` });
    await makeDue(t.db, uri);
    await f.runOnce();
    expect(await entry(t.db, uri)).toMatchObject({ status: 'ok', attempts: 0, error: null, content: { ok: true } });
    await f.stop();
  });

  it('records invalid JSON, non-objects, HTML and 404 as permanent failures', async () => {
    const f = createOffchainFetcher({ db: t.db, logger, config: config() });
    const cases: [string, RegExp][] = [
      ['/invalid.json', /^invalid JSON: /],
      ['/array.json', /not a JSON object \(got an array\)/],
      ['/page.html', /content-type text\/html/],
      ['/404.json', /^HTTP 404 from /],
    ];
    await enqueueUris(t.db, cases.map(([p]) => base + p));
    await f.runOnce();
    for (const [p, re] of cases) {
      const e = await entry(t.db, base + p);
      expect(e.status, p).toBe('failed');
      expect(e.attempts, p).toBe(1);
      expect(e.error, p).toMatch(re);
      expect(e.content).toBeNull();
    }
    await f.stop();
  });

  it('refetches after the TTL; a failed refresh keeps the last good document', async () => {
    refreshBody = '{"v":1}';
    refreshStatus = 200;
    const f = createOffchainFetcher({ db: t.db, logger, config: config() });
    const uri = `${base}/refresh.json`;
    await enqueueUris(t.db, [uri]);
    await f.runOnce();
    expect((await entry(t.db, uri)).content).toEqual({ v: 1 });
    refreshBody = '{"v":2}';
    expect(await f.runOnce()).toBe(0); // fresh
    await makeDue(t.db, uri); // the TTL has passed
    await f.runOnce();
    expect((await entry(t.db, uri)).content).toEqual({ v: 2 });
    refreshStatus = 500;
    await makeDue(t.db, uri);
    await f.runOnce();
    const e = await entry(t.db, uri);
    expect(e).toMatchObject({ status: 'ok', content: { v: 2 }, attempts: 1 });
    expect(e.error).toMatch(/HTTP 500/);
    await f.stop();
  });

  it('fetches ipfs:// and ar:// uris through the gateways, keyed by the on-chain uri', async () => {
    const f = createOffchainFetcher({ db: t.db, logger, config: config() });
    await enqueueUris(t.db, ['ipfs://bafyCID/7.json', 'ipfs://ipfs/bafyOther', 'ar://TX123/meta']);
    await f.runOnce();
    expect((await entry(t.db, 'ipfs://bafyCID/7.json')).content).toEqual({ path: '/ipfs/bafyCID/7.json' });
    expect((await entry(t.db, 'ipfs://ipfs/bafyOther')).content).toEqual({ path: '/ipfs/bafyOther' });
    expect((await entry(t.db, 'ar://TX123/meta')).content).toEqual({ path: '/ar/TX123/meta' });
    await f.stop();
  });
});

describe('SSRF policy in the fetcher', () => {
  it('by default refuses the loopback server (and a redirect to the metadata address) without retrying', async () => {
    const f = createOffchainFetcher({ db: t.db, logger, config: config({ allowCidrs: [] }) });
    await enqueueUris(t.db, [`${base}/ok.json`]);
    await f.runOnce();
    const e = await entry(t.db, `${base}/ok.json`);
    expect(e.status).toBe('failed');
    expect(e.error).toMatch(/refused to connect to 127\.0\.0\.1:\d+: address 127\.0\.0\.1 is loopback/);
    expect(hits.size).toBe(0);
    await f.stop();

    const g = createOffchainFetcher({ db: t.db, logger, config: config() });
    await enqueueUris(t.db, [`${base}/redirect-to-metadata`]);
    await g.runOnce();
    const r = await entry(t.db, `${base}/redirect-to-metadata`);
    expect(r.status).toBe('failed');
    expect(r.error).toMatch(/169\.254\.169\.254 is link-local/);
    await g.stop();
  });

  it('a host name resolving to a private address is refused at connect', async () => {
    const f = createOffchainFetcher({
      db: t.db,
      logger,
      config: config({ allowCidrs: [] }),
      lookupAll: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const port = (server.address() as AddressInfo).port;
    const uri = `http://metadata.example:${port}/ok.json`;
    await enqueueUris(t.db, [uri]);
    await f.runOnce();
    expect((await entry(t.db, uri)).error).toMatch(/metadata\.example.*resolves to 127\.0\.0\.1/);
    expect(hits.size).toBe(0);
    await f.stop();
  });
});

describe('fetchNow', () => {
  it('answers from the cache, refetches with disableCache, and refuses unfetchable uris', async () => {
    const f = createOffchainFetcher({ db: t.db, logger, config: config() });
    const uri = `${base}/ok.json`;
    const first = await f.fetchNow(uri);
    expect(first).toMatchObject({ status: 'ok', content: DOC });
    expect(hits.get('/ok.json')).toBe(1);
    expect((await f.fetchNow(uri)).content).toEqual(DOC);
    expect(hits.get('/ok.json')).toBe(1);
    await f.fetchNow(uri, { disableCache: true });
    expect(hits.get('/ok.json')).toBe(2);
    // Concurrent calls for one uri share one fetch.
    await Promise.all([f.fetchNow(uri, { disableCache: true }), f.fetchNow(uri, { disableCache: true })]);
    expect(hits.get('/ok.json')).toBe(3);
    // So do concurrent reads of a uri not stored yet (each reads the store before it fetches).
    const fresh = `${base}/text-plain.json`;
    const answers = await Promise.all([f.fetchNow(fresh), f.fetchNow(fresh), f.fetchNow(fresh)]);
    expect(hits.get('/text-plain.json')).toBe(1);
    expect(answers[1]).toEqual(answers[0]);

    const bad = await f.fetchNow(`${base}/invalid.json`);
    expect(bad).toMatchObject({ status: 'failed', content: null });
    expect(await f.fetchNow(`${base}/invalid.json`)).toMatchObject({ status: 'failed' }); // cached failure
    expect(hits.get('/invalid.json')).toBe(1);

    expect(await f.fetchNow('data:application/json,{}')).toMatchObject({ status: 'failed', error: expect.stringMatching(/unsupported uri/) });
    expect(await f.fetchNow('  ')).toMatchObject({ status: 'failed', error: 'empty uri' });
    await f.stop();
  });

  it('with fetching disabled only reads the database', async () => {
    const f = createOffchainFetcher({ db: t.db, logger, config: config({ enabled: false }) });
    expect(await f.fetchNow(`${base}/ok.json`)).toMatchObject({ status: 'failed', error: 'off-chain fetching is disabled' });
    expect(hits.size).toBe(0);
    f.start(); // no-op
    await f.stop();
  });
});

describe('workers', () => {
  it('two workers never fetch the same uri twice, and both take part', async () => {
    const second: Db = t.url ? await openDb({ databaseUrl: t.url, poolSize: 4 }) : t.db;
    const a = createOffchainFetcher({ db: t.db, logger, config: config() });
    const b = createOffchainFetcher({ db: second, logger, config: config() });
    const uris = Array.from({ length: 24 }, (_, i) => `${base}/slowdoc/${i}`);
    await enqueueUris(t.db, uris);
    a.start();
    b.start();
    const deadline = Date.now() + 20_000;
    for (;;) {
      const { rows } = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM offchain_metadata WHERE status = 'ok'`);
      if (rows[0].n === uris.length || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await Promise.all([a.stop(), b.stop()]);
    if (second !== t.db) await second.close();
    for (let i = 0; i < uris.length; i++) expect(hits.get(`/slowdoc/${i}`), `uri ${i}`).toBe(1);
    expect(maxInFlight).toBe(1);
    expect(a.stats.fetched + b.stats.fetched).toBe(uris.length);
    expect(a.stats.fetched).toBeGreaterThan(0);
    expect(b.stats.fetched).toBeGreaterThan(0);
    const e = await getOffchainEntries(t.db, uris);
    for (const u of uris) expect(e.get(u)?.content).toEqual({ path: new URL(u).pathname });
  });

  it('stop() aborts in-flight fetches and puts their rows back without counting an attempt', async () => {
    const f = createOffchainFetcher({ db: t.db, logger, config: config({ timeoutMs: 5000 }) });
    const uri = `${base}/slow.json`;
    await enqueueUris(t.db, [uri]);
    f.start();
    for (let i = 0; i < 100 && !hits.get('/slow.json'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(hits.get('/slow.json')).toBe(1);
    await f.stop();
    const { rows } = await t.db.query<{ due: boolean; claim_token: string | null; attempts: number; status: string }>(
      'SELECT next_attempt_at <= now() AS due, claim_token, attempts, status FROM offchain_metadata WHERE uri = $1',
      [uri],
    );
    expect(rows[0]).toEqual({ due: true, claim_token: null, attempts: 0, status: 'pending' });
  });
});
