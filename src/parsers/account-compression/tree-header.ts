/**
 * The header of a concurrent Merkle tree account (spl-account-compression and mpl-account-compression share the
 * layout): `CompressionAccountType` (1 = ConcurrentMerkleTree), then `ConcurrentMerkleTreeHeaderData::V1`
 * { max_buffer_size u32, max_depth u32, authority, creation_slot u64, padding [u8; 6] } — 56 bytes, the tree itself
 * after it. The authority of a Bubblegum tree is its TreeConfig PDA (seeds: the tree, program Bubblegum). Checked
 * against the generated `@metaplex-foundation/spl-account-compression` serializer in the tests.
 */
import { getProgramDerivedAddress, getAddressEncoder, type Address as KitAddress } from '../../vendor/solana-kit.js';
import { publicKey, struct, u32, u64, u8 } from '../../vendor/umi-serializers.js';
import { BUBBLEGUM_PROGRAM } from '../bubblegum/instructions.js';

/** Bytes of the header (what a `dataSlice` must cover). */
export const MERKLE_TREE_HEADER_BYTES = 56;
/** `CompressionAccountType::ConcurrentMerkleTree`. */
export const CONCURRENT_MERKLE_TREE_ACCOUNT = 1;

export interface MerkleTreeHeader {
  maxBufferSize: number;
  maxDepth: number;
  authority: string;
  creationSlot: number;
}

const header = struct<{ accountType: number; version: number; maxBufferSize: number; maxDepth: number; authority: string; creationSlot: bigint }>([
  ['accountType', u8()],
  ['version', u8()],
  ['maxBufferSize', u32()],
  ['maxDepth', u32()],
  ['authority', publicKey() as never],
  ['creationSlot', u64() as never],
]);

/** The header of a tree account's data (at least its first 56 bytes); null when it is not an initialised V1 tree. */
export function parseMerkleTreeHeader(data: Uint8Array): MerkleTreeHeader | null {
  if (data.length < MERKLE_TREE_HEADER_BYTES || data[0] !== CONCURRENT_MERKLE_TREE_ACCOUNT || data[1] !== 0) return null;
  const [h] = header.deserialize(data);
  if (h.maxDepth < 1 || h.maxDepth > 30) return null;
  return { maxBufferSize: h.maxBufferSize, maxDepth: h.maxDepth, authority: String(h.authority), creationSlot: Number(h.creationSlot) };
}

/** The TreeConfig PDA Bubblegum makes a tree's authority. */
export async function bubblegumTreeConfig(tree: string): Promise<string> {
  const [pda] = await getProgramDerivedAddress({ programAddress: BUBBLEGUM_PROGRAM as KitAddress, seeds: [getAddressEncoder().encode(tree as KitAddress)] });
  return pda;
}
