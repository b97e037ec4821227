/**
 * Admin routes of the watch list and coverage (docs/coverage.md):
 *  - `POST /admin/api/track`              `{addresses: [...]}` (at most 10,000 a request, each a base58 address) put
 *                                         on the watch list: their state is read from the cluster ahead of their
 *                                         first request and their history queued for backfill → 202 `{tracked}`
 *  - `GET  /admin/api/coverage/:address`  what the index knows of one address: the coverage of its state and of its
 *                                         history (as `x-solgate-coverage` would say), the state slot, the watch-list
 *                                         time and the backfill progress
 */
import type { FastifyInstance } from 'fastify';
import { SolgateError } from '../../core/errors.js';
import { isAddress } from '../../core/encoding.js';
import { coverageHeaderValue, type EnsureCovered } from '../../core/coverage.js';
import type { Db } from '../../store/db.js';
import { getCoverageRow } from '../../store/coverage.js';
import { getBackfills } from '../../store/backfill.js';

/** Most addresses one track request takes (the CLI sends larger lists in chunks). */
export const MAX_TRACK_ADDRESSES = 10_000;

export interface AdminCoverageOptions {
  db: Db;
  track?: (addresses: string[]) => Promise<void>;
  ensureCovered?: EnsureCovered;
}

/** Registers the routes; a process without a coverage service (tests of other parts) has none of them (404). */
export function registerAdminCoverage(app: FastifyInstance, o: AdminCoverageOptions): void {
  const { track, ensureCovered } = o;
  if (!track || !ensureCovered) return;

  app.post(
    '/admin/api/track',
    { schema: { body: { type: 'object', properties: { addresses: { type: 'array', minItems: 1, maxItems: MAX_TRACK_ADDRESSES, items: { type: 'string' } } }, required: ['addresses'], additionalProperties: false } } },
    async (req, reply) => {
      const addresses = (req.body as { addresses: string[] }).addresses;
      const bad = addresses.filter((a) => !isAddress(a));
      if (bad.length) throw new SolgateError('INVALID_PARAMS', `${bad.length} invalid address${bad.length === 1 ? '' : 'es'}; nothing tracked`, { details: bad.slice(0, 20).join(', ') });
      await track(addresses);
      return reply.status(202).send({ tracked: new Set(addresses).size });
    },
  );

  app.get('/admin/api/coverage/:address', { schema: { params: { type: 'object', properties: { address: { type: 'string', maxLength: 64 } }, required: ['address'] } } }, async (req) => {
    const address = (req.params as { address: string }).address;
    if (!isAddress(address)) throw new SolgateError('INVALID_PARAMS', 'Invalid address', { details: `'${address}' is not a valid Solana address` });
    const [row, backfills] = await Promise.all([getCoverageRow(o.db, address), getBackfills(o.db, [address])]);
    const b = backfills.get(address);
    // The state report may read the address now (as its first request would); history is only reported.
    const state = await ensureCovered(address, 'state');
    return {
      address,
      state: coverageHeaderValue(state),
      stateSlot: row?.stateSlot ?? state.slot ?? null,
      trackedAt: row?.trackedAt ?? null,
      lastError: row?.lastError ?? null,
      backfill: b ? { status: b.status, transactions: b.transactions, pages: b.pages, oldestSlot: b.oldestSlot, lastError: b.lastError } : null,
    };
  });
}
