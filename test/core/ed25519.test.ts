/**
 * Ed25519 verification (src/core/ed25519.ts), which Sender admission runs on every signature: libsodium (sodium-native)
 * where it loads, OpenSSL (node:crypto) otherwise. Both must accept the real signatures of recorded mainnet
 * transactions and refuse altered ones, non-canonical scalars and keys of small order, and agree with each other.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { ed25519Implementation, verifyEd25519, verifyOpenSsl } from '../../src/core/ed25519.js';
import { parseWireTransaction } from '../../src/core/wire-transaction.js';

const BLOCK = 'test/fixtures/photon-blocks/index_block_metadata/254170887';
/** The group order L of Ed25519, little-endian. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

interface Case {
  key: Uint8Array;
  message: Uint8Array;
  signature: Uint8Array;
}

/** Every signature of the first `n` transactions of the recorded mainnet block, with its signer and message. */
function recordedSignatures(n: number): Case[] {
  const block = JSON.parse(readFileSync(BLOCK, 'utf8')) as { transactions: { transaction: [string, string] }[] };
  const out: Case[] = [];
  for (const t of block.transactions.slice(0, n)) {
    const bytes = Buffer.from(t.transaction[0], 'base64');
    const tx = parseWireTransaction(bytes);
    // The message follows the signature count (one byte below 128) and the signatures.
    const message = bytes.subarray(1 + 64 * tx.signatures.length);
    tx.signatures.forEach((signature, i) => out.push({ key: tx.staticKeys[i], message, signature }));
  }
  return out;
}

const both = (c: Case) => [verifyEd25519(c.key, c.message, c.signature), verifyOpenSsl(c.key, c.message, c.signature)];

function le32(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = Number((v >> BigInt(8 * i)) & 0xffn);
  return out;
}

function fromLe(b: Uint8Array): bigint {
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]);
  return v;
}

describe('ed25519 verification', () => {
  it('uses libsodium where sodium-native is installed', () => {
    let installed = true;
    try {
      createRequire(import.meta.url).resolve('sodium-native');
    } catch {
      installed = false;
    }
    expect(ed25519Implementation).toBe(installed ? 'libsodium' : 'openssl');
  });

  it('accepts the signatures of real mainnet transactions and refuses them altered', () => {
    const cases = recordedSignatures(80);
    expect(cases.length).toBeGreaterThanOrEqual(80);
    for (const c of cases) {
      expect(both(c)).toEqual([true, true]);
      const message = Uint8Array.from(c.message);
      message[message.length - 1] ^= 1;
      expect(both({ ...c, message })).toEqual([false, false]);
      const signature = Uint8Array.from(c.signature);
      signature[10] ^= 0x40;
      expect(both({ ...c, signature })).toEqual([false, false]);
      const key = Uint8Array.from(c.key);
      key[3] ^= 2;
      expect(both({ ...c, key })).toEqual([false, false]);
    }
  });

  it('accepts signatures made by node:crypto keys over messages of many lengths', () => {
    for (let len = 0; len < 1300; len += 97) {
      const { publicKey, privateKey } = generateKeyPairSync('ed25519');
      const key = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
      const message = Buffer.alloc(len, len & 0xff);
      const signature = sign(null, message, privateKey);
      expect(both({ key, message, signature })).toEqual([true, true]);
    }
  });

  it('refuses a signature whose scalar is not reduced (S + L: the same point equation, a malleated signature)', () => {
    const [c] = recordedSignatures(1);
    const s = fromLe(c.signature.subarray(32));
    const malleated = new Uint8Array(64);
    malleated.set(c.signature.subarray(0, 32));
    malleated.set(le32(s + L), 32);
    expect(both({ ...c, signature: malleated })).toEqual([false, false]);
  });

  it('refuses signatures against keys of small order, which any signature would otherwise satisfy', () => {
    const [c] = recordedSignatures(1);
    // The identity (0, 1) and the point of order 2 (0, -1).
    const identity = new Uint8Array(32);
    identity[0] = 1;
    const order2 = new Uint8Array(32).fill(0xff);
    order2[0] = 0xec;
    order2[31] = 0x7f;
    for (const key of [identity, order2]) expect(both({ ...c, key })).toEqual([false, false]);
  });

  it('refuses keys and signatures of the wrong length', () => {
    const [c] = recordedSignatures(1);
    expect(verifyEd25519(c.key.subarray(0, 31), c.message, c.signature)).toBe(false);
    expect(verifyEd25519(c.key, c.message, c.signature.subarray(0, 63))).toBe(false);
  });
});
