/**
 * The Merkle maths against real chain data: the ChangeLog events that spl-account-compression and
 * mpl-account-compression emitted through their noop programs in the recorded Bubblegum transactions of
 * test/fixtures/das/decoded/transactions.
 *
 * The events are decoded here, minimally and independently of src/parsers (borsh, no discriminator:
 * `AccountCompressionEvent::ChangeLog` tag 0, `ChangeLogEvent::V1` tag 0, id [32], path Vec<PathNode{node [32],
 * index u32}>, seq u64, index u32 — spl-account-compression src/events).
 *
 * 1. Every path has the shape the node-index arithmetic expects.
 * 2. Trees recorded from creation (seq 0 onwards, no gap): the seq-0 path is the chain's empty tree (checks the
 *    empty-subtree table), and replaying each event's leaf on the model reproduces every recorded path node
 *    and root (checks keccak256 and the empty siblings); the proofs built from the node rows verify against
 *    the last recorded root. These trees only touch leaf 0, so they never hash a right child.
 * 3. `replace_leaf` CPIs carry real proof nodes as accounts: hashing the recorded leaf up through them gives
 *    the recorded path nodes, as far as the proof goes (the rest sits in the canopy). Their leaf indexes
 *    (5, 58, 170433 in depth-14/30/20 trees) exercise the (sibling ‖ node) order of right children.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import bs58 from 'bs58';
import { sha256 } from '@noble/hashes/sha2';
import { describe, expect, it } from 'vitest';
import { ConcurrentMerkleTreeModel } from '../../src/proofs/concurrent-tree-model.js';
import { emptyNode, hashToParent, nodesEqual, nodeToBase58 } from '../../src/proofs/hash.js';
import { changeLogPathProblem, type ChangeLogPathNode } from '../../src/proofs/paths.js';
import { buildProof, verifyBuiltProof } from '../../src/proofs/verify.js';
import { NodeStore } from './helpers.js';

const DIR = join(import.meta.dirname, '../fixtures/das/decoded/transactions');
const NOOPS = new Set(['noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV', 'mnoopTCrg4p8ry25e4bcWA9XZjbNjMTfgYVGGEdRsf3']);
const COMPRESSION = new Set([
  'cmtDvXumGCrqC1Age74AVPhSRVXJMd8PJS91L8KbNCK',
  'mcmt6YrQEMKw8Mw43FmpRLmf7BqRnFMKmAcbxE3xkAW',
]);
const REPLACE_LEAF = sha256(new TextEncoder().encode('global:replace_leaf')).slice(0, 8);

interface RawIx {
  programIdIndex: number;
  accounts: number[];
  data: string;
}
interface RawTx {
  signature: string;
  accountKeys: string[];
  outerInstructions: RawIx[];
  innerInstructions: { index: number; instructions: RawIx[] }[] | null;
}
interface Ix {
  program: string;
  accounts: (string | undefined)[];
  data: Uint8Array;
}
interface ChainEvent {
  tree: string;
  path: ChangeLogPathNode[];
  seq: bigint;
  index: number;
  signature: string;
  /** Proof nodes of the `replace_leaf` call that produced the event, when it was one. */
  replaceProof?: Uint8Array[];
  replaceNewLeaf?: Uint8Array;
  replaceIndex?: number;
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.json') ? [join(dir, e.name)] : [],
  );
}

/** ChangeLog V1 from noop data, or null for anything else (application data, foreign payloads). */
function decodeChangeLog(data: Uint8Array): Omit<ChainEvent, 'signature'> | null {
  if (data.length < 38 || data[0] !== 0 || data[1] !== 0) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const n = view.getUint32(34, true);
  const end = 38 + 36 * n;
  if (data.length !== end + 12) return null;
  const path: ChangeLogPathNode[] = [];
  for (let k = 0; k < n; k++) {
    const o = 38 + 36 * k;
    path.push({ node: data.slice(o, o + 32), index: view.getUint32(o + 32, true) });
  }
  const tree = bs58.encode(data.subarray(2, 34));
  return { tree, path, seq: view.getBigUint64(end, true), index: view.getUint32(end + 8, true) };
}

function instructions(tx: RawTx): Ix[] {
  const toIx = (ix: RawIx): Ix => ({
    program: tx.accountKeys[ix.programIdIndex],
    accounts: ix.accounts.map((a) => tx.accountKeys[a]),
    data: bs58.decode(ix.data),
  });
  return tx.outerInstructions.flatMap((outer, i) => [
    toIx(outer),
    ...(tx.innerInstructions ?? []).filter((g) => g.index === i).flatMap((g) => g.instructions.map(toIx)),
  ]);
}

const stats = { transactions: 0, noopPayloads: 0, otherPayloads: 0, duplicates: 0 };
const events = new Map<string, ChainEvent>();
for (const file of files(DIR)) {
  const tx = JSON.parse(readFileSync(file, 'utf8')) as RawTx;
  stats.transactions++;
  const ixs = instructions(tx);
  ixs.forEach((ix, pos) => {
    if (!NOOPS.has(ix.program)) return;
    stats.noopPayloads++;
    const ev = decodeChangeLog(ix.data);
    if (!ev) return void stats.otherPayloads++;
    const event: ChainEvent = { ...ev, signature: tx.signature };
    // the compression instruction that emitted it: the closest one before it on the same tree
    for (let k = pos - 1; k >= 0; k--) {
      const c = ixs[k];
      if (!COMPRESSION.has(c.program) || c.accounts[0] !== ev.tree) continue;
      if (nodesEqual(c.data.subarray(0, 8), REPLACE_LEAF) && c.data.length === 8 + 96 + 4) {
        event.replaceNewLeaf = c.data.slice(72, 104);
        event.replaceIndex = new DataView(c.data.buffer, c.data.byteOffset).getUint32(104, true);
        const proof = c.accounts.slice(3);
        if (proof.every((a) => a !== undefined)) event.replaceProof = proof.map((a) => bs58.decode(a!));
      }
      break;
    }
    const key = `${ev.tree}:${ev.seq}`;
    const seen = events.get(key);
    if (seen) {
      stats.duplicates++;
      expect(seen.path).toEqual(ev.path);
    } else events.set(key, event);
  });
}
const all = [...events.values()].sort((a, b) => (a.tree < b.tree ? -1 : a.tree > b.tree ? 1 : Number(a.seq - b.seq)));
const byTree = new Map<string, ChainEvent[]>();
for (const e of all) byTree.set(e.tree, [...(byTree.get(e.tree) ?? []), e]);

describe('ChangeLog events recorded on chain', () => {
  it('the fixtures hold change logs of several trees and depths', () => {
    expect(stats.transactions).toBeGreaterThan(50);
    expect(all.length).toBeGreaterThan(50);
    expect(new Set(all.map((e) => e.path.length - 1))).toEqual(new Set([3, 14, 20, 30]));
  });

  it('every path is leaf first, root (1) last, with index = (2^depth + leaf index) >> level', () => {
    for (const e of all) {
      expect(changeLogPathProblem(e.path), `${e.tree} seq ${e.seq}`).toBeNull();
      const depth = e.path.length - 1;
      expect(e.path[0].index).toBe(2 ** depth + e.index);
      expect(e.path[depth].index).toBe(1);
    }
  });

  const fromCreation = [...byTree.values()].filter((evs) => evs.every((e, k) => e.seq === BigInt(k)));

  it('trees recorded from creation exist (seq 0 onwards, no gap)', () => {
    expect(fromCreation.length).toBeGreaterThanOrEqual(15);
  });

  it('seq 0 (tree initialisation) is the empty tree: empty_node(level) at every level', () => {
    for (const [first] of fromCreation) {
      expect(first.index).toBe(0);
      first.path.forEach((p, level) => expect(nodeToBase58(p.node)).toBe(nodeToBase58(emptyNode(level))));
    }
  });

  it('replaying the leaves on the model reproduces every recorded path node and root', () => {
    let compared = 0;
    for (const evs of fromCreation) {
      const depth = evs[0].path.length - 1;
      const model = new ConcurrentMerkleTreeModel(depth);
      expect(model.initialChangeLog().path).toEqual(evs[0].path);
      for (const e of evs.slice(1)) {
        const emitted = model.applyLeaf(e.index, e.path[0].node);
        expect(emitted.seq).toBe(e.seq);
        expect(emitted.path.map((p) => nodeToBase58(p.node)), `${e.tree} seq ${e.seq}`).toEqual(
          e.path.map((p) => nodeToBase58(p.node)),
        );
        expect(emitted.path.map((p) => p.index)).toEqual(e.path.map((p) => p.index));
        compared += e.path.length;
      }
    }
    expect(compared).toBeGreaterThan(200);
  });

  it('proofs built from the node rows of those trees verify against the last recorded root', () => {
    for (const evs of fromCreation) {
      const depth = evs[0].path.length - 1;
      const store = new NodeStore();
      for (const e of evs) store.apply(e);
      const lastRoot = nodeToBase58(evs[evs.length - 1].path[depth].node);
      for (const leafIndex of new Set([...evs.map((e) => e.index), 2 ** depth - 1])) {
        const proof = buildProof(leafIndex, depth, store.lookup);
        expect(proof.root).toBe(lastRoot);
        expect(verifyBuiltProof(proof), `${evs[0].tree} leaf ${leafIndex}`).toBe(true);
      }
    }
  });

  it('replace_leaf proof accounts hash the recorded leaf up to the recorded path nodes', () => {
    const replaced = all.filter((e) => e.replaceProof !== undefined);
    expect(replaced.length).toBeGreaterThan(10);
    let levels = 0;
    let rightChildLevels = 0;
    for (const e of replaced) {
      const label = `${e.tree} seq ${e.seq} (${e.signature})`;
      expect(e.replaceIndex, label).toBe(e.index);
      expect(e.replaceNewLeaf, label).toEqual(e.path[0].node);
      let node = e.path[0].node;
      e.replaceProof!.forEach((sibling, level) => {
        const isLeft = Math.floor(e.index / 2 ** level) % 2 === 0;
        if (!isLeft) rightChildLevels++;
        node = hashToParent(node, sibling, isLeft);
        expect(nodeToBase58(node), `${label} level ${level + 1}`).toBe(nodeToBase58(e.path[level + 1].node));
        levels++;
      });
    }
    expect(levels).toBeGreaterThan(30);
    // both orders are exercised: the trees recorded from creation only ever touch leaf 0 (always a left child)
    expect(rightChildLevels).toBeGreaterThan(5);
    // the deep trees recorded mid-life (depths 20 and 30) are among them
    expect(new Set(replaced.map((e) => e.path.length - 1))).toContain(30);
    // and at least one proof without canopy reaches the recorded root
    expect(replaced.some((e) => e.replaceProof!.length === e.path.length - 1 && e.path.length > 4)).toBe(true);
  });
});
