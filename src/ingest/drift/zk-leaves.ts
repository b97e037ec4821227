/**
 * What the ZK Compression drift probes (trees.ts, zk-v2.ts) share for the leaves of a tree whose root agrees with the
 * cluster's: each sampled leaf's stored node and its proof from the indexed nodes, verified (Poseidon) against the
 * indexed root, in one node read per tree.
 */
import { initPoseidon, leafNodeIndex, proofNodeIndexes, readLightProofNodes, verifyLightProofsBatch, type LightProofNodes } from '../../proofs/light/index.js';
import type { Queryable } from '../../store/db.js';
import { getNodeHashes } from '../../store/zk/state-tree.js';

/** The indexed leaf, siblings and root of each leaf index of `tree`, and whether each proof verifies. Aligned with `leafIndexes`. */
export async function readLeafProofs(q: Queryable, tree: string, height: number, leafIndexes: readonly number[]): Promise<{ read: LightProofNodes[]; verified: boolean[] }> {
  await initPoseidon();
  const keys = new Map([[tree, [1, ...leafIndexes.flatMap((i) => [leafNodeIndex(i, height), ...proofNodeIndexes(i, height)])]]]);
  const nodes = (await getNodeHashes(q, keys)).get(tree);
  const read = leafIndexes.map((leaf) => readLightProofNodes(leaf, height, (i) => nodes?.get(i)?.hash));
  const verified = verifyLightProofsBatch(read.map((p, i) => ({ leaf: p.leaf, siblings: p.siblings, root: p.root, leafIndex: leafIndexes[i] })));
  return { read, verified };
}
