/**
 * `minContextSlot` of the JSON-RPC methods answered from the index (docs/rpc.md, docs/operations.md "Several API
 * machines on replicas"). A client that saw slot S in one answer (a `context.slot`, a transaction's slot) passes
 * `minContextSlot: S` and never gets an older view in the next answer, whichever API process and replica serves it:
 * the call waits, bounded (SOLGATE_MIN_CONTEXT_WAIT_MS), until the index it reads (the replica's checkpoint with
 * DATABASE_READ_URL) has reached S, then answers; otherwise it answers agave's error
 * `{code: -32016, message: "Minimum context slot has not been reached", data: {contextSlot}}` with the slot the
 * index is at.
 *
 * Where it is read, by the form of the method's params (`RpcMethod.paramsSchema`):
 * - list params with a config object (`getTransactionsForAddress [address, {minContextSlot}]`, which accepts it):
 *   the config object, the last element; it stays in the params.
 * - Photon's list params (`getMultipleCompressedAccountProofs(V2)` `[hash, …]`, `getMultipleNewAddressProofs`
 *   `[address, …]`, `getMultipleNewAddressProofsV2` `[{address, tree}, …]`) — a solgate extension: a trailing
 *   `{minContextSlot}` object where standard Solana RPC puts its config, taken out before the method sees the list
 *   (an element of those lists is a string, or an object with `address` and `tree`, never that). It may carry no
 *   other field (Photon has no other config).
 * - methods that read no params (`getIndexerSlot`, `getIndexerHealth`): `[{minContextSlot}]` as standard RPC's
 *   `getSlot [{minContextSlot}]`, or `{minContextSlot}`.
 * - by-name params (DAS, ZK Compression) — a solgate extension: a top-level `minContextSlot` field, taken out before
 *   the method sees its params (their schemas, Photon's `deny_unknown_fields` included, do not know it).
 * getProgramAccountsV2 / getTokenAccountsByOwnerV2 answer the cluster's list: their minContextSlot goes to the
 * cluster with the call, as before. The Wallet REST interface takes it as a query parameter
 * (src/api/rest/wallet/index.ts) and waits through {@link awaitContextSlot} too.
 */
import { SolgateError } from '../../core/errors.js';
import { getCheckpoint } from '../../store/chain.js';
import type { Db } from '../../store/db.js';
import type { RpcMethod } from './method.js';
import { isListParams, isNoParams } from './params-schema.js';

/** agave's words for -32016. */
export const MIN_CONTEXT_NOT_REACHED = 'Minimum context slot has not been reached';
/** SOLGATE_MIN_CONTEXT_WAIT_MS's default. */
export const DEFAULT_MIN_CONTEXT_WAIT_MS = 2000;
/** How often a process looks at its index's checkpoint while calls wait (one read per database, shared by them). */
const POLL_MS = 50;

/** Methods whose minContextSlot is checked by the cluster they read from. */
const CLUSTER_CHECKED: ReadonlySet<string> = new Set(['getProgramAccountsV2', 'getTokenAccountsByOwnerV2']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the caller's `minContextSlot` value is: null when absent or null, a number, else -32602. */
function slotValue(v: unknown): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new SolgateError('INVALID_PARAMS', `Invalid params: minContextSlot must be a non-negative integer (a slot), got ${JSON.stringify(v)}`);
  return v;
}

/**
 * The call's `minContextSlot` (null when it has none) and the params to give the method (without the field or the
 * config object where the method's own params do not know it); `zk`: a ZK Compression (Photon) method. A value that
 * is not a non-negative integer is -32602.
 */
export function takeMinContextSlot(m: Pick<RpcMethod, 'name' | 'paramsSchema'> & { zk?: boolean }, params: unknown): { slot: number | null; params: unknown } {
  if (CLUSTER_CHECKED.has(m.name)) return { slot: null, params };
  const schema = m.paramsSchema;
  if (Array.isArray(params)) {
    const last = params.length ? params[params.length - 1] : undefined;
    if (!isObject(last) || !('minContextSlot' in last)) return { slot: null, params };
    // No params read: `[{minContextSlot}]`, standard RPC's form for a method with only a config (getSlot).
    if (schema && isNoParams(schema)) return { slot: slotValue(last.minContextSlot), params };
    // Photon's lists: a trailing `{minContextSlot}` taken out of the list.
    if (schema && isListParams(schema) && m.zk) {
      const others = Object.keys(last).filter((k) => k !== 'minContextSlot');
      if (others.length)
        throw new SolgateError('INVALID_PARAMS', `Invalid params: the trailing config object of ${m.name} takes only minContextSlot, got ${others.map((k) => `\`${k}\``).join(', ')}`);
      return { slot: slotValue(last.minContextSlot), params: params.slice(0, -1) };
    }
    // By-name methods have no config element (their params are refused as a list).
    if (schema && !isListParams(schema)) return { slot: null, params };
    // A list with a config object that knows minContextSlot (getTransactionsForAddress): read, left in place.
    if (params.length < 2) return { slot: null, params };
    return { slot: slotValue(last.minContextSlot), params };
  }
  if (isObject(params) && 'minContextSlot' in params) {
    const { minContextSlot, ...others } = params;
    return { slot: slotValue(minContextSlot), params: others };
  }
  return { slot: null, params };
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
