/**
 * Assets from their stored documents (migration 031): the asset-index refresher keeps each asset's rendered DAS
 * object (with token_info and unverified collections, without off-chain content) on its index row, so a read is
 * one indexed statement that also tells which documents may be older than their sources (a pending dirty mark,
 * `docStaleSql`) and carries the fetched off-chain documents. The display options are projected here; documents
 * that are missing or may be stale are rendered from the sources (`loadAssets`), so an answer is never older than
 * what a live render in the same snapshot order would show.
 */
import type { Queryable } from '../../store/db.js';
import { readAssetDocs, type AssetDocRow } from '../../store/das-index.js';
import type { AssetJson, DisplayOptions } from './asset-json.js';
import { addCollectionMetadata } from './collection-metadata.js';
import { addInscriptions } from './inscription.js';
import { loadAssets } from './load-assets.js';
import { applyOffchainJson } from './offchain-content.js';
import { projectDocText } from './doc-text.js';
import { RawJson } from '../wire/json.js';

/**
 * A stored document shown with the request's options (in place): `token_info` only with showFungible, unverified
 * collection groupings (`verified: false`) only with showUnverifiedCollections — exactly what the renderers leave
 * out without those options. showCollectionMetadata and showInscription are added by their own queries.
 */
export function projectDoc(doc: AssetJson, opts: DisplayOptions): AssetJson {
  if (!opts.showFungible) delete doc.token_info;
  if (!opts.showUnverifiedCollections && Array.isArray(doc.grouping)) {
    doc.grouping = (doc.grouping as Record<string, unknown>[]).filter((g) => g.verified !== false);
  }
  return doc;
}

/** The usable documents of `rows` projected to `opts`, with their off-chain content; the ids to render live. */
function fromDocs(rows: AssetDocRow[], opts: DisplayOptions): { ready: Map<string, AssetJson>; live: string[] } {
  const ready = new Map<string, AssetJson>();
  const live: string[] = [];
  for (const r of rows) {
    if (r.doc === null || r.stale) {
      live.push(r.id);
      continue;
    }
    const a = projectDoc(JSON.parse(r.doc) as AssetJson, opts);
    const uri = (a.content as { json_uri?: unknown } | undefined)?.json_uri;
    if (r.offchain && typeof uri === 'string' && uri.trim() !== '') applyOffchainJson(a, r.offchain);
    ready.set(r.id, a);
  }
  return { ready, live };
}

/**
 * Rendered assets of the given document rows (as `loadAssets` answers for their ids): documents where they are
 * current, the rest (plus `extra` ids without an index row) rendered from the sources.
 */
export async function assetsFromDocRows(q: Queryable, rows: AssetDocRow[], opts: DisplayOptions, extra: string[] = []): Promise<Map<string, AssetJson>> {
  const { ready, live } = fromDocs(rows, opts);
  live.push(...extra);
  const work: Promise<unknown>[] = [];
  if (ready.size && opts.showCollectionMetadata) work.push(addCollectionMetadata(q, [...ready.values()]));
  if (ready.size && opts.showInscription) work.push(addInscriptions(q, new Map(ready)));
  const rendered = live.length ? loadAssets(q, live, opts) : Promise.resolve(new Map<string, AssetJson>());
  const [fresh] = await Promise.all([rendered, ...work]);
  for (const [id, a] of fresh) ready.set(id, a);
  return ready;
}

/** An asset as an answer carries it: an object, or the text of a stored document (written as is by `stringifyRpc`). */
export type AssetAnswer = AssetJson | RawJson;

/**
 * Whether answers for `opts` can be stored documents' text: no option adds data read elsewhere (token_info and its
 * prices with showFungible, collection metadata, inscriptions); the other options only cut members out.
 */
export function passThrough(opts: DisplayOptions): boolean {
  return !opts.showFungible && !opts.showCollectionMetadata && !opts.showInscription;
}

/**
 * `assetsFromDocRows` for answers: with options that `passThrough`, current documents are answered as their text
 * projected without parsing (`projectDocText`, byte for byte what the parsed projection writes); otherwise objects.
 */
export async function answersFromDocRows(q: Queryable, rows: AssetDocRow[], opts: DisplayOptions, extra: string[] = []): Promise<Map<string, AssetAnswer>> {
  if (!passThrough(opts)) return assetsFromDocRows(q, rows, opts, extra);
  const out = new Map<string, AssetAnswer>();
  const rest: AssetDocRow[] = [];
  for (const r of rows) {
    const text = r.doc === null || r.stale ? null : projectDocText(r.doc, opts, r.offchain);
    if (text === null) rest.push(r);
    else out.set(r.id, new RawJson(text));
  }
  if (rest.length || extra.length) for (const [id, a] of await assetsFromDocRows(q, rest, opts, extra)) out.set(id, a);
  return out;
}

/** `loadAssetDocs` for answers (`answersFromDocRows`). */
export async function loadAssetAnswers(q: Queryable, ids: string[], opts: DisplayOptions): Promise<Map<string, AssetAnswer>> {
  const unique = [...new Set(ids)];
  const rows = await readAssetDocs(q, unique);
  const indexed = new Set(rows.map((r) => r.id));
  return answersFromDocRows(q, rows, opts, unique.filter((id) => !indexed.has(id)));
}

/** `loadAssets` through the stored documents: one statement when every document is current. */
export async function loadAssetDocs(q: Queryable, ids: string[], opts: DisplayOptions): Promise<Map<string, AssetJson>> {
  const unique = [...new Set(ids)];
  const rows = await readAssetDocs(q, unique);
  const indexed = new Set(rows.map((r) => r.id));
  return assetsFromDocRows(q, rows, opts, unique.filter((id) => !indexed.has(id)));
}
