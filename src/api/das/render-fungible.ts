/**
 * Mint-level parts of DAS assets: `token_info` (showFungible), `mint_extensions` (Token-2022), and Token-2022
 * mints without a Token Metadata account, rendered from their token-metadata extension.
 */
import type { ExtensionRow, MintInfo } from '../../store/token-reads.js';
import { content, royalty, uncompressed, type AssetJson } from './asset-json.js';
import { renderExtensions } from './mint-extensions.js';

export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

/** `token_info` of a mint; absent authorities are left out, as the reference does. */
export function tokenInfo(mint: MintInfo): AssetJson {
  const out: AssetJson = { supply: Number(mint.supply ?? 0n), decimals: mint.decimals ?? 0, token_program: mint.program };
  if (mint.mintAuthority) out.mint_authority = mint.mintAuthority;
  if (mint.freezeAuthority) out.freeze_authority = mint.freezeAuthority;
  return out;
}

/** Adds `mint_extensions` (when the mint has any) and `token_info` (when asked) to a rendered asset. */
export function withMintParts(asset: AssetJson, mint: MintInfo | undefined, extensions: ExtensionRow[] | undefined, showFungible: boolean): AssetJson {
  const ext = renderExtensions(extensions);
  if (ext) asset.mint_extensions = ext;
  if (showFungible && mint) asset.token_info = tokenInfo(mint);
  return asset;
}

/** Whether a mint without Token Metadata is an asset of its own (a Token-2022 mint carrying extensions). */
export function isExtensionAsset(mint: MintInfo | undefined, extensions: ExtensionRow[] | undefined): boolean {
  return mint?.program === TOKEN_2022_PROGRAM && !!extensions?.length;
}

/** A Token-2022 mint without a Token Metadata account, named by its token-metadata extension when it has one. */
export function renderExtensionFungible(mint: MintInfo, extensions: ExtensionRow[] | undefined, showFungible: boolean): AssetJson {
  const md = extensions?.find((e) => e.extension === 'tokenMetadata')?.data as { uri?: string; name?: string; symbol?: string } | undefined;
  const out: AssetJson = {
    interface: 'FungibleToken',
    id: mint.address,
    content: content(md?.uri ?? '', md ? { name: md.name ?? '', symbol: md.symbol ?? '' } : {}),
    authorities: [],
    compression: uncompressed(),
    grouping: [],
    royalty: royalty(0, false),
    creators: [],
    ownership: { frozen: false, delegated: false, delegate: null, ownership_model: 'token', owner: '' },
    mutable: true,
    burnt: false,
  };
  return withMintParts(out, mint, extensions, showFungible);
}
