/**
 * showInscription: the Libreplex inscription of an asset (`inscription`), and `spl20` when the inscribed content
 * is an SPL-20 JSON document.
 */
import type { Queryable } from '../../store/db.js';
import { getAccountsByAsset, getAssetAccounts } from '../../store/asset-accounts.js';
import type { AssetJson } from './asset-json.js';

interface InscriptionData {
  authority: string;
  inscriptionData: string;
  order: string | number;
  size: number;
  contentType: string;
  encoding: string;
  validationHash: string | null;
}

/** The SPL-20 document of an inscription's content, when it is one. */
function spl20(base64: string | undefined): Record<string, unknown> | undefined {
  if (!base64) return undefined;
  try {
    const doc = JSON.parse(Buffer.from(base64, 'base64').toString('utf8')) as Record<string, unknown>;
    return doc && typeof doc === 'object' && doc.p === 'spl-20' ? doc : undefined;
  } catch {
    return undefined;
  }
}

/** Adds `inscription` (and `spl20`) to the rendered assets that have an inscription (in place). */
export async function addInscriptions(q: Queryable, assets: Map<string, AssetJson>): Promise<void> {
  const found = await getAccountsByAsset(q, [...assets.keys()], 'inscription');
  if (!found.size) return;
  const dataKeys = [...found.values()].map((r) => (r.data as unknown as InscriptionData).inscriptionData);
  const contents = await getAssetAccounts(q, dataKeys);
  for (const [id, row] of found) {
    const d = row.data as unknown as InscriptionData;
    const a = assets.get(id)!;
    a.inscription = {
      order: Number(d.order),
      size: d.size,
      contentType: d.contentType,
      encoding: d.encoding,
      validationHash: d.validationHash,
      inscriptionDataAccount: d.inscriptionData,
      authority: d.authority,
    };
    const doc = spl20((contents.get(d.inscriptionData)?.data as { data?: string } | undefined)?.data);
    if (doc) a.spl20 = doc;
  }
}
