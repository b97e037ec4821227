/**
 * Cursor checks done before any query, with Photon's messages: the byte layouts and their decoders are the
 * store's (src/store/zk/cursors.ts, compat-facts §3.4); a wrong length is `Validation Error: Invalid cursor length.
 * Expected N. Received M.`, a signature-list cursor that is not base58 is `Validation Error: Invalid cursor X`
 * (Photon types that one as a plain string), and a `Base58String` cursor that is not base58 is a params error.
 */
import { decodeHolderCursor, decodeMintCursor, decodeSignatureCursor, decodeTokenAccountCursor } from '../../store/zk/cursors.js';
import { asValidation, validationError } from './errors.js';
import { optionalBase58, optionalString } from './params.js';

/** The longest cursor text worth decoding (a 72-byte cursor is at most 99 base58 characters). */
const MAX_CURSOR_CHARS = 200;

/** Token accounts by owner/delegate: mint ‖ hash (64 bytes). */
export function tokenAccountCursor(v: unknown): string | null {
  const c = optionalBase58(v, 'cursor');
  if (c !== null) asValidation(() => decodeTokenAccountCursor(c));
  return c;
}

/** Token balances by owner: mint (32 bytes). */
export function mintCursor(v: unknown): string | null {
  const c = optionalBase58(v, 'cursor');
  if (c !== null) asValidation(() => decodeMintCursor(c));
  return c;
}

/** Mint holders: balance u64 LE ‖ owner (40 bytes). */
export function holderCursor(v: unknown): string | null {
  const c = optionalBase58(v, 'cursor');
  if (c !== null) asValidation(() => decodeHolderCursor(c));
  return c;
}

/** Signature lists: slot u64 LE ‖ signature (72 bytes). */
export function signatureCursor(v: unknown): string | null {
  const c = optionalString(v, 'cursor');
  if (c === null) return null;
  if (c.length > MAX_CURSOR_CHARS) throw validationError(`Invalid cursor ${c.slice(0, 100)}…`);
  asValidation(() => decodeSignatureCursor(c));
  return c;
}
