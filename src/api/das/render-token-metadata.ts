/**
 * Token Metadata assets (NFTs, pNFTs, prints, fungibles with metadata) as DAS Asset objects, composed from the
 * metadata account, its edition account, the mint and the holding token account.
 */
import type { StoredAssetAccount, StoredTmMetadata } from '../../store/asset-accounts.js';
import type { Holder, MintInfo } from '../../store/token-reads.js';
import { content, royalty, uncompressed, type AssetJson, type DisplayOptions } from './asset-json.js';


const SINGLE_OWNER = new Set(['NonFungible', 'NonFungibleEdition', 'ProgrammableNonFungible', 'ProgrammableNonFungibleEdition']);

/** Interface by token standard; an old metadata without one is an NFT when its mint is (decimals 0, supply 1). */
function interfaceOf(standard: string | null, mint: MintInfo | undefined, edition: StoredAssetAccount | undefined): string {
  switch (standard) {
    case 'ProgrammableNonFungible':
    case 'ProgrammableNonFungibleEdition':
      return 'ProgrammableNFT';
    case 'NonFungible':
      return 'V1_NFT';
    case 'NonFungibleEdition':
      return 'V1_PRINT';
    case 'Fungible':
      return 'FungibleToken';
    case 'FungibleAsset':
      return 'FungibleAsset';
  }
  if (edition?.kind === 'tm.edition') return 'V1_PRINT';
  if (mint && mint.decimals === 0 && mint.supply === 1n) return 'V1_NFT';
  return 'FungibleToken';
}

export interface TmParts {
  metadata: StoredAssetAccount;
  edition?: StoredAssetAccount;
  mint?: MintInfo;
  holder?: Holder;
}

export function renderTokenMetadata(p: TmParts, opts: DisplayOptions): AssetJson {
  const d = p.metadata.data as unknown as StoredTmMetadata;
  const iface = interfaceOf(d.tokenStandard, p.mint, p.edition);
  const single = d.tokenStandard ? SINGLE_OWNER.has(d.tokenStandard) : iface === 'V1_NFT' || iface === 'V1_PRINT';
  const metadata: Record<string, unknown> = { name: d.name, symbol: d.symbol };
  if (d.tokenStandard) metadata.token_standard = d.tokenStandard;
  const grouping = d.collection && (d.collection.verified || opts.showUnverifiedCollections)
    ? [{ group_key: 'collection', group_value: d.collection.key, ...(d.collection.verified ? {} : { verified: false }) }]
    : [];
  const out: AssetJson = {
    interface: iface,
    id: d.mint,
    content: content(d.uri, metadata),
    authorities: [{ address: d.updateAuthority, scopes: ['full'] }],
    compression: uncompressed(),
    grouping,
    royalty: royalty(d.sellerFeeBasisPoints, d.primarySaleHappened),
    creators: (d.creators ?? []).map((c) => ({ address: c.address, share: c.share, verified: c.verified })),
    ownership: {
      frozen: single ? (p.holder?.frozen ?? false) : false,
      delegated: single ? (p.holder?.delegate ?? null) !== null : false,
      delegate: single ? (p.holder?.delegate ?? null) : null,
      ownership_model: single ? 'single' : 'token',
      owner: single ? (p.holder?.owner ?? '') : '',
    },
  };
  if (single) {
    const e = p.edition?.data as { supply?: string; maxSupply?: string | null } | undefined;
    out.supply = {
      print_max_supply: p.edition?.kind === 'tm.masterEdition' ? Number(e?.maxSupply ?? 0) : 0,
      print_current_supply: p.edition?.kind === 'tm.masterEdition' ? Number(e?.supply ?? 0) : 0,
      edition_nonce: d.editionNonce,
    };
  }
  out.mutable = d.isMutable;
  out.burnt = p.metadata.kind === 'tm.closed';
  return out;
}
