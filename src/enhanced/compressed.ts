/**
 * `events.compressed`: Bubblegum (compressed NFT) operations, one per Bubblegum instruction the parser decoded
 * (`src/parsers/bubblegum`), with the transaction type each stands for. Operations without an enhanced type
 * (V2 freeze/thaw, non-transferable, asset data updates, tree administration other than delegation) and
 * undecodable instructions yield no event.
 */
import type { CnftEvent } from '../parsers/bubblegum/index.js';
import type { CompressedNftEvent, TransactionType } from './types.js';

/** The enhanced type of one Bubblegum event, or null when the reference's list has none for it. */
export function compressedType(e: CnftEvent): TransactionType | null {
  switch (e.kind) {
    case 'cnft.createTree':
      return 'CREATE_MERKLE_TREE';
    case 'cnft.mint':
      return 'COMPRESSED_NFT_MINT';
    case 'cnft.transfer':
      return 'COMPRESSED_NFT_TRANSFER';
    case 'cnft.burn':
      return 'COMPRESSED_NFT_BURN';
    case 'cnft.delegate':
      return 'COMPRESSED_NFT_DELEGATE';
    case 'cnft.redeem':
      return 'COMPRESSED_NFT_REDEEM';
    case 'cnft.cancelRedeem':
      return 'COMPRESSED_NFT_CANCEL_REDEEM';
    case 'cnft.decompress':
      return 'DECOMPRESS_NFT';
    case 'cnft.creatorVerification':
      return e.verified ? 'COMPRESSED_NFT_VERIFY_CREATOR' : 'COMPRESSED_NFT_UNVERIFY_CREATOR';
    case 'cnft.collectionVerification':
      if (!e.verified || e.collection === null) return 'COMPRESSED_NFT_UNVERIFY_COLLECTION';
      return e.instruction === 'VerifyCollection' ? 'COMPRESSED_NFT_VERIFY_COLLECTION' : 'COMPRESSED_NFT_SET_VERIFY_COLLECTION';
    case 'cnft.updateMetadata':
      return 'COMPRESSED_NFT_UPDATE_METADATA';
    case 'cnft.treeAdmin':
      return e.instruction === 'SetTreeDelegate' ? 'DELEGATE_MERKLE_TREE' : null;
    default:
      return null;
  }
}

const toNumber = (v: bigint | null): number | null => (v === null ? null : Number(v));

/** The `compressed` event of one Bubblegum event, or null (see the module comment). */
export function compressedEvent(e: CnftEvent): CompressedNftEvent | null {
  const type = compressedType(e);
  if (type === null || e.kind === 'parse.failed') return null;
  const base: CompressedNftEvent = {
    type,
    treeId: '',
    assetId: null,
    leafIndex: null,
    seq: null,
    instructionIndex: e.path.outer,
    innerInstructionIndex: e.path.inner,
    newLeafOwner: null,
    oldLeafOwner: null,
    newLeafDelegate: null,
    oldLeafDelegate: null,
    treeDelegate: null,
  };
  switch (e.kind) {
    case 'cnft.createTree':
      return { ...base, treeId: e.tree, treeDelegate: e.treeCreator };
    case 'cnft.treeAdmin':
      return { ...base, treeId: e.tree ?? '', treeDelegate: e.newTreeDelegate };
    case 'cnft.decompress':
      return { ...base, treeId: e.tree ?? '', assetId: e.assetId, oldLeafOwner: e.owner, newLeafOwner: e.owner };
    default:
      break;
  }
  const leaf = {
    ...base,
    treeId: e.tree,
    assetId: e.assetId,
    leafIndex: e.leafIndex,
    seq: toNumber(e.seq),
    newLeafOwner: e.leaf?.owner ?? null,
    newLeafDelegate: e.leaf?.delegate ?? null,
  };
  switch (e.kind) {
    case 'cnft.mint':
      return leaf;
    case 'cnft.transfer':
      return { ...leaf, oldLeafOwner: e.owner, newLeafOwner: e.leaf?.owner ?? e.newOwner };
    case 'cnft.burn':
    case 'cnft.redeem':
      return { ...leaf, oldLeafOwner: e.owner, newLeafOwner: null, newLeafDelegate: null };
    case 'cnft.delegate':
      return { ...leaf, oldLeafOwner: e.owner, newLeafOwner: e.leaf?.owner ?? e.owner, oldLeafDelegate: e.previousDelegate, newLeafDelegate: e.leaf?.delegate ?? e.newDelegate };
    case 'cnft.cancelRedeem':
      return { ...leaf, oldLeafOwner: e.owner, newLeafOwner: e.leaf?.owner ?? e.owner };
    default:
      return { ...leaf, oldLeafOwner: e.leaf?.owner ?? null };
  }
}

export function compressedEvents(events: readonly CnftEvent[]): CompressedNftEvent[] {
  const out: CompressedNftEvent[] = [];
  for (const e of events) {
    const c = compressedEvent(e);
    if (c) out.push(c);
  }
  return out;
}
