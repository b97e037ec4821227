/**
 * Compressed NFT transactions recorded by the DAS reference (mainnet/devnet Geyser records, Bubblegum v1 and v2,
 * no execution meta): the enhanced type follows the Bubblegum instruction the transaction carries (identified here
 * by its Anchor discriminator, `sha256("global:<name>")[0..8]`, independently of the parser), and the compressed
 * events agree with the reference's getAsset/searchAssets answers for the same transactions (tree, leaf index,
 * owner, burnt).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { classifyTransaction } from '../../src/enhanced/index.js';
import type { CompressedNftEvent, TransactionType } from '../../src/enhanced/index.js';
import { walkTransaction } from '../../src/parsers/walk.js';
import { parseTransaction } from '../../src/parsers/registry.js';
import { allDasTransactions, cnftCases } from '../parsers/bubblegum/helpers.js';

const BUBBLEGUM = 'BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY';

/** Bubblegum instruction (Anchor name) → the enhanced type of the reference's list it stands for (null: none). */
const EXPECTED: Record<string, TransactionType | null> = {
  create_tree: 'CREATE_MERKLE_TREE',
  create_tree_v2: 'CREATE_MERKLE_TREE',
  mint_v1: 'COMPRESSED_NFT_MINT',
  mint_to_collection_v1: 'COMPRESSED_NFT_MINT',
  mint_v2: 'COMPRESSED_NFT_MINT',
  transfer: 'COMPRESSED_NFT_TRANSFER',
  transfer_v2: 'COMPRESSED_NFT_TRANSFER',
  burn: 'COMPRESSED_NFT_BURN',
  burn_v2: 'COMPRESSED_NFT_BURN',
  delegate: 'COMPRESSED_NFT_DELEGATE',
  delegate_v2: 'COMPRESSED_NFT_DELEGATE',
  delegate_and_freeze_v2: 'COMPRESSED_NFT_DELEGATE',
  thaw_and_revoke_v2: 'COMPRESSED_NFT_DELEGATE',
  redeem: 'COMPRESSED_NFT_REDEEM',
  cancel_redeem: 'COMPRESSED_NFT_CANCEL_REDEEM',
  decompress_v1: 'DECOMPRESS_NFT',
  verify_creator: 'COMPRESSED_NFT_VERIFY_CREATOR',
  verify_creator_v2: 'COMPRESSED_NFT_VERIFY_CREATOR',
  unverify_creator: 'COMPRESSED_NFT_UNVERIFY_CREATOR',
  unverify_creator_v2: 'COMPRESSED_NFT_UNVERIFY_CREATOR',
  verify_collection: 'COMPRESSED_NFT_VERIFY_COLLECTION',
  unverify_collection: 'COMPRESSED_NFT_UNVERIFY_COLLECTION',
  set_and_verify_collection: 'COMPRESSED_NFT_SET_VERIFY_COLLECTION',
  set_collection_v2: 'COMPRESSED_NFT_SET_VERIFY_COLLECTION',
  update_metadata: 'COMPRESSED_NFT_UPDATE_METADATA',
  update_metadata_v2: 'COMPRESSED_NFT_UPDATE_METADATA',
  set_tree_delegate: 'DELEGATE_MERKLE_TREE',
  freeze_v2: null,
  thaw_v2: null,
  set_non_transferable_v2: null,
  update_asset_data_v2: null,
  set_decompressible_state: null,
  collect_v2: null,
  close_tree_v2: null,
};
const BY_DISC = new Map(Object.keys(EXPECTED).map((n) => [createHash('sha256').update(`global:${n}`).digest('hex').slice(0, 16), n]));

const ALL = allDasTransactions();
const classified = ALL.map(({ name, tx }) => ({ name, tx, e: classifyTransaction(tx, parseTransaction(tx)) }));

describe('recorded Bubblegum transactions', () => {
  it('every Bubblegum instruction is a known one, and the fixtures cover the main cNFT types', () => {
    const seen = new Set<string>();
    for (const { name, tx } of ALL)
      for (const ix of walkTransaction(tx).filter((i) => i.programId === BUBBLEGUM)) {
        const n = BY_DISC.get(Buffer.from(ix.data.subarray(0, 8)).toString('hex'));
        expect(n, name).toBeDefined();
        seen.add(EXPECTED[n!] ?? 'none');
      }
    for (const t of ['CREATE_MERKLE_TREE', 'COMPRESSED_NFT_MINT', 'COMPRESSED_NFT_TRANSFER', 'COMPRESSED_NFT_BURN', 'COMPRESSED_NFT_DELEGATE', 'COMPRESSED_NFT_REDEEM', 'COMPRESSED_NFT_CANCEL_REDEEM', 'DECOMPRESS_NFT', 'COMPRESSED_NFT_VERIFY_CREATOR', 'COMPRESSED_NFT_UPDATE_METADATA'])
      expect(seen).toContain(t);
  });

  it.each(classified.map((c) => [c.name, c] as const))('%s: type, source, compressed events per Bubblegum instruction', (_n, { tx, e }) => {
    const bg = walkTransaction(tx).filter((i) => i.programId === BUBBLEGUM);
    const expected = bg
      .map((ix) => ({ ix, type: EXPECTED[BY_DISC.get(Buffer.from(ix.data.subarray(0, 8)).toString('hex'))!] }))
      .filter((x): x is { ix: (typeof bg)[number]; type: TransactionType } => x.type !== null);
    expect((e.events.compressed ?? []).map((c) => [c.type, c.instructionIndex, c.innerInstructionIndex])).toEqual(
      expected.map((x) => [x.type, x.ix.path.outer, x.ix.path.inner]),
    );
    if (expected.length) {
      const main = expected.find((x) => x.type !== 'CREATE_MERKLE_TREE') ?? expected[0];
      expect(e.type).toBe(main.type);
      expect(e.source).toBe('BUBBLEGUM');
    } else {
      expect(e.type).toBe('UNKNOWN');
    }
    // No execution meta in these records: no fee or balance changes are claimed.
    expect(e.signature).toBe(tx.signatures[0]);
    expect(e.feePayer).toBe(tx.accountKeys[0]);
    expect(e.fee).toBe(0);
    expect(e.accountData).toEqual([]);
    expect(e.transactionError).toBeNull();
    expect(e.instructions.map((i) => i.programId)).toEqual(tx.instructions.map((i) => tx.accountKeys[i.programIdIndex]));
  });
});

describe('compressed events agree with the reference getAsset answers for the same transactions', () => {
  const cases = cnftCases();
  it.each(cases.map((c) => [c.c.id, c] as const))('%s', (_id, { txs, assets }) => {
    const events = txs.flatMap((tx) => classifyTransaction(tx, parseTransaction(tx)).events.compressed ?? []);
    for (const a of assets) {
      const mine = events.filter((c) => c.assetId === a.id);
      expect(mine.length, a.id).toBeGreaterThan(0);
      if (!a.compression.compressed) {
        // Decompressed: the reference no longer reports a tree; the last operation is the decompression.
        expect(mine.map((c) => c.type)).toContain('DECOMPRESS_NFT');
        continue;
      }
      for (const c of mine) {
        expect(c.treeId).toBe(a.compression.tree);
        expect(c.leafIndex).toBe(a.compression.leaf_id);
      }
      const last = mine.reduce((x: CompressedNftEvent, y) => ((y.seq ?? -1) > (x.seq ?? -1) ? y : x));
      expect(last.seq).toBeLessThanOrEqual(a.compression.seq);
      if (a.burnt) expect(last.type).toBe('COMPRESSED_NFT_BURN');
      else expect(last.newLeafOwner).toBe(a.ownership.owner);
      const transfers = mine.filter((c) => c.type === 'COMPRESSED_NFT_TRANSFER');
      for (const t of transfers) expect(t.oldLeafOwner).not.toBe(t.newLeafOwner);
    }
  });
});
