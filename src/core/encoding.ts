/**
 * Byte/text encodings used across the project. Base58 goes through ./base58.ts (plain digit arithmetic on wide
 * limbs: the results of `bs58`, faster again than its byte-wide arithmetic, itself several times faster than
 * BigInt-based codecs on 32/64-byte values, which ingestion converts by the million), with small caches for the
 * keys that recur in every block (programs, mints, pools).
 */
import { decodeBase58, encodeBase58 } from './base58.js';

/**
 * Base58 text of recently seen 32-byte keys: a direct-mapped cache indexed by bits of the key itself (keys are
 * uniformly distributed), checked byte for byte on a hit, so a lookup allocates nothing and hashes no string.
 */
const KEY_SLOTS = 1 << 17;
const keySlotBytes = new Uint8Array(KEY_SLOTS * 32);
const keySlotText: (string | undefined)[] = new Array<string | undefined>(KEY_SLOTS);

/**
 * Addresses recently found valid, direct-mapped by their last four characters (uniform in base58 text) and
 * checked by string equality on a hit: no hashing of the whole string and no large hash table, which a map costs
 * for every mint and owner of a block's token balances (they arrive as new strings from JSON.parse each time).
 */
const ADDRESS_SLOTS = 1 << 16;
const validAddressSlots: (string | undefined)[] = new Array<string | undefined>(ADDRESS_SLOTS);
const addressSlot = (s: string): number => {
  const n = s.length;
  return (s.charCodeAt(n - 1) + 58 * s.charCodeAt(n - 2) + 3364 * s.charCodeAt(n - 3) + 195112 * s.charCodeAt(n - 4)) & (ADDRESS_SLOTS - 1);
};

/** Base58 string → bytes; throws on characters outside the alphabet. */
export function base58ToBytes(s: string): Uint8Array {
  return decodeBase58(s);
}

/** Bytes → base58 string (32-byte keys are memoised). */
export function bytesToBase58(bytes: Uint8Array): string {
  if (bytes.length !== 32) return encodeBase58(bytes);
  const slot = (bytes[0] | (bytes[1] << 8) | (bytes[2] << 16)) & (KEY_SLOTS - 1);
  const hit = keySlotText[slot];
  const at = slot * 32;
  if (hit !== undefined) {
    let same = true;
    for (let i = 0; i < 32; i++) {
      if (keySlotBytes[at + i] !== bytes[i]) {
        same = false;
        break;
      }
    }
    if (same) return hit;
  }
  const s = encodeBase58(bytes);
  keySlotBytes.set(bytes, at);
  keySlotText[slot] = s;
  validAddressSlots[addressSlot(s)] = s;
  return s;
}

export function base64ToBytes(s: string): Uint8Array {
  const b = Buffer.from(s, 'base64');
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

export function bytesToBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64');
}

const ADDRESS_RE = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** True when `s` is a base58 string that decodes to exactly 32 bytes (a valid public key). */
export function isAddress(s: unknown): s is string {
  if (typeof s !== 'string' || s.length < 32 || s.length > 44) return false;
  const slot = addressSlot(s);
  if (validAddressSlots[slot] === s) return true;
  if (!ADDRESS_RE.test(s)) return false;
  try {
    if (decodeBase58(s).length !== 32) return false;
  } catch {
    return false;
  }
  validAddressSlots[slot] = s;
  return true;
}

const SIG_RE = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/;

/** True when `s` is a base58 string that decodes to exactly 64 bytes (a transaction signature). */
export function isSignature(s: unknown): s is string {
  if (typeof s !== 'string' || !SIG_RE.test(s)) return false;
  try {
    return decodeBase58(s).length === 64;
  } catch {
    return false;
  }
}

/** Formats a raw integer amount with `decimals` as a JSON number (the Wallet API's human-readable form). */
export function uiAmount(raw: bigint, decimals: number): number {
  if (decimals === 0) return Number(raw);
  const neg = raw < 0n;
  const abs = neg ? -raw : raw;
  const base = 10n ** BigInt(decimals);
  const whole = abs / base;
  const frac = (abs % base).toString().padStart(decimals, '0');
  const n = Number(`${whole}.${frac}`);
  return neg ? -n : n;
}
