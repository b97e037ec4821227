/**
 * getAssetProof(s): the Merkle proof of a compressed asset's leaf, built from the stored change-log nodes
 * (`buildProof`) and verified (`verifyBuiltProof`) before it is returned. A proof that does not verify is an
 * INTERNAL error, never an answer. Queries: assets, tree depths, then one node query per distinct tree.
 */
import { SolgateError } from '../../core/errors.js';
import { buildProof, verifyBuiltProof } from '../../proofs/verify.js';
import { nodeFromBase58 } from '../../proofs/hash.js';
import { leafNodeIndex, proofNodeIndexes } from '../../proofs/paths.js';
import { getBackfills } from '../../store/backfill.js';
import { getCnftAssets, getTreeDepths, getTreeNodes, treeHistoryFromStart, type StoredCnft } from '../../store/cnft.js';
import { getCheckpoint } from '../../store/chain.js';
import { getMetadataByMint } from '../../store/asset-accounts.js';
import { proofsVerified, proofVerificationFailures } from '../../core/metrics.js';
import type { Queryable } from '../../store/db.js';

/** The getAssetProof result. */
export interface AssetProofJson {
  root: string;
  proof: string[];
  node_index: number;
  leaf: string;
  tree_id: string;
  burnt: boolean;
  last_indexed_slot: number;
}

type Provable = StoredCnft & { tree: string; leafIndex: number };

/**
 * Verified proofs by asset id; ids that are not (or no longer) compressed, or whose tree is unknown, are absent.
 * An asset whose Token Metadata accounts are indexed has been decompressed: it is no longer in a tree.
 */
export async function loadAssetProofs(q: Queryable, ids: string[]): Promise<Map<string, AssetProofJson>> {
  const out = new Map<string, AssetProofJson>();
  const unique = [...new Set(ids)];
  const [assets, decompressed, checkpoint] = await Promise.all([getCnftAssets(q, unique), getMetadataByMint(q, unique), getCheckpoint(q)]);
  const provable = [...assets.values()].filter((a): a is Provable => !decompressed.has(a.assetId) && a.tree !== null && a.leafIndex !== null);
  const depths = await getTreeDepths(q, [...new Set(provable.map((a) => a.tree))]);
  const byTree = new Map<string, { asset: Provable; depth: number }[]>();
  for (const a of provable) {
    const depth = depths.get(a.tree);
    if (depth === undefined || a.leafIndex >= 2 ** depth) continue;
    byTree.set(a.tree, [...(byTree.get(a.tree) ?? []), { asset: a, depth }]);
  }
  for (const [tree, list] of byTree) {
    const wanted = new Set<number>([1]);
    for (const { asset, depth } of list) {
      wanted.add(leafNodeIndex(asset.leafIndex, depth));
      for (const n of proofNodeIndexes(asset.leafIndex, depth)) wanted.add(n);
    }
    const nodes = await getTreeNodes(q, tree, [...wanted]);
    for (const { asset, depth } of list) {
      let missing = 0;
      const built = buildProof(asset.leafIndex, depth, (n) => {
        const h = nodes.get(n);
        if (h === undefined) missing++;
        return h === undefined ? undefined : nodeFromBase58(h);
      });
      if (!verifyBuiltProof(built) && missing > 0 && !(await treeHistoryFromStart(q, tree))) {
        // Nodes never written read as empty subtrees: true of a tree indexed from its first change, not of one whose
        // earlier history the index lacks (its proof cannot be built, which is no corruption of what is stored).
        const backfill = (await getBackfills(q, [tree])).get(tree);
        const reading = backfill?.status === 'pending' || backfill?.status === 'running';
        throw new SolgateError('NOT_FOUND', `Proof not available: the index does not hold the whole history of tree ${tree}${reading ? ' yet (it is being read from the cluster; try again later)' : ''}`, {
          details: `${missing} node(s) of the path of leaf ${asset.leafIndex} were never indexed, so the tree's earlier transactions are missing` +
            (backfill ? ` (tree backfill: ${backfill.status}${backfill.lastError ? `, ${backfill.lastError}` : ''})` : '') + ' (docs/coverage.md)',
          context: { assetId: asset.assetId, tree, leafIndex: asset.leafIndex, missing },
        });
      }
      if (!verifyBuiltProof(built)) {
        proofVerificationFailures.inc({ kind: 'das' });
        throw new SolgateError('INTERNAL', `stored Merkle nodes of tree ${tree} do not give a valid proof for asset ${asset.assetId}`, {
          context: { assetId: asset.assetId, tree, leafIndex: asset.leafIndex },
        });
      }
      proofsVerified.inc({ kind: 'das' });
      out.set(asset.assetId, {
        root: built.root,
        proof: built.proof,
        node_index: built.nodeIndex,
        leaf: built.leaf,
        tree_id: tree,
        burnt: asset.burnt,
        last_indexed_slot: checkpoint ?? 0,
      });
    }
  }
  return out;
}
