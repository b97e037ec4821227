/**
 * Names, symbols and logos of the tokens of a balances page, from the token registry and the mints' own
 * on-chain metadata, in one query per source for the whole page (never one per token).
 *
 * Precedence (the interface — compat-facts §1.3, service-interface "Token balance" — only says `symbol`, `name`
 * and `logoUri` are nullable and names no source; this is our rule):
 *   1. the token registry (SOLGATE_TOKENS_FILE), field by field: a value the operator put there wins, since it
 *      is curated and is also where prices come from;
 *   2. otherwise the mint's on-chain metadata: its Token Metadata account (asset_accounts kind `tm.metadata`,
 *      asset_id = mint), else its Token-2022 `tokenMetadata` extension — the same precedence getAsset renders
 *      `content.metadata` with (src/api/das/load-assets.ts), so both APIs name a token alike;
 *   3. `logoUri` only: the off-chain JSON's `image` of that metadata's `uri`, when the off-chain fetcher has it.
 * Empty strings (Token Metadata pads names with NULs) count as absent and end up `null`.
 */
import type { Queryable } from '../../../store/db.js';
import type { TokenInfo } from '../../../pricing/token-registry.js';

/** What a mint's on-chain metadata says (null = not said). */
export interface OnChainTokenMeta {
  name: string | null;
  symbol: string | null;
  uri: string | null;
}

/** A metadata string as shown: NUL padding and surrounding blanks removed; empty → null. */
export function cleanText(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v.replace(/\u0000/g, '').trim();
  return s === '' ? null : s;
}

type MetaRow = { mint: string; name: string | null; symbol: string | null; uri: string | null };

const toMeta = (r: MetaRow): OnChainTokenMeta => ({ name: cleanText(r.name), symbol: cleanText(r.symbol), uri: cleanText(r.uri) });

/**
 * On-chain metadata of the given mints: two queries in all (Token Metadata accounts, Token-2022 tokenMetadata
 * extensions), Token Metadata winning for a mint that has both. Mints with neither are absent.
 */
export async function onChainTokenMetadata(q: Queryable, mints: string[]): Promise<Map<string, OnChainTokenMeta>> {
  const out = new Map<string, OnChainTokenMeta>();
  const unique = [...new Set(mints)];
  if (!unique.length) return out;
  const [tm, ext] = await Promise.all([
    q.query<MetaRow>(
      `SELECT asset_id AS mint, data->>'name' AS name, data->>'symbol' AS symbol, data->>'uri' AS uri
         FROM asset_accounts WHERE asset_id = ANY($1::text[]) AND kind = 'tm.metadata'`,
      [unique],
    ),
    q.query<MetaRow>(
      `SELECT target AS mint, data->>'name' AS name, data->>'symbol' AS symbol, data->>'uri' AS uri
         FROM token_extensions WHERE target = ANY($1::text[]) AND extension = 'tokenMetadata'`,
      [unique],
    ),
  ]);
  for (const r of ext.rows) out.set(r.mint, toMeta(r));
  for (const r of tm.rows) out.set(r.mint, toMeta(r));
  return out;
}

/** The `image` of each fetched off-chain metadata document by its uri (uris not fetched yet are absent). */
export async function offchainImages(q: Queryable, uris: string[]): Promise<Map<string, string>> {
  const list = [...new Set(uris.filter((u) => u.trim() !== ''))];
  if (!list.length) return new Map();
  const { rows } = await q.query<{ uri: string; image: string | null }>(
    `SELECT uri, content->>'image' AS image FROM offchain_metadata
     WHERE uri = ANY($1::text[]) AND jsonb_typeof(content->'image') = 'string'`,
    [list],
  );
  return new Map(rows.flatMap((r) => (r.image && r.image.trim() !== '' ? [[r.uri, r.image] as [string, string]] : [])));
}

/** Symbol, name and logo of one token by the precedence above. */
export function describeToken(
  registry: TokenInfo | undefined,
  onChain: OnChainTokenMeta | undefined,
  images: Map<string, string>,
): { symbol: string | null; name: string | null; logoUri: string | null } {
  const image = onChain?.uri ? (images.get(onChain.uri) ?? null) : null;
  return {
    symbol: cleanText(registry?.symbol) ?? onChain?.symbol ?? null,
    name: cleanText(registry?.name) ?? onChain?.name ?? null,
    logoUri: cleanText(registry?.logoUri) ?? image,
  };
}
