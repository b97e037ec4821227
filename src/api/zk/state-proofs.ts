/**
 * Merkle proofs of compressed accounts in state trees, built from the stored tree nodes (zk_state_nodes) with the
 * Light tree maths and verified against the stored root before they are returned: a proof that does not verify is
 * an internal error and a counted failure (`solgate_proof_verification_failures_total{kind="zk"}`), never an answer.
 *
 * Photon (src/ingester/persist/leaf_node_proof.rs, api/method/get_multiple_compressed_account_proofs/v2.rs): the V1
 * methods prove a hash that is a leaf of its tree; the V2 methods also answer for an account whose leaf is not in
 * the tree yet (a V2 account waiting in its output queue) with the proof of its leaf position and
 * `proveByIndex: true`. `rootSeq` is the sequence number stored with the root node. Queries: accounts, trees,
 * then one query for every node of every proof.
 */
import { SolgateError } from '../../core/errors.js';
import { proofsVerified, proofVerificationFailures } from '../../core/metrics.js';
import { nodeFromBase58 } from '../../proofs/hash.js';
import {
  buildLightProof, initPoseidon, LIGHT_TREE_HEIGHT, leafNodeIndex, proofNodeIndexes, treeTypeFromCode, verifyLightBuiltProof,
} from '../../proofs/light/index.js';
import type { Queryable } from '../../store/db.js';
import { getAccountsByHash } from '../../store/zk/accounts.js';
import { getStateNodesOfTrees, nodeKey } from '../../store/zk/state-tree.js';
import { getTrees } from '../../store/zk/trees.js';
import type { TreeTypeCode, ZkAccount, ZkStateNode, ZkTreeRow } from '../../store/zk/types.js';
import { recordNotFound } from './errors.js';

/** A verified proof of one requested hash. */
export interface StateProof {
  /** The requested account hash. */
  hash: string;
  leafIndex: number;
  /** Sibling hashes bottom-up (the tree height's worth). */
  proof: string[];
  root: string;
  rootSeq: number;
  tree: string;
  queue: string;
  treeType: TreeTypeCode;
  height: number;
  rootHistoryCapacity: number;
  /** True when the account's leaf is not (or no longer) its hash in the tree: the proof is of the leaf position. */
  proveByIndex: boolean;
  /** The leaf the proof proves (the account hash unless `proveByIndex`). */
  leaf: string;
}

/** Tree height and root-history capacity from the tree metadata, else Light's defaults for the tree type. */
export function treeShape(tree: ZkTreeRow | undefined, treeType: number): { height: number; rootHistoryCapacity: number } {
  const kind = treeTypeFromCode(treeType);
  const height = tree?.height ?? (kind ? LIGHT_TREE_HEIGHT[kind] : 26);
  return { height, rootHistoryCapacity: tree?.rootHistoryCapacity ?? (height === 26 ? 2400 : 200) };
}

/** The stored node lookup of one tree, for the proof maths. */
export function nodeLookup(nodes: Map<string, ZkStateNode>, tree: string): (n: number) => Uint8Array | undefined {
  return (n) => {
    const node = nodes.get(nodeKey(tree, n));
    return node === undefined ? undefined : nodeFromBase58(node.hash);
  };
}

/** Counts a verified proof, or counts the failure and throws the internal error. */
export function checkVerified(ok: boolean, what: string, context: Record<string, unknown>): void {
  if (!ok) {
    proofVerificationFailures.inc({ kind: 'zk' });
    throw new SolgateError('INTERNAL', `Internal server error: the stored tree nodes do not give a valid proof for ${what}`, { context });
  }
  proofsVerified.inc({ kind: 'zk' });
}

export interface LoadStateProofsOptions {
  /** Answer accounts whose leaf is not their hash with a by-index proof (V2 methods) instead of an error. */
  byIndex: boolean;
  /** The Record Not Found message when some hashes have no (provable) account. */
  notFound: (found: number, expected: number) => string;
}

/** Verified proofs of `hashes`, in request order. */
export async function loadStateProofs(q: Queryable, hashes: readonly string[], opts: LoadStateProofsOptions): Promise<StateProof[]> {
  if (!hashes.length) return [];
  await initPoseidon();
  const accounts = await getAccountsByHash(q, [...new Set(hashes)], 'any');
  const missing = hashes.filter((h) => !accounts.has(h)).length;
  if (missing) throw recordNotFound(opts.notFound(hashes.length - missing, hashes.length));
  const trees = await getTrees(q, [...new Set([...accounts.values()].map((a) => a.tree))]);
  const plan = hashes.map((h) => {
    const account = accounts.get(h) as ZkAccount;
    const shape = treeShape(trees.get(account.tree), account.treeType);
    if (!Number.isSafeInteger(account.leafIndex) || account.leafIndex < 0 || account.leafIndex >= 2 ** shape.height)
      throw new SolgateError('INTERNAL', 'Internal server error: stored leaf index outside its tree', { context: { hash: h, leafIndex: account.leafIndex } });
    return { account, ...shape };
  });
  const keys = plan.flatMap(({ account, height }) =>
    [leafNodeIndex(account.leafIndex, height), ...proofNodeIndexes(account.leafIndex, height), 1].map((nodeIdx) => ({ tree: account.tree, nodeIdx })),
  );
  const nodes = await getStateNodesOfTrees(q, keys);
  let provable = 0;
  const out = plan.map(({ account, height, rootHistoryCapacity }) => {
    const built = buildLightProof(account.leafIndex, height, nodeLookup(nodes, account.tree));
    const proveByIndex = built.hash !== account.hash;
    if (!proveByIndex) provable++;
    return { account, height, rootHistoryCapacity, built, proveByIndex };
  });
  if (!opts.byIndex && provable < hashes.length) throw recordNotFound(opts.notFound(provable, hashes.length));
  return out.map(({ account, height, rootHistoryCapacity, built, proveByIndex }) => {
    checkVerified(verifyLightBuiltProof(built), `account ${account.hash}`, { hash: account.hash, tree: account.tree, leafIndex: account.leafIndex });
    return {
      hash: account.hash,
      leafIndex: account.leafIndex,
      proof: built.proof,
      root: built.root,
      rootSeq: nodes.get(nodeKey(account.tree, 1))?.seq ?? 0,
      tree: account.tree,
      queue: account.queue,
      treeType: account.treeType,
      height,
      rootHistoryCapacity,
      proveByIndex,
      leaf: built.hash,
    };
  });
}

/** Photon's V1 proof item (`GetCompressedAccountProofResponseValue`). */
export function proofV1(p: StateProof): Record<string, unknown> {
  return { proof: p.proof, root: p.root, leafIndex: p.leafIndex, hash: p.hash, merkleTree: p.tree, rootSeq: p.rootSeq };
}

/** Photon's V2 proof item (`GetCompressedAccountProofResponseValueV2`). */
export function proofV2(p: StateProof): Record<string, unknown> {
  return {
    proof: p.proof,
    root: p.root,
    leafIndex: p.leafIndex,
    hash: p.hash,
    rootSeq: p.rootSeq,
    proveByIndex: p.proveByIndex,
    treeContext: { treeType: p.treeType, tree: p.tree, queue: p.queue, cpiContext: null },
  };
}
