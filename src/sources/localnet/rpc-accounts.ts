/**
 * Account rendering and account-scan filters shared by the localnet's account methods, following agave's rpc.rs:
 * `encode_account` (the 128-byte limit of base58), `get_encoded_account` / `get_parsed_token_accounts` (token-program
 * accounts under `jsonParsed`), and `RpcFilterType` (`dataSize`, `memcmp`, `tokenAccountState`) with `verify_filters`.
 */
import { base58ToBytes, bytesToBase58 } from '../../core/encoding.js';
import { TOKEN_PROGRAM, TOKEN_PROGRAMS } from '../../core/programs.js';
import { accountJson, type AccountEncoding } from './rpc-encode.js';
import {
  RpcError, accountEncodingOpt, commitmentOpt, dataSliceOpt, invalidParam, invalidParams, jsonType, slotParam, u64, type DataSlice,
} from './rpc-params.js';
import { isTokenAccountData, mintDecimalsOf, parseTokenProgramAccount } from './token-parse.js';
import type { LocalAccount } from './types.js';

export const MAX_BASE58_BYTES = 128;
/** agave's MAX_GET_PROGRAM_ACCOUNT_FILTERS and the memcmp limits of `RpcFilterType::verify`. */
export const MAX_FILTERS = 4;
const MAX_DATA_SIZE = 128;
const MAX_DATA_BASE58_SIZE = 175;
const MAX_DATA_BASE64_SIZE = 172;

/** Reads an account's state (at the commitment of the request: `LocalChain.accountReader`). */
export type AccountRead = (address: string) => LocalAccount | null;

export interface AccountOpts {
  encoding: AccountEncoding;
  slice?: DataSlice;
}

/** The `RpcAccountInfoConfig` part of a config: `encoding` (default `dflt`), `dataSlice`, `commitment`. */
export function accountOpts(cfg: Record<string, unknown>, dflt: AccountEncoding = 'binary'): AccountOpts {
  commitmentOpt(cfg.commitment);
  return { encoding: accountEncodingOpt(cfg.encoding, dflt), slice: dataSliceOpt(cfg.dataSlice) };
}

/** `encode_account`: base58/binary data over 128 bytes (after the slice) is refused with -32600. */
export function encodeAccount(acc: LocalAccount, o: AccountOpts) {
  if (o.encoding === 'binary' || o.encoding === 'base58') {
    const len = o.slice ? Math.min(o.slice.length, Math.max(0, acc.data.length - o.slice.offset)) : acc.data.length;
    if (len > MAX_BASE58_BYTES) {
      throw new RpcError(-32600, `Encoded binary (base 58) data should be less than ${MAX_BASE58_BYTES} bytes, please use Base64 encoding.`);
    }
  }
  return accountJson(acc, o.encoding, o.slice);
}

/** Reads mints for token accounts' decimals, once per mint per request. */
function decimalsReader(read: AccountRead): (mint: string) => number | null {
  const cache = new Map<string, number | null>();
  return (mint) => {
    let d = cache.get(mint);
    if (d === undefined) cache.set(mint, (d = mintDecimalsOf(mint, read)));
    return d;
  };
}

/** `parsed` data of a token-program account, or null when it does not parse. */
function parsedTokenData(acc: LocalAccount, decimals: (mint: string) => number | null) {
  const d = acc.data;
  const parsed = parseTokenProgramAccount(d, isTokenAccountData(d) ? decimals(bytesToBase58(d.subarray(0, 32))) : null);
  return parsed && { program: acc.owner === TOKEN_PROGRAM ? 'spl-token' : 'spl-token-2022', parsed, space: d.length };
}

/**
 * `get_encoded_account`: a token-program account under `jsonParsed` is parsed with its mint's decimals (falling back
 * to base64 of the whole data, no slice, when it does not parse); anything else goes through `encode_account`.
 */
export function renderAccount(read: AccountRead, acc: LocalAccount | null, o: AccountOpts) {
  if (!acc) return null;
  if (o.encoding === 'jsonParsed' && TOKEN_PROGRAMS.has(acc.owner)) return accountJson(acc, 'jsonParsed', undefined, parsedTokenData(acc, decimalsReader(read)));
  return encodeAccount(acc, o);
}

/**
 * `{pubkey, account}` items of a scan. For a token program under `jsonParsed` (`get_parsed_token_accounts`),
 * accounts that do not parse are left out; otherwise every account goes through `encode_account`.
 */
export function keyedAccounts(read: AccountRead, program: string, keyed: [string, LocalAccount][], o: AccountOpts) {
  if (o.encoding === 'jsonParsed' && TOKEN_PROGRAMS.has(program)) {
    const decimals = decimalsReader(read);
    const out: { pubkey: string; account: unknown }[] = [];
    for (const [pubkey, acc] of keyed) {
      const parsed = parsedTokenData(acc, decimals);
      if (parsed) out.push({ pubkey, account: accountJson(acc, 'jsonParsed', undefined, parsed) });
    }
    return out;
  }
  return keyed.map(([pubkey, acc]) => ({ pubkey, account: encodeAccount(acc, o) }));
}

/** Reads `addresses` and keeps the existing accounts `keep` accepts, sorted by public key bytes (agave's default). */
export function loadSorted(read: AccountRead, addresses: string[], keep: (acc: LocalAccount) => boolean, sort = true): [string, LocalAccount][] {
  const out: [string, LocalAccount][] = [];
  for (const a of addresses) {
    const acc = read(a);
    if (acc && keep(acc)) out.push([a, acc]);
  }
  if (!sort) return out;
  const bytes = new Map(out.map(([a]) => [a, Buffer.from(base58ToBytes(a))]));
  return out.sort(([a], [b]) => Buffer.compare(bytes.get(a)!, bytes.get(b)!));
}

export type AccountFilter =
  | { dataSize: bigint }
  | { memcmp: { offset: number; bytes: Uint8Array } }
  | { tokenAccountState: true };

/** `RpcFilterType` allows (rpc/src/filter.rs). */
export function filterAllows(f: AccountFilter, data: Uint8Array): boolean {
  if ('dataSize' in f) return BigInt(data.length) === f.dataSize;
  if ('tokenAccountState' in f) return isTokenAccountData(data);
  const { offset, bytes } = f.memcmp;
  if (offset + bytes.length > data.length) return false;
  for (let i = 0; i < bytes.length; i++) if (data[offset + i] !== bytes[i]) return false;
  return true;
}

const tooLarge = () => invalidParam('Invalid param: DataTooLarge');

function decodeBase58(s: string): Uint8Array {
  if (s.length > MAX_DATA_BASE58_SIZE) throw tooLarge();
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c.charCodeAt(0) > 127) throw invalidParam(`Invalid param: Base58DecodeError(NonAsciiCharacter { index: ${i} })`);
    if (!/[1-9A-HJ-NP-Za-km-z]/.test(c)) throw invalidParam(`Invalid param: Base58DecodeError(InvalidCharacter { character: '${c}', index: ${i} })`);
  }
  return base58ToBytes(s);
}

function decodeBase64(s: string): Uint8Array {
  if (s.length > MAX_DATA_BASE64_SIZE) throw tooLarge();
  const bad = s.search(/[^A-Za-z0-9+/=]/);
  if (bad >= 0) throw invalidParam(`Invalid param: Base64DecodeError(InvalidByte(${bad}, ${s.charCodeAt(bad)}))`);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) throw invalidParam(`Invalid param: Base64DecodeError(InvalidLength(${s.length}))`);
  return new Uint8Array(Buffer.from(s, 'base64'));
}

function parseMemcmp(v: unknown): AccountFilter {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw invalidParams(`invalid type: ${jsonType(v)}, expected struct Memcmp.`);
  const m = v as { offset?: unknown; bytes?: unknown; encoding?: unknown };
  if (m.offset === undefined) throw invalidParams('missing field `offset`.');
  if (m.bytes === undefined) throw invalidParams('missing field `bytes`.');
  const offset = slotParam(m.offset, 'memcmp.offset');
  const enc = m.encoding ?? 'base58';
  if (enc !== 'base58' && enc !== 'base64' && enc !== 'bytes') throw invalidParams(`unknown variant \`${String(enc)}\`, expected \`base58\` or \`base64\`.`);
  let bytes: Uint8Array;
  if (Array.isArray(m.bytes)) {
    if (m.bytes.length > MAX_DATA_SIZE) throw tooLarge();
    bytes = new Uint8Array(m.bytes.map((b) => {
      const n = Number(u64(b, 'memcmp.bytes'));
      if (n > 255) throw invalidParams(`invalid value: integer \`${n}\`, expected u8.`);
      return n;
    }));
  } else if (typeof m.bytes === 'string') {
    bytes = enc === 'base64' ? decodeBase64(m.bytes) : decodeBase58(m.bytes);
  } else {
    throw invalidParams(`invalid type: ${jsonType(m.bytes)}, expected a string.`);
  }
  if (bytes.length > MAX_DATA_SIZE) throw tooLarge();
  return { memcmp: { offset, bytes } };
}

/** `filters` of getProgramAccounts: parsed as `Vec<RpcFilterType>`, then `verify_filters` (at most 4, memcmp ≤ 128 bytes). */
export function parseFilters(v: unknown): AccountFilter[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalidParams(`invalid type: ${jsonType(v)}, expected a sequence.`);
  const raw = v.map((f): [string, unknown] => {
    if (f === 'tokenAccountState') return ['tokenAccountState', null];
    if (typeof f === 'string') return [f, undefined];
    if (!f || typeof f !== 'object' || Array.isArray(f)) throw invalidParams(`invalid type: ${jsonType(f)}, expected string or map.`);
    const entries = Object.entries(f);
    if (entries.length !== 1) throw invalidParams('invalid value: map, expected map with a single key.');
    return entries[0];
  });
  if (raw.length > MAX_FILTERS) throw invalidParam(`Too many filters provided; max ${MAX_FILTERS}`);
  return raw.map(([name, value]) => {
    if (name === 'dataSize') return { dataSize: u64(value, 'dataSize') };
    if (name === 'memcmp') return parseMemcmp(value);
    if (name === 'tokenAccountState') return { tokenAccountState: true };
    throw invalidParams(`unknown variant \`${name}\`, expected one of \`dataSize\`, \`memcmp\`, \`tokenAccountState\`.`);
  });
}
