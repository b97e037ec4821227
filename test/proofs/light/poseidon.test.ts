/**
 * Poseidon (BN254, circom parameters) through Light's WASM hasher, against published vectors:
 * - circomlib `test/poseidonjs.js` and the Sui/Aptos Poseidon tests: Poseidon([1]), Poseidon([1,2]), Poseidon([1,2,3,4]);
 * - light-poseidon `light-poseidon/tests/bn254_fq_x5.rs`: ones/twos, one-two (little-endian output), a random
 *   pair, inputs of 1 repeated 1..12 times (circomlibjs), and the rejection of 13 inputs and of inputs ≥ modulus;
 * - stateless.js `tests/unit/utils/conversion.test.ts`: hashToBn254FieldSizeBe.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BN254_FIELD_MODULUS,
  bigintToBytes32,
  bytesToBigint,
  initPoseidon,
  isFieldElement,
  isPoseidonReady,
  poseidon,
  poseidonBigint,
  poseidonPair,
  toFieldElement,
} from '../../../src/proofs/light/poseidon.js';
import { hashToBn254FieldSizeBe } from '../../../src/proofs/light/account-hash.js';
import { SolgateError } from '../../../src/core/errors.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (xs: number[]) => Uint8Array.from(xs);

beforeAll(async () => {
  await initPoseidon();
});

describe('initialisation', () => {
  it('is ready after initPoseidon, and a second call shares the first load', async () => {
    expect(isPoseidonReady()).toBe(true);
    expect(initPoseidon()).toBe(initPoseidon());
    await initPoseidon();
  });
});

describe('circomlib vectors', () => {
  it('Poseidon([1, 2]) = 7853200120776062878684798364095072458815029376092732009249414926327459813530', () => {
    expect(poseidonBigint([1n, 2n])).toBe(
      7853200120776062878684798364095072458815029376092732009249414926327459813530n,
    );
    expect(hex(poseidon([1n, 2n]))).toBe('115cc0f5e7d690413df64c6b9662e9cf2a3617f2743245519e19607a4417189a');
  });

  it('Poseidon([1]) and Poseidon([1, 2, 3, 4])', () => {
    expect(poseidonBigint([1n])).toBe(18586133768512220936620570745912940619677854269274689475585506675881198879027n);
    expect(hex(poseidon([1n, 2n, 3n, 4n]))).toBe('299c867db6c1fdd79dcefa40e4510b9837e60ebb1ce0663dbaa525df65250465');
  });
});

describe('light-poseidon vectors (tests/bn254_fq_x5.rs)', () => {
  it('hash_bytes_be([1u8; 32], [2u8; 32])', () => {
    const out = poseidon([new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)]);
    expect(Array.from(out)).toEqual([
      13, 84, 225, 147, 143, 138, 140, 28, 125, 235, 94, 3, 85, 242, 99, 25, 32, 123, 132, 254, 156, 162, 206, 27, 38,
      231, 53, 200, 41, 130, 25, 144,
    ]);
  });

  it('one-two, output little-endian', () => {
    const le = Array.from(poseidon([bytes([1]), bytes([2])])).reverse();
    expect(le).toEqual([
      154, 24, 23, 68, 122, 96, 25, 158, 81, 69, 50, 116, 242, 23, 54, 42, 207, 233, 98, 150, 107, 76, 246, 61, 65,
      144, 214, 231, 245, 192, 92, 17,
    ]);
  });

  it('Poseidon(1, 1) whatever the input width (short big-endian inputs are left-padded)', () => {
    const expected = [
      0, 122, 243, 70, 226, 211, 4, 39, 158, 121, 224, 169, 243, 2, 63, 119, 18, 148, 167, 138, 203, 112, 231, 63, 144,
      175, 226, 124, 173, 64, 30, 129,
    ];
    expect(Array.from(poseidon([bytes([1]), bytes([1])]))).toEqual(expected);
    expect(Array.from(poseidon([bytes([0, 1]), bytes([0, 1])]))).toEqual(expected);
    expect(Array.from(poseidon([bytes([0, 0, 1]), 1n]))).toEqual(expected);
  });

  it('random pair, output little-endian', () => {
    const a = bytes([
      0x06, 0x9c, 0x63, 0x81, 0xac, 0x0b, 0x96, 0x8e, 0x88, 0x1c, 0x91, 0x3c, 0x17, 0xd8, 0x36, 0x06, 0x7f, 0xd1, 0x5f,
      0x2c, 0xc7, 0x9f, 0x90, 0x2c, 0x80, 0x70, 0xb3, 0x6d, 0x28, 0x66, 0x17, 0xdd,
    ]);
    // The second input is above the modulus in the Rust test, which reduces it (from_be_bytes_mod_order).
    const b = bytesToBigint(
      bytes([
        0xc3, 0x3b, 0x60, 0x04, 0x2f, 0x76, 0xc7, 0xfb, 0xd0, 0x5d, 0xb7, 0x76, 0x23, 0xcb, 0x17, 0xb8, 0x1d, 0x49, 0x41,
        0x4b, 0x82, 0xe5, 0x6a, 0x2e, 0xc0, 0x18, 0xf7, 0xa5, 0x5c, 0x3f, 0x30, 0x0b,
      ]),
    );
    const le = Array.from(poseidon([a, b % BN254_FIELD_MODULUS])).reverse();
    expect(le).toEqual([
      75, 85, 249, 42, 66, 238, 230, 151, 158, 90, 250, 51, 131, 212, 131, 18, 151, 235, 96, 103, 135, 243, 186, 61,
      173, 135, 52, 77, 132, 173, 19, 10,
    ]);
  });

  // circomlibjs poseidon([1, ...]) for 1..12 inputs (light-poseidon TEST_CASES)
  const ONES: number[][] = [
    [41, 23, 97, 0, 234, 169, 98, 189, 193, 254, 108, 101, 77, 106, 60, 19, 14, 150, 164, 209, 22, 139, 51, 132, 139, 137, 125, 197, 2, 130, 1, 51],
    [0, 122, 243, 70, 226, 211, 4, 39, 158, 121, 224, 169, 243, 2, 63, 119, 18, 148, 167, 138, 203, 112, 231, 63, 144, 175, 226, 124, 173, 64, 30, 129],
    [2, 192, 6, 110, 16, 167, 42, 189, 43, 51, 195, 178, 20, 203, 62, 129, 188, 177, 182, 227, 9, 97, 205, 35, 194, 2, 177, 134, 115, 191, 37, 67],
    [8, 44, 156, 55, 10, 13, 36, 244, 65, 111, 188, 65, 74, 55, 104, 31, 120, 68, 45, 39, 216, 99, 133, 153, 28, 23, 214, 252, 12, 75, 125, 113],
    [16, 56, 150, 5, 174, 104, 141, 79, 20, 219, 133, 49, 34, 196, 125, 102, 168, 3, 199, 43, 65, 88, 156, 177, 191, 134, 135, 65, 178, 6, 185, 187],
    [42, 115, 246, 121, 50, 140, 62, 171, 114, 74, 163, 229, 189, 191, 80, 179, 144, 53, 215, 114, 159, 19, 91, 151, 9, 137, 15, 133, 197, 220, 94, 118],
    [34, 118, 49, 10, 167, 243, 52, 58, 40, 66, 20, 19, 157, 157, 169, 89, 190, 42, 49, 178, 199, 8, 165, 248, 25, 84, 178, 101, 229, 58, 48, 184],
    [23, 126, 20, 83, 196, 70, 225, 176, 125, 43, 66, 51, 66, 81, 71, 9, 92, 79, 202, 187, 35, 61, 35, 11, 109, 70, 162, 20, 217, 91, 40, 132],
    [14, 143, 238, 47, 228, 157, 163, 15, 222, 235, 72, 196, 46, 187, 68, 204, 110, 231, 5, 95, 97, 251, 202, 94, 49, 59, 138, 95, 202, 131, 76, 71],
    [46, 196, 198, 94, 99, 120, 171, 140, 115, 48, 133, 79, 74, 112, 119, 193, 255, 146, 96, 228, 72, 133, 196, 184, 29, 209, 49, 173, 58, 134, 205, 150],
    [0, 113, 61, 65, 236, 166, 53, 241, 23, 212, 236, 188, 235, 95, 58, 102, 220, 65, 66, 235, 112, 181, 103, 101, 188, 53, 143, 27, 236, 64, 187, 155],
    [20, 57, 11, 224, 186, 239, 36, 155, 212, 124, 101, 221, 172, 101, 194, 229, 46, 133, 19, 192, 129, 193, 205, 114, 201, 128, 6, 9, 142, 154, 143, 190],
  ];
  for (let n = 1; n <= 12; n++) {
    it(`${n} input(s) of 1`, () => {
      expect(Array.from(poseidon(Array.from({ length: n }, () => 1n)))).toEqual(ONES[n - 1]);
      expect(Array.from(poseidon(Array.from({ length: n }, () => 2n)))).not.toEqual(ONES[n - 1]);
    });
  }
});

describe('input checks', () => {
  it('takes 1..12 inputs', () => {
    expect(() => poseidon([])).toThrow(SolgateError);
    expect(() => poseidon(Array.from({ length: 13 }, () => 1n))).toThrow(/1\.\.12 inputs/);
  });

  it('refuses values not below the modulus, negative values and inputs longer than 32 bytes', () => {
    expect(() => poseidon([BN254_FIELD_MODULUS])).toThrow(/not a BN254 field element/);
    expect(() => poseidon([bigintToBytes32(BN254_FIELD_MODULUS)])).toThrow(/not a BN254 field element/);
    expect(() => poseidon([-1n])).toThrow(SolgateError);
    expect(() => poseidon([new Uint8Array(33)])).toThrow(/at most 32 bytes/);
    // light-poseidon boundaries: modulus + 1 as bytes
    const gt = bytes([48, 100, 78, 114, 225, 49, 160, 41, 184, 80, 69, 182, 129, 129, 88, 93, 40, 51, 232, 72, 121, 185, 112, 145, 67, 225, 245, 147, 240, 0, 0, 2]);
    expect(() => poseidon([gt])).toThrow(SolgateError);
    expect(poseidon([BN254_FIELD_MODULUS - 1n])).toHaveLength(32);
  });

  it('field element helpers', () => {
    expect(isFieldElement(0n)).toBe(true);
    expect(isFieldElement(BN254_FIELD_MODULUS - 1n)).toBe(true);
    expect(isFieldElement(BN254_FIELD_MODULUS)).toBe(false);
    expect(isFieldElement(new Uint8Array(32).fill(255))).toBe(false);
    expect(isFieldElement(new Uint8Array(33))).toBe(false);
    expect(toFieldElement(bytes([1, 0]))).toBe(256n);
    expect(bytesToBigint(new Uint8Array(0))).toBe(0n);
    const v = 0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20n;
    expect(bytesToBigint(bigintToBytes32(v))).toBe(v);
    expect(bigintToBytes32(1n)[31]).toBe(1);
    expect(() => bigintToBytes32(1n << 256n)).toThrow(SolgateError);
    expect(() => bigintToBytes32(-1n)).toThrow(SolgateError);
  });

  it('poseidonPair(l, r) = poseidon([l, r]) and order matters', () => {
    const l = bigintToBytes32(5n);
    const r = bigintToBytes32(9n);
    expect(poseidonPair(l, r)).toEqual(poseidon([5n, 9n]));
    expect(poseidonPair(l, r)).not.toEqual(poseidonPair(r, l));
  });
});

describe('hashToBn254FieldSizeBe (stateless.js conversion.test.ts)', () => {
  it('matches the reference result', () => {
    const input = bytes([
      131, 219, 249, 246, 221, 196, 33, 3, 114, 23, 121, 235, 18, 229, 71, 152, 39, 87, 169, 208, 143, 101, 43, 128,
      245, 59, 22, 134, 182, 231, 116, 33,
    ]);
    expect(Array.from(hashToBn254FieldSizeBe(input))).toEqual([
      0, 146, 15, 187, 171, 163, 183, 93, 237, 121, 37, 231, 55, 162, 208, 188, 244, 77, 185, 157, 93, 9, 101, 193,
      220, 247, 109, 94, 48, 212, 98, 149,
    ]);
  });

  it('always yields a field element with a zero first byte; parts are concatenated', () => {
    const h = hashToBn254FieldSizeBe(new Uint8Array(32).fill(255));
    expect(h[0]).toBe(0);
    expect(isFieldElement(h)).toBe(true);
    expect(hashToBn254FieldSizeBe(bytes([1, 2]), bytes([3]))).toEqual(hashToBn254FieldSizeBe(bytes([1, 2, 3])));
  });
});
