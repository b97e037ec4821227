/**
 * The root history of a Light V1 state tree account (`StateMerkleTreeAccount`: 8-byte discriminator, 216 bytes of
 * MerkleTreeMetadata, then light-concurrent-merkle-tree's zero-copy `ConcurrentMerkleTree`):
 *
 *   height, canopy_depth, next_index, sequence_number (u64 each), rightmost_leaf [32],
 *   filled_subtrees (capacity, length), changelog (capacity, length, first, last), roots (capacity, length, first,
 *   last), canopy (capacity, length) — u64 each — then the vectors' data in that order: filled subtrees
 *   (capacity × 32), change-log entries (capacity × entry), roots (capacity × 32), canopy (capacity × 32).
 *
 * A change-log entry is `{ path: [Option<[u8; 32]>; height], index: u64 }` (repr(C): 33 bytes per node, padded to 8)
 * in current releases and `{ path: [[u8; 32]; height], index }` in older ones: the size whose layout ends exactly at
 * the end of the account is taken. Every change pushes its new root on the cyclic roots vector, so the root after
 * change `s` sits `sequence_number - s` places before the last one while the vector still holds it (the same
 * `seq % root_history_capacity` a validity proof names as its root index). Pure; null when the account is not a V1
 * state tree or its layout does not add up.
 *
 * A V1 address tree (`AddressMerkleTreeAccount`) is the same concurrent tree followed by its indexed change log
 * (capacity, length, first, last — u64 each — then capacity entries): {@link parseLightAddressTreeRoots}. Its
 * initialisation leaves it at sequence number 3 (two elements); each address inserted is two changes (the low
 * element updated, the new one appended), and the indexer's root after both carries the seq of the second.
 */
import { bytesToBase58 } from '../../core/encoding.js';
import { ACCOUNT_COMPRESSION_PROGRAM } from './index.js';

/** sha256("account:StateMerkleTreeAccount")[..8]. */
const V1_STATE = 'ac2bacba1d49db54';
/** sha256("account:AddressMerkleTreeAccount")[..8]. */
const V1_ADDRESS = '0ba1af09d4e54949';
const TREE_AT = 8 + 216;

export interface LightTreeRoots {
  height: number;
  /** Changes applied so far: the seq of the tree's newest root. */
  sequenceNumber: number;
  /** The current root (base58). */
  root: string;
  /** The root right after change `seq` (base58) while the root history still holds it; else null. */
  rootAt(seq: number): string | null;
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;

export function parseLightStateTreeRoots(owner: string, data: Uint8Array): LightTreeRoots | null {
  return parseConcurrentTree(owner, data, V1_STATE, (rest) => rest === 0);
}

/** The root history of a Light V1 address tree account (the concurrent tree before its indexed change log). */
export function parseLightAddressTreeRoots(owner: string, data: Uint8Array): LightTreeRoots | null {
  return parseConcurrentTree(owner, data, V1_ADDRESS, (rest, at) => {
    if (rest < 32) return false;
    const cap = Number(new DataView(data.buffer, data.byteOffset + at, 8).getBigUint64(0, true));
    return cap > 0 && (rest - 32) % cap === 0;
  });
}

/** `trailing(bytes left after the canopy, where they start)` says whether what follows the tree is what the account holds there. */
function parseConcurrentTree(owner: string, data: Uint8Array, discriminator: string, trailing: (rest: number, at: number) => boolean): LightTreeRoots | null {
  if (owner !== ACCOUNT_COMPRESSION_PROGRAM || data.length < TREE_AT + 160) return null;
  if (Buffer.from(data.subarray(0, 8)).toString('hex') !== discriminator) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const u = (i: number) => {
    const v = view.getBigUint64(TREE_AT + i * 8, true);
    return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : -1;
  };
  const height = u(0);
  const seq = u(3);
  const subtreesCap = u(8);
  const changelogCap = u(10);
  const [rootsCap, rootsLen, , rootsLast] = [u(14), u(15), u(16), u(17)];
  const canopyCap = u(18);
  if (height < 1 || height > 64 || seq < 0 || [subtreesCap, changelogCap, rootsCap, rootsLen, rootsLast, canopyCap].some((x) => x < 0)) return null;
  if (rootsCap < 1 || rootsLast >= rootsCap || rootsLen > rootsCap) return null;
  const dataAt = TREE_AT + 160 + subtreesCap * 32;
  const entry = [align8(33 * height) + 8, 32 * height + 8].find((e) => {
    const end = dataAt + changelogCap * e + rootsCap * 32 + canopyCap * 32;
    return end <= data.length && trailing(data.length - end, end);
  });
  if (entry === undefined) return null;
  const rootsAt = dataAt + changelogCap * entry;
  const rootOf = (i: number) => bytesToBase58(data.subarray(rootsAt + i * 32, rootsAt + i * 32 + 32));
  return {
    height,
    sequenceNumber: seq,
    root: rootOf(rootsLast),
    rootAt(s) {
      const back = seq - s;
      if (back < 0 || back >= rootsLen) return null;
      return rootOf((((rootsLast - back) % rootsCap) + rootsCap) % rootsCap);
    },
  };
}
