/**
 * Batches of Light Merkle proofs as one transferable buffer (for `verify-pool.ts`'s thread): every proof's leaf, root
 * and siblings, 32 bytes each, one after the other, with the sibling counts and leaf indexes beside them.
 */
import type { LightProofBytes } from './merkle-proof.js';

export interface PackedProofs {
  /** Per proof: leaf, root, then its siblings bottom-up (32 bytes each). */
  nodes: Uint8Array;
  heights: Int32Array;
  leafIndexes: Float64Array;
}

/** The proofs as one buffer. Nodes that are not 32 bytes are packed as 32 zero bytes with the proof marked height −1 (false once verified). */
export function packProofs(proofs: readonly LightProofBytes[]): PackedProofs {
  let total = 0;
  for (const p of proofs) total += 2 + p.siblings.length;
  const nodes = new Uint8Array(32 * total);
  const heights = new Int32Array(proofs.length);
  const leafIndexes = new Float64Array(proofs.length);
  let at = 0;
  proofs.forEach((p, i) => {
    let whole = p.leaf.length === 32 && p.root.length === 32;
    const put = (b: Uint8Array) => {
      if (b.length === 32) nodes.set(b, at);
      else whole = false;
      at += 32;
    };
    put(p.leaf);
    put(p.root);
    for (const s of p.siblings) put(s);
    heights[i] = whole ? p.siblings.length : -1 - p.siblings.length;
    leafIndexes[i] = p.leafIndex;
  });
  return { nodes, heights, leafIndexes };
}

/** The proofs of a packed batch, as views into its buffer (a proof packed with a bad node gets an invalid leaf index). */
export function unpackProofs(p: PackedProofs): LightProofBytes[] {
  const out: LightProofBytes[] = [];
  let at = 0;
  for (let i = 0; i < p.heights.length; i++) {
    const bad = p.heights[i] < 0;
    const height = bad ? -1 - p.heights[i] : p.heights[i];
    const node = () => {
      const v = p.nodes.subarray(at, at + 32);
      at += 32;
      return v;
    };
    const leaf = node();
    const root = node();
    const siblings = Array.from({ length: height }, node);
    out.push({ leaf, root, siblings, leafIndex: bad ? -1 : p.leafIndexes[i] });
  }
  return out;
}
