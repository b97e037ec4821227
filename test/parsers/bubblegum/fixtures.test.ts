/**
 * The Bubblegum parser on the recorded DAS transactions (mainnet and devnet, Bubblegum v1 and v2), checked against
 * the reference implementation's expected getAsset / searchAssets outputs for the same transactions, and against
 * facts that must hold between the two noop events (leaf event vs change log) and the asset-id PDA.
 */
import { describe, expect, it } from 'vitest';
import { walkTransaction } from '../../../src/parsers/walk.js';
import { bytesToBase58 } from '../../../src/core/encoding.js';
import {
  BUBBLEGUM_PROGRAM,
  cnftAssetId,
  parseBubblegumTransaction,
  type CnftEvent,
  type CnftLeafEvent,
  type CnftMetadata,
} from '../../../src/parsers/bubblegum/index.js';
import { allDasTransactions, cnftCases } from './helpers.js';

const ALL = allDasTransactions();
const isLeafEvent = (e: CnftEvent): e is CnftLeafEvent => 'leafIndex' in e;
const EMPTY_NODE = bytesToBase58(new Uint8Array(32));

describe('every recorded DAS transaction', () => {
  it.each(ALL.map((t) => [t.name, t.tx] as const))('%s: one event per Bubblegum instruction, none failed', (_n, tx) => {
    const events = parseBubblegumTransaction(tx);
    const bubblegumIxs = walkTransaction(tx).filter((ix) => ix.programId === BUBBLEGUM_PROGRAM);
    expect(events.filter((e) => e.kind === 'parse.failed')).toEqual([]);
    expect(events.map((e) => e.path)).toEqual(bubblegumIxs.map((ix) => ix.path));
  });

  const leafEvents = ALL.flatMap((t) => parseBubblegumTransaction(t.tx)).filter(isLeafEvent);

  it('has leaf events of both schemas and a change log for every leaf instruction', () => {
    expect(new Set(leafEvents.map((e) => e.leaf?.schema))).toEqual(new Set([1, 2, undefined]));
    for (const e of leafEvents) expect(e.changeLog, e.instruction).not.toBeNull();
  });

  it('asset ids: the synchronous PDA derivation reproduces every leaf event id', () => {
    const withLeaf = leafEvents.filter((e) => e.leaf);
    expect(withLeaf.length).toBeGreaterThan(40);
    for (const e of withLeaf) expect(cnftAssetId(e.tree, e.leaf!.nonce)).toBe(e.leaf!.assetId);
  });

  it('change log and leaf event agree: same tree and index, path[0] is the new leaf hash (empty after burn/redeem)', () => {
    for (const e of leafEvents) {
      const cl = e.changeLog!;
      expect(cl.tree).toBe(e.tree);
      expect(e.accounts.merkleTree).toBe(cl.tree);
      expect(cl.leafIndex).toBe(e.leafIndex);
      expect(e.seq).toBe(cl.seq);
      const depth = cl.path.length - 1;
      expect(cl.path[0].index).toBe(2 ** depth + cl.leafIndex);
      expect(cl.path[depth].index).toBe(1);
      if (e.leaf) {
        expect(Number(e.leaf.nonce)).toBe(cl.leafIndex);
        expect(cl.path[0].node).toBe(e.leaf.leafHash);
      } else {
        expect(['cnft.burn', 'cnft.redeem']).toContain(e.kind);
        expect(cl.path[0].node).toBe(EMPTY_NODE);
      }
    }
  });

  it('names instructions as the DAS reference does', () => {
    const names = new Set(ALL.flatMap((t) => parseBubblegumTransaction(t.tx)).map((e) => ('instruction' in e ? e.instruction : '')));
    for (const n of ['CreateTree', 'CreateTreeV2', 'MintV1', 'MintToCollectionV1', 'MintV2', 'Transfer', 'TransferV2', 'Burn', 'BurnV2']) {
      expect(names).toContain(n);
    }
  });
});

/** The metadata the asset ends up with: the last minted / decompressed / updated metadata, by seq. */
function finalMetadata(events: CnftEvent[]): CnftMetadata | null {
  let best: { seq: bigint; m: CnftMetadata } | null = null;
  for (const e of events) {
    if (e.kind !== 'cnft.mint' && e.kind !== 'cnft.updateMetadata' && e.kind !== 'cnft.decompress') continue;
    const seq = e.kind === 'cnft.decompress' ? -1n : (e.seq ?? -1n);
    if (!best || seq > best.seq) best = { seq, m: e.metadata };
  }
  return best?.m ?? null;
}

/** The verified collection the asset ends up in, by seq (mints and collection (un)verifications). */
function finalCollection(events: CnftEvent[]): string | null {
  let best: { seq: bigint; c: string | null } | null = null;
  for (const e of events) {
    let c: string | null;
    if (e.kind === 'cnft.mint' || e.kind === 'cnft.decompress') {
      c = e.metadata.collection?.verified ? e.metadata.collection.key : null;
    } else if (e.kind === 'cnft.collectionVerification') c = e.verified ? e.collection : null;
    else continue;
    const seq = e.kind === 'cnft.decompress' ? -1n : (e.seq ?? -1n);
    if (!best || seq > best.seq) best = { seq, c };
  }
  return best?.c ?? null;
}

/** Creators of the final metadata, with later creator (un)verifications applied. */
function finalCreators(events: CnftEvent[], meta: CnftMetadata): CnftMetadata['creators'] {
  const verified = new Map(meta.creators.map((c) => [c.address, c.verified]));
  const ordered = events.filter(isLeafEvent).sort((x, y) => Number((x.seq ?? -1n) - (y.seq ?? -1n)));
  for (const e of ordered) if (e.kind === 'cnft.creatorVerification') verified.set(e.creator, e.verified);
  return meta.creators.map((c) => ({ ...c, verified: verified.get(c.address)! }));
}

describe('compressed NFT cases: decoded values equal the reference outputs', () => {
  for (const { c, txs, assets } of cnftCases()) {
    const events = txs.flatMap(parseBubblegumTransaction);
    for (const a of assets) {
      it(`${c.id}: ${a.id}`, () => {
        const mine = events.filter((e) => ('assetId' in e ? e.assetId === a.id : false));
        expect(mine.length).toBeGreaterThan(0);
        const meta = finalMetadata(mine);
        expect(meta).not.toBeNull();
        expect(meta!.name).toBe(a.content.metadata.name);
        expect(meta!.symbol).toBe(a.content.metadata.symbol);
        expect(meta!.uri).toBe(a.content.json_uri);
        expect(mine.some((e) => e.kind === 'cnft.burn')).toBe(a.burnt);
        expect(meta!.isMutable).toBe(a.mutable);
        expect(finalCreators(mine, meta!)).toEqual(a.creators);
        const collection = finalCollection(mine);
        expect(collection ? [{ group_key: 'collection', group_value: collection }] : []).toEqual(a.grouping);

        const leafEvents = mine.filter(isLeafEvent);
        if (!a.compression.compressed) {
          // Decompressed: the asset is now a Token Metadata NFT; the parser only saw the owner redeem it.
          expect(mine.some((e) => e.kind === 'cnft.decompress' && e.owner === a.ownership.owner)).toBe(true);
          return;
        }
        const bySeq = [...leafEvents].sort((x, y) => Number((x.seq ?? -1n) - (y.seq ?? -1n)));
        const last = bySeq[bySeq.length - 1];
        expect(last.tree).toBe(a.compression.tree);
        expect(last.leafIndex).toBe(a.compression.leaf_id);
        expect(Number(last.seq)).toBe(a.compression.seq);
        const leaf = bySeq.filter((e) => e.leaf).pop()!.leaf!;
        expect(leaf.owner).toBe(a.ownership.owner);
        expect(leaf.delegate === leaf.owner ? null : leaf.delegate).toBe(a.ownership.delegate);
        expect(leaf.dataHash).toBe(a.compression.data_hash);
        expect(leaf.creatorHash).toBe(a.compression.creator_hash);
        if (!a.burnt) expect(leaf.leafHash).toBe(a.compression.asset_hash);
        if (a.compression.flags !== undefined) {
          expect(leaf.schema).toBe(2);
          expect(leaf.collectionHash).toBe(a.compression.collection_hash);
          expect(leaf.assetDataHash).toBe(a.compression.asset_data_hash);
          expect(leaf.flags).toBe(a.compression.flags);
          expect((leaf.flags! & 3) !== 0).toBe(a.ownership.frozen);
          expect((leaf.flags! & 4) !== 0).toBe(a.ownership.non_transferable);
        } else {
          expect(leaf.schema).toBe(1);
        }
      });
    }
  }
});
