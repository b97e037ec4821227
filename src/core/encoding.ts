/** Byte/text encodings used across the project, backed by @solana/kit codecs. */
import { getBase58Codec, getBase64Codec } from '@solana/kit';

const b58 = getBase58Codec();
const b64 = getBase64Codec();

/** Base58 string → bytes; throws on characters outside the alphabet. */
export function base58ToBytes(s: string): Uint8Array {
  return b58.encode(s) as Uint8Array;
}

/** Bytes → base58 string. */
export function bytesToBase58(bytes: Uint8Array): string {
  return b58.decode(bytes);
}

export function base64ToBytes(s: string): Uint8Array {
  return b64.encode(s) as Uint8Array;
}

export function bytesToBase64(bytes: Uint8Array): string {
  return b64.decode(bytes);
}

const ADDRESS_RE = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** True when `s` is a base58 string that decodes to exactly 32 bytes (a valid public key). */
export function isAddress(s: unknown): s is string {
  if (typeof s !== 'string' || !ADDRESS_RE.test(s)) return false;
  try {
    return base58ToBytes(s).length === 32;
  } catch {
    return false;
  }
}

const SIG_RE = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/;

/** True when `s` is a base58 string that decodes to exactly 64 bytes (a transaction signature). */
export function isSignature(s: unknown): s is string {
  if (typeof s !== 'string' || !SIG_RE.test(s)) return false;
  try {
    return base58ToBytes(s).length === 64;
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
