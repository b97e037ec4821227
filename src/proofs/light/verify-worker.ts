/**
 * The thread of `verify-pool.ts`: verifies batches of Light Merkle proofs (`verifyLightProofsBatch`, with this
 * thread's own Poseidon instance and pair memo) packed as `packProofs` writes them, and answers one byte per proof.
 */
import { parentPort } from 'node:worker_threads';
import { verifyLightProofsBatch } from './merkle-proof.js';
import { initPoseidon } from './poseidon.js';
import { unpackProofs, type PackedProofs } from './verify-pack.js';

parentPort?.on('message', (m: { id: number; packed: PackedProofs }) => {
  initPoseidon().then(
    () => {
      const ok = Uint8Array.from(verifyLightProofsBatch(unpackProofs(m.packed)), (v) => (v ? 1 : 0));
      parentPort?.postMessage({ id: m.id, ok }, [ok.buffer as ArrayBuffer]);
    },
    (e: unknown) => parentPort?.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) }),
  );
});
