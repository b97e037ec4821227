/**
 * API-key authentication and IP allow-lists. The key comes from `?api-key=` or the `X-Api-Key` header
 * (Wallet REST accepts both; the JSON-RPC and /v0 interfaces use the query parameter but the header is
 * accepted too). Failures are SolgateErrors; each interface's error handler renders them in its own format.
 */
import type { FastifyRequest } from 'fastify';
import { SolgateError } from '../../core/errors.js';
import type { Db } from '../../store/db.js';
import { findApiKey, type ApiKeyRecord } from '../../store/keys.js';
import { ipAllowed } from './ip-allow.js';
import { keyCacheOf } from './key-cache.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: ApiKeyRecord;
  }
}

export type AuthStyle = 'rest' | 'rpc';

/** No key at all: the same words on every interface (the hosted Wallet API's 401, compat-facts §1). */
export const API_KEY_REQUIRED = 'API key required. Pass via ?api-key=xxx or X-Api-Key header';

// A key given but unknown, revoked or expired: JSON-RPC keeps the hosted RPC's observed words (compat-facts §7).
const MESSAGES: Record<AuthStyle, { missing: string; invalid: string }> = {
  rest: { missing: API_KEY_REQUIRED, invalid: 'Invalid API key' },
  rpc: { missing: API_KEY_REQUIRED, invalid: 'invalid api key provided' },
};

/** The key presented by a request, or undefined. Several different values → treated as invalid. */
export function presentedKey(req: FastifyRequest): string | undefined {
  const q = (req.query as Record<string, unknown> | undefined)?.['api-key'];
  const h = req.headers['x-api-key'];
  const vals = [q, h].flat().filter((v): v is string => typeof v === 'string');
  if (!vals.length) return undefined;
  if (new Set(vals).size > 1) return '\u0000conflicting';
  return vals[0];
}

/** Returns a preHandler that authenticates the request against the key store. */
export function createAuthenticator(db: Db, style: AuthStyle, now: () => Date = () => new Date()) {
  const msg = MESSAGES[style];
  return async function authenticate(req: FastifyRequest): Promise<void> {
    const key = presentedKey(req);
    if (key === undefined || key === '') throw new SolgateError('UNAUTHORIZED', msg.missing);
    // Remembered for SOLGATE_KEY_CACHE_MS when the app keeps a key cache for this database (./key-cache.ts).
    const cache = keyCacheOf(db);
    let rec = cache?.get(key);
    if (!rec) {
      const epoch = cache?.epoch() ?? 0;
      const found = await findApiKey(db, key);
      if (!found) throw new SolgateError('UNAUTHORIZED', msg.invalid);
      rec = found;
      if (!rec.revokedAt) cache?.set(key, rec, epoch);
    }
    if (rec.revokedAt) throw new SolgateError('UNAUTHORIZED', style === 'rest' ? 'API key has been revoked' : msg.invalid);
    if (rec.expiresAt && rec.expiresAt <= now()) throw new SolgateError('UNAUTHORIZED', style === 'rest' ? 'API key has expired' : msg.invalid);
    if (!ipAllowed(req.ip, rec.allowedIps))
      throw new SolgateError('FORBIDDEN', style === 'rest' ? 'IP address not allowed for this API key' : 'ip address not allowed', {
        details: style === 'rest' ? `requests from ${req.ip} are not in the key's allow-list` : undefined,
      });
    req.apiKey = rec;
  };
}
