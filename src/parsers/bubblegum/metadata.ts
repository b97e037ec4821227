/**
 * Maps the mpl-bubblegum client's decoded metadata types (`MetadataArgs`, `MetadataArgsV2`, `UpdateArgs`) onto the
 * plain `CnftMetadata` / `CnftMetadataUpdate` shapes of the events: `Option`s become `null`, enums become their
 * names. A V2 collection is always verified (Bubblegum V2 only accepts a collection whose authority signed, see
 * `MetadataArgsV2` → `MetadataArgs` in the DAS reference), and V2 has no edition nonce, uses or token program version.
 * Source: https://github.com/metaplex-foundation/mpl-bubblegum/blob/main/programs/bubblegum/program/src/state/metaplex_adapter.rs
 */
import {
  AssetDataSchema,
  TokenProgramVersion,
  TokenStandard,
  UseMethod,
  type Creator,
  type MetadataArgs,
  type MetadataArgsV2,
  type UpdateArgs,
} from '../../vendor/mpl-bubblegum.js';
import { unwrapOption, type Option } from '../../vendor/umi.js';
import type { CnftCreator, CnftMetadata, CnftMetadataUpdate } from './events.js';

const TOKEN_STANDARDS: Record<number, CnftMetadata['tokenStandard']> = {
  [TokenStandard.NonFungible]: 'NonFungible',
  [TokenStandard.FungibleAsset]: 'FungibleAsset',
  [TokenStandard.Fungible]: 'Fungible',
  [TokenStandard.NonFungibleEdition]: 'NonFungibleEdition',
};
const USE_METHODS: Record<number, 'Burn' | 'Multiple' | 'Single'> = {
  [UseMethod.Burn]: 'Burn',
  [UseMethod.Multiple]: 'Multiple',
  [UseMethod.Single]: 'Single',
};
const SCHEMAS: Record<number, 'Binary' | 'Json' | 'MsgPack'> = {
  [AssetDataSchema.Binary]: 'Binary',
  [AssetDataSchema.Json]: 'Json',
  [AssetDataSchema.MsgPack]: 'MsgPack',
};

function opt<T>(o: Option<T>): T | null {
  return unwrapOption(o);
}

function creators(list: readonly Creator[]): CnftCreator[] {
  return list.map((c) => ({ address: c.address, verified: c.verified, share: c.share }));
}

function tokenStandard(o: Option<TokenStandard>): CnftMetadata['tokenStandard'] {
  const v = opt(o);
  return v === null ? null : (TOKEN_STANDARDS[v] ?? null);
}

/** `MetadataArgs` (V1 instructions) → `CnftMetadata`. */
export function fromMetadataArgs(m: MetadataArgs): CnftMetadata {
  const collection = opt(m.collection);
  const uses = opt(m.uses);
  return {
    name: m.name,
    symbol: m.symbol,
    uri: m.uri,
    sellerFeeBasisPoints: m.sellerFeeBasisPoints,
    primarySaleHappened: m.primarySaleHappened,
    isMutable: m.isMutable,
    editionNonce: opt(m.editionNonce),
    tokenStandard: tokenStandard(m.tokenStandard),
    collection: collection ? { key: collection.key, verified: collection.verified } : null,
    uses: uses ? { useMethod: USE_METHODS[uses.useMethod] ?? 'Single', remaining: uses.remaining, total: uses.total } : null,
    tokenProgramVersion: m.tokenProgramVersion === TokenProgramVersion.Token2022 ? 'Token2022' : 'Original',
    creators: creators(m.creators),
  };
}

/** `MetadataArgsV2` (V2 instructions) → `CnftMetadata`; the collection, when present, is verified. */
export function fromMetadataArgsV2(m: MetadataArgsV2): CnftMetadata {
  const collection = opt(m.collection);
  return {
    name: m.name,
    symbol: m.symbol,
    uri: m.uri,
    sellerFeeBasisPoints: m.sellerFeeBasisPoints,
    primarySaleHappened: m.primarySaleHappened,
    isMutable: m.isMutable,
    editionNonce: null,
    tokenStandard: tokenStandard(m.tokenStandard),
    collection: collection ? { key: collection, verified: true } : null,
    uses: null,
    tokenProgramVersion: null,
    creators: creators(m.creators),
  };
}

/** `UpdateArgs` → `CnftMetadataUpdate` (`null` = unchanged). */
export function fromUpdateArgs(u: UpdateArgs): CnftMetadataUpdate {
  const cs = opt(u.creators);
  return {
    name: opt(u.name),
    symbol: opt(u.symbol),
    uri: opt(u.uri),
    creators: cs ? creators(cs) : null,
    sellerFeeBasisPoints: opt(u.sellerFeeBasisPoints),
    primarySaleHappened: opt(u.primarySaleHappened),
    isMutable: opt(u.isMutable),
  };
}

/**
 * `current` with `update` applied, as Bubblegum's `update_metadata` does: each given field replaces the current
 * one. (The program rejects invalid combinations, e.g. setting `primarySaleHappened` back to false; a recorded
 * successful instruction has none.)
 */
export function applyUpdate(current: CnftMetadata, update: CnftMetadataUpdate): CnftMetadata {
  return {
    ...current,
    name: update.name ?? current.name,
    symbol: update.symbol ?? current.symbol,
    uri: update.uri ?? current.uri,
    creators: update.creators ?? current.creators,
    sellerFeeBasisPoints: update.sellerFeeBasisPoints ?? current.sellerFeeBasisPoints,
    primarySaleHappened: update.primarySaleHappened ?? current.primarySaleHappened,
    isMutable: update.isMutable ?? current.isMutable,
  };
}

/** `Option<AssetDataSchema>` → its name or null. */
export function assetDataSchema(o: Option<AssetDataSchema>): 'Binary' | 'Json' | 'MsgPack' | null {
  const v = opt(o);
  return v === null ? null : (SCHEMAS[v] ?? null);
}

/** `Option<bytes>` → bytes or null. */
export function optBytes(o: Option<Uint8Array>): Uint8Array | null {
  return opt(o);
}
