/**
 * The list columns of one asset, derived purely from its rendered DAS object (rendered with every section the
 * index needs: token_info and unverified collections), so what lists filter on is exactly what getAsset shows;
 * the object itself is kept as the asset's ready document (reads project the display options, api/das/asset-docs.ts).
 */
import type { AssetJson } from '../api/das/asset-json.js';
import type { DasIndexRow } from '../store/das-index.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export function indexRowOf(a: AssetJson, slots: { first: number; last: number } | undefined): DasIndexRow {
  const ownership = obj(a.ownership);
  const compression = obj(a.compression);
  const royalty = obj(a.royalty);
  const content = obj(a.content);
  const tokenInfo = a.token_info === undefined ? null : obj(a.token_info);
  const compressed = compression.compressed === true;
  const burnt = a.burnt === true;
  // Supply as the reference keeps it: a compressed NFT keeps 1 after a burn; a token-backed asset has its mint's
  // supply (0 once its NFT is burnt); other single assets have 1 until burnt.
  let supply: bigint;
  if (compressed) supply = 1n;
  else if (tokenInfo && tokenInfo.supply !== undefined) supply = BigInt(Math.trunc(Number(tokenInfo.supply)));
  else supply = burnt ? 0n : 1n;
  const slot = slots ?? { first: 0, last: 0 };
  return {
    id: String(a.id),
    interface: String(a.interface),
    owner: str(ownership.owner),
    ownerType: ownership.ownership_model === 'token' ? 'token' : 'single',
    delegate: str(ownership.delegate),
    frozen: ownership.frozen === true,
    supply,
    supplyMint: tokenInfo ? String(a.id) : null,
    compressed,
    tree: compressed ? str(compression.tree) : null,
    royaltyTargetType: str(royalty.royalty_model),
    royaltyTarget: str(royalty.target),
    royaltyAmount: typeof royalty.basis_points === 'number' ? royalty.basis_points : null,
    burnt,
    jsonUri: typeof content.json_uri === 'string' ? content.json_uri : null,
    name: typeof obj(content.metadata).name === 'string' ? (obj(content.metadata).name as string) : null,
    createdSlot: slot.first,
    updatedSlot: slot.last,
    creators: arr(a.creators).flatMap((c) => (str(c.address) ? [{ address: c.address as string, verified: c.verified === true }] : [])),
    authorities: arr(a.authorities).flatMap((x) => (str(x.address) ? [{ address: x.address as string, scopes: arr(x.scopes).map(String) }] : [])),
    groups: arr(a.grouping).flatMap((g) =>
      str(g.group_key) && str(g.group_value) ? [{ key: g.group_key as string, value: g.group_value as string, verified: g.verified !== false }] : [],
    ),
    doc: docText(a),
  };
}

/** The stored document (migration 031); null (reads render from the sources) for an object JSON cannot hold as is (a bigint). */
function docText(a: AssetJson): string | null {
  try {
    return JSON.stringify(a);
  } catch {
    return null;
  }
}
