/**
 * The wide-limb base58 codec (src/core/base58.ts) gives exactly what `bs58` gives: on every length up to a few
 * hundred bytes and on long ones (the BigInt path of texts from 272 characters: 1-2 KB instruction data), with
 * and without leading zeros (leading '1's), all-zero and all-0xff values, and it rejects what `bs58` rejects.
 */
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { decodeBase58, encodeBase58 } from '../../src/core/base58.js';
import { base58ToBytes, bytesToBase58, isAddress, isSignature } from '../../src/core/encoding.js';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Deterministic bytes (xorshift), so a failure names a reproducible case. */
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) & 0xff;
  };
}

function samples(): Uint8Array[] {
  const next = prng(21);
  const out: Uint8Array[] = [];
  for (let len = 0; len <= 300; len++) {
    for (let k = 0; k < 12; k++) {
      const b = Uint8Array.from({ length: len }, next);
      // Leading zeros (0-3 of them), all zeros, all 0xff.
      for (let i = 0; i < Math.min(k % 4, len); i++) b[i] = 0;
      if (k === 4) b.fill(0);
      if (k === 5) b.fill(0xff);
      out.push(b);
    }
  }
  for (const len of [511, 512, 1000, 1232, 2048]) {
    for (let k = 0; k < 6; k++) {
      const b = Uint8Array.from({ length: len }, next);
      for (let i = 0; i < k % 4; i++) b[i] = 0;
      if (k === 4) b.fill(0);
      if (k === 5) b.fill(0xff);
      out.push(b);
    }
  }
  return out;
}

describe('base58 codec', () => {
  it('encodes and decodes as bs58 does', () => {
    for (const b of samples()) {
      const text = bs58.encode(b);
      expect(encodeBase58(b)).toBe(text);
      const back = decodeBase58(text);
      expect(back).toBeInstanceOf(Uint8Array);
      expect(Buffer.from(back).equals(Buffer.from(bs58.decode(text)))).toBe(true);
    }
  });

  it('gives the same whatever came before: a long value, then short ones, alternating (the limbs are reused)', () => {
    const all = samples();
    const longFirst = [...all].reverse();
    // Each short value right after a long one, so any limb a longer conversion left behind would show.
    const alternating = all.flatMap((b, i) => [all[all.length - 1 - i], b]);
    for (const b of [...longFirst, ...alternating]) {
      const text = bs58.encode(b);
      expect(encodeBase58(b)).toBe(text);
      expect(Buffer.from(decodeBase58(text)).equals(Buffer.from(bs58.decode(text)))).toBe(true);
    }
  });

  it('decodes arbitrary texts (leading 1s included) as bs58 does', () => {
    const next = prng(7);
    for (let n = 0; n < 3200; n++) {
      // Short texts, and around the switch to the long path (272 characters after the leading '1's).
      const len = n < 3000 ? n % 97 : 262 + (n % 20);
      const text = '1'.repeat(n % 5) + Array.from({ length: len }, () => ALPHABET[next() % 58]).join('');
      expect(Array.from(decodeBase58(text))).toEqual(Array.from(bs58.decode(text)));
    }
  });

  it('rejects characters outside the alphabet, as bs58 does', () => {
    const long = 'z'.repeat(400);
    for (const bad of ['0', 'abc0', 'O', 'I', 'l', 'ab c', 'é', '\u4e00', '1111+', `${long}0`, `0${long}`, `${long}é`]) {
      expect(() => bs58.decode(bad)).toThrow();
      expect(() => decodeBase58(bad)).toThrow(/Non-base58 character/);
    }
  });

  it('keeps the answers of the encoding helpers built on it', () => {
    const key = Uint8Array.from({ length: 32 }, prng(3));
    const sig = Uint8Array.from({ length: 64 }, prng(4));
    expect(bytesToBase58(key)).toBe(bs58.encode(key));
    expect(bytesToBase58(sig)).toBe(bs58.encode(sig));
    expect(Array.from(base58ToBytes(bs58.encode(sig)))).toEqual(Array.from(sig));
    expect(isAddress(bs58.encode(key))).toBe(true);
    expect(isAddress(bs58.encode(sig))).toBe(false);
    expect(isSignature(bs58.encode(sig))).toBe(true);
    expect(isSignature(bs58.encode(key))).toBe(false);
    expect(isAddress('11111111111111111111111111111111')).toBe(true);
  });

  it('accepts as an address only what decodes to 32 bytes, whatever it met before', () => {
    const next = prng(5);
    for (let i = 0; i < 200; i++) {
      const key = Uint8Array.from({ length: 32 }, next);
      const text = bs58.encode(key);
      // Seen as a key first (cached on encoding) or only as text.
      if (i % 2 === 0) expect(bytesToBase58(key)).toBe(text);
      expect(isAddress(text)).toBe(true);
      // Again, now from the cache.
      expect(isAddress(text)).toBe(true);
      // Same last characters, one character changed before them: an address or not by its own bytes, not by the cache.
      // Longer and shorter text with the same ending, too.
      for (const other of [(text[0] === 'z' ? 'y' : 'z') + text.slice(1), `z${text}`, `2${text}`, text.slice(1)])
        expect(isAddress(other)).toBe(bs58.decode(other).length === 32);
    }
    // One above the largest 32-byte value (2^256 - 1, ending in …WxFG), that value itself, and a character outside the alphabet.
    expect(isAddress('JEKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFH')).toBe(false);
    expect(isAddress('JEKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFG')).toBe(true);
    expect(isAddress('0EKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFG')).toBe(false);
    expect(isAddress('')).toBe(false);
    expect(isAddress(null)).toBe(false);
  });
});
