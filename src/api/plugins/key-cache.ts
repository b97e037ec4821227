/**
 * Keys that passed authentication, remembered by their presented text for `ttlMs` (SOLGATE_KEY_CACHE_MS, 1 s by
 * default; 0 = every request reads the key store): one key lookup per key and interval instead of one round trip
 * per request. A change to a key (revoke, rotate, plan, allow-list, expiry):
 * - made through this process's key store applies here at once (the store's change counter);
 * - made by another process on the same PostgreSQL applies as soon as its NOTIFY arrives (LISTEN `solgate_keys`);
 * - is at the latest in force after `ttlMs` when a notification was lost (a listening connection that dropped).
 * Unknown and refused keys are never remembered (a key created a moment ago works at once), and expiry and the
 * IP allow-list are still judged on every request from the remembered record.
 */
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../store/db.js';
import { KEYS_CHANNEL, keysChangeCount, type ApiKeyRecord } from '../../store/keys.js';

export interface KeyCache {
  /** The current epoch: read before a lookup and given to `set`, so a change during the lookup is not hidden. */
  epoch(): number;
  get(key: string): ApiKeyRecord | undefined;
  set(key: string, rec: ApiKeyRecord, epoch: number): void;
}

const MAX_ENTRIES = 10_000;
const caches = new WeakMap<Db, KeyCache>();

/** The cache of keys checked against `db`, when the app started one. */
export function keyCacheOf(db: Db): KeyCache | undefined {
  return caches.get(db);
}

/** Starts remembering keys checked against `db` for `ttlMs`; stopped (and its LISTEN connection closed) with `app`. */
export async function startKeyCache(app: FastifyInstance, db: Db, ttlMs: number): Promise<void> {
  if (!(ttlMs > 0) || caches.has(db)) return;
  const entries = new Map<string, { rec: ApiKeyRecord; until: number; epoch: number }>();
  let notified = 0;
  const epoch = () => notified + keysChangeCount();
  const cache: KeyCache = {
    epoch,
    get(key) {
      const e = entries.get(key);
      if (!e) return undefined;
      if (e.until > Date.now() && e.epoch === epoch()) return e.rec;
      entries.delete(key);
      return undefined;
    },
    set(key, rec, at) {
      if (at !== epoch()) return;
      if (entries.size >= MAX_ENTRIES) entries.clear();
      entries.set(key, { rec, until: Date.now() + ttlMs, epoch: at });
    },
  };
  let stop: (() => Promise<void>) | null = null;
  if (db.kind === 'postgres') {
    try {
      stop = await db.listen(KEYS_CHANNEL, () => {
        notified++;
      });
    } catch (err) {
      app.log.warn({ err }, `API keys: LISTEN ${KEYS_CHANNEL} failed; changes made by other processes apply within ${ttlMs} ms`);
    }
  }
  caches.set(db, cache);
  app.addHook('onClose', async () => {
    if (caches.get(db) === cache) caches.delete(db);
    await stop?.();
  });
}
