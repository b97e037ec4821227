/**
 * Merkle proofs of compressed accounts in state trees, built from the stored tree nodes (zk_state_nodes) with the
 * Light tree maths and verified against the stored root before they are returned: a proof that does not verify is
 * an internal error and a counted failure (`solgate_proof_verification_failures_total{kind="zk"}`), never an answer.
 *
 * Photon (src/ingester/persist/leaf_node_proof.rs, api/method/get_multiple_compressed_account_proofs/v2.rs): the V1
 * methods prove a hash that is a leaf of its tree; the V2 methods also answer for an account whose leaf is not in
 * the tree yet (a V2 account waiting in its output queue) with the proof of its leaf position and
 * `proveByIndex: true`. `rootSeq` is the sequence number stored with the root node. Queries: accounts, the trees
 * with their current roots, then one query for the nodes of every proof not remembered for those roots (node-cache.ts). The proofs of a request are verified together
 * (`verifyLightProofsBatch` — shared nodes hashed once, one Poseidon call per level — on the verification thread of
 * src/proofs/light/verify-pool.ts), as the bytes read from the
 * store, which are then encoded for the answer (`nodeText`).
 */
import { SolgateError } from '../../core/errors.js';
import { proofsVerified, proofVerificationFailures } from '../../core/metrics.js';
import { nodeFromBase58, nodeToBase58 } from '../../proofs/hash.js';
import {
  initPoseidon, LIGHT_TREE_HEIGHT, leafNodeIndex, proofNodeIndexes, readLightProofNodes, treeTypeFromCode,
} from '../../proofs/light/index.js';
import type { Queryable } from '../../store/db.js';
import { getAccountsByHash } from '../../store/zk/accounts.js';
import { nodeKey, type StoredNodeHash } from '../../store/zk/state-tree.js';
import { readTreeNodes } from './node-cache.js';
import { getTreesWithRoots } from '../../store/zk/trees.js';
import type { TreeTypeCode, ZkAccount, ZkStateNode, ZkTreeRow } from '../../store/zk/types.js';
import { recordNotFound } from './errors.js';
import { verifyLightProofsOffThread } from '../../proofs/light/verify-pool.js';

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

/** Slots of the node text cache (2 MiB of node bytes plus the texts). */
const TEXT_SLOTS = 1 << 16;
let textBytes: Uint8Array | undefined; // both allocated on first use
let texts: (string | undefined)[] = [];

/**
 * Base58 of a 32-byte node through a direct-mapped cache shared by all requests (slot from the node's low bytes,
 * hit only when all 32 bytes match): proofs of a request share their upper nodes, and requests share the nodes of
 * the trees' busy parts.
 */
export function nodeText(node: Uint8Array): string {
  if (node.length !== 32) return nodeToBase58(node);
  const slot = ((node[31] | (node[30] << 8)) ^ (node[29] << 3) ^ (node[22] << 11)) & (TEXT_SLOTS - 1);
  const at = slot * 32;
  if (textBytes === undefined) {
    textBytes = new Uint8Array(TEXT_SLOTS * 32);
    texts = new Array<string | undefined>(TEXT_SLOTS);
  }
  const cached = texts[slot];
  if (cached !== undefined) {
    let i = 0;
    while (i < 32 && textBytes[at + i] === node[i]) i++;
    if (i === 32) return cached;
  }
  const text = nodeToBase58(node);
  textBytes.set(node, at);
  texts[slot] = text;
  return text;
}

/** Adds the node indexes `nodeIdxs` of `tree` to the keys of one `readTreeNodes` read. */
export function wantNodes(keys: Map<string, number[]>, tree: string, nodeIdxs: readonly number[]): void {
  const k = keys.get(tree);
  if (k === undefined) keys.set(tree, [...nodeIdxs]);
  else k.push(...nodeIdxs);
}

/** The stored node lookup of one tree from `readTreeNodes`' result, for the proof maths. */
export function hashLookup(nodes: Map<string, Map<number, StoredNodeHash>>, tree: string): (n: number) => Uint8Array | undefined {
  const treeNodes = nodes.get(tree);
  return (n) => treeNodes?.get(n)?.hash;
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
  const treeKeys = [...new Set([...accounts.values()].map((a) => a.tree))];
  const { trees, roots } = await getTreesWithRoots(q, treeKeys);
  const plan = hashes.map((h) => {
    const account = accounts.get(h) as ZkAccount;
    const shape = treeShape(trees.get(account.tree), account.treeType);
    if (!Number.isSafeInteger(account.leafIndex) || account.leafIndex < 0 || account.leafIndex >= 2 ** shape.height)
      throw new SolgateError('INTERNAL', 'Internal server error: stored leaf index outside its tree', { context: { hash: h, leafIndex: account.leafIndex } });
    return { account, ...shape };
  });
  const keys = new Map<string, number[]>();
  for (const { account, height } of plan) wantNodes(keys, account.tree, [1, leafNodeIndex(account.leafIndex, height), ...proofNodeIndexes(account.leafIndex, height)]);
  const stored = await readTreeNodes(q, keys, roots);
  const nodes = stored.nodes;
  const b58 = nodeText;
  let provable = 0;
  const read = plan.map(({ account, height }) => {
    const r = readLightProofNodes(account.leafIndex, height, hashLookup(nodes, account.tree));
    const leaf = b58(r.leaf);
    if (leaf === account.hash) provable++;
    return { ...r, leafText: leaf };
  });
  if (!opts.byIndex && provable < hashes.length) throw recordNotFound(opts.notFound(provable, hashes.length));
  const verified = await verifyLightProofsOffThread(read.map((r, i) => ({ leaf: r.leaf, siblings: r.siblings, root: r.root, leafIndex: plan[i].account.leafIndex })));
  plan.forEach(({ account }, i) => checkVerified(verified[i], `account ${account.hash}`, { hash: account.hash, tree: account.tree, leafIndex: account.leafIndex }));
  stored.keep();
  return plan.map(({ account, height, rootHistoryCapacity }, i) => {
    const r = read[i];
    return {
      hash: account.hash,
      leafIndex: account.leafIndex,
      proof: r.siblings.map(b58),
      root: b58(r.root),
      rootSeq: nodes.get(account.tree)?.get(1)?.seq ?? 0,
      tree: account.tree,
      queue: account.queue,
      treeType: account.treeType,
      height,
      rootHistoryCapacity,
      proveByIndex: r.leafText !== account.hash,
      leaf: r.leafText,
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
