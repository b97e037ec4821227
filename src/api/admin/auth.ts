/**
 * The admin token check: `Authorization: Bearer <SOLGATE_ADMIN_TOKEN>`. The presented token and the configured one
 * are both hashed with SHA-256 and the digests compared with `timingSafeEqual`, so neither the token's length nor
 * its content leaks through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { SolgateError } from '../../core/errors.js';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** True when `presented` is the configured token (constant time in the token's content). */
export function adminTokenMatches(presented: string, token: string): boolean {
  return timingSafeEqual(digest(presented), digest(token));
}

/** A preHandler refusing (401) requests without the admin bearer token. */
export function createAdminAuthenticator(token: string) {
  const want = digest(token);
  return async function authenticateAdmin(req: FastifyRequest): Promise<void> {
    const h = req.headers.authorization;
    const m = typeof h === 'string' ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(h) : null;
    if (!m) throw new SolgateError('UNAUTHORIZED', 'Admin token required', { details: 'send Authorization: Bearer <SOLGATE_ADMIN_TOKEN>' });
    if (!timingSafeEqual(digest(m[1]), want)) throw new SolgateError('UNAUTHORIZED', 'Invalid admin token');
  };
}
