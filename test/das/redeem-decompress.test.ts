/**
 * Bubblegum redeem / cancelRedeem / decompressV1 as the DAS reference answers them, on the reference's recorded
 * mainnet and devnet transactions, in every replay order:
 * - redeem replaces the leaf with the empty node: the asset stays compressed (same tree, leaf index and owner)
 *   with zeroed leaf, data and creator hashes and the redeem's seq; its proof is the proof of the empty leaf;
 * - decompressV1 alone changes nothing (the reference's `test_mint_redeem` replays mint, redeem and decompress and
 *   expects the redeemed, still compressed asset);
 * - once the Token Metadata accounts the decompress created are indexed, the asset is rendered from them
 *   (`asset_decompress`, in the conformance suite) and has no proof;
 * - cancelRedeem restores the leaf whatever the order (`mint_redeem_cancel_redeem`, in the conformance suite;
 *   here its proof).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { resetChainTables } from '../helpers/db.js';
import { applyInputs, callRpc, expectedOf, loadCases, type DasCase, type DasInput } from './harness.js';
import { verifyBuiltProof } from '../../src/proofs/verify.js';

const ZERO = '11111111111111111111111111111111';
const DECOMPRESS = loadCases().find((c) => c.id === 'asset_decompress')!;
const CANCEL = loadCases().find((c) => c.id === 'mint_redeem_cancel_redeem')!;
const ASSET = (DECOMPRESS.params as { id: string }).id;

/** The group of the case whose transaction has this signature prefix. */
const tx = (c: DasCase, prefix: string): DasInput[] => c.inputs.find((g) => g[0].kind === 'transaction' && g[0].decoded.split('/').pop()!.startsWith(prefix))!;
const MINT = tx(DECOMPRESS, '55tQ');
const REDEEM = tx(DECOMPRESS, '4FQR');
const DECOMPRESS_TX = tx(DECOMPRESS, '3Ct9');
const ACCOUNTS = DECOMPRESS.inputs.find((g) => g[0].kind === 'account')!;

/** The reference's `test_mint_redeem` expectation (its snapshot, copied with the fixtures). */
const MINT_REDEEM_SNAP = expectedOf({ ...DECOMPRESS, expected: 'integration_tests__cnft_tests__mint_redeem.snap' });

function permutations<T>(xs: T[]): T[][] {
  if (xs.length <= 1) return [xs];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
}
const label = (order: DasInput[][]) => order.map((g) => g[0].decoded.split('/').pop()!.slice(0, 4)).join(',');

interface Proof {
  root: string;
  proof: string[];
  node_index: number;
  leaf: string;
  tree_id: string;
}

let ta: TestApp;
beforeAll(async () => {
  ta = await createTestApp();
});
afterAll(async () => ta?.close());

describe('redeemed compressed NFTs (reference behaviour)', () => {
  it('mint + redeem + decompressV1 without the Token Metadata accounts: still compressed, zeroed leaf, in every order', async () => {
    for (const order of [...permutations([MINT, REDEEM]), ...permutations([MINT, REDEEM, DECOMPRESS_TX])]) {
      await resetChainTables(ta.t.db);
      await applyInputs(ta, order);
      const res = await callRpc(ta, 'getAsset', { id: ASSET });
      expect(res.result, label(order)).toEqual(MINT_REDEEM_SNAP);
    }
  });

  it('the redeemed asset keeps its owner in owner listings and searches, as compressed', async () => {
    await resetChainTables(ta.t.db);
    await applyInputs(ta, [REDEEM, DECOMPRESS_TX, MINT]);
    const owner = (MINT_REDEEM_SNAP as { ownership: { owner: string } }).ownership.owner;
    const byOwner = (await callRpc(ta, 'getAssetsByOwner', { ownerAddress: owner })).result as { items: { id: string; compression: { compressed: boolean } }[] };
    expect(byOwner.items.map((a) => [a.id, a.compression.compressed])).toEqual([[ASSET, true]]);
    const search = (await callRpc(ta, 'searchAssets', { ownerAddress: owner, compressed: true })).result as { items: { id: string }[] };
    expect(search.items.map((a) => a.id)).toEqual([ASSET]);
  });

  it('the proof of a redeemed asset is the verified proof of the empty leaf at its index, in every order', async () => {
    // The devnet case creates its tree in its first transaction, so every node of the tree is indexed.
    const id = (CANCEL.params as { id: string }).id;
    for (const order of permutations([tx(CANCEL, '3uzW'), tx(CANCEL, '49bJ')])) {
      await resetChainTables(ta.t.db);
      await applyInputs(ta, order);
      const asset = (await callRpc(ta, 'getAsset', { id })).result as { compression: { compressed: boolean; asset_hash: string; data_hash: string; tree: string; leaf_id: number } };
      expect(asset.compression).toMatchObject({ compressed: true, asset_hash: ZERO, data_hash: ZERO });
      const res = await callRpc(ta, 'getAssetProof', { id });
      const p = res.result as Proof;
      expect(p, `${label(order)}: ${JSON.stringify(res.error)}`).toBeDefined();
      expect(p.leaf).toBe(ZERO);
      expect(verifyBuiltProof({ root: p.root, proof: p.proof, nodeIndex: p.node_index, leaf: p.leaf })).toBe(true);
      expect(p.tree_id).toBe(asset.compression.tree);
      expect(p.node_index).toBe(2 ** p.proof.length + asset.compression.leaf_id);
    }
  });

  it('a proof on a tree whose earlier history is not indexed is refused as unavailable, naming the tree', async () => {
    // The mainnet tree of this asset had 58 leaves before it; only this asset's transactions are indexed.
    await resetChainTables(ta.t.db);
    await applyInputs(ta, [MINT, REDEEM]);
    const res = await callRpc(ta, 'getAssetProof', { id: ASSET });
    expect(res.result).toBeUndefined();
    const tree = (MINT_REDEEM_SNAP as { compression: { tree: string } }).compression.tree;
    expect(res.error).toEqual({ code: -32000, message: `Proof not available: the index does not hold the whole history of tree ${tree}` });
  });

  it('once the decompressed mint and metadata are indexed, the asset is no longer in a tree: no proof', async () => {
    for (const order of [[MINT, REDEEM, DECOMPRESS_TX, ACCOUNTS], [ACCOUNTS, DECOMPRESS_TX, REDEEM, MINT]]) {
      await resetChainTables(ta.t.db);
      await applyInputs(ta, order);
      const asset = (await callRpc(ta, 'getAsset', { id: ASSET })).result as { compression: { compressed: boolean } };
      expect(asset.compression.compressed, label(order)).toBe(false);
      const res = await callRpc(ta, 'getAssetProof', { id: ASSET });
      expect(res.result, label(order)).toBeUndefined();
      expect(res.error?.code).toBe(-32000);
      const batch = (await callRpc(ta, 'getAssetProofBatch', { ids: [ASSET] })).result;
      expect(batch).toEqual({ [ASSET]: null });
    }
  });

  it('cancelRedeem restores the leaf: the proof is again the proof of the asset hash, in every order', async () => {
    const id = (CANCEL.params as { id: string }).id;
    for (const order of permutations(CANCEL.inputs)) {
      await resetChainTables(ta.t.db);
      await applyInputs(ta, order);
      const asset = (await callRpc(ta, 'getAsset', { id })).result as { compression: { compressed: boolean; asset_hash: string } };
      expect(asset.compression.compressed).toBe(true);
      expect(asset.compression.asset_hash).not.toBe(ZERO);
      const p = (await callRpc(ta, 'getAssetProof', { id })).result as Proof;
      expect(p.leaf, label(order)).toBe(asset.compression.asset_hash);
      expect(verifyBuiltProof({ root: p.root, proof: p.proof, nodeIndex: p.node_index, leaf: p.leaf })).toBe(true);
    }
  });
});
