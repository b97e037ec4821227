/**
 * Pure decoding of Token Metadata accounts (owner `metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s`) with the
 * generated @metaplex-foundation/mpl-token-metadata serializers, dispatched on the `Key` byte (data[0]).
 * Program state: https://github.com/metaplex-foundation/mpl-token-metadata/tree/main/programs/token-metadata/program/src/state
 * DAS behaviour mirrored: blockbuster `programs/token_metadata/mod.rs` (which keys are indexed, empty = burnt) and
 * `program_transformers/src/token_metadata/*.rs` (text sanitising).
 */
import { isSome, type Option } from '../../vendor/umi.js';
import { bool, option, publicKey, string, struct, u16, u8, array } from '../../vendor/umi-serializers.js';
import {
  Key,
  TokenDelegateRole,
  TokenStandard,
  TokenState,
  UseMethod,
  getCollectionDetailsSerializer,
  getCollectionSerializer,
  getCreatorSerializer,
  getDeprecatedMasterEditionV1AccountDataSerializer,
  getEditionAccountDataSerializer,
  getKeySerializer,
  getMasterEditionAccountDataSerializer,
  getMetadataAccountDataSerializer,
  getProgrammableConfigSerializer,
  getTokenRecordAccountDataSerializer,
  getTokenStandardSerializer,
  getUsesSerializer,
  type MetadataAccountData,
} from '../../vendor/mpl-token-metadata.js';
import type {
  AssetParseFailed,
  TmClosedAccount,
  TmEditionAccount,
  TmMasterEditionAccount,
  TmMetadataAccount,
  TmTokenRecordAccount,
  TokenStandardName,
} from '../asset-account-types.js';
import { dasText, rawUtf8 } from './das-text.js';

/** Token Metadata program id. */
export const TOKEN_METADATA_PROGRAM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';

/** What `decodeTokenMetadataAccount` can return. */
export type TmAccount = TmMetadataAccount | TmMasterEditionAccount | TmEditionAccount | TmTokenRecordAccount | TmClosedAccount;

const opt = <T>(o: Option<T>): T | null => (isSome(o) ? o.value : null);
const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

/** Offset of `name` in a Metadata account (key u8 + update authority + mint), as the client's GPA builder states. */
const METADATA_NAME_OFFSET = 65;

/**
 * Decodes a Token Metadata account. Returns null for account kinds DAS does not index (edition markers,
 * delegate/authority records, escrows...), a `parse.failed` result for undecodable data; never throws.
 */
export function decodeTokenMetadataAccount(address: string, data: Uint8Array): TmAccount | AssetParseFailed | null {
  if (data.length === 0) return { kind: 'tm.closed', address };
  const failed = (reason: string): AssetParseFailed => ({ kind: 'parse.failed', address, owner: TOKEN_METADATA_PROGRAM, reason });
  try {
    switch (data[0]) {
      case Key.MetadataV1:
        return decodeMetadata(address, data);
      case Key.MasterEditionV2: {
        const [m] = getMasterEditionAccountDataSerializer().deserialize(data);
        return { kind: 'tm.masterEdition', address, version: 2, supply: m.supply, maxSupply: opt(m.maxSupply) };
      }
      case Key.MasterEditionV1: {
        const [m] = getDeprecatedMasterEditionV1AccountDataSerializer().deserialize(data);
        return { kind: 'tm.masterEdition', address, version: 1, supply: m.supply, maxSupply: opt(m.maxSupply) };
      }
      case Key.EditionV1: {
        const [e] = getEditionAccountDataSerializer().deserialize(data);
        return { kind: 'tm.edition', address, parent: e.parent, edition: e.edition };
      }
      case Key.TokenRecord: {
        const [t] = getTokenRecordAccountDataSerializer().deserialize(data);
        const role = opt(t.delegateRole);
        return {
          kind: 'tm.tokenRecord',
          address,
          bump: t.bump,
          state: enumName(TokenState, t.state) as TmTokenRecordAccount['state'],
          ruleSetRevision: opt(t.ruleSetRevision),
          delegate: opt(t.delegate),
          delegateRole: role === null ? null : (enumName(TokenDelegateRole, role) as TmTokenRecordAccount['delegateRole']),
          lockedTransfer: opt(t.lockedTransfer),
        };
      }
      case Key.Uninitialized:
        return null; // allocated, not yet initialised: nothing to index (DAS skips it too)
      default:
        return data[0] in Key ? null : failed(`unknown key ${data[0]}`);
    }
  } catch (e) {
    return failed(e instanceof Error ? e.message : String(e));
  }
}

function enumName(e: Record<number, string>, v: number): string {
  const n = e[v];
  if (n === undefined) throw new Error(`unknown enum value ${v}`);
  return n;
}

function decodeMetadata(address: string, data: Uint8Array): TmMetadataAccount {
  const m = deserializeMetadataSafe(data);
  const raw = rawTexts(data);
  const ts = opt(m.tokenStandard);
  const uses = opt(m.uses);
  const details = opt(m.collectionDetails);
  const pc = opt(m.programmableConfig);
  const coll = opt(m.collection);
  const creators = opt(m.creators);
  return {
    kind: 'tm.metadata',
    address,
    updateAuthority: m.updateAuthority,
    mint: m.mint,
    name: dasText(raw.name),
    symbol: dasText(raw.symbol),
    uri: dasText(raw.uri),
    rawName: b64(raw.nameBytes),
    rawSymbol: b64(raw.symbolBytes),
    sellerFeeBasisPoints: m.sellerFeeBasisPoints,
    creators: creators === null ? null : creators.map((c) => ({ address: c.address, verified: c.verified, share: c.share })),
    primarySaleHappened: m.primarySaleHappened,
    isMutable: m.isMutable,
    editionNonce: opt(m.editionNonce),
    tokenStandard: ts === null ? null : (enumName(TokenStandard, ts) as TokenStandardName),
    collection: coll === null ? null : { key: coll.key, verified: coll.verified },
    uses:
      uses === null
        ? null
        : { useMethod: enumName(UseMethod, uses.useMethod) as 'Burn' | 'Multiple' | 'Single', remaining: uses.remaining, total: uses.total },
    collectionDetails: details === null ? null : details.__kind === 'V1' ? { version: 'V1', size: details.size } : { version: 'V2' },
    programmableConfig: pc === null ? null : { version: 'V1', ruleSet: opt(pc.ruleSet) },
  };
}

/**
 * `Metadata::safe_deserialize` (mpl-token-metadata Rust client, used by DAS): the full layout first; if that fails
 * (old or corrupted accounts), the required head, then the optional tail fields one by one — token standard,
 * collection and uses all-or-nothing, collection details and programmable config each defaulting to None.
 */
function deserializeMetadataSafe(data: Uint8Array): MetadataAccountData {
  try {
    return getMetadataAccountDataSerializer().deserialize(data)[0];
  } catch {
    // fall through to the lenient path
  }
  const [head, afterHead] = struct([
    ['key', getKeySerializer()],
    ['updateAuthority', publicKey()],
    ['mint', publicKey()],
    ['name', string()],
    ['symbol', string()],
    ['uri', string()],
    ['sellerFeeBasisPoints', u16()],
    ['creators', option(array(getCreatorSerializer()))],
    ['primarySaleHappened', bool()],
    ['isMutable', bool()],
    ['editionNonce', option(u8())],
  ] as const).deserialize(data);
  let offset = afterHead;
  const none = { __option: 'None' } as const;
  const next = <T>(s: { deserialize: (b: Uint8Array, o: number) => [Option<T>, number] }): Option<T> | null => {
    try {
      const [v, o] = s.deserialize(data, offset);
      offset = o;
      return v;
    } catch {
      return null;
    }
  };
  const tokenStandard = next(option(getTokenStandardSerializer()));
  const collection = next(option(getCollectionSerializer()));
  const uses = next(option(getUsesSerializer()));
  const tailOk = tokenStandard !== null && collection !== null && uses !== null;
  const collectionDetails = next(option(getCollectionDetailsSerializer())) ?? none;
  const programmableConfig = next(option(getProgrammableConfigSerializer())) ?? none;
  return {
    ...head,
    key: Key.MetadataV1,
    tokenStandard: tailOk ? tokenStandard : none,
    collection: tailOk ? collection : none,
    uses: tailOk ? uses : none,
    collectionDetails,
    programmableConfig,
  } as MetadataAccountData;
}

/** The name/symbol/uri byte ranges as stored (umi's `string()` drops NULs, which DAS strips only after trimming). */
function rawTexts(data: Uint8Array): { name: string; symbol: string; uri: string; nameBytes: Uint8Array; symbolBytes: Uint8Array } {
  const s = string();
  const out: Uint8Array[] = [];
  let offset = METADATA_NAME_OFFSET;
  for (let i = 0; i < 3; i++) {
    const [, end] = s.deserialize(data, offset);
    out.push(data.subarray(offset + 4, end));
    offset = end;
  }
  const [nameBytes, symbolBytes, uriBytes] = out as [Uint8Array, Uint8Array, Uint8Array];
  return { name: rawUtf8(nameBytes), symbol: rawUtf8(symbolBytes), uri: rawUtf8(uriBytes), nameBytes, symbolBytes };
}
