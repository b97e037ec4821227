/**
 * Compressed NFTs on real reference transactions: getAssetProof(s) verified against the tree root (which must be
 * the last change-log root of the fixture transactions, whatever the replay order), a corrupted node answered
 * as an INTERNAL error, getSignaturesForAsset, and replaying twice changing nothing in the cNFT tables.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { resetChainTables, tableDigests } from '../helpers/db.js';
import { applyInputs, callRpc, DAS_DIR, loadCases, type DasInput } from './harness.js';
import { createReplaySource } from '../../src/sources/replay.js';
import { parseBubblegumTransaction } from '../../src/parsers/bubblegum/index.js';
import { verifyBuiltProof } from '../../src/proofs/verify.js';

const CASE = loadCases().find((c) => c.id === 'mint_transfer_transfer')!;
const ASSET = (CASE.params as { id: string }).id;
const MISSING = 'CMVuYDS9nTeujfTPJb8ik7CRhAqZv4DfjfdamFLkJgxE';

/** The root of the highest-seq change log per tree, and the instruction names per asset, from the fixture txs. */
async function fixtureFacts(groups: DasInput[][]) {
  const roots = new Map<string, { seq: bigint; root: string }>();
  const sigs: { signature: string; instruction: string; seq: bigint }[] = [];
  const src = createReplaySource(groups.flat().map((i) => join(DAS_DIR, i.decoded)));
  for await (const item of src.items()) {
    if (item.kind !== 'block') continue;
    for (const tx of item.block.transactions) {
      for (const e of parseBubblegumTransaction(tx)) {
        if (e.kind === 'parse.failed' || !e.changeLog) continue;
        const cl = e.changeLog;
        const cur = roots.get(cl.tree);
        if (!cur || cl.seq > cur.seq) roots.set(cl.tree, { seq: cl.seq, root: cl.path[cl.path.length - 1].node });
        if ('assetId' in e && e.assetId === ASSET) sigs.push({ signature: tx.signature, instruction: e.instruction, seq: cl.seq });
      }
    }
  }
  return { roots, sigs: sigs.sort((a, b) => Number(b.seq - a.seq)) };
}

let ta: TestApp;
beforeAll(async () => {
  ta = await createTestApp();
});
afterAll(async () => ta?.close());

const CNFT_TABLES = ['cnft_assets', 'cnft_nodes', 'cnft_signatures'];

describe('compressed NFTs', () => {
  it('getAssetProof verifies and its root is the last change-log root, in any replay order', async () => {
    const facts = await fixtureFacts(CASE.inputs);
    for (const order of [CASE.inputs, [...CASE.inputs].reverse()]) {
      await resetChainTables(ta.t.db);
      await applyInputs(ta, order);
      const res = await callRpc(ta, 'getAssetProof', { id: ASSET });
      const proof = res.result as { root: string; proof: string[]; node_index: number; leaf: string; tree_id: string; burnt: boolean };
      expect(proof, JSON.stringify(res.error)).toBeDefined();
      expect(verifyBuiltProof({ root: proof.root, proof: proof.proof, nodeIndex: proof.node_index, leaf: proof.leaf })).toBe(true);
      expect(proof.root).toBe(facts.roots.get(proof.tree_id)?.root);
      expect(proof.burnt).toBe(false);
      const asset = (await callRpc(ta, 'getAsset', { id: ASSET })).result as { compression: { asset_hash: string; tree: string } };
      expect(proof.leaf).toBe(asset.compression.asset_hash);
      expect(proof.tree_id).toBe(asset.compression.tree);
    }
  });

  it('getAssetProofBatch / getAssetProofs: keyed by id, null where unknown, ≤ 1000 ids', async () => {
    await resetChainTables(ta.t.db);
    await applyInputs(ta, CASE.inputs);
    const single = (await callRpc(ta, 'getAssetProof', { id: ASSET })).result;
    for (const m of ['getAssetProofBatch', 'getAssetProofs']) {
      expect((await callRpc(ta, m, { ids: [ASSET, MISSING] })).result).toEqual({ [ASSET]: single, [MISSING]: null });
    }
    expect((await callRpc(ta, 'getAssetProofBatch', { ids: Array(1001).fill(ASSET) })).error?.code).toBe(-32000);
    expect((await callRpc(ta, 'getAssetProof', { id: MISSING })).error?.code).toBe(-32000);
  });

  it('a stored node that breaks the proof is an INTERNAL error and a metric, never a wrong proof', async () => {
    await resetChainTables(ta.t.db);
    await applyInputs(ta, CASE.inputs);
    const metric = async (name: string) => {
      const r = await ta.app.inject({ method: 'GET', url: '/metrics' });
      expect(r.statusCode).toBe(200);
      const line = r.body.split('\n').find((l) => l.startsWith(`${name}{kind="das"}`));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const [verified0, failed0] = [await metric('solgate_proofs_verified_total'), await metric('solgate_proof_verification_failures_total')];
    expect((await callRpc(ta, 'getAssetProof', { id: ASSET })).result).toBeDefined();
    expect(await metric('solgate_proofs_verified_total')).toBe(verified0 + 1);
    const a = (await callRpc(ta, 'getAsset', { id: ASSET })).result as { compression: { tree: string; leaf_id: number } };
    const upd = await ta.t.db.query(`UPDATE cnft_nodes SET hash = '11111111111111111111111111111112' WHERE tree = $1 AND level = 0 AND leaf_index = $2 RETURNING node_index`, [a.compression.tree, a.compression.leaf_id]);
    expect(upd.rows).toHaveLength(1);
    const res = await callRpc(ta, 'getAssetProof', { id: ASSET });
    expect(res.result).toBeUndefined();
    expect(res.error?.code).toBe(-32603);
    expect(await metric('solgate_proof_verification_failures_total')).toBe(failed0 + 1);
    expect(await metric('solgate_proofs_verified_total')).toBe(verified0 + 1);
  });

  it('getSignaturesForAsset / getAssetSignatures list [signature, instruction], newest first', async () => {
    await resetChainTables(ta.t.db);
    await applyInputs(ta, [...CASE.inputs].reverse());
    const { sigs } = await fixtureFacts(CASE.inputs);
    const want = sigs.map((s) => [s.signature, s.instruction]);
    expect(want.map((w) => w[1])).toEqual(['Transfer', 'Transfer', 'MintV1']);
    const res = (await callRpc(ta, 'getSignaturesForAsset', { id: ASSET })).result as { total: number; items: unknown[] };
    expect(res).toMatchObject({ total: 3, limit: 1000, items: want });
    expect(((await callRpc(ta, 'getAssetSignatures', { id: ASSET, sortDirection: 'asc' })).result as { items: unknown[] }).items).toEqual([...want].reverse());
    const paged = (await callRpc(ta, 'getSignaturesForAsset', { id: ASSET, limit: 1, page: 2 })).result as { items: unknown[] };
    expect(paged.items).toEqual([want[1]]);
    const asset = (await callRpc(ta, 'getAsset', { id: ASSET })).result as { compression: { tree: string; leaf_id: number } };
    const byLeaf = (await callRpc(ta, 'getSignaturesForAsset', { tree: asset.compression.tree, leafIndex: asset.compression.leaf_id })).result as { items: unknown[] };
    expect(byLeaf.items).toEqual(want);
    expect((await callRpc(ta, 'getSignaturesForAsset', { id: ASSET, limit: 1001 })).error?.code).toBe(-32000);
  });

  it('replaying the cNFT inputs twice (and in another order) leaves the cNFT tables unchanged', async () => {
    const c = loadCases().find((x) => x.id === 'asset_decompress')!;
    for (const k of [CASE, c]) {
      await resetChainTables(ta.t.db);
      await applyInputs(ta, k.inputs);
      const once = await tableDigests(ta.t.db);
      await applyInputs(ta, k.inputs);
      await applyInputs(ta, [...k.inputs].reverse());
      const again = await tableDigests(ta.t.db);
      for (const t of CNFT_TABLES) expect(again[t], t).toEqual(once[t]);
      expect(once.cnft_assets.rows).toBeGreaterThan(0);
      expect(once.cnft_nodes.rows).toBeGreaterThan(0);
    }
  });
});
