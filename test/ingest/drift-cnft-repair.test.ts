/**
 * The drift detector's repair of Bubblegum node rows from the indexed leaves (src/ingest/drift/cnft-repair.ts).
 *
 * Two trees whose every change is indexed: a real one (the recorded Bubblegum transactions of the DAS case
 * `mint_transfer_transfer` — mint and two transfers of leaf 0 — replayed through the ingest path) and a depth-5 tree
 * whose change logs come from the reference model (appends, replaced leaves, a burn's empty leaf, right children at
 * every level), written by the ingester's cNFT writer. The cluster (a localnet) holds both tree accounts, serialized with the Metaplex client at the
 * trees' sequence numbers and roots.
 *
 * Damaged inner nodes (one row deleted) and root rows are found by one round, rewritten to exactly the undamaged rows,
 * getAssetProof answers verify again and a second round finds nothing; a damaged inner node under a root row that agrees
 * is found through the sampled leaves' proofs (`cnft_leaf_proof`) and rewritten the same way. A damaged leaf row: the recomputed root is not
 * the cluster's, so no row is rewritten (the tree is queued for its history backfill). A rewrite never replaces a row
 * written after it was read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getMerkleTreeAccountDataSerializer, SPL_ACCOUNT_COMPRESSION_PROGRAM_ID } from '@metaplex-foundation/spl-account-compression';
import { publicKey } from '@metaplex-foundation/umi';
import { registry } from '../../src/core/metrics.js';
import { bytesToBase58 } from '../../src/core/encoding.js';
import { createDriftDetector, type DriftDetector } from '../../src/ingest/drift.js';
import { ConcurrentMerkleTreeModel, type ModelChangeLog } from '../../src/proofs/concurrent-tree-model.js';
import { nodeToBase58 } from '../../src/proofs/hash.js';
import { changeLogPathToRows } from '../../src/proofs/paths.js';
import { verifyBuiltProof } from '../../src/proofs/verify.js';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { createRpcClient, type RpcClient } from '../../src/sources/rpc-client.js';
import { writeCnft, type CnftAssetPatch, type CnftNodeRow } from '../../src/store/cnft.js';
import { rewriteNodeRows } from '../../src/store/cnft-nodes.js';
import { repairCnftNodes } from '../../src/ingest/drift/cnft-repair.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { tableDigests } from '../helpers/db.js';
import { applyInputs, callRpc, loadCases } from '../das/harness.js';

const randomKey = () => bytesToBase58(crypto.getRandomValues(new Uint8Array(32)));
const CASE = loadCases().find((c) => c.id === 'mint_transfer_transfer')!;
const MODEL_TREE = randomKey();
const DEPTH = 5;

/** A tree account at sequence number `seq` with current root `root` (the Metaplex serializer; 8 change logs). */
function treeAccount(depth: number, seq: number, root: string): Uint8Array {
  const zero = publicKey(bytesToBase58(new Uint8Array(32)));
  const active = seq % 8;
  const changeLogs = Array.from({ length: 8 }, (_, i) => ({
    root: publicKey(i === active ? root : bytesToBase58(new Uint8Array(32))), pathNodes: Array(depth).fill(zero), index: i,
  }));
  return getMerkleTreeAccountDataSerializer().serialize({
    treeHeader: { __kind: 'V1', maxBufferSize: 8, maxDepth: depth, authority: publicKey(randomKey()), creationSlot: 0n, padding: [0, 0, 0, 0, 0, 0] },
    tree: { sequenceNumber: BigInt(seq), activeIndex: BigInt(active), bufferSize: 8n, changeLogs, rightMostPath: { proof: Array(depth).fill(zero), leaf: zero, index: 0 } },
    canopy: [],
  } as never);
}

/** The model tree's history: 20 appends, 3 replaced leaves, a burn (leaf 3 emptied). */
function modelHistory(): { model: ConcurrentMerkleTreeModel; logs: ModelChangeLog[]; assets: CnftAssetPatch[] } {
  const model = new ConcurrentMerkleTreeModel(DEPTH);
  const logs = [model.initialChangeLog()];
  const leaf = () => crypto.getRandomValues(new Uint8Array(32));
  const assets = new Map<number, CnftAssetPatch>();
  const patch = (cl: ModelChangeLog, burnt = false): void => {
    const seq = cl.seq;
    const prev = assets.get(cl.index);
    const leafHash = nodeToBase58(cl.path[0].node);
    assets.set(cl.index, {
      assetId: prev?.assetId ?? randomKey(), tree: MODEL_TREE, leafIndex: cl.index, authority: null,
      leaf: burnt ? prev!.leaf : { schema: 1, leafHash, dataHash: leafHash, creatorHash: leafHash, collectionHash: null, assetDataHash: null, flags: null, seq },
      owner: { owner: randomKey(), delegate: null, seq }, metadata: null, seq, burnt,
    });
  };
  for (let i = 0; i < 20; i++) patch(logs[logs.push(model.append(leaf())) - 1]);
  for (const i of [5, 12, 19]) patch(logs[logs.push(model.replaceLeaf(i, leaf())) - 1]);
  patch(logs[logs.push(model.setLeaf(3, new Uint8Array(32))) - 1], true);
  return { model, logs, assets: [...assets.values()] };
}

let ta: TestApp;
let net: Localnet;
let client: RpcClient;
let detector: DriftDetector;
let realTree: string;
let realDepth: number;
let realRoot: string;
let model: ConcurrentMerkleTreeModel;
let assetIds: string[];

const q = async <T = Record<string, unknown>>(sql: string, p: unknown[] = []) => (await ta.t.db.query<T>(sql, p)).rows;
const repairs = async (outcome: string) =>
  (await registry.getSingleMetric('solgate_drift_cnft_repairs_total')!.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
const nodes = () => tableDigests(ta.t.db, ['cnft_nodes']);

beforeAll(async () => {
  ta = await createTestApp();
  await applyInputs(ta, CASE.inputs);
  const [root] = await q<{ tree: string; level: number; hash: string; seq: string }>(
    `SELECT n.tree, n.level, n.hash, n.seq::text AS seq FROM cnft_nodes n JOIN cnft_assets a ON a.tree = n.tree
      WHERE a.asset_id = $1 AND n.node_index = 1`, [(CASE.params as { id: string }).id],
  );
  realTree = root.tree;
  realDepth = Number(root.level);
  realRoot = root.hash;
  const history = modelHistory();
  model = history.model;
  const rows: CnftNodeRow[] = history.logs.flatMap((cl) => changeLogPathToRows(cl.path).map((r) => ({
    tree: MODEL_TREE, nodeIndex: r.nodeIndex, level: r.level, hash: nodeToBase58(r.hash), seq: cl.seq, leafIndex: r.leafIndex,
  })));
  await writeCnft(ta.t.db, { assets: history.assets, nodes: rows, signatures: [] });
  assetIds = [(CASE.params as { id: string }).id, ...history.assets.map((a) => a.assetId)];
  net = await createLocalnet({
    slotMs: 0,
    accounts: [
      { address: realTree, lamports: 1_000_000_000n, owner: SPL_ACCOUNT_COMPRESSION_PROGRAM_ID, data: treeAccount(realDepth, Number(root.seq), realRoot) },
      { address: MODEL_TREE, lamports: 1_000_000_000n, owner: SPL_ACCOUNT_COMPRESSION_PROGRAM_ID, data: treeAccount(DEPTH, Number(model.seq), nodeToBase58(model.root)) },
    ],
  });
  for (let i = 0; i < 3; i++) net.chain.produceSlot();
  // The index has reached the cluster's slot (the replayed transactions are from another cluster's slots).
  await q('UPDATE ingest_checkpoint SET slot = $1', [net.chain.slot]);
  client = createRpcClient({ url: net.url, maxRetries: 2 });
  const ingester = { ingestAccounts: async () => {} };
  detector = createDriftDetector({ db: ta.t.db, client, ingester, commitment: 'confirmed', sample: 100, treeSample: 100, startAt: () => '1' });
}, 120_000);

afterAll(async () => {
  await client?.close();
  await net?.close();
  await ta?.close();
});

async function proofsVerify(): Promise<void> {
  const res = await callRpc(ta, 'getAssetProofs', { ids: assetIds });
  const proofs = res.result as Record<string, { root: string; proof: string[]; node_index: number; leaf: string; tree_id: string }>;
  expect(proofs, JSON.stringify(res.error)).toBeDefined();
  for (const id of assetIds) {
    const p = proofs[id];
    expect(verifyBuiltProof({ root: p.root, proof: p.proof, nodeIndex: p.node_index, leaf: p.leaf }), id).toBe(true);
    expect(p.root).toBe(p.tree_id === MODEL_TREE ? nodeToBase58(model.root) : realRoot);
  }
}

describe('drift detector: Bubblegum node rows recomputed from the indexed leaves', () => {
  it('both trees agree with the cluster; getAssetProof answers verify', async () => {
    // The real tree's recorded changes all touched leaf 0: the newest one's path is every node that is not empty.
    expect(await q('SELECT node_index::text AS n FROM cnft_nodes WHERE tree = $1 AND level = 0', [realTree])).toEqual([{ n: String(2 ** realDepth) }]);
    // Why the leaves are the level-0 rows: a burnt asset's leaf schema (cnft_assets.leaf_hash) is not its leaf in the tree.
    const burnt = await q<{ leaf_hash: string; hash: string }>(
      'SELECT a.leaf_hash, n.hash FROM cnft_assets a JOIN cnft_nodes n ON n.tree = a.tree AND n.node_index = $2 + a.leaf_index WHERE a.tree = $1 AND a.burnt',
      [MODEL_TREE, 2 ** DEPTH],
    );
    expect(burnt).toHaveLength(1);
    expect(burnt[0].hash).toBe(nodeToBase58(new Uint8Array(32)));
    expect(burnt[0].leaf_hash).not.toBe(burnt[0].hash);
    const r = await detector.runOnce();
    expect(r.slot).not.toBeNull();
    expect(r.mismatches).toEqual([]);
    expect(r.checked).toBe(2 + 21); // two roots; the trees' 1 + 20 leaves' proofs (cnft_leaf_proof)
    await proofsVerify();
  }, 60_000);

  it('damaged inner nodes and root rows are rewritten as their change logs wrote them; proofs verify; the next round agrees', async () => {
    const undamaged = await nodes();
    const rewrittenBefore = await repairs('rewritten');
    const garbage = randomKey();
    // Model tree: a right child at level 2 on leaf 13's path, the root, and a deleted row (leaf 17's level-3 node).
    const right = Math.floor((2 ** DEPTH + 13) / 4);
    expect(right % 2).toBe(1);
    await q('UPDATE cnft_nodes SET hash = $2 WHERE tree = $1 AND node_index IN (1, $3)', [MODEL_TREE, garbage, right]);
    await q('DELETE FROM cnft_nodes WHERE tree = $1 AND node_index = $2', [MODEL_TREE, Math.floor((2 ** DEPTH + 17) / 8)]);
    // Real tree: the level-1 node over leaf 0 and the root.
    await q('UPDATE cnft_nodes SET hash = $2 WHERE tree = $1 AND node_index IN (1, $3)', [realTree, garbage, 2 ** (realDepth - 1)]);
    expect((await callRpc(ta, 'getAssetProofs', { ids: assetIds })).error).toBeDefined();

    const r = await detector.runOnce();
    expect(r.mismatches.map((m) => [m.kind, m.address, m.action]).sort()).toEqual([
      ['cnft_tree_root', MODEL_TREE, 'rewritten'], ['cnft_tree_root', realTree, 'rewritten'],
    ].sort());
    expect(r.repaired).toBe(2);
    expect(r.queued).toBe(0);
    expect(await repairs('rewritten')).toBe(rewrittenBefore + 2);
    expect(await nodes()).toEqual(undamaged);
    expect(await q('SELECT address FROM backfill_addresses WHERE address = ANY($1::text[])', [[realTree, MODEL_TREE]])).toEqual([]);
    await proofsVerify();
    const again = await detector.runOnce();
    expect(again.mismatches).toEqual([]);
    expect(again.checked).toBe(2 + 21);
  }, 60_000);

  it('a damaged inner node under a root row that agrees: a sampled leaf\'s proof fails, and the rows are rewritten', async () => {
    const undamaged = await nodes();
    // The level-1 node over leaves 8 and 9: the sibling in the proofs of leaves 10 and 11.
    await q('UPDATE cnft_nodes SET hash = $2 WHERE tree = $1 AND node_index = $3', [MODEL_TREE, randomKey(), (2 ** DEPTH + 8) / 2]);
    expect((await callRpc(ta, 'getAssetProofs', { ids: assetIds })).error).toBeDefined();
    const r = await detector.runOnce();
    expect(r.mismatches.map((m) => [m.kind, m.address, m.action])).toEqual([['cnft_leaf_proof', MODEL_TREE, 'rewritten']]);
    expect(r.mismatches[0].indexed).toMatchObject({ leafIndex: 10, failing: 2, proofVerifies: false });
    expect(await nodes()).toEqual(undamaged);
    await proofsVerify();
    expect((await detector.runOnce()).mismatches).toEqual([]);
  }, 60_000);

  it('a damaged leaf row: the recomputed root is not the cluster\'s, so nothing is rewritten and the tree is queued', async () => {
    const undamaged = await nodes();
    const differBefore = await repairs('leaves_differ');
    const leaf = 2 ** DEPTH + 6;
    const [orig] = await q<{ hash: string }>('SELECT hash FROM cnft_nodes WHERE tree = $1 AND node_index = $2', [MODEL_TREE, leaf]);
    const garbage = randomKey();
    await q('UPDATE cnft_nodes SET hash = $2 WHERE tree = $1 AND node_index = $3', [MODEL_TREE, garbage, leaf]);
    await q('UPDATE cnft_nodes SET hash = $2 WHERE tree = $1 AND node_index = 1', [MODEL_TREE, randomKey()]);
    const damaged = await nodes();
    const r = await detector.runOnce();
    expect(r.mismatches.map((m) => [m.kind, m.address, m.action])).toEqual([['cnft_tree_root', MODEL_TREE, 'queued']]);
    expect(await repairs('leaves_differ')).toBe(differBefore + 1);
    expect(await nodes()).toEqual(damaged);
    expect(await q('SELECT status, repair FROM backfill_addresses WHERE address = $1', [MODEL_TREE])).toEqual([{ status: 'pending', repair: true }]);

    // With the leaf restored, the next round rewrites the root.
    await q('UPDATE cnft_nodes SET hash = $2 WHERE tree = $1 AND node_index = $3', [MODEL_TREE, orig.hash, leaf]);
    expect((await detector.runOnce()).mismatches.map((m) => m.action)).toEqual(['rewritten']);
    expect(await nodes()).toEqual(undamaged);
  }, 60_000);

  it('bounded: a tree above the leaf bound is not recomputed; a tree changed after the cluster\'s seq is left for a later round', async () => {
    const root = nodeToBase58(model.root);
    await q('UPDATE cnft_nodes SET hash = $2 WHERE tree = $1 AND node_index = 1', [MODEL_TREE, randomKey()]);
    const damaged = await nodes();
    const large = await repairCnftNodes(ta.t.db, { tree: MODEL_TREE, depth: DEPTH, cluster: { seq: Number(model.seq), root }, maxLeaves: 10 });
    expect(large).toMatchObject({ outcome: 'too_large', rewritten: [] });
    const changed = await repairCnftNodes(ta.t.db, { tree: MODEL_TREE, depth: DEPTH, cluster: { seq: Number(model.seq) - 1, root } });
    expect(changed).toMatchObject({ outcome: 'changed', rewritten: [] });
    expect(await nodes()).toEqual(damaged);
    const fixed = await repairCnftNodes(ta.t.db, { tree: MODEL_TREE, depth: DEPTH, cluster: { seq: Number(model.seq), root } });
    expect(fixed).toMatchObject({ outcome: 'rewritten', rewritten: [1], recomputedRoot: root, leaves: 20 });
  });

  it('a rewrite replaces only the row it read: a row written meanwhile (another seq or hash) stays', async () => {
    const [row] = await q<{ hash: string; seq: string }>('SELECT hash, seq::text AS seq FROM cnft_nodes WHERE tree = $1 AND node_index = 1', [MODEL_TREE]);
    const newer = { hash: randomKey(), seq: BigInt(row.seq) + 1n };
    await q('UPDATE cnft_nodes SET hash = $2, seq = $3 WHERE tree = $1 AND node_index = 1', [MODEL_TREE, newer.hash, newer.seq.toString()]);
    const written = await rewriteNodeRows(ta.t.db, MODEL_TREE, [
      { nodeIndex: 1, level: DEPTH, hash: row.hash, seq: BigInt(row.seq), read: { hash: row.hash, seq: BigInt(row.seq) } },
      { nodeIndex: 2, level: DEPTH - 1, hash: randomKey(), seq: 1n, read: null },
    ]);
    expect(written).toEqual([]);
    expect(await q('SELECT hash, seq::text AS seq FROM cnft_nodes WHERE tree = $1 AND node_index = 1', [MODEL_TREE])).toEqual([{ hash: newer.hash, seq: newer.seq.toString() }]);
    await q('UPDATE cnft_nodes SET hash = $2, seq = $3 WHERE tree = $1 AND node_index = 1', [MODEL_TREE, row.hash, row.seq]);
  });
});
