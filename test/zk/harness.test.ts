/**
 * The photon reference cases through the harness (test/zk/harness.ts), with the seeding stand-in for ingestion
 * (seeded-cases.ts): every open snapshot case whose answer the seeded rows determine is compared with the recorded
 * answer per the cases' compare rules. Validity proofs run against a local fake prover (the proof itself is ignored
 * by the rules, as upstream blanks it); getTransactionWithCompressionInfo gets the recorded transaction file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.js';
import { createProverClient } from '../../src/api/zk/prover.js';
import { comparable, loadPhotonCases, runPhotonCase } from './harness.js';
import { startFakeProver, type FakeProver } from './fake-prover.js';
import { fixtureTransactionFetcher, seededIngest, SEEDS } from './seeded-cases.js';

let prover: FakeProver;
beforeAll(async () => {
  prover = await startFakeProver();
});
afterAll(async () => prover?.close());

describe('photon reference cases (seeded from the recorded answers)', () => {
  const { snapshotCases } = loadPhotonCases();
  it('has a seed for every open snapshot case', () => {
    expect(snapshotCases.map((c) => c.id).sort()).toEqual(Object.keys(SEEDS).sort());
  });
  for (const c of snapshotCases) {
    it(`${c.id}: ${c.queries.map((q) => q.method).join(', ')}`, async () => {
      const ta = await createTestApp({ zk: { prover: createProverClient(prover.url), getTransaction: fixtureTransactionFetcher() } });
      try {
        const outcomes = await runPhotonCase(ta, c, seededIngest);
        expect(outcomes.length).toBe(c.queries.length);
        for (const o of outcomes) {
          expect(o.status, `${c.id} ${o.method}: ${o.reason ?? ''}`).toBe('match');
          expect(o.actual, `${c.id} ${o.method}`).toEqual(o.expected);
        }
      } finally {
        await ta.close();
      }
    });
  }
});

describe('harness compare rules', () => {
  it('reports mismatches and errors (a case run against the wrong data)', async () => {
    const bob = loadPhotonCases().snapshotCases.find((c) => c.id === 'e2e_mint_and_transfer/bob')!;
    const ta = await createTestApp();
    try {
      const outcomes = await runPhotonCase(ta, bob, (t) => SEEDS['mock/get_multiple_new_address_proofs'](t));
      expect(outcomes.map((o) => o.status)).toEqual(['mismatch', 'mismatch', 'error', 'error', 'error', 'mismatch', 'mismatch']);
    } finally {
      await ta.close();
    }
  });

  it('ignorePaths, select, dropFields and derived expectations', () => {
    const q = { compare: { ignorePaths: ['value.compressedProof'] } };
    expect(comparable({ value: { compressedProof: { a: [1] }, roots: ['x'] } }, { value: { compressedProof: { a: [] }, roots: ['x'] } }, q)).toEqual({
      actual: { value: { roots: ['x'] } },
      expected: { value: { roots: ['x'] } },
    });
    expect(comparable({ value: { items: [{ s: 1, error: null }] } }, { value: { items: [{ s: 1 }] } }, { compare: { select: 'value.items', dropFields: ['error'] } })).toEqual({
      actual: [{ s: 1 }],
      expected: [{ s: 1 }],
    });
    expect(comparable({ context: { slot: 0 }, value: 5 }, { value: 5 }, { expectedDerived: { value: 5 } })).toEqual({ actual: { value: 5 }, expected: { value: 5 } });
  });
});
