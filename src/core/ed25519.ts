/**
 * Ed25519 signature verification for Sender admission (src/sender/validate.ts): libsodium through `sodium-native`
 * (an optional dependency with prebuilt binaries for Linux, macOS and Windows on x64 and arm64) where it loads,
 * Node.js's own (OpenSSL) otherwise.
 *
 * Why two: libsodium verified a transaction signature in 39-44 µs where `crypto.verify` took 93-95 µs on the 2-core
 * development machine (docs/benchmarks.md#sender-sodium), about a third of the gateway's own work per
 * `POST /fast`. Both accept the signatures of real transactions and refuse altered ones, unreduced scalars (a
 * malleated `S + L`) and public keys of small order (test/core/ed25519.test.ts).
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';

interface Sodium {
  crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
}

function loadSodium(): Sodium | null {
  try {
    const s = createRequire(import.meta.url)('sodium-native') as Partial<Sodium>;
    return typeof s.crypto_sign_verify_detached === 'function' ? (s as Sodium) : null;
  } catch {
    return null;
  }
}

const sodium = loadSodium();

/** Which implementation verifies: `libsodium` (sodium-native) or `openssl` (node:crypto). */
export const ed25519Implementation: 'libsodium' | 'openssl' = sodium ? 'libsodium' : 'openssl';

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** Signers' public keys as key objects for OpenSSL (a signer usually sends more than once); cleared when full. */
const publicKeys = new Map<string, KeyObject>();

/** Whether `signature` (64 bytes) is `publicKey`'s (32 bytes) Ed25519 signature of `message`. */
export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  if (sodium) return sodium.crypto_sign_verify_detached(signature, message, publicKey);
  return verifyOpenSsl(publicKey, message, signature);
}

/** The same through node:crypto whichever is loaded (tests compare the two). */
export function verifyOpenSsl(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const id = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString('latin1');
  let key = publicKeys.get(id);
  if (!key) {
    key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, publicKey]), format: 'der', type: 'spki' });
    if (publicKeys.size >= 4096) publicKeys.clear();
    publicKeys.set(id, key);
  }
  return verify(null, message, key, signature);
}
