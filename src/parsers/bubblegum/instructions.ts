/**
 * The Bubblegum instruction table: discriminator → client name, DAS name, event kind, the
 * `@metaplex-foundation/mpl-bubblegum` data serializer, and the account names in instruction order.
 *
 * Account orders were transcribed from the generated umi instruction builders of mpl-bubblegum 5.1
 * (`dist/src/generated/instructions/*.js`, `resolvedAccounts` by `index`); discriminators are Anchor's
 * `sha256("global:<snake_case program name>")[0..8]`. `test/parsers/bubblegum/instructions.test.ts` re-derives both from
 * the installed client, so a client upgrade that changes them fails the tests instead of mis-parsing.
 * Source: https://github.com/metaplex-foundation/mpl-bubblegum/tree/main/clients/js/src/generated/instructions
 */
import {
  getBurnInstructionDataSerializer,
  getBurnV2InstructionDataSerializer,
  getCancelRedeemInstructionDataSerializer,
  getCloseTreeV2InstructionDataSerializer,
  getCollectV2InstructionDataSerializer,
  getCreateTreeConfigInstructionDataSerializer,
  getCreateTreeConfigV2InstructionDataSerializer,
  getDecompressV1InstructionDataSerializer,
  getDelegateInstructionDataSerializer,
  getDelegateAndFreezeV2InstructionDataSerializer,
  getDelegateV2InstructionDataSerializer,
  getFreezeV2InstructionDataSerializer,
  getMintToCollectionV1InstructionDataSerializer,
  getMintV1InstructionDataSerializer,
  getMintV2InstructionDataSerializer,
  getRedeemInstructionDataSerializer,
  getSetAndVerifyCollectionInstructionDataSerializer,
  getSetCollectionV2InstructionDataSerializer,
  getSetDecompressibleStateInstructionDataSerializer,
  getSetNonTransferableV2InstructionDataSerializer,
  getSetTreeDelegateInstructionDataSerializer,
  getThawAndRevokeV2InstructionDataSerializer,
  getThawV2InstructionDataSerializer,
  getTransferInstructionDataSerializer,
  getTransferV2InstructionDataSerializer,
  getUnverifyCollectionInstructionDataSerializer,
  getUnverifyCreatorInstructionDataSerializer,
  getUnverifyCreatorV2InstructionDataSerializer,
  getUpdateAssetDataV2InstructionDataSerializer,
  getUpdateMetadataInstructionDataSerializer,
  getUpdateMetadataV2InstructionDataSerializer,
  getVerifyCollectionInstructionDataSerializer,
  getVerifyCreatorInstructionDataSerializer,
  getVerifyCreatorV2InstructionDataSerializer,
} from '../../vendor/mpl-bubblegum.js';
import { sha256 } from '@noble/hashes/sha256';
import type { BubblegumInstructionName, CnftEvent } from './events.js';

export const BUBBLEGUM_PROGRAM = 'BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY';

/** What a generated instruction-data serializer offers here: Borsh decoding (trailing bytes are tolerated). */
interface DataDecoder {
  deserialize(bytes: Uint8Array, offset?: number): [unknown, number];
}

/** Event kind suffix (`cnft.<kind>`) an instruction produces. */
export type CnftKind = Exclude<CnftEvent['kind'], 'parse.failed'> extends `cnft.${infer K}` ? K : never;

export interface BubblegumIxSpec {
  /** Client (camelCase) name, e.g. `transferV2`. */
  name: string;
  das: BubblegumInstructionName;
  kind: CnftKind;
  /** Hex of the 8-byte Anchor discriminator. */
  discriminator: string;
  accounts: readonly string[];
  /** Decodes the whole instruction data (discriminator included). */
  decode(data: Uint8Array): unknown;
}

type Row = [string, BubblegumInstructionName, CnftKind, () => DataDecoder, string[]];

const ROWS: Row[] = [
  ['burn', 'Burn', 'burn', getBurnInstructionDataSerializer, ['treeConfig', 'leafOwner', 'leafDelegate', 'merkleTree', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['burnV2', 'BurnV2', 'burn', getBurnV2InstructionDataSerializer, ['treeConfig', 'payer', 'authority', 'leafOwner', 'leafDelegate', 'merkleTree', 'coreCollection', 'mplCoreCpiSigner', 'logWrapper', 'compressionProgram', 'mplCoreProgram', 'systemProgram']],
  ['cancelRedeem', 'CancelRedeem', 'cancelRedeem', getCancelRedeemInstructionDataSerializer, ['treeConfig', 'leafOwner', 'merkleTree', 'voucher', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['closeTreeV2', 'CloseTreeV2', 'treeAdmin', getCloseTreeV2InstructionDataSerializer, ['treeConfig', 'authority', 'merkleTree', 'recipient', 'compressionProgram', 'logWrapper', 'systemProgram']],
  ['collectV2', 'CollectV2', 'treeAdmin', getCollectV2InstructionDataSerializer, ['treeConfig', 'destination']],
  ['createTreeConfig', 'CreateTree', 'createTree', getCreateTreeConfigInstructionDataSerializer, ['treeConfig', 'merkleTree', 'payer', 'treeCreator', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['createTreeConfigV2', 'CreateTreeV2', 'createTree', getCreateTreeConfigV2InstructionDataSerializer, ['treeConfig', 'merkleTree', 'payer', 'treeCreator', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['decompressV1', 'DecompressV1', 'decompress', getDecompressV1InstructionDataSerializer, ['voucher', 'leafOwner', 'tokenAccount', 'mint', 'mintAuthority', 'metadataAccount', 'masterEdition', 'systemProgram', 'sysvarRent', 'tokenMetadataProgram', 'tokenProgram', 'associatedTokenProgram', 'logWrapper']],
  ['delegate', 'Delegate', 'delegate', getDelegateInstructionDataSerializer, ['treeConfig', 'leafOwner', 'previousLeafDelegate', 'newLeafDelegate', 'merkleTree', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['delegateAndFreezeV2', 'DelegateAndFreezeV2', 'delegate', getDelegateAndFreezeV2InstructionDataSerializer, ['treeConfig', 'payer', 'leafOwner', 'previousLeafDelegate', 'newLeafDelegate', 'merkleTree', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['delegateV2', 'DelegateV2', 'delegate', getDelegateV2InstructionDataSerializer, ['treeConfig', 'payer', 'leafOwner', 'previousLeafDelegate', 'newLeafDelegate', 'merkleTree', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['freezeV2', 'FreezeV2', 'freeze', getFreezeV2InstructionDataSerializer, ['treeConfig', 'payer', 'authority', 'leafOwner', 'leafDelegate', 'merkleTree', 'coreCollection', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['mintToCollectionV1', 'MintToCollectionV1', 'mint', getMintToCollectionV1InstructionDataSerializer, ['treeConfig', 'leafOwner', 'leafDelegate', 'merkleTree', 'payer', 'treeCreatorOrDelegate', 'collectionAuthority', 'collectionAuthorityRecordPda', 'collectionMint', 'collectionMetadata', 'collectionEdition', 'bubblegumSigner', 'logWrapper', 'compressionProgram', 'tokenMetadataProgram', 'systemProgram']],
  ['mintV1', 'MintV1', 'mint', getMintV1InstructionDataSerializer, ['treeConfig', 'leafOwner', 'leafDelegate', 'merkleTree', 'payer', 'treeCreatorOrDelegate', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['mintV2', 'MintV2', 'mint', getMintV2InstructionDataSerializer, ['treeConfig', 'payer', 'treeCreatorOrDelegate', 'collectionAuthority', 'leafOwner', 'leafDelegate', 'merkleTree', 'coreCollection', 'mplCoreCpiSigner', 'logWrapper', 'compressionProgram', 'mplCoreProgram', 'systemProgram']],
  ['redeem', 'Redeem', 'redeem', getRedeemInstructionDataSerializer, ['treeConfig', 'leafOwner', 'leafDelegate', 'merkleTree', 'voucher', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['setAndVerifyCollection', 'SetAndVerifyCollection', 'collectionVerification', getSetAndVerifyCollectionInstructionDataSerializer, ['treeConfig', 'leafOwner', 'leafDelegate', 'merkleTree', 'payer', 'treeCreatorOrDelegate', 'collectionAuthority', 'collectionAuthorityRecordPda', 'collectionMint', 'collectionMetadata', 'collectionEdition', 'bubblegumSigner', 'logWrapper', 'compressionProgram', 'tokenMetadataProgram', 'systemProgram']],
  ['setCollectionV2', 'SetCollectionV2', 'collectionVerification', getSetCollectionV2InstructionDataSerializer, ['treeConfig', 'payer', 'authority', 'newCollectionAuthority', 'leafOwner', 'leafDelegate', 'merkleTree', 'coreCollection', 'newCoreCollection', 'mplCoreCpiSigner', 'logWrapper', 'compressionProgram', 'mplCoreProgram', 'systemProgram']],
  ['setDecompressibleState', 'SetDecompressibleState', 'treeAdmin', getSetDecompressibleStateInstructionDataSerializer, ['treeConfig', 'treeCreator']],
  ['setNonTransferableV2', 'SetNonTransferableV2', 'setNonTransferable', getSetNonTransferableV2InstructionDataSerializer, ['treeConfig', 'payer', 'authority', 'leafOwner', 'leafDelegate', 'merkleTree', 'coreCollection', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['setTreeDelegate', 'SetTreeDelegate', 'treeAdmin', getSetTreeDelegateInstructionDataSerializer, ['treeConfig', 'treeCreator', 'newTreeDelegate', 'merkleTree', 'systemProgram']],
  ['thawAndRevokeV2', 'ThawAndRevokeV2', 'delegate', getThawAndRevokeV2InstructionDataSerializer, ['treeConfig', 'payer', 'leafDelegate', 'leafOwner', 'merkleTree', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['thawV2', 'ThawV2', 'freeze', getThawV2InstructionDataSerializer, ['treeConfig', 'payer', 'authority', 'leafOwner', 'leafDelegate', 'merkleTree', 'coreCollection', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['transfer', 'Transfer', 'transfer', getTransferInstructionDataSerializer, ['treeConfig', 'leafOwner', 'leafDelegate', 'newLeafOwner', 'merkleTree', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['transferV2', 'TransferV2', 'transfer', getTransferV2InstructionDataSerializer, ['treeConfig', 'payer', 'authority', 'leafOwner', 'leafDelegate', 'newLeafOwner', 'merkleTree', 'coreCollection', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['unverifyCollection', 'UnverifyCollection', 'collectionVerification', getUnverifyCollectionInstructionDataSerializer, ['treeConfig', 'leafOwner', 'leafDelegate', 'merkleTree', 'payer', 'treeCreatorOrDelegate', 'collectionAuthority', 'collectionAuthorityRecordPda', 'collectionMint', 'collectionMetadata', 'collectionEdition', 'bubblegumSigner', 'logWrapper', 'compressionProgram', 'tokenMetadataProgram', 'systemProgram']],
  ['unverifyCreator', 'UnverifyCreator', 'creatorVerification', getUnverifyCreatorInstructionDataSerializer, ['treeConfig', 'leafOwner', 'leafDelegate', 'merkleTree', 'payer', 'creator', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['unverifyCreatorV2', 'UnverifyCreatorV2', 'creatorVerification', getUnverifyCreatorV2InstructionDataSerializer, ['treeConfig', 'payer', 'creator', 'leafOwner', 'leafDelegate', 'merkleTree', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['updateAssetDataV2', 'UpdateAssetDataV2', 'updateAssetData', getUpdateAssetDataV2InstructionDataSerializer, ['treeConfig', 'payer', 'authority', 'leafOwner', 'leafDelegate', 'merkleTree', 'coreCollection', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['updateMetadata', 'UpdateMetadata', 'updateMetadata', getUpdateMetadataInstructionDataSerializer, ['treeConfig', 'authority', 'collectionMint', 'collectionMetadata', 'collectionAuthorityRecordPda', 'leafOwner', 'leafDelegate', 'payer', 'merkleTree', 'logWrapper', 'compressionProgram', 'tokenMetadataProgram', 'systemProgram']],
  ['updateMetadataV2', 'UpdateMetadataV2', 'updateMetadata', getUpdateMetadataV2InstructionDataSerializer, ['treeConfig', 'payer', 'authority', 'leafOwner', 'leafDelegate', 'merkleTree', 'coreCollection', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['verifyCollection', 'VerifyCollection', 'collectionVerification', getVerifyCollectionInstructionDataSerializer, ['treeConfig', 'leafOwner', 'leafDelegate', 'merkleTree', 'payer', 'treeCreatorOrDelegate', 'collectionAuthority', 'collectionAuthorityRecordPda', 'collectionMint', 'collectionMetadata', 'collectionEdition', 'bubblegumSigner', 'logWrapper', 'compressionProgram', 'tokenMetadataProgram', 'systemProgram']],
  ['verifyCreator', 'VerifyCreator', 'creatorVerification', getVerifyCreatorInstructionDataSerializer, ['treeConfig', 'leafOwner', 'leafDelegate', 'merkleTree', 'payer', 'creator', 'logWrapper', 'compressionProgram', 'systemProgram']],
  ['verifyCreatorV2', 'VerifyCreatorV2', 'creatorVerification', getVerifyCreatorV2InstructionDataSerializer, ['treeConfig', 'payer', 'creator', 'leafOwner', 'leafDelegate', 'merkleTree', 'logWrapper', 'compressionProgram', 'systemProgram']],
];

/** The on-chain (Anchor) instruction name where the client renamed it. */
const PROGRAM_NAMES: Readonly<Record<string, string>> = { createTreeConfig: 'createTree', createTreeConfigV2: 'createTreeV2' };

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Anchor instruction discriminator (hex) of a client instruction name: `sha256("global:<snake name>")[0..8]`. */
export function anchorDiscriminator(clientName: string): string {
  const name = snake(PROGRAM_NAMES[clientName] ?? clientName);
  return Buffer.from(sha256(new TextEncoder().encode(`global:${name}`)).subarray(0, 8)).toString('hex');
}

function spec([name, das, kind, getter, accounts]: Row): BubblegumIxSpec {
  let decoder: DataDecoder | null = null;
  return {
    name,
    das,
    kind,
    discriminator: anchorDiscriminator(name),
    accounts,
    decode(data) {
      decoder ??= getter();
      return decoder.deserialize(data)[0];
    },
  };
}

/** Every Bubblegum instruction the client knows, by discriminator (hex). */
export const BUBBLEGUM_INSTRUCTIONS: ReadonlyMap<string, BubblegumIxSpec> = new Map(
  ROWS.map((r) => {
    const s = spec(r);
    return [s.discriminator, s];
  }),
);

/** The spec of an instruction's data, by its first 8 bytes; `undefined` when unknown or too short. */
export function bubblegumSpec(data: Uint8Array): BubblegumIxSpec | undefined {
  if (data.length < 8) return undefined;
  return BUBBLEGUM_INSTRUCTIONS.get(Buffer.from(data.subarray(0, 8)).toString('hex'));
}
