/**
 * Decoded asset-program accounts → asset_accounts rows (pure). The row keeps the whole decoded account as JSON
 * and lifts out the keys list queries filter on (asset id, owner, collection).
 */
import type { AccountUpdate } from '../core/model.js';
import { decodeAssetAccount } from '../parsers/asset-accounts.js';
import { jsonSafe } from '../parsers/accounts/token-program.js';
import type { AssetAccountRow } from '../store/asset-accounts.js';

export function assetAccountRows(updates: AccountUpdate[]): AssetAccountRow[] {
  const out: AssetAccountRow[] = [];
  for (const u of updates) {
    const a = decodeAssetAccount(u);
    if (!a || a.kind === 'parse.failed') continue;
    let assetId: string | null = null;
    let owner: string | null = null;
    let collection: string | null = null;
    switch (a.kind) {
      case 'tm.metadata':
        assetId = a.mint;
        collection = a.collection?.key ?? null;
        break;
      case 'core.asset':
        assetId = a.address;
        owner = a.owner;
        collection = a.updateAuthority.type === 'Collection' ? a.updateAuthority.address : null;
        break;
      case 'core.collection':
        assetId = a.address;
        break;
      case 'inscription':
        assetId = a.root;
        break;
      default:
        break;
    }
    out.push({ address: a.address, kind: a.kind, assetId, owner, collection, data: jsonSafe(a) as Record<string, unknown>, slot: u.slot, writeVersion: u.writeVersion });
  }
  return out;
}
