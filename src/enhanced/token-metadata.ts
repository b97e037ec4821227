/**
 * Token Metadata (metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s) instructions the classifier names, at any depth.
 * Pure.
 *
 * Instructions are a 1-byte enum index (the program's `MetadataInstruction`; values as in the public
 * mpl-token-metadata IDL and its generated clients, e.g. 11 MintNewEditionFromMasterEditionViaToken, 33
 * CreateMetadataAccountV3, 49 Transfer). Account positions are those of the IDL.
 *  - NFT_MINT: a printed edition (11, 13, 55 Print) — always an NFT; a metadata account created (0, 16, 33, 42
 *    Create) or tokens minted by Mint (43) together with a master edition (17 CreateMasterEditionV3, 10) or a
 *    Create whose token standard is non-fungible, or whose mint the context names non-fungible. A fungible token
 *    given metadata (e.g. a launchpad's CreateMetadataAccountV3) is not an NFT_MINT;
 *  - BURN_NFT: 29 BurnNft, 37 BurnEditionNft, 41 Burn;
 *  - TRANSFER: 49 Transfer (the programmable-NFT transfer);
 *  - UPDATE: 1 UpdateMetadataAccount, 15 UpdateMetadataAccountV2, 50 Update.
 * Not named (the transaction stays UNKNOWN unless something else applies): verify/unverify collection or creator,
 * delegate/revoke, lock/unlock, utilize, set collection size (36 is how Bubblegum updates a collection), escrow,
 * migrate, resize, close.
 */
import type { Address } from '../core/model.js';
import type { TracedInstruction } from '../parsers/events.js';
import { TOKEN_METADATA_PROGRAM } from './programs.js';
import type { TokenStandard, TransactionType } from './types.js';

export interface NftOperation {
  type: TransactionType;
  mint: Address;
  /** Token standard the instruction itself implies; null when it does not say. */
  tokenStandard: TokenStandard | null;
  instructionName: string;
  /** Destination owner of a transfer (Token Metadata Transfer, MPL Core TransferV1), when the instruction names it. */
  newOwner: Address | null;
  /** Owner or authority named by the instruction (burner, sender, minter); null when it does not name one. */
  owner: Address | null;
  /** True when a create/mint still needs proof that the asset is non-fungible. */
  needsNftProof?: boolean;
  /** A master edition was created for `mint` (proof that it is an NFT). */
  masterEdition?: boolean;
}

const at = (ix: TracedInstruction, i: number): Address | null => {
  const a = ix.accounts[i];
  return a === undefined || a === TOKEN_METADATA_PROGRAM ? null : a;
};

/** Token standard byte of a Create (42) instruction's `AssetData`, or null when the data cannot be read. */
function createV1Standard(data: Uint8Array): TokenStandard | null {
  // [42, createV1Discriminator 0] name: string, symbol: string, uri: string, sellerFeeBasisPoints: u16,
  // creators: Option<Vec<Creator{address 32, verified u8, share u8}>>, primarySaleHappened: bool, isMutable: bool,
  // tokenStandard: u8, ...
  let o = 2;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  try {
    for (let s = 0; s < 3; s++) o += 4 + view.getUint32(o, true);
    o += 2;
    if (data[o++] === 1) o += 4 + view.getUint32(o, true) * 34;
    o += 2;
    if (o >= data.length) return null;
  } catch {
    return null;
  }
  return (['NonFungible', 'FungibleAsset', 'Fungible', 'NonFungibleEdition', 'ProgrammableNonFungible', 'ProgrammableNonFungible'] as const)[data[o]] ?? null;
}

export function tokenMetadataOperations(ixs: readonly TracedInstruction[]): NftOperation[] {
  const out: NftOperation[] = [];
  const op = (type: TransactionType, ix: TracedInstruction, mintAt: number, instructionName: string, extra: Partial<NftOperation> = {}) => {
    const mint = at(ix, mintAt);
    if (mint) out.push({ type, mint, tokenStandard: null, instructionName, newOwner: null, owner: null, ...extra });
  };
  for (const ix of ixs) {
    if (ix.programId !== TOKEN_METADATA_PROGRAM || ix.data.length === 0) continue;
    switch (ix.data[0]) {
      case 11:
        op('NFT_MINT', ix, 3, 'mintNewEditionFromMasterEditionViaToken', { tokenStandard: 'NonFungibleEdition', owner: at(ix, 7) });
        break;
      case 13:
        op('NFT_MINT', ix, 3, 'mintNewEditionFromMasterEditionViaVaultProxy', { tokenStandard: 'NonFungibleEdition' });
        break;
      case 55:
        op('NFT_MINT', ix, 2, 'print', { tokenStandard: 'NonFungibleEdition', owner: at(ix, 3) });
        break;
      case 0:
        op('NFT_MINT', ix, 1, 'createMetadataAccount', { needsNftProof: true });
        break;
      case 16:
        op('NFT_MINT', ix, 1, 'createMetadataAccountV2', { needsNftProof: true });
        break;
      case 33:
        op('NFT_MINT', ix, 1, 'createMetadataAccountV3', { needsNftProof: true });
        break;
      case 42: {
        const standard = createV1Standard(ix.data);
        const nft = standard === 'NonFungible' || standard === 'ProgrammableNonFungible';
        op('NFT_MINT', ix, 2, 'create', { tokenStandard: standard, needsNftProof: !nft });
        break;
      }
      case 43:
        op('NFT_MINT', ix, 5, 'mint', { owner: at(ix, 1), needsNftProof: true });
        break;
      case 10:
      case 17: {
        const mint = at(ix, 1);
        if (mint) out.push({ type: 'NFT_MINT', mint, tokenStandard: 'NonFungible', instructionName: 'createMasterEdition', newOwner: null, owner: null, needsNftProof: true, masterEdition: true });
        break;
      }
      case 29:
        op('BURN_NFT', ix, 2, 'burnNft', { owner: at(ix, 1) });
        break;
      case 37:
        op('BURN_NFT', ix, 2, 'burnEditionNft', { tokenStandard: 'NonFungibleEdition', owner: at(ix, 1) });
        break;
      case 41:
        op('BURN_NFT', ix, 4, 'burn', { owner: at(ix, 0) });
        break;
      case 49:
        op('TRANSFER', ix, 4, 'transfer', { owner: at(ix, 1), newOwner: at(ix, 3) });
        break;
      case 1:
      case 15: {
        // Update(V2) names the metadata account, not the mint.
        const metadata = at(ix, 0);
        if (metadata) out.push({ type: 'UPDATE', mint: metadata, tokenStandard: null, instructionName: ix.data[0] === 1 ? 'updateMetadataAccount' : 'updateMetadataAccountV2', newOwner: null, owner: at(ix, 1) });
        break;
      }
      case 50:
        op('UPDATE', ix, 3, 'update', { owner: at(ix, 0) });
        break;
      default:
        break;
    }
  }
  return out;
}
