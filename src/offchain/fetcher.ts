/**
 * Off-chain metadata fetcher: fetches the JSON documents that on-chain metadata uris point to and keeps them in
 * `offchain_metadata` (src/store/offchain.ts).
 *
 * - Queue: `enqueueUris` (store) / `fetcher.enqueue` add uris; the worker (`start()`) claims due rows with
 *   FOR UPDATE SKIP LOCKED, so any number of processes can run it and a uri is fetched by one of them at a time.
 * - Fetch: through the SSRF guard (src/net/ssrf.ts: public addresses only unless allowed, every redirect hop
 *   checked, connection pinned to the checked address), with a deadline, a body cap enforced while streaming,
 *   and content validation (a JSON object; obvious non-JSON content types refused).
 * - Schedule: a success is refetched after the TTL; a retryable failure (timeout, network error, 408/425/429/5xx)
 *   is retried with exponential backoff and jitter up to `maxAttempts`; a permanent failure (4xx, invalid JSON,
 *   too large, refused address, unsupported uri) or the last attempt gives up until the TTL comes round again.
 *   A refresh that fails keeps serving the last good document.
 * - `fetchNow` fetches one uri on demand (the token-metadata endpoint), honouring the stored schedule unless
 *   `disableCache`.
 *
 * ipfs:// and ar:// uris are fetched through the configured gateways; the row stays keyed by the uri as written
 * on chain (what `content.json_uri` shows).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import type { Db } from '../store/db.js';
import {
  claimDue,
  enqueueUris,
  getOffchainEntries,
  isFetchableUri,
  recordFailure,
  recordSuccess,
  releaseClaims,
  type OffchainEntry,
} from '../store/offchain.js';
import { createGuardedAgent, guardedRequest, GuardedFetchError, SsrfError, type GuardedAgent } from '../net/ssrf.js';

export interface OffchainFetcherConfig {
  /** false: the worker does not run and fetchNow only answers from the database. */
  enabled: boolean;
  /** Fetches in flight per fetcher. */
  concurrency: number;
  /** Deadline of one fetch (redirects and body included). */
  timeoutMs: number;
  /** Largest document accepted, after decompression. */
  maxBytes: number;
  maxRedirects: number;
  /** Attempts at a retryable failure before giving up until the next refresh. */
  maxAttempts: number;
  /** First retry delay; doubles per attempt (jittered to 50–100 %), capped by retryMaxMs. */
  retryBaseMs: number;
  /** Cap of one retry delay (default 6 h). */
  retryMaxMs?: number;
  /** Refetch after this long (also when given-up uris are tried again); 0 = never. */
  ttlSeconds: number;
  /** Allow every address (tests, trusted networks). */
  allowPrivate: boolean;
  /** Addresses / CIDRs allowed even though they are not public. */
  allowCidrs?: string[];
  /** Prefixes ipfs://… and ar://… uris are fetched through (ending with `/`). */
  ipfsGateway: string;
  arweaveGateway: string;
  /** How often an idle worker looks for due rows (default 2 s). */
  pollIntervalMs?: number;
  userAgent?: string;
  /** Last say on the URL fetched for a uri (e.g. route a dead IPFS gateway to a working one); null = unfetchable. */
  rewriteUrl?: (url: URL) => URL | string | null;
}

/** The fetcher configuration from the process configuration (SOLGATE_OFFCHAIN_*, SOLGATE_*_GATEWAY). */
export function offchainConfig(c: Config): OffchainFetcherConfig {
  return {
    enabled: c.offchainFetch,
    concurrency: c.offchainConcurrency,
    timeoutMs: c.offchainTimeoutMs,
    maxBytes: c.offchainMaxBytes,
    maxRedirects: c.offchainMaxRedirects,
    maxAttempts: c.offchainMaxAttempts,
    retryBaseMs: c.offchainRetryBaseMs,
    ttlSeconds: c.offchainTtlSeconds,
    allowPrivate: c.offchainAllowPrivate,
    ipfsGateway: c.ipfsGateway,
    arweaveGateway: c.arweaveGateway,
  };
}

/**
 * The http(s) URL a uri is fetched from: http(s) as is; `ipfs://CID/path` (also `ipfs://ipfs/CID/path`) and
 * `ar://TX/path` through the gateways. Null for anything else.
 */
export function fetchUrlFor(uri: string, gateways: { ipfsGateway: string; arweaveGateway: string }): string | null {
  const s = uri.trim();
  const m = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/is.exec(s);
  if (!m) return null;
  const scheme = m[1].toLowerCase();
  const rest = m[2];
  const slash = (g: string) => (g.endsWith('/') ? g : `${g}/`);
  if (scheme === 'http' || scheme === 'https') return s;
  if (scheme === 'ipfs') {
    const path = rest.replace(/^ipfs\//i, '');
    return path ? slash(gateways.ipfsGateway) + path : null;
  }
  if (scheme === 'ar') return rest ? slash(gateways.arweaveGateway) + rest : null;
  return null;
}

/** Outcome of one fetch attempt. */
export type FetchOutcome =
  | { ok: true; content: Record<string, unknown> }
  | { ok: false; error: string; retryable: boolean; retryAfterMs?: number; aborted?: boolean };

/** Content types that are certainly not a JSON document (JSON is often served as text/plain or octet-stream). */
const NOT_JSON = /^(image|video|audio|font|model)\/|^text\/(html|css|javascript)|^application\/(pdf|zip|xml|xhtml\+xml)/i;

const MAX_DEPTH = 64;

/**
 * A parsed document made storable: strings and keys lose NUL characters and lone surrogates (PostgreSQL jsonb
 * rejects both); nesting deeper than 64 levels is refused.
 */
export function sanitizeJson(v: unknown, depth = 0): unknown {
  if (depth > MAX_DEPTH) throw new Error(`nested deeper than ${MAX_DEPTH} levels`);
  if (typeof v === 'string') return cleanString(v);
  if (Array.isArray(v)) return v.map((x) => sanitizeJson(x, depth + 1));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[cleanString(k)] = sanitizeJson(x, depth + 1);
    return out;
  }
  return v;
}

function cleanString(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u0000/g, '').replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** Parses and validates a fetched body as a metadata document (a JSON object). */
export function parseDocument(body: Buffer, contentType: string | undefined): FetchOutcome {
  const ct = (contentType ?? '').split(';')[0].trim();
  if (ct && NOT_JSON.test(ct)) return { ok: false, error: `not a JSON document: content-type ${ct}`, retryable: false };
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `invalid JSON: ${(e as Error).message}`, retryable: false };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    return { ok: false, error: `not a JSON object (got ${Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed})`, retryable: false };
  try {
    return { ok: true, content: sanitizeJson(parsed) as Record<string, unknown> };
  } catch (e) {
    return { ok: false, error: `invalid JSON: ${(e as Error).message}`, retryable: false };
  }
}

function retryAfterMs(h: string | undefined): number | undefined {
  if (!h) return undefined;
  if (/^\d+$/.test(h.trim())) return Number(h.trim()) * 1000;
  const t = Date.parse(h);
  return Number.isFinite(t) ? Math.max(0, t - Date.now()) : undefined;
}

export interface OffchainFetcher {
  /** Starts the worker loop (no-op when disabled or already running). */
  start(): void;
  /** Stops the loop: in-flight fetches are aborted and their rows put back, then the connections closed. */
  stop(): Promise<void>;
  /** Queues uris (see enqueueUris) and wakes the worker. Returns how many were new. */
  enqueue(uris: Iterable<string>): Promise<number>;
  /** Makes an idle worker look for due rows now. */
  wake(): void;
  /** One round: claims up to `concurrency` due rows, fetches them, records the results. Returns rows handled. */
  runOnce(): Promise<number>;
  /**
   * The entry of one uri, fetched now when needed: with the cache, a stored document younger than the TTL (or a
   * failure whose retry is not due yet) is returned as stored; `disableCache` always fetches. The result is
   * stored. An unfetchable uri gives a `failed` entry (not stored).
   */
  fetchNow(uri: string, opts?: { disableCache?: boolean }): Promise<OffchainEntry>;
  readonly stats: { fetched: number; failed: number; inFlight: number };
}

export interface CreateOffchainFetcherOptions {
  db: Db;
  logger: Pick<Logger, 'info' | 'warn' | 'debug' | 'error'>;
  config: OffchainFetcherConfig;
  /** Resolver used by the SSRF guard (tests); default the system resolver. */
  lookupAll?: (hostname: string) => Promise<{ address: string; family: number }[]>;
}

export function createOffchainFetcher(o: CreateOffchainFetcherOptions): OffchainFetcher {
  const { db, logger } = o;
  const cfg = o.config;
  const retryMaxMs = cfg.retryMaxMs ?? 6 * 3600_000;
  const pollMs = cfg.pollIntervalMs ?? 2000;
  const ttlMs = cfg.ttlSeconds > 0 ? cfg.ttlSeconds * 1000 : null;
  // A claim outlives the longest fetch (the deadline covers redirects and body) with a margin.
  const leaseMs = cfg.timeoutMs + 30_000;
  const userAgent = cfg.userAgent ?? 'solgate-offchain-fetcher/0.1';
  let agent: GuardedAgent | null = null;
  const getAgent = () =>
    (agent ??= createGuardedAgent(
      { allowPrivate: cfg.allowPrivate, allowCidrs: cfg.allowCidrs },
      { connections: Math.max(2, cfg.concurrency), connectTimeoutMs: cfg.timeoutMs, lookupAll: o.lookupAll },
    ));
  const stats = { fetched: 0, failed: 0, inFlight: 0 };
  // fetchNow's answers in flight per uri: refetches (disableCache) and cache-or-fetch ones.
  const refetching = new Map<string, Promise<OffchainEntry>>();
  const answering = new Map<string, Promise<OffchainEntry>>();

  let running = false;
  let loopDone: Promise<void> | null = null;
  let stopCtl = new AbortController();
  let wakeUp: (() => void) | null = null;
  const claimToken = randomUUID();
  const claimed = new Set<string>();

  function backoff(attempt: number): number {
    const d = Math.min(retryMaxMs, cfg.retryBaseMs * 2 ** Math.min(attempt - 1, 30));
    return Math.round(d * (0.5 + Math.random() * 0.5));
  }

  async function fetchDocument(uri: string, signal: AbortSignal): Promise<FetchOutcome> {
    let url: string | null = fetchUrlFor(uri, cfg);
    if (url && cfg.rewriteUrl) {
      const r = cfg.rewriteUrl(new URL(url));
      url = r === null ? null : String(r);
    }
    if (!url) return { ok: false, error: `unsupported uri: ${uri.slice(0, 200)}`, retryable: false };
    try {
      const res = await guardedRequest(url, {
        agent: getAgent(),
        headers: { accept: 'application/json, text/plain;q=0.9, */*;q=0.5', 'user-agent': userAgent },
        maxRedirects: cfg.maxRedirects,
        timeoutMs: cfg.timeoutMs,
        maxBytes: cfg.maxBytes,
        signal,
      });
      if (res.status >= 200 && res.status < 300) return parseDocument(res.body, res.headers['content-type']);
      const retryable = res.status === 408 || res.status === 425 || res.status === 429 || res.status >= 500;
      return { ok: false, error: `HTTP ${res.status} from ${res.url}`, retryable, retryAfterMs: retryAfterMs(res.headers['retry-after']) };
    } catch (e) {
      if (e instanceof SsrfError) return { ok: false, error: e.message, retryable: false };
      if (e instanceof GuardedFetchError) {
        if (e.kind === 'aborted') return { ok: false, error: 'aborted', retryable: true, aborted: true };
        return { ok: false, error: e.message, retryable: e.kind === 'timeout' || e.kind === 'network' };
      }
      return { ok: false, error: e instanceof Error ? e.message : String(e), retryable: true };
    }
  }

  /** Records an outcome for a uri that had `attemptsBefore` failed attempts; token null = on-demand write. */
  async function record(uri: string, token: string | null, attemptsBefore: number, out: FetchOutcome): Promise<void> {
    if (out.ok) {
      stats.fetched++;
      await recordSuccess(db, uri, token, out.content, ttlMs);
      logger.debug({ uri }, 'offchain: fetched');
      return;
    }
    stats.failed++;
    const attempt = attemptsBefore + 1;
    const retry = out.retryable && attempt < cfg.maxAttempts;
    const delay = retry ? Math.min(retryMaxMs, Math.max(backoff(attempt), out.retryAfterMs ?? 0)) : ttlMs;
    await recordFailure(db, uri, token, out.error, { gaveUp: !retry, retryAfterMs: delay });
    logger.debug({ uri, error: out.error, attempt, retryInMs: delay }, 'offchain: fetch failed');
  }

  async function handleClaim(c: { uri: string; attempts: number }, signal: AbortSignal): Promise<void> {
    claimed.add(c.uri);
    stats.inFlight++;
    try {
      const out = await fetchDocument(c.uri, signal);
      if (!out.ok && out.aborted) return; // stopping: the row is put back by stop()
      await record(c.uri, claimToken, c.attempts, out);
      claimed.delete(c.uri);
    } catch (err) {
      logger.warn({ err, uri: c.uri }, 'offchain: recording a fetch result failed');
      claimed.delete(c.uri);
    } finally {
      stats.inFlight--;
    }
  }

  async function runOnce(): Promise<number> {
    const claims = await claimDue(db, cfg.concurrency, leaseMs, claimToken);
    await Promise.all(claims.map((c) => handleClaim(c, stopCtl.signal)));
    return claims.length;
  }

  async function loop(): Promise<void> {
    const inflight = new Set<Promise<void>>();
    while (running) {
      let claimedNow = 0;
      const free = cfg.concurrency - inflight.size;
      if (free > 0) {
        try {
          const claims = await claimDue(db, free, leaseMs, claimToken);
          claimedNow = claims.length;
          for (const c of claims) {
            const p: Promise<void> = handleClaim(c, stopCtl.signal).finally(() => {
              inflight.delete(p);
              wakeUp?.();
            });
            inflight.add(p);
          }
        } catch (err) {
          if (!running) break;
          logger.warn({ err }, 'offchain: claiming due uris failed');
        }
      }
      // More may be due when every free slot was filled; otherwise wait for a slot, a wake-up or the poll.
      if (claimedNow > 0 && claimedNow === free) {
        if (inflight.size < cfg.concurrency) continue;
      }
      if (!running) break;
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, inflight.size >= cfg.concurrency ? 60_000 : pollMs);
        function done() {
          clearTimeout(t);
          wakeUp = null;
          resolve();
        }
        wakeUp = done;
      });
    }
    await Promise.allSettled([...inflight]);
  }

  /** fetchNow's answer: the stored entry while it holds (unless `refetch`), else a fetch now, recorded. */
  async function answerNow(uri: string, refetch: boolean): Promise<OffchainEntry> {
    const before = (await getOffchainEntries(db, [uri])).get(uri);
    if (!cfg.enabled) return before ?? failedEntry(uri, 'off-chain fetching is disabled');
    if (!refetch && before) {
      const now = Date.now();
      const fresh = before.content !== null && (ttlMs === null || (before.fetchedAt !== null && before.fetchedAt.getTime() + ttlMs > now));
      const failureStillCached = before.content === null && before.attempts > 0 && before.nextAttemptAt !== null && before.nextAttemptAt.getTime() > now;
      const gaveUpForGood = before.content === null && before.status === 'failed' && before.nextAttemptAt === null;
      if (fresh || failureStillCached || gaveUpForGood) return before;
    }
    const out = await fetchDocument(uri, stopCtl.signal);
    if (!out.ok && out.aborted) return before ?? failedEntry(uri, 'aborted');
    await record(uri, null, before?.attempts ?? 0, out);
    return (await getOffchainEntries(db, [uri])).get(uri) ?? failedEntry(uri, out.ok ? 'not stored' : out.error);
  }

  return {
    stats,
    start() {
      if (running || !cfg.enabled) {
        if (!cfg.enabled) logger.info('offchain: fetching disabled (SOLGATE_OFFCHAIN_FETCH=false)');
        return;
      }
      running = true;
      if (stopCtl.signal.aborted) stopCtl = new AbortController();
      loopDone = loop().catch((err) => logger.error({ err }, 'offchain: worker loop failed'));
    },
    async stop() {
      running = false;
      stopCtl.abort();
      wakeUp?.();
      await loopDone;
      loopDone = null;
      await Promise.allSettled([...refetching.values(), ...answering.values()]);
      if (claimed.size) {
        await releaseClaims(db, claimToken, [...claimed]).catch((err) => logger.warn({ err }, 'offchain: releasing claims failed'));
        claimed.clear();
      }
      const a = agent;
      agent = null;
      await a?.close().catch(() => {});
    },
    async enqueue(uris) {
      const n = await enqueueUris(db, uris);
      if (n) wakeUp?.();
      return n;
    },
    wake() {
      wakeUp?.();
    },
    runOnce,
    async fetchNow(uri, opts = {}) {
      if (!isFetchableUri(uri)) return failedEntry(uri, uri.trim() ? `unsupported uri: ${uri.slice(0, 200)}` : 'empty uri');
      // Concurrent calls for one uri share one answer, registered before anything is awaited (so that no call can
      // miss one that already read the store): a refetch shares a refetch in flight, a cached read either.
      const refetch = opts.disableCache === true;
      const shared = refetching.get(uri) ?? (refetch ? undefined : answering.get(uri));
      if (shared) return shared;
      const inFlight = refetch ? refetching : answering;
      const p = answerNow(uri, refetch).finally(() => inFlight.delete(uri));
      inFlight.set(uri, p);
      return p;
    },
  };
}

function failedEntry(uri: string, error: string): OffchainEntry {
  return { uri, status: 'failed', content: null, error, attempts: 0, fetchedAt: null, lastAttemptAt: null, nextAttemptAt: null };
}
