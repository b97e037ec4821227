/**
 * `minContextSlot` of the JSON-RPC methods answered from the index (docs/rpc.md, docs/operations.md "Several API
 * machines on replicas"). A client that saw slot S in one answer (a `context.slot`, a transaction's slot) passes
 * `minContextSlot: S` and never gets an older view in the next answer, whichever API process and replica serves it:
 * the call waits, bounded (SOLGATE_MIN_CONTEXT_WAIT_MS), until the index it reads (the replica's checkpoint with
 * DATABASE_READ_URL) has reached S, then answers; otherwise it answers agave's error
 * `{code: -32016, message: "Minimum context slot has not been reached", data: {contextSlot}}` with the slot the
 * index is at.
 *
 * Where it is read: the config object (the last element) of list params that carry one (`getTransactionsForAddress
 * [address, {minContextSlot}]`, which accepts it), and — a solgate extension — a top-level `minContextSlot` field of
 * by-name params (DAS, ZK Compression), taken out before the method sees its params (their schemas, Photon's
 * `deny_unknown_fields` included, do not know it). getProgramAccountsV2 / getTokenAccountsByOwnerV2 answer the
 * cluster's list: their minContextSlot goes to the cluster with the call, as before.
 */
import { SolgateError } from '../../core/errors.js';
import { getCheckpoint } from '../../store/chain.js';
import type { Db } from '../../store/db.js';

/** agave's words for -32016. */
export const MIN_CONTEXT_NOT_REACHED = 'Minimum context slot has not been reached';
/** How often a process looks at its index's checkpoint while calls wait (one read per database, shared by them). */
const POLL_MS = 50;

/** Methods whose minContextSlot is checked by the cluster they read from. */
const CLUSTER_CHECKED: ReadonlySet<string> = new Set(['getProgramAccountsV2', 'getTokenAccountsByOwnerV2']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The call's `minContextSlot` (null when it has none) and the params to give the method (by-name params without
 * the field). A value that is not a non-negative integer is -32602.
 */
export function takeMinContextSlot(method: string, params: unknown): { slot: number | null; params: unknown } {
  if (CLUSTER_CHECKED.has(method)) return { slot: null, params };
  let v: unknown;
  let rest = params;
  if (Array.isArray(params)) {
    const cfg = params.length >= 2 ? params[params.length - 1] : undefined;
    if (!isObject(cfg) || !('minContextSlot' in cfg)) return { slot: null, params };
    v = cfg.minContextSlot;
  } else if (isObject(params) && 'minContextSlot' in params) {
    const { minContextSlot, ...others } = params;
    v = minContextSlot;
    rest = others;
  } else return { slot: null, params };
  if (v === undefined || v === null) return { slot: null, params: rest };
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new SolgateError('INVALID_PARAMS', `Invalid params: minContextSlot must be a non-negative integer (a slot), got ${JSON.stringify(v)}`);
  return { slot: v, params: rest };
}

/** The -32016 error with the slot the index is at. */
export function minContextNotReached(at: number | null): SolgateError {
  return new SolgateError('INDEX_BEHIND', MIN_CONTEXT_NOT_REACHED, { context: { data: { contextSlot: at ?? 0 } } });
}

interface Waiter {
  slot: number;
  deadline: number;
  done(at: number | null, reached: boolean): void;
}

/** The calls waiting on each database's checkpoint; one poll loop per database runs while any waits. */
const waiting = new WeakMap<Db, Set<Waiter>>();

function watch(db: Db, w: Waiter): void {
  const existing = waiting.get(db);
  if (existing) {
    existing.add(w);
    return;
  }
  const set = new Set<Waiter>([w]);
  waiting.set(db, set);
  void (async () => {
    let at: number | null = null;
    while (set.size) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      try {
        at = await getCheckpoint(db);
      } catch {
        // The database did not answer this round: the next one asks again; waiters still end at their deadline.
      }
      const now = Date.now();
      for (const x of set) {
        if (at !== null && at >= x.slot) {
          set.delete(x);
          x.done(at, true);
        } else if (now >= x.deadline) {
          set.delete(x);
          x.done(at, false);
        }
      }
    }
    waiting.delete(db);
  })();
}

/**
 * Resolves with the index's checkpoint once it is at `slot` or later, waiting at most `waitMs`; throws
 * {@link minContextNotReached} when it is not reached by then.
 */
export async function awaitContextSlot(db: Db, slot: number, waitMs: number): Promise<number> {
  const at = await getCheckpoint(db);
  if (at !== null && at >= slot) return at;
  if (waitMs <= 0) throw minContextNotReached(at);
  return new Promise<number>((resolve, reject) => {
    watch(db, {
      slot,
      deadline: Date.now() + waitMs,
      done: (now, reached) => (reached ? resolve(now!) : reject(minContextNotReached(now ?? at))),
    });
  });
}
