/**
 * The subscriptions of the localnet's PubSub service and their notifications, in agave's shapes
 * (`rpc_subscriptions.rs`), transport-free: a client is a `send(text)` function; `pubsub.ts` is the WebSocket side.
 *
 * When they fire. A transaction executes into the open slot when it is sent; closing the slot makes it a block,
 * processed, and later slots confirm and finalize it (`chain.ts`, `commitment.ts`). As agave, a subscription is
 * notified when a block reaches its `commitment` (default finalized): processed ones when the block is produced,
 * confirmed and finalized ones when the chain's `onBlock` at that level passes it, with `context.slot` the block's
 * slot and the state at the end of that block. The only earlier event is `enableReceivedNotification`'s
 * `"receivedSignature"`, sent when the transaction executes.
 * - slot: `{parent, root, slot}` per produced block (root: the newest finalized block's slot); root: the slot of
 *   each block as it is finalized.
 * - signature: one `{err}` when the transaction's block reaches the commitment (at once when it already has), then
 *   removed.
 * - account: the account's state at the end of the block when a transaction of the block wrote it (a writable key
 *   of a successful transaction, or the fee payer of a failed one: what agave stores), as agave notifies on every
 *   store; a closed account is notified as agave does it, zero lamports owned by the System program.
 * - program: `{pubkey, account}` for each account written in the block that the program owns after it and the
 *   filters allow.
 * - logs: `{signature, err, logs}` per transaction (`all` leaves out vote transactions; `mentions`: any account key).
 * - block: `{slot, err: null, block}` per block (mentions: only the transactions naming the key, none: no
 *   notification); a v0 transaction without `maxSupportedTransactionVersion` gives `err` and `block: null`.
 * Account states are read at the end of the notified block (`LocalChain.accountAtSlot`), so a confirmed or
 * finalized notification carries that block's state even when later transactions wrote the account since.
 */
import { SYSTEM_PROGRAM, TOKEN_PROGRAMS, VOTE_PROGRAM } from '../../core/programs.js';
import { allKeys } from './block-store.js';
import type { LocalChain } from './chain.js';
import { atLeast, type Commitment } from './commitment.js';
import { isWritable } from './executor.js';
import { filterAllows, keyedAccounts, renderAccount, type AccountOpts } from './rpc-accounts.js';
import { accountJson, blockJson, stringifyJson } from './rpc-encode.js';
import { RpcError } from './rpc-params.js';
import { NOTIFICATION, type SubscriptionSpec } from './pubsub-params.js';
import type { LocalAccount, LocalBlock, LocalTx } from './types.js';

export interface PubSubClient {
  readonly subscriptions: Map<number, Subscription>;
  /** Sends one text frame (the transport applies its own backpressure policy). */
  send(text: string): void;
}

export interface Subscription {
  readonly id: number;
  readonly spec: SubscriptionSpec;
  readonly client: PubSubClient;
}

/** agave's default `max_active_subscriptions` is 1,000,000; the localnet keeps a tenth (each one costs memory). */
export const DEFAULT_MAX_SUBSCRIPTIONS = 100_000;

const CLOSED_ACCOUNT: LocalAccount = { lamports: 0n, data: new Uint8Array(0), owner: SYSTEM_PROGRAM, executable: false };

function addTo<K, V>(map: Map<K, Set<V>>, key: K, v: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(v);
}

function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, v: V): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(v);
  if (!set.size) map.delete(key);
}

/** Addresses a transaction stores: its writable keys, or only the fee payer when it failed. */
function storedKeys(tx: LocalTx): string[] {
  if (tx.meta.err !== null) return [tx.staticKeys[0]];
  return allKeys(tx).filter((_, i) => isWritable(tx, i));
}

/** Whether a subscription is notified at `level`. */
const at = (sub: Subscription, level: Commitment) => 'commitment' in sub.spec && sub.spec.commitment === level;

const isVote = (tx: LocalTx) => tx.instructions.some((ix) => tx.staticKeys[ix.programIdIndex] === VOTE_PROGRAM);

/** A cache key for an account rendering (encoding and slice). */
const optsKey = (o: AccountOpts) => `${o.encoding}:${o.slice ? `${o.slice.offset}:${o.slice.length}` : ''}`;

export class PubSubHub {
  private nextId = 0;
  private count = 0;
  private readonly bySignature = new Map<string, Set<Subscription>>();
  private readonly byAccount = new Map<string, Set<Subscription>>();
  private readonly byProgram = new Map<string, Set<Subscription>>();
  private readonly logsByKey = new Map<string, Set<Subscription>>();
  private readonly logsAll = new Set<Subscription>();
  private readonly slots = new Set<Subscription>();
  private readonly roots = new Set<Subscription>();
  private readonly blocks = new Set<Subscription>();
  private readonly unlisten: (() => void)[];

  constructor(
    private readonly chain: LocalChain,
    private readonly opts: { maxSubscriptions?: number; warn?: (message: string, context: Record<string, unknown>) => void } = {},
  ) {
    this.unlisten = [
      chain.onBlock((b) => this.guard('block', () => this.onBlock(b, 'processed'))),
      chain.onBlock((b) => this.guard('block', () => this.onBlock(b, 'confirmed')), 'confirmed'),
      chain.onBlock((b) => this.guard('block', () => this.onBlock(b, 'finalized')), 'finalized'),
      chain.onTransaction((t) => this.guard('transaction', () => this.onTransaction(t))),
    ];
  }

  /** Active subscriptions over all clients. */
  get size(): number {
    return this.count;
  }

  /** Stops listening to the chain; subscriptions stay until their clients go. */
  close(): void {
    for (const u of this.unlisten) u();
  }

  /** Adds a subscription; throws -32603 past the node's limit. Call `afterSubscribe` once its id was answered. */
  subscribe(client: PubSubClient, spec: SubscriptionSpec): Subscription {
    if (this.count >= (this.opts.maxSubscriptions ?? DEFAULT_MAX_SUBSCRIPTIONS)) {
      throw new RpcError(-32603, 'Internal Error: Subscription refused. Node subscription limit reached');
    }
    const sub: Subscription = { id: this.nextId++, spec, client };
    this.count++;
    client.subscriptions.set(sub.id, sub);
    const s = sub.spec;
    if (s.kind === 'account') addTo(this.byAccount, s.address, sub);
    else if (s.kind === 'program') addTo(this.byProgram, s.program, sub);
    else if (s.kind === 'signature') addTo(this.bySignature, s.signature, sub);
    else if (s.kind === 'logs') s.mentions === null ? this.logsAll.add(sub) : addTo(this.logsByKey, s.mentions, sub);
    else if (s.kind === 'slot') this.slots.add(sub);
    else if (s.kind === 'root') this.roots.add(sub);
    else this.blocks.add(sub);
    return sub;
  }

  /**
   * A signature whose block already reached the subscription's commitment is notified (and the subscription ended)
   * at once, after its id was sent.
   */
  afterSubscribe(sub: Subscription): void {
    if (sub.spec.kind !== 'signature' || !sub.client.subscriptions.has(sub.id)) return;
    const tx = this.chain.getTransaction(sub.spec.signature);
    if (tx && atLeast(this.chain.levelOf(tx.slot), sub.spec.commitment)) this.notifySignature(sub, tx);
  }

  /** Removes subscription `id` of `client`; false when the client has none by that id. */
  unsubscribe(client: PubSubClient, id: number): boolean {
    const sub = client.subscriptions.get(id);
    if (!sub) return false;
    this.remove(sub);
    return true;
  }

  /** Removes every subscription of a client that went away. */
  disconnect(client: PubSubClient): void {
    for (const sub of [...client.subscriptions.values()]) this.remove(sub);
  }

  private remove(sub: Subscription): void {
    if (!sub.client.subscriptions.delete(sub.id)) return;
    this.count--;
    const s = sub.spec;
    if (s.kind === 'account') removeFrom(this.byAccount, s.address, sub);
    else if (s.kind === 'program') removeFrom(this.byProgram, s.program, sub);
    else if (s.kind === 'signature') removeFrom(this.bySignature, s.signature, sub);
    else if (s.kind === 'logs') s.mentions === null ? this.logsAll.delete(sub) : removeFrom(this.logsByKey, s.mentions, sub);
    else if (s.kind === 'slot') this.slots.delete(sub);
    else if (s.kind === 'root') this.roots.delete(sub);
    else this.blocks.delete(sub);
  }

  private guard(what: string, run: () => void): void {
    try {
      run();
    } catch (e) {
      this.opts.warn?.(`localnet pubsub: ${what} notifications failed`, { error: String(e) });
    }
  }

  /** Sends `result` (already JSON) to a subscription. */
  private send(sub: Subscription, resultJson: string): void {
    sub.client.send(`{"jsonrpc":"2.0","method":"${NOTIFICATION[sub.spec.kind]}","params":{"result":${resultJson},"subscription":${sub.id}}}`);
  }

  private onTransaction(tx: LocalTx): void {
    const subs = this.bySignature.get(tx.signature);
    if (!subs) return;
    const json = stringifyJson({ context: { slot: tx.slot }, value: 'receivedSignature' });
    for (const sub of subs) {
      if (sub.spec.kind === 'signature' && sub.spec.received) this.send(sub, json);
    }
  }

  private notifySignature(sub: Subscription, tx: LocalTx): void {
    this.remove(sub);
    this.send(sub, stringifyJson({ context: { slot: tx.slot }, value: { err: tx.meta.err } }));
  }

  /** `block` reached `level`: the notifications of the subscriptions at that level. */
  private onBlock(block: LocalBlock, level: Commitment): void {
    const slot = block.slot;
    if (level === 'processed' && this.slots.size) {
      const json = stringifyJson({ parent: block.parentSlot, root: this.chain.slotAt('finalized'), slot });
      for (const sub of this.slots) this.send(sub, json);
    }
    for (const tx of block.transactions) {
      const sigs = this.bySignature.get(tx.signature);
      if (sigs) for (const sub of [...sigs]) if (at(sub, level)) this.notifySignature(sub, tx);
      if (this.logsAll.size || this.logsByKey.size) this.notifyLogs(tx, level);
    }
    if (this.byAccount.size || this.byProgram.size) this.notifyAccounts(block, level);
    for (const sub of this.blocks) if (at(sub, level)) this.guard('block', () => this.notifyBlock(sub, block));
    if (level === 'finalized' && this.roots.size) {
      const json = String(slot);
      for (const sub of this.roots) this.send(sub, json);
    }
  }

  private notifyLogs(tx: LocalTx, level: Commitment): void {
    const value = { context: { slot: tx.slot }, value: { signature: tx.signature, err: tx.meta.err, logs: tx.meta.logMessages } };
    let json: string | undefined;
    const out = (sub: Subscription) => this.send(sub, (json ??= stringifyJson(value)));
    if (this.logsAll.size) {
      const vote = isVote(tx);
      for (const sub of this.logsAll) if (sub.spec.kind === 'logs' && at(sub, level) && (sub.spec.votes || !vote)) out(sub);
    }
    if (this.logsByKey.size) {
      for (const key of new Set(allKeys(tx))) {
        const subs = this.logsByKey.get(key);
        if (subs) for (const sub of subs) if (at(sub, level)) out(sub);
      }
    }
  }

  private notifyAccounts(block: LocalBlock, level: Commitment): void {
    const written = new Set<string>();
    for (const tx of block.transactions) for (const k of storedKeys(tx)) written.add(k);
    const context = { slot: block.slot };
    for (const address of written) {
      const accSubs = this.byAccount.get(address);
      const acc = accSubs || this.byProgram.size ? this.chain.accountAtSlot(address, block.slot) : null;
      if (accSubs) {
        const rendered = new Map<string, string>();
        for (const sub of accSubs) {
          if (sub.spec.kind !== 'account' || sub.spec.commitment !== level) continue;
          const o = sub.spec.opts;
          const key = optsKey(o);
          let json = rendered.get(key);
          if (json === undefined) {
            const value = acc ? this.render(acc, o, block.slot) : { ...this.render(CLOSED_ACCOUNT, o, block.slot), rentEpoch: 0 };
            rendered.set(key, (json = stringifyJson({ context, value })));
          }
          this.send(sub, json);
        }
      }
      const progSubs = acc && this.byProgram.get(acc.owner);
      if (acc && progSubs) {
        for (const sub of progSubs) {
          if (sub.spec.kind !== 'program' || sub.spec.commitment !== level || !sub.spec.filters.every((f) => filterAllows(f, acc.data))) continue;
          const o = sub.spec.opts;
          const keyed = o.encoding === 'jsonParsed' && TOKEN_PROGRAMS.has(acc.owner)
            ? keyedAccounts(this.reader(block.slot), acc.owner, [[address, acc]], o)[0]
            : { pubkey: address, account: this.render(acc, o, block.slot) };
          if (keyed) this.send(sub, stringifyJson({ context, value: keyed }));
        }
      }
    }
  }

  /**
   * `UiAccount::encode` as the subscriptions use it: no 128-byte limit on base58 (that check is the HTTP methods');
   * token-program accounts parsed under `jsonParsed`.
   */
  private render(acc: LocalAccount, o: AccountOpts, slot: number) {
    return o.encoding === 'jsonParsed' ? renderAccount(this.reader(slot), acc, o)! : accountJson(acc, o.encoding, o.slice)!;
  }

  /** Reads accounts (a token account's mint) at the end of `slot`. */
  private reader(slot: number) {
    return (address: string) => this.chain.accountAtSlot(address, slot);
  }

  private notifyBlock(sub: Subscription, block: LocalBlock): void {
    const s = sub.spec;
    if (s.kind !== 'block') return;
    const txs = s.mentions === null ? block.transactions : block.transactions.filter((tx) => allKeys(tx).includes(s.mentions!));
    if (s.mentions !== null && txs.length === 0) return;
    const context = { slot: block.slot };
    const withTxs = s.details === 'full' || s.details === 'accounts';
    if (withTxs && s.maxVersion === undefined && txs.some((tx) => tx.version === 0)) {
      this.send(sub, stringifyJson({ context, value: { slot: block.slot, err: { UnsupportedTransactionVersion: 0 }, block: null } }));
      return;
    }
    const json = blockJson({ ...block, transactions: txs }, { encoding: s.encoding, transactionDetails: s.details, rewards: s.rewards });
    this.send(sub, stringifyJson({ context, value: { slot: block.slot, err: null, block: json } }));
  }
}
