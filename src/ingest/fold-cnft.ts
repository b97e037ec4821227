/**
 * Bubblegum events → compressed-NFT rows (pure). Each event becomes one seq-stamped patch of its asset, the
 * Merkle nodes of its change log, and a signature row; `store/cnft.ts` applies them with seq guards, so the
 * final state does not depend on the order of the transactions. The rules follow the DAS reference's
 * program_transformers/src/bubblegum: the leaf event sets the leaf (hashes, nonce, tree) and owner/delegate;
 * burn only marks the asset burnt (sticky); redeem zeroes the leaf hashes (the asset stays compressed, owner and
 * delegate unchanged); cancelRedeem restores them from its leaf event; decompressV1 changes no state (only its
 * signature is recorded): the asset leaves the tree for DAS when its Token Metadata accounts are indexed.
 */
import type { NormalizedTx } from '../core/model.js';
import type { CnftEvent, CnftMetadata } from '../parsers/bubblegum/index.js';
import { jsonSafe } from '../parsers/accounts/token-program.js';
import { changeLogPathToRows } from '../proofs/paths.js';
import { nodeFromBase58, nodeToBase58 } from '../proofs/hash.js';
import { emptyCnftRows, type CnftAssetPatch, type CnftRows } from '../store/cnft.js';

/** The base58 of 32 zero bytes (an empty leaf / zeroed hash). */
export const ZERO_HASH = '11111111111111111111111111111111';

function patch(assetId: string): CnftAssetPatch {
  return {
    assetId,
    tree: null,
    leafIndex: null,
    authority: null,
    leaf: null,
    owner: null,
    metadata: null,
    seq: null,
    burnt: false,
  };
}

function metadataJson(m: CnftMetadata): Record<string, unknown> {
  return jsonSafe(m) as Record<string, unknown>;
}

/** The metadata after a creator / collection verification (the event carries the metadata before it). */
function metadataAfter(e: CnftEvent): CnftMetadata | null {
  switch (e.kind) {
    case 'cnft.mint':
    case 'cnft.updateMetadata':
      return e.metadata;
    case 'cnft.creatorVerification':
      return {
        ...e.metadata,
        creators: e.metadata.creators.map((c) => (c.address === e.creator ? { ...c, verified: e.verified } : c)),
      };
    case 'cnft.collectionVerification':
      return { ...e.metadata, collection: e.collection === null ? null : { key: e.collection, verified: e.verified } };
    default:
      return null;
  }
}

/** Rows of every Bubblegum event of the given transactions. */
export function cnftRows(txs: readonly { tx: NormalizedTx; events: readonly CnftEvent[] }[]): CnftRows {
  const out = emptyCnftRows();
  for (const { tx, events } of txs) for (const e of events) foldEvent(out, tx, e);
  return out;
}

function foldEvent(out: CnftRows, tx: NormalizedTx, e: CnftEvent): void {
  if (e.kind === 'parse.failed') return;
  const cl = e.changeLog;
  const seq = cl?.seq ?? null;
  if (cl) {
    for (const r of changeLogPathToRows(cl.path.map((p) => ({ node: nodeFromBase58(p.node) ?? new Uint8Array(), index: p.index })))) {
      out.nodes.push({ tree: cl.tree, nodeIndex: r.nodeIndex, level: r.level, hash: nodeToBase58(r.hash), seq: cl.seq, leafIndex: r.leafIndex });
    }
  }
  if (e.kind === 'cnft.createTree' || e.kind === 'cnft.treeAdmin') return;
  const assetId = e.assetId;
  if (!assetId) return;
  const ixPath = e.path.inner === null ? String(e.path.outer) : `${e.path.outer}.${e.path.inner}`;
  out.signatures.push({ assetId, signature: tx.signature, ixPath, instruction: e.instruction, slot: tx.slot, seq });

  // DecompressV1 has no change log and, as in the reference, changes nothing of the compressed asset.
  if (e.kind === 'cnft.decompress') return;
  const p = patch(assetId);
  p.tree = e.tree;
  p.leafIndex = e.leafIndex;
  p.seq = seq;
  if (e.kind === 'cnft.mint') p.authority = e.accounts.treeConfig ?? e.authority;
  if (e.kind === 'cnft.burn') p.burnt = true;
  if (seq !== null) {
    const l = e.leaf;
    if (l) {
      p.leaf = {
        schema: l.schema,
        leafHash: l.leafHash,
        dataHash: l.dataHash,
        creatorHash: l.creatorHash,
        collectionHash: l.collectionHash,
        assetDataHash: l.assetDataHash,
        flags: l.flags,
        seq,
      };
      p.owner = { owner: l.owner, delegate: l.delegate === l.owner || l.delegate === ZERO_HASH ? null : l.delegate, seq };
      p.tree ??= e.tree;
      p.leafIndex ??= Number(l.nonce);
    } else if (e.kind === 'cnft.redeem') {
      // The leaf is replaced by the empty node: the reference zeroes the leaf, data and creator hashes (the asset
      // stays compressed, with its owner) until a cancelRedeem restores them.
      p.leaf = { schema: 1, leafHash: ZERO_HASH, dataHash: ZERO_HASH, creatorHash: ZERO_HASH, collectionHash: null, assetDataHash: null, flags: null, seq };
    }
    const m = metadataAfter(e);
    if (m) {
      const version = e.kind === 'cnft.mint' ? e.metadataVersion : (e.leaf?.schema ?? 1);
      p.metadata = { data: metadataJson(m), version, seq };
    }
  }
  out.assets.push(p);
}
