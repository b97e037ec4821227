/**
 * DAS parameter handling shared by the method files: named-object params with unknown fields rejected (the
 * reference deserialises with deny_unknown_fields → -32602), pubkeys validated with the reference's messages
 * (-32000), display options under `options` or its alias `displayOptions`.
 */
import { SolgateError } from '../../core/errors.js';
import { isAddress } from '../../core/encoding.js';
import { defaultDisplayOptions, type DisplayOptions } from './asset-json.js';

export type Params = Record<string, unknown>;

/** The params object, with every key checked against `allowed`. */
export function namedParams(params: unknown, allowed: readonly string[]): Params {
  if (params === undefined || params === null) return {};
  if (typeof params !== 'object' || Array.isArray(params)) throw new SolgateError('INVALID_PARAMS', 'Invalid params: expected an object');
  for (const k of Object.keys(params)) if (!allowed.includes(k)) throw new SolgateError('INVALID_PARAMS', `Invalid params: unknown field \`${k}\`, expected one of ${allowed.map((a) => `\`${a}\``).join(', ')}`);
  return params as Params;
}

export function requireField(p: Params, name: string): unknown {
  if (p[name] === undefined || p[name] === null) throw new SolgateError('INVALID_PARAMS', `Invalid params: missing field \`${name}\``);
  return p[name];
}

/** A pubkey param: wrong type → -32602, not a valid pubkey → the reference's -32000 message. */
export function pubkey(v: unknown, name: string): string {
  if (typeof v !== 'string') throw new SolgateError('INVALID_PARAMS', `Invalid params: \`${name}\` must be a string`);
  if (!isAddress(v)) throw new SolgateError('INVALID_ARGUMENT', `Pubkey Validation Err: ${v} is invalid`);
  return v;
}

const OPTION_KEYS: (keyof DisplayOptions)[] = [
  'showUnverifiedCollections', 'showCollectionMetadata', 'showFungible', 'showInscription', 'showZeroBalance', 'showNativeBalance', 'showGrandTotal',
];
/** Accepted but without effect here (Helius SDK types list them). */
const IGNORED_OPTION_KEYS = ['showRawData', 'requireFullIndex', 'showSystemMetadata', 'showClosedAccounts'];

export function displayOptions(p: Params): DisplayOptions {
  const out = defaultDisplayOptions();
  if (p.options !== undefined && p.displayOptions !== undefined) throw new SolgateError('INVALID_PARAMS', 'Invalid params: give `options` or `displayOptions`, not both');
  const raw = p.options ?? p.displayOptions;
  if (raw === undefined || raw === null) return out;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new SolgateError('INVALID_PARAMS', 'Invalid params: `options` must be an object');
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (IGNORED_OPTION_KEYS.includes(k)) continue;
    if (!OPTION_KEYS.includes(k as keyof DisplayOptions)) throw new SolgateError('INVALID_PARAMS', `Invalid params: unknown display option \`${k}\``);
    if (v === null || v === undefined) continue;
    if (typeof v !== 'boolean') throw new SolgateError('INVALID_PARAMS', `Invalid params: display option \`${k}\` must be a boolean`);
    out[k as keyof DisplayOptions] = v;
  }
  return out;
}
