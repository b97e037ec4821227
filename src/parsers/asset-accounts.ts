/**
 * One entry point for the DAS asset-standard account decoders: Token Metadata, MPL Core and Libreplex
 * Inscriptions, dispatched by the account's owner program. Pure and synchronous; never throws.
 * Why one entry: ingest can hand every account update here and get either a typed asset account, a
 * `parse.failed` record (known program, undecodable data — logged/counted upstream, never a crash) or null
 * (not an asset account). See `asset-account-types.ts` for the shapes and number/bytes conventions.
 */
import type { AccountUpdate } from '../core/model.js';
import type { AssetAccount } from './asset-account-types.js';
import { INSCRIPTIONS_PROGRAM, decodeInscriptionAccount } from './inscriptions/accounts.js';
import { MPL_CORE_PROGRAM, decodeMplCoreAccount } from './mpl-core/accounts.js';
import { TOKEN_METADATA_PROGRAM, decodeTokenMetadataAccount } from './token-metadata/accounts.js';

export type { AssetAccount } from './asset-account-types.js';
export { INSCRIPTIONS_PROGRAM, MPL_CORE_PROGRAM, TOKEN_METADATA_PROGRAM };

/** Owner programs whose accounts `decodeAssetAccount` understands. */
export const ASSET_ACCOUNT_PROGRAMS: ReadonlySet<string> = new Set([TOKEN_METADATA_PROGRAM, MPL_CORE_PROGRAM, INSCRIPTIONS_PROGRAM]);

/**
 * Decodes an asset-standard account. Returns null for other owners and for account kinds of these programs
 * that carry no asset state (edition markers, delegate records, inscription summaries...).
 */
export function decodeAssetAccount(u: AccountUpdate): AssetAccount | null {
  try {
    switch (u.owner) {
      case TOKEN_METADATA_PROGRAM:
        return decodeTokenMetadataAccount(u.pubkey, u.data);
      case MPL_CORE_PROGRAM:
        return decodeMplCoreAccount(u.pubkey, u.data);
      case INSCRIPTIONS_PROGRAM:
        return decodeInscriptionAccount(u.pubkey, u.data);
      default:
        return null;
    }
  } catch (e) {
    // The decoders catch their own errors; this is a last guard so ingest never crashes on account data.
    return { kind: 'parse.failed', address: u.pubkey, owner: u.owner, reason: e instanceof Error ? e.message : String(e) };
  }
}
