/**
 * DAS `content` from the off-chain metadata JSON (the document at `content.json_uri`, fetched by the off-chain
 * fetcher), mapped as the Metaplex reference does in `v1_content_from_json`
 * (digital-asset-rpc-infrastructure `digital_asset_types/src/dapi/common/asset.rs`):
 *
 * - `metadata`: the on-chain `name`, `symbol` and `token_standard` stay (the document's name/symbol are never
 *   used); `description` and `attributes` are copied from the document when it has those keys (any value).
 *   Keys are in sorted order, as the reference's BTreeMap serialises them.
 * - `links`: `image`, `animation_url`, `external_url` copied from the document when present (any value).
 * - `files`: each `properties.files[]` entry — an object's `uri` (or `url` when it has no `uri` key) with its
 *   `type` as `mime` (guessed from the uri's extension when `type` is not a string), or a bare string uri;
 *   entries are unique by uri (a later entry replaces an earlier one); then the `image` and `animation_url`
 *   strings are added when not listed; the image file comes first. Mime guess: by the extension of the URL path,
 *   `image/png` when the URL does not parse or the extension is unknown (the reference's default).
 *
 * Deliberate deviation: for a file object with a `uri` but no `type`, the reference stores the uri JSON-encoded
 * (`"\"https://…\""`, a serialisation slip); here the uri is kept as written with a guessed mime.
 *
 * Assets whose uri has no fetched document are left untouched, so without off-chain data the output is exactly
 * the on-chain rendering (the reference snapshots were recorded that way).
 */
import type { Queryable } from '../../store/db.js';
import { getOffchainContents } from '../../store/offchain.js';
import type { AssetJson } from './asset-json.js';

/** Extension → mime, as the reference's `mime_guess` answers for the media NFT metadata points to. */
const MIME_BY_EXT: Record<string, string> = {
  png: 'image/png',
  apng: 'image/apng',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  jpe: 'image/jpeg',
  jfif: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  svgz: 'image/svg+xml',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  avif: 'image/avif',
  heic: 'image/heic',
  heif: 'image/heif',
  mp4: 'video/mp4',
  m4v: 'video/x-m4v',
  mov: 'video/quicktime',
  webm: 'video/webm',
  ogv: 'video/ogg',
  avi: 'video/x-msvideo',
  mkv: 'video/x-matroska',
  mpeg: 'video/mpeg',
  mpg: 'video/mpeg',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  flac: 'audio/flac',
  m4a: 'audio/m4a',
  aac: 'audio/aac',
  glb: 'model/gltf-binary',
  gltf: 'model/gltf+json',
  obj: 'model/obj',
  stl: 'model/stl',
  usdz: 'model/vnd.usdz+zip',
  html: 'text/html',
  htm: 'text/html',
  txt: 'text/plain',
  json: 'application/json',
  pdf: 'application/pdf',
  js: 'application/javascript',
  css: 'text/css',
  xml: 'text/xml',
  zip: 'application/zip',
};

const DEFAULT_MIME = 'image/png';

/** The reference's `get_mime_type_from_uri`: extension of the URL path's last segment, else image/png. */
export function mimeFromUri(uri: string): string {
  let path: string;
  try {
    path = new URL(uri).pathname;
  } catch {
    return DEFAULT_MIME;
  }
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || dot === name.length - 1) return DEFAULT_MIME; // no extension (or a dot-file, as Rust's Path::extension)
  return MIME_BY_EXT[name.slice(dot + 1).toLowerCase()] ?? DEFAULT_MIME;
}

interface FileJson {
  uri: string;
  mime: string;
}

const has = (o: Record<string, unknown>, k: string) => Object.prototype.hasOwnProperty.call(o, k);
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The reference's `files` from a document. */
export function filesFromJson(doc: Record<string, unknown>): FileJson[] {
  const files = new Map<string, FileJson>();
  const props = doc.properties;
  const list = isObject(props) && Array.isArray(props.files) ? props.files : [];
  for (const v of list) {
    if (typeof v === 'string') {
      files.set(v, { uri: v, mime: mimeFromUri(v) });
    } else if (isObject(v)) {
      const u = has(v, 'uri') ? v.uri : v.url;
      if (typeof u !== 'string') continue;
      files.set(u, { uri: u, mime: typeof v.type === 'string' ? v.type : mimeFromUri(u) });
    }
  }
  for (const k of ['image', 'animation_url']) {
    const u = doc[k];
    if (typeof u === 'string' && !files.has(u)) files.set(u, { uri: u, mime: mimeFromUri(u) });
  }
  const out = [...files.values()];
  const image = doc.image;
  const i = typeof image === 'string' ? out.findIndex((f) => f.uri === image) : -1;
  if (i > 0) out.unshift(...out.splice(i, 1));
  return out;
}

/** Applies one document to one rendered asset's `content` (in place). */
export function applyOffchainJson(asset: AssetJson, doc: Record<string, unknown>): void {
  const content = asset.content as Record<string, unknown> | undefined;
  if (!content) return;
  const meta: Record<string, unknown> = { ...((content.metadata as Record<string, unknown> | undefined) ?? {}) };
  if (has(doc, 'description')) meta.description = doc.description;
  if (has(doc, 'attributes')) meta.attributes = doc.attributes;
  content.metadata = Object.fromEntries(Object.keys(meta).sort().map((k) => [k, meta[k]]));
  const links: Record<string, unknown> = {};
  for (const k of ['image', 'animation_url', 'external_url']) if (has(doc, k)) links[k] = doc[k];
  content.links = links;
  content.files = filesFromJson(doc);
}

/**
 * Fills `content.files`, `content.links` and `content.metadata.description/attributes` of the given rendered
 * assets from their fetched off-chain documents (in place), in one query for all of them. Assets without a
 * `content.json_uri`, or whose document is not fetched (yet, or ever), are not changed.
 */
export async function addOffchainContent(q: Queryable, assets: Iterable<AssetJson>): Promise<void> {
  const byUri = new Map<string, AssetJson[]>();
  for (const a of assets) {
    const c = a.content as { json_uri?: unknown } | undefined;
    const uri = c?.json_uri;
    if (typeof uri !== 'string' || uri.trim() === '') continue;
    let l = byUri.get(uri);
    if (!l) byUri.set(uri, (l = []));
    l.push(a);
  }
  if (!byUri.size) return;
  const docs = await getOffchainContents(q, byUri.keys());
  for (const [uri, doc] of docs) for (const a of byUri.get(uri) ?? []) applyOffchainJson(a, doc);
}
