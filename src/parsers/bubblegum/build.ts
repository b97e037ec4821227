/**
 * Builds the `CnftEvent` of one Bubblegum instruction from its decoded data, named accounts, and the change log /
 * leaf event its CPIs logged. Which accounts and arguments matter per instruction follows the DAS reference's
 * Bubblegum parser and program transformers:
 * https://github.com/metaplex-foundation/digital-asset-rpc-infrastructure/blob/main/blockbuster/src/programs/bubblegum/mod.rs
 * https://github.com/metaplex-foundation/digital-asset-rpc-infrastructure/tree/main/program_transformers/src/bubblegum
 * Throws on missing accounts or undecodable data; the caller turns that into `parse.failed`.
 */
import {
  DecompressibleState,
  type CreateTreeConfigInstructionData,
  type DecompressV1InstructionData,
  type MetadataArgs,
  type MetadataArgsV2,
  type MintV2InstructionData,
  type SetAndVerifyCollectionInstructionData,
  type SetDecompressibleStateInstructionData,
  type UpdateArgs,
  type UpdateAssetDataV2InstructionData,
} from '../../vendor/mpl-bubblegum.js';
import { unwrapOption, type Option } from '../../vendor/umi.js';
import { bytesToBase58 } from '../../core/encoding.js';
import type { Address } from '../../core/model.js';
import { COMPRESSION_PROGRAM_BY_NOOP } from '../account-compression/events.js';
import type { TracedInstruction } from '../events.js';
import type { ChangeLog, CnftEvent, CnftLeaf, CnftMetadata } from './events.js';
import { BUBBLEGUM_PROGRAM, type BubblegumIxSpec } from './instructions.js';
import { cnftAssetId } from './leaf.js';
import { applyUpdate, assetDataSchema, fromMetadataArgs, fromMetadataArgsV2, fromUpdateArgs, optBytes } from './metadata.js';

/** One Bubblegum instruction with what its CPIs logged. */
export interface BubblegumContext {
  ix: TracedInstruction;
  spec: BubblegumIxSpec;
  changeLog: ChangeLog | null;
  leaf: CnftLeaf | null;
}

/** Fields every leaf-changing instruction's data has (V1 and V2): `nonce` (asset id seed) and `index` (leaf). */
interface LeafArgs {
  nonce?: bigint;
  index?: number;
  root?: Uint8Array;
  metadata?: MetadataArgs | MetadataArgsV2;
  currentMetadata?: MetadataArgs | MetadataArgsV2;
  updateArgs?: UpdateArgs;
}

/**
 * Instruction accounts by name. Bubblegum clients pass the program id for an omitted optional account, so those are
 * left out; proof accounts after the named ones are ignored. The first Bubblegum V2 release had no
 * `leafDelegate` in burnV2 (recorded devnet transactions have 11 accounts, the tree at index 4 and the noop program
 * at index 7), so that layout is recognised too.
 */
export function namedAccounts(spec: BubblegumIxSpec, accounts: readonly Address[]): Record<string, Address> {
  const out: Record<string, Address> = {};
  let names = spec.accounts;
  if (spec.name === 'burnV2' && COMPRESSION_PROGRAM_BY_NOOP.has(accounts[7] ?? '')) {
    names = names.filter((n) => n !== 'leafDelegate');
  }
  names.forEach((name, i) => {
    const a = accounts[i];
    if (a !== undefined && a !== BUBBLEGUM_PROGRAM) out[name] = a;
  });
  return out;
}

/** Builds the event; throws when a needed account is missing or the data does not decode. */
export function buildEvent(ctx: BubblegumContext): CnftEvent {
  const { ix, spec, changeLog, leaf } = ctx;
  const accounts = namedAccounts(spec, ix.accounts);
  const v2 = spec.name.endsWith('V2');
  const acc = (name: string): Address | null => accounts[name] ?? null;
  const req = (name: string): Address => {
    const a = accounts[name];
    if (a === undefined) throw new Error(`${spec.name}: missing account ${name} (${ix.accounts.length} accounts)`);
    return a;
  };
  // Optional signers of V2 instructions default to the payer; an omitted leaf owner is the signing authority.
  const signer = (name: string): Address => acc(name) ?? req('payer');
  const owner = (): Address => acc('leafOwner') ?? (v2 ? signer('authority') : req('leafOwner'));
  const data = spec.decode(ix.data);
  const base = { path: ix.path, instruction: spec.das, accounts, changeLog };

  if (spec.kind === 'createTree') {
    const d = data as CreateTreeConfigInstructionData;
    return {
      ...base,
      kind: 'cnft.createTree',
      tree: req('merkleTree'),
      treeConfig: req('treeConfig'),
      treeCreator: v2 ? signer('treeCreator') : req('treeCreator'),
      payer: req('payer'),
      maxDepth: d.maxDepth,
      maxBufferSize: d.maxBufferSize,
      public: unwrapOption(d.public),
      version: v2 ? 2 : 1,
    };
  }
  if (spec.kind === 'treeAdmin') {
    const decompressible =
      spec.name === 'setDecompressibleState'
        ? (data as SetDecompressibleStateInstructionData).decompressableState === DecompressibleState.Enabled
        : null;
    return {
      ...base,
      kind: 'cnft.treeAdmin',
      tree: acc('merkleTree'),
      treeConfig: req('treeConfig'),
      decompressible,
      newTreeDelegate: acc('newTreeDelegate'),
    };
  }
  if (spec.kind === 'decompress') {
    const d = data as DecompressV1InstructionData;
    const mint = req('mint');
    return {
      ...base,
      kind: 'cnft.decompress',
      tree: null,
      assetId: mint,
      mint,
      owner: req('leafOwner'),
      voucher: req('voucher'),
      metadata: fromMetadataArgs(d.metadata),
    };
  }

  // Everything else changes one leaf of `merkleTree`.
  const args = data as LeafArgs;
  // The change log names the tree the compression program actually changed.
  const tree = changeLog?.tree ?? req('merkleTree');
  const leafIndex =
    leaf !== null ? Number(leaf.nonce) : changeLog !== null ? changeLog.leafIndex : (args.index ?? null);
  const assetId =
    leaf?.assetId ??
    (changeLog !== null ? cnftAssetId(tree, changeLog.leafIndex) : args.nonce !== undefined ? cnftAssetId(tree, args.nonce) : null);
  const leafBase = { ...base, tree, leafIndex, assetId, leaf, seq: changeLog?.seq ?? null };
  const metadataArg = (m: MetadataArgs | MetadataArgsV2 | undefined): CnftMetadata => {
    if (!m) throw new Error(`${spec.name}: no metadata argument`);
    return v2 ? fromMetadataArgsV2(m as MetadataArgsV2) : fromMetadataArgs(m as MetadataArgs);
  };

  switch (spec.kind) {
    case 'mint': {
      let metadata: CnftMetadata;
      let collection: Address | null;
      let assetData: Uint8Array | null = null;
      let schema: ReturnType<typeof assetDataSchema> = null;
      if (spec.name === 'mintV2') {
        const d = data as MintV2InstructionData;
        metadata = fromMetadataArgsV2(d.metadata);
        collection = acc('coreCollection') ?? metadata.collection?.key ?? null;
        assetData = optBytes(d.assetData);
        schema = assetDataSchema(d.assetDataSchema);
      } else {
        metadata = metadataArg(args.metadata);
        if (spec.name === 'mintToCollectionV1' && metadata.collection) {
          metadata = { ...metadata, collection: { ...metadata.collection, verified: true } };
        }
        collection = acc('collectionMint') ?? metadata.collection?.key ?? null;
      }
      return {
        ...leafBase,
        kind: 'cnft.mint',
        metadata,
        metadataVersion: v2 ? 2 : 1,
        authority: v2 ? signer('treeCreatorOrDelegate') : req('treeCreatorOrDelegate'),
        payer: req('payer'),
        collection,
        assetData,
        assetDataSchema: schema,
      };
    }
    case 'transfer':
      return { ...leafBase, kind: 'cnft.transfer', owner: owner(), newOwner: req('newLeafOwner') };
    case 'burn':
      return { ...leafBase, kind: 'cnft.burn', owner: owner() };
    case 'delegate': {
      const leafOwner = owner();
      const revoke = spec.name === 'thawAndRevokeV2';
      return {
        ...leafBase,
        kind: 'cnft.delegate',
        owner: leafOwner,
        previousDelegate: revoke ? acc('leafDelegate') : acc('previousLeafDelegate'),
        newDelegate: revoke ? leafOwner : (acc('newLeafDelegate') ?? leafOwner),
        frozen: spec.name === 'delegateAndFreezeV2' ? true : revoke ? false : null,
      };
    }
    case 'freeze':
      return {
        ...leafBase,
        kind: 'cnft.freeze',
        owner: owner(),
        frozen: spec.name === 'freezeV2',
        authority: signer('authority'),
      };
    case 'setNonTransferable':
      return { ...leafBase, kind: 'cnft.setNonTransferable', owner: owner(), authority: signer('authority') };
    case 'redeem':
      return { ...leafBase, kind: 'cnft.redeem', owner: req('leafOwner'), voucher: req('voucher') };
    case 'cancelRedeem':
      if (!args.root) throw new Error('cancelRedeem: no root argument');
      return {
        ...leafBase,
        kind: 'cnft.cancelRedeem',
        owner: req('leafOwner'),
        voucher: req('voucher'),
        root: bytesToBase58(args.root),
      };
    case 'creatorVerification':
      return {
        ...leafBase,
        kind: 'cnft.creatorVerification',
        // V2: the creator account is optional and defaults to the payer (the signer).
        creator: v2 ? signer('creator') : req('creator'),
        verified: spec.name.startsWith('verify'),
        metadata: metadataArg(args.metadata),
      };
    case 'collectionVerification': {
      let collection: Address | null;
      if (spec.name === 'setCollectionV2') collection = acc('newCoreCollection');
      else if (spec.name === 'setAndVerifyCollection') collection = (data as SetAndVerifyCollectionInstructionData).collection;
      else collection = req('collectionMint');
      return {
        ...leafBase,
        kind: 'cnft.collectionVerification',
        collection,
        verified: spec.name !== 'unverifyCollection' && collection !== null,
        metadata: metadataArg(args.metadata),
      };
    }
    case 'updateMetadata': {
      const currentMetadata = metadataArg(args.currentMetadata);
      if (!args.updateArgs) throw new Error(`${spec.name}: no update arguments`);
      const update = fromUpdateArgs(args.updateArgs);
      return {
        ...leafBase,
        kind: 'cnft.updateMetadata',
        authority: v2 ? signer('authority') : req('authority'),
        currentMetadata,
        update,
        metadata: applyUpdate(currentMetadata, update),
      };
    }
    case 'updateAssetData': {
      const d = data as UpdateAssetDataV2InstructionData;
      return {
        ...leafBase,
        kind: 'cnft.updateAssetData',
        assetData: optBytes(d.newAssetData as Option<Uint8Array>),
        assetDataSchema: assetDataSchema(d.newAssetDataSchema),
      };
    }
    default:
      throw new Error(`${spec.name}: unhandled kind ${spec.kind}`);
  }
}
