/**
 * The AssetAccount union: what the pure DAS account decoders (`asset-accounts.ts`) return for accounts owned by
 * Token Metadata, MPL Core and Libreplex Inscriptions. The store turns these into asset rows; the API renders
 * Core plugin JSON straight from here.
 *
 * Representation rules (one rule per kind of value, everywhere in this file):
 * - u64 / i64 on-chain values (supply, edition numbers, order, seq, uses, collection size) are `bigint`;
 *   u8 / u16 / u32 values are `number`.
 * - Addresses are base58 strings; raw bytes are base64 strings.
 * - `CoreJson` blobs (Core plugins) are already in the DAS wire shape and plain JSON (no bigint): their numbers
 *   are u8–u32 values or account offsets, all far below 2^53; a u64 that does not fit would be a decimal string.
 * - On-chain text is rendered as DAS does (`dasText`: Rust trim, then NULs removed).
 */

/** A JSON value (what `JSON.stringify` round-trips unchanged). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Token Metadata `TokenStandard`, by its Rust/DAS name. */
export type TokenStandardName =
  | 'NonFungible'
  | 'FungibleAsset'
  | 'Fungible'
  | 'NonFungibleEdition'
  | 'ProgrammableNonFungible'
  | 'ProgrammableNonFungibleEdition';

/** A Token Metadata creator entry (DAS `creators[]`). */
export interface TmCreator {
  address: string;
  verified: boolean;
  /** Percentage share, 0–100. */
  share: number;
}

/** Token Metadata `Metadata` (key 4). https://github.com/metaplex-foundation/mpl-token-metadata/blob/main/programs/token-metadata/program/src/state/metadata.rs */
export interface TmMetadataAccount {
  kind: 'tm.metadata';
  address: string;
  updateAuthority: string;
  mint: string;
  /** DAS-rendered (`dasText`): `content.metadata.name`. */
  name: string;
  symbol: string;
  /** DAS-rendered: `content.json_uri`. */
  uri: string;
  /** The on-chain name/symbol bytes as stored (NUL padding included), base64 — DAS keeps them for name search. */
  rawName: string;
  rawSymbol: string;
  sellerFeeBasisPoints: number;
  /** `null` when the account has no creators list (Option::None); `[]` is an empty list. */
  creators: TmCreator[] | null;
  primarySaleHappened: boolean;
  isMutable: boolean;
  editionNonce: number | null;
  tokenStandard: TokenStandardName | null;
  collection: { key: string; verified: boolean } | null;
  uses: { useMethod: 'Burn' | 'Multiple' | 'Single'; remaining: bigint; total: bigint } | null;
  collectionDetails: { version: 'V1'; size: bigint } | { version: 'V2' } | null;
  programmableConfig: { version: 'V1'; ruleSet: string | null } | null;
}

/** `MasterEditionV2` (key 6) or the deprecated `MasterEditionV1` (key 2). */
export interface TmMasterEditionAccount {
  kind: 'tm.masterEdition';
  address: string;
  version: 1 | 2;
  /** Prints made so far (DAS `supply.print_current_supply`). */
  supply: bigint;
  /** `null` = unlimited (DAS `supply.print_max_supply`). */
  maxSupply: bigint | null;
}

/** A print `Edition` (key 1). */
export interface TmEditionAccount {
  kind: 'tm.edition';
  address: string;
  /** The master edition account this print was made from. */
  parent: string;
  edition: bigint;
}

/** pNFT `TokenRecord` (key 11). */
export interface TmTokenRecordAccount {
  kind: 'tm.tokenRecord';
  address: string;
  bump: number;
  state: 'Unlocked' | 'Locked' | 'Listed';
  ruleSetRevision: bigint | null;
  delegate: string | null;
  delegateRole: 'Sale' | 'Transfer' | 'Utility' | 'Staking' | 'Standard' | 'LockedTransfer' | 'Migration' | null;
  lockedTransfer: string | null;
}

/** An empty account still owned by Token Metadata: DAS treats it as a burn (`EmptyAccount` → `burn_v1_asset`). */
export interface TmClosedAccount {
  kind: 'tm.closed';
  address: string;
}

/** A plugin authority as DAS renders it: `{type, address}` (address null unless type is `Address`). */
export interface CoreAuthority {
  type: 'None' | 'Owner' | 'UpdateAuthority' | 'Address';
  address: string | null;
}

/** Core-derived fields the store needs without re-reading the plugin JSON (as DAS derives them). */
export interface CoreDerived {
  /** From the `Royalties` plugin; null without it (DAS then uses 0 bps and no creators). */
  royalty: { basisPoints: number; creators: { address: string; percentage: number }[] } | null;
  /** `FreezeDelegate.frozen` (DAS ignores the permanent variants here). */
  frozen: boolean;
  /** Authority of the `TransferDelegate` plugin (DAS `ownership.delegate`), resolved by the store. */
  transferDelegate: CoreAuthority | null;
}

/**
 * Core plugin data in the DAS wire shape: `plugins` keyed by snake_case plugin name, each
 * `{index, offset, authority, data}`; `external_plugins` items `{index, offset, authority, type, adapter_config,
 * lifecycle_checks?, data_offset?, data_len?, data?}`; unknown ones as DAS renders them (`null` when none).
 */
export interface CorePlugins {
  plugins: { [name: string]: Json };
  unknownPlugins: Json[] | null;
  externalPlugins: Json[];
  unknownExternalPlugins: Json[] | null;
}

/** MPL Core `AssetV1`. https://github.com/metaplex-foundation/mpl-core/blob/main/programs/mpl-core/src/state/asset.rs */
export interface CoreAssetAccount extends CorePlugins, CoreDerived {
  kind: 'core.asset';
  address: string;
  owner: string;
  /** `Address` (an authority), `Collection` (the collection address) or `None` (immutable). */
  updateAuthority: { type: 'Address' | 'Collection' | 'None'; address: string | null };
  name: string;
  uri: string;
  /** Set only for assets decompressed from / compressible to a tree. */
  seq: bigint | null;
}

/** An empty or `Key::Uninitialized` Core account: DAS treats it as burnt (`EmptyAccount` → `burn_v1_asset`). */
export interface CoreClosedAccount {
  kind: 'core.closed';
  address: string;
}

/** MPL Core `CollectionV1`. https://github.com/metaplex-foundation/mpl-core/blob/main/programs/mpl-core/src/state/collection.rs */
export interface CoreCollectionAccount extends CorePlugins, CoreDerived {
  kind: 'core.collection';
  address: string;
  updateAuthority: string;
  name: string;
  uri: string;
  numMinted: number;
  currentSize: number;
}

/**
 * A Libreplex inscription (v1 `Inscription` or `InscriptionV3`), decoded; `api/das/inscription.ts` renders it.
 * https://github.com/LibrePlex/libreplex-program-library/blob/main/programs/libreplex_inscriptions/src/state/inscription.rs
 */
export interface InscriptionAccount {
  kind: 'inscription';
  address: string;
  version: 1 | 3;
  authority: string;
  /** The inscribed mint (`root`). */
  root: string;
  inscriptionData: string;
  order: bigint;
  size: number;
  /** MIME type (`MediaType::convert_to_string`, e.g. `image/png`; `""` for None). */
  contentType: string;
  /** `base64` or `""`. */
  encoding: string;
  validationHash: string | null;
}

/** The raw content of an inscription data account (no header), base64. */
export interface InscriptionDataAccount {
  kind: 'inscription.data';
  address: string;
  data: string;
}

/** Account of a known asset program whose data could not be decoded. */
export interface AssetParseFailed {
  kind: 'parse.failed';
  address: string;
  owner: string;
  reason: string;
}

export type AssetAccount =
  | TmMetadataAccount
  | TmMasterEditionAccount
  | TmEditionAccount
  | TmTokenRecordAccount
  | TmClosedAccount
  | CoreAssetAccount
  | CoreCollectionAccount
  | CoreClosedAccount
  | InscriptionAccount
  | InscriptionDataAccount
  | AssetParseFailed;
