/**
 * The Light trees the ingester knows (zk_trees, loaded from a config file or discovered from chain), as the tree
 * lookup the Light parser places outputs with. A transaction that names a tree or queue the table does not hold is
 * never indexed without it: the table is re-read (another process may have added it), then — with a cluster RPC —
 * the account is fetched and parsed (a queue leads to its tree); a key still unknown after that stops ingestion
 * with an error naming it, so no output is silently dropped.
 *
 * Tree rollovers add the new tree (and queue) with the shape of the tree it replaces.
 */
import type { AccountUpdate } from '../core/model.js';
import type { LightTreeInfo, LightTreeLookup, LightTreeRollover } from '../parsers/light/index.js';
import { lightQueueTree, parseLightTreeAccount } from '../parsers/light-trees/index.js';
import type { Queryable } from '../store/db.js';
import { listTrees, upsertTrees } from '../store/zk/trees.js';
import type { ZkTreeRow } from '../store/zk/types.js';

/** Reads accounts from the cluster (absent ones left out). */
export type TreeAccountFetcher = (pubkeys: string[]) => Promise<AccountUpdate[]>;

/** A tree or queue the ingester could not resolve. */
export class UnknownLightTreeError extends Error {
  constructor(readonly keys: string[]) {
    super(
      `unknown Light Merkle tree or queue ${keys.join(', ')}: load its metadata (solgate replay --light-trees FILE, or ` +
        `SOLGATE_ZK_TREES) or ingest from a cluster RPC that holds the tree account`,
    );
    this.name = 'UnknownLightTreeError';
  }
}

export interface LightTreeRegistry {
  /** The parser's lookup over the known trees (by tree and by queue). */
  readonly lookup: LightTreeLookup;
  /** Known trees by tree address. */
  readonly trees: ReadonlyMap<string, ZkTreeRow>;
  /** Loads the table (once; again after {@link resolve}). */
  load(): Promise<void>;
  /** Makes `keys` known (re-read, then chain discovery); throws {@link UnknownLightTreeError} for what stays unknown. */
  resolve(keys: readonly string[]): Promise<void>;
  /** Rows for the trees that rollovers created (write them with the batch). */
  rolloverRows(rollovers: readonly LightTreeRollover[]): ZkTreeRow[];
  /** Adds rows just written. */
  remember(rows: readonly ZkTreeRow[]): void;
}

export function createLightTreeRegistry(q: Queryable, fetchAccounts?: TreeAccountFetcher): LightTreeRegistry {
  const trees = new Map<string, ZkTreeRow>();
  const byKey = new Map<string, LightTreeInfo>();
  let loaded = false;
  const remember = (rows: readonly ZkTreeRow[]) => {
    for (const r of rows) {
      trees.set(r.tree, r);
      const info: LightTreeInfo = { tree: r.tree, queue: r.queue, treeType: r.treeType };
      byKey.set(r.queue, info);
      byKey.set(r.tree, info);
    }
  };
  const reload = async () => {
    remember(await listTrees(q));
    loaded = true;
  };

  async function discover(keys: string[]): Promise<ZkTreeRow[]> {
    if (!fetchAccounts || !keys.length) return [];
    const found: ZkTreeRow[] = [];
    const viaQueue: string[] = [];
    for (const a of await fetchAccounts(keys)) {
      const t = parseLightTreeAccount(a.pubkey, a.owner, a.data);
      if (t) found.push({ ...t, source: 'chain' });
      else {
        const tree = lightQueueTree(a.owner, a.data);
        if (tree) viaQueue.push(tree);
      }
    }
    if (viaQueue.length)
      for (const a of await fetchAccounts([...new Set(viaQueue)])) {
        const t = parseLightTreeAccount(a.pubkey, a.owner, a.data);
        if (t) found.push({ ...t, source: 'chain' });
      }
    return found;
  }

  return {
    lookup: (k) => byKey.get(k),
    trees,
    async load() {
      if (!loaded) await reload();
    },
    async resolve(keys) {
      let missing = [...new Set(keys)].filter((k) => !byKey.has(k));
      if (!missing.length) return;
      await reload();
      missing = missing.filter((k) => !byKey.has(k));
      if (!missing.length) return;
      const found = await discover(missing);
      if (found.length) {
        await upsertTrees(q, found);
        remember(found);
      }
      missing = missing.filter((k) => !byKey.has(k));
      if (missing.length) throw new UnknownLightTreeError(missing);
    },
    rolloverRows(rollovers) {
      return rollovers.flatMap((r) => {
        const old = trees.get(r.oldTree);
        if (!old || trees.has(r.newTree)) return [];
        return [{ ...old, tree: r.newTree, queue: r.newQueue, source: 'chain' as const }];
      });
    },
    remember,
  };
}
