/**
 * The enhanced `accountSubscribe` (compat-facts-rpc §6), served from the committed blocks: when a block the index
 * commits wrote a subscribed account (a writable key of a successful transaction, or the fee payer of a failed one),
 * the account is read from the cluster at that slot or later (`getMultipleAccounts`, `minContextSlot`, the
 * subscription's encoding and dataSlice) and sent as `accountNotification {context: {slot}, value}` — so a client
 * that reads solgate after a notification sees what it announced. Accounts written in several blocks while a read was
 * in flight are read once (the state is the latest anyway, as a node's notification would show). An account that no
 * longer exists is sent as the node sends it: 0 lamports, no data, owned by the System Program.
 *
 * Subscriptions at the index's commitment come here; other commitments are bridged to the node (src/api/ws/pubsub.ts).
 */
import type { Block } from '../../core/model.js';
import { isWritable } from '../../core/model.js';
import { isAddress } from '../../core/encoding.js';
import type { Demand } from '../../core/demand.js';
import type { AccountFetch, AccountOptions, AccountEncoding } from '../../core/upstream.js';

export type { AccountFetch, AccountOptions, AccountEncoding } from '../../core/upstream.js';


export interface AccountHub {
  /** The commitment its notifications come at (the index's). */
  readonly commitment: 'confirmed' | 'finalized';
  /** Called with each batch of committed blocks, in slot order. */
  publish(blocks: readonly Block[]): void;
  /** Registers a subscription; returns its cancel function. */
  subscribe(pubkey: string, options: AccountOptions, send: (result: { context: { slot: number }; value: Record<string, unknown> }) => void): () => void;
}

interface Logger {
  warn(o: object, msg: string): void;
}

const ENCODINGS: readonly string[] = ['base58', 'base64', 'base64+zstd', 'jsonParsed'];
/** getMultipleAccounts takes at most 100 keys. */
const CHUNK = 100;

/**
 * `[pubkey, config?]` of accountSubscribe when the index serves it (commitment, default finalized, is `commitment`);
 * null when it is for the node (another commitment, or fields the index path does not know). Throws the -32602
 * message for a bad pubkey or config.
 */
export function accountParams(params: unknown, commitment: 'confirmed' | 'finalized'): { pubkey: string; options: AccountOptions } | null {
  const fail = (m: string): never => {
    throw new Error(`Invalid params: ${m}`);
  };
  if (!Array.isArray(params) || params.length < 1 || params.length > 2) fail('expected [pubkey, config?]');
  const [pubkey, cfg] = params as [unknown, Record<string, unknown> | undefined | null];
  if (typeof pubkey !== 'string' || !isAddress(pubkey)) fail('pubkey must be a base58 address');
  const c = cfg ?? {};
  if (typeof c !== 'object' || Array.isArray(c)) fail('config must be an object');
  for (const k of Object.keys(c)) if (!['commitment', 'encoding', 'dataSlice'].includes(k)) return null;
  if ((c.commitment ?? 'finalized') !== commitment) return null;
  const encoding = (c.encoding ?? 'base58') as string;
  if (!ENCODINGS.includes(encoding)) fail('encoding must be base58, base64, base64+zstd or jsonParsed');
  let dataSlice: AccountOptions['dataSlice'];
  if (c.dataSlice !== undefined) {
    const d = c.dataSlice as { offset?: unknown; length?: unknown } | null;
    if (!d || typeof d !== 'object' || !Number.isSafeInteger(d.offset) || !Number.isSafeInteger(d.length) || (d.offset as number) < 0 || (d.length as number) < 0)
      fail('dataSlice must be {offset, length} with non-negative integers');
    dataSlice = { offset: d!.offset as number, length: d!.length as number };
  }
  return { pubkey: pubkey as string, options: { encoding: encoding as AccountEncoding, ...(dataSlice ? { dataSlice } : {}) } };
}

/** The accounts a block's transactions wrote: writable keys of successful ones (all keys when the header is unknown), the fee payer of failed ones. */
export function writtenAccounts(block: Block): Set<string> {
  const out = new Set<string>();
  for (const tx of block.transactions) {
    if (tx.meta?.err) {
      if (tx.accountKeys.length) out.add(tx.accountKeys[0]);
      continue;
    }
    for (let i = 0; i < tx.accountKeys.length; i++) if (isWritable(tx, i) !== false) out.add(tx.accountKeys[i]);
  }
  return out;
}

/** The value a node sends for an account that no longer exists. */
function emptyAccount(o: AccountOptions): Record<string, unknown> {
  const enc = o.encoding === 'jsonParsed' ? 'base64' : o.encoding;
  return { lamports: 0, data: ['', enc], owner: '11111111111111111111111111111111', executable: false, rentEpoch: 0, space: 0 };
}

export function createAccountHub(fetch: AccountFetch, o: { commitment: 'confirmed' | 'finalized'; demand?: Demand; logger?: Logger; retries?: number }): AccountHub {
  type Sub = { pubkey: string; options: AccountOptions; group: string; send: (r: { context: { slot: number }; value: Record<string, unknown> }) => void };
  const byKey = new Map<string, Set<Sub>>();
  /** Written subscribed accounts not read yet, with the newest slot that wrote each. */
  const pending = new Map<string, number>();
  let draining = false;
  const retries = o.retries ?? 3;

  async function read(keys: string[], options: AccountOptions, minContextSlot: number) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fetch(keys, { ...options, minContextSlot });
      } catch (err) {
        if (attempt >= retries) throw err;
        await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
      }
    }
  }

  async function drain(): Promise<void> {
    draining = true;
    try {
      while (pending.size) {
        const batch = [...pending];
        pending.clear();
        const minSlot = Math.max(...batch.map(([, s]) => s));
        // One read per distinct (encoding, dataSlice) among the subscriptions of the written accounts.
        const groups = new Map<string, { options: AccountOptions; keys: string[] }>();
        for (const [key] of batch)
          for (const s of byKey.get(key) ?? []) {
            const g = groups.get(s.group) ?? { options: s.options, keys: [] };
            if (!g.keys.includes(key)) g.keys.push(key);
            groups.set(s.group, g);
          }
        for (const [group, g] of groups)
          for (let i = 0; i < g.keys.length; i += CHUNK) {
            const keys = g.keys.slice(i, i + CHUNK);
            let got: Awaited<ReturnType<AccountFetch>>;
            try {
              got = await read(keys, g.options, minSlot);
            } catch (err) {
              o.logger?.warn({ err, accounts: keys.length }, 'accountSubscribe: reading written accounts from the cluster failed; their notifications for this write are lost');
              continue;
            }
            keys.forEach((key, j) => {
              const value = got.values[j] ?? emptyAccount(g.options);
              for (const s of byKey.get(key) ?? []) if (s.group === group) s.send({ context: { slot: got.slot }, value });
            });
          }
      }
    } finally {
      draining = false;
    }
  }

  return {
    commitment: o.commitment,
    publish(blocks) {
      if (!byKey.size) return;
      for (const b of blocks)
        for (const key of writtenAccounts(b)) if (byKey.has(key)) pending.set(key, Math.max(pending.get(key) ?? 0, b.slot));
      if (pending.size && !draining) void drain();
    },
    subscribe(pubkey, options, send) {
      const s: Sub = { pubkey, options, group: JSON.stringify([options.encoding, options.dataSlice ?? null]), send };
      const set = byKey.get(pubkey) ?? new Set();
      set.add(s);
      byKey.set(pubkey, set);
      const release = o.demand?.acquire();
      return () => {
        set.delete(s);
        if (!set.size && byKey.get(pubkey) === set) byKey.delete(pubkey);
        release?.();
      };
    },
  };
}
