/**
 * Decoders for the Light Protocol data a transaction carries, composed from `@solana/kit` codecs.
 *
 * Borsh layouts (Vec = u32 length prefix, Option = u8 tag) from light-protocol
 * `program-libs/compressed-account/src/` (`compressed_account.rs`, `instruction_data/{data,invoke_cpi,with_readonly,
 * with_account_info,insert_into_queues}.rs`), `sdk-libs/event/src/event.rs`, and Photon's copies in
 * `src/ingester/parser/indexer_events.rs`. `insert_into_queues` is zero-copy: a fixed header, then slices with a u8
 * length prefix, then a Borsh `Vec` of outputs written to the CPI context.
 *
 * Parts the parser never reads (proofs, new-address parameters, read-only accounts, CPI context flags) are decoded as
 * fixed-size byte strings of their Borsh size, so they are skipped exactly.
 */
import {
  addDecoderSizePrefix,
  createDecoder,
  type Decoder,
  fixDecoderSize,
  getAddressDecoder,
  getArrayDecoder,
  getBytesDecoder,
  getStructDecoder,
  getU16Decoder,
  getU32Decoder,
  getU64Decoder,
  getU8Decoder,
  type ReadonlyUint8Array,
} from '../../vendor/solana-kit.js';

const u8 = getU8Decoder();
const u16 = getU16Decoder();
const u32 = getU32Decoder();
const u64 = getU64Decoder() as Decoder<bigint>;
/** Borsh `bool`: 0 or 1, anything else is malformed. */
const bool = createDecoder<boolean>({
  fixedSize: 1,
  read(bytes, offset) {
    const [v, next] = u8.read(bytes, offset);
    if (v > 1) throw new Error(`invalid bool ${v} at byte ${offset}`);
    return [v === 1, next];
  },
});
const pubkey = getAddressDecoder();
const fixed = (size: number) => fixDecoderSize(getBytesDecoder(), size);
const bytes32 = fixed(32);
const bytes8 = fixed(8);
/** Borsh `Vec<u8>`. */
const vecU8 = addDecoderSizePrefix(getBytesDecoder(), u32);
/** Borsh `Vec<T>` (the length must be present: kit would read a missing trailing length as an empty array). */
const vec = <T>(item: Decoder<T>) => getArrayDecoder(item, { size: u32, requireSizePrefix: true });
/** Zero-copy slice with a u8 length (light-zero-copy `ZeroCopySlice<u8, T>`). */
const slice8 = <T>(item: Decoder<T>) => getArrayDecoder(item, { size: u8, requireSizePrefix: true });
/** Borsh `Option<T>` (u8 tag 0 or 1), as `T | null`. */
const option = <T>(item: Decoder<T>) =>
  createDecoder<T | null>({
    read(bytes, offset) {
      const [tag, next] = u8.read(bytes, offset);
      if (tag === 0) return [null, next];
      if (tag !== 1) throw new Error(`invalid option tag ${tag} at byte ${offset}`);
      return item.read(bytes, next);
    },
  });

/** Sizes of skipped structures (Borsh). */
const PROOF = 32 + 64 + 32; // CompressedProof { a, b, c }
const NEW_ADDRESS_PARAMS_PACKED = 32 + 1 + 1 + 2;
const NEW_ADDRESS_PARAMS_ASSIGNED_PACKED = 32 + 1 + 1 + 2 + 1 + 1;
const CPI_CONTEXT = 3; // CompressedCpiContext { set_context, first_set_context, cpi_context_account_index }
const READ_ONLY_ADDRESS = 32 + 2 + 1;
const READ_ONLY_ACCOUNT = 32 + 7 + 2;

export const compressedAccountDataDecoder = getStructDecoder([
  ['discriminator', bytes8],
  ['data', vecU8],
  ['dataHash', bytes32],
]);

export const compressedAccountDecoder = getStructDecoder([
  ['owner', pubkey],
  ['lamports', u64],
  ['address', option(bytes32)],
  ['data', option(compressedAccountDataDecoder)],
]);
export type RawCompressedAccount = ReturnType<typeof compressedAccountDecoder.decode>;

/** `OutputCompressedAccountWithPackedContext`. */
export const outputAccountDecoder = getStructDecoder([
  ['compressedAccount', compressedAccountDecoder],
  ['merkleTreeIndex', u8],
]);
export type RawOutputAccount = ReturnType<typeof outputAccountDecoder.decode>;

const packedMerkleContext = getStructDecoder([
  ['merkleTreePubkeyIndex', u8],
  ['queuePubkeyIndex', u8],
  ['leafIndex', u32],
  ['proveByIndex', bool],
]);

const packedInputAccount = getStructDecoder([
  ['compressedAccount', compressedAccountDecoder],
  ['merkleContext', packedMerkleContext],
  ['rootIndex', u16],
  ['readOnly', bool],
]);

/** light system program `invoke` (`InstructionDataInvoke`). */
export const invokeDecoder = getStructDecoder([
  ['proof', option(fixed(PROOF))],
  ['inputs', vec(packedInputAccount)],
  ['outputs', vec(outputAccountDecoder)],
  ['relayFee', option(u64)],
  ['newAddressParams', vec(fixed(NEW_ADDRESS_PARAMS_PACKED))],
  ['compressOrDecompressLamports', option(u64)],
  ['isCompress', bool],
]);

/** light system program `invoke_cpi` (`InstructionDataInvokeCpi`). */
export const invokeCpiDecoder = getStructDecoder([
  ['proof', option(fixed(PROOF))],
  ['newAddressParams', vec(fixed(NEW_ADDRESS_PARAMS_PACKED))],
  ['inputs', vec(packedInputAccount)],
  ['outputs', vec(outputAccountDecoder)],
  ['relayFee', option(u64)],
  ['compressOrDecompressLamports', option(u64)],
  ['isCompress', bool],
  ['cpiContext', option(fixed(CPI_CONTEXT))],
]);

const inAccount = getStructDecoder([
  ['discriminator', bytes8],
  ['dataHash', bytes32],
  ['merkleContext', packedMerkleContext],
  ['rootIndex', u16],
  ['lamports', u64],
  ['address', option(bytes32)],
]);

/** Shared header of `invoke_cpi_with_read_only` and `invoke_cpi_with_account_info`. */
const smallIxHeader = [
  ['mode', u8],
  ['bump', u8],
  ['invokingProgramId', pubkey],
  ['compressOrDecompressLamports', u64],
  ['isCompress', bool],
  ['withCpiContext', bool],
  ['withTransactionHash', bool],
  ['cpiContext', fixed(CPI_CONTEXT)],
  ['proof', option(fixed(PROOF))],
  ['newAddressParams', vec(fixed(NEW_ADDRESS_PARAMS_ASSIGNED_PACKED))],
] as const;

/** `InstructionDataInvokeCpiWithReadOnly`. */
export const invokeCpiWithReadOnlyDecoder = getStructDecoder([
  ...smallIxHeader,
  ['inputs', vec(inAccount)],
  ['outputs', vec(outputAccountDecoder)],
  ['readOnlyAddresses', vec(fixed(READ_ONLY_ADDRESS))],
  ['readOnlyAccounts', vec(fixed(READ_ONLY_ACCOUNT))],
]);

const compressedAccountInfo = getStructDecoder([
  ['address', option(bytes32)],
  [
    'input',
    option(
      getStructDecoder([
        ['discriminator', bytes8],
        ['dataHash', bytes32],
        ['merkleContext', packedMerkleContext],
        ['rootIndex', u16],
        ['lamports', u64],
      ]),
    ),
  ],
  [
    'output',
    option(
      getStructDecoder([
        ['discriminator', bytes8],
        ['dataHash', bytes32],
        ['outputMerkleTreeIndex', u8],
        ['lamports', u64],
        ['data', vecU8],
      ]),
    ),
  ],
]);

/** `InstructionDataInvokeCpiWithAccountInfo`. */
export const invokeCpiWithAccountInfoDecoder = getStructDecoder([
  ...smallIxHeader,
  ['accountInfos', vec(compressedAccountInfo)],
  ['readOnlyAddresses', vec(fixed(READ_ONLY_ADDRESS))],
  ['readOnlyAccounts', vec(fixed(READ_ONLY_ACCOUNT))],
]);

const sequenceNumberV2 = getStructDecoder([
  ['treePubkey', pubkey],
  ['queuePubkey', pubkey],
  ['treeType', u64],
  ['seq', u64],
]);
export type RawSequenceNumberV2 = ReturnType<typeof sequenceNumberV2.decode>;

/** account compression `insert_into_queues` payload (zero-copy `InsertIntoQueuesInstructionData`). */
export const insertIntoQueuesDecoder = getStructDecoder([
  ['isInvokedByProgram', u8],
  ['bump', u8],
  ['numQueues', u8],
  ['numOutputQueues', u8],
  ['startOutputAppends', u8],
  ['numAddressQueues', u8],
  ['txHash', bytes32],
  ['leaves', slice8(getStructDecoder([['accountIndex', u8], ['leaf', bytes32]]))],
  [
    'nullifiers',
    slice8(
      getStructDecoder([
        ['accountHash', bytes32],
        ['leafIndex', u32],
        ['proveByIndex', u8],
        ['treeIndex', u8],
        ['queueIndex', u8],
      ]),
    ),
  ],
  ['addresses', slice8(getStructDecoder([['address', bytes32], ['treeIndex', u8], ['queueIndex', u8]]))],
  ['outputSequenceNumbers', slice8(sequenceNumberV2)],
  ['inputSequenceNumbers', slice8(sequenceNumberV2)],
  ['addressSequenceNumbers', slice8(sequenceNumberV2)],
  ['outputLeafIndices', slice8(u32)],
  // Outputs an earlier instruction wrote to the CPI context account, prepended to the executing instruction's.
  ['cpiContextOutputs', vec(outputAccountDecoder)],
]);
export type RawInsertIntoQueues = ReturnType<typeof insertIntoQueuesDecoder.decode>;

const publicTransactionEventLegacy = [
  ['inputCompressedAccountHashes', vec(bytes32)],
  ['outputCompressedAccountHashes', vec(bytes32)],
  ['outputCompressedAccounts', vec(outputAccountDecoder)],
  ['outputLeafIndices', vec(u32)],
  ['sequenceNumbers', vec(getStructDecoder([['treePubkey', pubkey], ['seq', u64]]))],
  ['relayFee', option(u64)],
  ['isCompress', bool],
  ['compressOrDecompressLamports', option(u64)],
  ['pubkeyArray', vec(pubkey)],
  ['message', option(vecU8)],
] as const;

/** `PublicTransactionEvent` as older light system programs logged it through the noop program (no `ata_owners`). */
export const publicTransactionEventLegacyDecoder = getStructDecoder([...publicTransactionEventLegacy]);
/** The trailing `ata_owners` of the current `PublicTransactionEvent`. */
export const ataOwnersDecoder = vec(getStructDecoder([['outputIndex', u8], ['walletOwner', pubkey]]));
export type RawPublicTransactionEvent = ReturnType<typeof publicTransactionEventLegacyDecoder.decode>;

const rawIndexedElement = getStructDecoder([
  ['value', bytes32],
  ['nextIndex', u64],
  ['nextValue', bytes32],
  ['index', u64],
]);

/** `MerkleTreeEvent` variants (u8 tag): 0 V1 change log, 1 V2 nullifier, 2 V3 indexed tree, 3-5 batch events. */
export const changelogEventDecoder = getStructDecoder([
  ['id', pubkey],
  ['paths', vec(vec(getStructDecoder([['node', bytes32], ['index', u32]])))],
  ['seq', u64],
  ['index', u32],
]);
export const nullifierEventDecoder = getStructDecoder([
  ['id', pubkey],
  ['nullifiedLeavesIndices', vec(u64)],
  ['seq', u64],
]);
export const indexedMerkleTreeEventDecoder = getStructDecoder([
  ['id', pubkey],
  [
    'updates',
    vec(
      getStructDecoder([
        ['newLowElement', rawIndexedElement],
        ['newLowElementHash', bytes32],
        ['newHighElement', rawIndexedElement],
        ['newHighElementHash', bytes32],
      ]),
    ),
  ],
  ['seq', u64],
]);
export const batchEventDecoder = getStructDecoder([
  ['merkleTreePubkey', pubkey],
  ['batchIndex', u64],
  ['zkpBatchIndex', u64],
  ['zkpBatchSize', u64],
  ['oldNextIndex', u64],
  ['newNextIndex', u64],
  ['newRoot', bytes32],
  ['rootIndex', u32],
  ['sequenceNumber', u64],
  ['outputQueuePubkey', option(pubkey)],
]);

/** Compressed token account data: mint, owner, amount, delegate, state (then an optional TLV tail, read by hand). */
export const tokenDataHeadDecoder = getStructDecoder([
  ['mint', pubkey],
  ['owner', pubkey],
  ['amount', u64],
  ['delegate', option(pubkey)],
  ['state', u8],
]);

/** `decoder.read` from `offset`: the value and the offset after it. Throws on truncated data. */
export function readAt<T>(decoder: Decoder<T>, bytes: Uint8Array, offset: number): [T, number] {
  return decoder.read(bytes, offset);
}

/** A kit byte result (a view into the decoded bytes) as an independent `Uint8Array`. */
export function plain(b: ReadonlyUint8Array | Uint8Array): Uint8Array {
  return Uint8Array.from(b as ArrayLike<number>);
}

/** The first 8 bytes as a little-endian u64. */
export function u64le(b: Uint8Array): bigint {
  return new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
}
