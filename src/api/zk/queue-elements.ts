/**
 * getQueueElements (the forester's read, helius-labs/photon src/api/method/get_queue_elements.rs, request and
 * response as the reference's OpenAPI spec): the pending entries of a V2 tree's queues with what a batch update
 * proof needs.
 *
 * - `outputQueue` / `inputQueue` (V2 state tree): the accounts waiting to be appended (by leaf index) / nullified
 *   (by input-queue index) with their current leaves, tx hashes and nullifiers; the Merkle proofs of their leaf
 *   positions, verified, shared as deduplicated `nodes` (`index` = level << 56 | position) with the initial root
 *   and its seq; `leavesHashChains` = the hash chain of each full batch of `zkpBatchSize` entries (account hashes
 *   for the output queue, nullifiers for the input queue), which is also the number of entries returned when
 *   given.
 * - `addressQueue` (V2 address tree): the queued addresses with their low elements and non-inclusion proofs
 *   (nodes as above, with the low elements' leaf hashes), the next leaf index (`startIndex`), the tree's
 *   `subtrees` (rightmost left node per level) and the hash chain of each full batch (`zkpBatchSize`, default 250).
 *
 * At most 30,000 entries per queue. Node indexes above 2^53 are written as decimal strings (see json.ts).
 */
import type { ApiDeps } from '../deps.js';
import { nodeFromBase58, nodeToBase58 } from '../../proofs/hash.js';
import {
  addressToBigint, buildLightProof, indexedElementHash, initPoseidon, leafNodeIndex, proofNodeIndexes, verifyLightBuiltProof, zeroHash,
} from '../../proofs/light/index.js';
import { getIndexedTreeNextIndex, getAddressQueue } from '../../store/zk/indexed-tree.js';
import { getInputQueue, getOutputQueue } from '../../store/zk/queues.js';
import { getStateNodesOfTrees, nodeKey } from '../../store/zk/state-tree.js';
import { getTrees } from '../../store/zk/trees.js';
import { TREE_TYPE, type ZkAccount, type ZkTreeRow } from '../../store/zk/types.js';
import { loadNewAddressProofs } from './address-proofs.js';
import { indexedSlot } from './context.js';
import { paramsError, validationError } from './errors.js';
import { u64, ZERO_HASH } from './json.js';
import { hash, optionalUint, required, schemaParams, uint } from './params.js';
import { PUBKEY, byNameParams, nullable, paramNames, type ObjectParamsSchema } from '../rpc/params-schema.js';
import { hashChain } from './prover.js';
import { checkVerified, nodeLookup, treeShape } from './state-proofs.js';

export const MAX_QUEUE_ELEMENTS = 30_000;
const DEFAULT_ADDRESS_ZKP_BATCH_SIZE = 250;
const U16 = 65_535;

interface QueueRequest {
  limit: number;
  startIndex: number | null;
  zkpBatchSize: number | null;
}

/** One queue's request `{limit, startIndex?, zkpBatchSize?}` (the accepted names come from here). */
export const QUEUE_REQUEST: ObjectParamsSchema = byNameParams(
  {
    limit: { type: 'integer', minimum: 0, maximum: U16, description: `entries to return (at most ${MAX_QUEUE_ELEMENTS})` },
    startIndex: nullable({ type: 'integer', minimum: 0, description: 'the first queue index to return' }),
    zkpBatchSize: nullable({ type: 'integer', minimum: 0, maximum: U16, description: 'return whole batches of this size, with their hash chains' }),
  },
  ['limit'],
);

/** getQueueElements params: the tree and at least one queue (none requested is -32000). */
export const QUEUE_ELEMENTS_PARAMS = {
  ...byNameParams(
    {
      tree: { ...PUBKEY, description: 'a V2 state tree (outputQueue, inputQueue) or V2 address tree (addressQueue)' },
      outputQueue: nullable(QUEUE_REQUEST),
      inputQueue: nullable(QUEUE_REQUEST),
      addressQueue: nullable(QUEUE_REQUEST),
    },
    ['tree'],
  ),
  description: 'request at least one queue; none is -32000 `Validation Error: At least one queue must be requested`',
};

function queueRequest(v: unknown, name: string): QueueRequest | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) throw paramsError(`\`${name}\`: expected an object {limit, startIndex?, zkpBatchSize?}`);
  const p = v as Record<string, unknown>;
  const allowed = paramNames(QUEUE_REQUEST);
  for (const k of Object.keys(p)) if (!allowed.includes(k)) throw paramsError(`\`${name}\`: unknown field \`${k}\``);
  const limit = uint(required(p, 'limit'), `${name}.limit`, U16);
  if (limit > MAX_QUEUE_ELEMENTS) throw validationError(`Too many queue elements requested ${limit}. Maximum allowed: ${MAX_QUEUE_ELEMENTS}`);
  return { limit, startIndex: optionalUint(p.startIndex, `${name}.startIndex`), zkpBatchSize: optionalUint(p.zkpBatchSize, `${name}.zkpBatchSize`, U16) };
}

/** Encoded node index: level << 56 | position. */
const encodeNode = (level: number, position: number): bigint => (BigInt(level) << 56n) | BigInt(position);

/** Adds a proof's leaf and siblings to the shared node set. */
function addProofNodes(nodes: Map<bigint, string>, leafIndex: number, leaf: string, siblings: readonly string[]): void {
  nodes.set(encodeNode(0, leafIndex), leaf);
  let pos = leafIndex;
  siblings.forEach((h, level) => {
    nodes.set(encodeNode(level, pos % 2 === 0 ? pos + 1 : pos - 1), h);
    pos = Math.floor(pos / 2);
  });
}

const nodeList = (nodes: Map<bigint, string>) =>
  [...nodes.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([index, h]) => ({ index: u64(index), hash: h }));

function chains(values: readonly string[], batch: number | null): string[] {
  if (!batch) return [];
  const out: string[] = [];
  for (let i = 0; i + batch <= values.length; i += batch) out.push(nodeToBase58(hashChain(values.slice(i, i + batch).map((v) => nodeFromBase58(v)!))));
  return out;
}

/** Verified proofs of leaf positions of one tree. */
async function positionProofs(deps: ApiDeps, tree: ZkTreeRow, leafIndexes: readonly number[]) {
  const { height } = treeShape(tree, tree.treeType);
  const keys = leafIndexes.flatMap((i) => [leafNodeIndex(i, height), ...proofNodeIndexes(i, height), 1].map((nodeIdx) => ({ tree: tree.tree, nodeIdx })));
  const stored = await getStateNodesOfTrees(deps.db, keys);
  const rootSeq = stored.get(nodeKey(tree.tree, 1))?.seq ?? 0;
  return leafIndexes.map((i) => {
    const built = buildLightProof(i, height, nodeLookup(stored, tree.tree));
    checkVerified(verifyLightBuiltProof(built), `leaf ${i} of tree ${tree.tree}`, { tree: tree.tree, leafIndex: i });
    return { ...built, rootSeq };
  });
}

function batched<T>(rows: T[], batch: number | null): T[] {
  if (!batch) return rows;
  return rows.slice(0, Math.floor(rows.length / batch) * batch);
}

async function stateQueues(deps: ApiDeps, tree: ZkTreeRow, out: QueueRequest | null, inp: QueueRequest | null) {
  const nodes = new Map<bigint, string>();
  let initialRoot: string | null = null;
  let rootSeq = 0;
  const note = (p: { root: string; rootSeq: number }) => {
    if (initialRoot === null) {
      initialRoot = p.root;
      rootSeq = p.rootSeq;
    }
  };
  const fetch = async (req: QueueRequest, kind: 'output' | 'input') => {
    const rows = batched(
      await (kind === 'output' ? getOutputQueue : getInputQueue)(deps.db, tree.tree, { startIndex: req.startIndex, limit: req.limit }),
      req.zkpBatchSize,
    );
    if (!rows.length) return { rows, leaves: [] as string[] };
    const first = kind === 'output' ? rows[0].leafIndex : (rows[0].nullifierQueueIndex as number);
    if (req.startIndex !== null && first > req.startIndex)
      throw validationError(`Requested start_index ${req.startIndex} but first_queue_index ${first} is later (possible pruning)`);
    const proofs = await positionProofs(deps, tree, rows.map((r) => r.leafIndex));
    proofs.forEach((p, i) => {
      note(p);
      addProofNodes(nodes, rows[i].leafIndex, p.hash, p.proof);
    });
    return { rows, leaves: proofs.map((p) => p.hash) };
  };
  const outData = out ? await fetch(out, 'output') : null;
  const inData = inp ? await fetch(inp, 'input') : null;
  const hashes = (rows: ZkAccount[]) => rows.map((r) => r.hash);
  return {
    nodes: nodeList(nodes),
    initialRoot: initialRoot ?? ZERO_HASH,
    rootSeq,
    ...(outData
      ? {
          outputQueue: {
            leafIndices: outData.rows.map((r) => r.leafIndex),
            accountHashes: hashes(outData.rows),
            leaves: outData.leaves,
            firstQueueIndex: outData.rows[0]?.leafIndex ?? 0,
            nextIndex: outData.rows[0]?.leafIndex ?? 0,
            leavesHashChains: chains(hashes(outData.rows), out!.zkpBatchSize),
          },
        }
      : {}),
    ...(inData
      ? {
          inputQueue: {
            leafIndices: inData.rows.map((r) => r.leafIndex),
            accountHashes: hashes(inData.rows),
            leaves: inData.leaves,
            txHashes: inData.rows.map((r) => r.txHash ?? ZERO_HASH),
            nullifiers: inData.rows.map((r) => r.nullifier ?? ZERO_HASH),
            firstQueueIndex: inData.rows[0]?.nullifierQueueIndex ?? 0,
            leavesHashChains: chains(inData.rows.map((r) => r.nullifier ?? ZERO_HASH), inp!.zkpBatchSize),
          },
        }
      : {}),
  };
}

/** The rightmost left node of each level of a tree with `next` leaves (zero hashes where nothing was written). */
async function subtrees(deps: ApiDeps, tree: ZkTreeRow, next: number, height: number): Promise<string[]> {
  const wanted: { level: number; nodeIdx: number }[] = [];
  for (let level = 0; level < height; level++) {
    if (next === 0) break;
    const pos = Math.floor((next - 1) / 2 ** level);
    const left = pos % 2 === 0 ? pos : pos - 1;
    wanted.push({ level, nodeIdx: 2 ** (height - level) + left });
  }
  const stored = await getStateNodesOfTrees(deps.db, wanted.map((w) => ({ tree: tree.tree, nodeIdx: w.nodeIdx })));
  return Array.from({ length: height }, (_, level) => {
    const w = wanted[level];
    const node = w ? stored.get(nodeKey(tree.tree, w.nodeIdx)) : undefined;
    return node ? node.hash : nodeToBase58(zeroHash(level));
  });
}

async function addressQueue(deps: ApiDeps, tree: ZkTreeRow, req: QueueRequest) {
  const { height } = treeShape(tree, tree.treeType);
  const [rows, nextIndex] = await Promise.all([
    getAddressQueue(deps.db, tree.tree, { startIndex: req.startIndex, limit: req.limit }),
    getIndexedTreeNextIndex(deps.db, tree.tree),
  ]);
  const startIndex = Math.max(1, nextIndex);
  const subs = await subtrees(deps, tree, startIndex, height);
  const proofs = rows.length ? await loadNewAddressProofs(deps.db, rows.map((r) => ({ address: r.address, tree: tree.tree })), { queued: 'allow' }) : [];
  const nodes = new Map<bigint, string>();
  for (const p of proofs) {
    const leaf = indexedElementHash(
      { index: p.lowElementLeafIndex, value: addressToBigint(p.lowerRangeAddress), nextIndex: p.nextIndex, nextValue: addressToBigint(p.higherRangeAddress) },
      p.treeType,
    );
    addProofNodes(nodes, p.lowElementLeafIndex, nodeToBase58(leaf), p.proof);
  }
  const addresses = rows.map((r) => r.address);
  return {
    addresses,
    queueIndices: rows.map((r) => r.queueIndex),
    nodes: nodeList(nodes),
    lowElementIndices: proofs.map((p) => p.lowElementLeafIndex),
    lowElementValues: proofs.map((p) => p.lowerRangeAddress),
    lowElementNextIndices: proofs.map((p) => p.nextIndex),
    lowElementNextValues: proofs.map((p) => p.higherRangeAddress),
    leavesHashChains: chains(addresses, req.zkpBatchSize || DEFAULT_ADDRESS_ZKP_BATCH_SIZE),
    initialRoot: proofs[0]?.root ?? ZERO_HASH,
    startIndex,
    subtrees: subs,
    rootSeq: proofs[0]?.rootSeq ?? 0,
  };
}

/** The getQueueElements result (`{context, stateQueue?, addressQueue?}`, no `value` wrapper). */
export async function queueElements(deps: ApiDeps, params: unknown): Promise<Record<string, unknown>> {
  const p = schemaParams(params, QUEUE_ELEMENTS_PARAMS);
  const treeKey = hash(required(p, 'tree'), 'tree');
  const out = queueRequest(p.outputQueue, 'outputQueue');
  const inp = queueRequest(p.inputQueue, 'inputQueue');
  const addr = queueRequest(p.addressQueue, 'addressQueue');
  if (!out && !inp && !addr) throw validationError('At least one queue must be requested');
  await initPoseidon();
  const slot = await indexedSlot(deps);
  const tree = (await getTrees(deps.db, [treeKey])).get(treeKey);
  if (!tree) throw validationError(`Unknown tree ${treeKey}`);
  if ((out || inp) && tree.treeType !== TREE_TYPE.StateV2) throw validationError(`Tree ${treeKey} is not a V2 (batched) state tree`);
  if (addr && tree.treeType !== TREE_TYPE.AddressV2) throw validationError(`Tree ${treeKey} is not a V2 (batched) address tree`);
  return {
    context: { slot },
    ...(out || inp ? { stateQueue: await stateQueues(deps, tree, out, inp) } : {}),
    ...(addr ? { addressQueue: await addressQueue(deps, tree, addr) } : {}),
  };
}
