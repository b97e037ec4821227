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

/**
 * A preHandler refusing (401) requests without the admin bearer token. `cliToken` is the per-run token of the CLI
 * (written into the embedded data directory's lock, readable by its owner only), accepted as well; with no admin
 * token configured it is the only one, and any other request is told the admin API is off (404, `disabledHint`).
 */
export function createAdminAuthenticator(o: { token?: string; cliToken?: string; disabledHint?: string }) {
  const wants = [o.token, o.cliToken].filter((t): t is string => !!t).map(digest);
  return async function authenticateAdmin(req: FastifyRequest): Promise<void> {
    const h = req.headers.authorization;
    const m = typeof h === 'string' ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(h) : null;
    const got = m ? digest(m[1]) : null;
    // Every configured token is compared (no early exit), so timing does not tell which one matched.
    let ok = false;
    for (const w of wants) if (got && timingSafeEqual(got, w)) ok = true;
    if (ok) return;
    if (!o.token) throw new SolgateError('NOT_FOUND', 'Admin API is disabled', { details: o.disabledHint });
    if (!m) throw new SolgateError('UNAUTHORIZED', 'Admin token required', { details: 'send Authorization: Bearer <SOLGATE_ADMIN_TOKEN>' });
    throw new SolgateError('UNAUTHORIZED', 'Invalid admin token');
  };
}
