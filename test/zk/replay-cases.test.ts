/**
 * Every open Photon snapshot case, replayed from the recorded transactions and blocks through the real ingest
 * pipeline (Light parser → fold → tree nodes → ZK store) under each of upstream's four indexing variants, then
 * queried over JSON-RPC and compared with the recorded answers per the case's compare rules. Validity proofs go to
 * a local stand-in prover (upstream blanks the randomised proof); getTransactionWithCompressionInfo reads the
 * recorded transaction file as upstream's test does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProverClient } from '../../src/api/zk/prover.js';
import { createTestApp } from '../helpers/app.js';
import { startFakeProver, type FakeProver } from './fake-prover.js';
import { inputFile, loadPhotonCases, runPhotonCase } from './harness.js';
import { VARIANTS, replayInputs } from './replay.js';
import { fixtureTransactionFetcher } from './seeded-cases.js';

let prover: FakeProver;
beforeAll(async () => {
  prover = await startFakeProver();
});
afterAll(async () => prover?.close());

describe('photon reference cases, replayed from the recorded inputs', () => {
  const { snapshotCases } = loadPhotonCases();
  for (const c of snapshotCases) {
    for (const variant of VARIANTS) {
      it(`${c.id} [${variant}]: ${c.queries.map((q) => q.method).join(', ')}`, async () => {
        const ta = await createTestApp({ zk: { prover: createProverClient(prover.url), getTransaction: fixtureTransactionFetcher() } });
        try {
          const outcomes = await runPhotonCase(ta, c, async (t) => {
            const inputs = c.inputs.map((i) => ({ file: inputFile(i)!, kind: i.kind }));
            expect(inputs.every((i) => i.file)).toBe(true);
            const ingester = await replayInputs(t.t.db, inputs, variant);
            expect(ingester.zk.stats.treeProblems).toBe(0);
            expect(ingester.zk.stats.parseFailures).toBe(0);
          });
          expect(outcomes.length).toBe(c.queries.length);
          for (const o of outcomes) {
            expect(o.status, `${o.method}: ${o.reason ?? ''}`).toBe('match');
            expect(o.actual, o.method).toEqual(o.expected);
          }
        } finally {
          await ta.close();
        }
      });
    }
  }
});
