/**
 * `changedSinceSlot` of getProgramAccountsV2 / getTokenAccountsByOwnerV2 (methods/getProgramAccountsV2.ts): of the
 * accounts the cluster listed at its context slot X, those the index saw written at a slot S..X — a direct link
 * (address_transactions relation 1) not marked read-only (migration 027). Answered only when the index can know:
 *  - S at or after the index's origin (or before it, once bulk backfills cover every earlier slot, or — getTokenAccounts
 *    ByOwnerV2 — every listed account's own history was read back), else -32602 naming the first slot it answers from;
 *  - the index's checkpoint at X or later: waited for a few seconds, else a -32016 "behind" error (never a list cut
 *    short because the index has not reached the cluster's slot);
 *  - not the System, Vote or Stake program's accounts: the runtime writes them outside the transactions the index
 *    holds (block fees to the leader, vote transactions, epoch rewards), so their writes cannot be told.
 * Sysvars and the native programs get no address links (src/core/infrastructure.ts): listed, they are kept, as the
 * index cannot say they were not written.
 */
import { SolgateError } from '../../core/errors.js';
import { isInfrastructureAddress } from '../../core/infrastructure.js';
import { STAKE_PROGRAM, SYSTEM_PROGRAM, VOTE_PROGRAM } from '../../core/programs.js';
import { getBackfills, rangesCoverBefore } from '../../store/backfill.js';
import { getCheckpoint } from '../../store/chain.js';
import { writtenBetween } from '../../store/chain-reads.js';
import { getIndexOrigin } from '../../store/coverage.js';
import { retainedFrom } from '../../store/partitions.js';
import type { Db } from '../../store/db.js';

/** Programs whose accounts the runtime writes outside indexed transactions. */
const UNTRACKED_OWNERS: ReadonlyMap<string, string> = new Map([
  [SYSTEM_PROGRAM, 'the System program\'s accounts are also written by vote transactions and block fees, which the index does not hold'],
  [VOTE_PROGRAM, 'vote accounts are written by vote transactions and epoch rewards, which the index does not hold'],
  [STAKE_PROGRAM, 'stake accounts are written by epoch rewards, outside any transaction'],
]);

/** How long an answer waits for the index to reach the cluster's slot, and how often it looks. */
export const CHANGED_SINCE_WAIT_MS = 5000;
const POLL_MS = 100;

const invalid = (m: string): never => {
  throw new SolgateError('INVALID_PARAMS', `Invalid params: ${m}`);
};

/** The `changedSinceSlot` of a config object: null when absent, else a non-negative integer (-32602 otherwise). */
export function changedSinceOf(cfg: Record<string, unknown>): number | null {
  const v = cfg.changedSinceSlot;
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) return invalid(`changedSinceSlot must be a non-negative integer (a slot), got ${JSON.stringify(v)}`);
  return v;
}

/** GPA: refuses programs whose writes the index cannot see. */
export function checkProgramTracked(program: string): void {
  const why = UNTRACKED_OWNERS.get(program);
  if (why) invalid(`changedSinceSlot is not available for ${program}: ${why}`);
}

/**
 * Refuses S before the index's origin (with the first slot it answers from), unless bulk backfills cover every
 * slot before the origin or every one of `accounts` (when given) had its history read back completely; and S before
 * the slot retention kept the history from.
 */
export async function checkOrigin(db: Db, since: number, accounts: readonly string[] | null): Promise<void> {
  // Retention dropped the links below `kept` (docs/storage.md): nothing before it can be told, backfilled or not.
  const kept = await retainedFrom(db, 'history');
  if (kept !== null && since < kept) invalid(`changedSinceSlot ${since} is before slot ${kept}: retention has dropped the index's older history; the index answers from slot ${kept} on`);
  const origin = await getIndexOrigin(db);
  if (origin === null || origin <= since || (await rangesCoverBefore(db, origin))) return;
  let missing: string | undefined;
  if (accounts) {
    const done = await getBackfills(db, [...accounts]);
    missing = accounts.find((a) => done.get(a)?.status !== 'done');
    if (missing === undefined) return;
  }
  invalid(
    `changedSinceSlot ${since} is before slot ${origin}, where the index began${missing ? ` (the history of ${missing} was not read back)` : ''}: ` +
      `the index answers from slot ${origin} on`,
  );
}

/** Waits (bounded) for the index's checkpoint to reach `slot`; a -32016 error when it does not. */
export async function awaitIndex(db: Db, slot: number, waitMs = CHANGED_SINCE_WAIT_MS): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const at = await getCheckpoint(db);
    if (at !== null && at >= slot) return;
    if (Date.now() >= deadline)
      throw new SolgateError(
        'INDEX_BEHIND',
        at === null
          ? `changedSinceSlot: the index holds no slot yet (the cluster's list is at slot ${slot}); try again when it has caught up`
          : `changedSinceSlot: the index is at slot ${at}, behind the cluster's slot ${slot}; try again`,
      );
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** The accounts of the list (at the cluster's slot `at`) written at a slot `since`..`at`, in the list's order. */
export async function keepChanged<T extends { pubkey: string }>(db: Db, list: T[], since: number, at: number): Promise<T[]> {
  await awaitIndex(db, at);
  const tracked = list.map((a) => a.pubkey).filter((k) => !isInfrastructureAddress(k));
  const written = await writtenBetween(db, tracked, since, at);
  return list.filter((a) => written.has(a.pubkey) || isInfrastructureAddress(a.pubkey));
}
