/**
 * Light Protocol tree accounts (owned by the account compression program `compr6…`) → tree metadata: the tree
 * type, height, queue, root-history capacity and owner that ZK Compression indexing needs before it can place
 * a transaction's leaves (Photon's TreeResolver reads the same accounts). Pure; unknown accounts give null.
 *
 * Layouts (light-protocol `account-compression` / `batched-merkle-tree`, zero-copy, little-endian):
 * - V1 state / address tree (`StateMerkleTreeAccount` / `AddressMerkleTreeAccount`, Anchor discriminators):
 *   8-byte discriminator, MerkleTreeMetadata { access { owner, program_owner, forester }, rollover (7 × u64),
 *   associated_queue, next_merkle_tree } (216 bytes), then the concurrent tree: height u64, canopy depth,
 *   next index, sequence number, rightmost leaf [32], filled subtrees (capacity, length), changelog (capacity,
 *   length, first, last), roots (capacity = root-history capacity, …).
 * - V2 batched tree (`BatchMta`): discriminator, tree_type u64 (3 state, 4 address), MerkleTreeMetadata,
 *   sequence number u64, next index u64, height u32, root_history_capacity u32, capacity u64, …. An address
 *   tree has no separate queue (its queue is the tree account itself).
 */
import { bytesToBase58 } from '../../core/encoding.js';

export const ACCOUNT_COMPRESSION_PROGRAM = 'compr6CUsB5m2jS4Y3831ztGSTnDpnKJTKS95d64XVq';

/** Tree type codes as Photon stores them. */
export const LIGHT_TREE_TYPE = { StateV1: 1, AddressV1: 2, StateV2: 3, AddressV2: 4 } as const;
export type LightTreeTypeCode = (typeof LIGHT_TREE_TYPE)[keyof typeof LIGHT_TREE_TYPE];

export interface LightTreeAccount {
  tree: string;
  queue: string;
  treeType: LightTreeTypeCode;
  height: number;
  rootHistoryCapacity: number;
  /** The tree's owner in its access metadata (who may append/roll over; Photon's tree `owner`). */
  owner: string;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
/** sha256("account:StateMerkleTreeAccount")[..8] and sha256("account:AddressMerkleTreeAccount")[..8]. */
const V1_STATE = 'ac2bacba1d49db54';
const V1_ADDRESS = '0ba1af09d4e54949';
/** "BatchMta". */
const V2_BATCHED = hex(new TextEncoder().encode('BatchMta'));

const METADATA_BYTES = 216;
const ZERO_KEY = bytesToBase58(new Uint8Array(32));

function key(data: Uint8Array, at: number): string {
  return bytesToBase58(data.subarray(at, at + 32));
}

function u64(view: DataView, at: number): number | null {
  const v = view.getBigUint64(at, true);
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : null;
}

/** Whether the first 8 bytes of an account of the account compression program mark a Merkle tree (V1 state or address, V2 batched). */
export function isLightTreeDiscriminator(first8: Uint8Array): boolean {
  const d = hex(first8.subarray(0, 8));
  return d === V1_STATE || d === V1_ADDRESS || d === V2_BATCHED;
}

/** The tree described by an account of the account compression program, or null when it is not a tree. */
export function parseLightTreeAccount(address: string, owner: string, data: Uint8Array): LightTreeAccount | null {
  if (owner !== ACCOUNT_COMPRESSION_PROGRAM || data.length < 8) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const disc = hex(data.subarray(0, 8));
  if (disc === V1_STATE || disc === V1_ADDRESS) {
    const tree = 8 + METADATA_BYTES;
    if (data.length < tree + 15 * 8) return null;
    const height = u64(view, tree);
    const roots = u64(view, tree + 14 * 8);
    if (height === null || roots === null || height < 1 || height > 64) return null;
    return {
      tree: address,
      queue: key(data, 8 + 96 + 56),
      treeType: disc === V1_STATE ? LIGHT_TREE_TYPE.StateV1 : LIGHT_TREE_TYPE.AddressV1,
      height,
      rootHistoryCapacity: roots,
      owner: key(data, 8),
    };
  }
  if (disc === V2_BATCHED) {
    const meta = 16;
    if (data.length < meta + METADATA_BYTES + 24) return null;
    const type = u64(view, 8);
    if (type !== LIGHT_TREE_TYPE.StateV2 && type !== LIGHT_TREE_TYPE.AddressV2) return null;
    const after = meta + METADATA_BYTES + 16;
    const queue = key(data, meta + 96 + 56);
    return {
      tree: address,
      queue: type === LIGHT_TREE_TYPE.AddressV2 && queue === ZERO_KEY ? address : queue,
      treeType: type,
      height: view.getUint32(after, true),
      rootHistoryCapacity: view.getUint32(after + 4, true),
      owner: key(data, meta),
    };
  }
  return null;
}

/** The same from base64 account data (RPC `getAccountInfo` / account dump files). */
export function parseLightTreeAccountBase64(address: string, owner: string, dataBase64: string): LightTreeAccount | null {
  return parseLightTreeAccount(address, owner, new Uint8Array(Buffer.from(dataBase64, 'base64')));
}


/** sha256("account:QueueAccount")[..8] (V1 nullifier / address queues) and "queueacc" (V2 batched output queues). */
const V1_QUEUE = 'a4c86c3e573f7b41';
const V2_QUEUE = hex(new TextEncoder().encode('queueacc'));
/** Offset of `associated_merkle_tree` in both queue layouts: discriminator, access (3 keys) and rollover (7 × u64) metadata. */
const QUEUE_TREE_AT = 8 + 96 + 56;

/**
 * The Merkle tree a queue account of the account compression program belongs to (its `QueueMetadata`
 * `associated_merkle_tree`), or null when the account is not a queue. Transactions name V2 state trees by their
 * output queue, so discovering an unknown tree may start from its queue.
 */
export function lightQueueTree(owner: string, data: Uint8Array): string | null {
  if (owner !== ACCOUNT_COMPRESSION_PROGRAM || data.length < QUEUE_TREE_AT + 32) return null;
  const disc = hex(data.subarray(0, 8));
  if (disc !== V1_QUEUE && disc !== V2_QUEUE) return null;
  const tree = key(data, QUEUE_TREE_AT);
  return tree === ZERO_KEY ? null : tree;
}
