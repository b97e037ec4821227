/**
 * getSignaturesForAddress answered from the index where it is authoritative: an older page (`before` a signature
 * the index holds, at a slot every cluster node has finalized) of an address whose history the index holds whole
 * (it began at genesis, or the address was backfilled — or, with `until`, from that signature on). That is the page
 * a node with a pruned ledger can no longer serve and the one that costs a node the most; the head of the list (no
 * `before`) and every other case go to the cluster.
 *
 * The answer is agave's: `{signature, slot, err, memo, blockTime, confirmationStatus: "finalized"}` newest first,
 * at most `limit` (1–1000, default 1000), strictly older than `before` and newer than `until`. Addresses the index
 * does not link directly — programs (an executable account: the index keeps no links for invocations), sysvars and
 * native programs, accounts that no longer exist — and pages with a transaction whose memo the index did not keep
 * are forwarded.
 */
import { isAddress, isSignature } from '../../../core/encoding.js';
import { isInfrastructureAddress } from '../../../core/infrastructure.js';
import { getCheckpoint } from '../../../store/chain.js';
import { addressTransactionsPage, transactionPosition, type AddressTxRow } from '../../../store/chain-reads.js';
import { getIndexOrigin } from '../../../store/coverage.js';
import { getBackfills } from '../../../store/backfill.js';
import { retainedFrom } from '../../../store/partitions.js';
import type { IndexAnswer } from './types.js';

/** Slots below the index's checkpoint taken as finalized on every node when the index follows `confirmed`. */
export const CONFIRMED_FINALITY_MARGIN = 150;

const KNOWN = new Set(['commitment', 'minContextSlot', 'limit', 'before', 'until']);

export const getSignaturesForAddress: IndexAnswer = async (params, deps) => {
  if (!Array.isArray(params) || params.length < 1 || params.length > 2) return undefined;
  const [address, cfg = {}] = params as [unknown, Record<string, unknown> | null | undefined];
  if (typeof address !== 'string' || !isAddress(address) || isInfrastructureAddress(address)) return undefined;
  const c = cfg ?? {};
  if (typeof c !== 'object' || Array.isArray(c) || Object.keys(c).some((k) => !KNOWN.has(k))) return undefined;
  const commitment = c.commitment ?? 'finalized';
  if (commitment !== 'finalized' && commitment !== 'confirmed') return undefined;
  const limit = c.limit ?? 1000;
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > 1000) return undefined;
  if (typeof c.before !== 'string' || !isSignature(c.before)) return undefined;
  if (c.until !== undefined && (typeof c.until !== 'string' || !isSignature(c.until))) return undefined;

  const checkpoint = await getCheckpoint(deps.db);
  if (checkpoint === null) return undefined;
  if (c.minContextSlot !== undefined && (!Number.isSafeInteger(c.minContextSlot) || (c.minContextSlot as number) > checkpoint)) return undefined;
  const before = await transactionPosition(deps.db, c.before);
  const horizon = deps.indexCommitment === 'finalized' ? checkpoint : checkpoint - CONFIRMED_FINALITY_MARGIN;
  if (!before || before.slot > horizon) return undefined;
  const until = c.until === undefined ? null : await transactionPosition(deps.db, c.until);
  if (c.until !== undefined && !until) return undefined;

  // The index holds the address's history below `before` whole: from genesis, from a read-back, or from `until` on.
  const origin = await getIndexOrigin(deps.db);
  if (origin === null) return undefined;
  if (origin > 0 && !(until && until.slot >= origin)) {
    const done = await getBackfills(deps.db, [address]);
    if (done.get(address)?.status !== 'done') return undefined;
  }
  // Programs are linked only where they are written, not where they are invoked: ask the cluster whether it is one.
  if (!deps.upstreamRpc) return undefined;
  const info = await deps.upstreamRpc.forward('getAccountInfo', [address, { encoding: 'base64', dataSlice: { offset: 0, length: 0 } }], 0, true);
  const value = (info.result as { value?: { executable?: boolean } | null } | undefined)?.value;
  if (info.error || !value || value.executable !== false) return undefined;

  const page = await addressTransactionsPage(deps.db, {
    address, desc: true, limit: limit as number, after: { slot: before.slot, index: before.index }, relations: [1], status: 'any',
    ...(until ? { slot: { gte: until.slot } } : {}),
  });
  const rows: AddressTxRow[] = until ? page.rows.filter((r) => r.slot > until.slot || r.txIndex > until.index) : page.rows;
  if (rows.some((r) => r.memo === '')) return undefined;
  // Retention dropped the history below `kept` (docs/storage.md): a page that may reach there is the cluster's.
  const kept = await retainedFrom(deps.db, 'history');
  if (kept !== null && !(until && until.slot >= kept) && (rows.length < (limit as number) || rows[rows.length - 1].slot < kept)) return undefined;
  return rows.map((r) => ({ signature: r.signature, slot: r.slot, err: r.err, memo: r.memo, blockTime: r.blockTime, confirmationStatus: 'finalized' }));
};
