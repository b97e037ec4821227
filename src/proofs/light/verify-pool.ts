/**
 * Verification of Light Merkle proof batches on a thread of their own, so that under concurrent proof requests the
 * Poseidon hashing (most of a proof request's CPU) runs beside the main thread's reading, encoding and serving
 * instead of in turn with it. The result is `verifyLightProofsBatch`'s, computed by the same code on the thread
 * (its own Poseidon instance and pair memo, which every large batch goes through, so its memo is the one that
 * warms: verifying in place when a request is alone would miss it). Small batches, and every batch after the thread
 * failed, are verified on the calling thread. The thread starts at the first large batch and does not keep the
 * process alive.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../core/worker-thread.js';
import { verifyLightProofsBatch, type LightProofBytes } from './merkle-proof.js';
import { packProofs } from './verify-pack.js';

/** Batches with fewer proofs are verified in place (a hop to the thread costs more than they do). */
export const OFF_THREAD_MIN_PROOFS = 8;

type Reply = { id: number; ok: Uint8Array } | { id: number; error: string };

let worker: Worker | null = null;
let failed = false;
let nextId = 0;
const pending = new Map<number, { resolve: (ok: boolean[]) => void; reject: (e: Error) => void }>();

function thread(): Worker | null {
  if (failed) return null;
  if (worker) return worker;
  try {
    worker = startModuleWorker(import.meta.url, 'verify-worker');
  } catch {
    failed = true;
    return null;
  }
  worker.unref();
  worker.on('message', (m: Reply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if ('error' in m) p.reject(new Error(m.error));
    else p.resolve(Array.from(m.ok, (v) => v === 1));
  });
  const fail = (e: Error) => {
    failed = true;
    worker = null;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`proof verification thread exited (${code})`)));
  return worker;
}

/**
 * `verifyLightProofsBatch(proofs)`, on the verification thread when the batch is large enough. A batch the thread
 * could not answer (it failed) is verified here instead: the answer never depends on where it was computed.
 */
export async function verifyLightProofsOffThread(proofs: readonly LightProofBytes[]): Promise<boolean[]> {
  const w = proofs.length >= OFF_THREAD_MIN_PROOFS ? thread() : null;
  if (!w) return verifyLightProofsBatch(proofs);
  const packed = packProofs(proofs);
  const id = nextId++;
  try {
    return await new Promise<boolean[]>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      w.postMessage({ id, packed }, [packed.nodes.buffer, packed.heights.buffer, packed.leafIndexes.buffer] as ArrayBuffer[]);
    });
  } catch {
    return verifyLightProofsBatch(proofs);
  }
}

/** Stops the thread (tests); the next large batch starts a new one. */
export async function stopVerifyThread(): Promise<void> {
  const w = worker;
  worker = null;
  failed = false;
  if (w) {
    w.removeAllListeners('exit');
    await w.terminate();
  }
}
