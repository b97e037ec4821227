/**
 * Text clean-up exactly as the Metaplex DAS reference applies it to on-chain names, symbols and URIs:
 * `s.trim().replace('\0', "")` — Rust `str::trim` (Unicode White_Space at both ends) first, then every NUL removed.
 * Source: digital-asset-rpc-infrastructure `program_transformers/src/token_metadata/v1_asset.rs` (uri) and
 * `digital_asset_types/src/json/chain_data.rs` `ChainDataV1::sanitize` (name, symbol).
 *
 * The order matters: `"Foo \0\0"` stays `"Foo "` (the trailing space sits before the NUL padding).
 */

// Rust `char::is_whitespace` = Unicode White_Space. JS `\s` differs (adds U+FEFF, lacks U+0085).
const WS = '[\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]';
const LEADING = new RegExp(`^${WS}+`, 'u');
const TRAILING = new RegExp(`${WS}+$`, 'u');

/** Rust `str::trim`. */
export function rustTrim(s: string): string {
  return s.replace(LEADING, '').replace(TRAILING, '');
}

/** DAS rendering of an on-chain string: Rust trim, then all NULs removed. */
export function dasText(raw: string): string {
  return rustTrim(raw).replace(/\0/g, '');
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** Decodes UTF-8 bytes keeping NULs (umi's `string()` strips them, which would hide the DAS trim order). */
export function rawUtf8(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}
