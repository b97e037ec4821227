/**
 * nodeToBase58's 32-byte path (long division by 58^5) against the bs58 package on random nodes, nodes with leading
 * zero bytes, all zeros and all ones; other lengths go through bs58 itself. Round trip through nodeFromBase58. The
 * proof methods' cached encoder (nodeText) gives the same text for nodes that share its cache slot.
 */
import bs58 from 'bs58';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeFromBase58, nodeToBase58 } from '../../src/proofs/hash.js';
import { nodeText } from '../../src/api/zk/state-proofs.js';

describe('nodeToBase58', () => {
  it('equals bs58 on 32-byte nodes, leading zeros included, and round-trips', () => {
    const node = fc.tuple(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.integer({ min: 0, max: 32 }), fc.constantFrom(0, 255)).map(([b, n, fill]) => {
      b.fill(fill, 0, n);
      return b;
    });
    fc.assert(
      fc.property(node, (b) => {
        const text = nodeToBase58(b);
        expect(text).toBe(bs58.encode(b));
        expect(nodeFromBase58(text)).toEqual(b);
      }),
      { numRuns: 2000 },
    );
    expect(nodeToBase58(new Uint8Array(32))).toBe('1'.repeat(32));
    expect(nodeToBase58(new Uint8Array(32).fill(255))).toBe(bs58.encode(new Uint8Array(32).fill(255)));
  });

  it('other lengths as bs58 does', () => {
    for (const n of [0, 1, 31, 33, 64]) {
      const b = Uint8Array.from({ length: n }, (_, i) => (i * 37) % 256);
      expect(nodeToBase58(b)).toBe(bs58.encode(b));
    }
  });
});

describe('nodeFromBase58', () => {
  const reference = (text: string) => {
    try {
      const b = bs58.decode(text);
      return b.length === 32 ? Uint8Array.from(b) : undefined;
    } catch {
      return undefined;
    }
  };
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

  it('decodes as bs58 does, giving only 32-byte results: random texts of 30..46 digits, leading 1s, bad characters', () => {
    const digit = fc.constantFrom(...alphabet.split(''));
    const text = fc.tuple(fc.integer({ min: 0, max: 33 }), fc.array(digit, { minLength: 0, maxLength: 46 }), fc.constantFrom('', '', '', '0', 'O', 'l', 'I', 'é', ' '), fc.nat())
      .map(([ones, digits, bad, at]) => {
        const t = '1'.repeat(ones) + digits.join('');
        return bad ? t.slice(0, at % (t.length + 1)) + bad + t.slice(at % (t.length + 1)) : t;
      });
    fc.assert(
      fc.property(text, (t) => {
        expect(nodeFromBase58(t)).toEqual(reference(t));
      }),
      { numRuns: 5000 },
    );
    const max = bs58.encode(new Uint8Array(32).fill(255));
    expect(nodeFromBase58(max)).toEqual(new Uint8Array(32).fill(255));
    expect(nodeFromBase58(max.slice(0, -1) + 'z')).toEqual(reference(max.slice(0, -1) + 'z')); // above 2^256 - 1
    expect(nodeFromBase58('z'.repeat(44))).toBeUndefined();
    expect(nodeFromBase58('1'.repeat(32))).toEqual(new Uint8Array(32));
    expect(nodeFromBase58('1'.repeat(33))).toBeUndefined();
  });
});

describe('nodeText (cached)', () => {
  it('is nodeToBase58, also for nodes that take the same slot in turn', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { minLength: 1, maxLength: 20 }), (nodes) => {
        // the same low bytes (the same slot), different high bytes
        const twins = nodes.map((n) => {
          const t = n.slice();
          t[0] ^= 0x5a;
          return t;
        });
        for (let round = 0; round < 2; round++) {
          for (let i = 0; i < nodes.length; i++) {
            expect(nodeText(nodes[i])).toBe(bs58.encode(nodes[i]));
            expect(nodeText(twins[i])).toBe(bs58.encode(twins[i]));
          }
        }
      }),
      { numRuns: 200 },
    );
    expect(nodeText(Uint8Array.from([1, 2, 3]))).toBe(bs58.encode(Uint8Array.from([1, 2, 3])));
  });
});
