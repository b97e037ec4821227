/**
 * MPL Core (CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d) instructions the classifier names, at any depth. Pure.
 *
 * Instructions are a 1-byte enum index (the public mpl-core IDL / generated clients: 0 CreateV1, 1
 * CreateCollectionV1, 12 BurnV1, 14 TransferV1, 15 UpdateV1, 20 CreateV2, 21 CreateCollectionV2, 30 UpdateV2).
 * Accounts: the asset first; an omitted optional account is passed as the program id itself.
 *  - NFT_MINT: CreateV1/CreateV2 (`mint` is the asset; the owner is the `owner` account, else the payer);
 *  - CREATE_COLLECTION: CreateCollectionV1/V2;
 *  - TRANSFER: TransferV1 (to `newOwner`);
 *  - BURN_NFT: BurnV1;
 *  - UPDATE: UpdateV1/UpdateV2.
 * Not named: plugin and external-plugin instructions, collection burn/update, compress/decompress, execute,
 * groups. A Core asset has no token standard: `nfts[].tokenStandard` is `UnknownStandard` unless the context says.
 */
import type { TracedInstruction } from '../parsers/events.js';
import { MPL_CORE_PROGRAM } from './programs.js';
import type { NftOperation } from './token-metadata.js';

export function mplCoreOperations(ixs: readonly TracedInstruction[]): NftOperation[] {
  const out: NftOperation[] = [];
  for (const ix of ixs) {
    if (ix.programId !== MPL_CORE_PROGRAM || ix.data.length === 0) continue;
    const acc = (i: number) => {
      const a = ix.accounts[i];
      return a === undefined || a === MPL_CORE_PROGRAM ? null : a;
    };
    const asset = acc(0);
    if (!asset) continue;
    const base = { mint: asset, tokenStandard: null, newOwner: null, owner: null } as const;
    switch (ix.data[0]) {
      case 0:
      case 20:
        // createV1/V2 accounts: asset, collection, authority, payer, owner, updateAuthority, systemProgram, logWrapper.
        out.push({ ...base, type: 'NFT_MINT', instructionName: ix.data[0] === 0 ? 'createV1' : 'createV2', newOwner: acc(4) ?? acc(3) });
        break;
      case 1:
      case 21:
        out.push({ ...base, type: 'CREATE_COLLECTION', instructionName: ix.data[0] === 1 ? 'createCollectionV1' : 'createCollectionV2' });
        break;
      case 14:
        // transferV1 accounts: asset, collection, payer, authority, newOwner, systemProgram, logWrapper.
        out.push({ ...base, type: 'TRANSFER', instructionName: 'transferV1', owner: acc(3) ?? acc(2), newOwner: acc(4) });
        break;
      case 12:
        // burnV1 accounts: asset, collection, payer, authority, systemProgram, logWrapper.
        out.push({ ...base, type: 'BURN_NFT', instructionName: 'burnV1', owner: acc(3) ?? acc(2) });
        break;
      case 15:
      case 30:
        out.push({ ...base, type: 'UPDATE', instructionName: ix.data[0] === 15 ? 'updateV1' : 'updateV2', owner: acc(3) ?? acc(2) });
        break;
      default:
        break;
    }
  }
  return out;
}
