/**
 * The root history of a Light V2 batched tree account (`BatchedMerkleTreeAccount`, discriminator `BatchMta`; state
 * trees, tree_type 3, and address trees, tree_type 4), light-protocol `batched-merkle-tree`, zero-copy, little-endian:
 *
 *   discriminator [8], BatchedMerkleTreeMetadata { tree_type u64, MerkleTreeMetadata (216 bytes), sequence_number
 *   u64, next_index u64, height u32, root_history_capacity u32, capacity u64, queue_batches { num_batches,
 *   batch_size, zkp_batch_size, bloom_filter_capacity (bits), currently_processing_batch_index,
 *   pending_batch_index, next_index, batches … }, hashed_pubkey, nullifier_next_index, … }, then the root history
 *   (a cyclic vector: current_index u64, length u64, capacity u64, capacity × 32 bytes), the input / address
 *   queue's bloom filters (num_batches × bloom_filter_capacity / 8 bytes) and hash-chain stores (num_batches ×
 *   (length u64, capacity u64, batch_size / zkp_batch_size × 32 bytes)).
 *
 * The root history is found from the end of the account (its sizes follow from the queue fields), so a metadata
 * struct that grew keeps parsing. Every batch update (append, nullify, address append) increments the sequence
 * number and pushes its new root; the newest root is the vector's last entry, so the root after update `s` sits
 * `sequence_number - s` places before it while the vector holds it. Light zeroes the roots that could still prove
 * values of a nullifier batch whose bloom filter it clears: such a root reads as absent. Elements waiting in a queue
 * (outputs not yet appended, nullifiers and addresses not yet inserted) are in no root. Pure; null when the account
 * is not a batched tree or its layout does not add up.
 */
import { bytesToBase58 } from '../../core/encoding.js';
import { ACCOUNT_COMPRESSION_PROGRAM } from './index.js';
import type { LightTreeRoots } from './roots.js';

const BATCHED = Buffer.from('BatchMta').toString('hex');

export interface LightBatchedTreeRoots extends LightTreeRoots {
  /** 3: state tree, 4: address tree. */
  treeType: 3 | 4;
  /** Leaves appended to the tree (state: outputs batch-appended; address: elements, the zeroth one included). */
  nextIndex: number;
  /** Nullifiers batch-inserted into a state tree (0 for an address tree). */
  nullifierNextIndex: number;
  /** Elements ever inserted into the tree's own input (state: nullifiers) or address queue. */
  queueNextIndex: number;
}

export function parseLightBatchedTreeRoots(owner: string, data: Uint8Array): LightBatchedTreeRoots | null {
  if (owner !== ACCOUNT_COMPRESSION_PROGRAM || data.length < 560) return null;
  if (Buffer.from(data.subarray(0, 8)).toString('hex') !== BATCHED) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const u = (at: number) => {
    const v = view.getBigUint64(at, true);
    return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : -1;
  };
  const treeType = u(8);
  if (treeType !== 3 && treeType !== 4) return null;
  const seq = u(232);
  const nextIndex = u(240);
  const height = view.getUint32(248, true);
  const rootsCap = view.getUint32(252, true);
  const [numBatches, batchSize, zkpBatchSize, bloomBits] = [u(264), u(272), u(280), u(288)];
  const queueNextIndex = u(312);
  const nullifierNextIndex = u(544);
  if ([seq, nextIndex, numBatches, batchSize, zkpBatchSize, bloomBits, queueNextIndex, nullifierNextIndex].some((x) => x < 0)) return null;
  if (height < 1 || height > 64 || rootsCap < 1 || zkpBatchSize < 1 || numBatches > 16 || batchSize % zkpBatchSize) return null;
  const tail = numBatches * (bloomBits / 8) + numBatches * (16 + (batchSize / zkpBatchSize) * 32);
  const at = data.length - tail - (24 + rootsCap * 32);
  if (!Number.isInteger(at) || at < 560) return null;
  const [current, len, cap] = [u(at), u(at + 8), u(at + 16)];
  if (cap !== rootsCap || len < 1 || len > cap || current < 0 || current >= cap) return null;
  const last = current === 0 && len === cap ? cap - 1 : (current - 1 + cap) % cap;
  const rootAtIndex = (i: number): string | null => {
    const bytes = data.subarray(at + 24 + i * 32, at + 24 + i * 32 + 32);
    return bytes.some((b) => b !== 0) ? bytesToBase58(bytes) : null;
  };
  const root = rootAtIndex(last);
  if (root === null) return null;
  return {
    treeType,
    height,
    sequenceNumber: seq,
    root,
    nextIndex,
    nullifierNextIndex,
    queueNextIndex,
    rootAt(s) {
      const back = seq - s;
      if (back < 0 || back >= len) return null;
      return rootAtIndex((((last - back) % cap) + cap) % cap);
    },
  };
}
