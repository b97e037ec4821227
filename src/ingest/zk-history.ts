/**
 * ZK Compression trees of an index that began after the cluster's first slot: their proofs need every operation
 * since each tree was created, in order, and live ingestion only sees those from the origin on. Before live
 * ingestion writes its first block (`Ingester.run`'s `beforeLive`), this reads the history of every Merkle tree of
 * the account compression program and of its queue — `getProgramAccounts` for the trees (the registry then reads
 * each tree account for its queue, type and height), `getSignaturesForAddress` back to each one's first transaction,
 * `getTransaction` for those older than the origin — and applies them in chain order through the ingester's ZK
 * history path: the same parse → fold → guarded writes as live blocks, ZK Compression rows and tree nodes included.
 * Applied operations are skipped when seen again (a tree's stored root seq), so a read stopped by a crash simply
 * runs again at the next start. `zk_history` records the outcome: `done`, `truncated` (the cluster serves its ledger
 * only from a later slot, or no longer serves a transaction: the trees would be wrong, so nothing after the gap is
 * applied) or `failed`.
 *
 * Cost: one `getProgramAccounts`, the signature pages of every tree and queue, and every Light transaction before
 * the origin — seconds on a localnet or devnet, a long read on mainnet (see docs/coverage.md).
 */
import type { Logger } from 'pino';
import type { NormalizedTx } from '../core/model.js';
import { errorText } from '../core/errors.js';
import { mapLimit } from '../core/map-limit.js';
import type { Db } from '../store/db.js';
import { advanceZkHistory, beginZkHistory, finishZkHistory, getZkHistory } from '../store/zk/history.js';
import { fetchTransactions, placeInBlocks, type SignatureInfo } from '../sources/address-history.js';
import { listLightTreeAccounts, signaturesBefore } from '../sources/light-history.js';
import type { RpcClient } from '../sources/rpc-client.js';
import type { LightTreeRegistry } from './light-trees.js';

export interface ZkHistoryOptions {
  db: Db;
  ingester: { ingestZkHistory(txs: NormalizedTx[]): Promise<void>; readonly zk: { readonly trees: LightTreeRegistry } };
  client: RpcClient;
  commitment: 'confirmed' | 'finalized';
  logger?: Logger;
  /** `getTransaction` calls in flight (default 8). */
  concurrency?: number;
  /** Transactions applied per write (default 200; a slot is never split). */
  chunk?: number;
}

export interface ZkHistoryResult {
  status: 'done' | 'truncated' | 'skipped';
  trees: number;
  transactions: number;
}

/**
 * Reads and applies the trees' history before `origin` (see the module comment). Skipped when the index began at
 * slot 0 or the history was already read. Throws on an RPC or write failure (the caller records it).
 */
export async function readZkHistory(o: ZkHistoryOptions, origin: number, signal?: AbortSignal): Promise<ZkHistoryResult> {
  const prev = await getZkHistory(o.db);
  if (origin <= 0 || (prev && prev.origin === origin && (prev.status === 'done' || prev.status === 'truncated')))
    return { status: 'skipped', trees: prev?.trees ?? 0, transactions: prev?.transactions ?? 0 };
  const opts = { commitment: o.commitment, signal };
  await beginZkHistory(o.db, origin, 0);
  const registry = o.ingester.zk.trees;
  const onChain = await listLightTreeAccounts(o.client, opts);
  await registry.load();
  if (onChain.length) await registry.resolve(onChain);
  const trees = [...registry.trees.values()].filter((t) => onChain.includes(t.tree));
  await beginZkHistory(o.db, origin, trees.length);
  const addresses = [...new Set(trees.flatMap((t) => [t.tree, t.queue]))];
  const lists = await mapLimit(addresses, 4, (a) => signaturesBefore(o.client, a, origin, opts));
  const bySig = new Map<string, SignatureInfo>();
  for (const l of lists) for (const s of l) bySig.set(s.signature, s);
  const sigs = [...bySig.values()].sort((a, b) => a.slot - b.slot);
  o.logger?.info({ origin, trees: trees.length, transactions: sigs.length }, 'zk history: reading the trees\' transactions before the origin');

  const chunk = o.chunk ?? 200;
  let applied = 0;
  for (let i = 0; i < sigs.length; ) {
    // A chunk ends at a slot boundary: the transactions of one slot are ordered by their position in the block.
    let j = Math.min(i + chunk, sigs.length);
    while (j < sigs.length && sigs[j].slot === sigs[j - 1].slot) j++;
    const part = sigs.slice(i, j);
    const txs = await fetchTransactions(o.client, part.map((s) => s.signature), { ...opts, concurrency: o.concurrency });
    const gone = txs.findIndex((t) => t === null);
    if (gone >= 0) {
      const s = part[gone];
      const error = `the cluster does not serve transaction ${s.signature} (slot ${s.slot}): the trees' history before slot ${s.slot + 1} is not available`;
      await finishZkHistory(o.db, 'truncated', { error, oldestSlot: s.slot + 1 });
      o.logger?.warn({ signature: s.signature, slot: s.slot }, `zk history: ${error}`);
      return { status: 'truncated', trees: trees.length, transactions: applied };
    }
    const ordered = await placeInBlocks(o.client, txs as NormalizedTx[], { ...opts, concurrency: o.concurrency });
    await o.ingester.ingestZkHistory(ordered);
    await advanceZkHistory(o.db, ordered.length);
    applied += ordered.length;
    i = j;
  }
  // The first signature of each list is the address's first transaction only if the cluster keeps its whole ledger.
  const first = Number(await o.client.call<unknown>('getFirstAvailableBlock', [], signal));
  if (Number.isSafeInteger(first) && first > 0) {
    const error = `the cluster serves its ledger only from slot ${first} on: the trees' older history is not available`;
    await finishZkHistory(o.db, 'truncated', { error, oldestSlot: first });
    return { status: 'truncated', trees: trees.length, transactions: applied };
  }
  await finishZkHistory(o.db, 'done');
  o.logger?.info({ trees: trees.length, transactions: applied }, 'zk history: the trees are complete');
  return { status: 'done', trees: trees.length, transactions: applied };
}

/**
 * `readZkHistory` as live ingestion's `beforeLive` hook: a failure is retried (`attempts`, with a growing pause) and
 * then recorded as `failed` — live ingestion starts anyway, and ZK Compression answers say they are partial.
 */
export async function readZkHistoryBeforeLive(o: ZkHistoryOptions, origin: number, signal: AbortSignal, attempts = 4): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await readZkHistory(o, origin, signal);
      return;
    } catch (e) {
      if (signal.aborted) throw e;
      o.logger?.warn({ err: e, attempt }, 'zk history: reading the trees\' history failed');
      if (attempt >= attempts) {
        await finishZkHistory(o.db, 'failed', { error: errorText(e) }).catch(() => {});
        return;
      }
      await new Promise((r) => setTimeout(r, Math.min(30_000, 1000 * 2 ** attempt)));
    }
  }
}
