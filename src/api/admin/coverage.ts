/**
 * Admin routes of the watch list and coverage (docs/coverage.md):
 *  - `POST /admin/api/track`              `{addresses?, collections?, creators?, authorities?}` (at most 10,000
 *                                         each a request, each a base58 address) put on the watch list: addresses'
 *                                         state is read from the cluster ahead of their first request and their
 *                                         history queued for backfill; collections', creators' and authorities'
 *                                         assets are read for the DAS lists → 202 `{tracked}`
 *  - `GET  /admin/api/coverage/:address`  what the index knows of one address: the coverage of its state and of its
 *                                         history (as `x-solgate-coverage` would say), the state slot, the watch-list
 *                                         time and the backfill progress; `keys`: its coverage as a collection,
 *                                         creator or authority (only as recorded, never read by this route)
 */
import type { FastifyInstance } from 'fastify';
import { SolgateError } from '../../core/errors.js';
import { isAddress } from '../../core/encoding.js';
import { coverageHeaderValue, keyReadReport, type EnsureCovered, type KeyNeed } from '../../core/coverage.js';
import type { Db } from '../../store/db.js';
import { getCoverageRow } from '../../store/coverage.js';
import { getBackfills } from '../../store/backfill.js';
import { getKeyCoverageRows } from '../../store/key-coverage.js';

/** Most addresses one track request takes (the CLI sends larger lists in chunks). */
export const MAX_TRACK_ADDRESSES = 10_000;

export interface AdminCoverageOptions {
  db: Db;
  track?: (addresses: string[]) => Promise<void>;
  trackKeys?: (need: KeyNeed, keys: string[]) => Promise<void>;
  ensureCovered?: EnsureCovered;
}

/** The body's lists of keys by the need they are tracked for. */
const KEY_LISTS: readonly [string, KeyNeed][] = [['collections', 'group'], ['creators', 'creator'], ['authorities', 'authority']];
const list = { type: 'array', minItems: 1, maxItems: MAX_TRACK_ADDRESSES, items: { type: 'string' } };

/** Registers the routes; a process without a coverage service (tests of other parts) has none of them (404). */
export function registerAdminCoverage(app: FastifyInstance, o: AdminCoverageOptions): void {
  const { track, trackKeys, ensureCovered } = o;
  if (!track || !ensureCovered) return;

  app.post(
    '/admin/api/track',
    {
      schema: {
        body: {
          type: 'object',
          properties: { addresses: list, collections: list, creators: list, authorities: list },
          anyOf: ['addresses', ...KEY_LISTS.map(([k]) => k)].map((k) => ({ required: [k] })),
          additionalProperties: false,
        },
      },
    },
    async (req, reply) => {
      const body = req.body as Record<string, string[] | undefined>;
      const all = [body.addresses ?? [], ...KEY_LISTS.map(([k]) => body[k] ?? [])].flat();
      const bad = all.filter((a) => !isAddress(a));
      if (bad.length) throw new SolgateError('INVALID_PARAMS', `${bad.length} invalid address${bad.length === 1 ? '' : 'es'}; nothing tracked`, { details: bad.slice(0, 20).join(', ') });
      const keyed = KEY_LISTS.filter(([k]) => body[k]?.length);
      if (keyed.length && !trackKeys) throw new SolgateError('INVALID_PARAMS', 'This server does not track collections, creators or authorities');
      let tracked = 0;
      if (body.addresses?.length) {
        await track(body.addresses);
        tracked += new Set(body.addresses).size;
      }
      for (const [k, need] of keyed) {
        await trackKeys!(need, body[k]!);
        tracked += new Set(body[k]).size;
      }
      return reply.status(202).send({ tracked });
    },
  );

  app.get('/admin/api/coverage/:address', { schema: { params: { type: 'object', properties: { address: { type: 'string', maxLength: 64 } }, required: ['address'] } } }, async (req) => {
    const address = (req.params as { address: string }).address;
    if (!isAddress(address)) throw new SolgateError('INVALID_PARAMS', 'Invalid address', { details: `'${address}' is not a valid Solana address` });
    const [row, backfills, keys] = await Promise.all([getCoverageRow(o.db, address), getBackfills(o.db, [address]), getKeyCoverageRows(o.db, address)]);
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
      keys: keys.map((k) => ({
        need: k.need,
        coverage: k.slot === null ? null : coverageHeaderValue(keyReadReport(k.slot, k.partial)),
        slot: k.slot,
        trackedAt: k.trackedAt,
        lastError: k.lastError,
      })),
    };
  });
}
