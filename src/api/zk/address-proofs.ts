/**
 * Non-inclusion proofs of new addresses in indexed (address) trees: the low element comes from the store (the
 * largest stored value below the address, one index step), its Merkle proof from the stored tree nodes and the
 * Light indexed-tree maths; every proof is verified against the stored root before it is returned. An address
 * tree nothing was indexed into answers Photon's proof for the freshly initialised tree (`proof_for_empty_tree`:
 * rootSeq 3 for V1, 0 for V2), as the reference's mock snapshots pin.
 *
 * Photon (src/api/method/get_multiple_new_address_proofs.rs): 1..1000 addresses per request, each with its tree
 * (V1 requests use the V1 address tree amt1…). Unlike Photon, an address that already exists in the tree (or waits
 * in a V2 address queue) is a validation error here rather than a proof that cannot verify on chain.
 *
 * The proofs of a request are verified together: the low elements' leaves are hashed in one Poseidon batch per
 * tree kind, then the paths level by level (`verifyLightProofsBatch`, on the verification thread of src/proofs/light/verify-pool.ts), from the same values and node bytes the
 * answer is encoded from.
 */
import { SolgateError } from '../../core/errors.js';
import {
  addressToBigint, emptyAddressTreeProof, indexedElementHashes, initPoseidon, proofNodeIndexes, readNewAddressProof,
  verifyNewAddressProof, type AddressTreeType, type IndexedElement, type NewAddressProof,
} from '../../proofs/light/index.js';
import type { Queryable } from '../../store/db.js';
import { getLowElements, getQueuedAddresses } from '../../store/zk/indexed-tree.js';
import { getTreesWithRoots } from '../../store/zk/trees.js';
import { TREE_TYPE, type ZkTreeRow } from '../../store/zk/types.js';
import { asValidation, validationError } from './errors.js';
import { readTreeNodes } from './node-cache.js';
import { checkVerified, hashLookup, nodeText, treeShape, wantNodes } from './state-proofs.js';
import { verifyLightProofsOffThread } from '../../proofs/light/verify-pool.js';

/** The V1 address tree that address-only requests (getMultipleNewAddressProofs, `newAddresses`) use. */
export const V1_ADDRESS_TREE = 'amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2';
/** Addresses per request. */
export const MAX_ADDRESSES = 1000;

/** A verified non-inclusion proof and the tree facts the validity proof needs. */
export interface AddressProof extends NewAddressProof {
  treeType: AddressTreeType;
  /** The tree's queue (a V2 address tree is its own queue). */
  queue: string;
  height: number;
  rootHistoryCapacity: number;
}

function addressTreeType(t: ZkTreeRow): AddressTreeType | null {
  if (t.treeType === TREE_TYPE.AddressV1) return 'AddressV1';
  if (t.treeType === TREE_TYPE.AddressV2) return 'AddressV2';
  return null;
}

/**
 * Verified proofs for `items`, in request order. `queued: 'allow'` serves addresses that wait in a V2 address
 * queue (the forester's getQueueElements); requests from clients refuse them.
 */
export async function loadNewAddressProofs(
  q: Queryable,
  items: readonly { address: string; tree: string }[],
  opts: { queued?: 'allow' | 'refuse' } = {},
): Promise<AddressProof[]> {
  if (!items.length) throw validationError('No addresses provided');
  if (items.length > MAX_ADDRESSES) throw validationError(`Too many addresses requested ${items.length}. Maximum allowed: ${MAX_ADDRESSES}`);
  await initPoseidon();
  const { trees, roots } = await getTreesWithRoots(q, [...new Set(items.map((i) => i.tree))]);
  for (const { tree } of items) {
    const t = trees.get(tree);
    if (!t) throw validationError(`Unknown address tree ${tree}`);
    if (!addressTreeType(t)) throw validationError(`Tree ${tree} is not an address tree`);
  }
  const lookups = items.map((i) => ({ tree: i.tree, value: i.address }));
  // the element at or below each address: the address itself (it exists), else its low element
  const [atOrBelow, queued] = await Promise.all([
    getLowElements(q, lookups, true),
    opts.queued === 'allow' ? Promise.resolve(items.map(() => null)) : getQueuedAddresses(q, items),
  ]);
  const existing = items.map((it, i) => atOrBelow[i] !== null && addressToBigint(atOrBelow[i]!.value) === addressToBigint(it.address));
  const lows = atOrBelow.map((e, i) => (existing[i] ? null : e));
  items.forEach((it, i) => {
    if (existing[i] || addressToBigint(it.address) === 0n) throw validationError(`Address ${it.address} already exists in tree ${it.tree}`);
    if (queued[i]) throw validationError(`Address ${it.address} already exists in the address queue of tree ${it.tree}`);
  });
  const keys = new Map<string, number[]>();
  items.forEach((it, i) => {
    const low = lows[i];
    if (!low) return;
    const { height } = treeShape(trees.get(it.tree), trees.get(it.tree)!.treeType);
    wantNodes(keys, it.tree, [1, ...proofNodeIndexes(low.leafIndex, height)]);
  });
  const types = items.map((it) => addressTreeType(trees.get(it.tree)!)!);
  const elements = lows.map((low): IndexedElement | null =>
    low ? { index: low.leafIndex, value: addressToBigint(low.value), nextIndex: low.nextIndex, nextValue: addressToBigint(low.nextValue) } : null,
  );
  // The low elements' leaf hashes are computed while the database reads the paths (≈ 5 ms, about a fifth of a request's
  // time alone, docs/benchmarks.md#zk-address-overlap): one turn of the event loop first, so that the read has gone out
  // (a pooled connection is handed over on the next tick). The read's failure is taken where it is awaited.
  const reading = readTreeNodes(q, keys, roots);
  reading.catch(() => {});
  await new Promise<void>((resolve) => setImmediate(resolve));
  const leaves = leafHashes(elements, types);
  const stored = await reading;
  const nodes = stored.nodes;
  const b58 = nodeText;
  const built = items.map((it, i) => {
    const t = trees.get(it.tree)!;
    const treeType = types[i];
    const shape = treeShape(t, t.treeType);
    const element = elements[i];
    if (!element) return { treeType, shape, t, proof: asValidation(() => emptyTreeProof(treeType, it.address, it.tree, shape.height)) };
    const read = asValidation(() =>
      readNewAddressProof(
        {
          address: it.address,
          lowElement: element,
          treeType,
          height: shape.height,
          lookup: hashLookup(nodes, it.tree),
          merkleTree: it.tree,
          rootSeq: nodes.get(it.tree)?.get(1)?.seq ?? 0,
        },
        b58,
      ),
    );
    return { treeType, shape, t, proof: read.proof, element, siblings: read.siblings, root: read.root };
  });
  const withPath = built.flatMap((b, i) => (b.element ? [i] : []));
  const verified = await verifyLightProofsOffThread(
    withPath.map((i) => ({ leaf: leaves[i]!, siblings: built[i].siblings!, root: built[i].root!, leafIndex: built[i].element!.index })),
  );
  const ok = built.map((b) => (b.element ? false : verifyNewAddressProof(b.proof, b.treeType, b.shape.height)));
  withPath.forEach((i, k) => (ok[i] = verified[k]));
  items.forEach((it, i) => checkVerified(ok[i], `address ${it.address}`, { address: it.address, tree: it.tree }));
  stored.keep();
  return items.map((it, i) => {
    const { proof, treeType, t, shape } = built[i];
    return { ...proof, treeType, queue: t.queue, ...shape };
  });
}

/** The leaf hashes of `elements` (undefined where there is none), one batch per tree kind. */
function leafHashes(elements: readonly (IndexedElement | null)[], types: readonly AddressTreeType[]): (Uint8Array | undefined)[] {
  const leaves: (Uint8Array | undefined)[] = elements.map(() => undefined);
  for (const kind of ['AddressV1', 'AddressV2'] as const) {
    const at = elements.flatMap((e, i) => (e && types[i] === kind ? [i] : []));
    if (!at.length) continue;
    const hashes = indexedElementHashes(at.map((i) => elements[i]!), kind);
    at.forEach((i, k) => (leaves[i] = hashes[k]));
  }
  return leaves;
}

function emptyTreeProof(treeType: AddressTreeType, address: string, tree: string, height: number): NewAddressProof {
  const p = emptyAddressTreeProof(treeType, address, tree);
  if (p.proof.length !== height)
    throw new SolgateError('INTERNAL', `Internal server error: address tree ${tree} has height ${height}, not the deployed one`, { context: { tree, height } });
  return p;
}

/** Photon's `MerkleContextWithNewAddressProof`. */
export function newAddressProofJson(p: AddressProof): Record<string, unknown> {
  return {
    root: p.root,
    address: p.address,
    lowerRangeAddress: p.lowerRangeAddress,
    higherRangeAddress: p.higherRangeAddress,
    nextIndex: p.nextIndex,
    proof: p.proof,
    merkleTree: p.merkleTree,
    rootSeq: p.rootSeq,
    lowElementLeafIndex: p.lowElementLeafIndex,
  };
}
