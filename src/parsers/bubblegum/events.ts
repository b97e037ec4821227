/**
 * Events produced from Bubblegum (compressed NFT) instructions: one per Bubblegum instruction, carrying what the
 * instruction says (decoded with the `@metaplex-foundation/mpl-bubblegum` serializers) together with what its
 * account-compression CPIs logged through the noop programs (the tree change log and Bubblegum's leaf event).
 *
 * The leaf event (`leaf`) is the authoritative new state of the leaf; the change log (`changeLog`) is the new path
 * of the tree and its sequence number, which orders updates of one asset (the DAS reference keeps, per asset, the
 * values of the highest `seq`). Hashes and node values are base58, as DAS serves them.
 *
 * Sources: https://github.com/metaplex-foundation/mpl-bubblegum/tree/main/programs/bubblegum/program/src
 * (instructions, `state/leaf_schema.rs`, `state/metaplex_adapter.rs`) and the DAS reference's parser
 * https://github.com/metaplex-foundation/digital-asset-rpc-infrastructure/blob/main/blockbuster/src/programs/bubblegum/mod.rs
 */
import type { Address } from '../../core/model.js';
import type { ChangeLog } from '../account-compression/events.js';
import type { IxPath, ParseFailedEvent } from '../events.js';

export type { ChangeLog, ChangeLogPathNode } from '../account-compression/events.js';

/**
 * Instruction names as the DAS reference spells them (its `InstructionName` → string table); these are what
 * `getSignaturesForAsset` returns next to each signature. `createTreeConfig(V2)` is `CreateTree(V2)` there.
 * `SetTreeDelegate`, `CollectV2` and `CloseTreeV2` have no name in the reference (it says `Unknown`).
 */
export type BubblegumInstructionName =
  | 'Burn'
  | 'BurnV2'
  | 'CancelRedeem'
  | 'CloseTreeV2'
  | 'CollectV2'
  | 'CreateTree'
  | 'CreateTreeV2'
  | 'DecompressV1'
  | 'Delegate'
  | 'DelegateAndFreezeV2'
  | 'DelegateV2'
  | 'FreezeV2'
  | 'MintToCollectionV1'
  | 'MintV1'
  | 'MintV2'
  | 'Redeem'
  | 'SetAndVerifyCollection'
  | 'SetCollectionV2'
  | 'SetDecompressibleState'
  | 'SetNonTransferableV2'
  | 'SetTreeDelegate'
  | 'ThawAndRevokeV2'
  | 'ThawV2'
  | 'Transfer'
  | 'TransferV2'
  | 'UnverifyCollection'
  | 'UnverifyCreator'
  | 'UnverifyCreatorV2'
  | 'UpdateAssetDataV2'
  | 'UpdateMetadata'
  | 'UpdateMetadataV2'
  | 'VerifyCollection'
  | 'VerifyCreator'
  | 'VerifyCreatorV2';

/**
 * A Bubblegum leaf as its `LeafSchemaEvent` states it after the instruction. V2 leaves add `collectionHash`,
 * `assetDataHash` and `flags` (bit 0 frozen by owner/delegate, bit 1 frozen by the permanent freeze delegate,
 * bit 2 non-transferable); they are `null` for V1 leaves.
 */
export interface CnftLeaf {
  /** LeafSchema variant: 1 or 2. */
  schema: 1 | 2;
  /** The asset id (PDA `["asset", tree, nonce u64 LE]` under Bubblegum). */
  assetId: Address;
  owner: Address;
  /** Equals `owner` when there is no delegate. */
  delegate: Address;
  /** The leaf index. */
  nonce: bigint;
  dataHash: string;
  creatorHash: string;
  collectionHash: string | null;
  assetDataHash: string | null;
  flags: number | null;
  /** Hash of the leaf (DAS `compression.asset_hash`). */
  leafHash: string;
}

export interface CnftCreator {
  address: Address;
  verified: boolean;
  /** Percentage, 0–100. */
  share: number;
}

/**
 * Compressed NFT metadata (Bubblegum `MetadataArgs`, or `MetadataArgsV2` mapped onto it: a V2 collection is always
 * verified, and V2 has no edition nonce, uses or token program version).
 */
export interface CnftMetadata {
  name: string;
  symbol: string;
  uri: string;
  sellerFeeBasisPoints: number;
  primarySaleHappened: boolean;
  isMutable: boolean;
  editionNonce: number | null;
  tokenStandard: 'NonFungible' | 'FungibleAsset' | 'Fungible' | 'NonFungibleEdition' | null;
  collection: { key: Address; verified: boolean } | null;
  uses: { useMethod: 'Burn' | 'Multiple' | 'Single'; remaining: bigint; total: bigint } | null;
  tokenProgramVersion: 'Original' | 'Token2022' | null;
  creators: CnftCreator[];
}

/** Bubblegum `UpdateArgs`: each field `null` when left unchanged. */
export interface CnftMetadataUpdate {
  name: string | null;
  symbol: string | null;
  uri: string | null;
  creators: CnftCreator[] | null;
  sellerFeeBasisPoints: number | null;
  primarySaleHappened: boolean | null;
  isMutable: boolean | null;
}

interface CnftBase {
  path: IxPath;
  /** The DAS instruction name. */
  instruction: BubblegumInstructionName;
  /** The Merkle tree account; `null` for instructions without one (decompressV1, setDecompressibleState, collectV2). */
  tree: Address | null;
  /**
   * The instruction's accounts by their Bubblegum names (`leafOwner`, `newLeafOwner`, `merkleTree`, ...). Optional
   * accounts left out (passed as the Bubblegum program id) are absent; trailing proof accounts are not included.
   * The explicit fields of each event (`owner`, `authority`, ...) resolve omitted V2 accounts the way the program
   * does: optional signers (`authority`, `treeCreator`, `treeCreatorOrDelegate`, `creator`) default to `payer`, an
   * omitted `leafOwner` is the authority.
   */
  accounts: Record<string, Address>;
  /** The change log its compression CPI logged; `null` when none was logged. */
  changeLog: ChangeLog | null;
}

/** Common fields of instructions that change one leaf. */
interface CnftLeafBase extends CnftBase {
  tree: Address;
  /** From the leaf event's nonce, else the change log's index, else the instruction's `index` argument. */
  leafIndex: number | null;
  /** From the leaf event, else derived from `tree` and `leafIndex`. */
  assetId: Address | null;
  /** The new leaf, when the instruction logged a leaf event (burn and redeem do not). */
  leaf: CnftLeaf | null;
  /** `changeLog.seq`, or `null`. */
  seq: bigint | null;
}

/** createTreeConfig / createTreeConfigV2. */
export interface CnftCreateTreeEvent extends CnftBase {
  kind: 'cnft.createTree';
  tree: Address;
  treeConfig: Address;
  treeCreator: Address;
  payer: Address;
  maxDepth: number;
  maxBufferSize: number;
  /** `public` argument: anyone may mint; `null` when not given. */
  public: boolean | null;
  version: 1 | 2;
}

/** mintV1, mintToCollectionV1, mintV2. */
export interface CnftMintEvent extends CnftLeafBase {
  kind: 'cnft.mint';
  /** As minted: for mintToCollectionV1 and mintV2 the collection is verified (the program verifies it). */
  metadata: CnftMetadata;
  metadataVersion: 1 | 2;
  /** `treeCreatorOrDelegate`: who minted; the DAS update authority is the tree config's creator. */
  authority: Address;
  payer: Address;
  /** Collection mint (V1) or MPL Core collection (V2); null when minted without one. */
  collection: Address | null;
  /** MintV2 only: asset data and its schema. */
  assetData: Uint8Array | null;
  assetDataSchema: 'Binary' | 'Json' | 'MsgPack' | null;
}

/** transfer / transferV2. */
export interface CnftTransferEvent extends CnftLeafBase {
  kind: 'cnft.transfer';
  owner: Address;
  newOwner: Address;
}

/** burn / burnV2: the leaf is replaced by the empty leaf; no leaf event. */
export interface CnftBurnEvent extends CnftLeafBase {
  kind: 'cnft.burn';
  owner: Address;
}

/** delegate, delegateV2, delegateAndFreezeV2 (`frozen` true), thawAndRevokeV2 (`frozen` false, delegate = owner). */
export interface CnftDelegateEvent extends CnftLeafBase {
  kind: 'cnft.delegate';
  owner: Address;
  previousDelegate: Address | null;
  newDelegate: Address;
  frozen: boolean | null;
}

/** freezeV2 (`frozen` true) / thawV2 (`frozen` false). Which flag bit changed is in `leaf.flags`. */
export interface CnftFreezeEvent extends CnftLeafBase {
  kind: 'cnft.freeze';
  owner: Address;
  frozen: boolean;
  authority: Address;
}

/** setNonTransferableV2: the leaf becomes non-transferable (flags bit 2). */
export interface CnftSetNonTransferableEvent extends CnftLeafBase {
  kind: 'cnft.setNonTransferable';
  owner: Address;
  authority: Address;
}

/** redeem: the leaf is removed and a voucher account created; no leaf event. */
export interface CnftRedeemEvent extends CnftLeafBase {
  kind: 'cnft.redeem';
  owner: Address;
  voucher: Address;
}

/** cancelRedeem: the voucher's leaf is put back. */
export interface CnftCancelRedeemEvent extends CnftLeafBase {
  kind: 'cnft.cancelRedeem';
  owner: Address;
  voucher: Address;
  /** Root argument (base58). */
  root: string;
}

/** decompressV1: the redeemed leaf becomes a Token Metadata NFT whose mint is the asset id. */
export interface CnftDecompressEvent extends CnftBase {
  kind: 'cnft.decompress';
  assetId: Address;
  mint: Address;
  owner: Address;
  voucher: Address;
  metadata: CnftMetadata;
}

/** verifyCreator(V2) / unverifyCreator(V2). `metadata` is the argument: the metadata before the change. */
export interface CnftCreatorVerificationEvent extends CnftLeafBase {
  kind: 'cnft.creatorVerification';
  creator: Address;
  verified: boolean;
  metadata: CnftMetadata;
}

/**
 * verifyCollection / unverifyCollection / setAndVerifyCollection / setCollectionV2. `collection` is the collection
 * after the instruction (`null` when setCollectionV2 removed it); `metadata` is the argument (before the change).
 */
export interface CnftCollectionVerificationEvent extends CnftLeafBase {
  kind: 'cnft.collectionVerification';
  collection: Address | null;
  verified: boolean;
  metadata: CnftMetadata;
}

/** updateMetadata / updateMetadataV2. */
export interface CnftUpdateMetadataEvent extends CnftLeafBase {
  kind: 'cnft.updateMetadata';
  authority: Address;
  currentMetadata: CnftMetadata;
  update: CnftMetadataUpdate;
  /** `currentMetadata` with `update` applied. */
  metadata: CnftMetadata;
}

/** updateAssetDataV2. */
export interface CnftUpdateAssetDataEvent extends CnftLeafBase {
  kind: 'cnft.updateAssetData';
  assetData: Uint8Array | null;
  assetDataSchema: 'Binary' | 'Json' | 'MsgPack' | null;
}

/** Tree configuration instructions: setDecompressibleState, setTreeDelegate, collectV2, closeTreeV2. */
export interface CnftTreeAdminEvent extends CnftBase {
  kind: 'cnft.treeAdmin';
  treeConfig: Address;
  /** setDecompressibleState only. */
  decompressible: boolean | null;
  /** setTreeDelegate only. */
  newTreeDelegate: Address | null;
}

/** Everything `parseBubblegumTransaction` returns. */
export type CnftEvent =
  | CnftCreateTreeEvent
  | CnftMintEvent
  | CnftTransferEvent
  | CnftBurnEvent
  | CnftDelegateEvent
  | CnftFreezeEvent
  | CnftSetNonTransferableEvent
  | CnftRedeemEvent
  | CnftCancelRedeemEvent
  | CnftDecompressEvent
  | CnftCreatorVerificationEvent
  | CnftCollectionVerificationEvent
  | CnftUpdateMetadataEvent
  | CnftUpdateAssetDataEvent
  | CnftTreeAdminEvent
  | ParseFailedEvent;

/** The leaf-changing events (those with `leafIndex`, `assetId`, `leaf`, `seq`). */
export type CnftLeafEvent = Extract<CnftEvent, { leafIndex: number | null }>;
