/**
 * The project's Poseidon (generated WebAssembly, parameters from the Grain LFSR) against Light's own build of
 * light-poseidon (`@lightprotocol/hasher.rs`, the reference the on-chain programs, the prover and Photon share):
 * every input count 1..12 on random field elements and on the edges (0, 1, modulus − 1); the batch entry point
 * against single hashes; circomlib's published constants; and the batch proof verifier against the one-proof
 * verifier on valid, tampered and malformed proofs. The module runs the optimised form of the permutation (sparse
 * partial rounds, `optimizedPoseidonParams`): that form is compared with the permutation as specified (BigInt) for
 * every width, and the module with the specification on many random inputs. The pair memo keeps giving the hash
 * function's results when it is small enough to evict.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { WasmFactory, type HasherLoadOptions, type LightWasm } from '@lightprotocol/hasher.rs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BN254_FIELD_MODULUS,
  bigintToBytes32,
  initPoseidon,
  isFieldNode,
  poseidon,
  poseidonBatch,
  pairMemoSize,
  PAIR_MEMO_SIZE,
  poseidonBatch as batchOf,
  poseidonPairs,
  setPairMemoLimit,
} from '../../../src/proofs/light/poseidon.js';
import { optimizedPoseidonParams, poseidonParams, poseidonPermute, poseidonPermuteOptimized } from '../../../src/proofs/light/poseidon-params.js';
import { computeLightRoot, verifyLightProof, verifyLightProofsBatch, type LightProofBytes } from '../../../src/proofs/light/merkle-proof.js';
import { SolgateError } from '../../../src/core/errors.js';
import { noisyProofBatch, proofPathArb } from './helpers.js';

let light: LightWasm;

beforeAll(async () => {
  await initPoseidon();
  // Light's non-SIMD build, from the package's file (the inlined module warns about a deprecated init form).
  const simdPath = createRequire(import.meta.url).resolve('@lightprotocol/hasher.rs/simd.wasm');
  const input = { module_or_path: readFileSync(join(dirname(simdPath), 'light_wasm_hasher_bg.wasm')) };
  const creator = await WasmFactory.loadModule({ simd: false, wasm: { simd: input, sisd: input } } as unknown as HasherLoadOptions);
  light = creator.create();
});

const P = BN254_FIELD_MODULUS;
const reference = (xs: readonly bigint[]) => Buffer.from(light.poseidonHash(xs.map((x) => x.toString(10)))).toString('hex');
const ours = (xs: readonly bigint[]) => Buffer.from(poseidon(xs)).toString('hex');
const field = fc.bigInt({ min: 0n, max: P - 1n });
const edgy = fc.oneof(field, fc.constantFrom(0n, 1n, 2n, P - 1n, P - 2n, (1n << 248n) - 1n, (1n << 253n) + 7n));

describe('equals light-poseidon', () => {
  for (let n = 1; n <= 12; n++) {
    it(`${n} input(s)`, () => {
      fc.assert(
        fc.property(fc.array(edgy, { minLength: n, maxLength: n }), (xs) => {
          expect(ours(xs)).toBe(reference(xs));
        }),
        { numRuns: n <= 3 ? 60 : 12 },
      );
    });
  }
});

describe('circomlib constants (poseidon_constants.js, t = 3)', () => {
  it('first round constant and first MDS entry', () => {
    const p = poseidonParams(3);
    expect(p.roundConstants[0].toString(16)).toBe('ee9a592ba9a9518d05986d656f40c2114c4993c11bb29938d21d47304cd8e6e');
    expect(p.mds[0][0].toString(16)).toBe('109b7f411ba0e4c9b2b70caf5c36a7b194be7c11ad24378bfedb68592ba8118b');
    expect(p.roundConstants).toHaveLength((8 + 57) * 3);
  });
});

describe('optimised permutation (sparse partial rounds)', () => {
  const bytesOf = (x: bigint) => Buffer.from(bigintToBytes32(x)).toString('hex');

  it('equals the permutation as specified for every width 2..13, on random states and the zero state', () => {
    for (let t = 2; t <= 13; t++) {
      fc.assert(
        fc.property(fc.array(edgy, { minLength: t, maxLength: t }), (state) => {
          expect(poseidonPermuteOptimized(state)).toEqual(poseidonPermute(state));
        }),
        { numRuns: t <= 4 ? 25 : 4 },
      );
      expect(poseidonPermuteOptimized(Array<bigint>(t).fill(0n))).toEqual(poseidonPermute(Array<bigint>(t).fill(0n)));
      const o = optimizedPoseidonParams(t);
      expect(o.partialConstants).toHaveLength(o.partialRounds);
      expect(o.sparseRows.every((r) => r.length === t)).toBe(true);
      expect(o.sparseColumns.every((c) => c.length === t - 1)).toBe(true);
    }
  });

  it('the module equals the specification (state [0, inputs…], first element) on many random inputs', () => {
    for (let arity = 1; arity <= 12; arity++) {
      const count = arity === 2 ? 400 : arity === 3 ? 100 : 15;
      const values = fc.sample(edgy, count * arity);
      const input = new Uint8Array(count * arity * 32);
      values.forEach((v, i) => input.set(bigintToBytes32(v), 32 * i));
      const out = batchOf(arity, input, count);
      for (let k = 0; k < count; k++) {
        const want = poseidonPermute([0n, ...values.slice(k * arity, (k + 1) * arity)])[0];
        expect(Buffer.from(out.subarray(32 * k, 32 * k + 32)).toString('hex')).toBe(bytesOf(want));
      }
    }
  });
});

describe('poseidonBatch', () => {
  it('equals one poseidon per group, for 2 and 3 inputs, across the module’s per-call limit', () => {
    for (const arity of [2, 3]) {
      const count = arity === 2 ? 4100 : 5; // 4,100 pairs cross the 4,096 hashes one module call returns
      const values = Array.from({ length: count * arity }, (_, i) => (BigInt(i) * 0x9e3779b97f4a7c15n + 3n) % P);
      const input = new Uint8Array(count * arity * 32);
      values.forEach((v, i) => input.set(bigintToBytes32(v), 32 * i));
      const out = poseidonBatch(arity, input, count);
      expect(out).toHaveLength(32 * count);
      for (const k of [0, 1, count - 1, ...(count > 4096 ? [4095, 4096] : [])]) {
        expect(Buffer.from(out.subarray(32 * k, 32 * k + 32)).toString('hex')).toBe(reference(values.slice(k * arity, k * arity + arity)));
      }
    }
  });

  it('refuses an element not below the modulus, a wrong length or a wrong arity; zero groups give nothing', () => {
    const bad = new Uint8Array(64);
    bad.set(bigintToBytes32(P), 32);
    expect(() => poseidonBatch(2, bad, 1)).toThrow(/not a BN254 field element/);
    expect(() => poseidonBatch(2, new Uint8Array(63), 1)).toThrow(SolgateError);
    expect(() => poseidonBatch(13, new Uint8Array(13 * 32), 1)).toThrow(/1\.\.12 inputs/);
    expect(poseidonBatch(2, new Uint8Array(0), 0)).toHaveLength(0);
  });

  it('poseidonPairs equals Poseidon of each pair, remembered pairs (repeated, or seen before) included', () => {
    const values = Array.from({ length: 12 }, (_, i) => (BigInt(i + 1) * 0x51ed2705n + 11n) % P);
    const pairs = [[0, 1], [2, 3], [0, 1], [4, 5], [2, 3], [6, 7]];
    const input = new Uint8Array(pairs.length * 64);
    pairs.forEach(([a, b], k) => {
      input.set(bigintToBytes32(values[a]), 64 * k);
      input.set(bigintToBytes32(values[b]), 64 * k + 32);
    });
    for (let round = 0; round < 2; round++) {
      const out = poseidonPairs(input, pairs.length);
      pairs.forEach(([a, b], k) => expect(Buffer.from(out.subarray(32 * k, 32 * k + 32)).toString('hex')).toBe(reference([values[a], values[b]])));
    }
    const bad = new Uint8Array(64);
    bad.set(bigintToBytes32(P), 0);
    expect(() => poseidonPairs(bad, 1)).toThrow(/not a BN254 field element/);
    expect(() => poseidonPairs(new Uint8Array(65), 1)).toThrow(SolgateError);
  });

  it('a pair memo small enough to evict still answers every pair with its hash', () => {
    expect(pairMemoSize().limit).toBe(PAIR_MEMO_SIZE);
    setPairMemoLimit(5000); // rounded down to 4,096 pairs
    try {
      expect(pairMemoSize()).toMatchObject({ limit: 4096, filled: 0 });
      const count = 3 * 4096;
      const input = new Uint8Array(count * 64);
      for (let i = 0; i < count * 2; i++) input.set(bigintToBytes32((BigInt(i) * 0x9e3779b97f4a7c15n + 5n) % P), 32 * i);
      const direct = batchOf(2, input, count);
      for (let round = 0; round < 2; round++) {
        expect(Buffer.from(poseidonPairs(input, count)).equals(Buffer.from(direct))).toBe(true);
        expect(pairMemoSize().filled).toBeLessThanOrEqual(4096);
      }
    } finally {
      setPairMemoLimit(PAIR_MEMO_SIZE);
    }
    expect(() => setPairMemoLimit(0)).toThrow(SolgateError);
  });

  it('isFieldNode: 32 bytes below the modulus', () => {
    expect(isFieldNode(bigintToBytes32(P - 1n))).toBe(true);
    expect(isFieldNode(bigintToBytes32(P))).toBe(false);
    expect(isFieldNode(new Uint8Array(31))).toBe(false);
  });
});

describe('verifyLightProofsBatch', () => {
  it('agrees with verifyLightProof on valid proofs, tampered ones and malformed input, proofs sharing nodes included', () => {
    fc.assert(
      fc.property(fc.array(proofPathArb(12), { minLength: 1, maxLength: 12 }), fc.array(fc.nat(), { minLength: 12, maxLength: 12 }), (base, noise) => {
        const proofs = noisyProofBatch(base, noise);
        const batch = verifyLightProofsBatch(proofs);
        const one = proofs.map((p) => verifyLightProof({ root: p.root, leaf: p.leaf, proof: p.siblings, leafIndex: p.leafIndex }));
        expect(batch).toEqual(one);
        expect(batch.filter(Boolean).length).toBeGreaterThanOrEqual(base.length);
      }),
      { numRuns: 40 },
    );
  });

  it('pairs that differ only above their low bytes (the same slot of the batch table) are told apart', () => {
    const siblings = Array.from({ length: 6 }, (_, k) => bigintToBytes32(BigInt(k + 3) * 0x1234567n));
    const leaves = Array.from({ length: 40 }, (_, i) => {
      const leaf = bigintToBytes32((BigInt(i + 1) << 200n) | 0xabcdefn); // the same last bytes
      return leaf;
    });
    const proofs = leaves.map((leaf, i) => ({ leaf, siblings, leafIndex: i % 64, root: computeLightRoot(leaf, siblings, i % 64) }));
    proofs.push({ ...proofs[3], root: proofs[4].root }); // another leaf's root
    const batch = verifyLightProofsBatch(proofs);
    expect(batch).toEqual([...leaves.map(() => true), false]);
  });

  it('never throws on garbage', () => {
    const junk = [{ leaf: new Uint8Array(32), siblings: 'x', leafIndex: 0, root: new Uint8Array(32) }, { leaf: null, siblings: [], leafIndex: -1, root: undefined }];
    expect(verifyLightProofsBatch(junk as unknown as LightProofBytes[])).toEqual([false, false]);
    expect(verifyLightProofsBatch([])).toEqual([]);
  });
});
