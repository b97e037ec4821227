/**
 * The roots a concurrent Merkle tree account (spl-account-compression / mpl-account-compression) still holds: after
 * the 56-byte header (tree-header.ts), `ConcurrentMerkleTree<D, B>` { sequence_number u64, active_index u64,
 * buffer_size u64, change_logs [ChangeLog<D>; B], rightmost_proof, … } where ChangeLog<D> = { root [32], path
 * [[32]; D], index u32, padding u32 }. The change log at `active_index` holds the root after change
 * `sequence_number`; the one k places before it (cyclically, k < buffer_size) the root after change
 * `sequence_number - k`. Checked against the generated `@metaplex-foundation/spl-account-compression` serializer in
 * the tests. Pure; null when the data is not an initialised V1 tree.
 */
import { bytesToBase58 } from '../../core/encoding.js';
import { MERKLE_TREE_HEADER_BYTES, parseMerkleTreeHeader } from './tree-header.js';

export interface MerkleTreeRoots {
  maxDepth: number;
  /** Changes applied so far (the `seq` of the last change log event). */
  sequenceNumber: number;
  /** The current root (base58). */
  root: string;
  /** The root right after change `seq` (base58), while the tree's change-log buffer still holds it; else null. */
  rootAt(seq: number): string | null;
}

export function parseMerkleTreeRoots(data: Uint8Array): MerkleTreeRoots | null {
  const h = parseMerkleTreeHeader(data);
  if (!h || h.maxBufferSize < 1) return null;
  const at = MERKLE_TREE_HEADER_BYTES;
  const entry = 32 + 32 * h.maxDepth + 8;
  if (data.length < at + 24 + entry * h.maxBufferSize) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const seq = Number(view.getBigUint64(at, true));
  const active = Number(view.getBigUint64(at + 8, true));
  const buffered = Number(view.getBigUint64(at + 16, true));
  if (active >= h.maxBufferSize) return null;
  const rootOf = (i: number) => bytesToBase58(data.subarray(at + 24 + i * entry, at + 24 + i * entry + 32));
  return {
    maxDepth: h.maxDepth,
    sequenceNumber: seq,
    root: rootOf(active),
    rootAt(s) {
      const back = seq - s;
      if (back < 0 || back >= Math.min(buffered, h.maxBufferSize)) return null;
      return rootOf((((active - back) % h.maxBufferSize) + h.maxBufferSize) % h.maxBufferSize);
    },
  };
}
