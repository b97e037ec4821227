/**
 * Worker thread of bench/gen/zk-poseidon.ts: computes the inner nodes of one aligned subtree (a chunk of ≤ 2^levels
 * consecutive leaves) level by level, each node once, with the project's Light Poseidon (src/proofs/light). For
 * V2 address trees it first hashes the leaves from the indexed elements (Poseidon(value, nextValue)).
 *
 * Message in: { id, kind: 'state', leaves } | { id, kind: 'addressV2', values, nextValues }, count, levels
 * (buffers of count × 32 bytes). Message out: { id, leaves?, levels: [level 1, …, level `levels`], hashes } where
 * level l holds ceil(count / 2^l) nodes; missing right children are the zero hash of their level.
 */
import { parentPort } from 'node:worker_threads';
import { initPoseidon, poseidon, poseidonPair, zeroHash } from '../../src/proofs/light/index.js';

export interface SubtreeTask {
  id: number;
  kind: 'state' | 'addressV2';
  count: number;
  levels: number;
  leaves?: Uint8Array;
  values?: Uint8Array;
  nextValues?: Uint8Array;
}

export interface SubtreeResult {
  id: number;
  leaves?: Uint8Array;
  levels: Uint8Array[];
  hashes: number;
}

await initPoseidon();
const zeros = Array.from({ length: 41 }, (_, l) => zeroHash(l));

parentPort!.on('message', (t: SubtreeTask) => {
  let hashes = 0;
  let leaves: Uint8Array;
  if (t.kind === 'addressV2') {
    leaves = new Uint8Array(t.count * 32);
    for (let i = 0; i < t.count; i++) {
      leaves.set(poseidon([t.values!.subarray(i * 32, i * 32 + 32), t.nextValues!.subarray(i * 32, i * 32 + 32)]), i * 32);
      hashes++;
    }
  } else {
    leaves = t.leaves!;
  }
  const levels: Uint8Array[] = [];
  let prev = leaves;
  let prevCount = t.count;
  for (let l = 1; l <= t.levels; l++) {
    const count = Math.ceil(prevCount / 2);
    const cur = new Uint8Array(count * 32);
    for (let j = 0; j < count; j++) {
      const left = prev.subarray(2 * j * 32, 2 * j * 32 + 32);
      const right = 2 * j + 1 < prevCount ? prev.subarray((2 * j + 1) * 32, (2 * j + 2) * 32) : zeros[l - 1];
      cur.set(poseidonPair(left, right), j * 32);
      hashes++;
    }
    levels.push(cur);
    prev = cur;
    prevCount = count;
  }
  const out: SubtreeResult = { id: t.id, levels, hashes, ...(t.kind === 'addressV2' ? { leaves } : {}) };
  parentPort!.postMessage(out, [...levels.map((b) => b.buffer as ArrayBuffer), ...(t.kind === 'addressV2' ? [leaves.buffer as ArrayBuffer] : [])]);
});
parentPort!.postMessage({ ready: true });
