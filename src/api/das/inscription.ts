/**
 * showInscription: the Libreplex inscription of an asset, rendered exactly as the DAS reference renders it
 * (digital_asset_types `TokenInscriptionInfo` from blockbuster's `token_inscriptions` parser):
 * `{authority, root, inscription_data, content, encoding, order, size, validation_hash}` — `content` is the
 * content type string of the account, `encoding` its encoding string, `order` and `size` numbers,
 * `validation_hash` null when the account has none. Like the reference, only `InscriptionV3` accounts count (its
 * parser rejects the v1 layout) and no `spl20` object is added. The hosted service names these fields
 * differently (docs/das.md says how).
 */
import type { Queryable } from '../../store/db.js';
import { getAccountsByAsset } from '../../store/asset-accounts.js';
import type { AssetJson } from './asset-json.js';

/** The stored (JSON-safe) decoded inscription account (`parsers/inscriptions/accounts.ts`). */
interface StoredInscription {
  version: number;
  authority: string;
  root: string;
  inscriptionData: string;
  order: string | number;
  size: number;
  contentType: string;
  encoding: string;
  validationHash: string | null;
}

/** The `inscription` object of one account, in the reference's names and formats. */
export function inscriptionJson(d: StoredInscription): AssetJson {
  return {
    authority: d.authority,
    root: d.root,
    inscription_data: d.inscriptionData,
    content: d.contentType,
    encoding: d.encoding,
    order: Number(d.order),
    size: d.size,
    validation_hash: d.validationHash ?? null,
  };
}

/** Adds `inscription` to the rendered assets that have an `InscriptionV3` account (in place). */
export async function addInscriptions(q: Queryable, assets: Map<string, AssetJson>): Promise<void> {
  const found = await getAccountsByAsset(q, [...assets.keys()], 'inscription', 3);
  for (const [id, row] of found) assets.get(id)!.inscription = inscriptionJson(row.data as unknown as StoredInscription);
}
